//! The game mechanics' routes, on a board sent with each request (the
//! games the server holds are `games`): `/v1/moves`, `/v1/play`, `/v1/clear`, `/v1/deal` and
//! `/v1/shuffle`. Each runs its work from [`linkpath_api::mechanics`] on the
//! bounded solver pool with the server's deadline.

use crate::body::{BodyLimits, JsonBody};
use crate::error::HttpError;
use crate::metrics;
use crate::solvers::Solvers;
use axum::Router;
use axum::extract::{FromRef, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use linkpath_api::mechanics::{
    self, ClearResponse, DealResponse, MovesResponse, PlayResponse, ShuffleResponse,
};
use linkpath_api::{ApiError, Limits, Work};
use linkpath_engine::Stop;
use serde::Serialize;
use std::time::{Duration, Instant};

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Solvers: FromRef<S>,
    Limits: FromRef<S>,
    BodyLimits: FromRef<S>,
{
    Router::new()
        .route("/v1/moves", post(moves))
        .route("/v1/play", post(play))
        .route("/v1/clear", post(clear))
        .route("/v1/deal", post(deal))
        .route("/v1/shuffle", post(shuffle))
}

/// Runs `work` on the solver pool and sends its JSON; records the time and
/// what the answer came to (`outcome`) under `route`.
async fn run<T: Serialize + Send + 'static>(
    (solvers, limits): (Solvers, Limits),
    body: JsonBody,
    route: &'static str,
    what: Work,
    outcome: fn(&T) -> &'static str,
    work: impl FnOnce(&[u8], &Stop, &Limits, Duration) -> Result<T, ApiError> + Send + 'static,
) -> Result<Response, HttpError> {
    let permit = solvers.slot()?;
    let timeout = solvers.timeout;
    let started = Instant::now();
    let answer = solvers
        .run_blocking(permit, what, move |stop| {
            let answer = work(&body, stop, &limits, timeout)?;
            let json = linkpath_api::encode(&answer).inspect_err(|_| {
                tracing::error!("encoding a game response");
            })?;
            Ok((outcome(&answer), json))
        })
        .await;
    metrics::record_solve(route, started, &answer, |&(outcome, _)| outcome);
    let (_, json) = answer?;
    Ok(([(header::CONTENT_TYPE, "application/json")], json).into_response())
}

/// Lists the pairs that can be removed now.
#[utoipa::path(post, path = "/v1/moves", operation_id = "moves", tag = "game",
    request_body = linkpath_api::mechanics::MovesRequest,
    responses((status = 200, description = "The moves open on the board", body = MovesResponse)))]
async fn moves(
    State(solvers): State<Solvers>,
    State(limits): State<Limits>,
    body: JsonBody,
) -> Result<Response, HttpError> {
    run(
        (solvers, limits),
        body,
        "/v1/moves",
        Work::Moves,
        MovesResponse::outcome,
        |body, stop, limits, _| mechanics::moves(body, limits, stop),
    )
    .await
}

/// Plays moves in order, with gravity, and answers the board they leave.
#[utoipa::path(post, path = "/v1/play", operation_id = "play", tag = "game",
    request_body = linkpath_api::mechanics::PlayRequest,
    responses((status = 200, description = "The board after the moves that could be made", body = PlayResponse)))]
async fn play(
    State(solvers): State<Solvers>,
    State(limits): State<Limits>,
    body: JsonBody,
) -> Result<Response, HttpError> {
    run(
        (solvers, limits),
        body,
        "/v1/play",
        Work::Play,
        PlayResponse::outcome,
        |body, stop, limits, _| mechanics::play(body, limits, stop),
    )
    .await
}

/// Decides whether the board can be cleared, within a budget.
#[utoipa::path(post, path = "/v1/clear", operation_id = "clear", tag = "game",
    request_body = linkpath_api::mechanics::ClearRequest,
    responses((status = 200, description = "The verdict, with a clearing sequence when solvable", body = ClearResponse)))]
async fn clear(
    State(solvers): State<Solvers>,
    State(limits): State<Limits>,
    body: JsonBody,
) -> Result<Response, HttpError> {
    let started = Instant::now();
    run(
        (solvers, limits),
        body,
        "/v1/clear",
        Work::Clear,
        ClearResponse::outcome,
        move |body, stop, limits, timeout| mechanics::clear(body, limits, stop, started, timeout),
    )
    .await
}

/// Deals a board that can be cleared, with a sequence that clears it.
#[utoipa::path(post, path = "/v1/deal", operation_id = "deal", tag = "game",
    request_body = linkpath_api::mechanics::DealRequest,
    responses((status = 200, description = "A clearable board and its clearing sequence", body = DealResponse)))]
async fn deal(
    State(solvers): State<Solvers>,
    State(limits): State<Limits>,
    body: JsonBody,
) -> Result<Response, HttpError> {
    run(
        (solvers, limits),
        body,
        "/v1/deal",
        Work::Deal,
        |_: &DealResponse| "dealt",
        |body, stop, limits, _| mechanics::deal(body, limits, stop),
    )
    .await
}

/// Shuffles the tiles over the cells they stand on.
#[utoipa::path(post, path = "/v1/shuffle", operation_id = "shuffle", tag = "game",
    request_body = linkpath_api::mechanics::ShuffleRequest,
    responses((status = 200, description = "The shuffled board", body = ShuffleResponse)))]
async fn shuffle(
    State(solvers): State<Solvers>,
    State(limits): State<Limits>,
    body: JsonBody,
) -> Result<Response, HttpError> {
    run(
        (solvers, limits),
        body,
        "/v1/shuffle",
        Work::Shuffle,
        |_: &ShuffleResponse| "shuffled",
        |body, stop, limits, _| mechanics::shuffle(body, limits, stop),
    )
    .await
}
