//! Held games through the router: creating one, each action with its exact
//! answer and `ETag`, refusals that change nothing (an illegal move, a
//! stale `If-Match`, a finished game), `Idempotency-Key`, 50 concurrent
//! moves on one game, the event stream, replays, and the store's bound.

use crate::support::*;
use axum::Router;
use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use linkpath_server::Config;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::time::Duration;

/// A board of `pairs` rows, each a pair of its own type with a gap
/// between: every pair can go in any order, under Lianliankan.
fn pairs_board(pairs: usize) -> Value {
    let types = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let rows: Vec<String> = types
        .chars()
        .take(pairs)
        .map(|c| format!("{c}.{c}"))
        .collect();
    json!({"board": rows, "rules": "lianliankan"})
}

async fn create(router: &Router, body: Value) -> (String, Value) {
    let reply = post(router, "/v1/games", &body).await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    let game = reply.json();
    let id = game["id"].as_str().expect("an id").to_owned();
    assert_eq!(
        reply.header("location"),
        Some(format!("/v1/games/{id}").as_str())
    );
    assert_eq!(reply.header("etag"), Some("\"0\""));
    (id, game)
}

async fn make_move(router: &Router, id: &str, from: [i64; 2], to: [i64; 2]) -> Reply {
    let body = json!({"from": from, "to": to}).to_string();
    call(router, action(&format!("/v1/games/{id}/moves"), &body, &[])).await
}

#[tokio::test]
async fn a_game_is_created_read_and_won_move_by_move() {
    let router = router(config());
    let (id, game) = create(&router, pairs_board(2)).await;
    assert_eq!(id.len(), 32);
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(game["status"], "playing");
    assert_eq!(game["version"], 0);
    assert_eq!(game["board"], json!(["A.A", "B.B"]));
    assert_eq!(
        (game["tiles_left"].clone(), game["moves_open"].clone()),
        (json!(4), json!(2))
    );
    assert_eq!(
        game["assists"],
        json!({"hints": 0, "undos": 0, "shuffles": 0})
    );
    assert_eq!(game["ranked"], true);
    assert_eq!(game["settings"]["rules"], "lianliankan");

    let read = call(&router, get(&format!("/v1/games/{id}"))).await;
    assert_eq!((read.status, read.header("etag")), (200, Some("\"0\"")));

    let illegal = make_move(&router, &id, [0, 0], [0, 1]).await;
    assert_eq!(illegal.status, 409);
    assert_eq!(illegal.json()["error"]["code"], "illegal_move");
    assert_eq!(illegal.json()["error"]["reason"], "type_mismatch");
    let off = make_move(&router, &id, [0, 0], [9, 9]).await;
    assert_eq!(off.json()["error"]["reason"], "off_board");

    let first = make_move(&router, &id, [0, 0], [2, 0]).await;
    assert_eq!((first.status, first.header("etag")), (200, Some("\"1\"")));
    let first = first.json();
    assert_eq!(first["board"], json!(["...", "B.B"]));
    assert_eq!(first["last"]["path"], json!([[0, 0], [2, 0]]));
    let won = make_move(&router, &id, [0, 1], [2, 1]).await.json();
    assert_eq!(
        (won["status"].clone(), won["version"].clone()),
        (json!("won"), json!(2))
    );
    let after = make_move(&router, &id, [0, 0], [2, 0]).await;
    assert_eq!(after.status, 409);
    assert_eq!(after.json()["error"]["code"], "game_over");
}

