//! The live streams of games: each game's readers in this process, fed
//! the game at every change. The changes made here are published by the
//! service as it writes them; on a store that other processes share, the
//! changes they write are heard from the store and sent too. Streams are
//! bounded in all and per game, and a reader that falls more than a few
//! changes behind is dropped rather than buffered. The HTTP side, the
//! Server-Sent Events of a game, is `routes::events`.

use crate::metrics;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use linkpath_api::games::GameView;
use linkpath_api::{ApiError, ErrorCode};
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::broadcast;

/// The comment sent when nothing happened for this long, so proxies keep
/// a stream open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The answer of an event stream, a game's or a match's: kept alive by a
/// comment, and marked `X-Accel-Buffering: no` so that nginx in front
/// (deploy/compose/nginx.conf) passes each event on as it comes instead
/// of holding it in its buffers.
pub(crate) fn event_stream<S>(events: S) -> Response
where
    S: Stream<Item = Result<Event, Infallible>> + Send + 'static,
{
    let mut response = Sse::new(events)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response();
    response.headers_mut().insert(
        "x-accel-buffering",
        axum::http::HeaderValue::from_static("no"),
    );
    response
}

/// Changes a reader may fall behind by before it is dropped.
const BEHIND: usize = 16;

/// One change as sent: its version and the game's JSON.
#[derive(Clone)]
pub(crate) struct Change {
    pub version: u64,
    pub json: Arc<str>,
    pub finished: bool,
    /// When the game's time limit passes (ms since the Unix epoch), if its
    /// clock runs.
    pub due_at_ms: Option<u64>,
}

/// The open streams of one game, and the last version sent to them.
struct Topic {
    sender: broadcast::Sender<Change>,
    sent: Option<u64>,
}

/// The open streams, by game.
pub(crate) struct Streams {
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
    pub(crate) fn behind(&self, id: &str, version: u64) -> bool {
        let games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        games
            .get(id)
            .is_some_and(|topic| topic.sent.is_none_or(|sent| sent < version))
    }

    /// The games with readers here.
    pub(crate) fn watched(&self) -> Vec<String> {
        let games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        games.keys().cloned().collect()
    }

    /// Whether one more stream fits the bound on all of them.
    fn room(&self, open: usize) -> Result<(), ApiError> {
        if open < self.max {
            return Ok(());
        }
        let message = match self.max {
            // A connection cap too small to leave any to streams.
            0 => "this server serves no event streams: its connection cap leaves none to them, read the game instead".to_owned(),
            max => format!("all {max} event streams are open, retry shortly"),
        };
        Err(ApiError::new(ErrorCode::Overloaded, message).retry_after(5))
    }

    /// A place for a stream of something else than one game (a match's),
    /// counted in the same bound as the games' streams: each holds a
    /// connection all the same.
    pub(crate) fn place(self: &Arc<Self>) -> Result<Place, ApiError> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        self.room(*open)?;
        *open += 1;
        metrics::record_streams_open(*open);
        Ok(Place {
            streams: self.clone(),
        })
    }

    /// A new reader of game `id`, within the bounds.
    pub(crate) fn subscribe(self: &Arc<Self>, id: &str) -> Result<Reader, ApiError> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        self.room(*open)?;
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

/// The place of one open stream other than a game's; dropping it frees
/// the place.
pub(crate) struct Place {
    streams: Arc<Streams>,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut open = self.streams.open.lock().unwrap_or_else(|e| e.into_inner());
        *open -= 1;
        metrics::record_streams_open(*open);
    }
}

/// One open stream; closing it frees its place.
pub(crate) struct Reader {
    streams: Arc<Streams>,
    id: String,
    receiver: broadcast::Receiver<Change>,
}

impl Reader {
    /// The next change sent to the game's readers.
    pub async fn recv(&mut self) -> Result<Change, broadcast::error::RecvError> {
        self.receiver.recv().await
    }
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
