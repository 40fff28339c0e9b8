//! The connection-level promises, over raw sockets on loopback:
//!
//! - refusals reach a client that writes its whole body before reading
//!   (lingering close), within a bound in bytes and in time;
//! - a client that does not read its answer is cut off by the write
//!   timeout;
//! - idle connections (silent, or between requests) are closed, longest
//!   idle first, to make room for a new client when the cap is reached;
//!   busy ones are not;
//! - event streams at their bound leave the main port room for a probe;
//! - the per-client connection cap;
//! - request ids: long or unprintable ones are replaced;
//! - `Transfer-Encoding` other than `chunked` alone is 501.
//!
//! The text log of the process is checked end to end, in
//! `tests/linkpath/serve.rs`. The figures are printed:
//! `cargo test -p linkpath-server --test server connections -- --nocapture`.

use crate::support::{
    LIMIT, Reply, Server, bounded, config, connect, connect_from, exchange, get_bytes, http_get,
    parse, post_bytes, read_to_end, request_bytes,
};
use linkpath_server::{Config, NON_STREAM_CONNECTIONS};
use linkpath_testkit::is_uuid;
use serde_json::json;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// 20 MB: more than the kernel buffers of both ends on loopback hold, so a
/// client can only finish writing it if the server reads it.
const BIG: usize = 20_000_000;

/// A request head announcing `length` body bytes, without `Connection:
/// close`: the server decides to close.
fn head(method: &str, path: &str, headers: &[(&str, &str)], length: usize) -> Vec<u8> {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {length}\r\n\r\n"));
    head.into_bytes()
}

/// Writes `head` and `length` bytes of body, all of it before reading, as
/// Python's urllib and node's fetch do; then reads the answer to the end.
async fn write_all_then_read(addr: SocketAddr, head: &[u8], length: usize) -> Reply {
    let mut stream = connect(addr).await;
    let body = vec![b' '; length];
    bounded("writing the whole request", async {
        stream.write_all(head).await?;
        stream.write_all(&body).await
    })
    .await
    .expect("the server reads the whole body instead of resetting");
    parse(&read_to_end(&mut stream).await)
}

