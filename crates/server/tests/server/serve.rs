//! The service over real sockets: `run_with_admin` on `127.0.0.1:0` driven by
//! a tiny HTTP/1.1 client (answers, request ids, metrics, readiness during a
//! graceful shutdown, slow clients), then the built `linkpath` binary:
//! `linkpath solve` on request files and `linkpath serve` stopped by
//! SIGTERM while a request is in flight.

use crate::support::{
    Server, bounded, config, connect, exchange, http_get, mahjong_sample, mahjong_sample_results,
    parse, read_to_end, request_bytes, solve_bytes,
};
use linkpath_testkit::{finish, start_slow_solve};
use serde_json::json;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The value of the sample `metric{labels}` in a Prometheus text page, or
/// 0 when the series is not there yet.
fn sample(page: &str, series: &str) -> f64 {
    page.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .map_or(0.0, |value| value.trim().parse().expect("a number"))
}

async fn metrics(addr: SocketAddr) -> String {
    let reply = http_get(addr, "/metrics").await;
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    reply.text()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_server_answers_solve_health_and_readiness() {
    let server = Server::start(config()).await;
    let reply = exchange(server.addr, &solve_bytes(&mahjong_sample(), &[])).await;
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(reply.results(), mahjong_sample_results());

    let health = http_get(server.addr, "/healthz").await;
    assert_eq!(
        (health.status, health.json()),
        (200, json!({"status": "ok"}))
    );
    let ready = http_get(server.addr, "/readyz").await;
    assert_eq!(ready.status, 200);
    assert_eq!(ready.json()["status"], "ready");
    let missing = http_get(server.addr, "/v1/nothing").await;
    missing.error(404, "not_found");
    let wrong = http_get(server.addr, "/v1/solve").await;
    wrong.error(405, "method_not_allowed");
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_ids_are_echoed_and_generated() {
    let server = Server::start(config()).await;
    let given = exchange(
        server.addr,
        &solve_bytes(&mahjong_sample(), &[("X-Request-Id", "trace-7f3a")]),
    )
    .await;
    assert_eq!(given.status, 200);
    assert_eq!(given.header("x-request-id"), Some("trace-7f3a"));
    let error = exchange(
        server.addr,
        &request_bytes("GET", "/nowhere", &[("x-request-id", "lost-1")], b""),
    )
    .await;
    assert_eq!(
        (error.status, error.header("x-request-id")),
        (404, Some("lost-1"))
    );
    let mut generated = Vec::new();
    for _ in 0..2 {
        let reply = http_get(server.addr, "/healthz").await;
        let id = reply.header("x-request-id").expect("an id").to_owned();
        // A UUID: 36 characters, 4 dashes.
        assert_eq!((id.len(), id.matches('-').count()), (36, 4), "{id}");
        generated.push(id);
    }
    assert_ne!(generated[0], generated[1]);
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_requests_queries_and_rejections() {
    let mut config = config();
    config.request.max_body_bytes = 1000;
    let server = Server::start(config).await;
    let solved = r#"linkpath_http_requests_total{route="/v1/solve",method="POST",status="200"}"#;
    let too_large = r#"linkpath_http_requests_total{route="/v1/solve",method="POST",status="413"}"#;
    let connected = r#"linkpath_queries_total{rules="mahjong",outcome="connected"}"#;
    let no_path = r#"linkpath_queries_total{rules="mahjong",outcome="no_path"}"#;
    let rejected = r#"linkpath_rejected_total{reason="too_large"}"#;
    let before = metrics(server.addr).await;

    for _ in 0..2 {
        let reply = exchange(server.addr, &solve_bytes(&mahjong_sample(), &[])).await;
        assert_eq!(reply.results(), mahjong_sample_results());
    }
    // Refused by its Content-Length before a byte of the body is read.
    let mut stream = connect(server.addr).await;
    let head = "POST /v1/solve HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
                Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n";
    stream.write_all(head.as_bytes()).await.unwrap();
    let reply = parse(&read_to_end(&mut stream).await);
    let (message, _) = reply.error(413, "too_large");
    assert_eq!(
        message,
        "the body is 5000 bytes, over the limit of 1000 bytes"
    );

    let after = metrics(server.addr).await;
    for (series, at_least) in [
        (solved, 2.0),
        (too_large, 1.0),
        (connected, 4.0),
        (no_path, 2.0),
        (rejected, 1.0),
    ] {
        let grew = sample(&after, series) - sample(&before, series);
        assert!(grew >= at_least, "{series} grew by {grew}:\n{after}");
    }
    for name in [
        "linkpath_http_requests_total",
        "linkpath_http_request_duration_seconds_bucket",
        "linkpath_http_request_duration_seconds_count",
        "linkpath_queries_total",
        "linkpath_solve_duration_seconds_bucket",
        "linkpath_solves_in_flight",
        "linkpath_rejected_total",
    ] {
        assert!(
            after.lines().any(|l| l.starts_with(name)),
            "no {name} in\n{after}"
        );
    }
    for described in [
        "# TYPE linkpath_http_requests_total counter",
        "# TYPE linkpath_http_request_duration_seconds histogram",
        "# TYPE linkpath_queries_total counter",
        "# TYPE linkpath_solve_duration_seconds histogram",
        "# TYPE linkpath_solves_in_flight gauge",
        "# TYPE linkpath_rejected_total counter",
    ] {
        assert!(after.contains(described), "no {described:?} in\n{after}");
    }
    // Nothing is solving once the answers are in (other tests of this
    // binary share the gauge, so wait for theirs too).
    bounded("the in-flight gauge to fall to 0", async {
        while sample(&metrics(server.addr).await, "linkpath_solves_in_flight") != 0.0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_is_503_during_the_grace_and_in_flight_requests_finish() {
    // The grace only has to outlast the few requests sent during it: a
    // connection accepted and answered proves the grace had not ended.
    let mut config = config();
    config.shutdown_grace_ms = 3000;
    let mut server = Server::start(config).await;
    let (in_flight, rest) = start_slow_solve(server.addr).await;
    let (late, late_rest) = start_slow_solve(server.addr).await;
    tokio::time::sleep(Duration::from_millis(100)).await;

    let shutdown = Instant::now();
    server.begin_shutdown();
    tokio::time::sleep(Duration::from_millis(50)).await;
    // During the grace: new connections are still taken, readiness is down,
    // liveness is not, and solves are still answered.
    let ready = http_get(server.addr, "/readyz").await;
    assert_eq!(
        (ready.status, ready.json()),
        (503, json!({"status": "shutting_down"}))
    );
    assert_eq!(http_get(server.addr, "/healthz").await.status, 200);
    let fresh = exchange(server.addr, &solve_bytes(&mahjong_sample(), &[])).await;
    assert_eq!(fresh.results(), mahjong_sample_results());
    let reply = finish(in_flight, &rest).await;
    assert_eq!(reply.results(), mahjong_sample_results());

    // After the grace the port closes, and a request that was in flight all
    // along still gets its whole answer.
    let closed = bounded("the port to close", async {
        loop {
            if TcpStream::connect(server.addr).await.is_err() {
                return shutdown.elapsed();
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    // Timed from before the shutdown began: not closed before the grace.
    assert!(
        closed >= Duration::from_millis(3000),
        "closed after {closed:?}"
    );
    assert!(!server.finished(), "run waits for the request in flight");
    let reply = finish(late, &late_rest).await;
    assert_eq!(reply.results(), mahjong_sample_results());
    server.stop().await.expect("run returns Ok");
}

/// How a slow client sends its request head.
enum Slow {
    /// Nothing at all.
    Silent,
    /// Part of the head, then nothing.
    Stalls,
    /// The head one byte every 40 ms: never idle for long, never done.
    Trickles,
}

/// Plays a slow client against a server with a 200 ms header timeout and
/// returns how long the server kept the connection open. The client never
/// closes its side, so the connection ends only when the server closes it.
async fn disconnected_after(slow: Slow) -> Duration {
    let mut config = config();
    config.header_timeout_ms = 200;
    let server = Server::start(config).await;
    // Timed from before connecting: the server's clock starts at accept.
    let started = Instant::now();
    let stream = connect(server.addr).await;
    let (mut reader, mut writer) = stream.into_split();
    let head = b"POST /v1/solve HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
    let sender = tokio::spawn(async move {
        match slow {
            Slow::Silent => {}
            Slow::Stalls => {
                let _ = writer.write_all(&head[..40]).await;
            }
            Slow::Trickles => {
                for byte in head {
                    if writer.write_all(&[*byte]).await.is_err() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(40)).await;
                }
            }
        }
        // Keep the write half open: the server must be the one to close.
        std::future::pending::<()>().await;
        drop(writer);
    });
    let mut buffer = Vec::new();
    let read = bounded(
        "the server to close a slow client's connection",
        reader.read_to_end(&mut buffer),
    )
    .await;
    let took = started.elapsed();
    sender.abort();
    // Closed, by a FIN or, when a trickled byte reaches the socket after
    // the server closed it, by the reset the kernel sends for it.
    let closed = match &read {
        Ok(_) => true,
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
    };
    assert!(closed, "{read:?}");
    // The server may say 408 before it closes; it must close either way.
    if !buffer.is_empty() {
        assert_eq!(parse(&buffer).status, 408);
    }
    // The server itself is fine.
    assert_eq!(http_get(server.addr, "/healthz").await.status, 200);
    server.stop().await.expect("run returns Ok");
    took
}

/// Disconnected by the 200 ms header timeout, not before it.
fn about_the_header_timeout(took: Duration) {
    assert!(
        took >= Duration::from_millis(200),
        "disconnected after {took:?}, before the 200 ms header timeout"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_finishes_its_headers_is_disconnected() {
    about_the_header_timeout(disconnected_after(Slow::Stalls).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_trickles_its_headers_is_disconnected() {
    // The timeout bounds the whole head, not the gaps between bytes.
    about_the_header_timeout(disconnected_after(Slow::Trickles).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_sends_nothing_is_disconnected() {
    about_the_header_timeout(disconnected_after(Slow::Silent).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_stops_coming_is_408() {
    let mut config = config();
    config.body_timeout_ms = 200;
    let server = Server::start(config).await;
    // Timed from before connecting: the server's timer starts later.
    let started = Instant::now();
    let (mut stream, _rest) = start_slow_solve(server.addr).await;
    let reply = parse(&read_to_end(&mut stream).await);
    let took = started.elapsed();
    let (message, field) = reply.error(408, "request_timeout");
    assert!(message.contains("200 ms"), "{message}");
    assert_eq!(field, None);
    assert!(
        took >= Duration::from_millis(200),
        "answered after {took:?}"
    );
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_drain_gives_up_after_its_timeout() {
    let mut config = config();
    config.drain_timeout_ms = 300;
    let mut server = Server::start(config).await;
    // A request whose body never finishes holds the drain open.
    let (_stuck, _rest) = start_slow_solve(server.addr).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    server.begin_shutdown();
    // The stuck request never ends, so `run_with_admin` returning at all is
    // the drain giving up; and timed from before the shutdown began, not
    // before its 300 ms, so it waited for the request in flight until then.
    server.stop().await.expect("run returns Ok");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(300),
        "run returned after {took:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_over_the_cap_wait_their_turn() {
    let mut config = config();
    config.max_connections = 1;
    // A stalled sender would be cut to make room otherwise.
    config.min_receive_rate = 0;
    let server = Server::start(config).await;
    let (first, rest) = start_slow_solve(server.addr).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    // The second connection is in the kernel's queue, not served.
    let waiting = tokio::spawn(http_get(server.addr, "/healthz"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiting.is_finished(), "a second connection was served");
    assert_eq!(
        finish(first, &rest).await.results(),
        mahjong_sample_results()
    );
    let second = bounded("the waiting connection", waiting).await.unwrap();
    assert_eq!(second.status, 200);
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_413_is_counted_as_a_rejection() {
    let mut config = config();
    config.request.max_queries = 1;
    config.request.max_cells = 4;
    let server = Server::start(config).await;
    let series = r#"linkpath_rejected_total{reason="too_large"}"#;
    let before = sample(&metrics(server.addr).await, series);
    // Too many queries, then too many cells.
    let reply = exchange(server.addr, &solve_bytes(&mahjong_sample(), &[])).await;
    reply.error(413, "too_large");
    let cells = json!({"board": ["XXX", "XXX"], "queries": []});
    let reply = exchange(server.addr, &solve_bytes(&cells, &[])).await;
    reply.error(413, "too_large");
    let after = sample(&metrics(server.addr).await, series);
    assert!(after - before >= 2.0, "{series} grew by {}", after - before);
    server.stop().await.expect("run returns Ok");
}
