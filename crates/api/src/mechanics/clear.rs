//! `/v1/clear`: whether the board sent can be cleared, searched within a
//! time budget (and optionally a number of states), with a clearing
//! sequence when there is one.

use super::at_least_one;
use super::settings::Settings;
use crate::board::{Tile, WireBoard};
use crate::decode::decode;
use crate::error::{ApiError, Work};
use crate::limits::Limits;
use crate::wire::{Gravity, Move, WireRules, name};
use linkpath_engine::Stop;
use linkpath_engine::game::{self, ClearOptions, Clearing, Decided};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};
use utoipa::ToSchema;

/// The default search budget of `/v1/clear`, in milliseconds.
const DEFAULT_BUDGET_MS: u64 = 1000;

/// The body of `/v1/clear`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClearRequest {
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
    /// How long to search before answering `unknown`, in milliseconds,
    /// from 1; 1000 when absent. It is cut to 90% of the server's timeout,
    /// so it always ends before the server's deadline (`budget_ms` in the
    /// answer says what applied). With `max_states` the search ends at
    /// whichever comes first.
    #[serde(default)]
    #[schema(minimum = 1)]
    pub budget_ms: Option<u64>,
    /// The most board states to search before answering `unknown`, from 1;
    /// no limit when absent. Unlike `budget_ms` it does not depend on the
    /// machine: when it ends the search (the answer is `unknown` with
    /// `states` equal to it) the same request answers the same everywhere.
    /// Set `budget_ms` large enough that time does not end the search
    /// first.
    #[serde(default)]
    #[schema(minimum = 1)]
    pub max_states: Option<u64>,
}

/// Whether the board can be cleared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ClearOutcome {
    /// `moves` clears the board.
    Solvable,
    /// No sequence of moves clears it: the search was exhaustive.
    Unsolvable,
    /// The budget ran out first.
    Unknown,
}

/// The verdict, and a clearing sequence when there is one.
#[derive(Debug, Serialize, ToSchema)]
pub struct ClearResponse {
    pub outcome: ClearOutcome,
    /// A sequence that clears the board, each pair given by its cells on
    /// the board of its turn; present when solvable.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub moves: Option<Vec<Move>>,
    /// Distinct board states searched.
    pub states: u64,
    /// Why the answer needed no search, when it did not (`states` is then
    /// 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub reason: Option<ClearReason>,
    /// With reason `odd_type`: the type, as the board writes it (a
    /// character on text rows, a number on number rows); the first such
    /// type in character or number order. With matching groups, a
    /// group's first type stands for the group.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub tile: Option<Tile>,
    /// With reason `odd_type`, the tiles of that type (of its group, with
    /// matching groups); with `odd_tiles`, all the tiles.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub count: Option<u64>,
    /// The time spent answering, in milliseconds, from the request's
    /// arrival; it varies from run to run.
    pub elapsed_ms: u64,
    /// The search budget that applied, in milliseconds: the request's
    /// `budget_ms` (1000 when absent), cut to 90% of the server's timeout.
    pub budget_ms: u64,
}

/// Why `/v1/clear` answered without searching.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClearReason {
    /// The board has no tiles: solvable, with no moves.
    NoTiles,
    /// Under `match: same`, a type (`tile`) has an odd number of tiles, so
    /// one is always left: unsolvable.
    OddType,
    /// Under `match: any`, the board has an odd number of tiles, so one is
    /// always left: unsolvable.
    OddTiles,
}

impl ClearResponse {
    /// The metrics label of the answer.
    pub fn outcome(&self) -> &'static str {
        match self.outcome {
            ClearOutcome::Solvable => "solvable",
            ClearOutcome::Unsolvable => "unsolvable",
            ClearOutcome::Unknown => "unknown",
        }
    }
}

/// `started` is when the request arrived and `timeout` the server's
/// deadline from then: the budget ends before it, so a long search answers
/// `unknown` rather than 504.
pub fn clear(
    body: &[u8],
    limits: &Limits,
    stop: &Stop,
    started: Instant,
    timeout: Duration,
) -> Result<ClearResponse, ApiError> {
    let request: ClearRequest = decode(body, limits)?;
    let (board, settings) = Settings::with_board(
        request.board,
        request.rules.as_ref(),
        request.gravity,
        request.settle,
        limits,
    )?;
    let (encoding, rules, fall) = (settings.encoding, settings.rules, settings.fall);
    let board = settings.classes(&board, Work::Clear, stop)?;
    let budget = at_least_one(request.budget_ms.unwrap_or(DEFAULT_BUDGET_MS), "budget_ms")?;
    let budget = Duration::from_millis(budget).min(timeout.mul_f64(0.9));
    let max_states = request
        .max_states
        .map(|m| at_least_one(m, "max_states"))
        .transpose()?;
    let options = ClearOptions {
        budget: Some(started + budget),
        max_states,
        ..ClearOptions::for_fall(fall)
    };
    let found =
        game::clear_with(&board, &rules, &options, stop).map_err(Work::Clear.interrupted())?;
    let (reason, tile, count) = match found.decided {
        None => (None, None, None),
        Some(Decided::NoTiles) => (Some(ClearReason::NoTiles), None, None),
        Some(Decided::OddType { kind, tiles }) => (
            Some(ClearReason::OddType),
            Some(Tile::new(kind, encoding)),
            Some(tiles as u64),
        ),
        Some(Decided::OddTiles { tiles }) => {
            (Some(ClearReason::OddTiles), None, Some(tiles as u64))
        }
    };
    let (outcome, moves) = match found.result {
        Clearing::Solved(sequence) => (
            ClearOutcome::Solvable,
            Some(sequence.into_iter().map(Move::bare).collect()),
        ),
        Clearing::Impossible => (ClearOutcome::Unsolvable, None),
        Clearing::Unknown => (ClearOutcome::Unknown, None),
    };
    Ok(ClearResponse {
        outcome,
        moves,
        // The state that went past `max_states` was counted, not searched.
        states: found.states.min(max_states.unwrap_or(u64::MAX)),
        reason,
        tile,
        count,
        elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        budget_ms: u64::try_from(budget.as_millis()).unwrap_or(u64::MAX),
    })
}
