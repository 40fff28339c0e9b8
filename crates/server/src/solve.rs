//! `POST /v1/solve`: answers a batch of queries on one board.

use crate::body::{BodyLimits, JsonBody};
use crate::error::HttpError;
use crate::metrics;
use crate::solvers::Solvers;
use axum::Router;
use axum::extract::{FromRef, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use linkpath_api::{ApiError, Limits, SolveRequest, SolveResponse, Work};
use linkpath_engine::{Answer, Stop};
use std::time::Instant;

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Solvers: FromRef<S>,
    Limits: FromRef<S>,
    BodyLimits: FromRef<S>,
{
    Router::new().route("/v1/solve", post(solve))
}

/// Answers each query: whether the two cells connect, the fewest straight
/// segments, and the path's corner points.
#[utoipa::path(post, path = "/v1/solve", operation_id = "solve", tag = "solve",
    request_body = linkpath_api::SolveBody,
    responses((status = 200, description = "One result per query, in order", body = SolveResponse)))]
async fn solve(
    State(solvers): State<Solvers>,
    State(limits): State<Limits>,
    body: JsonBody,
) -> Result<Response, HttpError> {
    let permit = solvers.slot()?;
    let json = if body.len() <= solvers.inline_max_bytes {
        // Small bodies parse in microseconds; only searches that may run
        // long are sent to the blocking pool.
        let request = SolveRequest::decode(&body, &limits)?;
        if request.is_quick() {
            let stop = solvers.stop_now();
            let json = answer(&request, &stop);
            drop(permit);
            json?
        } else {
            solvers
                .run_blocking(permit, Work::Solve, move |stop| answer(&request, stop))
                .await?
        }
    } else {
        solvers
            .run_blocking(permit, Work::Solve, move |stop| {
                answer(&SolveRequest::decode(&body, &limits)?, stop)
            })
            .await?
    };
    Ok(([(header::CONTENT_TYPE, "application/json")], json).into_response())
}

/// Answers a decoded request, counts its queries by outcome, and encodes
/// the answer.
fn answer(request: &SolveRequest, stop: &Stop) -> Result<Vec<u8>, ApiError> {
    let started = Instant::now();
    let answers = request.answers(stop)?;
    for answer in &answers {
        let outcome = match answer {
            Answer::Connected(_) => "connected",
            Answer::NotConnected(reason) => reason.name(),
        };
        ::metrics::counter!(metrics::QUERIES, "rules" => request.rules_label, "outcome" => outcome)
            .increment(1);
    }
    ::metrics::histogram!(metrics::SOLVE_DURATION, "rules" => request.rules_label)
        .record(started.elapsed());
    linkpath_api::encode(&SolveResponse::new(&answers, request.include_path)).inspect_err(|_| {
        tracing::error!("encoding a solve response");
    })
}
