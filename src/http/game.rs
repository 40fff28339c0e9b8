//! The game routes: `/v1/moves`, `/v1/play`, `/v1/clear`, `/v1/deal` and
//! `/v1/shuffle`. Boards and rules are read exactly as `/v1/solve` reads
//! them (same errors, same limits); every request runs on the bounded
//! solver pool with the server's deadline.

use super::AppState;
use super::body::JsonBody;
use super::error::{ApiError, ErrorCode, excerpt};
use super::metrics;
use super::solve::interrupted;
use super::wire::{BoardEncoding, Limits, decode_board, decode_point, decode_rules, missing_board};
use crate::solver::game::{self, Clearing, DealError, Difficulty, Gravity, Move, ShuffleError};
use crate::solver::{Board, EMPTY, Movement, Path, Point, Rules, Stop};
use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::time::{Duration, Instant};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/moves", post(moves))
        .route("/v1/play", post(play))
        .route("/v1/clear", post(clear))
        .route("/v1/deal", post(deal))
        .route("/v1/shuffle", post(shuffle))
}

/// The tile types of a dealt text board, in order: type `n` is the `n`-th.
pub const TEXT_TILES: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// Runs `work` on the solver pool and sends its JSON; records the time and
/// what the answer came to (`outcome`) under `route`.
async fn run<T: Serialize + Send + 'static>(
    state: AppState,
    route: &'static str,
    outcome: fn(&T) -> &'static str,
    work: impl FnOnce(&Stop, &Limits, Duration) -> Result<T, ApiError> + Send + 'static,
) -> Result<Response, ApiError> {
    let permit = state.solver_slot()?;
    let limits = state.limits.clone();
    let timeout = state.config.solve_timeout();
    let started = Instant::now();
    let answer = state
        .run_blocking(permit, move |stop| {
            let answer = work(stop, &limits, timeout)?;
            let json = serde_json::to_vec(&answer).map_err(|e| {
                tracing::error!(error = %e, "encoding a game response");
                ApiError::new(ErrorCode::Internal, "internal error")
            })?;
            Ok((outcome(&answer), json))
        })
        .await;
    metrics::record_solve(route, started, &answer, |&(outcome, _)| outcome);
    let (_, json) = answer?;
    Ok(([(header::CONTENT_TYPE, "application/json")], json).into_response())
}

/// What a board left by a game route is: `cleared`, `stuck` or `open`.
fn position(cleared: bool, stuck: bool) -> &'static str {
    match (cleared, stuck) {
        (true, _) => "cleared",
        (false, true) => "stuck",
        (false, false) => "open",
    }
}

/// The body as a JSON object with only the `allowed` fields.
fn object(body: &[u8], allowed: &[&str]) -> Result<Map<String, Value>, ApiError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        if e.is_data() {
            ApiError::new(ErrorCode::InvalidRequest, e.to_string())
        } else {
            ApiError::new(
                ErrorCode::MalformedJson,
                format!("the body is not valid JSON: {e}"),
            )
        }
    })?;
    let Value::Object(map) = value else {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("the body is {}, expected a JSON object", kind(&value)),
        ));
    };
    if let Some(other) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        let (last, rest) = allowed.split_last().expect("fields");
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "unknown field `{}`, expected {} or {last}",
                excerpt(other),
                rest.join(", ")
            ),
        )
        .at(other.as_str()));
    }
    Ok(map)
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An optional field of a simple type; `null` is refused like a wrong type.
fn field<T: DeserializeOwned>(
    map: &mut Map<String, Value>,
    name: &str,
    expected: &str,
) -> Result<Option<T>, ApiError> {
    let Some(value) = map.remove(name) else {
        return Ok(None);
    };
    let wrong = |value: &Value| {
        ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "`{name}` is {}, expected {expected}",
                excerpt(&value.to_string())
            ),
        )
        .at(name)
    };
    if value.is_null() {
        return Err(wrong(&value));
    }
    serde_json::from_value(value.clone())
        .map(Some)
        .map_err(|_| wrong(&value))
}

