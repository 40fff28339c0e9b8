//! `/v1/moves`: every pair that can be removed now, or the partners of one
//! tile (a hint for the tile a player picked), with their paths.

use super::settings::Settings;
use super::{at_least_one, position};
use crate::board::WireBoard;
use crate::decode::decode;
use crate::error::{ApiError, ErrorCode, Work};
use crate::limits::Limits;
use crate::wire::{Gravity, Move, Point, WireRules, name};
use linkpath_engine::{EMPTY, Stop, game};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The body of `/v1/moves`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MovesRequest {
    #[schema(value_type = WireBoard)]
    pub board: WireBoard,
    /// The rules; mahjong when absent.
    #[serde(default)]
    pub rules: Option<WireRules>,
    /// Most moves to list, from 1; all (up to the server's limit) when
    /// absent.
    #[serde(default)]
    #[schema(minimum = 1)]
    pub limit: Option<u64>,
    /// Whether moves list their path's corner points; true when absent.
    #[serde(default)]
    pub include_path: Option<bool>,
    /// A tile to list the moves of (a hint for the tile a player picked):
    /// each move is then from this tile to a partner, partners in reading
    /// order, the path from this tile as `/v1/solve` answers it. Every
    /// move of the board when absent.
    #[serde(default)]
    pub from: Option<Point>,
    /// Accepted and ignored, so one `{rules, gravity, settle}` can go to
    /// every game route: a move's availability does not depend on where
    /// tiles fall later.
    #[serde(default, deserialize_with = "name")]
    pub gravity: Option<Gravity>,
    /// Accepted and ignored, as `gravity` is.
    #[serde(default)]
    pub settle: Option<bool>,
}

/// Every pair that can be removed now, in reading order of the first tile
/// (with `from`, of the partner).
#[derive(Debug, Serialize, ToSchema)]
pub struct MovesResponse {
    pub moves: Vec<Move>,
    /// Tiles are left and none can be removed (on the whole board, also
    /// with `from`).
    pub stuck: bool,
    /// No tiles are left.
    pub cleared: bool,
    /// Whether the server's limit on listed moves cut the list short.
    pub truncated: bool,
}

impl MovesResponse {
    /// The metrics label of the answer.
    pub fn outcome(&self) -> &'static str {
        position(self.cleared, self.stuck)
    }
}

pub fn moves(body: &[u8], limits: &Limits, stop: &Stop) -> Result<MovesResponse, ApiError> {
    let request: MovesRequest = decode(body, limits)?;
    let (board, settings) = Settings::with_board(
        request.board,
        request.rules.as_ref(),
        request.gravity,
        request.settle,
        limits,
    )?;
    let rules = settings.rules;
    let board = settings.classes(&board, Work::Moves, stop)?;
    let limit = request
        .limit
        .map(|l| at_least_one(l, "limit"))
        .transpose()?;
    let include_path = request.include_path.unwrap_or(true);
    // A board of n tiles may have n^2 / 2 moves: past the server's limit
    // the list is cut, and one move more is looked for to tell so.
    let asked = limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
    let capped = asked > limits.max_moves;
    let looked_for = if capped { limits.max_moves + 1 } else { asked };
    let mut found = match request.from {
        Some(from) => {
            let from = tile_at(from, &board, "from")?;
            game::moves_from(&board, &rules, from, Some(looked_for), stop)
        }
        None => game::moves(&board, &rules, Some(looked_for), stop),
    }
    .map_err(Work::Moves.interrupted())?;
    let truncated = capped && found.len() > limits.max_moves;
    found.truncate(limits.max_moves);
    let cleared = game::cleared(&board);
    // A tile without partners says nothing of the others.
    let stuck = match request.from {
        _ if !found.is_empty() => false,
        Some(_) => game::stuck(&board, &rules, stop).map_err(Work::Moves.interrupted())?,
        None => !cleared,
    };
    Ok(MovesResponse {
        truncated,
        stuck,
        cleared,
        moves: found
            .iter()
            .map(|m| Move::with_path(m.from, m.to, &m.path, include_path))
            .collect(),
    })
}

/// The tile at `point`, or a 422 naming `field` when it is off the board or
/// an empty cell.
fn tile_at(
    point: Point,
    board: &linkpath_engine::Board,
    field: &str,
) -> Result<linkpath_engine::Point, ApiError> {
    let p = point.on(board).map_err(|e| e.at(field))?;
    if board.get(p) == Some(EMPTY) {
        return Err(ApiError::new(
            ErrorCode::InvalidQuery,
            format!("[{}, {}] is an empty cell, expected a tile", p.x, p.y),
        )
        .at(field));
    }
    Ok(p)
}
