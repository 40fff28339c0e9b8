//! `GET /v1/games/{id}/events`: the game as Server-Sent Events, what a
//! browser's `EventSource` reads. The first event is the whole game, then
//! one per change, each with `id:` its version (`Last-Event-ID` resumes
//! after it), with keep-alive comments between; the stream ends with the
//! game. A finished game's reader that has seen its last version gets
//! 204 No Content, the answer that stops an `EventSource` reconnecting.
//! The streams themselves, their bounds and what feeds them, are the
//! service's (`games::streams`).

use crate::error::HttpError;
use crate::games::follow;
use crate::games::service::Games;
use crate::games::streams::{Change, Reader};
use crate::path::PathParam;
use crate::players::Caller;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::Event;
use axum::response::{IntoResponse, Response};
use linkpath_api::games::GameView;
use std::sync::Arc;
use std::time::Duration;

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

/// The game's events.
#[utoipa::path(get, path = "/v1/games/{id}/events", operation_id = "gameEvents", tag = "games",
    params(("id" = String, Path, description = "The game's id"),
        ("Last-Event-ID" = Option<String>, Header, description = "The last version read: the whole game is sent first only if it has changed since")),
    responses(
        (status = 200, description = "`text/event-stream`: the game (unless `Last-Event-ID` is its version), then one event per change; it ends with the game", content_type = "text/event-stream", body = EventStream),
        (status = 204, description = "The game is finished and `Last-Event-ID` is its last version: nothing is left to send, and an `EventSource` stops reconnecting"),
        (status = 401, description = "Where games are private, a player's game and no token sent", body = linkpath_api::ErrorBody),
        (status = 403, description = "Where games are private, another player's game (`not_your_game`)", body = linkpath_api::ErrorBody),
        (status = 404, description = "No such game, or it expired", body = linkpath_api::ErrorBody),
        (status = 422, description = "An id that is not UTF-8 once percent-decoded", body = linkpath_api::ErrorBody),
        (status = 503, description = "Too many streams open", body = linkpath_api::ErrorBody)))]
pub(crate) async fn stream(
    State(games): State<Arc<Games>>,
    PathParam(id): PathParam<String>,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    // Subscribed before reading, so no change falls between the two.
    let reader = follow::watch(&games, &id)?;
    let now = games.now();
    let (game, expires) = games.read(&id, caller.player_id(), now).await?;
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
        games: games.clone(),
        id,
        reader,
        first,
        done: false,
        due: deadline(game.due(u64::MAX), now),
        version: game.version,
    };
    let events = futures_util::stream::unfold(watch, Watch::next);
    Ok(crate::games::streams::event_stream(events))
}

/// A stream's state between events.
struct Watch {
    games: Arc<Games>,
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
                    change = self.reader.recv() => change,
                    () = tokio::time::sleep_until(due) => {
                        // The limit passed while the game is watched: end it
                        // now; its change arrives as an event.
                        self.due = None;
                        let _ = self.games.current(&self.id, self.games.now()).await;
                        continue;
                    }
                },
                None => self.reader.recv().await,
            };
            match change {
                Ok(change) if change.version <= self.version => continue,
                Ok(change) => {
                    self.version = change.version;
                    self.done = change.finished;
                    self.due = deadline(change.due_at_ms, self.games.now());
                    return Some((Ok(event(&change)), self));
                }
                // Fallen behind, or the game's channel closed: the reader
                // reconnects with Last-Event-ID and gets the game as it is.
                Err(_) => return None,
            }
        }
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