/// The board and rules of a game request; `line` movement only.
fn board_and_rules(
    map: &mut Map<String, Value>,
    limits: &Limits,
) -> Result<(Board, BoardEncoding, Rules), ApiError> {
    let (board, encoding) = decode_board(map.remove("board").ok_or_else(missing_board)?, limits)?;
    let rules = rules(map, limits)?;
    Ok((board, encoding, rules))
}

fn rules(map: &mut Map<String, Value>, limits: &Limits) -> Result<Rules, ApiError> {
    let rules = match map.remove("rules") {
        Some(value) => decode_rules(value, limits)?.0,
        None => crate::solver::Preset::Mahjong.rules(),
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

fn gravity(map: &mut Map<String, Value>) -> Result<Gravity, ApiError> {
    let Some(name) = field::<String>(map, "gravity", "one of none, down, up, left, right")? else {
        return Ok(Gravity::None);
    };
    Gravity::ALL
        .into_iter()
        .find(|g| g.name() == name)
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::InvalidRequest,
                format!(
                    "unknown gravity {:?}, expected one of none, down, up, left, right",
                    excerpt(&name)
                ),
            )
            .at("gravity")
        })
}

fn include_path(map: &mut Map<String, Value>) -> Result<bool, ApiError> {
    Ok(field(map, "include_path", "true or false")?.unwrap_or(true))
}

/// A board in the form it came in: text rows (empty cells as `.`) or
/// number rows.
fn encode_board(board: &Board, encoding: BoardEncoding) -> Value {
    let rows = board.cells().chunks_exact(board.width());
    match encoding {
        BoardEncoding::Text => rows
            .map(|row| {
                Value::String(
                    row.iter()
                        .map(|&c| match c {
                            EMPTY => '.',
                            tile => char::from_u32(tile).unwrap_or('?'),
                        })
                        .collect(),
                )
            })
            .collect(),
        BoardEncoding::Numbers => rows.map(|row| Value::from(row.to_vec())).collect(),
    }
}

fn xy(p: Point) -> [i32; 2] {
    [p.x, p.y]
}

/// A move on the wire.
#[derive(Serialize)]
struct MoveOut {
    from: [i32; 2],
    to: [i32; 2],
    #[serde(skip_serializing_if = "Option::is_none")]
    segments: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<Vec<[i32; 2]>>,
}

impl MoveOut {
    fn with_path(from: Point, to: Point, path: &Path, include_path: bool) -> Self {
        MoveOut {
            from: xy(from),
            to: xy(to),
            segments: Some(path.segments),
            path: include_path.then(|| path.corners.iter().copied().map(xy).collect()),
        }
    }

    fn bare((from, to): (Point, Point)) -> Self {
        MoveOut {
            from: xy(from),
            to: xy(to),
            segments: None,
            path: None,
        }
    }
}

fn seed(map: &mut Map<String, Value>) -> Result<u64, ApiError> {
    Ok(field(map, "seed", "an integer from 0 to 18446744073709551615")?.unwrap_or(0))
}

// ------------------------------------------------------------ /v1/moves

#[derive(Serialize)]
struct MovesResponse {
    moves: Vec<MoveOut>,
    stuck: bool,
    cleared: bool,
    /// Whether the server's limit on listed moves cut the list short.
    truncated: bool,
}

async fn moves(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let outcome = |m: &MovesResponse| position(m.cleared, m.stuck);
    run(state, "/v1/moves", outcome, move |stop, limits, _| {
        let mut map = object(&body, &["board", "rules", "limit", "include_path"])?;
        let (board, _, rules) = board_and_rules(&mut map, limits)?;
        let limit = field::<u64>(&mut map, "limit", "an integer of at least 1")?;
        if limit == Some(0) {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                "`limit` is 0, expected at least 1",
            )
            .at("limit"));
        }
        let include_path = include_path(&mut map)?;
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
                .map(|Move { from, to, path }| MoveOut::with_path(*from, *to, path, include_path))
                .collect(),
        })
    })
    .await
}

