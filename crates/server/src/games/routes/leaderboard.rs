//! `GET /v1/leaderboards/{name}`: a board's best won games, read from the
//! store. A win is entered by the move that makes it, in the same write.

use crate::error::HttpError;
use crate::games::service::Games;
use crate::path::PathParam;
use axum::extract::{RawQuery, State};
use axum::response::Response;
use linkpath_api::games::Leaderboard;
use std::sync::Arc;

/// A board's best won games, best first.
#[utoipa::path(get, path = "/v1/leaderboards/{name}", operation_id = "getLeaderboard", tag = "games",
    params(
        ("name" = String, Path, description = "The board, as a game's or a daily deal's `leaderboard` names it", pattern = r"^[0-9a-f]{32}$"),
        ("limit" = Option<u32>, Query, description = "Entries answered, from 1 to the board size (100 by default); 10 when absent", minimum = 1, maximum = 1000)),
    responses(
        (status = 200, description = "The board's best entries; none for a board with no win yet, or expired", body = Leaderboard),
        (status = 422, description = "A name or limit that is not one, named in `field`", body = linkpath_api::ErrorBody),
        (status = 503, description = "The store is unavailable", body = linkpath_api::ErrorBody)))]
pub(crate) async fn leaderboard(
    State(games): State<Arc<Games>>,
    PathParam(name): PathParam<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, HttpError> {
    let board = linkpath_api::games::read_board(&name)?;
    let limit = linkpath_api::games::read_limit(query.as_deref(), games.board_size)?;
    let answer = games.leaderboard(board, limit, games.now()).await?;
    Ok(super::plain_json(linkpath_api::encode(&answer)?))
}
