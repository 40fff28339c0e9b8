//! `/v1/players`: signing up, a player's own account (`me`), and a
//! player's games; one route a file. The middleware (`caller.rs`) has
//! told who sent the request before any of them runs.

pub(crate) mod erase;
pub(crate) mod export;
pub(crate) mod games;
pub(crate) mod me;
pub(crate) mod new_token;
pub(crate) mod rename;
pub(crate) mod sign_up;

use super::service::Players;
use crate::body::BodyLimits;
use crate::games::Games;
use crate::solvers::Solvers;
use axum::Router;
use axum::extract::FromRef;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use linkpath_api::players::{Player, PlayerView, SignedUp};
use linkpath_api::{ApiError, Limits};
use std::sync::Arc;

/// The routes; they take the players, the games for a player's games,
/// the archive for their export, and their bodies the body limits.
pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<Players>: FromRef<S>,
    Arc<Games>: FromRef<S>,
    Arc<crate::archive::Archives>: FromRef<S>,
    Limits: FromRef<S>,
    Solvers: FromRef<S>,
    BodyLimits: FromRef<S>,
{
    Router::new()
        .route("/v1/players", post(sign_up::sign_up))
        .route(
            "/v1/players/me",
            get(me::me).patch(rename::rename).delete(erase::erase),
        )
        .route("/v1/players/me/token", post(new_token::new_token))
        .route("/v1/players/{id}/games", get(games::games))
        .route("/v1/players/{id}/games/export", get(export::export))
}

/// A player with its new token, shown this once: `201 Created`.
fn signed_up(player: &Player, token: String) -> Result<Response, ApiError> {
    let answer = SignedUp {
        player: PlayerView::new(player),
        token,
    };
    Ok(private_json(
        StatusCode::CREATED,
        linkpath_api::encode(&answer)?,
    ))
}

/// A JSON answer that holds a secret or a player's own account: never
/// kept by a cache on the way.
fn private_json(status: StatusCode, json: Vec<u8>) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        json,
    )
        .into_response()
}

/// The player whose games a request names by `id` (`me`: the caller, who
/// must be signed in); where games are private (`private`), the caller
/// alone may read them, refused otherwise saying they are `shown` (listed,
/// exported) to the player alone.
pub(crate) fn whose_games<'a>(
    id: &'a str,
    caller: &'a crate::players::Caller,
    private: bool,
    shown: &str,
) -> Result<&'a str, ApiError> {
    let player = match id {
        "me" => caller.signed_in()?.id(),
        id => linkpath_api::players::read_id(id)?,
    };
    if private && caller.player_id() != Some(player) {
        return Err(ApiError::new(
            linkpath_api::ErrorCode::NotYourGame,
            format!("games are private here: a player's games are {shown} to the player alone"),
        ));
    }
    Ok(player)
}
