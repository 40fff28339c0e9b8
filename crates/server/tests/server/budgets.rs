//! The process-wide budgets, over raw sockets on loopback:
//!
//! - request bodies and unwritten answers share one memory budget: a body
//!   that does not fit waits, then gets 503 with `Retry-After`, and an
//!   answer the client does not read stays counted until it is written;
//! - no body is read while every solver slot is busy, and one on its way
//!   holds no slot;
//! - a connection sending its request under the minimum rate is cut, and
//!   at the connection cap every sender under that rate gives way;
//! - the admin listener answers probes and scrapes while the main one is
//!   full.

use crate::support::{
    LIMIT, Server, big_shuffle, bounded, config, connect, endless_curling, exchange,
    exchange_until_served, hold_the_slot, http_get, mahjong_sample, mahjong_sample_results, parse,
    read_to_end, request_bytes, solve_bytes,
};
use linkpath_server::{Config, RequestLimits};
use serde_json::json;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A POST head announcing `length` bytes of JSON body.
fn head(path: &str, length: usize) -> Vec<u8> {
    format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Content-Length: {length}\r\n\r\n"
    )
    .into_bytes()
}

/// Whether the server closes `stream` within [`LIMIT`], having sent
/// nothing.
async fn closed_unanswered(stream: &mut TcpStream) -> bool {
    let mut buf = [0u8; 64];
    match tokio::time::timeout(LIMIT, stream.read(&mut buf)).await {
        Ok(Ok(0) | Err(_)) => true,
        Ok(Ok(_)) | Err(_) => false,
    }
}

