//! `GET /v1/matches/{id}/events`: the match as Server-Sent Events. The
//! first event is the whole match (`event: match`); then each change of
//! it, and after each change of a seat's game that seat's progress
//! (`event: progress`: tiles left, score, the last pair); the stream ends
//! with the finished match, its result in it. Each event's `id:` is the
//! match's version plus its games' versions, which only grow; a reader
//! that has seen the end gets 204 No Content, which stops an
//! `EventSource` reconnecting. A stream hears of the changes made in this
//! process, and through the store's feed of the writes other replicas
//! make of the match (`Feed::Match`) and of its games (`Feed::Written`).

use crate::error::HttpError;
use crate::matches::Matches;
use crate::matches::service::Touched;
use crate::path::PathParam;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::Event;
use axum::response::{IntoResponse, Response};
use linkpath_api::games::{Game, Last, Status};
use linkpath_api::matches::{Match, MatchStatus, MatchView};
use linkpath_api::{ApiError, ErrorCode};
use serde::Serialize;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

/// How soon a stream reads its match again after a refusal that passes.
const RETRY: Duration = Duration::from_millis(200);

/// One seat's progress, after a change of its game.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct Progress {
    pub player: String,
    pub game: String,
    /// The game's version.
    pub version: u64,
    pub status: Status,
    pub tiles_left: usize,
    pub score: u64,
    /// The pairs removed in a row, each within 3 s of play after the one
    /// before: 1 after a longer wait, 0 before the first pair and after
    /// an undo.
    pub combo: u32,
    /// The game's last change: the pair a move removed, with its path.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub last: Option<Last>,
}

/// The match's events.
#[utoipa::path(get, path = "/v1/matches/{id}/events", operation_id = "matchEvents", tag = "matches",
    params(("id" = String, Path, description = "The match's id"),
        ("Last-Event-ID" = Option<String>, Header, description = "The last event id read: after the end, 204")),
    responses(
        (status = 200, description = "`text/event-stream`: `event: match` with the whole match, then `event: match` on each change and `event: progress` (a seat's game) after each move; it ends with the finished match", content_type = "text/event-stream", body = String),
        (status = 204, description = "The match is finished and `Last-Event-ID` is its last event: nothing is left to send"),
        (status = 404, description = "No such match, or it expired", body = linkpath_api::ErrorBody),
        (status = 422, description = "An id that is not UTF-8 once percent-decoded", body = linkpath_api::ErrorBody),
        (status = 503, description = "Too many streams open", body = linkpath_api::ErrorBody)))]
