//! `/v1/games`: games the server holds. A client creates a game, then
//! sends one POST per action; the server judges each with the engine of
//! `/v1/play`, keeps the game in the store, and answers the whole game
//! with its version as the `ETag`.
//!
//! Every change is a compare-and-set on the stored version: an action
//! reads the game, works on a copy, and writes it only if nobody wrote
//! first. Within this process one lock per game (of a fixed set, chosen
//! by the id's hash) lines up the actions on a game, so the write rarely
//! finds a newer version; when it does (another replica), the action is
//! judged again on what was written. `If-Match` pins the version: a stale
//! one is 412. An `Idempotency-Key` keeps a change's answer in the same
//! write, so a retry is answered the first answer and applies nothing.
//! The move that wins a ranked game enters it on its leaderboard in the
//! same write.

mod downtime;
pub(crate) mod events;
mod keys;
pub(crate) mod ranking;

use super::AppState;
use super::body::JsonBody;
use super::error::HttpError;
use super::metrics;
use super::path::PathParam;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use keys::{Key, kept_answer};
use linkpath_api::games::{
    Action, ActionKind, CreateGame, Game, GameLimits, GameView, Logged, MoveRequest, Replay,
    ReplayCheck, stored,
};
use linkpath_api::{ApiError, ErrorCode, Work};
use linkpath_engine::Stop;
use linkpath_store::{Expected, Outcome, Store, StoreError, StoredGame, Write};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub use downtime::heartbeat_loop;
pub use events::Streams;

/// What the game routes share: the store, the live streams and the
/// settings.
pub struct Games {
    pub store: Store,
    pub streams: Arc<Streams>,
    pub limits: GameLimits,
    /// How long a game nobody changes is kept.
    pub idle: Duration,
    /// How long an idempotency key's answer is kept.
    pub key_ttl: Duration,
    /// How long a leaderboard is kept after its last entry.
    pub board_ttl: Duration,
    /// The entries a leaderboard keeps: the most a request may ask for.
    pub board_size: usize,
    /// The request limits with a board's cells capped for games: a game's
    /// record, its board with it, is written on every change.
    pub request_limits: linkpath_api::Limits,
    /// Lines up the actions on one game within this process.
    locks: Vec<tokio::sync::Mutex<()>>,
    /// Whether the streams follow the store's changes yet.
    following: std::sync::Once,
    /// The server's downtime, given back to every game read.
    downtime: downtime::Downtime,
}

/// How many locks games share; two games on one lock only wait for each
/// other, they never conflict.
const LOCKS: usize = 256;

/// Boards of at most this many cells are judged on the request's own
/// thread: an 18 x 8 move takes microseconds, less than the hop to the
/// pool.
const INLINE_CELLS: usize = 1024;

/// How many times an action is judged again after another replica wrote
/// the game first, before a 503.
const ATTEMPTS: usize = 8;

impl Games {
    /// The game routes over `store`, as the settings `g` bound them;
    /// `request_limits` are the server's, which a game's board is held to
    /// as well.
    pub fn new(
        store: Store,
        g: &crate::config::GameSettings,
        request_limits: linkpath_api::Limits,
    ) -> Self {
        Games {
            request_limits: linkpath_api::Limits {
                max_cells: request_limits.max_cells.min(g.max_game_cells),
                ..request_limits
            },
            store,
            streams: Arc::new(Streams::new(g.max_streams, g.max_streams_per_game)),
            limits: GameLimits {
                max_actions: g.max_game_actions,
                max_log_bytes: g.max_game_log_bytes,
            },
            idle: Duration::from_millis(g.game_idle_ms),
            key_ttl: Duration::from_millis(g.idempotency_ttl_ms),
            board_ttl: Duration::from_millis(g.leaderboard_ttl_ms),
            board_size: usize::from(g.leaderboard_size),
            locks: (0..LOCKS).map(|_| tokio::sync::Mutex::new(())).collect(),
            following: std::sync::Once::new(),
            downtime: downtime::Downtime::default(),
        }
    }

