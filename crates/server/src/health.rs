//! Liveness, readiness and metrics: the routes that are never shed, so
//! operators can see a saturated server. Readiness is also the store's:
//! a file store closed after a failure (damaged, or failing on I/O) is
//! not ready, and each probe tries to open it again, so that it comes
//! back with no traffic to drive it.

use crate::budget::MemoryBudget;
use crate::games::Games;
use axum::Router;
use axum::extract::{FromRef, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use metrics_exporter_prometheus::PrometheusHandle;
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use utoipa::openapi::Ref;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{
    AdditionalProperties, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type,
};

/// What the probes read: whether shutdown has begun, the store, the
/// memory budget and the metrics recorder.
#[derive(Clone)]
pub(crate) struct Probes {
    /// False once shutdown has begun: `/readyz` answers 503.
    pub ready: Arc<AtomicBool>,
    pub games: Arc<Games>,
    pub memory: MemoryBudget,
    pub prometheus: PrometheusHandle,
}

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Probes: FromRef<S>,
{
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
}

/// What the admin listener serves.
pub fn admin_router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Probes: FromRef<S>,
{
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
health_schema!(
    StoreDown,
    "store_unavailable",
    "`/readyz` while the game store cannot serve (its file failed and is not open again yet, or is damaged): send no requests here until it is ready again."
);

/// The bodies of a 503 from `/readyz`: one of [`ShuttingDown`] and
/// [`StoreDown`].
pub struct NotReady;

impl utoipa::PartialSchema for NotReady {
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .item(Ref::from_schema_name("ShuttingDown"))
            .item(Ref::from_schema_name("StoreDown"))
            .into()
    }
}

impl utoipa::ToSchema for NotReady {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        for (name, schema) in [
            (
                "ShuttingDown",
                <ShuttingDown as utoipa::PartialSchema>::schema(),
            ),
            ("StoreDown", <StoreDown as utoipa::PartialSchema>::schema()),
        ] {
            schemas.push((name.into(), schema));
        }
    }
}

#[utoipa::path(get, path = "/healthz", operation_id = "healthz", tag = "operations",
    responses((status = 200, description = "The process is alive.", body = Health)))]
async fn healthz() -> impl IntoResponse {
    axum::Json(Status { status: "ok" })
}

#[utoipa::path(get, path = "/readyz", operation_id = "readyz", tag = "operations",
    responses(
        (status = 200, description = "Ready for requests.", body = Ready),
        (status = 503, description = "Shutting down, or the game store cannot serve: send no requests here.", body = NotReady)))]
async fn readyz(State(state): State<Probes>) -> impl IntoResponse {
    let status = if !state.ready.load(Ordering::Relaxed) {
        "shutting_down"
    } else if !state.games.records.store.available().await {
        "store_unavailable"
    } else {
        return (StatusCode::OK, axum::Json(Status { status: "ready" }));
    };
    (
        StatusCode::SERVICE_UNAVAILABLE,
        axum::Json(Status { status }),
    )
}

#[utoipa::path(get, path = "/metrics", operation_id = "metrics", tag = "operations",
    responses((status = 200, description = "The metrics.", content_type = "text/plain", body = String)))]
async fn metrics(State(state): State<Probes>) -> impl IntoResponse {
    crate::metrics::record_memory(&state.memory);
    crate::metrics::record_store_reopens(state.games.records.store.reopens());
    crate::metrics::record_process();
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        state.prometheus.render(),
    )
}
