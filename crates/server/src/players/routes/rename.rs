//! `PATCH /v1/players/me`: a new name. Leaderboards show it at once: they
//! read a player's name when they are read.

use crate::body::JsonBody;
use crate::error::HttpError;
use crate::players::caller::Caller;
use crate::players::service::Players;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use linkpath_api::Limits;
use linkpath_api::players::{PlayerName, PlayerView};
use std::sync::Arc;

/// Renames the player the token proves.
#[utoipa::path(patch, path = "/v1/players/me", operation_id = "renameMe", tag = "players",
    request_body(content = PlayerName, example = json!({"name": "Ann Lee"})),
    responses(
        (status = 200, description = "The player, renamed", body = PlayerView),
        (status = 401, description = "No token, or one not known", body = linkpath_api::ErrorBody),
        (status = 422, description = "A name that is not one, named in `field`", body = linkpath_api::ErrorBody)))]
pub(crate) async fn rename(
    State(players): State<Arc<Players>>,
    State(limits): State<Limits>,
    caller: Caller,
    body: JsonBody,
) -> Result<Response, HttpError> {
    let me = caller.signed_in()?;
    let name = PlayerName::read(&body, &limits)?;
    let player = players.rename(me, name, players.now()).await?;
    let view = PlayerView::new(&player);
    Ok(super::private_json(
        StatusCode::OK,
        linkpath_api::encode(&view)?,
    ))
}
