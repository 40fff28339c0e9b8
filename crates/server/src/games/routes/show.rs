//! `GET /v1/games/{id}`: the game as it is now. A client that holds a
//! version asks again with `If-None-Match` and gets `304` until the game
//! changes; the clock runs on meanwhile, so a kept copy's `elapsed_ms` is
//! as of when it was read.

use crate::cached::none_match;
use crate::error::HttpError;
use crate::games::service::Games;
use crate::path::PathParam;
use crate::players::Caller;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use linkpath_api::games::GameView;
use std::sync::Arc;

/// The game as it is now; a game whose time ran out is ended first.
#[utoipa::path(get, path = "/v1/games/{id}", operation_id = "getGame", tag = "games",
    params(("id" = String, Path, description = "The game's id"),
        ("If-None-Match" = Option<String>, Header, description = "The `ETag` of the copy held; 304 while the game is at that version")),
    responses(
        (status = 200, description = "The game, `ETag` its version", body = GameView),
        (status = 304, description = "Not modified: `If-None-Match` named the game's `ETag`; the clock ran on since"),
        (status = 401, description = "Where games are private, a player's game and no token sent", body = linkpath_api::ErrorBody),
        (status = 403, description = "Where games are private, another player's game (`not_your_game`)", body = linkpath_api::ErrorBody),
        (status = 404, description = "No such game, or it expired", body = linkpath_api::ErrorBody),
        (status = 422, description = "An id that is not UTF-8 once percent-decoded", body = linkpath_api::ErrorBody)))]
pub(crate) async fn show(
    State(games): State<Arc<Games>>,
    PathParam(id): PathParam<String>,
    caller: Caller,
    request: HeaderMap,
) -> Result<Response, HttpError> {
    let now = games.now();
    let (game, expires) = games.read(&id, caller.player_id(), now).await?;
    // Every copy is checked again: a game changes with every action.
    let no_cache = (header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    let etag = super::etag(game.version);
    if none_match(&request, &etag) {
        return Ok((StatusCode::NOT_MODIFIED, [(header::ETAG, etag), no_cache]).into_response());
    }
    let view = GameView::new(&game, now, expires);
    let json = linkpath_api::encode(&view)?;
    let mut response = super::respond(StatusCode::OK, Some(view.version), None, json);
    response.headers_mut().insert(no_cache.0, no_cache.1);
    Ok(response)
}
