//! One HTTP client for every test: the router driven in process with
//! `tower::ServiceExt::oneshot`, a real server on `127.0.0.1:0` stopped by
//! a oneshot channel, and over a socket the raw client of
//! `linkpath_testkit`, re-exported here.

use axum::Router;
use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use linkpath_server::{AppState, Clock, Config, app};
pub use linkpath_testkit::http::*;
use serde_json::Value;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tower::ServiceExt;

/// Settings for tests: the defaults with a fixed worker count, so tests do
/// not depend on the machine's cores, and no shutdown grace, so stopping a
/// test server is quick (the tests of the grace set their own).
pub fn config() -> Config {
    let defaults = Config::default();
    Config {
        workers: Some(4),
        shutdown_grace_ms: 0,
        // An unoptimised build on a busy 2-core machine can take more than
        // the default 10 s over a million-cell shuffle; a test of the
        // deadline sets its own.
        request: linkpath_server::RequestLimits {
            solve_timeout_ms: 120_000,
            ..defaults.request.clone()
        },
        ..defaults
    }
}

/// The router over `config`.
pub fn router(config: Config) -> Router {
    app(AppState::new(config))
}

/// The games' time held still, moved on only by [`HeldClock::advance`]:
/// a test of a time limit or an expiry moves it instead of sleeping.
pub struct HeldClock(AtomicU64);

impl HeldClock {
    /// A clock held at the machine's time now.
    pub fn now() -> Arc<Self> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("after the epoch")
            .as_millis() as u64;
        Arc::new(HeldClock(AtomicU64::new(now)))
    }

    pub fn advance(&self, by: Duration) {
        self.0.fetch_add(by.as_millis() as u64, Ordering::Relaxed);
    }
}

impl Clock for HeldClock {
    fn now_ms(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// The router over `config`, its games' time read from `clock`.
pub fn router_on(config: Config, clock: Arc<HeldClock>) -> Router {
    app(AppState::in_memory(config, clock))
}

/// A JSON POST to `path` with `body` and these headers: a game's action.
pub fn action(path: &str, body: &str, headers: &[(&str, &str)]) -> Request<Body> {
    let mut request = Request::post(path).header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request
        .body(Body::from(body.to_owned()))
        .expect("a request")
}

/// Sends one request through the router, no socket.
pub async fn call(router: &Router, request: Request<Body>) -> Reply {
    let response = bounded("a oneshot request", router.clone().oneshot(request))
        .await
        .expect("the router is infallible");
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_owned(),
                v.to_str().expect("an ASCII header").to_owned(),
            )
        })
        .collect();
    let body = bounded("reading a response body", response.into_body().collect())
        .await
        .expect("the body reads")
        .to_bytes()
        .to_vec();
    Reply {
        status,
        headers,
        body,
    }
}

/// `POST path` with a JSON body.
pub fn post_request(path: &str, body: impl Into<Body>) -> Request<Body> {
    Request::post(path)
        .header("content-type", "application/json")
        .body(body.into())
        .expect("a valid request")
}

/// `POST /v1/solve` with a JSON body.
pub fn solve_request(body: impl Into<Body>) -> Request<Body> {
    post_request("/v1/solve", body)
}

/// Posts `body` to `path` through `router`.
pub async fn post(router: &Router, path: &str, body: &Value) -> Reply {
    call(router, post_request(path, body.to_string())).await
}

/// Solves `body` through `router`.
pub async fn solve(router: &Router, body: &Value) -> Reply {
    call(router, solve_request(body.to_string())).await
}

/// `GET path`.
pub fn get(path: &str) -> Request<Body> {
    Request::get(path)
        .body(Body::empty())
        .expect("a valid request")
}

/// A real server on `127.0.0.1:0`, stopped through a oneshot channel.
pub struct Server {
    pub addr: SocketAddr,
    /// The admin listener's address, when started with one.
    pub admin: Option<SocketAddr>,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
}

impl Server {
    pub async fn start(config: Config) -> Server {
        Server::start_listening(config, false).await
    }

