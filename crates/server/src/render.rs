//! `POST /v1/render`: the body of `/v1/solve`, answered with an SVG picture
//! of the board and each query's path.

use crate::body::{BodyLimits, JsonBody};
use crate::error::HttpError;
use crate::metrics;
use crate::solvers::Solvers;
use axum::Router;
use axum::extract::{FromRef, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use linkpath_api::{Limits, SVG, Work, render_body};
use std::time::Instant;

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Solvers: FromRef<S>,
    Limits: FromRef<S>,
    BodyLimits: FromRef<S>,
{
    Router::new().route("/v1/render", post(render))
}

/// Draws the board and each query's path as an SVG picture.
#[utoipa::path(post, path = "/v1/render", operation_id = "render", tag = "solve",
    request_body = linkpath_api::SolveBody,
    responses((status = 200, description = "The picture", content_type = "image/svg+xml", body = String)))]
async fn render(
    State(solvers): State<Solvers>,
    State(limits): State<Limits>,
    body: JsonBody,
) -> Result<Response, HttpError> {
    let permit = solvers.slot()?;
    let started = Instant::now();
    let svg = solvers
        .run_blocking(permit, Work::Render, move |stop| {
            render_body(&body, &limits, stop)
        })
        .await;
    metrics::record_solve("/v1/render", started, &svg, |_| "drawn");
    Ok(([(header::CONTENT_TYPE, SVG)], svg?).into_response())
}
