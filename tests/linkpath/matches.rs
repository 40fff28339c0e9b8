//! A race across replicas, in real processes on one Redis: players on
//! either replica, the countdown run out by whichever replica's sweeper
//! comes first, and one replica killed (SIGKILL) mid-race. The race ends
//! on the other with every acknowledged move in the players' replays, each
//! seat's game made once, and the ratings moved once.

use crate::support::*;
use linkpath_api::matches::{Rating, after_match};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// The deal raced: small, and cleared by `/v1/clear`.
fn deal() -> Value {
    json!({"width": 6, "height": 4, "types": 6, "rules": "shisen-sho", "seed": 3})
}

/// `method path` on `addr` as the player holding `token`, with `body`
/// as JSON when there is one.
async fn call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: &str,
    body: Option<&Value>,
) -> Reply {
    let bearer = format!("Bearer {token}");
    let mut headers = vec![("Authorization", bearer.as_str())];
    let bytes = body.map(|b| b.to_string()).unwrap_or_default();
    if body.is_some() {
        headers.push(("Content-Type", "application/json"));
    }
    exchange(
        addr,
        &request_bytes(method, path, &headers, bytes.as_bytes()),
    )
    .await
}

async fn sign_up(server: &Process, name: &str) -> String {
    let made = server.post("/v1/players", &json!({ "name": name })).await;
    assert_eq!(made.status, 201, "{}", made.text());
    made.json()["token"].as_str().expect("a token").to_owned()
}