    fn lock(&self, id: &str) -> &tokio::sync::Mutex<()> {
        &self.locks[keys::spread(id) % LOCKS]
    }
}

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/games", post(create))
        .route("/v1/games/{id}", get(show))
        .route("/v1/games/{id}/moves", post(make_move))
        .route("/v1/games/{id}/hint", post(hint))
        .route("/v1/games/{id}/undo", post(undo))
        .route("/v1/games/{id}/redo", post(redo))
        .route("/v1/games/{id}/shuffle", post(shuffle))
        .route("/v1/games/{id}/pause", post(pause))
        .route("/v1/games/{id}/resume", post(resume))
        .route("/v1/games/{id}/resign", post(resign))
        .route("/v1/games/{id}/events", get(events::stream))
        .route("/v1/games/{id}/replay", get(replay))
        .route("/v1/replays", post(check_replay))
        .route("/v1/daily/{date}", get(ranking::daily))
        .route("/v1/leaderboards/{name}", get(ranking::leaderboard))
}

/// Milliseconds since the Unix epoch, the store's and the games' time.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A new id: 128 random bits, as 32 hex digits.
fn new_id() -> Result<String, ApiError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| {
        tracing::error!(error = %e, "no random bytes for a game id");
        ApiError::new(
            ErrorCode::StoreUnavailable,
            "no game id could be made, retry shortly",
        )
        .retry_after(1)
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A store failure as the client sees it: 503 with `Retry-After`; the
/// cause is logged, not sent. A write that timed out may still have been
/// applied, so that message sends the client to its idempotency key.
pub(crate) fn unavailable(e: StoreError) -> ApiError {
    tracing::error!(error = %e, "the game store failed");
    metrics::record_store_error();
    let message = match e {
        StoreError::TimedOut(_) => {
            "the game store did not answer in time: a change may have been applied; \
             retry with the same Idempotency-Key to get its answer, or read the game"
        }
        _ => "the game store is unavailable, retry shortly",
    };
    ApiError::new(ErrorCode::StoreUnavailable, message).retry_after(1)
}

fn not_found() -> ApiError {
    ApiError::new(
        ErrorCode::GameNotFound,
        "no game with this id: it never existed, or it expired",
    )
}

/// The stored game under `id`, read back (with the entries of its log a
/// record of an older format held, for the next write to append), the
/// server's downtime given back to its clock.
async fn load(games: &Games, id: &str, now: u64) -> Result<(stored::Loaded, u64), ApiError> {
    let outages = (games.downtime)
        .outages(&games.store, games.idle, now)
        .await
        .map_err(unavailable)?;
    let started = Instant::now();
    let stored = games.store.game(id, now).await;
    metrics::record_store("read", started);
    let stored = stored.map_err(unavailable)?.ok_or_else(not_found)?;
    let mut loaded = stored::decode(&stored.body).map_err(|e| {
        unavailable(StoreError::Corrupted(format!(
            "game {}…: {e}",
            keys::short(id)
        )))
    })?;
    loaded.game.give_back(&outages, now);
    Ok((loaded, stored.expires_at_ms))
}

/// The entries of the game `id`'s log at `versions`, from `unsaved` when
/// the store does not hold its log yet.
async fn entries(
    games: &Games,
    id: &str,
    unsaved: &[Logged],
    versions: &[u64],
    now: u64,
) -> Result<BTreeMap<u64, Logged>, ApiError> {
    let mut found = BTreeMap::new();
    for &version in versions {
        let entry = match unsaved.get(version as usize) {
            Some(entry) if !unsaved.is_empty() => entry.clone(),
            _ => {
                let started = Instant::now();
                let read = games.store.log(id, version..version + 1, now).await;
                metrics::record_store("read", started);
                match read.map_err(unavailable)?.pop() {
                    Some((_, bytes)) => decode_entry(id, &bytes)?,
                    // Act reports the entry it lacks.
                    None => continue,
                }
            }
        };
        found.insert(version, entry);
    }
    Ok(found)
}

fn decode_entry(id: &str, bytes: &[u8]) -> Result<Logged, ApiError> {
    stored::decode_entry(bytes).map_err(|e| {
        unavailable(StoreError::Corrupted(format!(
            "an entry of game {}…'s log: {e}",
            keys::short(id)
        )))
    })
}

/// The game written at its new version with the entries it appends to
/// its log, and the entry its win earns; what the store made of it.
async fn save(
    games: &Games,
    game: &Game,
    expected: Expected,
    key: Option<(String, linkpath_store::Kept)>,
    log: &[Logged],
    now: u64,
) -> Result<(Outcome, u64), ApiError> {
    // Only the move that wins changes a game to won: the next write of a
    // won game is none (it is finished).
    let entry = game.earned().map(|earned| linkpath_store::Entry {
        board: earned.board,
        rank: earned.rank,
        body: earned.body,
        expires_at_ms: now + games.board_ttl.as_millis() as u64,
    });
    let expires_at_ms = now + games.idle.as_millis() as u64;
    let body = stored::encode(game);
    let write = Write {
        id: game.id.clone(),
        expected,
        game: StoredGame {
            version: game.version,
            expires_at_ms,
            body,
        },
        key,
        entry,
        log: log.iter().map(stored::encode_entry).collect(),
    };
    let started = Instant::now();
    let outcome = games.store.write(write, now).await;
    metrics::record_store("write", started);
    Ok((outcome.map_err(unavailable)?, expires_at_ms))
}

/// A game answered: its JSON, `ETag` its version.
fn answer(status: StatusCode, view: &GameView) -> Result<Response, ApiError> {
    let json = linkpath_api::encode(view)?;
    Ok(respond(status, Some(view.version), None, json))
}

/// A JSON answer, with the game's version as `ETag` if it has one.
fn respond(
    status: StatusCode,
    version: Option<u64>,
    location: Option<&str>,
    json: Vec<u8>,
) -> Response {
    let mut response = (status, [(header::CONTENT_TYPE, "application/json")], json).into_response();
    let headers = response.headers_mut();
    if let Some(etag) = version.and_then(|v| HeaderValue::from_str(&format!("\"{v}\"")).ok()) {
        headers.insert(header::ETAG, etag);
    }
    if let Some(location) = location.and_then(|l| HeaderValue::from_str(l).ok()) {
        headers.insert(header::LOCATION, location);
    }
    response
}

/// Creates a game, dealt or on the board sent.
#[utoipa::path(post, path = "/v1/games", operation_id = "createGame", tag = "games",
    request_body(content = CreateGame, example = json!({"width": 18, "height": 8, "types": 36, "rules": "shisen-sho", "seed": 7, "time_limit_ms": 480000})),
    params(("Idempotency-Key" = Option<String>, Header, description = "Answers a retry with the first answer; kept 24 h by default.")),
    responses(
        (status = 201, description = "The game, with `Location` and `ETag`", body = GameView),
        (status = 503, description = "The store holds as many games as allowed, or is unavailable", body = linkpath_api::ErrorBody)))]
