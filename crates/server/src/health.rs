//! Liveness, readiness, metrics and the API description: the routes that
//! are never shed, so operators can see a saturated server.

use super::AppState;
use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use serde::Serialize;
use std::sync::atomic::Ordering;
use utoipa::ToSchema;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route("/openapi.yaml", get(openapi))
}

/// What a health route says.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Health {
    /// The process serves HTTP.
    Ok,
    /// The server takes requests.
    Ready,
    /// Shutdown has begun: take this replica out of rotation.
    ShuttingDown,
}

/// The body of `/healthz` and `/readyz`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Status {
    pub status: Health,
}

#[utoipa::path(get, path = "/healthz", operation_id = "healthz", tag = "operations",
    responses((status = 200, description = "The process is alive.", body = Status)))]
async fn healthz() -> impl IntoResponse {
    axum::Json(Status { status: Health::Ok })
}

#[utoipa::path(get, path = "/readyz", operation_id = "readyz", tag = "operations",
    responses(
        (status = 200, description = "Ready for requests.", body = Status),
        (status = 503, description = "Shutting down: send no more requests here.", body = Status)))]
async fn readyz(State(state): State<AppState>) -> impl IntoResponse {
    if state.ready.load(Ordering::Relaxed) {
        (StatusCode::OK, axum::Json(Status { status: Health::Ready }))
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(Status {
                status: Health::ShuttingDown,
            }),
        )
    }
}

#[utoipa::path(get, path = "/metrics", operation_id = "metrics", tag = "operations",
    responses((status = 200, description = "The metrics.", content_type = "text/plain", body = String)))]
async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        state.prometheus.render(),
    )
}

#[utoipa::path(get, path = "/openapi.yaml", operation_id = "openapi", tag = "operations",
    responses((status = 200, description = "This document.", content_type = "application/yaml", body = serde_json::Value)))]
async fn openapi() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/yaml")], super::openapi::yaml())
}
