//! The promises of RELIABILITY.md, each checked end to end: a real
//! server on `127.0.0.1:0`, spoken to
//! over raw TCP so that timing, half-sent requests and closed sockets are
//! under the test's control.
//!
//! 1. Bounded work: with every solver slot busy a solve gets 503 with
//!    `Retry-After` while the slot is still held, and `/healthz`, `/readyz`
//!    and `/metrics` answer.
//! 2. Deadlines stop the work: a solve past its deadline gets 504 and its
//!    slot is free for the very next request; so is the slot of a client
//!    that hangs up.
//! 3. Limits before work: each limit answers 413 or 422 naming the limit and
//!    the value, the body limit before the body is read.
//! 4. Slow and idle clients: cut off after the header timeout, 408 after the
//!    body timeout, and no more open connections than the cap.
//! 5. No 5xx: random and mangled requests through the router always get a
//!    2xx or a 4xx JSON answer.
//! 6. Every route bounded: `/v1/clear`'s budget gives `unknown`, never
//!    504; pictures have a cell limit; errors quote at most 100 characters
//!    of the input.
//!
//! What needs the process itself (SIGTERM, memory, deals of big boards)
//! is in the root package's end-to-end tests, `tests/linkpath/serve.rs`.
//! The tests assert what happened and in which order, never how long it
//! took, so they pass on a loaded machine; a duration is compared only
//! where the deadline or timeout itself makes it a lower bound. How fast
//! the 503s and the probes are under load is for the benchmarks (the
//! overload script, `scripts/overload.sh`). The figures are printed:
//! `cargo test -p linkpath-server --test server reliability -- --nocapture`.

use crate::support::mutate::{TOKENS, mutate, mutation};
use crate::support::{
    LIMIT, Rng, Server, bounded, connect, curling, exchange, exchange_timed, get_bytes,
    hold_the_slot, mahjong_sample, mahjong_sample_results, parse, post_bytes, read_to_end,
    request_bytes, slot_free, slot_probe, solve_bytes,
};
use axum::body::Body;
use http_body_util::BodyExt;
use linkpath_api::ErrorCode;
use linkpath_server::{AppState, Config, app};
use linkpath_testkit::paired_board;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use strum::VariantArray;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The test settings with `workers` solver slots and a short drain.
fn config(workers: usize) -> Config {
    Config {
        workers: Some(workers),
        drain_timeout_ms: 2_000,
        ..crate::support::config()
    }
}

/// The Mahjong sample of docs/rules.md and its exact answer.
fn sample() -> (Value, Value) {
    (
        mahjong_sample(),
        json!({"results": mahjong_sample_results()}),
    )
}