async fn create(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: JsonBody,
) -> Result<Response, HttpError> {
    let games = state.games.clone();
    let now = now_ms();
    let key = Key::read(&headers, "POST", "/v1/games", &body)?;
    if let Some(key) = &key
        && let Some(response) = kept_answer(&games, key, now).await?
    {
        return Ok(response);
    }
    let id = new_id()?;
    let permit = state.solver_slot()?;
    let limits = games.request_limits.clone();
    let (game, created) = state
        .run_blocking(permit, Work::Deal, move |stop| {
            linkpath_api::games::create(&body, id, now, &limits, stop)
        })
        .await?;
    let location = format!("/v1/games/{}", game.id);
    let view = GameView::new(&game, now, now + games.idle.as_millis() as u64);
    let json = linkpath_api::encode(&view)?;
    let kept = key.as_ref().map(|k| {
        k.keep(
            201,
            view.version,
            Some(&location),
            &json,
            now,
            games.key_ttl,
        )
    });
    let (outcome, _) = save(&games, &game, Expected::Absent, kept, &[created], now).await?;
    match outcome {
        Outcome::Written => {
            metrics::record_game_created();
            Ok(respond(
                StatusCode::CREATED,
                Some(view.version),
                Some(&location),
                json,
            ))
        }
        Outcome::Replayed(kept) => Ok(replay_raced(key.as_ref(), &kept)?),
        Outcome::TooManyKeys(bound) => Err(too_many_keys(bound).into()),
        Outcome::Full => Err(ApiError::new(
            ErrorCode::StoreFull,
            "the server holds as many games as it allows; retry once idle games expire",
        )
        .retry_after(60)
        .into()),
        // A fresh 128-bit id is never taken.
        Outcome::Stale { .. } => Err(ApiError::new(
            ErrorCode::StoreUnavailable,
            "the new game's id was taken; retry",
        )
        .retry_after(1)
        .into()),
    }
}