pub(crate) async fn stream(
    State(matches): State<Arc<Matches>>,
    PathParam(id): PathParam<String>,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    // In the one bound on streams (`LINKPATH_MAX_STREAMS`), as a game's.
    let permit = matches.games().streams.place()?;
    // Subscribed before reading, so no change falls between the two.
    let touched = matches.watch(&id);
    let mut watch = Watch {
        matches,
        id,
        touched,
        queue: VecDeque::new(),
        sent: None,
        games: Vec::new(),
        done: false,
        due: None,
        _permit: permit,
    };
    match watch.refresh().await {
        Ok(()) => {}
        // Busy solver slots (a race beginning needs one): the stream opens
        // and its first event, the whole match, follows once one is free,
        // as a stream already open waits.
        Err(e) if e.code == ErrorCode::Overloaded => {
            watch.due = Some(tokio::time::Instant::now() + RETRY);
        }
        Err(e) => return Err(e.into()),
    }
    let seen = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if watch.done && seen == Some(watch.event_id()) {
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    let events = futures_util::stream::unfold(watch, Watch::next);
    Ok(crate::games::streams::event_stream(events))
}

/// A stream's state between events.
struct Watch {
    matches: Arc<Matches>,
    id: String,
    touched: Touched,
    /// Events made and not sent yet.
    queue: VecDeque<Event>,
    /// The match's version sent.
    sent: Option<u64>,
    /// Each seat's game and the version of it sent.
    games: Vec<(String, u64)>,
    done: bool,
    /// When the match's next timer is due.
    due: Option<tokio::time::Instant>,
    _permit: crate::games::streams::Place,
}

impl Watch {
    async fn next(mut self) -> Option<(Result<Event, std::convert::Infallible>, Watch)> {
        loop {
            if let Some(event) = self.queue.pop_front() {
                return Some((Ok(event), self));
            }
            if self.done {
                return None;
            }
            let heard = match self.due {
                Some(due) => tokio::select! {
                    heard = self.touched.recv() => heard,
                    () = tokio::time::sleep_until(due) => {
                        self.due = None;
                        Ok(())
                    }
                },
                None => self.touched.recv().await,
            };
            match heard {
                // Fallen behind: read the match all the same.
                Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return None,
            }
            // A match gone, or a store that fails: the reader reconnects.
            match self.refresh().await {
                Ok(()) => {}
                // Busy solver slots (a race beginning needs one) or a
                // store away for a moment: read again shortly, rather
                // than end the stream.
                Err(e) if matches!(e.code, ErrorCode::Overloaded | ErrorCode::StoreUnavailable) => {
                    self.due = Some(tokio::time::Instant::now() + RETRY);
                }
                Err(_) => return None,
            }
        }
    }

    /// Reads the match (brought up to date) and its games, and queues an
    /// event for each that changed since it was sent: the seats' progress
    /// first, then the match, so that the result comes last.
    async fn refresh(&mut self) -> Result<(), ApiError> {
        let now = self.matches.now();
        let (record, expires, read) = self.matches.read_with_games(&self.id, now).await?;
        // The seats' games as the read found them, while the race is on.
        let mut read = read.map(Vec::into_iter);
        let first = self.sent.is_none();
        let mut progress = Vec::new();
        for (i, seat) in record.seats.iter().enumerate() {
            let found = read.as_mut().and_then(Iterator::next);
            let Some(game_id) = &seat.game else {
                continue;
            };
            let game = match found {
                Some(Some(game)) => game,
                Some(None) => continue,
                None => match self.matches.games().current(game_id, now).await {
                    Ok((game, _)) => game,
                    Err(e) if e.code == ErrorCode::GameNotFound => continue,
                    Err(e) => return Err(e),
                },
            };
            match self.games.iter_mut().find(|(id, _)| id == game_id) {
                Some((_, sent)) if *sent >= game.version => continue,
                Some((_, sent)) => *sent = game.version,
                None => {
                    self.matches.follow_game(game_id, &self.id);
                    self.games.push((game_id.clone(), game.version));
                }
            }
            if !first {
                progress.push(self.progress(&record, i, &game));
            }
        }
        self.queue.extend(progress);
        if self.sent != Some(record.version) {
            self.sent = Some(record.version);
            let view = MatchView::new(&record, expires);
            let json = serde_json::to_string(&view).unwrap_or_default();
            let event = Event::default()
                .event("match")
                .id(self.event_id().to_string())
                .data(json);
            self.queue.push_back(event);
        }
        self.done = record.status == MatchStatus::Finished;
        self.due = record
            .due_at_ms()
            .map(|at| tokio::time::Instant::now() + Duration::from_millis(at.saturating_sub(now)));
        Ok(())
    }

    fn progress(&self, record: &Match, seat: usize, game: &Game) -> Event {
        let progress = Progress {
            player: record.seats[seat].player.clone(),
            game: game.id.clone(),
            version: game.version,
            status: game.status,
            tiles_left: game.tiles_left,
            score: game.score,
            combo: game.combo,
            last: game.last.clone(),
        };
        Event::default()
            .event("progress")
            .id(self.event_id().to_string())
            .data(serde_json::to_string(&progress).unwrap_or_default())
    }

    /// The match's version plus its games' sent: it only grows.
    fn event_id(&self) -> u64 {
        self.sent.unwrap_or(0) + self.games.iter().map(|(_, v)| v).sum::<u64>()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        for (game, _) in &self.games {
            self.matches.unfollow_game(game);
        }
    }
}
