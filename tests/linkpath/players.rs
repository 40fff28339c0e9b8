//! A player's token stays secret in the running process: at the most
//! verbose log level, no line of the log carries it, nor any series of
//! `/metrics`, whatever the routes it is sent to and whether it is known.

use crate::support::*;
use serde_json::{Value, json};
use std::process::Stdio;
use std::time::{Duration, Instant};

#[tokio::test]
async fn a_token_is_in_no_log_line_at_any_level_and_no_metric() {
    let addr = free_addr();
    let log = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("players-secret.log");
    let mut command = linkpath();
    command
        .args([
            "serve",
            "--listen",
            &addr.to_string(),
            "--log-format",
            "json",
        ])
        .env("LINKPATH_STORE", "memory")
        .env("RUST_LOG", "trace")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).expect("a log file"));
    let server = Reaper(command.spawn().expect("linkpath serve starts"));
    let started = Instant::now();
    while tokio::net::TcpStream::connect(addr).await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the server did not start"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let send = |method: &'static str, path: String, auth: Option<String>, body: Option<Value>| async move {
        let mut headers = vec![("content-type", "application/json".to_owned())];
        if let Some(auth) = auth {
            headers.push(("authorization", auth));
        }
        let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        exchange(
            addr,
            &request_bytes(method, &path, &headers, body.as_bytes()),
        )
        .await
    };
    let signed = send(
        "POST",
        "/v1/players".into(),
        None,
        Some(json!({"name": "Ann"})),
    )
    .await;
    assert_eq!(signed.status, 201, "{}", signed.text());
    let token = signed.json()["token"].as_str().expect("a token").to_owned();
    let bearer = Some(format!("Bearer {token}"));
    let game = send(
        "POST",
        "/v1/games".into(),
        bearer.clone(),
        Some(json!({"width": 4, "height": 2, "types": 2})),
    )
    .await;
    assert_eq!(game.status, 201, "{}", game.text());
    let id = game.json()["id"].as_str().unwrap().to_owned();
    for (method, path) in [
        ("GET", "/v1/players/me".to_owned()),
        ("POST", format!("/v1/games/{id}/hint")),
        ("GET", "/v1/players/me/games".to_owned()),
        ("POST", "/v1/solve".to_owned()),
        ("GET", "/v1/nowhere".to_owned()),
    ] {
        send(method, path, bearer.clone(), Some(json!({}))).await;
    }
    // Unknown tokens, and the token's own digits under another prefix.
    let unknown = format!("lpp_{}", "ab".repeat(32));
    send(
        "GET",
        "/v1/players/me".into(),
        Some(format!("Bearer {unknown}")),
        None,
    )
    .await;
    let digits = token.trim_start_matches("lpp_").to_owned();
    send(
        "GET",
        "/v1/players/me".into(),
        Some(format!("Bearer {digits}")),
        None,
    )
    .await;
    let renewed = send("POST", "/v1/players/me/token".into(), bearer.clone(), None).await;
    let new_token = renewed.json()["token"]
        .as_str()
        .expect("a new token")
        .to_owned();
    send("GET", "/v1/players/me".into(), bearer.clone(), None).await;

    let metrics = exchange(addr, &get_bytes("/metrics")).await.text();
    drop(server);
    let written = std::fs::read_to_string(&log).expect("the log");
    assert!(
        written.lines().count() > 10,
        "the log holds too little: {written}"
    );
    for secret in [&token, &digits, &unknown, &new_token] {
        assert!(!written.contains(secret.as_str()), "the log holds a token");
        assert!(!metrics.contains(secret.as_str()), "/metrics holds a token");
    }
    assert!(!written.contains("lpp_"), "the log holds a token's prefix");
}

/// `POST` over a connection of its own, with `Authorization: auth`.
async fn post_with(addr: std::net::SocketAddr, path: &str, auth: &str, body: &Value) -> Reply {
    let headers = [
        ("content-type", "application/json"),
        ("authorization", auth),
    ];
    exchange(
        addr,
        &request_bytes("POST", path, &headers, body.to_string().as_bytes()),
    )
    .await
}

#[tokio::test]
async fn a_player_and_its_new_token_survive_a_sigkill() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("players-sigkill");
    let _ = std::fs::remove_dir_all(&dir);
    let store = format!("file:{}", dir.join("games.redb").display());
    let mut server = Process::serve("players-sigkill", &["--store", &store]).await;
    let signed = server.post("/v1/players", &json!({"name": "Ann"})).await;
    assert_eq!(signed.status, 201, "{}", signed.text());
    let player = signed.json();
    let old = format!("Bearer {}", player["token"].as_str().unwrap());
    let renewed = post_with(server.addr, "/v1/players/me/token", &old, &json!({})).await;
    assert_eq!(renewed.status, 201, "{}", renewed.text());
    let new = format!("Bearer {}", renewed.json()["token"].as_str().unwrap());
    let made = post_with(
        server.addr,
        "/v1/games",
        &new,
        &json!({"width": 4, "height": 2, "types": 2}),
    )
    .await;
    assert_eq!(made.status, 201, "{}", made.text());
    // Killed right after the answers: each was on disk before it was sent.
    server.child.0.kill().expect("SIGKILL");
    server.child.0.wait().expect("the server is gone");

    let restarted = Process::serve("players-sigkill-again", &["--store", &store]).await;
    let me = |auth: String| {
        let raw = request_bytes(
            "GET",
            "/v1/players/me",
            &[("authorization", auth.as_str())],
            b"",
        );
        async move { exchange(restarted.addr, &raw).await }
    };
    let found = me(new.clone()).await;
    assert_eq!(
        (found.status, found.json()["id"].clone()),
        (200, player["id"].clone())
    );
    assert_eq!(me(old).await.status, 401);
    let listed = exchange(restarted.addr, &get_bytes("/v1/players/me/games")).await;
    assert_eq!(listed.status, 401);
    let raw = request_bytes(
        "GET",
        "/v1/players/me/games",
        &[("authorization", new.as_str())],
        b"",
    );
    let games = exchange(restarted.addr, &raw).await.json();
    assert_eq!(games["games"][0]["id"], made.json()["id"]);
}