/// A client that holds a version revalidates it: 304 with no body while
/// the game is there, 200 with the new version once it moved on.
#[tokio::test]
async fn a_read_naming_the_games_etag_is_304_until_it_changes() {
    let router = router(config());
    let (id, _) = create(&router, pairs_board(2)).await;
    let path = format!("/v1/games/{id}");
    let read = |tag: &'static str| {
        Request::get(&path)
            .header("if-none-match", tag)
            .body(Body::empty())
            .unwrap()
    };
    let fresh = call(&router, get(&path)).await;
    assert_eq!(
        (fresh.header("etag"), fresh.header("cache-control")),
        (Some("\"0\""), Some("no-cache"))
    );
    for tag in ["\"0\"", "W/\"0\"", "\"7\", \"0\"", "*"] {
        let kept = call(&router, read(tag)).await;
        assert_eq!(kept.status, 304, "{tag}");
        assert_eq!(kept.text(), "", "{tag}");
        assert_eq!(
            (kept.header("etag"), kept.header("cache-control")),
            (Some("\"0\""), Some("no-cache")),
            "{tag}"
        );
    }
    assert_eq!(make_move(&router, &id, [0, 0], [2, 0]).await.status, 200);
    let moved = call(&router, read("\"0\"")).await;
    assert_eq!((moved.status, moved.header("etag")), (200, Some("\"1\"")));
    assert_eq!(moved.json()["board"], json!(["...", "B.B"]));
    assert_eq!(call(&router, read("\"1\"")).await.status, 304);
    // A tag of no game at all is no match, and an unknown game stays 404.
    assert_eq!(call(&router, read("\"x\"")).await.status, 200);
    let gone = Request::get("/v1/games/00000000000000000000000000000000")
        .header("if-none-match", "*")
        .body(Body::empty())
        .unwrap();
    assert_eq!(call(&router, gone).await.status, 404);
}

#[tokio::test]
async fn an_unknown_game_is_404_with_its_own_code() {
    let router = router(config());
    let reply = call(&router, get("/v1/games/00000000000000000000000000000000")).await;
    assert_eq!(reply.status, 404);
    assert_eq!(reply.json()["error"]["code"], "game_not_found");
    let reply = make_move(&router, "nope", [0, 0], [1, 0]).await;
    assert_eq!(reply.json()["error"]["code"], "game_not_found");
}

#[tokio::test]
async fn a_stale_if_match_is_412_and_changes_nothing() {
    let router = router(config());
    let (id, _) = create(&router, pairs_board(2)).await;
    let path = format!("/v1/games/{id}/moves");
    let body = json!({"from": [0, 0], "to": [2, 0]}).to_string();
    let stale = call(&router, action(&path, &body, &[("if-match", "\"3\"")])).await;
    assert_eq!(stale.status, 412);
    assert_eq!(stale.json()["error"]["code"], "version_mismatch");
    let bad = call(&router, action(&path, &body, &[("if-match", "three")])).await;
    assert_eq!(bad.status, 422);
    let read = call(&router, get(&format!("/v1/games/{id}"))).await.json();
    assert_eq!(read["version"], 0);
    let pinned = call(&router, action(&path, &body, &[("if-match", "\"0\"")])).await;
    assert_eq!((pinned.status, pinned.header("etag")), (200, Some("\"1\"")));
}

#[tokio::test]
async fn a_repeated_idempotency_key_answers_the_first_answer_again() {
    let router = router(config());
    let path = "/v1/games";
    let body = pairs_board(2).to_string();
    let key = [("idempotency-key", "create-1")];
    let first = call(&router, action(path, &body, &key)).await;
    let again = call(&router, action(path, &body, &key)).await;
    assert_eq!((first.status, again.status), (201, 201));
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(first.json(), again.json());
    let id = first.json()["id"].as_str().unwrap().to_owned();

    let moves = format!("/v1/games/{id}/moves");
    let step = json!({"from": [0, 0], "to": [2, 0]}).to_string();
    let key = [("idempotency-key", "move-1")];
    let once = call(&router, action(&moves, &step, &key)).await;
    let twice = call(&router, action(&moves, &step, &key)).await;
    assert_eq!((once.status, twice.status), (200, 200));
    assert_eq!(twice.header("etag"), Some("\"1\""));
    assert_eq!(once.json(), twice.json());
    let other = json!({"from": [0, 1], "to": [2, 1]}).to_string();
    let reused = call(&router, action(&moves, &other, &key)).await;
    assert_eq!(reused.status, 422);
    assert_eq!(reused.json()["error"]["code"], "idempotency_key_reused");
    let read = call(&router, get(&format!("/v1/games/{id}"))).await.json();
    assert_eq!(read["version"], 1);
}

