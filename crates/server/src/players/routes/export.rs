//! `GET /v1/players/{id}/games/export`: a player's archived games as
//! NDJSON, one game a line with its replay and result, newest first,
//! streamed from the archive a batch at a time (its memory is one batch,
//! however many games), paced as lichess paces its exports: 20 games a
//! second to anyone, 30 to a signed-in player, 60 to a player exporting
//! their own; one export a caller at a time.

use crate::archive::export::{ANONYMOUS_RATE, OWN_RATE, Running, SIGNED_IN_RATE, due};
use crate::archive::{Archives, unavailable};
use crate::error::HttpError;
use crate::path::PathParam;
use crate::players::Caller;
use crate::players::service::Players;
use axum::body::{Body, Bytes};
use axum::extract::{RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures_util::{Stream, StreamExt};
use linkpath_archive::{ArchiveError, ArchivedGame};
use std::pin::Pin;
use std::sync::Arc;
use tokio::time::Instant;

/// A player's archived games, newest first, as NDJSON.
#[utoipa::path(get, path = "/v1/players/{id}/games/export", operation_id = "exportPlayerGames", tag = "players",
    params(
        ("id" = String, Path, description = "The player's id, or `me` for the signed-in player", pattern = r"^([0-9a-f]{32}|me)$"),
        ("since" = Option<String>, Query, format = DateTime, description = "Only games finished at or after this time (RFC 3339, any offset)"),
        ("until" = Option<String>, Query, format = DateTime, description = "Only games finished before this time (RFC 3339, any offset)"),
        ("max" = Option<u64>, Query, description = "The most games streamed", minimum = 1, maximum = 9223372036854775807_u64),
        ("status" = Option<String>, Query, description = "Only games that ended so: `won`, `out_of_time`, `resigned` or `race_over`"),
        ("rated" = Option<bool>, Query, description = "Only the rated games, or only the others"),
        ("leaderboard" = Option<String>, Query, description = "Only games on this leaderboard", pattern = r"^[0-9a-f]{32}$"),
        ("match" = Option<String>, Query, description = "Only the race of this match", pattern = r"^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "One archived game a line, newest first (none for a player with none, or not known), paced at 20 games a second, 30 to a signed-in player, 60 to the player themself; a stream cut short means the archive failed midway", body = linkpath_api::games::ExportedGame, content_type = "application/x-ndjson"),
        (status = 401, description = "`me` without a player's token", body = linkpath_api::ErrorBody),
        (status = 403, description = "Games are private here, and these are another player's", body = linkpath_api::ErrorBody),
        (status = 422, description = "An id or a query parameter that is not one, named in `field`", body = linkpath_api::ErrorBody),
        (status = 429, description = "An export of the caller's is streaming already", body = linkpath_api::ErrorBody),
        (status = 503, description = "The archive is unavailable (`Retry-After`), or as many exports stream as run at once", body = linkpath_api::ErrorBody)))]
pub(crate) async fn export(
    State(archives): State<Arc<Archives>>,
    State(players): State<Arc<Players>>,
    PathParam(id): PathParam<String>,
    RawQuery(query): RawQuery,
    caller: Caller,
) -> Result<Response, HttpError> {
    let player = super::whose_games(&id, &caller, players.private_games, "exported")?;
    let filter = linkpath_api::games::read_export_query(player, query.as_deref())?;
    let (who, rate) = match caller.player_id() {
        Some(me) if me == player => (me.to_owned(), OWN_RATE),
        Some(me) => (me.to_owned(), SIGNED_IN_RATE),
        None => (caller.address.to_string(), ANONYMOUS_RATE),
    };
    let running = archives.exports.start(who)?;
    let archive = archives.archive().await.map_err(unavailable)?.clone();
    // Fused: after an empty first read the stream is asked again, and an
    // export that ended must say so again rather than panic.
    // Fused too: an empty first read is asked again by the body's first
    // line.
    let mut games: Games = Box::pin(archive.export(filter).fuse());
    // The first game read before the answer starts: an archive away is a
    // 503, not a 200 cut short.
    let first = match games.next().await {
        Some(Err(e)) => return Err(unavailable(e).into()),
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
        let line = game
            .map_err(|e| e.to_string())
            .and_then(|game| linkpath_api::games::export_line(&game));
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