// ------------------------------------------------------------- /v1/play

#[derive(Serialize)]
struct PlayResponse {
    board: Value,
    steps: Vec<MoveOut>,
    cleared: bool,
    stuck: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped_at: Option<StoppedAt>,
}

#[derive(Serialize)]
struct StoppedAt {
    index: usize,
    from: [i32; 2],
    to: [i32; 2],
    reason: &'static str,
}

/// The `moves` list of a play request.
fn move_list(
    map: &mut Map<String, Value>,
    board: &Board,
    limits: &Limits,
) -> Result<Vec<(Point, Point)>, ApiError> {
    let Some(value) = map.remove("moves") else {
        return Err(ApiError::new(
            ErrorCode::InvalidQuery,
            "the moves are missing, expected an array of {\"from\": [x, y], \"to\": [x, y]}",
        )
        .at("moves"));
    };
    let Value::Array(items) = value else {
        return Err(ApiError::new(
            ErrorCode::InvalidQuery,
            format!(
                "`moves` is {}, expected an array of {{\"from\": [x, y], \"to\": [x, y]}}",
                kind(&value)
            ),
        )
        .at("moves"));
    };
    if items.len() > limits.max_queries {
        return Err(ApiError::new(
            ErrorCode::TooLarge,
            format!("more than {} moves, over the limit", limits.max_queries),
        )
        .at("moves"));
    }
    let mut list = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let Value::Object(mut fields) = item else {
            return Err(ApiError::new(
                ErrorCode::InvalidQuery,
                format!(
                    "move {i} is {}, expected an object {{\"from\": [x, y], \"to\": [x, y]}}",
                    kind(&item)
                ),
            )
            .at(format!("moves[{i}]")));
        };
        if let Some(other) = fields.keys().find(|k| *k != "from" && *k != "to") {
            return Err(ApiError::new(
                ErrorCode::InvalidQuery,
                format!("unknown field `{}`, expected from and to", excerpt(other)),
            )
            .at(format!("moves[{i}].{other}")));
        }
        let mut end = |name: &str| {
            let at = format!("moves[{i}].{name}");
            match fields.remove(name) {
                Some(value) => decode_point(value, board, limits, &at),
                None => Err(ApiError::new(
                    ErrorCode::InvalidQuery,
                    format!("`{name}` is missing, expected a point [x, y]"),
                )
                .at(at)),
            }
        };
        let from = end("from")?;
        let to = end("to")?;
        list.push((from, to));
    }
    Ok(list)
}

async fn play(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let outcome = |p: &PlayResponse| match p.stopped_at {
        Some(_) => "stopped",
        None => position(p.cleared, p.stuck),
    };
    run(state, "/v1/play", outcome, move |stop, limits, _| {
        let mut map = object(
            &body,
            &["board", "rules", "gravity", "moves", "include_path"],
        )?;
        let (board, encoding, rules) = board_and_rules(&mut map, limits)?;
        let gravity = gravity(&mut map)?;
        let list = move_list(&mut map, &board, limits)?;
        let include_path = include_path(&mut map)?;
        let played = game::play(&board, &rules, gravity, &list, stop).map_err(interrupted)?;
        let steps = played
            .steps
            .iter()
            .zip(&list)
            .map(|(path, &(from, to))| MoveOut::with_path(from, to, path, include_path))
            .collect();
        Ok(PlayResponse {
            cleared: game::cleared(&played.board),
            stuck: game::stuck(&played.board, &rules, stop).map_err(interrupted)?,
            board: encode_board(&played.board, encoding),
            steps,
            stopped_at: played.stopped.map(|(index, reason)| StoppedAt {
                index,
                from: xy(list[index].0),
                to: xy(list[index].1),
                reason: reason.name(),
            }),
        })
    })
    .await
}

