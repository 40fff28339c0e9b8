//! `POST /v1/render`: the body of `/v1/solve`, answered with an SVG picture
//! of the board and each query's path (see [`crate::render`]).

use super::AppState;
use super::body::JsonBody;
use super::error::ApiError;
use super::metrics;
use super::wire::{BoardEncoding, Limits, SolveRequest, decode_solve};
use crate::render::{self, Labels};
use crate::solver::{Solver, Stop};
use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use std::time::Instant;

/// The media type of the picture.
pub const SVG: &str = "image/svg+xml";

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/render", post(render))
}

async fn render(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let limits = state.limits.clone();
    let permit = state.solver_slot()?;
    let started = Instant::now();
    let svg = state
        .run_blocking(permit, move |stop| render_body(&body, &limits, stop))
        .await;
    metrics::record_solve("/v1/render", started, &svg, |_| "drawn");
    Ok(([(header::CONTENT_TYPE, SVG)], svg?).into_response())
}

/// Answers a decoded request and draws it: the code path shared by the
/// server and `linkpath render`. Paths are drawn whatever `include_path`
/// says: they are the point of the picture.
pub fn picture(request: &SolveRequest, stop: &Stop) -> Result<String, ApiError> {
    let answers = Solver::new(&request.board, request.rules)
        .answer_all(&request.queries, stop)
        .map_err(super::solve::interrupted)?;
    let labels = match request.encoding {
        BoardEncoding::Text => Labels::Chars,
        BoardEncoding::Numbers => Labels::Numbers,
    };
    Ok(render::svg(
        &request.board,
        labels,
        &request.rules,
        &request.queries,
        &answers,
    ))
}

/// Decodes and draws one body, as the server would: for `linkpath render`.
pub fn render_body(body: &[u8], limits: &Limits, stop: &Stop) -> Result<String, ApiError> {
    let request = decode_solve(body, &limits.for_pictures())?;
    picture(&request, stop)
}
