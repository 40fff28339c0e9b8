//! Access control: API keys, the per-client rate limit (the client behind
//! a trusted proxy included) and CORS, each off by default and each
//! answering with the documented status and headers.

use crate::support::{
    Reply, Server, bounded, config, connect, connect_from, get_bytes, parse, read_to_end,
    request_bytes,
};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use linkpath_server::{AppState, Config, app};
use serde_json::{Value, json};
use tower::ServiceExt;

const SAMPLE: &str =
    r#"{"board": ["XX"], "rules": "mahjong", "queries": [{"from": [0, 0], "to": [1, 0]}]}"#;
const ANSWER: &str = r#"{"results":[{"connected":true,"segments":1,"path":[[0,0],[1,0]]}]}"#;

fn router(configure: impl FnOnce(&mut Config)) -> axum::Router {
    let mut config = Config::default();
    configure(&mut config);
    app(AppState::new(config))
}

fn solve(authorization: Option<&str>) -> Request<Body> {
    let mut request = Request::post("/v1/solve").header(header::CONTENT_TYPE, "application/json");
    if let Some(value) = authorization {
        request = request.header(header::AUTHORIZATION, value);
    }
    request.body(Body::from(SAMPLE)).unwrap()
}

async fn send(
    router: &axum::Router,
    request: Request<Body>,
) -> (StatusCode, axum::http::HeaderMap, String) {
    let response = router.clone().oneshot(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    (
        parts.status,
        parts.headers,
        String::from_utf8(bytes.to_vec()).unwrap(),
    )
}

fn error_code(body: &str) -> String {
    let value: Value = serde_json::from_str(body).unwrap();
    value["error"]["code"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn without_keys_the_api_is_open() {
    let router = router(|_| {});
    let (status, _, body) = send(&router, solve(None)).await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, ANSWER));
}

#[tokio::test]
async fn keys_gate_v1_and_only_v1() {
    let router = router(|c| c.api_keys = vec!["alpha-key".into(), "beta-key".into()]);

    let (status, headers, body) = send(&router, solve(None)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(headers[header::WWW_AUTHENTICATE], "Bearer");
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"error": {"code": "unauthorized", "message": "an API key or a player's token is required: send Authorization: Bearer <key or token>"}})
    );

    let (status, _, body) = send(&router, solve(Some("Bearer wrong-key"))).await;
    assert_eq!(
        (status, error_code(&body).as_str()),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );
    let (status, _, _) = send(&router, solve(Some("alpha-key"))).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "the Bearer scheme is required"
    );
    let (status, _, _) = send(&router, solve(Some("Bearer alpha-ke"))).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "a prefix of a key is not the key"
    );

    for key in ["alpha-key", "beta-key"] {
        let (status, _, body) = send(&router, solve(Some(&format!("Bearer {key}")))).await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, ANSWER));
    }
    for path in ["/healthz", "/readyz", "/metrics", "/openapi.yaml"] {
        let (status, _, _) = send(&router, Request::get(path).body(Body::empty()).unwrap()).await;
        assert_eq!(status, StatusCode::OK, "{path} stays open");
    }
}

