//! The HTTP JSON service over the engine: [`app`] builds the router (tests
//! drive it with `tower::ServiceExt::oneshot`), [`run_with_admin`] serves it
//! on a listener from [`bind`] until a shutdown future resolves.
//!
//! Solves run on tokio's blocking pool, at most `workers` at once: a request
//! that finds every slot taken gets 503 at once instead of queueing.
//!
//! The modules are private; what the binary and the tests use is named
//! here.

mod access;
mod body;
mod cached;
mod compress;
mod config;
mod connection;
mod error;
mod game;
mod games;
mod head;
mod health;
mod healthcheck;
mod memory;
mod metrics;
mod openapi;
mod path;
mod playground;
mod render;
mod server;
mod socket;
mod solve;
mod trace;

pub use config::{Config, NON_STREAM_CONNECTIONS, RequestLimits, at_least_one, invalid_setting};
pub use healthcheck::{healthcheck, healthcheck_url};
pub use openapi::openapi_yaml;
pub use server::{bind, run_with_admin, shutdown_signal};

use axum::Router;
use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderName, Response as HttpResponse};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use error::HttpError;
use linkpath_api::{ApiError, ErrorCode, Limits, Work, excerpt};
use linkpath_engine::Stop;
use metrics_exporter_prometheus::PrometheusHandle;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tower::util::{MapRequestLayer, MapResponseLayer};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tracing::Instrument;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub limits: Limits,
    /// One permit per solve that may run at once.
    solvers: Arc<Semaphore>,
    /// False once shutdown has begun: `/readyz` answers 503.
    pub ready: Arc<AtomicBool>,
    prometheus: PrometheusHandle,
    body_timeout: Duration,
    /// What request bodies and unwritten answers may hold at once.
    pub memory: memory::MemoryBudget,
    /// How long a body waits for room in the memory budget.
    memory_wait: Duration,
    api_keys: access::ApiKeys,
    /// The per-client rate limit, when configured.
    limiter: Option<access::ClientLimiter>,
    /// The games held, and their store.
    games: Arc<games::Games>,
}

impl AppState {
    /// The state of a server keeping its games in the store `config`
    /// names; the error says why the store did not open.
    pub fn open(config: Config) -> Result<Self, linkpath_store::StoreError> {
        let store = linkpath_store::Store::open(&config.games.store, store_limits(&config))?;
        Ok(AppState::with_store(config, store))
    }

    /// The state of a server keeping its games in memory, whatever
    /// `config` names: for tests and embedding.
    pub fn new(config: Config) -> Self {
        let store =
            linkpath_store::Store::open(&linkpath_store::StoreSpec::Memory, store_limits(&config))
                .expect("a memory store opens");
        AppState::with_store(config, store)
    }

    fn with_store(config: Config, store: linkpath_store::Store) -> Self {
        // Streams bounded to leave connections to other requests.
        let game_settings = config::GameSettings {
            max_streams: config.stream_bound(),
            ..config.games.clone()
        };
        let games = games::Games::new(store, &game_settings, config.limits());
        AppState {
            games: Arc::new(games),
            limits: config.limits(),
            solvers: Arc::new(Semaphore::new(config.workers())),
            ready: Arc::new(AtomicBool::new(true)),
            prometheus: prometheus(),
            body_timeout: Duration::from_millis(config.body_timeout_ms),
            memory: memory::MemoryBudget::new(config.memory_budget()),
            memory_wait: Duration::from_millis(config.memory_wait_ms),
            api_keys: access::ApiKeys::new(&config.api_keys),
            limiter: NonZeroU32::new(config.rate_limit_per_second).map(|rate| {
                let burst = config.rate_limit_burst.unwrap_or(config::DEFAULT_BURST);
                let burst = NonZeroU32::new(burst).unwrap_or(rate);
                access::ClientLimiter::new(rate, burst)
            }),
            config: Arc::new(config),
        }
    }