/// The game as it is now; a game whose time ran out is ended first.
#[utoipa::path(get, path = "/v1/games/{id}", operation_id = "getGame", tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    responses(
        (status = 200, description = "The game, `ETag` its version", body = GameView),
        (status = 404, description = "No such game, or it expired", body = linkpath_api::ErrorBody),
        (status = 422, description = "An id that is not UTF-8 once percent-decoded", body = linkpath_api::ErrorBody)))]
async fn show(
    State(state): State<AppState>,
    PathParam(id): PathParam<String>,
) -> Result<Response, HttpError> {
    let games = state.games.clone();
    let now = now_ms();
    let (game, expires) = current(&games, &id, now).await?;
    Ok(answer(StatusCode::OK, &GameView::new(&game, now, expires))?)
}

/// The game at `now`, its time limit applied (and written) if it passed.
async fn current(games: &Games, id: &str, now: u64) -> Result<(Game, u64), ApiError> {
    let _line = games.lock(id).lock().await;
    for _ in 0..ATTEMPTS {
        let (stored::Loaded { mut game, unsaved }, expires) = load(games, id, now).await?;
        let version = game.version;
        let Some(ended) = game.expire(now) else {
            return Ok((game, expires));
        };
        let log = [unsaved, vec![ended]].concat();
        match save(games, &game, Expected::Version(version), None, &log, now).await? {
            (Outcome::Written, expires) => {
                changed(games, &game, ActionKind::OutOfTime, now, expires);
                return Ok((game, expires));
            }
            _ => continue,
        }
    }
    Err(busy())
}

fn busy() -> ApiError {
    ApiError::new(
        ErrorCode::StoreUnavailable,
        "the game changed under every attempt; retry shortly",
    )
    .retry_after(1)
}

/// After a change is stored: the metrics and the event stream.
fn changed(games: &Games, game: &Game, kind: ActionKind, now: u64, expires: u64) {
    if game.status.finished() {
        metrics::record_game_finished(game.status.name());
    }
    metrics::record_game_action(kind.name(), "applied");
    games
        .streams
        .publish(&GameView::new(game, now, expires), game.due(u64::MAX));
}

