//! Exports of archived games (a player's, a leaderboard's, a day's): the
//! one stream every export route answers with ([`stream`]), NDJSON read
//! from the archive a batch at a time (its memory is one batch, however
//! many games); and the exports under way, with their pace: one export a
//! caller at a time, whatever it exports, at most [`MAX_EXPORTS`] at
//! once, each streaming at the rate lichess allows its callers (20 games
//! a second to anyone, 30 to a signed-in player, 60 to a player exporting
//! their own).

use super::{Archives, unavailable};
use crate::players::Caller;
use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures_util::{Stream, StreamExt};
use linkpath_api::{ApiError, ErrorCode};
use linkpath_archive::{ArchiveError, ArchivedGame, Filter};
use std::collections::HashSet;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;

/// Exports streaming at once, from every caller.
pub(crate) const MAX_EXPORTS: usize = 64;

/// Games a second an export streams: to anyone, to a signed-in player, to
/// a player exporting their own games.
pub(crate) const ANONYMOUS_RATE: u32 = 20;
pub(crate) const SIGNED_IN_RATE: u32 = 30;
pub(crate) const OWN_RATE: u32 = 60;

/// The callers whose exports stream now.
#[derive(Default)]
pub(crate) struct Exports {
    running: Mutex<HashSet<String>>,
}

/// An export under way: its caller's place, given back when dropped (the
/// stream ended or the client went away).
pub(crate) struct Running {
    exports: Arc<Exports>,
    caller: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        let mut running = self
            .exports
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        running.remove(&self.caller);
    }
}

impl Exports {
    /// A place for an export of `caller` (a player's id, or a client's
    /// address); 429 while one of theirs streams, 503 at [`MAX_EXPORTS`].
    pub(crate) fn start(self: &Arc<Exports>, caller: String) -> Result<Running, ApiError> {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if running.contains(&caller) {
            return Err(ApiError::new(
                ErrorCode::RateLimited,
                "an export of yours is streaming: one export a caller at a time, retry once it ends",
            )
            .retry_after(1));
        }
        if running.len() >= MAX_EXPORTS {
            return Err(ApiError::new(
                ErrorCode::Overloaded,
                format!(
                    "{MAX_EXPORTS} exports are streaming, as many as run at once: retry shortly"
                ),
            )
            .retry_after(1));
        }
        running.insert(caller.clone());
        Ok(Running {
            exports: self.clone(),
            caller,
        })
    }
}

/// How long after an export's start its game `index` (from 0) may be
/// sent, at `rate` games a second.
pub(crate) fn due(index: u64, rate: u32) -> Duration {
    let rate = u64::from(rate.max(1));
    Duration::from_millis(index.saturating_mul(1_000) / rate)
}

/// Who `caller` is to the exports' places, and the rate their export of
/// `owner`'s games streams at (no owner: games of anyone, a leaderboard's
/// or a day's): a signed-in player by their id, 60 a second for their
/// own games and 30 for others'; anyone else by their address, 20.
pub(crate) fn pace(caller: &Caller, owner: Option<&str>) -> (String, u32) {
    match caller.player_id() {
        Some(me) if owner == Some(me) => (me.to_owned(), OWN_RATE),
        Some(me) => (me.to_owned(), SIGNED_IN_RATE),
        None => (caller.address.to_string(), ANONYMOUS_RATE),
    }
}

/// The refusal, where games are private, of an export that holds other
/// players' games (`whose`: "a leaderboard's", "a day's"), pointing to
/// the caller's own export narrowed as `narrowed` says.
pub(crate) fn private_games(whose: &str, narrowed: &str) -> ApiError {
    ApiError::new(
        ErrorCode::NotYourGame,
        format!(
            "games are private here, and {whose} games are other players' too: export your own \
             with /v1/players/me/games/export{narrowed}"
        ),
    )
}

