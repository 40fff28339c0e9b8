//! The game routes: `/v1/moves`, `/v1/play`, `/v1/clear`, `/v1/deal` and
//! `/v1/shuffle`. Boards and rules are read as `/v1/solve` reads them (the
//! same types, errors and limits); each function here goes from a body to
//! its answer, polling `stop`.

use crate::board::{BoardEncoding, BoardRows, Tile, WireBoard};
use crate::decode::decode;
use crate::error::{ApiError, ErrorCode, Work};
use crate::limits::Limits;
use crate::solve::Reason;
use crate::wire::{Gravity, Move, Moved, Point, Query, Step, WireRules, name, within};
use linkpath_engine::game::{
    self, ClearOptions, Clearing, DealError, Decided, Difficulty, Fall, ShuffleError,
};
use linkpath_engine::{EMPTY, Groups, Match, Movement, Rules, Stop};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
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

/// The matching groups of a game request, checked against the form of the
/// board's rows. The routes play on the class board ([`Groups`]) and answer
/// with the real one where they answer with a board.
fn groups(rules: &Option<WireRules>, encoding: BoardEncoding) -> Result<Groups, ApiError> {
    rules
        .as_ref()
        .map_or_else(|| Ok(Groups::default()), |r| r.groups(encoding))
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

/// "1 tile", "3 tiles".
fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
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
    let WireBoard { board, encoding } = request.board;
    let groups = groups(&request.rules, encoding)?;
    let rules = game_rules(request.rules, limits)?;
    let board = groups
        .classes(&board, stop)
        .map_err(Work::Moves.interrupted())?;
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
    let groups = groups(&request.rules, encoding)?;
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
    let classes = groups
        .classes(&board, stop)
        .map_err(Work::Play.interrupted())?;
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
    let WireBoard { board, encoding } = request.board;
    let groups = groups(&request.rules, encoding)?;
    let rules = game_rules(request.rules, limits)?;
    let board = groups
        .classes(&board, stop)
        .map_err(Work::Clear.interrupted())?;
    let budget = at_least_one(request.budget_ms.unwrap_or(DEFAULT_BUDGET_MS), "budget_ms")?;
    let budget = Duration::from_millis(budget).min(timeout.mul_f64(0.9));
    let fall = fall(request.gravity, request.settle);
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
    /// Tiles of each type, from 1; 4 when absent. Even, unless matching
    /// groups pair the types: then each group's dealt types must hold an
    /// even number of tiles in all (four flowers of one copy each).
    #[serde(default)]
    #[schema(minimum = 1)]
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
    /// The characters to deal as tile types, in order: type `n` is the
    /// `n`-th character (a Unicode scalar value, such as the Mahjong tiles
    /// U+1F000 to U+1F02B); distinct, none of them space, `.` or U+0000
    /// (which text rows read as empty), and at least `types` of them. Text
    /// rows only. `A` to `Z`, `a` to `z`, `0` to `9` when absent.
    #[serde(default)]
    #[schema(min_length = 1)]
    pub alphabet: Option<String>,
    /// Whether the answer has `moves`, a sequence that clears the board (a
    /// game that only deals can leave it out); true when absent.
    #[serde(default)]
    pub include_moves: Option<bool>,
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
    /// Random placements repaired until the solver or a playout clears
    /// them (two tiles' types swapped where play is stuck), the one
    /// random playouts clear least often.
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
    /// A sequence that clears the board; present unless `include_moves`
    /// was false.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub moves: Option<Vec<Move>>,
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
    let uneven = || {
        ApiError::new(
            ErrorCode::InvalidRequest,
            format!("`copies` is {copies}, expected an even integer of at least 2"),
        )
        .at("copies")
    };
    if copies == 0 || (copies % 2 != 0 && request.rules.as_ref().is_none_or(|r| r.groups.is_none()))
    {
        return Err(uneven());
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
    let alphabet = match (&request.alphabet, encoding) {
        (Some(_), BoardEncoding::Numbers) => {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                "`alphabet` is for text rows, expected no `alphabet` with \"encoding\": \"numbers\" (tile types are then 1 to `types`)",
            )
            .at("alphabet"));
        }
        (Some(alphabet), BoardEncoding::Text) => tile_characters(alphabet)?,
        (None, _) => TEXT_TILES.chars().collect(),
    };
    if encoding == BoardEncoding::Text && types > alphabet.len() as u64 {
        let message = match request.alphabet {
            Some(_) => format!(
                "{types} types are more than the {} characters of `alphabet`, expected at most {}",
                alphabet.len(),
                alphabet.len()
            ),
            None => format!(
                "{types} types do not fit text rows (at most {}), use \"encoding\": \"numbers\" or a longer `alphabet`",
                TEXT_TILES.len()
            ),
        };
        return Err(ApiError::new(ErrorCode::InvalidRequest, message).at("types"));
    }
    let groups = groups(&request.rules, encoding)?;
    let rules = game_rules(request.rules, limits)?;
    let fall = fall(request.gravity, request.settle);
    let kinds: Vec<(u32, usize)> = (0..types as usize)
        .map(|i| {
            let kind = match encoding {
                BoardEncoding::Text => u32::from(alphabet[i]),
                BoardEncoding::Numbers => i as u32 + 1,
            };
            (kind, copies as usize)
        })
        .collect();
    let seed = request.seed.unwrap_or(0);
    let difficulty = request.difficulty.unwrap_or_default().into();
    // Dealt on the classes; then each class's cells get its types, each
    // type its copies.
    let classes = groups.class_counts(&kinds);
    // An odd `copies` deals when groups pair the types: each class needs
    // an even number of tiles.
    if let Some(&(class, tiles)) = classes.iter().find(|&&(_, n)| n % 2 != 0) {
        let tile = Tile::new(class, encoding);
        let message = if groups.is_grouped(class) {
            format!(
                "`copies` is {copies} and the group of {tile} has {} in all, an odd number, expected an even `copies` or groups of an even number of the dealt types",
                count(tiles, "tile", "tiles")
            )
        } else {
            format!(
                "`copies` is {copies} and type {tile} is in no group, expected an even `copies` or every dealt type in a group"
            )
        };
        return Err(ApiError::new(ErrorCode::InvalidRequest, message).at("copies"));
    }
    let deal = game::Deal {
        width,
        height,
        tiles: &classes,
        rules,
        fall,
        difficulty,
        seed,
    };
    let (board, sequence, stats) =
        game::deal_measured(&deal, stop).map_err(|e| deal_refused(e, encoding))?;
    let board = if groups.is_trivial() {
        board
    } else {
        let tiles = kinds
            .iter()
            .flat_map(|&(kind, copies)| std::iter::repeat_n(kind, copies));
        groups
            .assign(&board, tiles, seed, stop)
            .map_err(Work::Deal.interrupted())?
    };
    Ok(DealResponse {
        board: BoardRows::new(&board, encoding),
        moves: request
            .include_moves
            .unwrap_or(true)
            .then(|| sequence.into_iter().map(Move::bare).collect()),
        stats: DealStats {
            moves_open: stats.moves_open,
            playouts: stats.playouts,
            playouts_cleared: stats.cleared,
        },
    })
}

