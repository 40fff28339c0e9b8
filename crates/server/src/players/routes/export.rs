//! `GET /v1/players/{id}/games/export`: a player's archived games as
//! NDJSON, one game a line with its replay and result, newest first,
//! streamed as every export is (`archive/export.rs`), paced as lichess
//! paces its exports: 20 games a second to anyone, 30 to a signed-in
//! player, 60 to a player exporting their own; one export a caller at a
//! time.

use crate::archive::Archives;
use crate::archive::export::{pace, stream};
use crate::error::HttpError;
use crate::path::PathParam;
use crate::players::Caller;
use crate::players::service::Players;
use axum::extract::{RawQuery, State};
use axum::response::Response;
use linkpath_archive::Filter;
use std::sync::Arc;

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
    let players_games = Filter {
        player: Some(player.to_owned()),
        ..Filter::default()
    };
    let filter = linkpath_api::games::read_export_query(
        players_games,
        &linkpath_api::games::PLAYER_EXPORT,
        query.as_deref(),
    )?;
    let (who, rate) = pace(&caller, Some(player));
    Ok(stream(&archives, filter, who, rate).await?)
}
