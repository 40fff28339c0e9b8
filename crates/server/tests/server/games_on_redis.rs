//! Held games on a Redis store, as replicas share one: a game made
//! through one replica is played through another, a retry sent to another
//! replica gets the first answer again, even while the first is judged, an event stream open on one
//! replica carries the changes made through another, and a Redis that
//! cannot be reached is `503 store_unavailable` with `Retry-After`, never
//! a 500.
//!
//! The replicas run against the server `LINKPATH_TEST_REDIS_URL` names,
//! under a key prefix of their own, deleted when done; those cases are
//! ignored unless asked for (`cargo test -- --ignored`).

use crate::support::*;
use axum::Router;
use axum::body::Body;
use axum::http::Request;
use linkpath_server::{AppState, app};
use linkpath_testkit::redis::RedisPrefix;
use serde_json::{Value, json};
use std::net::TcpListener;
use std::time::Duration;

/// Two replicas' routers on one Redis store, under a key prefix of their
/// own, deleted when it drops.
fn two_replicas() -> (Router, Router, RedisPrefix) {
    let redis = RedisPrefix::fresh("server");
    let replica = || {
        let mut config = config();
        config.games.store = redis
            .setting()
            .parse()
            .expect("the test Redis URL is a store");
        app(AppState::open(config).expect("a Redis store opens"))
    };
    (replica(), replica(), redis)
}

fn keyed_post(path: &str, body: &str, key: &str) -> Request<Body> {
    Request::post(path)
        .header("content-type", "application/json")
        .header("idempotency-key", key)
        .body(Body::from(body.to_owned()))
        .expect("a request")
}

#[tokio::test]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn a_game_made_on_one_replica_is_played_on_another() {
    let (a, b, _redis) = two_replicas();
    let board = json!({"board": ["A.A", "B.B"], "rules": "lianliankan"}).to_string();
    let made = call(&a, keyed_post("/v1/games", &board, "make-1")).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let id = made.json()["id"].as_str().expect("an id").to_owned();
    // The create retried on the other replica: the same game, made once.
    let retried = call(&b, keyed_post("/v1/games", &board, "make-1")).await;
    assert_eq!(retried.status, 201);
    assert_eq!(retried.header("idempotent-replayed"), Some("true"));
    assert_eq!(retried.json(), made.json());

    let moves = format!("/v1/games/{id}/moves");
    let step = json!({"from": [0, 0], "to": [2, 0]}).to_string();
    let moved = call(&b, keyed_post(&moves, &step, "move-1")).await;
    assert_eq!((moved.status, moved.header("etag")), (200, Some("\"1\"")));
    let again = call(&a, keyed_post(&moves, &step, "move-1")).await;
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.json(), moved.json());

    let read = call(&a, get(&format!("/v1/games/{id}"))).await;
    assert_eq!((read.status, read.header("etag")), (200, Some("\"1\"")));
    assert_eq!(read.json()["board"], json!(["...", "B.B"]));
    let last = json!({"from": [0, 1], "to": [2, 1]}).to_string();
    let won = call(&a, keyed_post(&moves, &last, "move-2")).await.json();
    assert_eq!(
        (won["status"].clone(), won["version"].clone()),
        (json!("won"), json!(2))
    );
    let read = call(&b, get(&format!("/v1/games/{id}"))).await.json();
    assert_eq!(
        (read["status"].clone(), read["version"].clone()),
        (json!("won"), json!(2))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn copies_of_a_keyed_action_sent_to_two_replicas_at_once_get_one_answer() {
    let (a, b, _redis) = two_replicas();
    let board = json!({"board": ["A.A", "B.B"], "rules": "lianliankan"});
    for round in 0..20 {
        let made = post(&a, "/v1/games", &board).await;
        let id = made.json()["id"].as_str().expect("an id").to_owned();
        // A pause, or a move whose tiles are gone once the first applies:
        // a copy judged after it must be answered its answer, not refused.
        let (path, body) = if round % 2 == 0 {
            (format!("/v1/games/{id}/pause"), String::new())
        } else {
            let step = json!({"from": [0, 0], "to": [2, 0]});
            (format!("/v1/games/{id}/moves"), step.to_string())
        };
        let key = format!("race-{round}");
        let copies: Vec<_> = [&a, &b, &a, &b]
            .into_iter()
            .map(|replica| {
                let replica = replica.clone();
                let request = keyed_post(&path, &body, &key);
                tokio::spawn(async move { call(&replica, request).await })
            })
            .collect();
        let mut answers = Vec::new();
        for copy in copies {
            answers.push(copy.await.expect("a copy is answered"));
        }
        for answer in &answers {
            assert_eq!(answer.status, 200, "{path}: {}", answer.text());
            assert_eq!(answer.json(), answers[0].json());
        }
        let read = call(&b, get(&format!("/v1/games/{id}"))).await.json();
        assert_eq!(read["version"], 1);
    }
}

#[tokio::test]
async fn an_unreachable_redis_is_503_store_unavailable() {
    // A port nothing listens on: taken, then let go.
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        listener.local_addr().expect("a local address").port()
    };
    let mut config = config();
    config.games.store = format!("redis://127.0.0.1:{port}")
        .parse()
        .expect("a store");
    // The store opens without reaching Redis; its calls fail.
    let router = app(AppState::open(config).expect("a Redis store opens"));
    let board = json!({"board": ["A.A"], "rules": "lianliankan"});
    for reply in [
        post(&router, "/v1/games", &board).await,
        call(&router, get("/v1/games/00000000000000000000000000000000")).await,
    ] {
        assert_eq!(reply.status, 503, "{}", reply.text());
        assert_eq!(reply.json()["error"]["code"], "store_unavailable");
        assert_eq!(reply.header("retry-after"), Some("1"));
    }
}