#[tokio::test]
async fn concurrent_moves_on_one_game_apply_once_each_without_gaps() {
    let router = router(Config {
        workers: Some(64),
        ..config()
    });
    let pairs = 25;
    let (id, _) = create(&router, pairs_board(pairs)).await;
    // Each pair sent twice at once: 50 moves, of which exactly one of
    // each pair can apply.
    let tasks: Vec<_> = (0..2 * pairs)
        .map(|i| {
            let router = router.clone();
            let id = id.clone();
            let row = (i % pairs) as i64;
            tokio::spawn(async move { make_move(&router, &id, [0, row], [2, row]).await })
        })
        .collect();
    let mut versions = BTreeSet::new();
    let mut refused = 0;
    for task in tasks {
        let reply = task.await.expect("a move");
        match reply.status {
            200 => {
                versions.insert(reply.json()["version"].as_u64().unwrap());
            }
            409 => {
                // The pair's tiles are gone, or every pair is and the game
                // is won.
                let error = &reply.json()["error"];
                assert!(
                    error["reason"] == "not_a_tile" || error["code"] == "game_over",
                    "{error}"
                );
                refused += 1;
            }
            other => panic!("{other}: {}", reply.text()),
        }
    }
    assert_eq!(versions, (1..=pairs as u64).collect());
    assert_eq!(refused, pairs);
    let game = call(&router, get(&format!("/v1/games/{id}"))).await.json();
    assert_eq!(
        (game["status"].clone(), game["version"].clone()),
        (json!("won"), json!(25))
    );
}

#[tokio::test]
async fn pause_hides_the_board_and_stops_the_clock() {
    let clock = HeldClock::now();
    let router = router_on(config(), clock.clone());
    let (id, _) = create(&router, pairs_board(2)).await;
    let pause = call(&router, action(&format!("/v1/games/{id}/pause"), "", &[])).await;
    assert_eq!(pause.status, 200);
    let paused = pause.json();
    assert_eq!(paused["status"], "paused");
    assert!(paused.get("board").is_none());
    clock.advance(Duration::from_millis(30));
    let later = call(&router, get(&format!("/v1/games/{id}"))).await.json();
    assert_eq!(later["elapsed_ms"], paused["elapsed_ms"]);
    let refused = make_move(&router, &id, [0, 0], [2, 0]).await;
    assert_eq!(refused.json()["error"]["code"], "action_refused");
    let replay = call(&router, get(&format!("/v1/games/{id}/replay"))).await;
    assert_eq!(replay.status, 409);
    assert_eq!(
        replay.json(),
        json!({"error": {"code": "action_refused",
            "message": "the game is paused: its replay, like its board, is hidden until `resume`"}})
    );
    let resumed = call(&router, action(&format!("/v1/games/{id}/resume"), "", &[])).await;
    assert_eq!(resumed.json()["status"], "playing");
    assert_eq!(resumed.json()["board"], json!(["A.A", "B.B"]));
}

#[tokio::test]
async fn undo_hint_and_the_replay_check_to_the_same_game() {
    let router = router(config());
    let (id, _) = create(&router, pairs_board(3)).await;
    make_move(&router, &id, [0, 0], [2, 0]).await;
    let undone = call(&router, action(&format!("/v1/games/{id}/undo"), "", &[]))
        .await
        .json();
    assert_eq!(undone["board"], json!(["A.A", "B.B", "C.C"]));
    assert_eq!(undone["ranked"], false);
    let hinted = call(&router, action(&format!("/v1/games/{id}/hint"), "", &[]))
        .await
        .json();
    assert_eq!(hinted["last"]["hint"]["from"], json!([0, 0]));
    assert_eq!(
        hinted["assists"],
        json!({"hints": 1, "undos": 1, "shuffles": 0})
    );
    for row in 0..3 {
        make_move(&router, &id, [0, row], [2, row]).await;
    }
    let game = call(&router, get(&format!("/v1/games/{id}"))).await.json();
    assert_eq!(game["status"], "won");
    let replay = call(&router, get(&format!("/v1/games/{id}/replay"))).await;
    assert_eq!(replay.status, 200);
    let replay = replay.json();
    assert_eq!(replay["actions"].as_array().unwrap().len(), 6);
    let check = post(&router, "/v1/replays", &replay).await;
    assert_eq!(check.status, 200, "{}", check.text());
    let check = check.json();
    for field in [
        "status",
        "version",
        "score",
        "elapsed_ms",
        "tiles_left",
        "assists",
        "ranked",
        "board",
    ] {
        assert_eq!(check[field], game[field], "{field}");
    }
}