/// Applies `action` to the game `id` and answers the game.
async fn act(
    state: AppState,
    id: String,
    headers: HeaderMap,
    path: &'static str,
    body: &[u8],
    action: Action,
) -> Result<Response, HttpError> {
    let games = state.games.clone();
    let now = now_ms();
    let key = Key::read(&headers, "POST", &format!("{path}:{id}"), body)?;
    let pin = if_match(&headers)?;
    let kind = action.kind();
    let _line = games.lock(&id).lock().await;
    // The key is read after the game: a change and its key's answer are
    // written together, so a game that shows a first try's change comes
    // with that try's answer, and a retry racing it is answered that.
    let mut loaded = Some(load(&games, &id, now).await);
    if let Some(key) = &key
        && let Some(response) = kept_answer(&games, key, now).await?
    {
        return Ok(response);
    }
    for _ in 0..ATTEMPTS {
        let loaded = match loaded.take() {
            Some(loaded) => loaded,
            None => load(&games, &id, now).await,
        };
        let (stored::Loaded { game, unsaved }, _) = loaded?;
        let cells = game.cells.len();
        let read = entries(&games, &id, &unsaved, &game.needs(&action), now).await?;
        if let Err(refused) = pin.check(game.version) {
            metrics::record_game_action(kind.name(), "stale");
            return refuse(&games, &id, key.as_ref(), refused, now).await;
        }
        let version = game.version;
        let limits = games.request_limits.clone();
        let game_limits = games.limits;
        let action = action.clone();
        let judge = move |stop: &Stop| {
            let mut next = game;
            let mut log = unsaved;
            log.extend(next.expire(now));
            let refused = match next.act(&action, now, &read, &game_limits, &limits, stop) {
                Ok(logged) => {
                    log.push(logged);
                    None
                }
                Err(refused) => Some(refused),
            };
            let changed = next.version != version;
            Ok((changed.then_some((next, log)), refused))
        };
        // A small board is judged in microseconds, on this thread; a big
        // one on the solver pool, as `/v1/play` is.
        let (next, refused) = if cells <= INLINE_CELLS {
            judge(&Stop::never().with_deadline(Instant::now() + state.config.solve_timeout()))?
        } else {
            let permit = state.solver_slot()?;
            state.run_blocking(permit, Work::Play, judge).await?
        };
        let Some((next, log)) = next else {
            // Refused, and nothing changed: not even the version.
            let refused = refused.expect("refused when unchanged");
            metrics::record_game_action(kind.name(), refusal(&refused));
            return refuse(&games, &id, key.as_ref(), refused, now).await;
        };
        let view = GameView::new(&next, now, now + games.idle.as_millis() as u64);
        let json = linkpath_api::encode(&view)?;
        // The key keeps the answer this request gets: the game, or the
        // refusal of a game that ran out of time on the way.
        let kept = key.as_ref().and_then(|k| match &refused {
            None => Some(k.keep(200, view.version, None, &json, now, games.key_ttl)),
            Some(refused) => k.keep_refusal(refused, now, games.key_ttl),
        });
        match save(&games, &next, Expected::Version(version), kept, &log, now).await? {
            (Outcome::Written, expires) => {
                let applied = if refused.is_some() {
                    ActionKind::OutOfTime
                } else {
                    kind
                };
                changed(&games, &next, applied, now, expires);
                return match refused {
                    Some(refused) => {
                        metrics::record_game_action(kind.name(), refusal(&refused));
                        Err(refused.into())
                    }
                    None => Ok(respond(StatusCode::OK, Some(view.version), None, json)),
                };
            }
            (Outcome::Replayed(kept), _) => return Ok(replay_raced(key.as_ref(), &kept)?),
            (Outcome::TooManyKeys(bound), _) => return Err(too_many_keys(bound).into()),
            (Outcome::Stale { current: None }, _) => return Err(not_found().into()),
            (Outcome::Stale { .. } | Outcome::Full, _) => {
                if pin.pinned() {
                    let refused = ApiError::new(
                        ErrorCode::VersionMismatch,
                        "the game changed while this action was judged: read it again",
                    );
                    return refuse(&games, &id, key.as_ref(), refused, now).await;
                }
                continue;
            }
        }
    }
    Err(busy().into())
}

/// Answers the refusal `refused` of a request to the game `id`, kept
/// under the request's key first if it has one, so that a retry is
/// answered the same refusal and never judged again. A retry that raced
/// this one and kept its answer first gets that answer.
async fn refuse(
    games: &Games,
    id: &str,
    key: Option<&Key>,
    refused: ApiError,
    now: u64,
) -> Result<Response, HttpError> {
    let Some((key, (stored, kept))) =
        key.and_then(|k| Some((k, k.keep_refusal(&refused, now, games.key_ttl)?)))
    else {
        return Err(refused.into());
    };
    let started = Instant::now();
    let outcome = games.store.keep(id, &stored, kept, now).await;
    metrics::record_store("write", started);
    match outcome.map_err(unavailable)? {
        Outcome::Replayed(kept) => Ok(keys::replayed(key, &kept)?),
        Outcome::TooManyKeys(bound) => Err(too_many_keys(bound).into()),
        _ => Err(refused.into()),
    }
}

