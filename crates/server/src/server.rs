//! Serving the router on a listener: hyper's HTTP/1 connections with a
//! header-read timeout, a write timeout and a lingering close (see
//! [`super::socket`]), a cap on open connections that closes idle ones to
//! make room and one per client address (see [`super::connection`]), and a
//! graceful shutdown that lets every accepted request finish.
//!
//! Connections that send their requests too slowly are cut (see
//! [`super::connection`]), and probes and scrapes can have a listener of
//! their own, which application traffic cannot fill.

use super::connection::{Connections, Link, ReceiveRate};
use super::error::{ApiError, ErrorCode};
use super::socket::{Bounds, Socket};
use super::{AppState, app};
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, watch};
use tower_http::add_extension::AddExtensionLayer;

/// Serves until `shutdown` resolves, then: `/readyz` turns 503, new
/// connections are still taken for the grace period, the listener closes,
/// and in-flight requests get up to the drain timeout to finish.
pub async fn run(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    run_with_admin(listener, None, state, shutdown).await
}

/// [`run`], with `/healthz`, `/readyz` and `/metrics` served on `admin`
/// too, until the main listener is done.
pub async fn run_with_admin(
    listener: TcpListener,
    admin: Option<TcpListener>,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let config = state.config.clone();
    let admin = admin.map(|admin| tokio::spawn(serve_admin(admin, state.clone())));
    let router = app(state.clone());
    let connections = Connections::new(
        config.max_connections,
        config.max_connections_per_client,
        ReceiveRate {
            min: config.min_receive_rate,
            grace: Duration::from_millis(config.receive_grace_ms),
        },
        state.memory.clone(),
    );
    let too_many = too_many_connections(connections.per_client());
    // Every connection holds a receiver; the sender's `closed` resolves
    // once all of them have finished.
    let (stop_connections, _) = watch::channel(());
    let header_timeout = Duration::from_millis(config.header_timeout_ms.max(1));
    let bounds = Bounds {
        write_timeout: (config.write_timeout_ms > 0)
            .then(|| Duration::from_millis(config.write_timeout_ms)),
        linger: Duration::from_millis(config.linger_ms),
        linger_bytes: config.linger_bytes,
    };
    let upkeep = tokio::spawn({
        let handle = state.prometheus.clone();
        let limiter = state.limiter.clone();
        async move {
            let mut tick = tokio::time::interval(Duration::from_secs(5));
            loop {
                tick.tick().await;
                handle.run_upkeep();
                if let Some(limiter) = &limiter {
                    limiter.forget_idle();
                }
            }
        }
    });

    let serve_connection =
        |stream: TcpStream, peer: SocketAddr, slot: Option<OwnedSemaphorePermit>| {
            let _ = stream.set_nodelay(true);
            let registration = connections.register(peer.ip(), slot);
            let link = registration.link().clone();
            let service = TowerToHyperService::new(
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
                    .service(router.clone()),
            );
            let connection = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(
                    TokioIo::new(Socket::new(stream, link.clone(), bounds)),
                    service,
                );
            let stop = stop_connections.subscribe();
            tokio::spawn(async move {
                drive(connection, &link, stop).await;
                drop(registration);
            });
        };

    let refuse = |stream: TcpStream, peer: SocketAddr| {
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
        let _ = stream.try_write(&too_many);
    };

    let watch_senders = async {
        let mut tick = tokio::time::interval(Duration::from_millis(250));
        loop {
            tick.tick().await;
            connections.cut_slow_senders();
        }
    };
    let accept = async {
        tokio::pin!(shutdown);
        loop {
            let (stream, peer) = tokio::select! {
                () = &mut shutdown => return,
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        // Out of file descriptors and the like: back off
                        // briefly.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
            };
            if !connections.admits(peer.ip()) {
                refuse(stream, peer);
                continue;
            }
            // One client at a time waits here for room, in our memory as a
            // socket only; the others wait in the kernel's backlog.
            tokio::select! {
                () = &mut shutdown => {
                    serve_connection(stream, peer, None);
                    return;
                }
                slot = connections.slot() => match slot {
                    Some(slot) => serve_connection(stream, peer, Some(slot)),
                    None => return,
                },
            }
        }
    };
    // Slow senders are watched while the server accepts; after that the
    // drain timeout bounds them.
    tokio::select! {
        () = accept => {}
        () = watch_senders => {}
    }
    state.begin_shutdown();
    tracing::info!(
        grace_ms = config.shutdown_grace_ms,
        "shutting down: readiness is now 503"
    );
    // Keep taking connections for the grace period so that load balancers
    // see the 503 on /readyz before the port closes.
    let grace = tokio::time::sleep(Duration::from_millis(config.shutdown_grace_ms));
    tokio::pin!(grace);
    loop {
        tokio::select! {
            () = &mut grace => break,
            accepted = listener.accept() => {
                if let Ok((stream, peer)) = accepted {
                    if !connections.admits(peer.ip()) {
                        refuse(stream, peer);
                    } else if let Some(slot) = connections.try_slot() {
                        serve_connection(stream, peer, Some(slot));
                    } else {
                        // Full during the grace: closed unanswered, which a
                        // load balancer reads as not ready, as it should.
                        drop(stream);
                    }
                }
            }
        }
    }
    drop(listener);
    stop_connections.send_replace(());
    let drain = Duration::from_millis(config.drain_timeout_ms);
    tokio::select! {
        () = stop_connections.closed() => tracing::info!("every connection finished"),
        () = tokio::time::sleep(drain) => tracing::warn!(drain_ms = config.drain_timeout_ms, "drain timeout passed with connections still open"),
    }
    upkeep.abort();
    if let Some(admin) = admin {
        admin.abort();
    }
    Ok(())
}

/// The admin listener: the probes and the metrics, on at most
/// `--admin-max-connections` connections of its own (one more waits in the
/// accept queue), each closed after [`ADMIN_CONNECTION_LIFETIME`] so that
/// none holds its place for good.
async fn serve_admin(listener: TcpListener, state: AppState) {
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(
        state.config.admin_max_connections.max(1),
    ));
    let router = super::admin_app(state.clone());
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
