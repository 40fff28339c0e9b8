//! `/v1/play`: a list of moves made in order on the board sent, each with
//! its path and the tiles that fell after it, stopping at the first that
//! cannot be made.

use super::position;
use super::settings::Settings;
use crate::board::{BoardRows, WireBoard};
use crate::decode::decode;
use crate::error::{ApiError, ErrorCode, Work};
use crate::limits::Limits;
use crate::solve::Reason;
use crate::wire::{Gravity, Move, Moved, Point, Query, Step, WireRules, name, within};
use linkpath_engine::{Match, Rules, Stop, game};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use utoipa::ToSchema;

/// The body of `/v1/play`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayRequest {
    #[schema(value_type = WireBoard)]
    pub board: WireBoard,
    /// The rules; mahjong when absent.
    #[serde(default)]
    pub rules: Option<WireRules>,
    /// Where tiles fall after each removal; none when absent.
    #[serde(default, deserialize_with = "name")]
    pub gravity: Option<Gravity>,
    /// Whether every line of the board settles toward the gravity side
    /// after each removal (every floating tile falls), rather than only the
    /// lines that lost a tile; false when absent. The two differ only on a
    /// board with floating tiles, and only from its first removal on: a
    /// settled board stays settled. Nothing changes with no gravity.
    #[serde(default)]
    pub settle: Option<bool>,
    /// The pairs to remove, in order.
    pub moves: Vec<Query>,
    /// Whether steps and the hint list their path's corner points; true
    /// when absent.
    #[serde(default)]
    pub include_path: Option<bool>,
    /// Whether the answer carries `hint`, a move on the final board; false
    /// when absent.
    #[serde(default)]
    pub hint: Option<bool>,
}

/// The board after the moves that could be made.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayResponse {
    #[schema(value_type = WireBoard)]
    pub board: BoardRows,
    /// Each move made, with its path and the tiles that fell after it.
    pub steps: Vec<Step>,
    pub cleared: bool,
    pub stuck: bool,
    /// How many moves the final board has, as `/v1/moves` would list them,
    /// counted up to the server's limit on listed moves.
    pub moves_open: usize,
    /// The first move of the final board, as `/v1/moves` with `limit: 1`
    /// gives it (its path per `include_path`); present when `hint` was
    /// asked and the board has a move.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub hint: Option<Move>,
    /// The first move that could not be made; the moves after it were not
    /// tried.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub stopped_at: Option<StoppedAt>,
}

impl PlayResponse {
    /// The metrics label of the answer.
    pub fn outcome(&self) -> &'static str {
        match self.stopped_at {
            Some(_) => "stopped",
            None => position(self.cleared, self.stuck),
        }
    }
}

/// A move that could not be made, and why.
#[derive(Debug, Serialize, ToSchema)]
pub struct StoppedAt {
    /// Its place in `moves`, from 0.
    pub index: usize,
    pub from: Point,
    pub to: Point,
    pub reason: Reason,
}

pub fn play(body: &[u8], limits: &Limits, stop: &Stop) -> Result<PlayResponse, ApiError> {
    let request: PlayRequest = decode(body, limits)?;
    let (board, settings) = Settings::with_board(
        request.board,
        request.rules.as_ref(),
        request.gravity,
        request.settle,
        limits,
    )?;
    let (encoding, rules, fall) = (settings.encoding, settings.rules, settings.fall);
    within(&request.moves, limits, "moves")?;
    let list = request
        .moves
        .iter()
        .enumerate()
        .map(|(i, m)| m.on(&board, &format!("moves[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let include_path = request.include_path.unwrap_or(true);
    let classes = settings.classes(&board, Work::Play, stop)?;
    // The answer lists every tile that fell: at most as many as a board
    // may have cells, so it stays proportional to the limits.
    let played = game::play_within(&classes, &rules, fall, &list, limits.max_cells, stop)
        .map_err(Work::Play.interrupted())?
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::TooLarge,
                format!(
                    "the moves make more than {} tiles fall in all, over the limit of the answer; send fewer moves",
                    limits.max_cells
                ),
            )
            .at("moves")
        })?;
    // The moves made on the class board, made again on the real one: with
    // any two tiles matching, each joins by the same path and the tiles
    // fall alike, as only empty cells steer either.
    let real = match &classes {
        Cow::Borrowed(_) => None,
        Cow::Owned(_) => {
            let any = Rules {
                matching: Match::Any,
                ..rules
            };
            let made = &list[..played.steps.len()];
            let replayed =
                game::play(&board, &any, fall, made, stop).map_err(Work::Play.interrupted())?;
            debug_assert!(replayed.stopped.is_none(), "the replay stopped");
            Some(replayed.board)
        }
    };
    let steps = played
        .steps
        .iter()
        .zip(&played.moved)
        .zip(&list)
        .map(|((path, moved), &(from, to))| Step {
            from: from.into(),
            to: to.into(),
            segments: path.segments,
            path: include_path.then(|| path.corners.iter().copied().map(Point::from).collect()),
            moved: Moved::list(moved),
        })
        .collect();
    let moves_open = game::moves_open(&played.board, &rules, limits.max_moves, stop)
        .map_err(Work::Play.interrupted())?;
    let hint = if request.hint.unwrap_or(false) {
        let first =
            game::moves(&played.board, &rules, Some(1), stop).map_err(Work::Play.interrupted())?;
        first
            .first()
            .map(|m| Move::with_path(m.from, m.to, &m.path, include_path))
    } else {
        None
    };
    Ok(PlayResponse {
        cleared: game::cleared(&played.board),
        stuck: game::stuck(&played.board, &rules, stop).map_err(Work::Play.interrupted())?,
        moves_open,
        hint,
        board: BoardRows::new(real.as_ref().unwrap_or(&played.board), encoding),
        steps,
        stopped_at: played.stopped.map(|(index, reason)| StoppedAt {
            index,
            from: list[index].0.into(),
            to: list[index].1.into(),
            reason: reason.into(),
        }),
    })
}