    /// Marks the server as shutting down: `/readyz` turns 503.
    pub fn begin_shutdown(&self) {
        self.ready.store(false, Ordering::Relaxed);
    }

    /// A solver slot, or 503 when all are taken.
    pub(crate) fn solver_slot(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        self.solvers
            .clone()
            .try_acquire_owned()
            .map_err(|_| self.no_solver_slot())
    }

    /// 503 when every solver slot is taken now: a body is not read that
    /// could not be worked on.
    pub(crate) fn any_solver_slot(&self) -> Result<(), ApiError> {
        if self.solvers.available_permits() == 0 {
            return Err(self.no_solver_slot());
        }
        Ok(())
    }

    fn no_solver_slot(&self) -> ApiError {
        ApiError::new(
            ErrorCode::Overloaded,
            format!(
                "all {} solver slots are busy, retry shortly",
                self.config.workers()
            ),
        )
        .retry_after(1)
    }

    /// Runs `work` on the blocking pool holding `permit`, with a [`Stop`]
    /// that passes the deadline or is cancelled when the client goes away.
    /// The permit is released only when the work has really stopped.
    pub(crate) async fn run_blocking<T: Send + 'static>(
        &self,
        permit: OwnedSemaphorePermit,
        what: Work,
        work: impl FnOnce(&Stop) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let timeout = self.config.solve_timeout();
        let deadline = Instant::now() + timeout;
        let cancel = CancelOnDrop(Arc::new(AtomicBool::new(false)));
        let flag = cancel.0.clone();
        let task = tokio::task::spawn_blocking(move || {
            let _in_flight = metrics::InFlight::start();
            let _permit = permit;
            let stop = Stop::never().with_deadline(deadline).with_flag(&flag);
            work(&stop)
        });
        // The search polls its deadline; parsing a large body does not, so
        // the wait is bounded too, and the flag stops whatever comes next.
        let waited = tokio::time::timeout(timeout + Duration::from_millis(50), task).await;
        match waited {
            Ok(Ok(result)) => result,
            Ok(Err(join)) => {
                metrics::record_panic();
                tracing::error!(error = %join, "a solve panicked");
                Err(ApiError::new(ErrorCode::Internal, "internal error"))
            }
            Err(_) => Err(what.stopped(linkpath_engine::Interrupted::Deadline)),
        }
    }
}

fn store_limits(config: &Config) -> linkpath_store::StoreLimits {
    linkpath_store::StoreLimits {
        max_games: config.games.max_games,
        max_keys_per_game: config.games.max_keys_per_game,
        max_kept_bytes: config.games.max_kept_bytes,
        max_boards: config.games.max_leaderboards,
        board_size: usize::from(config.games.leaderboard_size),
        timeout: Duration::from_millis(config.games.store_timeout_ms),
    }
}

/// Sets the flag when the request's future is dropped (client gone, or the
/// wait timed out), so the blocking search stops too.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The process-wide Prometheus recorder; installed once, shared by every
/// app built in the process (tests build many).
fn prometheus() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(metrics::install).clone()
}

/// The whole router with its middleware.
pub fn app(state: AppState) -> Router {
    let x_request_id = HeaderName::from_static("x-request-id");
    let cors = access::cors(&state.config.cors_origins);
    let router = Router::new()
        .merge(solve::router())
        .merge(game::router())
        .merge(games::router())
        .merge(render::router())
        .merge(playground::router())
        .merge(health::router())
        .merge(openapi::router())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .route_layer(middleware::from_fn(remember_route))
        .layer(CatchPanicLayer::custom(panicked))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            access::rate_limit,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            access::require_api_key,
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
    let span = tracing::error_span!(
        "request",
        request_id,
        trace_id = tracing::field::Empty,
        span_id = tracing::field::Empty
    );
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
    trace::describe(&span, metrics::method_label(method.as_str()), route, status);
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
