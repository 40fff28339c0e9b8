//! `DELETE /v1/players/me`: the player leaves and takes its name along.

use crate::error::HttpError;
use crate::players::caller::Caller;
use crate::players::service::Players;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// Erases the player the token proves: its account, its token and its
/// leaderboard entries go at once; its games stay, with no name, until
/// they expire.
#[utoipa::path(delete, path = "/v1/players/me", operation_id = "eraseMe", tag = "players",
    responses(
        (status = 204, description = "Erased; the token is refused from now on"),
        (status = 401, description = "No token, or one not known", body = linkpath_api::ErrorBody)))]
pub(crate) async fn erase(
    State(players): State<Arc<Players>>,
    caller: Caller,
) -> Result<Response, HttpError> {
    let me = caller.signed_in()?;
    players.erase(me, players.now()).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
