//! `POST /v1/replays`: plays a replay again; stores nothing.

use crate::body::JsonBody;
use crate::error::HttpError;
use crate::games::service::Games;
use axum::extract::State;
use axum::response::Response;
use linkpath_api::games::{Replay, ReplayCheck};
use std::sync::Arc;

/// Plays a replay again and answers where it ends; stores nothing.
#[utoipa::path(post, path = "/v1/replays", operation_id = "checkReplay", tag = "games",
    request_body = Replay,
    responses(
        (status = 200, description = "The game the replay comes to", body = ReplayCheck),
        (status = 422, description = "An action the game would have refused, named in `field`", body = linkpath_api::ErrorBody)))]
pub(crate) async fn check_replay(
    State(games): State<Arc<Games>>,
    body: JsonBody,
) -> Result<Response, HttpError> {
    let check = games.check_replay(body).await?;
    Ok(super::plain_json(linkpath_api::encode(&check)?))
}
