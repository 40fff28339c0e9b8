//! `POST /v1/players`: a new player, with its token shown this once.

use crate::body::JsonBody;
use crate::error::{ErrorCode, HttpError};
use crate::metrics;
use crate::players::caller::Caller;
use crate::players::service::Players;
use axum::extract::State;
use axum::response::Response;
use linkpath_api::players::{PlayerName, SignedUp};
use linkpath_api::{ApiError, Limits};
use std::sync::Arc;

/// Signs up a new player. Not idempotent: the answer holds a secret the
/// server does not keep, so a retry makes another player (a guest more,
/// harmless; the first is erased in time, as an idle player is).
#[utoipa::path(post, path = "/v1/players", operation_id = "signUp", tag = "players",
    request_body(content = PlayerName, example = json!({"name": "Ann"})),
    responses(
        (status = 201, description = "The player and its token, shown this once", body = SignedUp),
        (status = 401, description = "Guest sign-up is off here and no API key was sent", body = linkpath_api::ErrorBody),
        (status = 422, description = "A name that is not one, named in `field`", body = linkpath_api::ErrorBody),
        (status = 429, description = "This address signed up as many players this hour as one may (`LINKPATH_SIGN_UPS_PER_HOUR`)", body = linkpath_api::ErrorBody),
        (status = 503, description = "The store holds as many players as allowed, or is unavailable", body = linkpath_api::ErrorBody)))]
pub(crate) async fn sign_up(
    State(players): State<Arc<Players>>,
    State(limits): State<Limits>,
    caller: Caller,
    body: JsonBody,
) -> Result<Response, HttpError> {
    if !players.guest_sign_up && !caller.service {
        metrics::record_player_refusal("sign_up");
        return Err(ApiError::new(
            ErrorCode::Unauthorized,
            "signing up takes a service's API key here: guest sign-up is off",
        )
        .into());
    }
    let name = PlayerName::read(&body, &limits)?;
    if let Err(seconds) = players.sign_ups.allows(caller.address) {
        metrics::record_player_refusal("sign_up_rate");
        return Err(ApiError::new(
            ErrorCode::RateLimited,
            "this address signed up as many players this hour as one may; retry after the time in Retry-After",
        )
        .retry_after(seconds)
        .into());
    }
    let (player, token) = players.sign_up(name, players.now()).await?;
    players.sign_ups.count(caller.address);
    Ok(super::signed_up(&player, token)?)
}
