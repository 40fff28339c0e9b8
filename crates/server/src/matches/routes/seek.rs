//! `POST /v1/matches/seek`: waits for partners on the settings sent, and
//! answers the match they are seated in, or 204 when none came.

use super::LOCATION;
use crate::body::JsonBody;
use crate::error::HttpError;
use crate::games::routes::keys;
use crate::matches::Seeks;
use crate::matches::seeks::Sought;
use crate::players::Caller;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use linkpath_api::matches::{MatchView, SeekMatch};
use std::sync::Arc;

/// Seeks a race: waits (up to `LINKPATH_SEEK_WAIT_MS`, 30 s by default)
/// until enough players seek the same settings with ratings near the
/// first seeker's, then answers the new match, full and counting down,
/// the same to each of them. No partner within the wait: 204, seek again.
/// A player has one seek at a time: a new one ends the first (204).
#[utoipa::path(post, path = "/v1/matches/seek", operation_id = "seekMatch", tag = "matches",
    request_body(content = SeekMatch, example = json!({"game": {"width": 8, "height": 6, "types": 12, "rules": "shisen-sho", "time_limit_ms": 300000}, "seats": 2})),
    responses(
        (status = 201, description = "Seated: the match, with `Location` and `ETag`", body = MatchView),
        (status = 204, description = "No partner within the wait: seek again"),
        (status = 401, description = "No player's token sent", body = linkpath_api::ErrorBody),
        (status = 422, description = "A deal or a number of seats refused", body = linkpath_api::ErrorBody),
        (status = 503, description = "As many seeks wait as allowed (see `Retry-After`), or the store is unavailable", body = linkpath_api::ErrorBody)))]
pub(crate) async fn seek(
    State(seeks): State<Arc<Seeks>>,
    caller: Caller,
    body: JsonBody,
) -> Result<Response, HttpError> {
    let player = caller.signed_in()?.clone();
    match seeks.seek(body, &player).await? {
        Sought::Seated(answer) => Ok(keys::send_at(answer, StatusCode::CREATED, LOCATION)?),
        Sought::Unseated => Ok(StatusCode::NO_CONTENT.into_response()),
    }
}