// ------------------------------------------------------------ /v1/clear

#[derive(Serialize)]
struct ClearResponse {
    /// `true`, `false` or `"unknown"`.
    solvable: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    moves: Option<Vec<MoveOut>>,
    states: u64,
}

/// The default search budget of `/v1/clear`.
const DEFAULT_BUDGET_MS: u64 = 1000;

async fn clear(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let started = Instant::now();
    let outcome = |c: &ClearResponse| match &c.solvable {
        Value::Bool(true) => "solvable",
        Value::Bool(false) => "unsolvable",
        _ => "unknown",
    };
    run(state, "/v1/clear", outcome, move |stop, limits, timeout| {
        let mut map = object(&body, &["board", "rules", "gravity", "budget_ms"])?;
        let (board, _, rules) = board_and_rules(&mut map, limits)?;
        let gravity = gravity(&mut map)?;
        let budget = field::<u64>(&mut map, "budget_ms", "an integer of at least 1")?
            .unwrap_or(DEFAULT_BUDGET_MS);
        if budget == 0 {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                "`budget_ms` is 0, expected at least 1",
            )
            .at("budget_ms"));
        }
        // The budget always ends before the server's deadline, so a long
        // search answers "unknown" rather than 504.
        let budget = Duration::from_millis(budget).min(timeout.mul_f64(0.9));
        let outcome = game::clear(&board, &rules, gravity, Some(started + budget), stop)
            .map_err(interrupted)?;
        let (solvable, moves) = match outcome.result {
            Clearing::Solved(sequence) => (
                Value::Bool(true),
                Some(sequence.into_iter().map(MoveOut::bare).collect()),
            ),
            Clearing::Impossible => (Value::Bool(false), None),
            Clearing::Unknown => (Value::from("unknown"), None),
        };
        Ok(ClearResponse {
            solvable,
            moves,
            states: outcome.states,
        })
    })
    .await
}

// ------------------------------------------------------------- /v1/deal

#[derive(Serialize)]
struct DealResponse {
    board: Value,
    moves: Vec<MoveOut>,
    stats: DealStatsOut,
}

/// What the deal is like to play, measured on the board dealt.
#[derive(Serialize)]
struct DealStatsOut {
    moves_open: usize,
    playouts: u32,
    playouts_cleared: u32,
}

