//! `GET /v1/players/{id}/games`: a player's games, newest first, a page
//! at a time, each with its replay's link: those the live store holds
//! and those kept in the archive, as one list. Open to anyone, as the
//! games are, unless games are private: then to the player alone.

use crate::archive::Archives;
use crate::error::HttpError;
use crate::games::Games;
use crate::path::PathParam;
use crate::players::Caller;
use crate::players::service::Players;
use axum::extract::{RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use linkpath_api::games::PlayerGames;
use std::sync::Arc;

/// A player's games, newest first: the live store's and the archive's.
#[utoipa::path(get, path = "/v1/players/{id}/games", operation_id = "getPlayerGames", tag = "players",
    params(
        ("id" = String, Path, description = "The player's id, or `me` for the signed-in player", pattern = r"^([0-9a-f]{32}|me)$"),
        ("limit" = Option<u32>, Query, description = "Games answered, 1 to 100; 20 when absent", minimum = 1, maximum = 100),
        ("after" = Option<String>, Query, description = "The `next` of the page before: the page after it"),
        ("status" = Option<linkpath_api::games::Status>, Query, description = "Only games that stand so"),
        ("leaderboard" = Option<String>, Query, description = "Only games on this leaderboard", pattern = r"^[0-9a-f]{32}$"),
        ("since" = Option<String>, Query, format = DateTime, description = "Only games created at or after this time (RFC 3339, any offset)"),
        ("until" = Option<String>, Query, format = DateTime, description = "Only games created before this time (RFC 3339, any offset)")),
    responses(
        (status = 200, description = "A page of the player's games, newest created first, from the games held and the finished games archived; none for a player who has none, or is not known", body = PlayerGames),
        (status = 401, description = "`me` without a player's token", body = linkpath_api::ErrorBody),
        (status = 403, description = "Games are private here, and these are another player's", body = linkpath_api::ErrorBody),
        (status = 422, description = "An id or a query parameter that is not one, named in `field`", body = linkpath_api::ErrorBody),
        (status = 503, description = "The store or the archive is unavailable (`Retry-After`)", body = linkpath_api::ErrorBody)))]
pub(crate) async fn games(
    State(games): State<Arc<Games>>,
    State(archives): State<Arc<Archives>>,
    State(players): State<Arc<Players>>,
    PathParam(id): PathParam<String>,
    RawQuery(query): RawQuery,
    caller: Caller,
) -> Result<Response, HttpError> {
    let player = super::whose_games(&id, &caller, players.private_games, "listed")?;
    let query = linkpath_api::games::read_games_query(query.as_deref())?;
    // Both read for the same query and cursor, at once; the merge keeps
    // what both were read far enough to order.
    let (live, archived) = tokio::try_join!(
        games.player_games(player, &query, games.now()),
        archives.player_games(player, &query),
    )?;
    let page = linkpath_api::games::merge(live, archived, query.limit);
    let json = linkpath_api::encode(&page)?;
    Ok(([(header::CONTENT_TYPE, "application/json")], json).into_response())
}
