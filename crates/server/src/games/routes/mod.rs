//! `/v1/games`, `/v1/replays`, `/v1/daily`, `/v1/leaderboards` and
//! `/v1/days`: the routes of the held games, one a file. Each reads the
//! request (the path, `If-Match`, `Idempotency-Key`, the body), asks the
//! service, and writes the answer: the game's JSON with its version as
//! the `ETag`; a leaderboard's and a day's archived games stream as
//! NDJSON.

pub(crate) mod act;
pub(crate) mod check_replay;
pub(crate) mod create;
pub(crate) mod daily;
pub(crate) mod day_export;
pub(crate) mod events;
pub(crate) mod keys;
pub(crate) mod leaderboard;
pub(crate) mod leaderboard_export;
pub(crate) mod replay;
pub(crate) mod show;

use crate::body::BodyLimits;
use crate::games::service::Games;
use crate::solvers::Solvers;
use axum::Router;
use axum::extract::FromRef;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use std::sync::Arc;

/// The routes; they take the games (and the archive, for a replay gone
/// from the live store and the exports), and their bodies the body
/// limits and the solver pool.
pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<Games>: FromRef<S>,
    Arc<crate::archive::Archives>: FromRef<S>,
    Arc<crate::players::Players>: FromRef<S>,
    Solvers: FromRef<S>,
    BodyLimits: FromRef<S>,
{
    Router::new()
        .route("/v1/games", post(create::create))
        .route("/v1/games/{id}", get(show::show))
        .route("/v1/games/{id}/moves", post(act::make_move))
        .route("/v1/games/{id}/hint", post(act::hint))
        .route("/v1/games/{id}/undo", post(act::undo))
        .route("/v1/games/{id}/redo", post(act::redo))
        .route("/v1/games/{id}/shuffle", post(act::shuffle))
        .route("/v1/games/{id}/pause", post(act::pause))
        .route("/v1/games/{id}/resume", post(act::resume))
        .route("/v1/games/{id}/resign", post(act::resign))
        .route("/v1/games/{id}/events", get(events::stream))
        .route("/v1/games/{id}/replay", get(replay::replay))
        .route("/v1/replays", post(check_replay::check_replay))
        .route("/v1/daily/{date}", get(daily::daily))
        .route("/v1/leaderboards/{name}", get(leaderboard::leaderboard))
        .route(
            "/v1/leaderboards/{name}/games/export",
            get(leaderboard_export::export),
        )
        .route("/v1/days/{date}/games/export", get(day_export::export))
}

/// A JSON answer, with the game's version as `ETag` if it has one.
pub(crate) fn respond(
    status: StatusCode,
    version: Option<u64>,
    location: Option<&str>,
    json: Vec<u8>,
) -> Response {
    let mut response = (status, [(header::CONTENT_TYPE, "application/json")], json).into_response();
    let headers = response.headers_mut();
    if let Some(version) = version {
        headers.insert(header::ETAG, etag(version));
    }
    if let Some(location) = location.and_then(|l| HeaderValue::from_str(l).ok()) {
        headers.insert(header::LOCATION, location);
    }
    response
}

/// A game's version as its strong entity tag, `"3"`.
fn etag(version: u64) -> HeaderValue {
    HeaderValue::from_str(&format!("\"{version}\"")).expect("digits are a header value")
}

/// A JSON answer with no `ETag`.
fn plain_json(json: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], json).into_response()
}
