//! The router: every route module's routes over the [`AppState`], with
//! the middleware every request passes (request ids, the access gates,
//! compression, the log line and the metrics), and the admin listener's
//! router beside it.

use crate::access::{self, RateLimit};
use crate::error::HttpError;
use crate::players::{self, Gate};
use crate::state::AppState;
use crate::{
    compress, games, head, health, matches, mechanics, metrics, openapi, playground, render, solve,
    trace,
};
use axum::Router;
use axum::extract::{FromRef, MatchedPath, Request};
use axum::http::{HeaderName, Response as HttpResponse};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use linkpath_api::{ErrorCode, excerpt};
use std::time::Instant;
use tower::util::{MapRequestLayer, MapResponseLayer};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tracing::Instrument;

/// The whole router with its middleware.
pub fn app(state: AppState) -> Router {
    let x_request_id = HeaderName::from_static("x-request-id");
    let cors = access::cors(&state.config.cors_origins);
    let router = Router::new()
        .merge(solve::router())
        .merge(mechanics::router())
        .merge(games::router())
        .merge(matches::router())
        .merge(players::router())
        .merge(render::router())
        .merge(playground::router())
        .merge(health::router())
        .merge(openapi::router())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .route_layer(middleware::from_fn(remember_route))
        .layer(CatchPanicLayer::custom(panicked))
        .layer(middleware::from_fn_with_state(
            RateLimit::from_ref(&state),
            access::rate_limit,
        ))
        .layer(middleware::from_fn_with_state(
            Gate::from_ref(&state),
            players::authenticate,
        ));
    // CORS answers preflights before the key check: browsers send no
    // credentials on them.
    let router = match cors {
        Some(cors) => router.layer(cors),
        None => router,
    };
    let compress_min = state.config.compress_min_bytes;
    router
        .layer(MapResponseLayer::new(compress::note_size(compress_min)))
        .layer(compress::layer(compress_min))
        .layer(middleware::from_fn(head::refuse_transfer_codings))
        .layer(middleware::from_fn(observe))
        .layer(PropagateRequestIdLayer::new(x_request_id.clone()))
        .layer(SetRequestIdLayer::new(x_request_id, MakeRequestUuid))
        // An id too long or unprintable is replaced by a generated one.
        .layer(MapRequestLayer::new(head::drop_unfit_request_id))
        .with_state(state)
}

/// The admin listener's router: the probes and the metrics only.
pub(crate) fn admin_app(state: AppState) -> Router {
    Router::new()
        .merge(health::admin_router())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
}

async fn not_found(request: Request) -> HttpError {
    HttpError::new(
        ErrorCode::NotFound,
        format!(
            "no route {}, see /openapi.yaml",
            excerpt(request.uri().path())
        ),
    )
}

async fn method_not_allowed(request: Request) -> HttpError {
    HttpError::new(
        ErrorCode::MethodNotAllowed,
        format!(
            "{} is not allowed on {}",
            excerpt(request.method().as_str()),
            excerpt(request.uri().path())
        ),
    )
}

fn panicked(_: Box<dyn std::any::Any + Send + 'static>) -> HttpResponse<axum::body::Body> {
    metrics::record_panic();
    tracing::error!("a handler panicked");
    HttpError::new(ErrorCode::Internal, "internal error").into_response()
}

/// The matched route, carried out to [`observe`] on the response.
#[derive(Clone)]
struct Route(MatchedPath);

async fn remember_route(request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().cloned();
    let mut response = next.run(request).await;
    if let Some(route) = route {
        response.extensions_mut().insert(Route(route));
    }
    response
}

/// One log line and the request metrics per request. What the client
/// chose is bounded before it is logged: the method is cut like an error's
/// quote, the request id was checked by [`head::drop_unfit_request_id`].
async fn observe(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let request_id = request
        .headers()
        .get(head::REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    // Every line logged while the request is served carries its ids. The
    // span is at error level so that it is on whatever lines are logged.
    // Exported, it is the request's SERVER span, named once routed
    // (`trace::describe`).
    #[cfg(not(feature = "otel"))]
    let span = tracing::error_span!(
        "request",
        request_id,
        trace_id = tracing::field::Empty,
        span_id = tracing::field::Empty
    );
    #[cfg(feature = "otel")]
    let span = tracing::error_span!(
        "request",
        request_id,
        trace_id = tracing::field::Empty,
        span_id = tracing::field::Empty,
        otel.kind = "server"
    );
    #[cfg(feature = "otel")]
    let facts = trace::ServerRequest::read(&request, metrics::method_label(method.as_str()));
    if let Some(parent) = trace::TraceParent::from_headers(request.headers()) {
        span.record("trace_id", parent.trace_id.as_str());
        span.record("span_id", parent.span_id.as_str());
        // Before the span is entered: entering starts it.
        #[cfg(feature = "otel")]
        parent.adopt(&span);
    }
    let response = next.run(request).instrument(span.clone()).await;
    let latency = started.elapsed();
    let route = metrics::route_label(response.extensions().get::<Route>().map(|r| r.0.as_str()));
    let status = response.status().as_u16();
    #[cfg(feature = "otel")]
    trace::describe(
        &span,
        &facts,
        (route != metrics::UNMATCHED).then_some(route),
        status,
    );
    metrics::record_request(
        route,
        metrics::method_label(method.as_str()),
        status,
        latency,
    );
    // Absent from the line when the answer is no error.
    let error_code: Option<&'static str> = response
        .extensions()
        .get::<ErrorCode>()
        .map(|code| code.into());
    let _in_request = span.enter();
    // An error answer is logged by its status: a failure of the server
    // (5xx) an error, a request refused (4xx) a warning, both with the
    // error code. Every other answer is information, the readiness 503
    // of a shutdown included: it is the state a load balancer reads.
    macro_rules! request_line {
        ($level:ident) => {
            tracing::$level!(
                method = %excerpt(method.as_str()),
                route,
                status,
                error_code,
                latency_ms = latency.as_secs_f64() * 1e3,
                request_id,
                "request"
            )
        };
    }
    match (error_code, status) {
        (Some(_), 500..) => request_line!(error),
        (Some(_), 400..) => request_line!(warn),
        _ => request_line!(info),
    }
    response
}
