//! Compressed answers: each coding the client asks for decodes to the
//! identity answer's bytes; small answers, event streams and answers with
//! a strong `ETag` are sent as they are; revalidation still works; and a
//! compressed answer is counted in the memory budget at its uncompressed
//! size.

use crate::support::*;
use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use linkpath_server::{Config, RequestLimits};
use serde_json::json;
use std::io::Read;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The codings this build answers with: gzip always, Brotli and zstd
/// with their features (the image has them).
const CODINGS: &[&str] = &[
    "gzip",
    #[cfg(feature = "br")]
    "br",
    #[cfg(feature = "zstd")]
    "zstd",
];

/// The coding that compresses a big answer fastest in this build.
const FASTEST: &str = if cfg!(feature = "zstd") {
    "zstd"
} else {
    "gzip"
};

/// `GET path` asking for `codings`.
fn get_with(path: &str, headers: &[(&str, &str)]) -> Request<Body> {
    let mut request = Request::get(path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Body::empty()).expect("a request")
}

/// `body` decoded from `coding`.
fn decode(coding: &str, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match coding {
        "gzip" => {
            flate2::read::GzDecoder::new(body)
                .read_to_end(&mut out)
                .expect("gzip decodes");
        }
        #[cfg(feature = "br")]
        "br" => {
            brotli::Decompressor::new(body, 4096)
                .read_to_end(&mut out)
                .expect("br decodes");
        }
        #[cfg(feature = "zstd")]
        "zstd" => out = zstd::stream::decode_all(body).expect("zstd decodes"),
        other => panic!("no decoder for {other}"),
    }
    out
}

fn varies_by_coding(reply: &Reply) -> bool {
    reply
        .headers
        .iter()
        .any(|(n, v)| n == "vary" && v.to_ascii_lowercase().contains("accept-encoding"))
}

#[tokio::test]
async fn each_coding_asked_for_decodes_to_the_same_bytes() {
    let router = router(config());
    for path in ["/openapi.yaml", "/", "/playground/app.js"] {
        let plain = call(&router, get(path)).await;
        assert_eq!(plain.status, 200, "{path}");
        assert!(
            plain.body.len() >= 1024,
            "{path}: {} bytes",
            plain.body.len()
        );
        for &coding in CODINGS {
            let reply = call(&router, get_with(path, &[("accept-encoding", coding)])).await;
            assert_eq!(reply.status, 200, "{path} {coding}");
            assert_eq!(reply.header("content-encoding"), Some(coding), "{path}");
            assert!(varies_by_coding(&reply), "{path} {coding}");
            assert!(
                reply.body.len() < plain.body.len() / 2,
                "{path} {coding}: {} of {} bytes",
                reply.body.len(),
                plain.body.len()
            );
            assert!(
                decode(coding, &reply.body) == plain.body,
                "{path} {coding} decodes to other bytes"
            );
        }
    }
    // The client's preference decides, by its weights, among what the
    // build has.
    let reply = call(
        &router,
        get_with(
            "/openapi.yaml",
            &[("accept-encoding", "gzip;q=0.5, zstd;q=0.9, br;q=0.1")],
        ),
    )
    .await;
    assert_eq!(reply.header("content-encoding"), Some(FASTEST));
}

#[tokio::test]
async fn a_big_solve_answer_is_compressed() {
    let router = router(config());
    let body = json!({
        "board": ["XXXXX", "X   X", "XXX X", " XXX "],
        "rules": "mahjong",
        "queries": vec![json!({"from": [1, 2], "to": [4, 2]}); 40],
    });
    let plain = solve(&router, &body).await;
    assert!(plain.body.len() >= 1024, "{} bytes", plain.body.len());
    let request = Request::post("/v1/solve")
        .header("content-type", "application/json")
        .header("accept-encoding", "gzip, br, zstd")
        .body(Body::from(body.to_string()))
        .expect("a request");
    let reply = call(&router, request).await;
    assert_eq!(reply.status, 200);
    let coding = reply.header("content-encoding").expect("compressed");
    assert!(decode(coding, &reply.body) == plain.body);
}

