//! The changes a player asks of a match, one POST each with no body:
//! `join`, `leave` and `start`, which share one handler made by a macro,
//! and `rematch`, answered the next match. Each takes the player's token
//! and `Idempotency-Key`.

use crate::error::HttpError;
use crate::games::routes::keys;
use crate::matches::Matches;
use crate::matches::service::Change;
use crate::path::PathParam;
use crate::players::Caller;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use linkpath_api::matches::MatchView;
use std::sync::Arc;

/// Applies `change` to the match `id` for the caller, and answers the
/// match.
async fn change(
    matches: &Matches,
    caller: &Caller,
    id: &str,
    headers: &HeaderMap,
    path: &'static str,
    change: Change,
) -> Result<Response, HttpError> {
    let now = matches.now();
    let player = caller.signed_in()?.clone();
    let scope = format!("{path}:{id}");
    let key = keys::read_at(
        headers,
        "POST",
        &scope,
        b"",
        StatusCode::OK,
        super::LOCATION,
    )?;
    let answer = matches.change(id, change, key, &player, now).await?;
    Ok(keys::send_at(answer, StatusCode::OK, super::LOCATION)?)
}

macro_rules! change_route {
    ($name:ident, $path:literal, $id:literal, $change:expr, $doc:literal, $refused:literal) => {
        #[doc = $doc]
        #[utoipa::path(post, path = $path, operation_id = $id, tag = "matches",
            params(("id" = String, Path, description = "The match's id"),
                ("Idempotency-Key" = Option<String>, Header, description = "Answers a retry with the first answer")),
            responses(
                (status = 200, description = "The match after it", body = MatchView),
                (status = 401, description = "No player's token sent", body = linkpath_api::ErrorBody),
                (status = 403, description = "Not invited (`forbidden`)", body = linkpath_api::ErrorBody),
                (status = 404, description = "No such match, or it expired", body = linkpath_api::ErrorBody),
                (status = 422, description = "An id that is not UTF-8 once percent-decoded", body = linkpath_api::ErrorBody),
                (status = 409, description = $refused, body = linkpath_api::ErrorBody)))]
        pub(crate) async fn $name(
            State(matches): State<Arc<Matches>>,
            PathParam(id): PathParam<String>,
            caller: Caller,
            headers: HeaderMap,
        ) -> Result<Response, HttpError> {
            change(&matches, &caller, &id, &headers, $path, $change).await
        }
    };
}

change_route!(
    join,
    "/v1/matches/{id}/join",
    "joinMatch",
    Change::Join,
    "Takes a seat in an open match; the last seat taken starts the countdown.",
    "The match has started, is full, or the caller is seated (`action_refused`)"
);
change_route!(
    leave,
    "/v1/matches/{id}/leave",
    "leaveMatch",
    Change::Leave,
    "Gives up a seat before the race; during it, quits (the game is resigned, and ranks last).",
    "The match is over, or the caller is not seated (`action_refused`)"
);
change_route!(
    start,
    "/v1/matches/{id}/start",
    "startMatch",
    Change::Start,
    "The creator starts the countdown with the players seated (two at least).",
    "Not the caller's match to start, too few players, or it has started (`action_refused`)"
);

/// Asks for the next match of a finished one, as lichess's rematch: the
/// first of its players to ask makes it (the same players, only they
/// invited; the same settings; a new deal) and the finished match shows
/// it as `rematch`; a player asking after joins it. Answers the next
/// match, its `previous` the finished one.
#[utoipa::path(post, path = "/v1/matches/{id}/rematch", operation_id = "rematchMatch", tag = "matches",
    params(("id" = String, Path, description = "The finished match's id"),
        ("Idempotency-Key" = Option<String>, Header, description = "Answers a retry with the first answer")),
    responses(
        (status = 200, description = "The next match, the caller seated", body = MatchView),
        (status = 401, description = "No player's token sent", body = linkpath_api::ErrorBody),
        (status = 403, description = "The caller did not play in the match (`forbidden`)", body = linkpath_api::ErrorBody),
        (status = 404, description = "No such match, or it expired", body = linkpath_api::ErrorBody),
        (status = 422, description = "An id that is not UTF-8 once percent-decoded", body = linkpath_api::ErrorBody),
        (status = 409, description = "The match is not over, or its rematch has begun (`action_refused`)", body = linkpath_api::ErrorBody),
        (status = 503, description = "The store holds as many matches as allowed, or is unavailable", body = linkpath_api::ErrorBody)))]
pub(crate) async fn rematch(
    State(matches): State<Arc<Matches>>,
    PathParam(id): PathParam<String>,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    let now = matches.now();
    let player = caller.signed_in()?.clone();
    let scope = format!("/v1/matches/{{id}}/rematch:{id}");
    let key = keys::read_at(
        &headers,
        "POST",
        &scope,
        b"",
        StatusCode::OK,
        super::LOCATION,
    )?;
    let answer = matches.rematch(&id, key, &player, now).await?;
    Ok(keys::send_at(answer, StatusCode::OK, super::LOCATION)?)
}
