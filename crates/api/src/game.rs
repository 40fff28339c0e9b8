//! The game routes: `/v1/moves`, `/v1/play`, `/v1/clear`, `/v1/deal` and
//! `/v1/shuffle`. Boards and rules are read as `/v1/solve` reads them (the
//! same types, errors and limits); each function here goes from a body to
//! its answer, polling `stop`.

use crate::board::{BoardEncoding, BoardRows, WireBoard};
use crate::decode::decode;
use crate::error::{ApiError, ErrorCode, interrupted};
use crate::limits::Limits;
use crate::solve::Reason;
use crate::wire::{Gravity, Move, Moved, Point, Query, Step, WireRules, name, within};
use linkpath_engine::game::{self, Clearing, DealError, Difficulty, Fall, ShuffleError};
use linkpath_engine::{Movement, Rules, Stop};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};
use utoipa::ToSchema;

/// The tile types of a dealt text board, in order: type `n` is the `n`-th.
pub const TEXT_TILES: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// The default search budget of `/v1/clear`, in milliseconds.
pub const DEFAULT_BUDGET_MS: u64 = 1000;

/// The rules of a game request: line movement only.
fn game_rules(rules: Option<WireRules>, limits: &Limits) -> Result<Rules, ApiError> {
    let rules = rules.unwrap_or_default().within(limits)?;
    if rules.movement != Movement::Line {
        return Err(ApiError::new(
            ErrorCode::InvalidRules,
            "the game routes need line movement; slide (curling) has no tiles to remove",
        )
        .at("rules"));
    }
    Ok(rules)
}

/// Where tiles fall on a game route: `settle` false when absent.
fn fall(gravity: Option<Gravity>, settle: Option<bool>) -> Fall {
    Fall::new(gravity.unwrap_or_default().into(), settle.unwrap_or(false))
}

/// A count that must be at least 1.
fn at_least_one(value: u64, name: &str) -> Result<u64, ApiError> {
    if value == 0 {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("`{name}` is 0, expected at least 1"),
        )
        .at(name));
    }
    Ok(value)
}

/// What a board left by a game route is: `cleared`, `stuck` or `open`.
fn position(cleared: bool, stuck: bool) -> &'static str {
    match (cleared, stuck) {
        (true, _) => "cleared",
        (false, true) => "stuck",
        (false, false) => "open",
    }
}

// ------------------------------------------------------------ /v1/moves

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
    /// Accepted and ignored, so one `{rules, gravity, settle}` can go to
    /// every game route: a move's availability does not depend on where
    /// tiles fall later.
    #[serde(default, deserialize_with = "name")]
    pub gravity: Option<Gravity>,
    /// Accepted and ignored, as `gravity` is.
    #[serde(default)]
    pub settle: Option<bool>,
}

/// Every pair that can be removed now, in reading order of the first tile.
#[derive(Debug, Serialize, ToSchema)]
pub struct MovesResponse {
    pub moves: Vec<Move>,
    /// Tiles are left and none can be removed.
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
    let board = request.board.board;
    let rules = game_rules(request.rules, limits)?;
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
    let mut found = game::moves(&board, &rules, Some(looked_for), stop).map_err(interrupted)?;
    let truncated = capped && found.len() > limits.max_moves;
    found.truncate(limits.max_moves);
    let cleared = game::cleared(&board);
    Ok(MovesResponse {
        truncated,
        stuck: found.is_empty() && !cleared,
        cleared,
        moves: found
            .iter()
            .map(|m| Move::with_path(m.from, m.to, &m.path, include_path))
            .collect(),
    })
}