/// Sends `bytes` one at a time, `every` apart, until the server closes the
/// connection or all are sent; whether it closed.
async fn trickle(stream: &mut TcpStream, bytes: &[u8], every: Duration) -> bool {
    for byte in bytes {
        if stream.write_all(&[*byte]).await.is_err() {
            return true;
        }
        tokio::time::sleep(every).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_does_not_fit_the_memory_budget_waits_then_gets_503() {
    let server = Server::start(Config {
        memory_budget_bytes: Some(1 << 20),
        // Long enough that the first body, should a probe hold room for a
        // moment, still gets all of its share.
        memory_wait_ms: 1_000,
        // The first body stalls on purpose: it is not cut for it here.
        receive_grace_ms: 600_000,
        ..config()
    })
    .await;
    // 400,000 bytes sent of 400,001: 800,000 counted, body and decoded
    // form.
    let mut holder = connect(server.addr).await;
    holder
        .write_all(&head("/v1/solve", 400_001))
        .await
        .expect("sending the head");
    holder
        .write_all(&vec![b' '; 400_000])
        .await
        .expect("all but a byte");

    // 300,000 more would pass the budget: refused once the first holds
    // its share, and nothing read.
    let mut raw = head("/v1/solve", 300_000);
    raw.extend(std::iter::repeat_n(b' ', 300_000));
    let refused = bounded("the first body's reservation", async {
        loop {
            let reply = exchange(server.addr, &raw).await;
            if reply.status == 503 {
                return reply;
            }
        }
    })
    .await;
    let (message, field) = refused.error(503, "overloaded");
    assert_eq!(
        message,
        "the memory budget of 1048576 bytes is held by other requests and answers, retry shortly"
    );
    assert_eq!(field, None);
    assert_eq!(refused.header("retry-after"), Some("1"));
    // A small body still fits.
    let sample = exchange(server.addr, &solve_bytes(&mahjong_sample(), &[])).await;
    assert_eq!(sample.status, 200);

    // Once the first is gone, the same body is read and answered.
    drop(holder);
    let mut body = serde_json::to_vec(&mahjong_sample()).expect("json");
    body.resize(300_000, b' ');
    let mut raw = head("/v1/solve", body.len());
    raw.extend(&body);
    let answered = exchange_until_served("the retried body", server.addr, &raw).await;
    assert_eq!(answered.status, 200, "{}", answered.text());
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unread_answer_stays_counted_until_the_client_reads_it() {
    let server = Server::start(Config {
        memory_budget_bytes: Some(8 << 20),
        memory_wait_ms: 50,
        ..config()
    })
    .await;
    // A shuffle of 1000 x 600 tiles answers about 20 MB: more than the
    // budget and than loopback's socket buffers take unread.
    let body = big_shuffle(600);
    let mut unread = connect(server.addr).await;
    unread
        .write_all(&request_bytes(
            "POST",
            "/v1/shuffle",
            &[("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        ))
        .await
        .expect("sending");
    let mut status = [0u8; 12];
    bounded("the answer's first bytes", unread.read_exact(&mut status))
        .await
        .expect("an answer");
    assert_eq!(&status, b"HTTP/1.1 200");

    // The answer is only partly written: no body fits beside it.
    let mut raw = head("/v1/solve", 10_000);
    raw.extend(std::iter::repeat_n(b' ', 10_000));
    let refused = exchange(server.addr, &raw).await;
    assert_eq!(
        refused.error(503, "overloaded").0,
        "the memory budget of 8388608 bytes is held by other requests and answers, retry shortly"
    );

    // Read, it is no longer counted.
    let rest = read_to_end(&mut unread).await;
    assert!(rest.len() > 8 << 20, "{} bytes", rest.len());
    let mut body = serde_json::to_vec(&mahjong_sample()).expect("json");
    body.resize(10_000, b' ');
    let mut raw = head("/v1/solve", body.len());
    raw.extend(&body);
    assert_eq!(exchange(server.addr, &raw).await.status, 200);
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_body_is_read_while_every_solver_slot_is_busy() {
    let server = Server::start(Config {
        workers: Some(1),
        request: RequestLimits {
            solve_timeout_ms: 3_600_000,
            ..config().request
        },
        ..config()
    })
    .await;
    // The only slot, held by a search without end.
    let addr = server.addr;
    let holder = hold_the_slot(addr, move || {
        tokio::spawn(async move { exchange(addr, &solve_bytes(&endless_curling(), &[])).await })
    })
    .await;
    // A large body is refused from its head alone.
    let mut second = connect(server.addr).await;
    second
        .write_all(&head("/v1/render", 100_000))
        .await
        .expect("sending the head");
    let mut answer = vec![0u8; 4096];
    let read = bounded("the 503", second.read(&mut answer))
        .await
        .expect("reading");
    let reply = parse(&answer[..read]);
    assert_eq!(
        reply.error(503, "overloaded").0,
        "all 1 solver slots are busy, retry shortly"
    );
    holder.abort();
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_on_their_way_hold_no_solver_slot() {
    let server = Server::start(Config {
        workers: Some(1),
        ..config()
    })
    .await;
    // Two large bodies all but their last byte, then silence: they hold
    // what they sent of the memory budget, not the one slot.
    let mut stalled = Vec::new();
    for _ in 0..2 {
        let mut stream = connect(server.addr).await;
        stream
            .write_all(&head("/v1/solve", 20_000))
            .await
            .expect("the head");
        stream
            .write_all(&vec![b' '; 19_999])
            .await
            .expect("all but a byte");
        stalled.push(stream);
    }
    let reply = exchange(server.addr, &solve_bytes(&mahjong_sample(), &[])).await;
    assert_eq!(reply.results(), mahjong_sample_results());
    drop(stalled);
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_sent_under_the_minimum_rate_is_cut() {
    let server = Server::start(Config {
        min_receive_rate: 1000,
        receive_grace_ms: 300,
        ..config()
    })
    .await;
    let every = Duration::from_millis(50);
    // The headers, a byte every 50 ms: 20 bytes a second.
    let mut headers = connect(server.addr).await;
    let raw = solve_bytes(&mahjong_sample(), &[]);
    assert!(trickle(&mut headers, &raw, every).await || closed_unanswered(&mut headers).await);
    // The body, the same way, after headers sent at once.
    let mut body = connect(server.addr).await;
    let json = mahjong_sample().to_string();
    body.write_all(&head("/v1/solve", json.len()))
        .await
        .expect("the head");
    assert!(trickle(&mut body, json.as_bytes(), every).await || closed_unanswered(&mut body).await);
    // Half a body at once, then nothing: the burst does not pay for the
    // stall, which is cut long before the body timeout would answer 408.
    let mut stalled = connect(server.addr).await;
    stalled
        .write_all(&head("/v1/solve", 10_000))
        .await
        .expect("the head");
    stalled
        .write_all(&vec![b' '; 5_000])
        .await
        .expect("half the body");
    assert!(closed_unanswered(&mut stalled).await);
    // Sent at once, the same request is answered.
    let reply = exchange(server.addr, &raw).await;
    assert_eq!(reply.status, 200);
    let scrape = http_get(server.addr, "/metrics").await.text();
    let cut = scrape
        .lines()
        .find_map(|line| line.strip_prefix("linkpath_connections_cut_total{reason=\"too_slow\"} "))
        .expect("the series");
    assert!(cut.parse::<f64>().expect("a number") >= 3.0, "{cut}");
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_cap_senders_under_the_minimum_rate_give_way() {
    let server = Server::start(Config {
        max_connections: 2,
        min_receive_rate: 1000,
        // No cut for slowness alone within this test.
        receive_grace_ms: 600_000,
        ..config()
    })
    .await;
    let mut senders = Vec::new();
    for _ in 0..2 {
        let mut stream = connect(server.addr).await;
        stream.write_all(b"POST /v1/so").await.expect("a part");
        senders.push(stream);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    // A new client over the cap is served: the senders give way.
    assert_eq!(http_get(server.addr, "/healthz").await.status, 200);
    for sender in &mut senders {
        assert!(closed_unanswered(sender).await);
    }
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_listener_answers_while_the_main_one_is_full() {
    let server = Server::start_with_admin(Config {
        max_connections: 1,
        min_receive_rate: 0,
        ..config()
    })
    .await;
    let admin = server.admin.expect("an admin listener");
    // The only connection of the main listener, busy and stalled.
    let mut busy = connect(server.addr).await;
    busy.write_all(&head("/v1/solve", 100))
        .await
        .expect("the head");
    busy.write_all(b"{").await.expect("a part");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let waiting = tokio::spawn(http_get(server.addr, "/healthz"));

    let health = http_get(admin, "/healthz").await;
    assert_eq!(
        (health.status, health.json()),
        (200, json!({"status": "ok"}))
    );
    let ready = http_get(admin, "/readyz").await;
    assert_eq!(
        (ready.status, ready.json()),
        (200, json!({"status": "ready"}))
    );
    let metrics = http_get(admin, "/metrics").await;
    assert_eq!(metrics.status, 200);
    assert!(metrics.text().contains("\nlinkpath_memory_held_bytes "));
    // Only the probes and the metrics.
    let solve = exchange(admin, &solve_bytes(&mahjong_sample(), &[])).await;
    assert_eq!(
        solve.error(404, "not_found").0,
        "no route /v1/solve, see /openapi.yaml"
    );
    assert!(!waiting.is_finished(), "the main listener was not full");

    drop(busy);
    assert_eq!(
        bounded("the waiting client", waiting)
            .await
            .expect("no panic")
            .status,
        200
    );
    server.stop().await.expect("run returns Ok");
}