/// The answer a write found under its key: another try of the request
/// was answered first.
fn replay_raced(key: Option<&Key>, kept: &linkpath_store::Kept) -> Result<Response, ApiError> {
    match key {
        Some(key) => keys::replayed(key, kept),
        // A write without a key is never replayed.
        None => Err(busy()),
    }
}

/// A new key past a bound of the keys kept: nothing was applied.
fn too_many_keys(bound: linkpath_store::KeyBound) -> ApiError {
    let message = match bound {
        linkpath_store::KeyBound::Game => {
            "this game has as many Idempotency-Key answers kept as the server allows; \
             nothing was applied: retry once older keys expire, or without a key"
        }
        linkpath_store::KeyBound::Store => {
            "the server keeps as many bytes of Idempotency-Key answers as it allows; \
             nothing was applied: retry once older keys expire, or without a key"
        }
    };
    ApiError::new(ErrorCode::StoreFull, message).retry_after(60)
}

/// The outcome label of a refused action.
fn refusal(error: &ApiError) -> &'static str {
    match error.code {
        ErrorCode::IllegalMove => "illegal",
        ErrorCode::GameOver => "finished",
        ErrorCode::DeadlineExceeded => "deadline",
        _ => "refused",
    }
}

/// What `If-Match` asks of the game's version (RFC 9110, 13.1.1).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Pin {
    /// No header, or `*`: any version.
    Any,
    /// One of these versions, from the strong tags (`"N"`). If-Match
    /// compares strongly, so a weak tag (`W/"N"`) matches none: only
    /// weak tags leave this empty.
    Versions(Vec<u64>),
}

impl Pin {
    fn pinned(&self) -> bool {
        *self != Pin::Any
    }

    /// 412 unless the game at `version` matches.
    fn check(&self, version: u64) -> Result<(), ApiError> {
        let message = match self {
            Pin::Any => return Ok(()),
            Pin::Versions(pinned) if pinned.contains(&version) => return Ok(()),
            Pin::Versions(pinned) if pinned.is_empty() => format!(
                "If-Match holds only weak tags, which never match (RFC 9110): expected the game's ETag, \"{version}\""
            ),
            Pin::Versions(pinned) => format!(
                "If-Match names version {}, the game is at version {version}: read it again",
                pinned
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        };
        Err(ApiError::new(ErrorCode::VersionMismatch, message))
    }
}

/// What `If-Match` pins: `"N"` a version (a list, any of them), `*`
/// none; weak tags (`W/"N"`) match nothing.
fn if_match(headers: &HeaderMap) -> Result<Pin, ApiError> {
    let Some(value) = headers.get(header::IF_MATCH) else {
        return Ok(Pin::Any);
    };
    let text = value.to_str().unwrap_or("").trim();
    if text == "*" {
        return Ok(Pin::Any);
    }
    let invalid = || {
        ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "If-Match is {:?}, expected the game's ETag, a version in quotes such as \"3\"",
                linkpath_api::excerpt(text)
            ),
        )
        .at("If-Match")
    };
    let mut versions = Vec::new();
    for tag in text.split(',').map(str::trim) {
        let (weak, tag) = match tag.strip_prefix("W/") {
            Some(tag) => (true, tag),
            None => (false, tag),
        };
        let version = tag
            .strip_prefix('"')
            .and_then(|t| t.strip_suffix('"'))
            .and_then(|t| t.parse::<u64>().ok())
            .ok_or_else(invalid)?;
        if !weak {
            versions.push(version);
        }
    }
    Ok(Pin::Versions(versions))
}