#[tokio::test]
async fn a_full_store_refuses_a_new_game_with_503() {
    let mut config = config();
    config.games.max_games = 1;
    let router = router(config);
    create(&router, pairs_board(1)).await;
    let full = post(&router, "/v1/games", &pairs_board(1)).await;
    assert_eq!(full.status, 503);
    assert_eq!(full.json()["error"]["code"], "store_full");
    assert!(full.header("retry-after").is_some());
}

#[tokio::test]
async fn a_time_limit_ends_the_game_on_the_first_access_after_it() {
    let clock = HeldClock::now();
    let router = router_on(config(), clock.clone());
    let mut body = pairs_board(2);
    body["time_limit_ms"] = json!(20);
    let (id, _) = create(&router, body).await;
    clock.advance(Duration::from_millis(60));
    let game = call(&router, get(&format!("/v1/games/{id}"))).await.json();
    assert_eq!(game["status"], "out_of_time");
    assert_eq!(
        (game["elapsed_ms"].clone(), game["version"].clone()),
        (json!(20), json!(1))
    );
    let late = make_move(&router, &id, [0, 0], [2, 0]).await;
    assert_eq!(late.json()["error"]["code"], "game_over");
}

/// The next SSE event of `body`, as its lines.
pub(crate) async fn next_event(body: &mut Body) -> Vec<String> {
    let mut text = String::new();
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), body.frame())
            .await
            .expect("an event within 10 s")
            .expect("the stream goes on")
            .expect("a frame");
        if let Ok(data) = frame.into_data() {
            text.push_str(std::str::from_utf8(&data).expect("UTF-8"));
        }
        if text.ends_with("\n\n") && !text.starts_with(':') {
            return text.lines().map(str::to_owned).collect();
        }
        if text.starts_with(':') && text.ends_with("\n\n") {
            text.clear();
        }
    }
}

#[tokio::test]
async fn the_event_stream_sends_the_game_then_each_change_and_ends_with_it() {
    let router = router(config());
    let (id, _) = create(&router, pairs_board(1)).await;
    let response = tokio::time::timeout(
        Duration::from_secs(10),
        tower::ServiceExt::oneshot(router.clone(), get(&format!("/v1/games/{id}/events"))),
    )
    .await
    .expect("an answer")
    .expect("infallible");
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    // A proxy in front passes each event on at once.
    assert_eq!(response.headers()["x-accel-buffering"], "no");
    let mut body = response.into_body();
    let first = next_event(&mut body).await;
    assert_eq!(first[0], "event: game");
    assert_eq!(first[1], "id: 0");
    make_move(&router, &id, [0, 0], [2, 0]).await;
    let change = next_event(&mut body).await;
    assert_eq!(change[1], "id: 1");
    let game: Value = serde_json::from_str(change[2].strip_prefix("data: ").unwrap()).unwrap();
    assert_eq!(game["status"], "won");
    let end = tokio::time::timeout(Duration::from_secs(10), body.frame())
        .await
        .expect("the stream ends");
    assert!(end.is_none());
}

/// The whole of a stream that ends, within 10 s.
async fn whole_stream(router: &Router, id: &str, last_event_id: Option<&str>) -> Reply {
    let mut request = get(&format!("/v1/games/{id}/events"));
    if let Some(seen) = last_event_id {
        request
            .headers_mut()
            .insert("last-event-id", seen.parse().expect("a header value"));
    }
    call(router, request).await
}

