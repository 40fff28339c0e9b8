//! `GET /v1/games/{id}`: the game as it is now.

use crate::error::HttpError;
use crate::games::service::Games;
use crate::path::PathParam;
use crate::players::Caller;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use linkpath_api::games::GameView;
use std::sync::Arc;

/// The game as it is now; a game whose time ran out is ended first.
#[utoipa::path(get, path = "/v1/games/{id}", operation_id = "getGame", tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    responses(
        (status = 200, description = "The game, `ETag` its version", body = GameView),
        (status = 401, description = "Where games are private, a player's game and no token sent", body = linkpath_api::ErrorBody),
        (status = 403, description = "Where games are private, another player's game (`not_your_game`)", body = linkpath_api::ErrorBody),
        (status = 404, description = "No such game, or it expired", body = linkpath_api::ErrorBody),
        (status = 422, description = "An id that is not UTF-8 once percent-decoded", body = linkpath_api::ErrorBody)))]
pub(crate) async fn show(
    State(games): State<Arc<Games>>,
    PathParam(id): PathParam<String>,
    caller: Caller,
) -> Result<Response, HttpError> {
    let now = games.now();
    let (game, expires) = games.read(&id, caller.player_id(), now).await?;
    let view = GameView::new(&game, now, expires);
    let json = linkpath_api::encode(&view)?;
    Ok(super::respond(
        StatusCode::OK,
        Some(view.version),
        None,
        json,
    ))
}
