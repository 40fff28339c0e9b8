//! `GET /v1/matches/{id}`: the match as it is now.

use crate::error::HttpError;
use crate::games::routes::respond;
use crate::matches::Matches;
use crate::path::PathParam;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use linkpath_api::matches::MatchView;
use std::sync::Arc;

/// The match, brought up to date: a countdown that ended has begun the
/// race (each seat's game in `players[].game`), a race that is over has
/// its `result`.
#[utoipa::path(get, path = "/v1/matches/{id}", operation_id = "getMatch", tag = "matches",
    params(("id" = String, Path, description = "The match's id")),
    responses(
        (status = 200, description = "The match, with its version as `ETag`", body = MatchView),
        (status = 404, description = "No such match, or it expired", body = linkpath_api::ErrorBody),
        (status = 422, description = "An id that is not UTF-8 once percent-decoded", body = linkpath_api::ErrorBody)))]
pub(crate) async fn show(
    State(matches): State<Arc<Matches>>,
    PathParam(id): PathParam<String>,
) -> Result<Response, HttpError> {
    let now = matches.now();
    let (record, expires) = matches.read(&id, now).await?;
    let json = linkpath_api::encode(&MatchView::new(&record, expires))?;
    Ok(respond(StatusCode::OK, Some(record.version), None, json))
}