/// A finished game's stream sends a reader what it has not seen, the game
/// as it ended, and ends; a reader that has seen the end gets 204 No
/// Content, which stops a browser's `EventSource` from reconnecting.
#[tokio::test]
async fn a_finished_games_stream_sends_the_end_once_then_204() {
    let router = router(config());
    let (id, _) = create(&router, pairs_board(1)).await;
    assert_eq!(make_move(&router, &id, [0, 0], [2, 0]).await.status, 200);
    let won = call(&router, get(&format!("/v1/games/{id}"))).await;
    assert_eq!(
        (won.status, won.json()["status"].clone()),
        (200, json!("won"))
    );
    for seen in [None, Some("0"), Some("7")] {
        let stream = whole_stream(&router, &id, seen).await;
        assert_eq!(
            (stream.status, stream.header("content-type")),
            (200, Some("text/event-stream")),
            "Last-Event-ID {seen:?}"
        );
        let text = stream.text();
        let data = text
            .strip_prefix("event: game\nid: 1\ndata: ")
            .and_then(|rest| rest.strip_suffix("\n\n"))
            .unwrap_or_else(|| panic!("Last-Event-ID {seen:?}: one event, got {text:?}"));
        assert_eq!(
            serde_json::from_str::<Value>(data).unwrap(),
            won.json(),
            "Last-Event-ID {seen:?}"
        );
    }
    for seen in ["1", " 1 "] {
        let ended = whole_stream(&router, &id, Some(seen)).await;
        assert_eq!(
            (ended.status, ended.header("content-type"), ended.text()),
            (204, None, String::new()),
            "Last-Event-ID {seen:?}"
        );
    }
}

