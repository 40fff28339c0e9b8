//! `POST /v1/solve`: answers a batch of queries on one board.

use super::AppState;
use super::body::JsonBody;
use super::error::{ApiError, ErrorCode};
use super::wire::{Limits, QueryResult, SolveRequest, SolveResponse, decode_solve};
use crate::solver::{Answer, Interrupted, Movement, Solver, Stop};
use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use std::time::Instant;

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/solve", post(solve))
}

async fn solve(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let limits = state.limits.clone();
    let json = if body.len() <= state.config.inline_max_bytes {
        // Small bodies parse in microseconds; only searches that may run
        // long are sent to the blocking pool.
        let permit = state.solver_slot()?;
        let request = decode_solve(&body, &limits)?;
        if request.rules.movement == Movement::Line
            && request.rules.max_segments.is_some_and(|m| m <= 3)
        {
            let stop = Stop::never().with_deadline(Instant::now() + state.config.solve_timeout());
            let json = answer(&request, &stop);
            drop(permit);
            json?
        } else {
            state
                .run_blocking(permit, move |stop| answer(&request, stop))
                .await?
        }
    } else {
        let permit = state.solver_slot()?;
        state
            .run_blocking(permit, move |stop| {
                answer(&decode_solve(&body, &limits)?, stop)
            })
            .await?
    };
    Ok(([(header::CONTENT_TYPE, "application/json")], json).into_response())
}

/// Answers a decoded request and encodes the response body: the code path
/// shared by the server and `linkpath solve`.
pub fn answer(request: &SolveRequest, stop: &Stop) -> Result<Vec<u8>, ApiError> {
    let started = Instant::now();
    let mut solver = Solver::new(&request.board, request.rules);
    if !request.include_path {
        solver = solver.without_paths();
    }
    let answers = solver
        .answer_all(&request.queries, stop)
        .map_err(interrupted)?;
    let mut results = Vec::with_capacity(answers.len());
    for answer in &answers {
        let outcome = match answer {
            Answer::Connected(_) => "connected",
            Answer::NotConnected(reason) => reason.name(),
        };
        metrics::counter!(super::metrics::QUERIES, "rules" => request.rules_label, "outcome" => outcome)
            .increment(1);
        results.push(QueryResult::new(answer, request.include_path));
    }
    metrics::histogram!(super::metrics::SOLVE_DURATION, "rules" => request.rules_label)
        .record(started.elapsed());
    serde_json::to_vec(&SolveResponse { results }).map_err(|e| {
        tracing::error!(error = %e, "encoding a solve response");
        ApiError::new(ErrorCode::Internal, "internal error")
    })
}

/// Decodes and answers one body, as the server would: for `linkpath solve`.
pub fn solve_body(body: &[u8], limits: &Limits, stop: &Stop) -> Result<Vec<u8>, ApiError> {
    answer(&decode_solve(body, limits)?, stop)
}

pub(super) fn interrupted(e: Interrupted) -> ApiError {
    match e {
        Interrupted::Deadline => ApiError::new(
            ErrorCode::DeadlineExceeded,
            "the solve did not finish within the server's deadline; ask fewer queries, a smaller board or a lower max_segments",
        ),
        Interrupted::Cancelled => {
            ApiError::new(ErrorCode::DeadlineExceeded, "the solve was cancelled")
        }
    }
}
