//! `POST /v1/games`: creates a game, dealt or on the board sent.

use super::keys;
use crate::body::JsonBody;
use crate::error::HttpError;
use crate::games::service::Games;
use crate::players::Caller;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use linkpath_api::games::{CreateGame, GameView};
use std::sync::Arc;

/// Creates a game, dealt or on the board sent: the player's, with a
/// player's token, else anyone's who has its id.
#[utoipa::path(post, path = "/v1/games", operation_id = "createGame", tag = "games",
    request_body(content = CreateGame, example = json!({"width": 18, "height": 8, "types": 36, "rules": "shisen-sho", "seed": 7, "time_limit_ms": 480000})),
    params(("Idempotency-Key" = Option<String>, Header, description = "Answers a retry with the first answer; kept 24 h by default.")),
    responses(
        (status = 201, description = "The game, with `Location` and `ETag`", body = GameView),
        (status = 429, description = "The player holds as many games as one may (`quota_exceeded`)", body = linkpath_api::ErrorBody),
        (status = 503, description = "The store holds as many games as allowed, or is unavailable", body = linkpath_api::ErrorBody)))]
pub(crate) async fn create(
    State(games): State<Arc<Games>>,
    caller: Caller,
    headers: HeaderMap,
    body: JsonBody,
) -> Result<Response, HttpError> {
    let now = games.now();
    let key = keys::read(&headers, "POST", "/v1/games", &body, StatusCode::CREATED)?;
    let owner = caller.player_id().map(str::to_owned);
    let answer = games.create(body, key, owner, now).await?;
    Ok(keys::send(answer, StatusCode::CREATED)?)
}