/// Removes two tiles, if the game's rules let them go.
#[utoipa::path(post, path = "/v1/games/{id}/moves", operation_id = "moveTiles", tag = "games",
    params(("id" = String, Path, description = "The game's id"),
        ("If-Match" = Option<String>, Header, description = "The version the move is for; 412 when the game is at another"),
        ("Idempotency-Key" = Option<String>, Header, description = "Answers a retry with the first answer")),
    request_body(content = MoveRequest, example = json!({"from": [0, 0], "to": [3, 0]})),
    responses(
        (status = 200, description = "The game after the move", body = GameView),
        (status = 404, description = "No such game, or it expired", body = linkpath_api::ErrorBody),
        (status = 409, description = "An illegal move (`reason` says why), or a finished game", body = linkpath_api::ErrorBody),
        (status = 412, description = "`If-Match` names another version", body = linkpath_api::ErrorBody)))]
async fn make_move(
    State(state): State<AppState>,
    PathParam(id): PathParam<String>,
    headers: HeaderMap,
    body: JsonBody,
) -> Result<Response, HttpError> {
    let action = Action::read_move(&body, &state.games.request_limits)?;
    act(state, id, headers, "/v1/games/{id}/moves", &body, action).await
}

macro_rules! plain_action {
    ($name:ident, $path:literal, $id:literal, $action:expr, $doc:literal, $ok:literal) => {
        #[doc = $doc]
        #[utoipa::path(post, path = $path, operation_id = $id, tag = "games",
            params(("id" = String, Path, description = "The game's id"),
                ("If-Match" = Option<String>, Header, description = "The version the action is for; 412 when the game is at another"),
                ("Idempotency-Key" = Option<String>, Header, description = "Answers a retry with the first answer")),
            responses(
                (status = 200, description = $ok, body = GameView),
                (status = 404, description = "No such game, or it expired", body = linkpath_api::ErrorBody),
                (status = 409, description = "The action does not apply now, or the game is finished", body = linkpath_api::ErrorBody),
                (status = 412, description = "`If-Match` names another version", body = linkpath_api::ErrorBody)))]
        async fn $name(
            State(state): State<AppState>,
            PathParam(id): PathParam<String>,
            headers: HeaderMap,
        ) -> Result<Response, HttpError> {
            act(state, id, headers, $path, b"", $action).await
        }
    };
}

plain_action!(
    hint,
    "/v1/games/{id}/hint",
    "hint",
    Action::Hint,
    "Shows a move (`last.hint`): the first `/v1/moves` lists. An assist.",
    "The game with the hint in `last.hint`"
);
plain_action!(
    undo,
    "/v1/games/{id}/undo",
    "undo",
    Action::Undo,
    "Takes back the last move or shuffle. An assist.",
    "The game after the undo"
);
plain_action!(
    redo,
    "/v1/games/{id}/redo",
    "redo",
    Action::Redo,
    "Makes again the last change taken back.",
    "The game after the redo"
);
plain_action!(
    shuffle,
    "/v1/games/{id}/shuffle",
    "shuffleGame",
    Action::Shuffle {
        seed: None,
        moved: None
    },
    "Shuffles the tiles left into a board that can be cleared. An assist.",
    "The game after the shuffle, the tiles' moves in `last.moved`"
);
plain_action!(
    pause,
    "/v1/games/{id}/pause",
    "pause",
    Action::Pause,
    "Stops the clock; the board is hidden until `resume`.",
    "The paused game, without its board"
);
plain_action!(
    resume,
    "/v1/games/{id}/resume",
    "resume",
    Action::Resume,
    "Starts the clock again.",
    "The game in play"
);
plain_action!(
    resign,
    "/v1/games/{id}/resign",
    "resign",
    Action::Resign,
    "Ends the game.",
    "The resigned game"
);

/// The dealt board, the settings and every action with its time. A
/// paused game's replay is hidden as its board is: it would show the
/// board the pause hides.
#[utoipa::path(get, path = "/v1/games/{id}/replay", operation_id = "getReplay", tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    responses(
        (status = 200, description = "The game's replay", body = Replay),
        (status = 404, description = "No such game, or it expired", body = linkpath_api::ErrorBody),
        (status = 409, description = "The game is paused: its replay is hidden until `resume`", body = linkpath_api::ErrorBody),
        (status = 422, description = "An id that is not UTF-8 once percent-decoded", body = linkpath_api::ErrorBody)))]
