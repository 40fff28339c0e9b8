//! `POST /v1/render`: the body of `/v1/solve`, answered with an SVG picture
//! of the board and each query's path.

use super::AppState;
use super::body::JsonBody;
use super::error::HttpError;
use super::metrics;
use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use linkpath_api::{SVG, Work, render_body};
use std::time::Instant;

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/render", post(render))
}

/// Draws the board and each query's path as an SVG picture.
#[utoipa::path(post, path = "/v1/render", operation_id = "render", tag = "solve",
    request_body = linkpath_api::SolveBody,
    responses((status = 200, description = "The picture", content_type = "image/svg+xml", body = String)))]
async fn render(State(state): State<AppState>, body: JsonBody) -> Result<Response, HttpError> {
    let limits = state.limits.clone();
    let permit = state.solver_slot()?;
    let started = Instant::now();
    let svg = state
        .run_blocking(permit, Work::Render, move |stop| {
            render_body(&body, &limits, stop)
        })
        .await;
    metrics::record_solve("/v1/render", started, &svg, |_| "drawn");
    Ok(([(header::CONTENT_TYPE, SVG)], svg?).into_response())
}
