//! `GET /v1/games/{id}/events`: the game as Server-Sent Events, what a
//! browser's `EventSource` reads. The first event is the whole game, then
//! one per change, each with `id:` its version (`Last-Event-ID` resumes
//! after it), with keep-alive comments between; the stream ends with the
//! game. A finished game's reader that has seen its last version gets
//! 204 No Content, the answer that stops an `EventSource` reconnecting. Streams are bounded in all and per game, and a reader that falls
//! more than a few events behind is dropped rather than buffered. Streams
//! are fed in process by the changes made here and, on a store other
//! processes share, by those the store tells of.

use super::{Games, now_ms};
use crate::AppState;
use crate::error::HttpError;
use crate::metrics;
use crate::path::PathParam;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use linkpath_api::games::GameView;
use linkpath_api::games::stored;
use linkpath_api::{ApiError, ErrorCode};
use linkpath_store::Feed;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::broadcast;

/// Events a reader may fall behind by before it is dropped.
const BEHIND: usize = 16;

/// The comment sent when nothing happened for this long, so proxies keep
/// the stream open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The stream as the contract declares it, for two kinds of reader: each
/// event as a Server-Sent Events parser gives it (`GameEvent`), or the
/// body taken whole as text (what a generated client that reads the body
/// at once returns). axum's
/// `Event` writes it: `event: game`, `id:` the game's version, `data:` the
/// whole game as `GET /v1/games/{id}` answers it (JSON on one line), each
/// ended by a blank line; lines starting with `:` are keep-alive comments.
#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(untagged)]
#[expect(
    dead_code,
    reason = "the contract's description of the stream; never built"
)]
pub(crate) enum EventStream {
    Event(GameEvent),
    Text(String),
}

/// One event of the stream, as a Server-Sent Events parser reads it.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub(crate) struct GameEvent {
    /// Always `game`.
    event: String,
    /// The game's version.
    id: String,
    /// The whole game as `GET /v1/games/{id}` answers it, as JSON text.
    data: String,
}

/// One change as sent: its version and the game's JSON.
#[derive(Clone)]
struct Change {
    version: u64,
    json: Arc<str>,
    finished: bool,
    /// When the game's time limit passes (ms since the Unix epoch), if its
    /// clock runs.
    due_at_ms: Option<u64>,
}

/// The open streams of one game, and the last version sent to them.
struct Topic {
    sender: broadcast::Sender<Change>,
    sent: Option<u64>,
}

/// The open streams, by game.
pub struct Streams {
    games: Mutex<HashMap<String, Topic>>,
    open: Mutex<usize>,
    max: usize,
    max_per_game: usize,
}

impl Streams {
    pub fn new(max: usize, max_per_game: usize) -> Self {
        metrics::record_streams_open(0);
        Streams {
            games: Mutex::new(HashMap::new()),
            open: Mutex::new(0),
            max,
            max_per_game,
        }
    }

    /// Sends the game to its readers, if it has any.
    pub fn publish(&self, view: &GameView, due_at_ms: Option<u64>) {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        let Some(topic) = games.get_mut(&view.id) else {
            return;
        };
        let Ok(json) = serde_json::to_string(view) else {
            return;
        };
        topic.sent = topic.sent.max(Some(view.version));
        let _ = topic.sender.send(Change {
            version: view.version,
            json: json.into(),
            finished: view.status.finished(),
            due_at_ms,
        });
    }

    /// Whether game `id` has readers here that have not been sent
    /// `version`.
    fn behind(&self, id: &str, version: u64) -> bool {
        let games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        games
            .get(id)
            .is_some_and(|topic| topic.sent.is_none_or(|sent| sent < version))
    }

    /// The games with readers here.
    fn watched(&self) -> Vec<String> {
        let games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        games.keys().cloned().collect()
    }

    /// A new reader of game `id`, within the bounds.
    fn subscribe(self: &Arc<Self>, id: &str) -> Result<Reader, ApiError> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if *open >= self.max {
            let message = match self.max {
                // A connection cap too small to leave any to streams.
                0 => "this server serves no event streams: its connection cap leaves none to them, read the game instead".to_owned(),
                max => format!("all {max} event streams are open, retry shortly"),
            };
            return Err(ApiError::new(ErrorCode::Overloaded, message).retry_after(5));
        }
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        let topic = games.entry(id.to_owned()).or_insert_with(|| Topic {
            sender: broadcast::channel(BEHIND).0,
            sent: None,
        });
        if topic.sender.receiver_count() >= self.max_per_game {
            return Err(ApiError::new(
                ErrorCode::Overloaded,
                format!(
                    "this game has {} event streams open, its limit; close one first",
                    self.max_per_game
                ),
            )
            .retry_after(5));
        }
        let receiver = topic.sender.subscribe();
        *open += 1;
        metrics::record_streams_open(*open);
        Ok(Reader {
            streams: self.clone(),
            id: id.to_owned(),
            receiver,
        })
    }
}

/// One open stream; closing it frees its place.
struct Reader {
    streams: Arc<Streams>,
    id: String,
    receiver: broadcast::Receiver<Change>,
}

impl Drop for Reader {
    fn drop(&mut self) {
        let mut open = self.streams.open.lock().unwrap_or_else(|e| e.into_inner());
        *open -= 1;
        metrics::record_streams_open(*open);
        let mut games = self.streams.games.lock().unwrap_or_else(|e| e.into_inner());
        // This reader still counts: the last one leaving removes the game.
        if games
            .get(&self.id)
            .is_some_and(|topic| topic.sender.receiver_count() <= 1)
        {
            games.remove(&self.id);
        }
    }
}

