//! `GET /v1/players/me`: the player the token proves.

use crate::error::HttpError;
use crate::players::caller::Caller;
use axum::http::StatusCode;
use axum::response::Response;
use linkpath_api::players::PlayerView;

/// The player the token proves.
#[utoipa::path(get, path = "/v1/players/me", operation_id = "getMe", tag = "players",
    responses(
        (status = 200, description = "The player", body = PlayerView),
        (status = 401, description = "No token, or one not known", body = linkpath_api::ErrorBody)))]
pub(crate) async fn me(caller: Caller) -> Result<Response, HttpError> {
    let me = caller.signed_in()?;
    let view = PlayerView::new(&me.player);
    Ok(super::private_json(
        StatusCode::OK,
        linkpath_api::encode(&view)?,
    ))
}
