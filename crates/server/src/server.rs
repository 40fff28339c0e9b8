//! Serving the router on a listener: hyper's HTTP/1 connections with a
//! header-read timeout, a write timeout and a lingering close (see
//! [`super::socket`]), a cap on open connections that closes idle ones to
//! make room and one per client address (see [`super::connection`]), and a
//! graceful shutdown that lets every accepted request finish.
//!
//! Connections that send their requests too slowly are cut (see
//! [`super::connection`]), and probes and scrapes can have a listener of
//! their own, which application traffic cannot fill.

use super::connection::{Connections, Link, ReceiveRate, ResponseBody};
use super::error::{ApiError, ErrorCode};
use super::socket::{Bounds, Socket};
use crate::app::{admin_app, app};
use crate::state::AppState;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::HttpService;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, watch};
use tower_http::add_extension::AddExtensionLayer;

/// Serves until `shutdown` resolves, with `/healthz`, `/readyz` and
/// `/metrics` served on `admin` too, when there is one, until the main
/// listener is done. Once `shutdown` resolves: `/readyz` turns 503, new
/// connections are still taken for the grace period, the listener closes,
/// and in-flight requests get up to the drain timeout to finish.
pub async fn run_with_admin(
    listener: TcpListener,
    admin: Option<TcpListener>,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let config = state.config.clone();
    let admin = admin.map(|admin| tokio::spawn(serve_admin(admin, state.clone())));
    let listener = Listener::new(listener, &state);
    let upkeep = spawn_upkeep(&state);
    let purge = tokio::spawn(crate::games::purge_loop(state.games().clone()));
    let heartbeat = tokio::spawn(crate::games::heartbeat_loop(state.games().clone()));
    let sweep = tokio::spawn(crate::matches::sweep_loop(state.matches().clone()));
    // No archive set (Redis, none named): finished games expire as
    // before, and nothing is copied.
    let archiver = state.archives().spec().is_some().then(|| {
        tokio::spawn(crate::archive::archive_loop(
            state.archives().clone(),
            state.games().clone(),
        ))
    });
    listener.accept_until(shutdown).await;
    state.begin_shutdown();
    tracing::info!(
        grace_ms = config.shutdown_grace_ms,
        "shutting down: readiness is now 503"
    );
    // Keep taking connections for the grace period so that load balancers
    // see the 503 on /readyz before the port closes.
    listener
        .accept_during_grace(Duration::from_millis(config.shutdown_grace_ms))
        .await;
    listener.drain(config.drain_timeout_ms).await;
    upkeep.abort();
    purge.abort();
    heartbeat.abort();
    sweep.abort();
    if let Some(archiver) = archiver {
        archiver.abort();
    }
    if let Some(admin) = admin {
        admin.abort();
    }
    Ok(())
}

/// Every five seconds, the metrics' upkeep and the rate limiter's
/// forgetting of idle clients.
fn spawn_upkeep(state: &AppState) -> tokio::task::JoinHandle<()> {
    let handle = state.prometheus().clone();
    let limiter = state.limiter().cloned();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(5));
        loop {
            tick.tick().await;
            handle.run_upkeep();
            if let Some(limiter) = &limiter {
                limiter.forget_idle();
            }
        }
    })
}

/// The serve loop: takes connections from the listener, refuses a client
/// over its limit and hands each admitted connection to [`drive`] on a task
/// of its own.
struct Listener {
    listener: TcpListener,
    connections: Connections,
    router: axum::Router,
    header_timeout: Duration,
    bounds: Bounds,
    /// Every connection holds a receiver; the sender's `closed` resolves
    /// once all of them have finished.
    stop_connections: watch::Sender<()>,
    /// What a client over the per-client limit is sent.
    too_many: Vec<u8>,
}

impl Listener {
    fn new(listener: TcpListener, state: &AppState) -> Self {
        let config = &state.config;
        let router = app(state.clone());
        let connections = Connections::new(
            config.max_connections,
            config.max_connections_per_client,
            ReceiveRate {
                min: config.min_receive_rate,
                grace: Duration::from_millis(config.receive_grace_ms),
            },
            state.memory().clone(),
        );
        Listener {
            listener,
            too_many: too_many_connections(connections.per_client()),
            connections,
            router,
            header_timeout: Duration::from_millis(config.header_timeout_ms.max(1)),
            bounds: Bounds {
                write_timeout: (config.write_timeout_ms > 0)
                    .then(|| Duration::from_millis(config.write_timeout_ms)),
                linger: Duration::from_millis(config.linger_ms),
                linger_bytes: config.linger_bytes,
            },
            stop_connections: watch::channel(()).0,
        }
    }