/// The archived games `filter` wants, newest first, as NDJSON at `rate`
/// games a second, in `caller`'s place (429 while another export of
/// theirs streams, 503 at [`MAX_EXPORTS`]). The archive away is a 503
/// before the answer starts; a failure midway cuts the stream short.
pub(crate) async fn stream(
    archives: &Archives,
    filter: Filter,
    caller: String,
    rate: u32,
) -> Result<Response, ApiError> {
    let running = archives.exports.start(caller)?;
    let archive = archives.archive().await.map_err(unavailable)?.clone();
    // Fused: after an empty first read the stream is asked again, and an
    // export that ended must say so again rather than panic.
    // Fused too: an empty first read is asked again by the body's first
    // line.
    let mut games: Games = Box::pin(archive.export(filter).fuse());
    // The first game read before the answer starts: an archive away is a
    // 503, not a 200 cut short.
    let first = match games.next().await {
        Some(Err(e)) => return Err(unavailable(e)),
        first => first,
    };
    let paced = Paced {
        games,
        first,
        sent: 0,
        rate,
        start: Instant::now(),
        _running: running,
    };
    // Fused: the compression layer reads a body once more after its end,
    // which an unfused stream would answer with a panic.
    let body = Body::from_stream(futures_util::stream::unfold(paced, Paced::next).fuse());
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], body).into_response())
}

type Games = Pin<Box<dyn Stream<Item = Result<ArchivedGame, ArchiveError>> + Send>>;

/// An export streaming: the games left, the game read ahead, how many
/// were sent, at what pace, and the caller's place.
struct Paced {
    games: Games,
    first: Option<Result<ArchivedGame, ArchiveError>>,
    sent: u64,
    rate: u32,
    start: Instant,
    _running: Running,
}

impl Paced {
    /// The next line, once its time has come; an error ends the stream
    /// with an error, so the client sees the export cut short.
    async fn next(mut self) -> Option<(Result<Bytes, std::io::Error>, Paced)> {
        let game = match self.first.take() {
            Some(game) => game,
            None => self.games.next().await?,
        };
        tokio::time::sleep_until(self.start + due(self.sent, self.rate)).await;
        let line = match game {
            Ok(game) => linkpath_api::games::export_line(&game)
                .map_err(|e| format!("game {}…: {e}", crate::games::errors::short(&game.id))),
            Err(e) => Err(e.to_string()),
        };
        match line {
            Ok(line) => {
                self.sent += 1;
                Some((Ok(Bytes::from(line)), self))
            }
            Err(e) => {
                tracing::error!(error = %e, sent = self.sent, "an export stopped midway");
                Some((Err(std::io::Error::other(e)), self.end()))
            }
        }
    }

    /// The stream after an error: nothing more.
    fn end(mut self) -> Paced {
        self.games = Box::pin(futures_util::stream::empty());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_paced_at_the_rate() {
        assert_eq!(due(0, ANONYMOUS_RATE), Duration::ZERO);
        assert_eq!(due(1, ANONYMOUS_RATE), Duration::from_millis(50));
        assert_eq!(due(20, ANONYMOUS_RATE), Duration::from_secs(1));
        assert_eq!(due(30, SIGNED_IN_RATE), Duration::from_secs(1));
        assert_eq!(due(90, OWN_RATE), Duration::from_millis(1_500));
    }

    #[test]
    fn one_export_a_caller_at_a_time() {
        let exports = Arc::new(Exports::default());
        let first = exports.start("p1".to_owned()).unwrap();
        let again = exports.start("p1".to_owned()).err().unwrap();
        assert_eq!(
            (again.code, again.retry_after),
            (ErrorCode::RateLimited, Some(1))
        );
        let other = exports.start("p2".to_owned()).unwrap();
        drop(first);
        let _after = exports.start("p1".to_owned()).unwrap();
        drop(other);
        let held: Vec<Running> = (0..MAX_EXPORTS - 1)
            .map(|n| exports.start(format!("c{n}")).unwrap())
            .collect();
        let full = exports.start("late".to_owned()).err().unwrap();
        assert_eq!(full.code, ErrorCode::Overloaded);
        drop(held);
        assert!(exports.start("late".to_owned()).is_ok());
    }
}
