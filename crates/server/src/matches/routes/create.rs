//! `POST /v1/matches`: creates a match, its creator in the first seat.

use super::LOCATION;
use crate::body::JsonBody;
use crate::error::HttpError;
use crate::games::routes::keys;
use crate::matches::Matches;
use crate::players::Caller;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use linkpath_api::matches::{CreateMatch, MatchView};
use std::sync::Arc;

/// Creates a match on a deal, for a number of seats; the creator, whose
/// token is sent, takes the first. Others join by its id.
#[utoipa::path(post, path = "/v1/matches", operation_id = "createMatch", tag = "matches",
    request_body(content = CreateMatch, example = json!({"game": {"width": 8, "height": 6, "types": 12, "rules": "shisen-sho", "time_limit_ms": 300000}, "seats": 2})),
    params(("Idempotency-Key" = Option<String>, Header, description = "Answers a retry with the first answer; kept 24 h by default.")),
    responses(
        (status = 201, description = "The match, with `Location` and `ETag`", body = MatchView),
        (status = 401, description = "No player's token sent", body = linkpath_api::ErrorBody),
        (status = 422, description = "A deal, a number of seats or an invitation refused", body = linkpath_api::ErrorBody),
        (status = 503, description = "The store holds as many matches as allowed, or is unavailable", body = linkpath_api::ErrorBody)))]
pub(crate) async fn create(
    State(matches): State<Arc<Matches>>,
    caller: Caller,
    headers: HeaderMap,
    body: JsonBody,
) -> Result<Response, HttpError> {
    let now = matches.now();
    let creator = caller.signed_in()?.clone();
    let key = keys::read_at(
        &headers,
        "POST",
        "/v1/matches",
        &body,
        StatusCode::CREATED,
        LOCATION,
    )?;
    let answer = matches.create(body, key, &creator, now).await?;
    Ok(keys::send_at(answer, StatusCode::CREATED, LOCATION)?)
}