fn dimension(map: &mut Map<String, Value>, name: &str, limits: &Limits) -> Result<usize, ApiError> {
    let expected = "an integer of at least 1";
    let value: u64 = field(map, name, expected)?.ok_or_else(|| {
        ApiError::new(
            ErrorCode::InvalidRequest,
            format!("`{name}` is missing, expected {expected}"),
        )
        .at(name)
    })?;
    if value == 0 {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("`{name}` is 0, expected {expected}"),
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

async fn deal(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let outcome = |_: &DealResponse| "dealt";
    run(state, "/v1/deal", outcome, move |stop, limits, _| {
        let mut map = object(
            &body,
            &["width", "height", "types", "copies", "rules", "gravity", "seed", "encoding", "difficulty"],
        )?;
        let width = dimension(&mut map, "width", limits)?;
        let height = dimension(&mut map, "height", limits)?;
        if width * height > limits.max_cells {
            return Err(ApiError::new(
                ErrorCode::TooLarge,
                format!("the board would have {} cells, over the limit of {}", width * height, limits.max_cells),
            )
            .at("width"));
        }
        let types: u64 = field(&mut map, "types", "an integer of at least 1")?.unwrap_or(0);
        if types == 0 {
            return Err(ApiError::new(ErrorCode::InvalidRequest, "`types` is missing or 0, expected the number of tile types, at least 1").at("types"));
        }
        let copies: u64 = field(&mut map, "copies", "an even integer of at least 2")?.unwrap_or(4);
        if copies == 0 || copies % 2 != 0 {
            return Err(ApiError::new(ErrorCode::InvalidRequest, format!("`copies` is {copies}, expected an even integer of at least 2")).at("copies"));
        }
        let tiles = types.saturating_mul(copies);
        if tiles > (width * height) as u64 {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                format!("{types} types x {copies} copies are {tiles} tiles, more than the {width} x {height} board's {} cells", width * height),
            )
            .at("types"));
        }
        let encoding = match field::<String>(&mut map, "encoding", "text or numbers")?.as_deref() {
            None | Some("text") => BoardEncoding::Text,
            Some("numbers") => BoardEncoding::Numbers,
            Some(other) => {
                return Err(ApiError::new(ErrorCode::InvalidRequest, format!("unknown encoding {:?}, expected text or numbers", excerpt(other))).at("encoding"));
            }
        };
        if encoding == BoardEncoding::Text && types > TEXT_TILES.len() as u64 {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                format!("{types} types do not fit text rows (at most {}), use \"encoding\": \"numbers\"", TEXT_TILES.len()),
            )
            .at("types"));
        }
        let rules = rules(&mut map, limits)?;
        let gravity = gravity(&mut map)?;
        let seed = seed(&mut map)?;
        let difficulty = match field::<String>(&mut map, "difficulty", "one of easy, medium, hard")?.as_deref() {
            None => Difficulty::default(),
            Some(name) => Difficulty::ALL.into_iter().find(|d| d.name() == name).ok_or_else(|| {
                ApiError::new(ErrorCode::InvalidRequest, format!("unknown difficulty {:?}, expected one of easy, medium, hard", excerpt(name))).at("difficulty")
            })?,
        };
        let kinds: Vec<(u32, usize)> = (0..types as usize)
            .map(|i| {
                let kind = match encoding {
                    BoardEncoding::Text => u32::from(TEXT_TILES.as_bytes()[i]),
                    BoardEncoding::Numbers => i as u32 + 1,
                };
                (kind, copies as usize)
            })
            .collect();
        let (board, sequence, stats) = game::deal_measured(width, height, &kinds, &rules, gravity, difficulty, seed, stop).map_err(|e| match e {
            DealError::Interrupted(e) => interrupted(e),
            other => ApiError::new(ErrorCode::InvalidRequest, other.to_string()),
        })?;
        Ok(DealResponse {
            board: encode_board(&board, encoding),
            moves: sequence.into_iter().map(MoveOut::bare).collect(),
            stats: DealStatsOut { moves_open: stats.moves_open, playouts: stats.playouts, playouts_cleared: stats.cleared },
        })
    })
    .await
}

// ---------------------------------------------------------- /v1/shuffle

#[derive(Serialize)]
struct ShuffleResponse {
    board: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    moves: Option<Vec<MoveOut>>,
}

async fn shuffle(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let outcome = |_: &ShuffleResponse| "shuffled";
    run(state, "/v1/shuffle", outcome, move |stop, limits, _| {
        let mut map = object(&body, &["board", "rules", "gravity", "seed", "solvable"])?;
        let (board, encoding, rules) = board_and_rules(&mut map, limits)?;
        let gravity = gravity(&mut map)?;
        let seed = seed(&mut map)?;
        let solvable: bool = field(&mut map, "solvable", "true or false")?.unwrap_or(false);
        let refused = |e: ShuffleError| match e {
            ShuffleError::Interrupted(e) => interrupted(e),
            other => ApiError::new(ErrorCode::InvalidRequest, other.to_string()).at("board"),
        };
        let (shuffled, sequence) = if solvable {
            let (b, s) =
                game::shuffle_solvable(&board, &rules, gravity, seed, stop).map_err(refused)?;
            (b, Some(s))
        } else {
            (
                game::shuffle(&board, &rules, seed, stop).map_err(refused)?,
                None,
            )
        };
        Ok(ShuffleResponse {
            board: encode_board(&shuffled, encoding),
            moves: sequence.map(|s| s.into_iter().map(MoveOut::bare).collect()),
        })
    })
    .await
}