async fn replay(
    State(state): State<AppState>,
    PathParam(id): PathParam<String>,
) -> Result<Response, HttpError> {
    let games = state.games.clone();
    let now = now_ms();
    let (game, _) = current(&games, &id, now).await?;
    if game.status == linkpath_api::games::Status::Paused {
        return Err(ApiError::new(
            ErrorCode::ActionRefused,
            "the game is paused: its replay, like its board, is hidden until `resume`",
        )
        .into());
    }
    let log = whole_log(&games, &game, now).await?;
    let replay = Replay::of(&game, &log).ok_or_else(|| {
        unavailable(StoreError::Corrupted(format!(
            "game {}…'s log does not start with its deal",
            keys::short(&id)
        )))
    })?;
    let json = linkpath_api::encode(&replay)?;
    Ok(respond(StatusCode::OK, Some(game.version), None, json))
}

/// Every entry of `game`'s log, one a version from its creation: from
/// the store, or from the record of an older format that held them.
async fn whole_log(games: &Games, game: &Game, now: u64) -> Result<Vec<Logged>, ApiError> {
    let (stored::Loaded { unsaved, .. }, _) = load(games, &game.id, now).await?;
    if !unsaved.is_empty() {
        return Ok(unsaved);
    }
    let started = Instant::now();
    let read = games.store.log(&game.id, 0..game.version + 1, now).await;
    metrics::record_store("read", started);
    let read = read.map_err(unavailable)?;
    if read.len() as u64 != game.version + 1 {
        return Err(unavailable(StoreError::Corrupted(format!(
            "game {}… at version {} has {} entries in its log",
            keys::short(&game.id),
            game.version,
            read.len()
        ))));
    }
    read.iter()
        .map(|(_, bytes)| decode_entry(&game.id, bytes))
        .collect()
}

/// Plays a replay again and answers where it ends; stores nothing.
#[utoipa::path(post, path = "/v1/replays", operation_id = "checkReplay", tag = "games",
    request_body = Replay,
    responses(
        (status = 200, description = "The game the replay comes to", body = ReplayCheck),
        (status = 422, description = "An action the game would have refused, named in `field`", body = linkpath_api::ErrorBody)))]
async fn check_replay(
    State(state): State<AppState>,
    body: JsonBody,
) -> Result<Response, HttpError> {
    let permit = state.solver_slot()?;
    let limits = state.games.request_limits.clone();
    let game_limits = state.games.limits;
    let json = state
        .run_blocking(permit, Work::Play, move |stop| {
            let check = linkpath_api::games::check_replay(&body, &game_limits, &limits, stop)?;
            linkpath_api::encode(&check)
        })
        .await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], json).into_response())
}

/// Purges expired games, keys and leaderboards every 30 seconds, all of
/// them (in batches: [`Store::purge_expired`]), and counts the games
/// stored; the serve loop stops it. The count is the first call at
/// start: a store that does not answer (a Redis not up yet) is logged
/// then, and games answer 503 until it does.
pub async fn purge_loop(games: Arc<Games>) {
    const EVERY: Duration = Duration::from_secs(30);
    loop {
        match games.store.games().await {
            Ok(stored) => metrics::record_games_stored(stored),
            Err(e) => tracing::warn!(
                error = %e,
                "the game store does not answer; game routes answer 503 until it does"
            ),
        }
        tokio::time::sleep(EVERY).await;
        match games.store.purge_expired(now_ms()).await {
            Ok(purged) => {
                if purged.games > 0 || purged.keys > 0 || purged.boards > 0 {
                    tracing::info!(
                        games = purged.games,
                        keys = purged.keys,
                        leaderboards = purged.boards,
                        "purged expired games"
                    );
                }
            }
            Err(e) => tracing::warn!(error = %e, "purging expired games failed; next pass retries"),
        }
    }
}