/// Whether the server closed `stream` (end of stream or reset) within
/// `wait`, reading and dropping anything it sent first.
async fn closed_within(stream: &mut TcpStream, wait: Duration) -> bool {
    let mut buf = [0u8; 4096];
    let until = tokio::time::Instant::now() + wait;
    loop {
        match tokio::time::timeout_at(until, stream.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

// ------------------------------------------------------------ refusals

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn early_refusals_reach_a_client_that_writes_its_whole_body_first() {
    let server = Server::start(config()).await;
    let json = ("Content-Type", "application/json");
    let started = Instant::now();
    let too_large =
        write_all_then_read(server.addr, &head("POST", "/v1/solve", &[json], BIG), BIG).await;
    let took = started.elapsed();
    let (message, field) = too_large.error(413, "too_large");
    assert_eq!(
        message,
        "the body is 20000000 bytes, over the limit of 16777216 bytes"
    );
    assert_eq!(field, None);
    assert_eq!(too_large.header("connection"), Some("close"));
    println!("413 read after writing 20 MB: {:.1} ms", ms(took));

    let no_type = write_all_then_read(server.addr, &head("POST", "/v1/solve", &[], BIG), BIG).await;
    let (message, _) = no_type.error(415, "unsupported_media_type");
    assert_eq!(message, "no Content-Type, expected application/json");

    let nowhere =
        write_all_then_read(server.addr, &head("POST", "/v1/nowhere", &[json], BIG), BIG).await;
    let (message, _) = nowhere.error(404, "not_found");
    assert_eq!(message, "no route /v1/nowhere, see /openapi.yaml");
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_behind_an_api_key_reaches_a_client_that_writes_first() {
    let server = Server::start(Config {
        api_keys: vec!["k-1".to_owned()],
        ..config()
    })
    .await;
    let reply = write_all_then_read(
        server.addr,
        &head(
            "POST",
            "/v1/solve",
            &[("Content-Type", "application/json")],
            BIG,
        ),
        BIG,
    )
    .await;
    reply.error(401, "unauthorized");
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lingering_stops_at_its_byte_bound() {
    let server = Server::start(Config {
        linger_bytes: 1 << 20,
        ..config()
    })
    .await;
    let mut stream = connect(server.addr).await;
    let head = head("POST", "/v1/nowhere", &[], BIG);
    let body = vec![b' '; BIG];
    let written = bounded("writing", async {
        stream.write_all(&head).await?;
        stream.write_all(&body).await
    })
    .await;
    let error = written.expect_err("the server stops reading after 1 MiB and resets");
    assert!(
        matches!(
            error.kind(),
            std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
        ),
        "{error:?}"
    );
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lingering_stops_at_its_time_bound() {
    // One connection per client: a second one is refused for as long as the
    // first lingers, which times the lingering from outside.
    let server = Server::start(Config {
        linger_ms: 2000,
        max_connections_per_client: 1,
        ..config()
    })
    .await;
    // Timed from before the request: the lingering starts after its answer.
    let started = Instant::now();
    let mut slow = connect(server.addr).await;
    slow.write_all(&head("POST", "/v1/nowhere", &[], BIG))
        .await
        .expect("sending the head");
    slow.write_all(&[b' '; 1000])
        .await
        .expect("a part of the body");
    // The answer comes, then the server's end of the stream; the client
    // keeps its own end open and sends no more.
    let reply = parse(&read_to_end(&mut slow).await);
    reply.error(404, "not_found");
    let mut refused = 0;
    let free = loop {
        // A refused probe gets its 429, or a reset when its request
        // arrived as the refusal closed the connection.
        let mut probe = connect(server.addr).await;
        probe
            .write_all(&request_bytes("GET", "/healthz", &[], b""))
            .await
            .expect("sending");
        let mut bytes = Vec::new();
        match bounded("a probe", probe.read_to_end(&mut bytes)).await {
            Ok(_) if parse(&bytes).status == 200 => break started.elapsed(),
            Ok(_) => assert_eq!(parse(&bytes).status, 429),
            Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset),
        }
        refused += 1;
        // The client sends no more, so only the time bound can end it.
        assert!(started.elapsed() < LIMIT, "the lingering never ended");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    println!(
        "lingering of 2000 ms ended {:.1} ms after the request ({refused} probes refused meanwhile)",
        ms(free)
    );
    assert!(refused > 0);
    assert!(free >= Duration::from_millis(2000), "{free:?}");
    drop(slow);
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shutdown_does_not_wait_for_a_lingering_connection() {
    // Lingering and drain of an hour: the shutdown ends within the tests'
    // limit only if it waits for neither.
    let mut server = Server::start(Config {
        linger_ms: 3_600_000,
        drain_timeout_ms: 3_600_000,
        ..config()
    })
    .await;
    let mut slow = connect(server.addr).await;
    slow.write_all(&head("POST", "/v1/nowhere", &[], BIG))
        .await
        .expect("sending the head");
    slow.write_all(&[b' '; 1000])
        .await
        .expect("a part of the body");
    parse(&read_to_end(&mut slow).await).error(404, "not_found");
    let started = Instant::now();
    server.begin_shutdown();
    server.stop().await.expect("run returns Ok");
    let took = started.elapsed();
    println!("shutdown with a lingering connection: {:.1} ms", ms(took));
    assert!(
        closed_within(&mut slow, LIMIT).await,
        "the lingering connection is open"
    );
}

// ------------------------------------------------------------ write timeout

/// A solve whose answer is about 5 MB: 100,000 queries, each a path.
fn big_answer_request() -> Vec<u8> {
    let queries: Vec<_> = (0..100_000)
        .map(|_| json!({"from": [0, 0], "to": [1, 0]}))
        .collect();
    let body = json!({"board": ["XX"], "rules": "mahjong", "queries": queries});
    request_bytes(
        "POST",
        "/v1/solve",
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_read_its_answer_is_cut_off_after_the_write_timeout() {
    // One connection at a time: the next client is answered only once the
    // one that does not read has been cut off.
    let mut config = config();
    config.max_connections = 1;
    config.request.max_queries = 100_000;
    config.write_timeout_ms = 300;
    let server = Server::start(config).await;
    let socket = TcpSocket::new_v4().expect("a socket");
    socket.set_recv_buffer_size(4096).expect("a small buffer");
    let mut stuck = bounded("connecting", socket.connect(server.addr))
        .await
        .expect("connecting");
    // The write timeout cannot start before the request is sent.
    let sending = Instant::now();
    stuck
        .write_all(&big_answer_request())
        .await
        .expect("sending the request");
    let next = tokio::spawn(async move {
        let reply = http_get(server.addr, "/healthz").await;
        (reply, Instant::now())
    });
    // The answer starts (the peek leaves it unread), fills the buffers of
    // both ends in a few milliseconds, and stalls.
    bounded("the answer starting", stuck.peek(&mut [0u8; 1]))
        .await
        .expect("peeking");
    let writing = Instant::now();
    let (next, answered) = bounded("the next client", next).await.expect("no panic");
    assert_eq!(next.status, 200);
    println!(
        "write timeout 300 ms: the answer started {:.1} ms after the request was sent; the next client was answered {:.1} ms after that",
        ms(writing - sending),
        ms(answered - writing)
    );
    // The only connection was freed by the timeout, not before it.
    let waited = answered - sending;
    assert!(waited >= Duration::from_millis(300), "{waited:?}");
    // What the stuck client gets now is the start of its answer, cut short.
    let bytes = read_to_end(&mut stuck).await;
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("the head was sent");
    let head = String::from_utf8_lossy(&bytes[..end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .and_then(|v| v.trim().parse().ok())
        .expect("a Content-Length");
    let received = bytes.len() - end - 4;
    println!("the stuck client then read {received} of the answer's {length} bytes");
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(received < length, "{received} of {length}");
    server.stop().await.expect("run returns Ok");
}

// ------------------------------------------------------------ idle connections

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_connections_at_the_cap_make_room_for_a_probe() {
    let server = Server::start(Config {
        max_connections: 8,
        ..config()
    })
    .await;
    let mut silent = Vec::new();
    for _ in 0..8 {
        silent.push(connect(server.addr).await);
    }
    let mut times = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let probe = http_get(server.addr, "/healthz").await;
        times.push(started.elapsed());
        assert_eq!((probe.status, probe.json()), (200, json!({"status": "ok"})));
    }
    println!(
        "/healthz with 8 silent sockets holding a cap of 8: {:?} ms",
        times
            .iter()
            .map(|t| (ms(*t) * 100.0).round() / 100.0)
            .collect::<Vec<_>>()
    );
    // The first probe took the room of the longest silent, the first. Each
    // probe closes after its answer and leaves its room to the next, unless
    // the next comes in the instant between the server's end of stream and
    // its freeing the room: then the next longest silent goes. So the
    // closed ones are the first k, with k at most one per probe.
    let mut closed = Vec::new();
    for stream in &mut silent {
        closed.push(closed_within(stream, Duration::from_millis(100)).await);
    }
    let k = closed.iter().take_while(|c| **c).count();
    println!("silent sockets closed to make room for 5 probes: the first {k}");
    assert!((1..=5).contains(&k), "{closed:?}");
    assert!(
        closed[k..].iter().all(|c| !c),
        "not the longest silent first: {closed:?}"
    );
    server.stop().await.expect("run returns Ok");
}

/// A keep-alive `GET path` on `stream`, reading exactly one answer.
async fn keep_alive_get(stream: &mut TcpStream, path: &str) -> Reply {
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("sending");
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = bounded("reading an answer", stream.read(&mut buf))
            .await
            .expect("reading");
        assert!(n > 0, "closed mid-answer");
        bytes.extend_from_slice(&buf[..n]);
        if let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&bytes[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length: "))
                .and_then(|v| v.trim().parse().ok())
                .expect("a Content-Length");
            if bytes.len() >= end + 4 + length {
                return parse(&bytes);
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_longest_idle_connection_is_closed_first() {
    let server = Server::start(Config {
        max_connections: 2,
        ..config()
    })
    .await;
    let mut kept = connect(server.addr).await;
    let mut silent = connect(server.addr).await;
    // `kept` was connected first, but its answer makes it idle after
    // `silent`.
    assert_eq!(keep_alive_get(&mut kept, "/healthz").await.status, 200);
    assert_eq!(http_get(server.addr, "/healthz").await.status, 200);
    assert!(closed_within(&mut silent, LIMIT).await);
    assert!(!closed_within(&mut kept, Duration::from_millis(100)).await);
    // `kept` still works; then, idle again, it gives way in turn.
    assert_eq!(keep_alive_get(&mut kept, "/readyz").await.status, 200);
    let _holder = connect(server.addr).await;
    assert_eq!(http_get(server.addr, "/healthz").await.status, 200);
    assert!(closed_within(&mut kept, LIMIT).await);
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busy_connections_are_not_closed_to_make_room() {
    let server = Server::start(Config {
        max_connections: 2,
        // Stalled senders would be cut to make room otherwise.
        min_receive_rate: 0,
        ..config()
    })
    .await;
    // Two clients in the middle of their bodies: busy.
    let mut busy = Vec::new();
    for _ in 0..2 {
        let mut stream = connect(server.addr).await;
        stream
            .write_all(&head(
                "POST",
                "/v1/solve",
                &[("Content-Type", "application/json")],
                100,
            ))
            .await
            .expect("sending the head");
        stream.write_all(b"{\"board\"").await.expect("a part");
        busy.push(stream);
    }
    let mut third = connect(server.addr).await;
    third
        .write_all(&request_bytes("GET", "/healthz", &[], b""))
        .await
        .expect("sending");
    let mut byte = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_millis(300), third.read(&mut byte)).await;
    assert!(early.is_err(), "answered over the cap: {early:?}");
    for stream in &mut busy {
        assert!(!closed_within(stream, Duration::from_millis(10)).await);
    }
    let closed = Instant::now();
    drop(busy.remove(0));
    let reply = parse(&read_to_end(&mut third).await);
    assert_eq!(reply.status, 200);
    println!(
        "over a cap of 2 busy connections: answered {:.2} ms after one closed",
        ms(closed.elapsed())
    );
    // The other is still busy; the shutdown would wait for its body.
    drop(busy);
    server.stop().await.expect("run returns Ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lingering_connection_gives_way_to_a_new_client() {
    // Lingering of an hour: the probe is answered within the tests' limit
    // only if it does not wait for it.
    let server = Server::start(Config {
        max_connections: 1,
        linger_ms: 3_600_000,
        ..config()
    })
    .await;
    let mut slow = connect(server.addr).await;
    slow.write_all(&head("POST", "/v1/nowhere", &[], BIG))
        .await
        .expect("sending the head");
    slow.write_all(&[b' '; 1000])
        .await
        .expect("a part of the body");
    parse(&read_to_end(&mut slow).await).error(404, "not_found");
    let started = Instant::now();
    let probe = http_get(server.addr, "/healthz").await;
    let took = started.elapsed();
    assert_eq!(probe.status, 200);
    println!(
        "/healthz past a lingering connection at a cap of 1: {:.2} ms",
        ms(took)
    );
    server.stop().await.expect("run returns Ok");
}

// ------------------------------------------------------------ event streams

/// Opens `GET path` on a new connection and reads the answer's head alone
/// (an event stream's body does not end): the status and the connection.
async fn open(addr: SocketAddr, path: &str) -> (u16, TcpStream) {
    let mut stream = connect(addr).await;
    stream
        .write_all(&get_bytes(path))
        .await
        .expect("sending the request");
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    while !bytes.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = bounded("reading an answer's head", stream.read(&mut buf))
            .await
            .expect("reading");
        assert!(n > 0, "closed before the head: {bytes:?}");
        bytes.extend_from_slice(&buf[..n]);
    }
    let status = String::from_utf8_lossy(&bytes)
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .expect("a status line");
    (status, stream)
}

/// A stream holds its connection as long as its game lasts, never idle:
/// with `--max-streams` as high as `--max-connections` (settings `linkpath
/// serve` refuses; a server embedded without that check is held to the
/// rule all the same), the streams stop 16 connections short of the cap,
/// and `/healthz` on the main port is answered while they are all open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_at_their_bound_leave_the_main_port_room_for_healthz() {
    let cap = NON_STREAM_CONNECTIONS + 4;
    let mut config = config();
    config.max_connections = cap;
    config.games.max_streams = cap;
    config.games.max_streams_per_game = cap;
    let server = Server::start(config).await;
    let game = json!({"board": ["A.A", "B.B"], "rules": "lianliankan"});
    let created = exchange(server.addr, &post_bytes("/v1/games", &game)).await;
    assert_eq!(created.status, 201);
    let events = format!(
        "/v1/games/{}/events",
        created.json()["id"].as_str().expect("an id")
    );
    let mut streams = Vec::new();
    let mut statuses = Vec::new();
    for _ in 0..cap {
        let (status, stream) = open(server.addr, &events).await;
        statuses.push(status);
        streams.push(stream);
    }
    let mut expected = vec![200; 4];
    expected.extend([503; NON_STREAM_CONNECTIONS]);
    assert_eq!(statuses, expected);
    // The refusals closed their connections; the 4 streams hold theirs.
    let refused = exchange(server.addr, &get_bytes(&events)).await;
    let (message, _) = refused.error(503, "overloaded");
    assert_eq!(message, "all 4 event streams are open, retry shortly");
    let probe = http_get(server.addr, "/healthz").await;
    assert_eq!((probe.status, probe.json()), (200, json!({"status": "ok"})));
    drop(streams);
    server.stop().await.expect("run returns Ok");
}

// ------------------------------------------------------------ per client

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_over_the_per_client_cap_are_answered_429_and_closed() {
    let server = Server::start(Config {
        max_connections_per_client: 2,
        ..config()
    })
    .await;
    let here = Ipv4Addr::new(127, 0, 0, 1);
    let mut first = connect_from(here, server.addr).await;
    let _second = connect_from(here, server.addr).await;
    let mut third = connect_from(here, server.addr).await;
    let refused = parse(&read_to_end(&mut third).await);
    let (message, field) = refused.error(429, "rate_limited");
    assert_eq!(
        message,
        "more than 2 connections from this address, over the limit"
    );
    assert_eq!(field, None);
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert_eq!(refused.header("connection"), Some("close"));
    // Another address is not affected.
    let mut other = connect_from(Ipv4Addr::new(127, 0, 0, 2), server.addr).await;
    other
        .write_all(&request_bytes("GET", "/healthz", &[], b""))
        .await
        .expect("sending");
    assert_eq!(parse(&read_to_end(&mut other).await).status, 200);
    // The first two still work, and once one closes there is room again.
    assert_eq!(keep_alive_get(&mut first, "/healthz").await.status, 200);
    drop(first);
    // Until the server has seen the close, a new connection is refused,
    // and its 429 may be lost to a reset if the request lands after it.
    let again = bounded("room for a new connection", async {
        loop {
            let mut stream = connect_from(here, server.addr).await;
            stream
                .write_all(&request_bytes("GET", "/healthz", &[], b""))
                .await
                .expect("sending");
            let mut answer = Vec::new();
            if stream.read_to_end(&mut answer).await.is_ok() {
                let reply = parse(&answer);
                if reply.status == 200 {
                    return reply;
                }
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert_eq!(again.json(), serde_json::json!({"status": "ok"}));
    server.stop().await.expect("run returns Ok");
}

// ------------------------------------------------------------ request ids

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_ids_that_are_long_or_unprintable_are_replaced() {
    let server = Server::start(config()).await;
    let longest = "~".repeat(128);
    for kept in ["trace-7f3a", longest.as_str()] {
        let reply = exchange(
            server.addr,
            &request_bytes("GET", "/healthz", &[("X-Request-Id", kept)], b""),
        )
        .await;
        assert_eq!(reply.header("x-request-id"), Some(kept));
    }
    let huge = "a".repeat(60_000);
    let just_over = "b".repeat(129);
    for unfit in [
        huge.as_str(),
        just_over.as_str(),
        "has space",
        "tab\there",
        "caf\u{e9}",
    ] {
        let reply = exchange(
            server.addr,
            &request_bytes("GET", "/nowhere", &[("X-Request-Id", unfit)], b""),
        )
        .await;
        reply.error(404, "not_found");
        let id = reply.header("x-request-id").expect("an id");
        assert!(
            is_uuid(id),
            "{id:?} for {:?}",
            &unfit[..unfit.len().min(20)]
        );
    }
    server.stop().await.expect("run returns Ok");
}

// ------------------------------------------------------------ transfer codings

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transfer_coding_other_than_chunked_is_501() {
    let server = Server::start(config()).await;
    let chunked = |coding: &str| {
        format!(
            "POST /v1/solve HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
             Content-Type: application/json\r\nTransfer-Encoding: {coding}\r\n\r\n\
             5\r\nhello\r\n0\r\n\r\n"
        )
    };
    let reply = exchange(server.addr, chunked("gzip, chunked").as_bytes()).await;
    let (message, field) = reply.error(501, "not_implemented");
    assert_eq!(
        message,
        "Transfer-Encoding \"gzip, chunked\" is not supported, only chunked"
    );
    assert_eq!(field, None);
    assert!(reply.header("x-request-id").is_some_and(is_uuid));
    // Plain chunked reaches the parser.
    let reply = exchange(server.addr, chunked("chunked").as_bytes()).await;
    reply.error(400, "malformed_json");
    server.stop().await.expect("run returns Ok");
}
