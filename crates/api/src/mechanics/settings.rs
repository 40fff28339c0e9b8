//! The settings every game route reads the same way: the board sent (its
//! tiles read as matching classes), the rules, the matching groups and
//! where tiles fall (`gravity`, `settle`). `/v1/deal` has no board to read
//! and takes the rest for the form of the board it deals.

use crate::board::{BoardEncoding, WireBoard};
use crate::error::{ApiError, ErrorCode, Work};
use crate::limits::Limits;
use crate::wire::{Gravity, WireRules};
use linkpath_engine::game::Fall;
use linkpath_engine::{Board, Groups, Movement, Rules, Stop};
use std::borrow::Cow;

/// How a game is played: the rules, the matching groups and where tiles
/// fall, for a board whose rows are written in `encoding`.
pub(crate) struct Settings {
    pub encoding: BoardEncoding,
    /// The routes play on the class board ([`Groups`]) and answer with the
    /// real one where they answer with a board.
    pub groups: Groups,
    pub rules: Rules,
    pub fall: Fall,
}

impl Settings {
    /// Reads the settings for a board written in `encoding`: the groups
    /// are checked against that form, then the rules; `settle` is false
    /// when absent.
    pub fn read(
        encoding: BoardEncoding,
        rules: Option<&WireRules>,
        gravity: Option<Gravity>,
        settle: Option<bool>,
        limits: &Limits,
    ) -> Result<Settings, ApiError> {
        let groups = rules.map_or_else(|| Ok(Groups::default()), |r| r.groups(encoding))?;
        let rules = game_rules(rules, limits)?;
        let fall = Fall::new(gravity.unwrap_or_default().into(), settle.unwrap_or(false));
        Ok(Settings {
            encoding,
            groups,
            rules,
            fall,
        })
    }

    /// Reads the board sent and the settings for the form of its rows.
    pub fn with_board(
        board: WireBoard,
        rules: Option<&WireRules>,
        gravity: Option<Gravity>,
        settle: Option<bool>,
        limits: &Limits,
    ) -> Result<(Board, Settings), ApiError> {
        let WireBoard { board, encoding } = board;
        let settings = Settings::read(encoding, rules, gravity, settle, limits)?;
        Ok((board, settings))
    }

    /// `board` with each tile replaced by its matching class; `board`
    /// itself when no groups were sent.
    pub fn classes<'b>(
        &self,
        board: &'b Board,
        work: Work,
        stop: &Stop,
    ) -> Result<Cow<'b, Board>, ApiError> {
        self.groups.classes(board, stop).map_err(work.interrupted())
    }
}

/// The rules of a game request: line movement only.
fn game_rules(rules: Option<&WireRules>, limits: &Limits) -> Result<Rules, ApiError> {
    let rules = match rules {
        Some(rules) => rules.within(limits)?,
        None => WireRules::default().within(limits)?,
    };
    if rules.movement != Movement::Line {
        return Err(ApiError::new(
            ErrorCode::InvalidRules,
            "the game routes need line movement; slide (curling) has no tiles to remove",
        )
        .at("rules"));
    }
    Ok(rules)
}