/// Random sequences of actions against a model: the model keeps the
/// boards the game went through and plays each move on its own board with
/// `/v1/play`; after each step the game answered equals the model's, the
/// versions have no gap, `ranked` is false after any assist, and at the
/// end the replay checks again to the same game.
mod model {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Step {
        Move(i64, i64, i64, i64),
        /// The first move `/v1/moves` lists on the model's board, so that
        /// games get somewhere.
        Open,
        Hint,
        Undo,
        Redo,
        Shuffle,
        Pause,
        Resume,
        StaleIfMatch,
        RepeatKey,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (-1i64..7, 0i64..5, 0i64..7, -1i64..5).prop_map(|(a, b, c, d)| Step::Move(a, b, c, d)),
            6 => Just(Step::Open),
            1 => Just(Step::Hint),
            2 => Just(Step::Undo),
            1 => Just(Step::Redo),
            1 => Just(Step::Shuffle),
            1 => Just(Step::Pause),
            1 => Just(Step::Resume),
            1 => Just(Step::StaleIfMatch),
            1 => Just(Step::RepeatKey),
        ]
    }

    /// The move the model makes on `board`: the board after it, or `None`
    /// when `/v1/play` stops at it.
    async fn play(router: &Router, board: &Value, from: [i64; 2], to: [i64; 2]) -> Option<Value> {
        let reply = post(
            router,
            "/v1/play",
            &json!({"board": board, "rules": "shisen-sho", "moves": [{"from": from, "to": to}]}),
        )
        .await;
        if reply.status != 200 {
            return None;
        }
        let played = reply.json();
        played
            .get("stopped_at")
            .is_none()
            .then(|| played["board"].clone())
    }

    fn tiles(board: &Value) -> Vec<char> {
        let mut tiles: Vec<char> = board
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|row| row.as_str().unwrap().chars().collect::<Vec<_>>())
            .collect();
        tiles.sort_unstable();
        tiles
    }

    async fn run(seed: u64, steps: Vec<Step>) {
        let router = router(config());
        let (id, game) = create(
            &router,
            json!({"width": 6, "height": 4, "types": 6, "rules": "shisen-sho", "seed": seed}),
        )
        .await;
        let path = |action: &str| format!("/v1/games/{id}/{action}");
        // The model: the boards made, the boards taken back, the version.
        let mut done = vec![game["board"].clone()];
        let mut undone: Vec<Value> = Vec::new();
        let mut version = 0u64;
        let mut paused = false;
        let mut assisted = false;
        let mut last_keyed: Option<(String, String, String, Value)> = None;
        for (i, step) in steps.into_iter().enumerate() {
            let key = format!("key-{i}");
            let step = match step {
                Step::Open => {
                    let open = post(
                        &router,
                        "/v1/moves",
                        &json!({"board": done.last().unwrap(), "rules": "shisen-sho", "limit": 1}),
                    )
                    .await
                    .json();
                    match open["moves"].get(0) {
                        Some(m) => Step::Move(
                            m["from"][0].as_i64().unwrap(),
                            m["from"][1].as_i64().unwrap(),
                            m["to"][0].as_i64().unwrap(),
                            m["to"][1].as_i64().unwrap(),
                        ),
                        None => Step::Shuffle,
                    }
                }
                other => other,
            };
            let (route, body) = match &step {
                Step::Move(a, b, c, d) => {
                    ("moves", json!({"from": [a, b], "to": [c, d]}).to_string())
                }
                Step::Hint => ("hint", String::new()),
                Step::Undo => ("undo", String::new()),
                Step::Redo => ("redo", String::new()),
                Step::Shuffle => ("shuffle", String::new()),
                Step::Pause => ("pause", String::new()),
                Step::Resume => ("resume", String::new()),
                Step::Open => unreachable!("replaced by its move above"),
                Step::StaleIfMatch => {
                    let stale = format!("\"{}\"", version + 1);
                    let reply =
                        call(&router, action(&path("hint"), "", &[("if-match", &stale)])).await;
                    assert_eq!(reply.status, 412);
                    continue;
                }
                Step::RepeatKey => {
                    if let Some((p, b, k, answer)) = &last_keyed {
                        let reply = call(&router, action(p, b, &[("idempotency-key", k)])).await;
                        assert_eq!(reply.status, 200);
                        assert_eq!(reply.json(), *answer);
                        assert_eq!(reply.header("idempotent-replayed"), Some("true"));
                    }
                    continue;
                }
            };
            let before = done.last().unwrap().clone();
            let expected: Option<Option<Value>> = match &step {
                _ if paused && !matches!(step, Step::Resume | Step::Pause) => None,
                Step::Move(a, b, c, d) => Some(play(&router, &before, [*a, *b], [*c, *d]).await),
                Step::Undo => Some((done.len() > 1).then(|| done[done.len() - 2].clone())),
                Step::Redo => Some(undone.last().cloned()),
                Step::Pause => Some((!paused).then(|| before.clone())),
                Step::Resume => Some(paused.then(|| before.clone())),
                // Judged below: a hint or a shuffle applies when the board
                // has a move, or, for a shuffle, any tiles.
                _ => Some(Some(before.clone())),
            };
            let reply = call(
                &router,
                action(&path(route), &body, &[("idempotency-key", &key)]),
            )
            .await;
            let applies = matches!(expected, Some(Some(_))) && reply.status == 200;
            if !applies {
                assert!(
                    matches!(reply.status, 409),
                    "step {i} {step:?}: {} {}",
                    reply.status,
                    reply.text()
                );
                let read = call(&router, get(&format!("/v1/games/{id}"))).await.json();
                assert_eq!(read["version"], version, "a refusal changed the version");
                if matches!(step, Step::Move(..)) && !paused {
                    assert_eq!(
                        expected,
                        Some(None),
                        "step {i}: the game refused a move /v1/play makes"
                    );
                }
                continue;
            }
            let game = reply.json();
            version += 1;
            assert_eq!(game["version"], version, "step {i}: a gap in the versions");
            assert_eq!(
                reply.header("etag"),
                Some(format!("\"{version}\"").as_str())
            );
            match &step {
                Step::Move(..) => {
                    let board = expected.unwrap().unwrap();
                    assert_eq!(game["board"], board, "step {i}");
                    done.push(board);
                    undone.clear();
                }
                Step::Undo => {
                    assisted = true;
                    undone.push(done.pop().unwrap());
                    assert_eq!(game["board"], *done.last().unwrap(), "step {i}");
                }
                Step::Redo => {
                    let board = undone.pop().unwrap();
                    assert_eq!(game["board"], board, "step {i}");
                    done.push(board);
                }
                Step::Shuffle => {
                    assisted = true;
                    let board = game["board"].clone();
                    assert_eq!(
                        tiles(&board),
                        tiles(&before),
                        "step {i}: a shuffle changed the tiles"
                    );
                    done.push(board);
                    undone.clear();
                }
                Step::Hint => {
                    assisted = true;
                    assert_eq!(game["board"], before);
                    assert!(game["last"]["hint"].is_object());
                }
                Step::Pause => {
                    paused = true;
                    assert!(game.get("board").is_none());
                }
                Step::Resume => {
                    paused = false;
                    assert_eq!(game["board"], before);
                }
                Step::Open | Step::StaleIfMatch | Step::RepeatKey => unreachable!(),
            }
            assert_eq!(game["ranked"], !assisted, "step {i}");
            let won = game["status"] == "won";
            last_keyed = Some((path(route), body, key, game));
            if won {
                break;
            }
        }
        // A paused game's replay is hidden, as its board is.
        if paused {
            let resumed = call(&router, action(&path("resume"), "", &[])).await;
            assert_eq!(resumed.status, 200, "{}", resumed.text());
            version += 1;
        }
        let game = call(&router, get(&format!("/v1/games/{id}"))).await.json();
        assert_eq!(game["version"], version);
        let replay = call(&router, get(&format!("/v1/games/{id}/replay")))
            .await
            .json();
        let check = post(&router, "/v1/replays", &replay).await;
        assert_eq!(check.status, 200, "{}", check.text());
        let check = check.json();
        for field in [
            "status",
            "version",
            "score",
            "tiles_left",
            "assists",
            "ranked",
        ] {
            assert_eq!(check[field], game[field], "{field}");
        }
        if game["status"] != "paused" {
            assert_eq!(check["board"], game["board"]);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn actions_match_the_model(seed in 0u64..20, steps in proptest::collection::vec(step(), 1..40)) {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(run(seed, steps));
        }
    }
}