#[tokio::test]
async fn identity_when_no_coding_is_asked_for_or_accepted() {
    let router = router(config());
    let plain = call(&router, get("/openapi.yaml")).await;
    for asked in [
        None,
        Some("identity"),
        Some("gzip;q=0, br;q=0"),
        Some("x-unknown"),
    ] {
        let headers: Vec<(&str, &str)> =
            asked.map(|a| ("accept-encoding", a)).into_iter().collect();
        let reply = call(&router, get_with("/openapi.yaml", &headers)).await;
        assert_eq!(reply.status, 200, "{asked:?}");
        assert_eq!(reply.header("content-encoding"), None, "{asked:?}");
        assert!(reply.body == plain.body, "{asked:?}");
        // Another client may ask for a coding: caches keep them apart.
        assert!(varies_by_coding(&reply), "{asked:?}");
    }
}

#[tokio::test]
async fn answers_under_the_threshold_are_sent_as_they_are() {
    let router = router(config());
    let request = Request::post("/v1/solve")
        .header("content-type", "application/json")
        .header("accept-encoding", "gzip, br, zstd")
        .body(Body::from(mahjong_sample().to_string()))
        .expect("a request");
    let reply = call(&router, request).await;
    assert_eq!(reply.status, 200);
    assert!(reply.body.len() < 1024);
    assert_eq!(reply.header("content-encoding"), None);
    assert_eq!(reply.results(), mahjong_sample_results());

    // 0: nothing is compressed.
    let off = linkpath_server::app(linkpath_server::AppState::new(Config {
        compress_min_bytes: 0,
        ..config()
    }));
    let reply = call(
        &off,
        get_with("/openapi.yaml", &[("accept-encoding", "gzip")]),
    )
    .await;
    assert_eq!(reply.header("content-encoding"), None);
    // A higher threshold leaves the page as it is too.
    let high = linkpath_server::app(linkpath_server::AppState::new(Config {
        compress_min_bytes: 1 << 30,
        ..config()
    }));
    let reply = call(&high, get_with("/", &[("accept-encoding", "gzip")])).await;
    assert_eq!(reply.header("content-encoding"), None);
}

