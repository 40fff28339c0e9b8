//! `GET /v1/games/{id}/replay`: the game as it was dealt and played.

use crate::archive::Archives;
use crate::error::HttpError;
use crate::games::service::Games;
use crate::path::PathParam;
use crate::players::Caller;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use linkpath_api::ErrorCode;
use linkpath_api::games::Replay;
use std::sync::Arc;

/// The dealt board, the settings and every action with its time. A
/// paused game's replay is hidden as its board is: it would show the
/// board the pause hides. A finished game gone from the live store is
/// read from the archive.
#[utoipa::path(get, path = "/v1/games/{id}/replay", operation_id = "getReplay", tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    responses(
        (status = 200, description = "The game's replay", body = Replay),
        (status = 401, description = "Where games are private, a player's game and no token sent", body = linkpath_api::ErrorBody),
        (status = 403, description = "Where games are private, another player's game (`not_your_game`)", body = linkpath_api::ErrorBody),
        (status = 404, description = "No such game, or it expired and is not archived", body = linkpath_api::ErrorBody),
        (status = 409, description = "The game is paused: its replay is hidden until `resume`", body = linkpath_api::ErrorBody),
        (status = 422, description = "An id that is not UTF-8 once percent-decoded", body = linkpath_api::ErrorBody),
        (status = 503, description = "The game is gone from the live store and the archive is unavailable (`store_unavailable`)", body = linkpath_api::ErrorBody)))]
pub(crate) async fn replay(
    State(games): State<Arc<Games>>,
    State(archives): State<Arc<Archives>>,
    PathParam(id): PathParam<String>,
    caller: Caller,
) -> Result<Response, HttpError> {
    let now = games.now();
    let (json, version) = match games.replay(&id, caller.player_id(), now).await {
        Ok((replay, version)) => (linkpath_api::encode(&replay)?, version),
        Err(gone) if gone.code == ErrorCode::GameNotFound => {
            let private = games.private_games;
            match archives.replay(&id, private, caller.player_id()).await? {
                Some(archived) => archived,
                None => return Err(gone.into()),
            }
        }
        Err(e) => return Err(e.into()),
    };
    Ok(super::respond(StatusCode::OK, Some(version), None, json))
}