/// The characters of `alphabet`, each a tile type: distinct, none read as
/// an empty cell.
fn tile_characters(alphabet: &str) -> Result<Vec<char>, ApiError> {
    let refused =
        |message: String| ApiError::new(ErrorCode::InvalidRequest, message).at("alphabet");
    let characters: Vec<char> = alphabet.chars().collect();
    if characters.is_empty() {
        return Err(refused(
            "`alphabet` is empty, expected the characters of the tile types".into(),
        ));
    }
    let mut first = std::collections::HashMap::with_capacity(characters.len());
    for (i, &c) in characters.iter().enumerate() {
        let written = Tile::Text(c.to_string());
        if linkpath_engine::tile_of_char(c) == EMPTY {
            return Err(refused(format!(
                "`alphabet` has {written} at {i}, which text rows read as an empty cell, expected tile characters"
            )));
        }
        if c.is_control() {
            return Err(refused(format!(
                "`alphabet` has {written} at {i}, a control character, expected tile characters"
            )));
        }
        if let Some(earlier) = first.insert(c, i) {
            return Err(refused(format!(
                "`alphabet` has {written} at {earlier} and {i}, expected distinct characters"
            )));
        }
    }
    Ok(characters)
}

/// The error of a deal the engine refused, naming tiles as `encoding`
/// writes them.
fn deal_refused(e: DealError, encoding: BoardEncoding) -> ApiError {
    match e {
        DealError::Interrupted(e) => Work::Deal.stopped(e),
        // `copies` is checked above; kept for a message that names the tile.
        DealError::OddCopies { kind, copies } => ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "type {} has {}, expected an even number",
                Tile::new(kind, encoding),
                count(copies, "copy", "copies")
            ),
        )
        .at("copies"),
        other => ApiError::new(ErrorCode::InvalidRequest, other.to_string()),
    }
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
    let WireBoard { board, encoding } = request.board;
    let groups = groups(&request.rules, encoding)?;
    let rules = game_rules(request.rules, limits)?;
    let fall = fall(request.gravity, request.settle);
    let seed = request.seed.unwrap_or(0);
    let classes = groups
        .classes(&board, stop)
        .map_err(Work::Shuffle.interrupted())?;
    let refused = |e: ShuffleError| match e {
        ShuffleError::Interrupted(e) => Work::Shuffle.stopped(e),
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
    let (shuffled, sequence) = if request.solvable.unwrap_or(false) {
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
                .map_err(Work::Shuffle.interrupted())?
        }
    };
    Ok(ShuffleResponse {
        moved: Moved::list(&game::relocation(&board, &shuffled)),
        board: BoardRows::new(&shuffled, encoding),
        moves: sequence.map(|s| s.into_iter().map(Move::bare).collect()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deal_errors_name_tiles_as_written() {
        let odd = |kind, copies| DealError::OddCopies { kind, copies };
        let message = |e, encoding| {
            let e = deal_refused(e, encoding);
            assert_eq!(e.field.as_deref(), Some("copies"));
            e.message
        };
        assert_eq!(
            message(odd(u32::from('B'), 1), BoardEncoding::Text),
            "type \"B\" has 1 copy, expected an even number"
        );
        assert_eq!(
            message(odd(0x1F000, 3), BoardEncoding::Text),
            "type \"\u{1F000}\" has 3 copies, expected an even number"
        );
        assert_eq!(
            message(odd(66, 3), BoardEncoding::Numbers),
            "type 66 has 3 copies, expected an even number"
        );
    }
}