/// The match as `addr` reads it, once `ready` says it is as awaited.
async fn until(addr: SocketAddr, id: &str, token: &str, ready: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let read = call(addr, "GET", &format!("/v1/matches/{id}"), token, None).await;
        assert_eq!(read.status, 200, "{}", read.text());
        let read = read.json();
        if ready(&read) {
            return read;
        }
        assert!(started.elapsed() < LIMIT, "the match stayed {read}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The clearing sequence of the game `id`, as `/v1/clear` finds it.
async fn clearing(addr: SocketAddr, id: &str, token: &str) -> Vec<(Value, Value)> {
    let game = call(addr, "GET", &format!("/v1/games/{id}"), token, None).await;
    assert_eq!(game.status, 200, "{}", game.text());
    let body = json!({"board": game.json()["board"], "rules": "shisen-sho"});
    let clear = exchange(addr, &post_bytes("/v1/clear", &body)).await;
    assert_eq!(clear.status, 200, "{}", clear.text());
    clear.json()["moves"]
        .as_array()
        .expect("a clearing sequence")
        .iter()
        .map(|m| (m["from"].clone(), m["to"].clone()))
        .collect()
}

/// Plays `moves` on game `id` through `addr`; each must be acknowledged.
async fn play(addr: SocketAddr, id: &str, token: &str, moves: &[(Value, Value)]) {
    for (from, to) in moves {
        let step = json!({"from": from, "to": to});
        let moved = call(
            addr,
            "POST",
            &format!("/v1/games/{id}/moves"),
            token,
            Some(&step),
        )
        .await;
        assert_eq!(moved.status, 200, "{}", moved.text());
    }
}

/// The moves of a game's replay, in order.
async fn replayed(addr: SocketAddr, id: &str, token: &str) -> (Value, Vec<(Value, Value)>) {
    let replay = call(addr, "GET", &format!("/v1/games/{id}/replay"), token, None).await;
    assert_eq!(replay.status, 200, "{}", replay.text());
    let replay = replay.json();
    let moves = replay["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .filter(|a| a["action"] == "move")
        .map(|a| (a["from"].clone(), a["to"].clone()))
        .collect();
    (replay, moves)
}

#[tokio::test]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn a_replica_killed_mid_race_loses_no_move_and_the_race_ends_once() {
    let redis = linkpath_testkit::redis::RedisPrefix::fresh("matches-kill");
    let store = redis.setting();
    let replica = |name: &'static str| {
        let mut command = linkpath();
        command.env("LINKPATH_MATCH_COUNTDOWN_MS", "300");
        let store = store.clone();
        async move { Process::serve_with(name, command, &["--store", store.as_str()]).await }
    };
    let mut a = replica("matches-replica-a").await;
    let b = replica("matches-replica-b").await;
    let ann = sign_up(&a, "Ann").await;
    let bob = sign_up(&b, "Bob").await;

    // Ann makes the match on one replica, Bob joins on the other.
    let body = json!({"game": deal(), "seats": 2});
    let made = call(a.addr, "POST", "/v1/matches", &ann, Some(&body)).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let id = made.json()["id"].as_str().expect("an id").to_owned();
    let joined = call(
        b.addr,
        "POST",
        &format!("/v1/matches/{id}/join"),
        &bob,
        Some(&json!({})),
    )
    .await;
    assert_eq!(joined.status, 200, "{}", joined.text());
    let racing = until(b.addr, &id, &bob, |m| m["status"] == "playing").await;
    let games: Vec<String> = (0..2)
        .map(|i| {
            racing["players"][i]["game"]
                .as_str()
                .expect("a game")
                .to_owned()
        })
        .collect();
    // Both replicas read the race begun once: the same games.
    let seen_by_a = until(a.addr, &id, &ann, |m| m["status"] == "playing").await;
    assert_eq!(seen_by_a["players"], racing["players"]);

    // Half of Ann's moves through the replica about to die, two of Bob's.
    let ann_moves = clearing(a.addr, &games[0], &ann).await;
    let bob_moves = clearing(b.addr, &games[1], &bob).await;
    assert_eq!(ann_moves, bob_moves, "one deal: one clearing sequence");
    let half = ann_moves.len() / 2;
    play(a.addr, &games[0], &ann, &ann_moves[..half]).await;
    play(b.addr, &games[1], &bob, &bob_moves[..2]).await;
    a.child.0.kill().expect("SIGKILL");
    a.child.0.wait().expect("the replica is gone");

    // Ann plays on through the replica that lives, to the win.
    play(b.addr, &games[0], &ann, &ann_moves[half..]).await;
    let over = until(b.addr, &id, &ann, |m| m["status"] == "finished").await;
    let result = over["result"].as_array().expect("a result");
    let standing = |i: usize| {
        let r = &result[i];
        (r["place"].clone(), r["finish"].clone(), r["tiles"].clone())
    };
    let tiles = json!(ann_moves.len() * 2);
    assert_eq!(standing(0), (json!(1), json!("cleared"), tiles));
    assert_eq!(standing(1), (json!(2), json!("stopped"), json!(4)));

    // Every acknowledged move is in the replays the result links, which
    // check again.
    for (i, game) in games.iter().enumerate() {
        let link = format!("/v1/games/{game}/replay");
        assert_eq!(result[i]["replay"].as_str(), Some(link.as_str()));
    }
    let (ann_replay, ann_played) = replayed(b.addr, &games[0], &ann).await;
    assert_eq!(ann_played, ann_moves);
    let (_, bob_played) = replayed(b.addr, &games[1], &bob).await;
    assert_eq!(bob_played, bob_moves[..2].to_vec());
    let check = exchange(b.addr, &post_bytes("/v1/replays", &ann_replay)).await;
    assert_eq!(check.status, 200, "{}", check.text());
    assert_eq!(check.json()["status"], "won");

    // One game each, and the ratings moved once, by Glicko-2.
    for token in [&ann, &bob] {
        let listed = call(b.addr, "GET", "/v1/players/me/games", token, None).await;
        assert_eq!(listed.status, 200, "{}", listed.text());
        assert_eq!(listed.json()["games"].as_array().map(Vec::len), Some(1));
    }
    let after = after_match(&[(Rating::default(), 1), (Rating::default(), 2)]);
    for (token, rating) in [(&ann, after[0]), (&bob, after[1])] {
        let me = call(b.addr, "GET", "/v1/players/me", token, None).await;
        assert_eq!(me.status, 200, "{}", me.text());
        let shown = &me.json()["rating"];
        assert_eq!(shown["rating"].as_f64(), Some(rating.rating), "{shown}");
        assert_eq!(
            shown["deviation"].as_f64(),
            Some(rating.deviation),
            "{shown}"
        );
    }
}
