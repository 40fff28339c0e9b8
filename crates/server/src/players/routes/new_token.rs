//! `POST /v1/players/me/token`: a new token for the player; the one sent
//! is refused from the moment this answers.

use crate::error::{ErrorCode, HttpError};
use crate::players::caller::Caller;
use crate::players::service::Players;
use axum::extract::State;
use axum::response::Response;
use linkpath_api::ApiError;
use linkpath_api::players::SignedUp;
use std::sync::Arc;

/// Issues the player a new token and revokes the old. A player a studio
/// signs in has no token of linkpath's to replace.
#[utoipa::path(post, path = "/v1/players/me/token", operation_id = "newToken", tag = "players",
    responses(
        (status = 201, description = "The player and its new token, shown this once", body = SignedUp),
        (status = 401, description = "No token, or one not known", body = linkpath_api::ErrorBody),
        (status = 409, description = "A player a studio signs in, which has no token", body = linkpath_api::ErrorBody)))]
pub(crate) async fn new_token(
    State(players): State<Arc<Players>>,
    caller: Caller,
) -> Result<Response, HttpError> {
    let me = caller.signed_in()?;
    if me.player.studio.is_some() {
        return Err(ApiError::new(
            ErrorCode::ActionRefused,
            "this player is signed in by its studio's JWT and has no token to replace",
        )
        .into());
    }
    let (player, token) = players.new_token(me, players.now()).await?;
    Ok(super::signed_up(&player, token)?)
}
