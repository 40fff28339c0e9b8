//! Liveness, readiness and metrics: the routes that are never shed, so
//! operators can see a saturated server.

use super::AppState;
use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use serde::Serialize;
use std::sync::atomic::Ordering;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Schema, SchemaType, Type};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
}

/// What the admin listener serves.
pub fn admin_router() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
}

/// The body of `/healthz` and `/readyz`: `{"status": ...}`, one schema
/// for each status.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Status {
    pub status: &'static str,
}

/// The schema of a [`Status`] body with this `status`.
fn status_schema(status: &str) -> RefOr<Schema> {
    ObjectBuilder::new()
        .property(
            "status",
            ObjectBuilder::new()
                .schema_type(SchemaType::Type(Type::String))
                .enum_values(Some([status])),
        )
        .required("status")
        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
        .into()
}

macro_rules! health_schema {
    ($name:ident, $status:literal, $doc:literal) => {
        #[doc = $doc]
        pub struct $name;

        impl utoipa::PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                status_schema($status)
            }
        }

        impl utoipa::ToSchema for $name {}
    };
}

health_schema!(Health, "ok", "`/healthz`: the process serves HTTP.");
health_schema!(Ready, "ready", "`/readyz`: the server takes requests.");
health_schema!(
    ShuttingDown,
    "shutting_down",
    "`/readyz` once shutdown has begun: send no more requests here."
);

#[utoipa::path(get, path = "/healthz", operation_id = "healthz", tag = "operations",
    responses((status = 200, description = "The process is alive.", body = Health)))]
async fn healthz() -> impl IntoResponse {
    axum::Json(Status { status: "ok" })
}

#[utoipa::path(get, path = "/readyz", operation_id = "readyz", tag = "operations",
    responses(
        (status = 200, description = "Ready for requests.", body = Ready),
        (status = 503, description = "Shutting down: send no more requests here.", body = ShuttingDown)))]
async fn readyz(State(state): State<AppState>) -> impl IntoResponse {
    if state.ready.load(Ordering::Relaxed) {
        (StatusCode::OK, axum::Json(Status { status: "ready" }))
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(Status {
                status: "shutting_down",
            }),
        )
    }
}

#[utoipa::path(get, path = "/metrics", operation_id = "metrics", tag = "operations",
    responses((status = 200, description = "The metrics.", content_type = "text/plain", body = String)))]
async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    super::metrics::record_memory(&state.memory);
    super::metrics::record_store_reopens(state.games.store.reopens());
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        state.prometheus.render(),
    )
}