    /// Accepts until `shutdown` resolves.
    async fn accept_until(&self, shutdown: impl Future<Output = ()>) {
        // Slow senders are watched while the server accepts; after that the
        // drain timeout bounds them.
        tokio::select! {
            () = self.accept(shutdown) => {}
            () = self.watch_senders() => {}
        }
    }

    async fn accept(&self, shutdown: impl Future<Output = ()>) {
        tokio::pin!(shutdown);
        loop {
            let admitted = tokio::select! {
                () = &mut shutdown => return,
                admitted = self.next_admitted() => admitted,
            };
            let (stream, peer) = match admitted {
                Ok(Some(admitted)) => admitted,
                Ok(None) => continue,
                Err(e) => {
                    // Out of file descriptors and the like: back off
                    // briefly.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            // One client at a time waits here for room, in our memory as a
            // socket only; the others wait in the kernel's backlog.
            tokio::select! {
                () = &mut shutdown => {
                    self.serve(stream, peer, None);
                    return;
                }
                slot = self.connections.slot() => match slot {
                    Some(slot) => self.serve(stream, peer, Some(slot)),
                    None => return,
                },
            }
        }
    }

    async fn watch_senders(&self) {
        let mut tick = tokio::time::interval(Duration::from_millis(250));
        loop {
            tick.tick().await;
            self.connections.cut_slow_senders();
        }
    }

    /// Accepts for `grace` more, serving only what finds a free slot.
    async fn accept_during_grace(&self, grace: Duration) {
        let grace = tokio::time::sleep(grace);
        tokio::pin!(grace);
        loop {
            let admitted = tokio::select! {
                () = &mut grace => return,
                admitted = self.next_admitted() => admitted,
            };
            let Ok(Some((stream, peer))) = admitted else {
                continue;
            };
            match self.connections.try_slot() {
                Some(slot) => self.serve(stream, peer, Some(slot)),
                // Full during the grace: closed unanswered, which a load
                // balancer reads as not ready, as it should.
                None => drop(stream),
            }
        }
    }

    /// Closes the listener, asks every connection to close and waits up to
    /// `drain_ms` for them to finish.
    async fn drain(self, drain_ms: u64) {
        drop(self.listener);
        self.stop_connections.send_replace(());
        tokio::select! {
            () = self.stop_connections.closed() => tracing::info!("every connection finished"),
            () = tokio::time::sleep(Duration::from_millis(drain_ms)) => tracing::warn!(drain_ms, "drain timeout passed with connections still open"),
        }
    }

    /// The next connection accepted, unless its client is over the
    /// per-client limit: then it is refused, and there is none.
    async fn next_admitted(&self) -> std::io::Result<Option<(TcpStream, SocketAddr)>> {
        let (stream, peer) = self.listener.accept().await?;
        if !self.connections.admits(peer.ip()) {
            self.refuse(stream, peer);
            return Ok(None);
        }
        Ok(Some((stream, peer)))
    }

    /// Serves `stream` on a task of its own, holding `slot` (none when the
    /// shutdown came while it waited for one).
    fn serve(&self, stream: TcpStream, peer: SocketAddr, slot: Option<OwnedSemaphorePermit>) {
        let _ = stream.set_nodelay(true);
        let registration = self.connections.register(peer.ip(), slot);
        let link = registration.link().clone();
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(self.header_timeout)
            .serve_connection(
                TokioIo::new(Socket::new(stream, link.clone(), self.bounds)),
                self.service(peer, &link),
            );
        let stop = self.stop_connections.subscribe();
        tokio::spawn(async move {
            drive(connection, &link, stop).await;
            drop(registration);
        });
    }

    /// The router, with the connection's `link` watching its requests and
    /// answers.
    fn service(
        &self,
        peer: SocketAddr,
        link: &Arc<Link>,
    ) -> impl HttpService<Incoming, ResBody = ResponseBody, Error = Infallible, Future: Send>
    + Send
    + use<> {
        TowerToHyperService::new(
            tower::ServiceBuilder::new()
                .map_request({
                    let link = link.clone();
                    move |request: axum::http::Request<Incoming>| link.request(request)
                })
                .map_response({
                    let link = link.clone();
                    move |response| link.response(response)
                })
                // The peer address, for the per-client rate limit.
                .layer(AddExtensionLayer::new(ConnectInfo(peer)))
                .service(self.router.clone()),
        )
    }

    /// Answers a client over the per-client limit with 429 and closes.
    fn refuse(&self, stream: TcpStream, peer: SocketAddr) {
        tracing::debug!(client = %peer.ip(), "refused a connection over the per-client limit");
        super::metrics::record_rejection(ErrorCode::RateLimited);
        // Best effort and never waiting: what the client already sent is
        // read so that the close is not a reset, then the answer is
        // written into the empty send buffer.
        // At most 64 KiB: a client writing as fast as this reads would
        // otherwise hold the accept loop.
        let mut discard = [0u8; 4096];
        for _ in 0..16 {
            if !matches!(stream.try_read(&mut discard), Ok(n) if n > 0) {
                break;
            }
        }
        let _ = stream.try_write(&self.too_many);
    }
}

/// The admin listener: the probes and the metrics, on at most
/// `--admin-max-connections` connections of its own (one more waits in the
/// accept queue), each closed after [`ADMIN_CONNECTION_LIFETIME`] so that
/// none holds its place for good.
async fn serve_admin(listener: TcpListener, state: AppState) {
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(
        state.config.admin_max_connections.max(1),
    ));
    let router = admin_app(state.clone());
    let header_timeout = Duration::from_millis(state.config.header_timeout_ms.max(1));
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                tracing::warn!(error = %e, "admin accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(header_timeout)
            .serve_connection(
                TokioIo::new(stream),
                TowerToHyperService::new(router.clone()),
            );
        tokio::spawn(async move {
            let _slot = slot;
            let _ = tokio::time::timeout(ADMIN_CONNECTION_LIFETIME, connection).await;
        });
    }
}

/// The longest an admin connection stays open.
const ADMIN_CONNECTION_LIFETIME: Duration = Duration::from_secs(60);

/// Runs one connection to its end. Asked to close, by the shutdown or to
/// make room, it finishes the exchange under way (hyper's graceful
/// shutdown closes an idle connection at once); a lingering one is closed
/// at once, since its answer is already sent.
async fn drive<F>(connection: F, link: &Link, mut stop: watch::Receiver<()>)
where
    F: Future<Output = hyper::Result<()>> + GracefulClose,
{
    tokio::pin!(connection);
    let mut closing = false;
    loop {
        tokio::select! {
            // The connection first: on a request to close, hyper reads what
            // has arrived, and a connection that turns out busy declines.
            biased;
            ended = connection.as_mut() => {
                if let Err(e) = ended {
                    tracing::debug!(error = %e, "connection ended with an error");
                }
                return;
            }
            // Sending too slowly: dropped with its request.
            () = link.cut_off() => return,
            () = link.asked_to_close(), if !closing => {
                if link.is_lingering() {
                    return;
                }
                if !link.is_asked_to_close() {
                    continue;
                }
                link.closing();
                connection.as_mut().close_gracefully();
                closing = true;
            }
            // The answers of lingering connections are sent: the shutdown
            // does not wait for them, nor lets new ones begin.
            _ = stop.changed(), if !closing => {
                if link.stop_lingering() {
                    return;
                }
                link.closing();
                connection.as_mut().close_gracefully();
                closing = true;
            }
        }
    }
}

/// hyper's `graceful_shutdown`, under a name [`drive`] can ask for.
trait GracefulClose {
    fn close_gracefully(self: std::pin::Pin<&mut Self>);
}

impl<I, S, B> GracefulClose for http1::Connection<I, S>
where
    S: hyper::service::HttpService<Incoming, ResBody = B>,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    I: hyper::rt::Read + hyper::rt::Write + Unpin,
    B: hyper::body::Body + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    fn close_gracefully(self: std::pin::Pin<&mut Self>) {
        self.graceful_shutdown();
    }
}

/// The whole answer to a connection over the per-client limit: 429 and
/// close.
fn too_many_connections(limit: usize) -> Vec<u8> {
    let error = ApiError::new(
        ErrorCode::RateLimited,
        format!("more than {limit} connections from this address, over the limit"),
    );
    let body = serde_json::to_vec(&error.body()).unwrap_or_default();
    let mut answer = format!(
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n\
         retry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    answer.extend_from_slice(&body);
    answer
}

/// A listener on `address` whose accept queue holds `backlog`
/// connections (tokio's `TcpListener::bind` holds 1,024).
pub fn bind(address: SocketAddr, backlog: u32) -> std::io::Result<TcpListener> {
    let socket = match address {
        SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
        SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
    };
    // As tokio's bind does: a restarted server takes its port at once.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(backlog)
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}
