//! `/v1/shuffle`: the same tiles on the same cells in another order,
//! clearable when asked, with where each tile went.

use super::settings::Settings;
use crate::board::{BoardEncoding, BoardRows, Tile, WireBoard};
use crate::decode::decode;
use crate::error::{ApiError, ErrorCode, Work, count};
use crate::limits::Limits;
use crate::wire::{Gravity, Move, Moved, WireRules, name};
use linkpath_engine::game::{self, ShuffleError};
use linkpath_engine::{Board, EMPTY, Point, Stop};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use utoipa::ToSchema;

/// The body of `/v1/shuffle`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ShuffleRequest {
    #[schema(value_type = WireBoard)]
    pub board: WireBoard,
    /// The rules; mahjong when absent.
    #[serde(default)]
    pub rules: Option<WireRules>,
    /// Where tiles fall after each removal (for `solvable`); none when
    /// absent.
    #[serde(default, deserialize_with = "name")]
    pub gravity: Option<Gravity>,
    /// Whether every line settles toward the gravity side after each
    /// removal of the clearing sequence (for `solvable`), as on the other
    /// game routes; false when absent.
    #[serde(default)]
    pub settle: Option<bool>,
    /// The same seed shuffles the same way; 0 when absent.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Whether the shuffled board must be clearable (the answer then has a
    /// sequence that clears it); false when absent.
    #[serde(default)]
    pub solvable: Option<bool>,
}

/// The same tiles on the same cells, in another order.
#[derive(Debug, Serialize, ToSchema)]
pub struct ShuffleResponse {
    #[schema(value_type = WireBoard)]
    pub board: BoardRows,
    /// A sequence that clears the board; present when `solvable` was
    /// asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub moves: Option<Vec<Move>>,
    /// Where each tile went: every tile whose cell changed, in reading
    /// order of `from`. Moving each listed tile at once from `from` to `to`
    /// on the board sent gives the board answered. Per tile type the cells
    /// it held are matched, in reading order, to the cells it holds.
    pub moved: Vec<Moved>,
}

/// A group whose tiles cannot all be paired off, named by its first type.
fn odd_group(encoding: BoardEncoding, kind: u32, copies: usize) -> ApiError {
    ApiError::new(
        ErrorCode::InvalidRequest,
        format!(
            "the group of {} has {} left, an odd number, so the board cannot be cleared",
            Tile::new(kind, encoding),
            count(copies, "tile", "tiles")
        ),
    )
    .at("board")
}

pub fn shuffle(body: &[u8], limits: &Limits, stop: &Stop) -> Result<ShuffleResponse, ApiError> {
    let request: ShuffleRequest = decode(body, limits)?;
    let (board, settings) = Settings::with_board(
        request.board,
        request.rules.as_ref(),
        request.gravity,
        request.settle,
        limits,
    )?;
    let seed = request.seed.unwrap_or(0);
    let solvable = request.solvable.unwrap_or(false);
    let (shuffled, sequence) = shuffled(&board, &settings, seed, solvable, Work::Shuffle, stop)?;
    Ok(ShuffleResponse {
        moved: Moved::list(&game::relocation(&board, &shuffled)),
        board: BoardRows::new(&shuffled, settings.encoding),
        moves: sequence.map(|s| s.into_iter().map(Move::bare).collect()),
    })
}

/// A sequence of moves that clears a board.
pub(crate) type Sequence = Vec<(Point, Point)>;

/// `board` shuffled by `seed`, with a sequence that clears it when it must
/// be `solvable`: `/v1/shuffle`, and a game's shuffle.
pub(crate) fn shuffled(
    board: &Board,
    settings: &Settings,
    seed: u64,
    solvable: bool,
    work: Work,
    stop: &Stop,
) -> Result<(Board, Option<Sequence>), ApiError> {
    let groups = &settings.groups;
    let (encoding, rules, fall) = (settings.encoding, settings.rules, settings.fall);
    let classes = settings.classes(board, work, stop)?;
    let refused = |e: ShuffleError| match e {
        ShuffleError::Interrupted(e) => work.stopped(e),
        ShuffleError::OddCopies { kind, copies } if groups.is_grouped(kind) => {
            odd_group(encoding, kind, copies)
        }
        ShuffleError::OddCopies { kind, copies } => ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "type {} has {} left, an odd number, so the board cannot be cleared",
                Tile::new(kind, encoding),
                count(copies, "tile", "tiles")
            ),
        )
        .at("board"),
        other => ApiError::new(ErrorCode::InvalidRequest, other.to_string()).at("board"),
    };
    let (shuffled, sequence) = if solvable {
        let (b, s) = game::shuffle_solvable(&classes, &rules, fall, seed, stop).map_err(refused)?;
        (b, Some(s))
    } else {
        (
            game::shuffle(&classes, &rules, seed, stop).map_err(refused)?,
            None,
        )
    };
    // Shuffled as classes; each class's cells then get the board's own
    // tiles of that class.
    let shuffled = match classes {
        Cow::Borrowed(_) => shuffled,
        Cow::Owned(_) => {
            let tiles = board.cells().iter().copied().filter(|&c| c != EMPTY);
            groups
                .assign(&shuffled, tiles, seed, stop)
                .map_err(work.interrupted())?
        }
    };
    Ok((shuffled, sequence))
}