    /// [`Server::start`] with an admin listener on another loopback port.
    pub async fn start_with_admin(config: Config) -> Server {
        Server::start_listening(config, true).await
    }

    async fn start_listening(config: Config, with_admin: bool) -> Server {
        let bind = || async {
            TcpListener::bind("127.0.0.1:0")
                .await
                .expect("binding a loopback port")
        };
        let listener = bind().await;
        let addr = listener.local_addr().expect("a local address");
        let admin = if with_admin { Some(bind().await) } else { None };
        let admin_addr = admin
            .as_ref()
            .map(|admin| admin.local_addr().expect("a local address"));
        let state = AppState::new(config);
        let (tx, rx) = oneshot::channel::<()>();
        let shutdown = async move {
            let _ = rx.await;
        };
        let task = tokio::spawn(linkpath_server::run_with_admin(
            listener,
            admin,
            state.clone(),
            shutdown,
        ));
        Server {
            addr,
            admin: admin_addr,
            shutdown: Some(tx),
            task,
        }
    }

    /// Resolves the shutdown future.
    pub fn begin_shutdown(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            tx.send(()).expect("the server is still running");
        }
    }

    /// Whether `run_with_admin` has returned.
    pub fn finished(&self) -> bool {
        self.task.is_finished()
    }

    /// Shuts down (if not yet) and waits for `run_with_admin` to return.
    pub async fn stop(mut self) -> std::io::Result<()> {
        self.begin_shutdown();
        bounded("the server shutdown", self.task)
            .await
            .expect("the server task did not panic")
    }
}

/// A connection from `ip` (any 127.x.y.z works on Linux loopback).
pub async fn connect_from(ip: Ipv4Addr, addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("a socket");
    socket
        .bind(SocketAddr::new(IpAddr::V4(ip), 0))
        .expect("binding a loopback address");
    bounded("connecting", socket.connect(addr))
        .await
        .expect("the server accepts connections")
}

// ------------------------------------------------------------ the slots

/// A solve that needs a slot but no work: 503 when every slot is busy,
/// 422 (an empty board) when one is free, holding it for microseconds.
pub fn slot_probe() -> Vec<u8> {
    solve_bytes(&serde_json::json!({"board": [], "queries": []}), &[])
}

/// Whether a solver slot is free: true on 422, false on 503.
pub async fn slot_free(addr: SocketAddr) -> bool {
    let reply = exchange(addr, &slot_probe()).await;
    match reply.status {
        422 => true,
        503 => false,
        other => panic!("the probe got {other}: {:?}", reply.json()),
    }
}

/// Sends a long solve with `send` until it holds the only slot: a probe
/// can take the slot for an instant just as the solve arrives, and then the
/// solve itself is shed, so a shed solve is sent again.
pub async fn hold_the_slot<T: Send + 'static>(
    addr: SocketAddr,
    send: impl Fn() -> tokio::task::JoinHandle<T>,
) -> tokio::task::JoinHandle<T> {
    hold_the_slot_by(|| slot_free(addr), send).await
}

/// Whether the router's only solver slot is free: true on 422, false on
/// 503.
pub async fn router_slot_free(router: &Router) -> bool {
    let probe = solve_request(r#"{"board": [], "queries": []}"#);
    match call(router, probe).await.status {
        422 => true,
        503 => false,
        other => panic!("the probe got {other}"),
    }
}

/// [`hold_the_slot`], the slot probed by `free`.
pub async fn hold_the_slot_by<T: Send + 'static, F: Future<Output = bool>>(
    free: impl Fn() -> F,
    send: impl Fn() -> tokio::task::JoinHandle<T>,
) -> tokio::task::JoinHandle<T> {
    let started = std::time::Instant::now();
    loop {
        let task = send();
        loop {
            if task.is_finished() {
                break; // shed: send it again
            }
            if !free().await {
                return task;
            }
            assert!(
                started.elapsed() < LIMIT,
                "the slot did not turn busy within {LIMIT:?}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
        assert!(
            started.elapsed() < LIMIT,
            "the solve never took the slot within {LIMIT:?}"
        );
    }
}