// ------------------------------------------------------------- /v1/play

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
    let WireBoard { board, encoding } = request.board;
    let rules = game_rules(request.rules, limits)?;
    within(&request.moves, limits, "moves")?;
    let list = request
        .moves
        .iter()
        .enumerate()
        .map(|(i, m)| m.on(&board, &format!("moves[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let include_path = request.include_path.unwrap_or(true);
    let fall = fall(request.gravity, request.settle);
    // The answer lists every tile that fell: at most as many as a board
    // may have cells, so it stays proportional to the limits.
    let played = game::play_within(&board, &rules, fall, &list, limits.max_cells, stop)
        .map_err(interrupted)?
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
    let moves_open =
        game::moves_open(&played.board, &rules, limits.max_moves, stop).map_err(interrupted)?;
    let hint = if request.hint.unwrap_or(false) {
        let first = game::moves(&played.board, &rules, Some(1), stop).map_err(interrupted)?;
        first
            .first()
            .map(|m| Move::with_path(m.from, m.to, &m.path, include_path))
    } else {
        None
    };
    Ok(PlayResponse {
        cleared: game::cleared(&played.board),
        stuck: game::stuck(&played.board, &rules, stop).map_err(interrupted)?,
        moves_open,
        hint,
        board: BoardRows::new(&played.board, encoding),
        steps,
        stopped_at: played.stopped.map(|(index, reason)| StoppedAt {
            index,
            from: list[index].0.into(),
            to: list[index].1.into(),
            reason: reason.into(),
        }),
    })
}

// ------------------------------------------------------------ /v1/clear

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
    /// from 1; 1000 when absent. It always ends before the server's
    /// deadline.
    #[serde(default)]
    #[schema(minimum = 1)]
    pub budget_ms: Option<u64>,
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
    let board = request.board.board;
    let rules = game_rules(request.rules, limits)?;
    let budget = at_least_one(request.budget_ms.unwrap_or(DEFAULT_BUDGET_MS), "budget_ms")?;
    let budget = Duration::from_millis(budget).min(timeout.mul_f64(0.9));
    let fall = fall(request.gravity, request.settle);
    let found =
        game::clear(&board, &rules, fall, Some(started + budget), stop).map_err(interrupted)?;
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
        states: found.states,
    })
}

// ------------------------------------------------------------- /v1/deal

/// The body of `/v1/deal`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DealRequest {
    /// Columns, from 1.
    #[schema(minimum = 1)]
    pub width: u64,
    /// Rows, from 1.
    #[schema(minimum = 1)]
    pub height: u64,
    /// Tile types, from 1 (at most 62 with text rows).
    #[schema(minimum = 1)]
    pub types: u64,
    /// Tiles of each type: even, from 2; 4 when absent.
    #[serde(default)]
    #[schema(minimum = 2, multiple_of = 2)]
    pub copies: Option<u64>,
    /// The rules the deal must be clearable under; mahjong when absent.
    #[serde(default)]
    pub rules: Option<WireRules>,
    /// Where tiles fall after each removal; none when absent.
    #[serde(default, deserialize_with = "name")]
    pub gravity: Option<Gravity>,
    /// Whether every line settles after each removal, as on the other game
    /// routes; false when absent. When true the tiles are laid on the
    /// gravity side (bottom rows for down, top rows for up, left or right
    /// columns), so the board dealt has no floating tile; otherwise they
    /// fill the bottom rows whatever the gravity.
    #[serde(default)]
    pub settle: Option<bool>,
    /// The same seed deals the same board; 0 when absent.
    #[serde(default)]
    pub seed: Option<u64>,
    /// The form of the dealt board; text when absent.
    #[serde(default, deserialize_with = "name")]
    pub encoding: Option<BoardEncoding>,
    /// How hard the deal is to play; easy when absent.
    #[serde(default, deserialize_with = "name")]
    pub difficulty: Option<DifficultyName>,
}

/// How hard a deal is to play, by how it picks the partner of each
/// removal (BENCHMARKS.md measures each level).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
#[schema(as = Difficulty)]
pub enum DifficultyName {
    /// Partners at random: many moves open, most random playouts clear it.
    #[default]
    Easy,
    /// The farthest partner at every removal, and of four such deals the
    /// one with the fewest moves open.
    Medium,
    /// Random placements the solver proves clearable, the one random
    /// playouts clear least often; a medium deal when none is proved in
    /// the work budget.
    Hard,
}

impl From<DifficultyName> for Difficulty {
    fn from(name: DifficultyName) -> Difficulty {
        match name {
            DifficultyName::Easy => Difficulty::Easy,
            DifficultyName::Medium => Difficulty::Medium,
            DifficultyName::Hard => Difficulty::Hard,
        }
    }
}

/// A board that can be cleared, and a sequence that clears it.
#[derive(Debug, Serialize, ToSchema)]
pub struct DealResponse {
    #[schema(value_type = WireBoard)]
    pub board: BoardRows,
    pub moves: Vec<Move>,
    pub stats: DealStats,
}

/// What the deal is like to play, measured on the board dealt.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DealStats {
    /// The moves open at the start, counted up to 100,000.
    pub moves_open: usize,
    /// Random playouts made (a uniformly random legal move at each step,
    /// never a shuffle, seeded by `seed`): 32, or 0 on a board of more
    /// than 1,024 tiles.
    pub playouts: u32,
    /// How many of them cleared the board.
    pub playouts_cleared: u32,
}