#[tokio::test]
async fn the_event_stream_and_a_games_versioned_answer_are_not_compressed() {
    let router = router(config());
    // Enough pairs that the game's JSON passes the threshold.
    let rows: Vec<String> = (0..40).map(|_| "AB.BA".repeat(8)).collect();
    let created = post(
        &router,
        "/v1/games",
        &json!({"board": rows, "rules": "lianliankan"}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.text());
    let id = created.json()["id"].as_str().expect("an id").to_owned();

    // A strong ETag names these bytes: the game is sent as they are.
    let read = call(
        &router,
        get_with(
            &format!("/v1/games/{id}"),
            &[("accept-encoding", "gzip, br, zstd")],
        ),
    )
    .await;
    assert_eq!(read.status, 200);
    assert!(read.body.len() >= 1024, "{} bytes", read.body.len());
    assert_eq!(read.header("etag"), Some("\"0\""));
    assert_eq!(read.header("content-encoding"), None);

    let response = bounded(
        "the event stream's head",
        tower::ServiceExt::oneshot(
            router.clone(),
            get_with(
                &format!("/v1/games/{id}/events"),
                &[("accept-encoding", "gzip, br, zstd")],
            ),
        ),
    )
    .await
    .expect("infallible");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    assert!(response.headers().get("content-encoding").is_none());
    // The first event arrives as it is, not held in an encoder's buffer.
    let mut body = response.into_body();
    let mut text = String::new();
    while !text.contains("event: game") {
        let frame = bounded("an event", body.frame())
            .await
            .expect("the stream goes on")
            .expect("a frame");
        if let Ok(data) = frame.into_data() {
            text.push_str(std::str::from_utf8(&data).expect("plain UTF-8"));
        }
    }
}

#[tokio::test]
async fn a_compressed_answer_is_revalidated_by_its_weak_etag() {
    let router = router(config());
    for &coding in CODINGS {
        let first = call(
            &router,
            get_with("/openapi.yaml", &[("accept-encoding", coding)]),
        )
        .await;
        assert_eq!(first.header("content-encoding"), Some(coding));
        let tag = first.header("etag").expect("an etag").to_owned();
        assert!(tag.starts_with("W/\""), "{tag}");
        let again = call(
            &router,
            get_with(
                "/openapi.yaml",
                &[("accept-encoding", coding), ("if-none-match", &tag)],
            ),
        )
        .await;
        assert_eq!(again.status, 304, "{coding}");
        assert_eq!(again.header("etag"), Some(tag.as_str()));
        assert!(varies_by_coding(&again), "{coding}");
        assert!(again.body.is_empty());
        // The identity variant has the same tag: one is as good as the
        // other.
        let plain = call(
            &router,
            get_with("/openapi.yaml", &[("if-none-match", &tag)]),
        )
        .await;
        assert_eq!(plain.status, 304, "{coding}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compressed_answer_unread_holds_its_uncompressed_size_in_the_memory_budget() {
    let server = Server::start(Config {
        memory_budget_bytes: Some(8 << 20),
        memory_wait_ms: 50,
        request: RequestLimits {
            max_body_bytes: 2 << 20,
            ..config().request
        },
        ..config()
    })
    .await;
    // A shuffle of 1000 x 1000 tiles answers about 33 MB of moves, in a
    // random order that compresses to about 6 MB: more than loopback's
    // socket buffers take (4 MiB at most, here) from a client with a small
    // receive buffer. Were they to take it all, nothing would be held and
    // the 503 below would not come.
    let body = big_shuffle(1000);
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    socket
        .set_recv_buffer_size(64 << 10)
        .expect("a receive buffer");
    let mut unread = bounded("connecting", socket.connect(server.addr))
        .await
        .expect("connected");
    unread
        .write_all(&request_bytes(
            "POST",
            "/v1/shuffle",
            &[
                ("Content-Type", "application/json"),
                ("Accept-Encoding", FASTEST),
            ],
            body.to_string().as_bytes(),
        ))
        .await
        .expect("sending");
    let mut status = [0u8; 12];
    bounded("the answer's first bytes", unread.read_exact(&mut status))
        .await
        .expect("an answer");
    assert_eq!(&status, b"HTTP/1.1 200");

    // The encoder still holds the 33 MB the handler built: no body fits.
    let mut raw = request_bytes(
        "POST",
        "/v1/solve",
        &[("Content-Type", "application/json")],
        &[b' '; 10_000],
    );
    let refused = exchange(server.addr, &raw).await;
    assert_eq!(
        refused.error(503, "overloaded").0,
        "the memory budget of 8388608 bytes is held by other requests and answers, retry shortly"
    );

    // Read, it is no longer counted.
    let mut rest = status.to_vec();
    rest.extend(read_to_end(&mut unread).await);
    let answer = parse(&rest);
    assert_eq!(answer.header("content-encoding"), Some(FASTEST));
    let moves = decode(FASTEST, &answer.body);
    assert!(moves.len() > 8 << 20, "{} bytes", moves.len());
    let mut body = serde_json::to_vec(&mahjong_sample()).expect("json");
    body.resize(10_000, b' ');
    raw = request_bytes(
        "POST",
        "/v1/solve",
        &[("Content-Type", "application/json")],
        &body,
    );
    let answered = exchange_until_served("room given back", server.addr, &raw).await;
    assert_eq!(answered.status, 200, "{}", answered.text());
    server.stop().await.expect("run returns Ok");
}
