//! `GET /v1/leaderboards/{name}/games/export`: the archived games played
//! on a leaderboard as NDJSON, one game a line with its replay and result,
//! newest first, streamed as every export is (`archive/export.rs`): 20
//! games a second to anyone, 30 to a signed-in player; one export a
//! caller at a time. They are other players' games too, so where games
//! are private the export is refused.

use crate::archive::Archives;
use crate::archive::export::{pace, private_games, stream};
use crate::error::HttpError;
use crate::path::PathParam;
use crate::players::{Caller, Players};
use axum::extract::{RawQuery, State};
use axum::response::Response;
use linkpath_archive::Filter;
use std::sync::Arc;

/// A leaderboard's archived games, newest first, as NDJSON.
#[utoipa::path(get, path = "/v1/leaderboards/{name}/games/export", operation_id = "exportLeaderboardGames", tag = "games",
    params(
        ("name" = String, Path, description = "The board, as a game's or a daily deal's `leaderboard` names it", pattern = r"^[0-9a-f]{32}$"),
        ("since" = Option<String>, Query, format = DateTime, description = "Only games finished at or after this time (RFC 3339, any offset)"),
        ("until" = Option<String>, Query, format = DateTime, description = "Only games finished before this time (RFC 3339, any offset)"),
        ("max" = Option<u64>, Query, description = "The most games streamed", minimum = 1, maximum = 9223372036854775807_u64),
        ("status" = Option<String>, Query, description = "Only games that ended so: `won`, `out_of_time`, `resigned` or `race_over`"),
        ("rated" = Option<bool>, Query, description = "Only the rated games, or only the others"),
        ("match" = Option<String>, Query, description = "Only the race of this match", pattern = r"^[0-9a-f]{32}$"),
        ("player" = Option<String>, Query, description = "Only this player's games, by id", pattern = r"^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "One archived game a line, newest first (none for a board with none, or not known), paced at 20 games a second, 30 to a signed-in player; a stream cut short means the archive failed midway", body = linkpath_api::games::ExportedGame, content_type = "application/x-ndjson"),
        (status = 403, description = "Games are private here, and a board's are other players' too: export your own from `/v1/players/me/games/export?leaderboard=NAME`", body = linkpath_api::ErrorBody),
        (status = 422, description = "A name or a query parameter that is not one, named in `field`", body = linkpath_api::ErrorBody),
        (status = 429, description = "An export of the caller's is streaming already", body = linkpath_api::ErrorBody),
        (status = 503, description = "The archive is unavailable (`Retry-After`), or as many exports stream as run at once", body = linkpath_api::ErrorBody)))]
pub(crate) async fn export(
    State(archives): State<Arc<Archives>>,
    State(players): State<Arc<Players>>,
    PathParam(name): PathParam<String>,
    RawQuery(query): RawQuery,
    caller: Caller,
) -> Result<Response, HttpError> {
    let board = linkpath_api::games::read_board(&name)?;
    if players.private_games {
        return Err(private_games("a leaderboard's", &format!("?leaderboard={board}")).into());
    }
    let boards_games = Filter {
        leaderboard: Some(board.to_owned()),
        ..Filter::default()
    };
    let filter = linkpath_api::games::read_export_query(
        boards_games,
        &linkpath_api::games::LEADERBOARD_EXPORT,
        query.as_deref(),
    )?;
    let (who, rate) = pace(&caller, None);
    Ok(stream(&archives, filter, who, rate).await?)
}
