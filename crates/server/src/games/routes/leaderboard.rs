//! `GET /v1/leaderboards/{name}`: a page of a board's best players, read
//! from the store with each player's name now. A win is entered by the
//! move that makes it, in the same write.

use crate::error::HttpError;
use crate::games::service::Games;
use crate::path::PathParam;
use crate::players::{Caller, Players};
use axum::extract::{RawQuery, State};
use axum::response::Response;
use linkpath_api::games::{Leaderboard, Listed};
use std::collections::HashMap;
use std::sync::Arc;

/// A page of a board's best players, best first.
#[utoipa::path(get, path = "/v1/leaderboards/{name}", operation_id = "getLeaderboard", tag = "games",
    params(
        ("name" = String, Path, description = "The board, as a game's or a daily deal's `leaderboard` names it", pattern = r"^[0-9a-f]{32}$"),
        ("limit" = Option<u32>, Query, description = "Entries answered, from 1 to the board size (100 by default); 10 when absent", minimum = 1, maximum = 1000),
        ("after" = Option<String>, Query, description = "The `next` of the page before: the page after it"),
        ("around" = Option<String>, Query, description = "`me`: the page with the signed-in player's entry in its middle (the top if the player has none); needs the player's token", pattern = "^me$")),
    responses(
        (status = 200, description = "The page; no entries for a board with no win yet, or expired", body = Leaderboard),
        (status = 401, description = "`around=me` without a player's token", body = linkpath_api::ErrorBody),
        (status = 422, description = "A name, limit or cursor that is not one, named in `field`", body = linkpath_api::ErrorBody),
        (status = 503, description = "The store is unavailable", body = linkpath_api::ErrorBody)))]
pub(crate) async fn leaderboard(
    State(games): State<Arc<Games>>,
    State(players): State<Arc<Players>>,
    PathParam(name): PathParam<String>,
    RawQuery(query): RawQuery,
    caller: Caller,
) -> Result<Response, HttpError> {
    let board = linkpath_api::games::read_board(&name)?;
    let query = linkpath_api::games::read_board_query(query.as_deref(), games.board_size)?;
    let now = games.now();
    let (page, more) = games
        .leaderboard(board, query, caller.player_id(), now)
        .await?;
    let ids: Vec<String> = page.entries.iter().map(|e| e.player.clone()).collect();
    let names: HashMap<&str, String> = ids
        .iter()
        .map(String::as_str)
        .zip(players.names(&ids, now).await?)
        .filter_map(|(id, name)| Some((id, name?)))
        .collect();
    let listed = page.entries.iter().enumerate().map(|(i, entry)| Listed {
        place: page.position + i as u64,
        rank: &entry.rank,
        player: &entry.player,
        body: &entry.body,
    });
    let answer: Leaderboard =
        linkpath_api::games::leaderboard(board, listed, |id| names.get(id).cloned(), more)?;
    Ok(super::plain_json(linkpath_api::encode(&answer)?))
}