#[tokio::test]
async fn the_rate_limit_answers_429_with_retry_after() {
    let router = router(|c| {
        c.rate_limit_per_second = 1;
        c.rate_limit_burst = Some(3);
    });
    for _ in 0..3 {
        let (status, _, body) = send(&router, solve(None)).await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, ANSWER));
    }
    let (status, headers, body) = send(&router, solve(None)).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(error_code(&body), "rate_limited");
    let retry: u64 = headers[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(retry, 1);
    // Health is never limited.
    let (status, _, _) = send(
        &router,
        Request::get("/healthz").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

/// A keep-alive request's bytes: `Connection: close` taken out.
fn keep_alive(raw: Vec<u8>) -> Vec<u8> {
    let text = String::from_utf8(raw).unwrap();
    text.replacen("Connection: close\r\n", "", 1).into_bytes()
}

/// Reads `n` answers, each with a `Content-Length`, from `stream`.
async fn answers(stream: &mut tokio::net::TcpStream, n: usize) -> Vec<Reply> {
    use tokio::io::AsyncReadExt;
    let mut bytes = Vec::new();
    let mut replies = Vec::new();
    let mut buf = [0u8; 4096];
    while replies.len() < n {
        if let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&bytes[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length: "))
                .and_then(|v| v.trim().parse().ok())
                .expect("a Content-Length");
            if bytes.len() >= end + 4 + length {
                let rest = bytes.split_off(end + 4 + length);
                replies.push(parse(&bytes));
                bytes = rest;
                continue;
            }
        }
        let read = bounded("reading an answer", stream.read(&mut buf))
            .await
            .expect("reading");
        assert!(read > 0, "closed after {} answers", replies.len());
        bytes.extend_from_slice(&buf[..read]);
    }
    replies
}

/// A 429 says what the limit is and when to come back, in the fields of
/// draft-ietf-httpapi-ratelimit-headers-11 as well as `Retry-After`, and
/// leaves the connection open: its small body is read, not left unread.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_names_the_limit_and_keeps_the_connection() {
    let server = Server::start(Config {
        rate_limit_per_second: 1,
        rate_limit_burst: Some(1),
        ..config()
    })
    .await;
    let solve = keep_alive(request_bytes(
        "POST",
        "/v1/solve",
        &[("Content-Type", "application/json")],
        SAMPLE.as_bytes(),
    ));
    let mut stream = connect(server.addr).await;
    use tokio::io::AsyncWriteExt;
    // Sent together, so the second is over the limit however slow the
    // machine: the bucket holds one request and refills in a second.
    stream
        .write_all(&[solve.clone(), solve].concat())
        .await
        .unwrap();
    let replies = answers(&mut stream, 2).await;
    assert_eq!((replies[0].status, replies[0].text()), (200, ANSWER.into()));
    let limited = &replies[1];
    limited.error(429, "rate_limited");
    assert_eq!(
        ["retry-after", "ratelimit", "ratelimit-policy", "connection"]
            .map(|name| limited.header(name)),
        [
            Some("1"),
            Some("\"per-client\";r=0;t=1"),
            Some("\"per-client\";q=1;w=1;linkpath-rate=1"),
            None
        ]
    );
    // The same connection serves the next request.
    stream
        .write_all(&keep_alive(get_bytes("/healthz")))
        .await
        .unwrap();
    let next = answers(&mut stream, 1).await;
    assert_eq!(next[0].status, 200);

    // A body over 64 KiB is not read for a refusal: that answer closes.
    let big = format!("{{\"board\": [\"{}\"]}}", "X".repeat(70_000));
    let mut other = connect(server.addr).await;
    other
        .write_all(&keep_alive(request_bytes(
            "POST",
            "/v1/solve",
            &[("Content-Type", "application/json")],
            big.as_bytes(),
        )))
        .await
        .unwrap();
    let refused = parse(&read_to_end(&mut other).await);
    refused.error(429, "rate_limited");
    assert_eq!(refused.header("connection"), Some("close"));
    server.stop().await.expect("run returns Ok");
}

/// `n` solves pipelined on one connection from `from`, each with the
/// headers of its place in `forwarded`: their statuses.
async fn solves_from(
    from: std::net::Ipv4Addr,
    server: &Server,
    forwarded: &[&[(&str, &str)]],
) -> Vec<u16> {
    use tokio::io::AsyncWriteExt;
    let requests: Vec<u8> = forwarded
        .iter()
        .flat_map(|headers| {
            let mut all = vec![("Content-Type", "application/json")];
            all.extend_from_slice(headers);
            keep_alive(request_bytes("POST", "/v1/solve", &all, SAMPLE.as_bytes()))
        })
        .collect();
    let mut stream = connect_from(from, server.addr).await;
    // Sent together, so that each bucket's second request is over the
    // limit however slow the machine: a bucket holds one and refills in a
    // second.
    stream.write_all(&requests).await.unwrap();
    let replies = answers(&mut stream, forwarded.len()).await;
    replies.iter().map(|reply| reply.status).collect()
}

/// Behind a trusted proxy each client has a bucket of its own, named by
/// the proxy's `X-Forwarded-For` (or `Forwarded`); a client that is no
/// trusted proxy cannot leave its bucket by sending that header itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_each_client_has_its_own_bucket() {
    let proxy = std::net::Ipv4Addr::new(127, 0, 0, 2);
    let server = Server::start(Config {
        rate_limit_per_second: 1,
        rate_limit_burst: Some(1),
        trusted_proxies: vec!["127.0.0.2/32".parse().unwrap()],
        ..config()
    })
    .await;
    let first: &[(&str, &str)] = &[("X-Forwarded-For", "198.51.100.1")];
    let second: &[(&str, &str)] = &[("X-Forwarded-For", "198.51.100.2")];
    // The second client's own claim (a fresh address) is left of the
    // address the proxy appended, and ignored.
    let second_spoofing: &[(&str, &str)] = &[("X-Forwarded-For", "198.51.100.9, 198.51.100.2")];
    let third: &[(&str, &str)] = &[("Forwarded", "for=\"[2001:db8::3]:4711\"")];
    assert_eq!(
        solves_from(
            proxy,
            &server,
            &[first, first, second, second_spoofing, third]
        )
        .await,
        [200, 429, 200, 429, 200],
        "each client its own bucket of one"
    );

    // From an address that is no trusted proxy, the header is the
    // client's own word: every request is the peer's.
    let direct = std::net::Ipv4Addr::new(127, 0, 0, 1);
    let claims: [&[(&str, &str)]; 3] = [
        &[("X-Forwarded-For", "203.0.113.1")],
        &[("X-Forwarded-For", "203.0.113.2")],
        &[("Forwarded", "for=203.0.113.3")],
    ];
    assert_eq!(
        solves_from(direct, &server, &claims).await,
        [200, 429, 429],
        "one bucket, the peer's"
    );
    server.stop().await.expect("run returns Ok");
}