fn dimension(value: u64, name: &str, limits: &Limits) -> Result<usize, ApiError> {
    if value == 0 {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("`{name}` is 0, expected an integer of at least 1"),
        )
        .at(name));
    }
    let value = usize::try_from(value).unwrap_or(usize::MAX);
    if value > limits.max_side {
        return Err(ApiError::new(
            ErrorCode::TooLarge,
            format!("`{name}` is {value}, over the limit of {}", limits.max_side),
        )
        .at(name));
    }
    Ok(value)
}

pub fn deal(body: &[u8], limits: &Limits, stop: &Stop) -> Result<DealResponse, ApiError> {
    let request: DealRequest = decode(body, limits)?;
    let width = dimension(request.width, "width", limits)?;
    let height = dimension(request.height, "height", limits)?;
    let cells = width * height;
    if cells > limits.max_cells {
        return Err(ApiError::new(
            ErrorCode::TooLarge,
            format!(
                "the board would have {cells} cells, over the limit of {}",
                limits.max_cells
            ),
        )
        .at("width"));
    }
    let types = request.types;
    if types == 0 {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            "`types` is 0, expected the number of tile types, at least 1",
        )
        .at("types"));
    }
    let copies = request.copies.unwrap_or(4);
    if copies == 0 || copies % 2 != 0 {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("`copies` is {copies}, expected an even integer of at least 2"),
        )
        .at("copies"));
    }
    let tiles = types.saturating_mul(copies);
    if tiles > cells as u64 {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "{types} types x {copies} copies are {tiles} tiles, more than the {width} x {height} board's {cells} cells"
            ),
        )
        .at("types"));
    }
    let encoding = request.encoding.unwrap_or_default();
    if encoding == BoardEncoding::Text && types > TEXT_TILES.len() as u64 {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "{types} types do not fit text rows (at most {}), use \"encoding\": \"numbers\"",
                TEXT_TILES.len()
            ),
        )
        .at("types"));
    }
    let rules = game_rules(request.rules, limits)?;
    let fall = fall(request.gravity, request.settle);
    let kinds: Vec<(u32, usize)> = (0..types as usize)
        .map(|i| {
            let kind = match encoding {
                BoardEncoding::Text => u32::from(TEXT_TILES.as_bytes()[i]),
                BoardEncoding::Numbers => i as u32 + 1,
            };
            (kind, copies as usize)
        })
        .collect();
    let seed = request.seed.unwrap_or(0);
    let difficulty = request.difficulty.unwrap_or_default().into();
    let (board, sequence, stats) = game::deal_measured(
        width, height, &kinds, &rules, fall, difficulty, seed, stop,
    )
    .map_err(|e| match e {
        DealError::Interrupted(e) => interrupted(e),
        other => ApiError::new(ErrorCode::InvalidRequest, other.to_string()),
    })?;
    Ok(DealResponse {
        board: BoardRows::new(&board, encoding),
        moves: sequence.into_iter().map(Move::bare).collect(),
        stats: DealStats {
            moves_open: stats.moves_open,
            playouts: stats.playouts,
            playouts_cleared: stats.cleared,
        },
    })
}

// ---------------------------------------------------------- /v1/shuffle

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

pub fn shuffle(body: &[u8], limits: &Limits, stop: &Stop) -> Result<ShuffleResponse, ApiError> {
    let request: ShuffleRequest = decode(body, limits)?;
    let WireBoard { board, encoding } = request.board;
    let rules = game_rules(request.rules, limits)?;
    let fall = fall(request.gravity, request.settle);
    let seed = request.seed.unwrap_or(0);
    let refused = |e: ShuffleError| match e {
        ShuffleError::Interrupted(e) => interrupted(e),
        other => ApiError::new(ErrorCode::InvalidRequest, other.to_string()).at("board"),
    };
    let (shuffled, sequence) = if request.solvable.unwrap_or(false) {
        let (b, s) = game::shuffle_solvable(&board, &rules, fall, seed, stop).map_err(refused)?;
        (b, Some(s))
    } else {
        (
            game::shuffle(&board, &rules, seed, stop).map_err(refused)?,
            None,
        )
    };
    Ok(ShuffleResponse {
        moved: Moved::list(&game::relocation(&board, &shuffled)),
        board: BoardRows::new(&shuffled, encoding),
        moves: sequence.map(|s| s.into_iter().map(Move::bare).collect()),
    })
}
