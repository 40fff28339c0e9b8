//! Access control: API keys, the per-client rate limit and CORS, each off
//! by default and each answering with the documented status and headers.

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
        json!({"error": {"code": "unauthorized", "message": "an API key is required: send Authorization: Bearer <key>"}})
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

    let closed = router_without_cors().await;
    assert!(!closed.contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN));
}

async fn router_without_cors() -> axum::http::HeaderMap {
    let router = router(|_| {});
    let mut request = solve(None);
    request
        .headers_mut()
        .insert(header::ORIGIN, "https://game.example".parse().unwrap());
    send(&router, request).await.1
}