/// Probes until the slots are all busy (or free), up to `LIMIT`; returns
/// how long that took and how many probes.
async fn until_slots(addr: SocketAddr, free: bool) -> (Duration, u32) {
    let started = Instant::now();
    let mut probes = 0;
    loop {
        probes += 1;
        if slot_free(addr).await == free {
            return (started.elapsed(), probes);
        }
        assert!(
            started.elapsed() < LIMIT,
            "the slots did not turn {} within {LIMIT:?}",
            if free { "free" } else { "busy" }
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// "p50 0.40 ms, max 1.20 ms over 20" of some durations.
fn summary(times: &mut [Duration]) -> String {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    format!(
        "p50 {:.2} ms, max {:.2} ms over {}",
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1]),
        times.len()
    )
}

// ------------------------------------------------------------ 1 bounded work

/// A deadline no test reaches: a solve that ends with it would take longer
/// than the tests' own limit.
const NEVER_MS: u64 = 3_600_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_server_sheds_solves_while_the_slot_is_held_and_health_answers() {
    let mut config = config(1);
    config.request.solve_timeout_ms = NEVER_MS;
    let server = Server::start(config).await;
    let addr = server.addr;

    let send_heavy = move || {
        tokio::spawn(async move { exchange(addr, &solve_bytes(&curling(None), &[])).await })
    };
    let heavy = hold_the_slot(addr, send_heavy).await;

    // Other clients hammer /v1/solve meanwhile: the health routes must not
    // queue behind them.
    let flood: Vec<_> = (0..4)
        .map(|_| {
            tokio::spawn(async move {
                for _ in 0..50 {
                    assert_eq!(exchange(addr, &slot_probe()).await.status, 503);
                }
            })
        })
        .collect();

    let (sample, _) = sample();
    let mut shed = Vec::new();
    for _ in 0..30 {
        let (reply, took) = exchange_timed(addr, &solve_bytes(&sample, &[])).await;
        let (message, field) = reply.error(503, "overloaded");
        assert_eq!(message, "all 1 solver slots are busy, retry shortly");
        assert_eq!(field, None);
        assert_eq!(reply.header("retry-after"), Some("1"));
        shed.push(took);
    }
    let mut health = Vec::new();
    for path in ["/healthz", "/readyz", "/metrics"] {
        let mut times = Vec::new();
        for _ in 0..20 {
            let (reply, took) = exchange_timed(addr, &get_bytes(path)).await;
            assert_eq!(reply.status, 200, "{path}");
            times.push(took);
        }
        health.push((path, summary(&mut times.clone()), times));
    }
    for task in flood {
        bounded("the flood", task).await.expect("no flood panicked");
    }

    println!("503 overloaded while saturated: {}", summary(&mut shed));
    for (path, figures, _) in &health {
        println!("{path} while saturated: {figures}");
    }

    // Every 503 and every probe came while the heavy solve held the slot:
    // it has no answer yet, and ends only when its client goes.
    assert!(
        !heavy.is_finished(),
        "the heavy solve ended before the others were answered: {:?}",
        heavy.await
    );
    heavy.abort();
    let (_, probes) = until_slots(addr, true).await;
    println!("the heavy solve's client gone: the slot free after {probes} probes");
    server
        .stop()
        .await
        .expect("the server ran without an I/O error");
}

// ------------------------------------------------------------ 2 deadlines

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_solve_past_its_deadline_is_504_and_its_slot_is_free_at_once() {
    let mut config = config(1);
    config.request.solve_timeout_ms = 100;
    let server = Server::start(config).await;
    let addr = server.addr;

    let (reply, took) = exchange_timed(addr, &solve_bytes(&curling(None), &[])).await;
    let (message, _) = reply.error(504, "deadline_exceeded");
    assert!(message.contains("deadline"), "{message}");
    let answered = Instant::now();
    // The first probe after the 504 must find the slot free.
    let (freed, probes) = until_slots(addr, true).await;
    let (sample, expected) = sample();
    let (next, next_took) = exchange_timed(addr, &solve_bytes(&sample, &[])).await;
    assert_eq!((next.status, next.json()), (200, expected));
    println!(
        "504 after {:.1} ms (deadline 100 ms); slot free {:.2} ms after the 504 \
         ({probes} probe); the next solve answered 200 in {:.2} ms, {:.2} ms after the 504",
        took.as_secs_f64() * 1e3,
        freed.as_secs_f64() * 1e3,
        next_took.as_secs_f64() * 1e3,
        answered.elapsed().as_secs_f64() * 1e3,
    );
    // Timed from before connecting, the answer cannot precede the deadline.
    assert!(took >= Duration::from_millis(100), "{took:?}");
    assert_eq!(probes, 1, "the slot was still busy after the 504");
    server
        .stop()
        .await
        .expect("the server ran without an I/O error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_hangs_up_frees_its_slot() {
    // The slot can only be freed by the hang-up: the deadline is an hour.
    let mut config = config(1);
    config.request.solve_timeout_ms = NEVER_MS;
    let server = Server::start(config).await;
    let addr = server.addr;

    let mut stream = connect(addr).await;
    stream
        .write_all(&solve_bytes(&curling(None), &[]))
        .await
        .expect("sending the heavy solve");
    // Let the server take the heavy solve before the first probe, which
    // would otherwise race it for the only slot.
    tokio::time::sleep(Duration::from_millis(300)).await;
    until_slots(addr, false).await;
    drop(stream);
    let (freed, probes) = until_slots(addr, true).await;
    println!(
        "client hung up: slot free {:.2} ms later ({probes} probes), deadline an hour",
        freed.as_secs_f64() * 1e3
    );
    server
        .stop()
        .await
        .expect("the server ran without an I/O error");
}

// ------------------------------------------------------------ 3 limits

fn small_limits() -> Config {
    let mut config = config(2);
    config.request.max_body_bytes = 2_000;
    config.request.max_cells = 100;
    config.request.max_side = 20;
    config.request.max_queries = 5;
    config.request.max_segments = 50;
    config
}

fn rows(width: usize, height: usize) -> Value {
    json!(vec!["X".repeat(width); height])
}

fn queries(n: usize) -> Value {
    json!(vec![json!({"from": [0, 0], "to": [0, 0]}); n])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_limit_answers_413_or_422_naming_the_limit_and_the_value() {
    let server = Server::start(small_limits()).await;
    let addr = server.addr;
    let cases = [
        (
            json!({"board": rows(11, 10), "queries": []}),
            413,
            "too_large",
            "the board has more than 100 cells, over the limit",
            Some("board[9]"),
        ),
        (
            json!({"board": rows(21, 1), "queries": []}),
            413,
            "too_large",
            "the board is 21 cells wide, over the limit of 20",
            Some("board[0]"),
        ),
        (
            json!({"board": [vec![1; 21]], "queries": []}),
            413,
            "too_large",
            "the board is more than 20 cells wide, over the limit",
            Some("board[0]"),
        ),
        (
            json!({"board": rows(1, 21), "queries": []}),
            413,
            "too_large",
            "the board has more than 20 rows, over the limit",
            Some("board[20]"),
        ),
        (
            json!({"board": rows(2, 2), "queries": queries(6)}),
            413,
            "too_large",
            "more than 5 queries, over the limit",
            Some("queries"),
        ),
        (
            json!({"board": rows(2, 2), "rules": {"max_segments": 51}, "queries": []}),
            422,
            "invalid_rules",
            "max_segments is 51, over this server's limit of 50",
            Some("rules.max_segments"),
        ),
    ];
    for (body, status, code, message, field) in cases {
        let reply = exchange(addr, &solve_bytes(&body, &[])).await;
        let found = reply.error(status, code);
        assert_eq!(
            (found.0.as_str(), found.1.as_deref()),
            (message, field),
            "{body}"
        );
    }
    // Right at every limit the same request is answered.
    let at_limits = json!({
        "board": rows(10, 10),
        "rules": {"max_segments": 50},
        "queries": queries(5)
    });
    let reply = exchange(addr, &solve_bytes(&at_limits, &[])).await;
    assert_eq!(reply.status, 200, "{:?}", reply.json());
    assert_eq!(reply.json()["results"].as_array().map(Vec::len), Some(5));
    server
        .stop()
        .await
        .expect("the server ran without an I/O error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_limit_by_content_length_is_413_before_it_is_sent() {
    let server = Server::start(small_limits()).await;
    // Only the head goes out: the answer cannot wait for the body.
    let head = "POST /v1/solve HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
                Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n";
    let mut stream = connect(server.addr).await;
    stream
        .write_all(head.as_bytes())
        .await
        .expect("sending the head");
    let reply = parse(&read_to_end(&mut stream).await);
    let (message, field) = reply.error(413, "too_large");
    assert_eq!(
        message,
        "the body is 5000 bytes, over the limit of 2000 bytes"
    );
    assert_eq!(field, None);
    server
        .stop()
        .await
        .expect("the server ran without an I/O error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_body_over_the_limit_is_413_before_it_ends() {
    let server = Server::start(small_limits()).await;
    let mut stream = connect(server.addr).await;
    let head = request_bytes(
        "POST",
        "/v1/solve",
        &[
            ("Content-Type", "application/json"),
            ("Transfer-Encoding", "chunked"),
        ],
        b"",
    );
    stream.write_all(&head).await.expect("sending the head");
    // 10 + 5 × 498 = 2,500 bytes of a board, and never the last chunk.
    let chunk = |data: &str| format!("{:x}\r\n{data}\r\n", data.len());
    stream
        .write_all(chunk("{\"board\":[").as_bytes())
        .await
        .expect("a chunk");
    for _ in 0..5 {
        let rows = chunk(&"[\"X\"],".repeat(500 / 6));
        stream.write_all(rows.as_bytes()).await.expect("a chunk");
    }
    let reply = parse(&read_to_end(&mut stream).await);
    let (message, _) = reply.error(413, "too_large");
    assert_eq!(
        message,
        "the body is more than 2000 bytes, over the limit of 2000 bytes"
    );
    server
        .stop()
        .await
        .expect("the server ran without an I/O error");
}

// ------------------------------------------------------------ 4 slow clients

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_stalling_in_its_headers_is_cut_off_after_the_header_timeout() {
    let mut config = config(2);
    config.header_timeout_ms = 300;
    let server = Server::start(config).await;
    for (what, sent) in [
        (
            "half its headers",
            &b"POST /v1/solve HTTP/1.1\r\nHost: 127.0.0.1\r\n"[..],
        ),
        ("nothing", &b""[..]),
    ] {
        // Timed from before connecting: the server's timer starts later.
        let started = Instant::now();
        let mut stream = connect(server.addr).await;
        stream.write_all(sent).await.expect("sending");
        let answer = read_to_end(&mut stream).await;
        let took = started.elapsed();
        println!(
            "a client that sent {what} was disconnected after {:.1} ms (header timeout 300 ms)",
            took.as_secs_f64() * 1e3
        );
        assert_eq!(
            String::from_utf8_lossy(&answer),
            "",
            "closed without an answer"
        );
        // Cut off by the timeout, not before it.
        assert!(took >= Duration::from_millis(300), "{what}: {took:?}");
    }
    server
        .stop()
        .await
        .expect("the server ran without an I/O error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_stalling_in_its_body_gets_408() {
    let mut config = config(2);
    config.body_timeout_ms = 300;
    let server = Server::start(config).await;
    let mut raw = request_bytes(
        "POST",
        "/v1/solve",
        &[("Content-Type", "application/json")],
        &[b' '; 100],
    );
    raw.truncate(raw.len() - 90);
    // Timed from before sending: the server's timer starts later.
    let started = Instant::now();
    let mut stream = connect(server.addr).await;
    stream.write_all(&raw).await.expect("sending a part");
    let reply = parse(&read_to_end(&mut stream).await);
    let took = started.elapsed();
    let (message, _) = reply.error(408, "request_timeout");
    assert_eq!(message, "the body did not arrive within 300 ms");
    println!(
        "408 after {:.1} ms (body timeout 300 ms)",
        took.as_secs_f64() * 1e3
    );
    assert!(took >= Duration::from_millis(300), "{took:?}");
    server
        .stop()
        .await
        .expect("the server ran without an I/O error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_over_the_cap_wait_until_one_closes() {
    let mut config = config(2);
    config.max_connections = 2;
    // Stalled senders would be cut to make room otherwise.
    config.min_receive_rate = 0;
    let server = Server::start(config).await;
    // Both in the middle of a request, so busy: an idle connection would be
    // closed to make room (the `connections` module).
    let mut busy = Vec::new();
    for _ in 0..2 {
        let mut stream = connect(server.addr).await;
        let mut partial = request_bytes(
            "POST",
            "/v1/solve",
            &[("Content-Type", "application/json")],
            &[b' '; 100],
        );
        partial.truncate(partial.len() - 90);
        stream.write_all(&partial).await.expect("sending a part");
        busy.push(stream);
    }
    let first = busy.remove(0);
    // The kernel completes the third handshake; the server takes no more
    // than the cap's connections, so the request waits.
    let mut third = connect(server.addr).await;
    third
        .write_all(&get_bytes("/healthz"))
        .await
        .expect("sending");
    let mut byte = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_millis(300), third.read(&mut byte)).await;
    assert!(early.is_err(), "answered over the cap: {early:?}");
    let closed = Instant::now();
    drop(first);
    let reply = parse(&read_to_end(&mut third).await);
    assert_eq!(reply.status, 200);
    println!(
        "over the cap of 2: answered {:.2} ms after a connection closed",
        closed.elapsed().as_secs_f64() * 1e3
    );
    drop(busy);
    server
        .stop()
        .await
        .expect("the server ran without an I/O error");
}

// ------------------------------------------------------------ 5 no 5xx

mod no_5xx {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::{Config as ProptestConfig, TestRunner};
    use tower::ServiceExt;

    /// Valid bodies to mangle.
    fn seeds() -> Vec<Vec<u8>> {
        [
            mahjong_sample(),
            json!({"board": [[0, 0, 1], [0, 1, 0]], "rules": "curling",
                   "queries": [{"from": [0, 0], "to": [2, 0]}, {"from": [0, 0], "to": [0, 1]}]}),
            json!({"board": ["AB.A", "B..C", "ACBA"], "rules": "shisen-sho",
                   "queries": [{"from": [0, 0], "to": [3, 0]}], "include_path": false}),
            json!({"board": ["X X", "XYX"], "rules": {"preset": "lianliankan", "outside": true,
                   "match": "any", "max_segments": 4}, "queries": [{"from": [0, 0], "to": [2, 0]}]}),
            // The game routes' bodies.
            json!({"board": ["AB", "BA"], "rules": "lianliankan"}),
            json!({"board": ["A.", "BB", "AC"], "gravity": "down",
                   "moves": [{"from": [0, 0], "to": [0, 2]}]}),
            json!({"width": 4, "height": 3, "types": 3, "seed": 1}),
        ]
        .iter()
        .map(|v| v.to_string().into_bytes())
        .collect()
    }

    fn body() -> impl Strategy<Value = Vec<u8>> {
        let seeds = seeds();
        prop_oneof![
            6 => (0..seeds.len(), prop::collection::vec(mutation(), 0..4))
                .prop_map(move |(s, m)| mutate(seeds[s].clone(), &m)),
            1 => prop::collection::vec(any::<u8>(), 0..300),
            1 => prop::collection::vec(prop::sample::select(TOKENS), 0..40)
                .prop_map(|t| t.concat().into_bytes()),
            1 => (1usize..5000).prop_map(|depth| {
                format!("{{\"board\":{}", "[".repeat(depth)).into_bytes()
            }),
        ]
    }

    fn request()
    -> impl Strategy<Value = (&'static str, &'static str, Option<&'static str>, Vec<u8>)> {
        (
            prop_oneof![40 => Just("POST"), 1 => Just("GET"), 1 => Just("PUT"),
                        1 => Just("DELETE"), 1 => Just("OPTIONS"), 1 => Just("HEAD")],
            prop_oneof![40 => Just("/v1/solve"), 4 => Just("/v1/moves"), 4 => Just("/v1/play"),
                        4 => Just("/v1/clear"), 4 => Just("/v1/deal"), 4 => Just("/v1/shuffle"),
                        1 => Just("/v1/solve/"), 1 => Just("/V1/solve"),
                        1 => Just("/v1/solve?x=%ff"), 1 => Just("/healthz"), 1 => Just("/%2e%2e/"),
                        1 => Just("/metrics")],
            prop_oneof![40 => Just(Some("application/json")),
                        1 => Just(Some("application/problem+json; charset=utf-8")),
                        1 => Just(Some("text/plain")), 1 => Just(Some("application/json+")),
                        1 => Just(None)],
            body(),
        )
    }

    #[test]
    fn no_request_gets_a_5xx_or_a_body_that_is_not_json() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let mut config = config(4);
        config.request.solve_timeout_ms = 5_000;
        let router = app(AppState::new(config));
        let mut runner = TestRunner::new(ProptestConfig {
            cases: 4_000,
            failure_persistence: None,
            ..ProptestConfig::default()
        });
        let started = Instant::now();
        let statuses = std::cell::RefCell::new(std::collections::BTreeMap::<u16, u32>::new());
        runner
            .run(&request(), |(method, path, content_type, body)| {
                let mut builder = axum::http::Request::builder().method(method).uri(path);
                if let Some(content_type) = content_type {
                    builder = builder.header("content-type", content_type);
                }
                let request = builder.body(Body::from(body)).expect("a request");
                let (status, content_type, bytes) = runtime.block_on(async {
                    let response = router.clone().oneshot(request).await.expect("infallible");
                    let status = response.status().as_u16();
                    let content_type = response
                        .headers()
                        .get("content-type")
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned);
                    let bytes = response
                        .into_body()
                        .collect()
                        .await
                        .expect("a body")
                        .to_bytes();
                    (status, content_type, bytes)
                });
                *statuses.borrow_mut().entry(status).or_default() += 1;
                prop_assert!((200..500).contains(&status), "{status}: {bytes:?}");
                if (path == "/metrics" && status == 200) || method == "HEAD" {
                    return Ok(());
                }
                prop_assert_eq!(content_type.as_deref(), Some("application/json"));
                let json: Value = serde_json::from_slice(&bytes)
                    .map_err(|e| TestCaseError::fail(format!("{e}: {bytes:?}")))?;
                if status >= 400 {
                    let code = json["error"]["code"].as_str().unwrap_or_default();
                    let expected = ErrorCode::VARIANTS
                        .iter()
                        .find(|c| c.as_str() == code)
                        .map(|c| c.status());
                    prop_assert_eq!(expected, Some(status), "{}", json);
                    prop_assert!(json["error"]["message"].is_string(), "{}", json);
                } else if path == "/v1/solve" {
                    prop_assert!(json["results"].is_array(), "{}", json);
                }
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{e}"));
        let statuses = statuses.into_inner();
        println!(
            "{} random and mangled requests in {:.2} s, none 5xx; by status: {statuses:?}",
            statuses.values().sum::<u32>(),
            started.elapsed().as_secs_f64()
        );
    }
}

// ------------------------------------------------- every route bounded

/// A 30 × 16 board of 120 types × 4 tiles in a seeded order, as number
/// rows. Under Shisen-Sho with gravity down it cannot be cleared, and the
/// search has not proved so after 857,000 states (15 s in a release build
/// on the 2-core development machine): far past what any budget below
/// reaches.
fn undecided_board() -> Vec<Vec<u32>> {
    let mut tiles: Vec<u32> = (1..=120).flat_map(|t| [t; 4]).collect();
    Rng::new(5).shuffle(&mut tiles);
    tiles.chunks(30).map(<[u32]>::to_vec).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clear_answers_unknown_when_its_budget_runs_out_never_504() {
    let mut config = config(1);
    config.request.solve_timeout_ms = 2000;
    let server = Server::start(config).await;
    let board = undecided_board();
    // A budget past the deadline is cut to 90% of it: `unknown`, not 504.
    let reply = exchange(
        server.addr,
        &post_bytes(
            "/v1/clear",
            &json!({"board": board, "rules": "shisen-sho", "gravity": "down", "budget_ms": 1_000_000_000u64}),
        ),
    )
    .await;
    assert_eq!(reply.status, 200);
    assert_eq!(
        (&reply.json()["outcome"], &reply.json()["budget_ms"]),
        (&json!("unknown"), &json!(1800))
    );

    let reply = exchange(
        server.addr,
        &post_bytes(
            "/v1/clear",
            &json!({"board": board, "rules": "shisen-sho", "gravity": "down", "budget_ms": 200}),
        ),
    )
    .await;
    assert_eq!(reply.status, 200);
    assert_eq!(
        (&reply.json()["outcome"], &reply.json()["budget_ms"]),
        (&json!("unknown"), &json!(200))
    );

    // Mahjong matches any two tiles: one state of a 200 x 200 board has
    // more pairs than a search may list.
    let board = paired_board(200, 200, 24_000, 62, 7);
    let reply = exchange(
        server.addr,
        &post_bytes(
            "/v1/clear",
            &json!({"board": board, "rules": "mahjong", "budget_ms": 100}),
        ),
    )
    .await;
    assert_eq!(
        (
            reply.status,
            reply.json()["outcome"].clone(),
            reply.json()["budget_ms"].clone()
        ),
        (200, json!("unknown"), json!(100))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pictures_over_the_render_cell_limit_are_413_naming_it() {
    let server = Server::start(Config {
        max_render_cells: 100,
        ..config(1)
    })
    .await;
    let rows: Vec<String> = (0..10).map(|_| "A".repeat(11)).collect();
    let body = json!({"board": rows, "queries": []});
    let reply = exchange(server.addr, &post_bytes("/v1/render", &body)).await;
    let (message, field) = reply.error(413, "too_large");
    assert_eq!(
        (message.as_str(), field.as_deref()),
        (
            "the board has more than 100 cells, over the limit for a picture (LINKPATH_MAX_RENDER_CELLS)",
            Some("board[9]")
        )
    );
    // A limit of another setting keeps its own message.
    let wide = json!({"board": ["A".repeat(21)], "queries": []});
    let mut config = config(1);
    config.request.max_side = 20;
    let small = Server::start(config).await;
    let reply = exchange(small.addr, &post_bytes("/v1/render", &wide)).await;
    let (message, _) = reply.error(413, "too_large");
    assert_eq!(message, "the board is 21 cells wide, over the limit of 20");
    small
        .stop()
        .await
        .expect("the server ran without an I/O error");
    // The same board is no picture to /v1/solve, whose limit is its own.
    let solved = exchange(server.addr, &solve_bytes(&body, &[])).await;
    assert_eq!(
        (solved.status, solved.json()),
        (200, json!({"results": []}))
    );
    server
        .stop()
        .await
        .expect("the server ran without an I/O error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_quote_at_most_100_characters_of_the_input() {
    let server = Server::start(config(1)).await;
    let long = "a".repeat(10 << 20);
    let quoted = format!("{}…", "a".repeat(100));
    let key = format!("{{\"{long}\":1}}");
    for (path, expected) in [
        (
            "/v1/solve",
            "one of `board`, `rules`, `queries`, `include_path`",
        ),
        (
            "/v1/clear",
            "one of `board`, `rules`, `gravity`, `settle`, `budget_ms`, `max_states`",
        ),
    ] {
        let raw = request_bytes(
            "POST",
            path,
            &[("Content-Type", "application/json")],
            key.as_bytes(),
        );
        let reply = exchange(server.addr, &raw).await;
        assert!(
            reply.body.len() < 1024,
            "{path}: a {}-byte answer",
            reply.body.len()
        );
        let (message, field) = reply.error(422, "invalid_request");
        assert_eq!(
            message,
            format!("unknown field `{quoted}`, expected {expected}")
        );
        assert_eq!(field, Some(format!("{}…", "a".repeat(140))));
    }
    let preset = "p".repeat(5 << 20);
    let reply = exchange(
        server.addr,
        &solve_bytes(
            &json!({"board": ["AA"], "rules": preset, "queries": []}),
            &[],
        ),
    )
    .await;
    let (message, field) = reply.error(422, "invalid_rules");
    assert_eq!(
        (message, field.as_deref()),
        (
            format!(
                "unknown variant `{}…`, expected one of `mahjong`, `shisen-sho`, `lianliankan`, `curling`",
                "p".repeat(100)
            ),
            Some("rules")
        )
    );
    let reply = exchange(
        server.addr,
        &post_bytes(
            "/v1/play",
            &json!({"board": ["AA"], "moves": [], "gravity": preset}),
        ),
    )
    .await;
    let (message, _) = reply.error(422, "invalid_request");
    assert_eq!(
        message,
        format!(
            "unknown variant `{}…`, expected one of `none`, `down`, `up`, `left`, `right`",
            "p".repeat(100)
        )
    );
    server
        .stop()
        .await
        .expect("the server ran without an I/O error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nul_in_a_text_row_is_refused_and_minus_zero_is_zero() {
    let server = Server::start(config(1)).await;
    let nul = json!({"board": ["A\u{0}A"], "queries": [{"from": [0, 0], "to": [2, 0]}]});
    for path in ["/v1/solve", "/v1/render"] {
        let reply = exchange(server.addr, &post_bytes(path, &nul)).await;
        let (message, field) = reply.error(422, "invalid_board");
        assert_eq!(
            (message.as_str(), field.as_deref()),
            (
                "row 0 has U+0000, a control character, at column 1, expected a tile character, or space or . for empty",
                Some("board[0][1]")
            )
        );
    }
    let raw = br#"{"board": [[1, -0, 1]], "rules": "lianliankan", "queries": [{"from": [-0, 0], "to": [2, -0]}]}"#;
    let reply = exchange(
        server.addr,
        &request_bytes(
            "POST",
            "/v1/solve",
            &[("Content-Type", "application/json")],
            raw,
        ),
    )
    .await;
    assert_eq!(
        (reply.status, reply.json()),
        (
            200,
            json!({"results": [{"connected": true, "segments": 1, "path": [[0, 0], [2, 0]]}]})
        )
    );
    server
        .stop()
        .await
        .expect("the server ran without an I/O error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_curling_search_deeper_than_the_stack_holds_is_refused() {
    // A one-row rink of 4,000 blocks, each throw breaking the next: with
    // no throw limit the search would go 4,001 throws deep, which once
    // overflowed a worker's stack and aborted the process.
    let server = Server::start(config(1)).await;
    let width = 8002;
    let row: Vec<u32> = (0..width)
        .map(|x| u32::from(x >= 2 && x % 2 == 0))
        .collect();
    let rink = |max: Value| {
        json!({"board": [row], "rules": {"preset": "curling", "max_segments": max},
               "queries": [{"from": [0, 0], "to": [width - 1, 0]}]})
    };
    let reply = exchange(server.addr, &solve_bytes(&rink(Value::Null), &[])).await;
    let (message, field) = reply.error(422, "invalid_rules");
    assert_eq!(
        (message.as_str(), field.as_deref()),
        (
            "slide rules allow 4001 throws on this board of 4000 blocks, over the limit of 1000: set max_segments to at most 1000",
            Some("rules.max_segments")
        )
    );
    let reply = exchange(server.addr, &post_bytes("/v1/render", &rink(json!(1001)))).await;
    reply.error(422, "invalid_rules");
    // At the limit the search runs, on the same worker, and finds no way.
    let reply = exchange(server.addr, &solve_bytes(&rink(json!(1000)), &[])).await;
    assert_eq!(
        (reply.status, reply.json()),
        (
            200,
            json!({"results": [{"connected": false, "reason": "no_path"}]})
        )
    );
    server
        .stop()
        .await
        .expect("the server ran without an I/O error");
}