/// A game dealt onto a layout holds its tiles on the marked cells, keeps
/// the layout in its settings, and is refused with the deal's own errors.
#[tokio::test]
async fn a_game_is_dealt_onto_a_layout() {
    let router = router(config());
    let layout = json!(["#.##.#", "######"]);
    let (_, game) = create(
        &router,
        json!({"layout": ["x.xx.x", "xxxxxx"], "types": 5, "rules": "shisen-sho", "seed": 1}),
    )
    .await;
    let marks: Vec<bool> = game["board"]
        .as_array()
        .expect("rows")
        .iter()
        .flat_map(|r| {
            r.as_str()
                .expect("text")
                .chars()
                .map(|c| c != '.')
                .collect::<Vec<_>>()
        })
        .collect();
    let want: Vec<bool> = "#.##.#######".chars().map(|c| c == '#').collect();
    assert_eq!(marks, want);
    assert_eq!(game["settings"]["layout"], layout);
    assert_eq!(
        (
            game["settings"]["width"].clone(),
            game["settings"]["height"].clone()
        ),
        (json!(6), json!(2))
    );
    assert_eq!(game["tiles_left"], 10);
    let refused = post(&router, "/v1/games", &json!({"layout": layout, "types": 3})).await;
    assert_eq!(refused.status, 422);
    assert_eq!(
        refused.json()["error"],
        json!({"code": "invalid_request", "field": "types",
               "message": "the layout has 10 marked cells, which 3 types cannot share in even copies, expected a `types` that divides its 5 pairs (1 or 5), or `copies`"})
    );
    let both = post(
        &router,
        "/v1/games",
        &json!({"board": ["AA"], "layout": layout}),
    )
    .await;
    assert_eq!(both.json()["error"]["field"], "layout");
}

#[tokio::test]
async fn a_shuffle_no_arrangement_can_clear_is_refused_as_the_games_state() {
    let router = router(config());
    // A pair and a lone tile: no arrangement of three tiles is cleared.
    let (id, game) = create(&router, json!({"board": ["A.AB"], "rules": "lianliankan"})).await;
    assert_eq!(game["status"], "playing");
    let shuffle = call(&router, action(&format!("/v1/games/{id}/shuffle"), "", &[])).await;
    assert_eq!(shuffle.status, 409);
    assert_eq!(
        shuffle.json(),
        json!({"error": {"code": "action_refused",
            "message": "the tiles left cannot be shuffled into a board that can be cleared (type \"B\" has 1 tile left, an odd number, so the board cannot be cleared): undo, or resign"}})
    );
    let read = call(&router, get(&format!("/v1/games/{id}"))).await.json();
    assert_eq!(read["version"], 0);
}