#[tokio::test]
async fn cors_allows_only_the_listed_origins() {
    let router = router(|c| c.cors_origins = vec!["https://game.example".into()]);
    let preflight = |origin: &str| {
        Request::options("/v1/solve")
            .header(header::ORIGIN, origin)
            .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
            .header(header::ACCESS_CONTROL_REQUEST_HEADERS, "content-type")
            .body(Body::empty())
            .unwrap()
    };
    let (status, headers, _) = send(&router, preflight("https://game.example")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        headers[header::ACCESS_CONTROL_ALLOW_ORIGIN],
        "https://game.example"
    );
    let (_, headers, _) = send(&router, preflight("https://evil.example")).await;
    assert!(!headers.contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN));

    let mut request = solve(None);
    request
        .headers_mut()
        .insert(header::ORIGIN, "https://game.example".parse().unwrap());
    let (status, headers, body) = send(&router, request).await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, ANSWER));
    assert_eq!(
        headers[header::ACCESS_CONTROL_ALLOW_ORIGIN],
        "https://game.example"
    );

    // A player's own account takes PATCH and DELETE from a page too.
    for method in ["PATCH", "DELETE"] {
        let preflight = Request::options("/v1/players/me")
            .header(header::ORIGIN, "https://game.example")
            .header(header::ACCESS_CONTROL_REQUEST_METHOD, method)
            .header(
                header::ACCESS_CONTROL_REQUEST_HEADERS,
                "authorization, content-type",
            )
            .body(Body::empty())
            .unwrap();
        let (status, headers, _) = send(&router, preflight).await;
        assert_eq!(status, StatusCode::OK, "{method}");
        let allowed = headers[header::ACCESS_CONTROL_ALLOW_METHODS]
            .to_str()
            .unwrap();
        assert!(
            allowed.split(',').any(|m| m.trim() == method),
            "{method}: {allowed}"
        );
    }

    let closed = router_without_cors().await;
    assert!(!closed.contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN));
}

/// A game on another origin acts with versions and retry keys, resumes
/// its stream, and reads the headers that say what happened.
#[tokio::test]
async fn cors_lets_a_game_send_and_read_every_header_of_the_api() {
    let router = router(|c| c.cors_origins = vec!["*".into()]);
    let preflight = Request::options("/v1/games/0123/moves")
        .header(header::ORIGIN, "https://game.example")
        .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
        .header(
            header::ACCESS_CONTROL_REQUEST_HEADERS,
            "authorization,content-type,idempotency-key,if-match,if-none-match,last-event-id,traceparent,x-request-id",
        )
        .body(Body::empty())
        .unwrap();
    let (status, headers, _) = send(&router, preflight).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers[header::ACCESS_CONTROL_ALLOW_ORIGIN], "*");
    assert_eq!(
        headers[header::ACCESS_CONTROL_ALLOW_HEADERS],
        "content-type,authorization,if-match,if-none-match,idempotency-key,last-event-id,x-request-id,traceparent"
    );

    let mut request = solve(None);
    request
        .headers_mut()
        .insert(header::ORIGIN, "https://game.example".parse().unwrap());
    let (_, headers, _) = send(&router, request).await;
    assert_eq!(
        headers[header::ACCESS_CONTROL_EXPOSE_HEADERS],
        "etag,location,retry-after,idempotent-replayed,ratelimit,ratelimit-policy,x-request-id"
    );
}

async fn router_without_cors() -> axum::http::HeaderMap {
    let router = router(|_| {});
    let mut request = solve(None);
    request
        .headers_mut()
        .insert(header::ORIGIN, "https://game.example".parse().unwrap());
    send(&router, request).await.1
}