/// The game's events.
#[utoipa::path(get, path = "/v1/games/{id}/events", operation_id = "gameEvents", tag = "games",
    params(("id" = String, Path, description = "The game's id"),
        ("Last-Event-ID" = Option<String>, Header, description = "The last version read: the whole game is sent first only if it has changed since")),
    responses(
        (status = 200, description = "`text/event-stream`: the game (unless `Last-Event-ID` is its version), then one event per change; it ends with the game", content_type = "text/event-stream", body = EventStream),
        (status = 204, description = "The game is finished and `Last-Event-ID` is its last version: nothing is left to send, and an `EventSource` stops reconnecting"),
        (status = 404, description = "No such game, or it expired", body = linkpath_api::ErrorBody),
        (status = 422, description = "An id that is not UTF-8 once percent-decoded", body = linkpath_api::ErrorBody),
        (status = 503, description = "Too many streams open", body = linkpath_api::ErrorBody)))]
pub(super) async fn stream(
    State(state): State<AppState>,
    PathParam(id): PathParam<String>,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    let games: Arc<Games> = state.games.clone();
    follow_store(&games);
    // Subscribed before reading, so no change falls between the two.
    let reader = games.streams.clone().subscribe(&id)?;
    let now = now_ms();
    let (game, expires) = super::current(&games, &id, now).await?;
    let seen = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if game.status.finished() && seen == Some(game.version) {
        // Nothing left to send, ever: 204 is what stops an `EventSource`
        // from reconnecting (an empty 200 stream has it reconnect forever).
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    let view = GameView::new(&game, now, expires);
    let first = (seen != Some(game.version)).then(|| Change {
        version: game.version,
        json: serde_json::to_string(&view).unwrap_or_default().into(),
        finished: game.status.finished(),
        due_at_ms: game.due(u64::MAX),
    });
    let watch = Watch {
        state: state.clone(),
        id,
        reader,
        first,
        done: false,
        due: deadline(game.due(u64::MAX), now),
        version: game.version,
    };
    let events = futures_util::stream::unfold(watch, Watch::next);
    Ok(Sse::new(events)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response())
}

/// A stream's state between events.
struct Watch {
    state: AppState,
    id: String,
    reader: Reader,
    first: Option<Change>,
    done: bool,
    /// When the game's time limit passes, if its clock runs.
    due: Option<tokio::time::Instant>,
    version: u64,
}

impl Watch {
    async fn next(mut self) -> Option<(Result<Event, std::convert::Infallible>, Watch)> {
        if let Some(change) = self.first.take() {
            self.done |= change.finished;
            return Some((Ok(event(&change)), self));
        }
        loop {
            if self.done {
                return None;
            }
            let change = match self.due {
                Some(due) => tokio::select! {
                    change = self.reader.receiver.recv() => change,
                    () = tokio::time::sleep_until(due) => {
                        // The limit passed while the game is watched: end it
                        // now; its change arrives as an event.
                        self.due = None;
                        let _ = super::current(&self.state.games, &self.id, now_ms()).await;
                        continue;
                    }
                },
                None => self.reader.receiver.recv().await,
            };
            match change {
                Ok(change) if change.version <= self.version => continue,
                Ok(change) => {
                    self.version = change.version;
                    self.done = change.finished;
                    self.due = deadline(change.due_at_ms, now_ms());
                    return Some((Ok(event(&change)), self));
                }
                // Fallen behind, or the game's channel closed: the reader
                // reconnects with Last-Event-ID and gets the game as it is.
                Err(_) => return None,
            }
        }
    }
}

/// Carries into this process's streams the changes that other processes
/// sharing the store (replicas on one Redis) write: started by the first
/// stream, for a store that tells of them; it ends with the store.
fn follow_store(games: &Arc<Games>) {
    games.following.call_once(|| {
        if let Some(feed) = games.store.changes() {
            tokio::spawn(follow(Arc::downgrade(games), feed));
        }
    });
}

/// Sends each change heard that this process's readers of the game were
/// not sent (the changes made here were), read from the store; after the
/// feed resumed, or fell behind, every game with readers is read again.
/// A reader skips a version it has, so none is sent twice.
async fn follow(games: Weak<Games>, mut feed: broadcast::Receiver<Feed>) {
    loop {
        let heard = feed.recv().await;
        let Some(games) = games.upgrade() else {
            return;
        };
        match heard {
            Ok(Feed::Written { id, version }) => {
                if games.streams.behind(&id, version) {
                    send_stored(&games, &id).await;
                }
            }
            Ok(Feed::Resumed) | Err(broadcast::error::RecvError::Lagged(_)) => {
                for id in games.streams.watched() {
                    send_stored(&games, &id).await;
                }
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// Sends game `id`, as stored now, to its readers here. A game that is
/// gone, or a store that fails, sends nothing: the readers keep what they
/// have, and the failure is logged where the read failed.
async fn send_stored(games: &Games, id: &str) {
    let now = now_ms();
    if let Ok((stored::Loaded { game, .. }, expires)) = super::load(games, id, now).await {
        games
            .streams
            .publish(&GameView::new(&game, now, expires), game.due(u64::MAX));
    }
}

/// The instant of `due_at_ms`, seen at `now`.
fn deadline(due_at_ms: Option<u64>, now: u64) -> Option<tokio::time::Instant> {
    due_at_ms.map(|at| tokio::time::Instant::now() + Duration::from_millis(at.saturating_sub(now)))
}

fn event(change: &Change) -> Event {
    Event::default()
        .event("game")
        .id(change.version.to_string())
        .data(&*change.json)
}