#[tokio::test]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn a_stream_on_one_replica_carries_the_changes_made_on_another() {
    let (a, b, _redis) = two_replicas();
    let board = json!({"board": ["A.A", "B.B"], "rules": "lianliankan"}).to_string();
    let made = call(&b, keyed_post("/v1/games", &board, "make-1")).await;
    let id = made.json()["id"].as_str().expect("an id").to_owned();
    let response = tokio::time::timeout(
        Duration::from_secs(10),
        tower::ServiceExt::oneshot(a.clone(), get(&format!("/v1/games/{id}/events"))),
    )
    .await
    .expect("an answer")
    .expect("infallible");
    assert_eq!(response.status(), 200);
    let mut body = response.into_body();
    let first = crate::games::next_event(&mut body).await;
    assert_eq!(first[..2], ["event: game", "id: 0"]);

    let moves = format!("/v1/games/{id}/moves");
    let data = |event: &[String]| -> Value {
        serde_json::from_str(event[2].strip_prefix("data: ").expect("data")).expect("JSON")
    };
    for (version, step, board) in [
        (
            1,
            json!({"from": [0, 0], "to": [2, 0]}),
            json!(["...", "B.B"]),
        ),
        (
            2,
            json!({"from": [0, 1], "to": [2, 1]}),
            json!(["...", "..."]),
        ),
    ] {
        let key = format!("move-{version}");
        let moved = call(&b, keyed_post(&moves, &step.to_string(), &key)).await;
        assert_eq!(moved.status, 200, "{}", moved.text());
        let event = crate::games::next_event(&mut body).await;
        assert_eq!(event[1], format!("id: {version}"));
        assert_eq!(data(&event)["board"], board);
    }
    // The game is won: the stream ends with it.
    let end = tokio::time::timeout(
        Duration::from_secs(10),
        http_body_util::BodyExt::frame(&mut body),
    )
    .await
    .expect("the stream ends");
    assert!(end.is_none());
}

#[tokio::test]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn a_win_on_one_replica_is_on_the_board_read_on_another() {
    let (a, b, _redis) = two_replicas();
    let deal = crate::leaderboards::daily(&a, "2026-12-02", "width=6&height=4&types=6").await;
    let deal = deal.json();
    // Signed up on one replica, known on the other.
    let ann = sign_up(&a, "Ann").await;
    let me = get_as(&b, "/v1/players/me", Some(&ann)).await;
    assert_eq!(me.json()["id"], json!(ann.id));
    let game = crate::leaderboards::win(&a, &deal["game"], Some(&ann), None).await;
    let name = deal["leaderboard"].as_str().expect("a board");
    let board = crate::leaderboards::leaderboard(&b, name, "").await.json();
    assert_eq!(board["entries"][0]["game"], game["id"]);
    assert_eq!(board["entries"][0]["player"], "Ann");
    assert_eq!(board["entries"].as_array().map(Vec::len), Some(1));
    // Its games are listed on the other, and another player's token
    // cannot move on them there.
    let listed = get_as(&b, &format!("/v1/players/{}/games", ann.id), None).await;
    assert_eq!(listed.json()["games"][0]["id"], game["id"]);
    let bo = sign_up(&b, "Bo").await;
    let id = game["id"].as_str().unwrap();
    let refused = post_as(&b, &format!("/v1/games/{id}/undo"), &json!({}), Some(&bo)).await;
    assert_eq!(refused.status, 403, "{}", refused.text());
}
