//! Serving the router on a listener: hyper's HTTP/1 connections with a
//! header-read timeout, a cap on open connections, and a graceful shutdown
//! that lets every accepted request finish.

use super::{AppState, app};
use axum::extract::ConnectInfo;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tower_http::add_extension::AddExtensionLayer;

/// Serves until `shutdown` resolves, then: `/readyz` turns 503, new
/// connections are still taken for the grace period, the listener closes,
/// and in-flight requests get up to the drain timeout to finish.
pub async fn run(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let config = state.config.clone();
    let router = app(state.clone());
    let connections = Arc::new(Semaphore::new(config.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let header_timeout = Duration::from_millis(config.header_timeout_ms.max(1));
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

    let serve_connection = |stream: TcpStream, slot: Option<OwnedSemaphorePermit>| {
        let _ = stream.set_nodelay(true);
        // The peer address, for the per-client rate limit.
        let peer = stream.peer_addr().ok();
        let service = TowerToHyperService::new(
            tower::ServiceBuilder::new()
                .option_layer(peer.map(|p| AddExtensionLayer::new(ConnectInfo(p))))
                .service(router.clone()),
        );
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(header_timeout)
            .serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(slot);
        });
    };

    let accept = async {
        loop {
            // Wait for a free connection slot before accepting, so excess
            // clients wait in the kernel's backlog, not in our memory.
            let Ok(slot) = connections.clone().acquire_owned().await else {
                return;
            };
            let (stream, _) = match listener.accept().await {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: back off briefly.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            serve_connection(stream, Some(slot));
        }
    };

    tokio::select! {
        () = accept => {}
        () = shutdown => {}
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
                if let Ok((stream, _)) = accepted {
                    serve_connection(stream, None);
                }
            }
        }
    }
    drop(listener);
    let drain = Duration::from_millis(config.drain_timeout_ms);
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("every connection finished"),
        () = tokio::time::sleep(drain) => tracing::warn!(drain_ms = config.drain_timeout_ms, "drain timeout passed with connections still open"),
    }
    upkeep.abort();
    Ok(())
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
