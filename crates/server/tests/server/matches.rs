//! Matches through the router, on the held clock, the races on every
//! store: players race on one deal to a winner (each playing the sequence
//! `/v1/clear` finds on their own game) and the others' games stop, boards
//! stay equal through a shuffle, one who leaves ranks last, the time limit
//! ranks by tiles then time, the ratings move as Glicko-2 says, a rematch
//! asked at once is made once, the stream tells it all, and every refusal
//! has its status and code.

use crate::support::players::{Signed, get_as, post_as, sign_up};
use crate::support::{
    HeldClock, Reply, Scratch, config, config_on, post, router_on, router_on_store,
};
use axum::Router;
use linkpath_api::matches::{Rating, after_match};
use linkpath_testkit::stores::Backend;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// The deal every test races on: small, and cleared by `/v1/clear`.
fn deal(time_limit_ms: Option<u64>) -> Value {
    let mut game = json!({"width": 6, "height": 4, "types": 6, "rules": "shisen-sho", "seed": 3});
    if let Some(limit) = time_limit_ms {
        game["time_limit_ms"] = json!(limit);
    }
    game
}

struct Race {
    router: Router,
    clock: Arc<HeldClock>,
    players: Vec<Signed>,
    id: String,
    _scratch: Scratch,
}

impl Race {
    /// A match of `seats` created by the first of `names`, joined by the
    /// rest, its countdown run out: the race under way, on a store of
    /// `backend`.
    async fn begun(backend: Backend, names: &[&str], game: Value) -> Race {
        let clock = HeldClock::now();
        let (config, scratch) = config_on(backend, "matches");
        let router = router_on_store(config, clock.clone());
        let mut players = Vec::new();
        for name in names {
            players.push(sign_up(&router, name).await);
        }
        let body = json!({"game": game, "seats": names.len()});
        let made = post_as(&router, "/v1/matches", &body, Some(&players[0])).await;
        assert_eq!(made.status, 201, "{}", made.text());
        let id = made.json()["id"].as_str().expect("an id").to_owned();
        for player in &players[1..] {
            let joined = post_as(
                &router,
                &format!("/v1/matches/{id}/join"),
                &json!({}),
                Some(player),
            )
            .await;
            assert_eq!(joined.status, 200, "{}", joined.text());
        }
        let race = Race {
            router,
            clock,
            players,
            id,
            _scratch: scratch,
        };
        assert_eq!(race.show().await["status"], "countdown");
        race.clock.advance(Duration::from_millis(3_000));
        assert_eq!(race.show().await["status"], "playing");
        race
    }

    async fn show(&self) -> Value {
        let shown = get_as(&self.router, &format!("/v1/matches/{}", self.id), None).await;
        assert_eq!(shown.status, 200, "{}", shown.text());
        shown.json()
    }

    /// The game of seat `i`.
    async fn game_id(&self, i: usize) -> String {
        self.show().await["players"][i]["game"]
            .as_str()
            .expect("a game")
            .to_owned()
    }

    async fn game(&self, i: usize) -> Value {
        let id = self.game_id(i).await;
        let read = get_as(
            &self.router,
            &format!("/v1/games/{id}"),
            Some(&self.players[i]),
        )
        .await;
        assert_eq!(read.status, 200, "{}", read.text());
        read.json()
    }

    /// Seat `i` plays `pairs` moves of the clearing sequence (all: none),
    /// a second of thought before each.
    async fn play(&self, i: usize, pairs: Option<usize>) -> Value {
        let game = self.game(i).await;
        let id = game["id"].as_str().unwrap().to_owned();
        let clear = post(
            &self.router,
            "/v1/clear",
            &json!({"board": game["board"], "rules": "shisen-sho"}),
        )
        .await;
        let moves = clear.json()["moves"]
            .as_array()
            .expect("a sequence")
            .clone();
        let mut last = game;
        for step in moves.iter().take(pairs.unwrap_or(moves.len())) {
            self.clock.advance(Duration::from_millis(1_000));
            let moved = post_as(
                &self.router,
                &format!("/v1/games/{id}/moves"),
                &json!({"from": step["from"], "to": step["to"]}),
                Some(&self.players[i]),
            )
            .await;
            assert_eq!(moved.status, 200, "{}", moved.text());
            last = moved.json();
        }
        last
    }

    async fn post(&self, i: usize, what: &str) -> Reply {
        let path = format!("/v1/matches/{}/{what}", self.id);
        post_as(&self.router, &path, &json!({}), Some(&self.players[i])).await
    }
}

/// The places and finishes of a finished match, in seat order.
fn places(shown: &Value) -> Vec<(u64, String)> {
    shown["result"]
        .as_array()
        .expect("a result")
        .iter()
        .map(|p| {
            (
                p["place"].as_u64().unwrap(),
                p["finish"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn rating(value: &Value) -> Rating {
    serde_json::from_value(value.clone()).expect("a rating")
}

linkpath_testkit::on_each_store!(
    two_players_race_and_the_first_to_clear_wins_and_is_rated,
    six_players_race_to_one_winner,
    boards_stay_equal_after_each_players_first_shuffle,
    a_player_who_leaves_ranks_last_and_the_time_limit_ranks_the_rest,
    the_time_limit_ranks_by_tiles_then_time,
    the_stream_sends_the_match_each_players_progress_and_the_result,
    both_players_asking_for_a_rematch_at_once_make_one_match,
);

async fn two_players_race_and_the_first_to_clear_wins_and_is_rated(backend: Backend) {
    let race = Race::begun(backend, &["Ann", "Bob"], deal(None)).await;
    let (ann, bob) = (race.game(0).await, race.game(1).await);
    assert_eq!(ann["board"], bob["board"]);
    assert_eq!(ann["owner"], json!(race.players[0].id));
    assert_eq!(ann["match_id"], json!(race.id));
    race.play(1, Some(2)).await;
    let won = race.play(0, None).await;
    assert_eq!(won["status"], "won");
    let shown = race.show().await;
    assert_eq!(shown["status"], "finished");
    assert_eq!(
        places(&shown),
        [(1, "cleared".into()), (2, "stopped".into())]
    );
    assert_eq!(shown["result"][1]["tiles"], 4);
    let after = after_match(&[(Rating::default(), 1), (Rating::default(), 2)]);
    assert_eq!(rating(&shown["result"][0]["rating_after"]), after[0]);
    assert_eq!(rating(&shown["result"][1]["rating_after"]), after[1]);
    assert_eq!(
        rating(&shown["result"][1]["rating_before"]),
        Rating::default()
    );
    for (i, player) in race.players.iter().enumerate() {
        let me = get_as(&race.router, "/v1/players/me", Some(player)).await;
        assert_eq!(rating(&me.json()["rating"]), after[i]);
    }
    // Bob's game stopped with the race: its replay ends there, and
    // checks as his game stands.
    let stopped = race.game(1).await;
    assert_eq!(stopped["status"], "race_over");
    assert_eq!(stopped["last"]["action"], "race_over");
    let replay = get_as(
        &race.router,
        shown["result"][1]["replay"].as_str().unwrap(),
        Some(&race.players[1]),
    )
    .await;
    assert_eq!(replay.status, 200, "{}", replay.text());
    let replay = replay.json();
    let actions = replay["actions"].as_array().unwrap();
    assert_eq!(actions.last().unwrap()["action"], "race_over");
    let check = post(&race.router, "/v1/replays", &replay).await;
    assert_eq!(check.status, 200, "{}", check.text());
    for field in ["status", "version", "score", "tiles_left"] {
        assert_eq!(check.json()[field], stopped[field], "{field}");
    }
    let moved = post_as(
        &race.router,
        &format!("/v1/games/{}/moves", stopped["id"].as_str().unwrap()),
        &json!({"from": [0, 0], "to": [1, 0]}),
        Some(&race.players[1]),
    )
    .await;
    assert_eq!(moved.status, 409);
    assert_eq!(moved.json()["error"]["code"], "game_over");
    // Over: nothing more applies.
    let late = race.post(1, "leave").await;
    assert_eq!(late.status, 409);
    assert_eq!(late.json()["error"]["code"], "action_refused");
}

async fn six_players_race_to_one_winner(backend: Backend) {
    let names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo"];
    let race = Race::begun(backend, &names, deal(None)).await;
    let board = race.game(0).await["board"].clone();
    for i in 1..6 {
        assert_eq!(race.game(i).await["board"], board, "seat {i}");
    }
    for i in 0..5 {
        race.play(i, Some(i)).await;
    }
    race.play(5, None).await;
    let shown = race.show().await;
    assert_eq!(shown["status"], "finished");
    let placed: Vec<u64> = places(&shown).iter().map(|(p, _)| *p).collect();
    // The winner first; the rest by tiles cleared, most first.
    assert_eq!(placed, [6, 5, 4, 3, 2, 1]);
    for i in 0..5 {
        assert_eq!(race.game(i).await["status"], "race_over", "seat {i}");
    }
}

async fn boards_stay_equal_after_each_players_first_shuffle(backend: Backend) {
    let race = Race::begun(backend, &["Ann", "Bob"], deal(None)).await;
    let mut boards = Vec::new();
    for i in 0..2 {
        let id = race.game_id(i).await;
        let shuffled = post_as(
            &race.router,
            &format!("/v1/games/{id}/shuffle"),
            &json!({}),
            Some(&race.players[i]),
        )
        .await;
        assert_eq!(shuffled.status, 200, "{}", shuffled.text());
        boards.push(shuffled.json()["board"].clone());
        race.clock.advance(Duration::from_millis(700));
    }
    assert_eq!(boards[0], boards[1]);
    // Hints are off in a match without assists.
    let id = race.game_id(0).await;
    let hint = post_as(
        &race.router,
        &format!("/v1/games/{id}/hint"),
        &json!({}),
        Some(&race.players[0]),
    )
    .await;
    assert_eq!(hint.status, 409);
    assert_eq!(hint.json()["error"]["code"], "action_refused");
}

async fn a_player_who_leaves_ranks_last_and_the_time_limit_ranks_the_rest(backend: Backend) {
    let race = Race::begun(backend, &["Ann", "Bob", "Cy"], deal(Some(60_000))).await;
    race.play(0, Some(3)).await;
    race.play(1, Some(1)).await;
    race.play(2, Some(1)).await;
    let left = race.post(0, "leave").await;
    assert_eq!(left.status, 200, "{}", left.text());
    assert_eq!(left.json()["status"], "playing");
    assert_eq!(race.game(0).await["status"], "resigned");
    race.clock.advance(Duration::from_millis(60_000));
    let shown = race.show().await;
    assert_eq!(shown["status"], "finished");
    // Bob and Cy cleared one pair each, Bob's after 4 s of play (Ann's
    // three moves took three), Cy's after 5: Bob places first. Ann, who
    // cleared the most, left: last.
    assert_eq!(
        places(&shown),
        [
            (3, "quit".into()),
            (1, "stopped".into()),
            (2, "stopped".into())
        ]
    );
    assert_eq!(shown["result"][0]["tiles"], 6);
}

async fn the_time_limit_ranks_by_tiles_then_time(backend: Backend) {
    let race = Race::begun(backend, &["Ann", "Bob"], deal(Some(60_000))).await;
    race.play(0, Some(1)).await;
    race.play(1, Some(2)).await;
    race.clock.advance(Duration::from_millis(60_000));
    let shown = race.show().await;
    assert_eq!(shown["status"], "finished");
    // The race's limit is the match's, on the wall clock: it stops the
    // games, whose own clocks here gave back the minute the held clock
    // jumped with no heartbeat, as they give back a server's downtime.
    for i in 0..2 {
        assert_eq!(race.game(i).await["status"], "race_over", "seat {i}");
    }
    assert_eq!(
        places(&shown),
        [(2, "stopped".into()), (1, "stopped".into())]
    );
    assert_eq!(shown["result"][0]["tiles"], 2);
    assert_eq!(shown["result"][1]["tiles"], 4);
}

#[tokio::test]
async fn refusals_have_their_status_and_code() {
    let clock = HeldClock::now();
    let router = router_on(config(), clock.clone());
    let (ann, bob, cy) = (
        sign_up(&router, "Ann").await,
        sign_up(&router, "Bob").await,
        sign_up(&router, "Cy").await,
    );
    let body = json!({"game": deal(None), "seats": 2, "invited": [bob.id]});
    let code = |reply: &Reply| (reply.status, reply.json()["error"]["code"].clone());
    let nobody = post_as(&router, "/v1/matches", &body, None).await;
    assert_eq!(code(&nobody), (401, json!("unauthorized")));
    for (bad, field) in [
        (json!({"game": deal(None), "seats": 9}), "seats"),
        (json!({"game": {"board": ["AA"]}, "seats": 2}), "game.board"),
        (json!({"game": deal(None), "seats": 2, "extra": 1}), "extra"),
    ] {
        let refused = post_as(&router, "/v1/matches", &bad, Some(&ann)).await;
        assert_eq!(code(&refused), (422, json!("invalid_request")), "{bad}");
        assert_eq!(refused.json()["error"]["field"], field);
    }
    let made = post_as(&router, "/v1/matches", &body, Some(&ann)).await;
    assert_eq!(made.status, 201);
    let id = made.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(made.header("location"), Some(&*format!("/v1/matches/{id}")));
    assert_eq!(made.header("etag"), Some("\"0\""));
    let path = |what: &str| format!("/v1/matches/{id}/{what}");
    let stranger = post_as(&router, &path("join"), &json!({}), Some(&cy)).await;
    assert_eq!(code(&stranger), (403, json!("forbidden")));
    let early = post_as(&router, &path("start"), &json!({}), Some(&ann)).await;
    assert_eq!(code(&early), (409, json!("action_refused")));
    let again = post_as(&router, &path("join"), &json!({}), Some(&ann)).await;
    assert_eq!(code(&again), (409, json!("action_refused")));
    let joined = post_as(&router, &path("join"), &json!({}), Some(&bob)).await;
    assert_eq!(joined.json()["status"], "countdown");
    let started = post_as(&router, &path("join"), &json!({}), Some(&bob)).await;
    assert_eq!(code(&started), (409, json!("action_refused")));
    assert_eq!(started.json()["error"]["message"], "the match has started");
    // Not the creator's: Bob's own open match of three, Ann not its creator.
    let three = json!({"game": deal(None), "seats": 3});
    let bobs = post_as(&router, "/v1/matches", &three, Some(&bob)).await;
    let bobs = bobs.json()["id"].as_str().unwrap().to_owned();
    let ann_in = post_as(
        &router,
        &format!("/v1/matches/{bobs}/join"),
        &json!({}),
        Some(&ann),
    )
    .await;
    assert_eq!(ann_in.status, 200);
    let not_hers = post_as(
        &router,
        &format!("/v1/matches/{bobs}/start"),
        &json!({}),
        Some(&ann),
    )
    .await;
    assert_eq!(code(&not_hers), (409, json!("action_refused")));
    let missing = get_as(&router, &format!("/v1/matches/{}", "0".repeat(32)), None).await;
    assert_eq!(code(&missing), (404, json!("not_found")));
    let unsigned = post_as(&router, &path("leave"), &json!({}), None).await;
    assert_eq!(code(&unsigned), (401, json!("unauthorized")));
}

#[tokio::test]
async fn a_retried_create_with_the_same_key_makes_one_match() {
    let clock = HeldClock::now();
    let router = router_on(config(), clock);
    let ann = sign_up(&router, "Ann").await;
    let body = json!({"game": deal(None), "seats": 2}).to_string();
    let mut answers = Vec::new();
    for _ in 0..2 {
        let request =
            crate::support::players::request("POST", "/v1/matches", None, Some(&ann.bearer()));
        let (mut parts, _) = request.into_parts();
        parts
            .headers
            .insert("idempotency-key", "make-once".parse().unwrap());
        parts
            .headers
            .insert("content-type", "application/json".parse().unwrap());
        let request = axum::http::Request::from_parts(parts, axum::body::Body::from(body.clone()));
        let reply = crate::support::call(&router, request).await;
        assert_eq!(reply.status, 201, "{}", reply.text());
        answers.push((
            reply.json(),
            reply.header("idempotent-replayed").map(str::to_owned),
        ));
    }
    assert_eq!(answers[0].0, answers[1].0);
    assert_eq!(answers[0].1, None);
    assert_eq!(answers[1].1.as_deref(), Some("true"));
}

/// The match's stream: the whole match first, each seat's progress after
/// each move, the finished match last, then the end; a reader that has
/// seen the end gets 204.
async fn the_stream_sends_the_match_each_players_progress_and_the_result(backend: Backend) {
    use crate::games::next_event;
    use http_body_util::BodyExt;
    let race = Race::begun(backend, &["Ann", "Bob"], deal(None)).await;
    let path = format!("/v1/matches/{}/events", race.id);
    let response = tower::ServiceExt::oneshot(race.router.clone(), crate::support::get(&path))
        .await
        .expect("infallible");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["x-accel-buffering"], "no");
    let mut body = response.into_body();
    let first = next_event(&mut body).await;
    assert_eq!(first[0], "event: match");
    let data = |event: &[String]| -> Value {
        serde_json::from_str(event[2].strip_prefix("data: ").expect("data")).expect("JSON")
    };
    assert_eq!(data(&first)["status"], "playing");
    race.play(1, Some(1)).await;
    let moved = next_event(&mut body).await;
    assert_eq!(moved[0], "event: progress");
    let progress = data(&moved);
    assert_eq!(progress["player"], json!(race.players[1].id));
    assert_eq!(progress["tiles_left"], 22);
    assert_eq!(progress["last"]["action"], "move");
    assert_eq!(progress["combo"], 1);
    // Ann clears, a pair a second: each pair extends her combo.
    race.play(0, None).await;
    let mut ids = vec![first[1].clone(), moved[1].clone()];
    let mut seen = Vec::new();
    let last = loop {
        let event = next_event(&mut body).await;
        ids.push(event[1].clone());
        if event[0] == "event: match" {
            break event;
        }
        let progress = data(&event);
        seen.push((
            progress["player"].as_str().unwrap().to_owned(),
            progress["status"].as_str().unwrap().to_owned(),
            progress["combo"].as_u64().unwrap(),
        ));
    };
    let (ann, bob) = (&race.players[0].id, &race.players[1].id);
    // A stream sends a game as it is when read: Ann's twelve pairs, a
    // second apart, in one combo.
    let anns = seen.iter().rfind(|s| &s.0 == ann).unwrap();
    assert_eq!((anns.1.as_str(), anns.2), ("won", 12));
    // Bob's game stopped with the race, before the match finished.
    assert_eq!(
        seen.iter().filter(|s| &s.0 == bob).collect::<Vec<_>>(),
        [&(bob.clone(), "race_over".to_owned(), 1)]
    );
    assert_eq!(data(&last)["status"], "finished");
    assert_eq!(data(&last)["result"][0]["place"], 1);
    let numbers: Vec<u64> = ids
        .iter()
        .map(|id| id.strip_prefix("id: ").unwrap().parse().unwrap())
        .collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
    let end = tokio::time::timeout(Duration::from_secs(10), body.frame())
        .await
        .expect("the stream ends");
    assert!(end.is_none());
    let mut again = crate::support::get(&path);
    again.headers_mut().insert(
        "last-event-id",
        numbers.last().unwrap().to_string().parse().unwrap(),
    );
    let reply = crate::support::call(&race.router, again).await;
    assert_eq!(reply.status, 204);
}

/// A stream opened as a race is due to begin while the only solver slot
/// is busy (dealing the race needs one) opens all the same: its first
/// event, the whole match under way, follows once the slot is free.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_opened_while_the_solver_slot_is_busy_waits_for_its_first_event() {
    use crate::games::next_event;
    use crate::support::{endless_curling, get, hold_the_slot_by, router_slot_free, solve};
    let mut config = config();
    config.workers = Some(1);
    config.request.solve_timeout_ms = 1_000;
    let clock = HeldClock::now();
    let router = router_on(config, clock.clone());
    let (ann, bob) = (sign_up(&router, "Ann").await, sign_up(&router, "Bob").await);
    let body = json!({"game": deal(None), "seats": 2});
    let made = post_as(&router, "/v1/matches", &body, Some(&ann)).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let id = made.json()["id"].as_str().expect("an id").to_owned();
    let join = format!("/v1/matches/{id}/join");
    let joined = post_as(&router, &join, &json!({}), Some(&bob)).await;
    assert_eq!(joined.json()["status"], "countdown");
    clock.advance(Duration::from_millis(3_000));
    let send = || {
        let router = router.clone();
        tokio::spawn(async move { solve(&router, &endless_curling()).await })
    };
    let busy = hold_the_slot_by(|| router_slot_free(&router), send).await;
    let path = format!("/v1/matches/{id}/events");
    let response = tower::ServiceExt::oneshot(router.clone(), get(&path))
        .await
        .expect("infallible");
    assert_eq!(response.status(), 200);
    let mut body = response.into_body();
    let first = next_event(&mut body).await;
    assert!(
        busy.is_finished(),
        "the first event came after the slot was free"
    );
    assert_eq!(first[0], "event: match");
    let data: Value =
        serde_json::from_str(first[2].strip_prefix("data: ").expect("data")).expect("JSON");
    assert_eq!(data["status"], "playing");
    assert_eq!(data["players"].as_array().map(Vec::len), Some(2));
}

/// Both players of a finished race ask for a rematch at once: one next
/// match, both seated, on a new deal; the link shown both ways; a third
/// player refused, as a match not over is.
async fn both_players_asking_for_a_rematch_at_once_make_one_match(backend: Backend) {
    let race = Race::begun(backend, &["Ann", "Bob"], deal(None)).await;
    let early = race.post(0, "rematch").await;
    assert_eq!(early.status, 409, "{}", early.text());
    assert_eq!(early.json()["error"]["code"], "action_refused");
    race.play(1, Some(2)).await;
    race.play(0, None).await;
    let cy = sign_up(&race.router, "Cy").await;
    let path = format!("/v1/matches/{}/rematch", race.id);
    let stranger = post_as(&race.router, &path, &json!({}), Some(&cy)).await;
    assert_eq!(stranger.status, 403, "{}", stranger.text());
    assert_eq!(stranger.json()["error"]["code"], "forbidden");

    let (ann, bob) = tokio::join!(race.post(0, "rematch"), race.post(1, "rematch"));
    assert_eq!((ann.status, bob.status), (200, 200), "{}", ann.text());
    let (ann, bob) = (ann.json(), bob.json());
    let next = ann["id"].as_str().expect("an id").to_owned();
    assert_eq!(bob["id"], json!(next));
    let old = race.show().await;
    assert_eq!(old["rematch"], json!(next));
    let shown = get_as(&race.router, &format!("/v1/matches/{next}"), None).await;
    let shown = shown.json();
    assert_eq!(shown["previous"], json!(race.id));
    assert_eq!(shown["status"], "countdown");
    let seated: Vec<&str> = (shown["players"].as_array().unwrap().iter())
        .map(|p| p["player"].as_str().unwrap())
        .collect();
    let (a, b) = (race.players[0].id.as_str(), race.players[1].id.as_str());
    assert!(seated == [a, b] || seated == [b, a], "{seated:?}");
    let creator = shown["creator"].as_str().unwrap();
    let other = if creator == a { b } else { a };
    assert_eq!(shown["invited"], json!([other]));
    assert_eq!(shown["seats"], 2);
    let mut same = deal(None);
    same["seed"] = shown["game"]["seed"].clone();
    assert_eq!(shown["game"], same);
    assert_ne!(shown["game"]["seed"], old["game"]["seed"]);

    // Asked again, the same match; under a key, the same answer replayed;
    // the stranger still refused.
    let again = race.post(0, "rematch").await;
    assert_eq!(
        (again.status, again.json()["id"].clone()),
        (200, json!(next))
    );
    let keyed = || {
        let mut request =
            crate::support::players::request("POST", &path, None, Some(&race.players[1].bearer()));
        request
            .headers_mut()
            .insert("idempotency-key", "bob-again".parse().unwrap());
        crate::support::call(&race.router, request)
    };
    let first = keyed().await;
    assert_eq!(
        (first.status, first.json()["id"].clone()),
        (200, json!(next))
    );
    let retried = keyed().await;
    assert_eq!((retried.status, retried.json()), (200, first.json()));
    assert_eq!(retried.header("idempotent-replayed"), Some("true"));
    let stranger = post_as(&race.router, &path, &json!({}), Some(&cy)).await;
    assert_eq!(stranger.status, 403);
}

/// On a store file, whose reads and writes each wait on the disk, two
/// players' rematch requests interleave: both read the finished match
/// before either links one, both make a match, and the compare-and-set
/// keeps one; the other is given up and its maker seated in the one kept.
#[tokio::test]
async fn a_rematch_raced_on_a_store_file_is_made_once() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("rematch.redb");
    let _ = std::fs::remove_file(&path);
    let mut config = config();
    config.games.store = format!("file:{}", path.display())
        .parse()
        .expect("a store spec");
    // No countdown: the race begins at the next read, on the real clock.
    config.games.match_countdown_ms = 0;
    let router =
        linkpath_server::app(linkpath_server::AppState::open(config).expect("the file opens"));
    let (ann, bob) = (sign_up(&router, "Ann").await, sign_up(&router, "Bob").await);
    let body = json!({"game": deal(None), "seats": 2});
    let made = post_as(&router, "/v1/matches", &body, Some(&ann)).await;
    let id = made.json()["id"].as_str().unwrap().to_owned();
    let join = format!("/v1/matches/{id}/join");
    assert_eq!(
        post_as(&router, &join, &json!({}), Some(&bob)).await.status,
        200
    );
    let shown = get_as(&router, &format!("/v1/matches/{id}"), None)
        .await
        .json();
    let game = shown["players"][0]["game"].as_str().unwrap().to_owned();
    let board = get_as(&router, &format!("/v1/games/{game}"), Some(&ann))
        .await
        .json()["board"]
        .clone();
    let clear = post(
        &router,
        "/v1/clear",
        &json!({"board": board, "rules": "shisen-sho"}),
    )
    .await;
    for step in clear.json()["moves"].as_array().unwrap() {
        let path = format!("/v1/games/{game}/moves");
        let body = json!({"from": step["from"], "to": step["to"]});
        assert_eq!(post_as(&router, &path, &body, Some(&ann)).await.status, 200);
    }
    let (rematch, none) = (format!("/v1/matches/{id}/rematch"), json!({}));
    let (a, b) = tokio::join!(
        post_as(&router, &rematch, &none, Some(&ann)),
        post_as(&router, &rematch, &none, Some(&bob)),
    );
    assert_eq!(
        (a.status, b.status),
        (200, 200),
        "{} {}",
        a.text(),
        b.text()
    );
    let next = a.json()["id"].clone();
    assert_eq!(b.json()["id"], next);
    let old = get_as(&router, &format!("/v1/matches/{id}"), None)
        .await
        .json();
    assert_eq!(old["rematch"], next);
    let next = next.as_str().unwrap();
    let shown = get_as(&router, &format!("/v1/matches/{next}"), None)
        .await
        .json();
    assert_eq!(shown["previous"], json!(id));
    assert_eq!(shown["players"].as_array().unwrap().len(), 2);
    assert_ne!(shown["game"]["seed"], old["game"]["seed"]);
}

/// A change retried under its key is answered the first answer, a
/// refusal included, and applies nothing more.
#[tokio::test]
async fn a_retried_change_is_answered_as_the_first_try() {
    let clock = HeldClock::now();
    let router = router_on(config(), clock);
    let (ann, bob) = (sign_up(&router, "Ann").await, sign_up(&router, "Bob").await);
    let body = json!({"game": deal(None), "seats": 3});
    let made = post_as(&router, "/v1/matches", &body, Some(&ann)).await;
    let id = made.json()["id"].as_str().unwrap().to_owned();
    let send = |who: &Signed, what: &str, key: &str| {
        let mut request = crate::support::players::request(
            "POST",
            &format!("/v1/matches/{id}/{what}"),
            None,
            Some(&who.bearer()),
        );
        request
            .headers_mut()
            .insert("idempotency-key", key.parse().unwrap());
        crate::support::call(&router, request)
    };
    let joined = send(&bob, "join", "bob-joins").await;
    assert_eq!((joined.status, joined.header("etag")), (200, Some("\"1\"")));
    let again = send(&bob, "join", "bob-joins").await;
    assert_eq!(again.status, 200, "{}", again.text());
    assert_eq!(again.json(), joined.json());
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    // A refusal is kept too: Bob may not start Ann's match.
    let refused = send(&bob, "start", "bob-starts").await;
    assert_eq!(refused.status, 409);
    let twice = send(&bob, "start", "bob-starts").await;
    assert_eq!((twice.status, twice.json()), (409, refused.json()));
    assert_eq!(twice.header("idempotent-replayed"), Some("true"));
}

/// An open match nobody starts waits `LINKPATH_MATCH_JOIN_MS`, then is
/// gone.
#[tokio::test]
async fn an_open_match_nobody_starts_expires() {
    let clock = HeldClock::now();
    let router = router_on(config(), clock.clone());
    let ann = sign_up(&router, "Ann").await;
    let body = json!({"game": deal(None), "seats": 4});
    let made = post_as(&router, "/v1/matches", &body, Some(&ann)).await;
    let path = format!("/v1/matches/{}", made.json()["id"].as_str().unwrap());
    clock.advance(Duration::from_millis(599_999));
    assert_eq!(get_as(&router, &path, None).await.status, 200);
    clock.advance(Duration::from_millis(1));
    let gone = get_as(&router, &path, None).await;
    assert_eq!(gone.status, 404, "{}", gone.text());
}

/// A race on a Redis store shared by two replicas: made and played through
/// one, joined and read through the other, finished with the players'
/// ratings written in the match's script.
#[tokio::test]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn a_race_on_redis_runs_across_two_replicas() {
    let redis = linkpath_testkit::redis::RedisPrefix::fresh("matches");
    let replica = || {
        let mut config = config();
        config.games.store = redis.setting().parse().expect("a store");
        // No countdown: the race begins at the next read, on the real clock.
        config.games.match_countdown_ms = 0;
        linkpath_server::app(linkpath_server::AppState::open(config).expect("a Redis store opens"))
    };
    let (a, b) = (replica(), replica());
    let (ann, bob) = (sign_up(&a, "Ann").await, sign_up(&a, "Bob").await);
    let body = json!({"game": deal(None), "seats": 2});
    let made = post_as(&a, "/v1/matches", &body, Some(&ann)).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let id = made.json()["id"].as_str().unwrap().to_owned();
    let joined = post_as(
        &b,
        &format!("/v1/matches/{id}/join"),
        &json!({}),
        Some(&bob),
    )
    .await;
    assert_eq!(joined.status, 200, "{}", joined.text());
    let shown = get_as(&b, &format!("/v1/matches/{id}"), None).await.json();
    assert_eq!(shown["status"], "playing");
    let game = shown["players"][0]["game"].as_str().unwrap().to_owned();
    let board = get_as(&a, &format!("/v1/games/{game}"), Some(&ann))
        .await
        .json()["board"]
        .clone();
    let clear = post(
        &a,
        "/v1/clear",
        &json!({"board": board, "rules": "shisen-sho"}),
    )
    .await;
    for step in clear.json()["moves"].as_array().unwrap() {
        let moved = post_as(
            &a,
            &format!("/v1/games/{game}/moves"),
            &json!({"from": step["from"], "to": step["to"]}),
            Some(&ann),
        )
        .await;
        assert_eq!(moved.status, 200, "{}", moved.text());
    }
    let shown = get_as(&b, &format!("/v1/matches/{id}"), None).await.json();
    assert_eq!(shown["status"], "finished");
    assert_eq!(
        places(&shown),
        [(1, "cleared".into()), (2, "stopped".into())]
    );
    let after = after_match(&[(Rating::default(), 1), (Rating::default(), 2)]);
    let me = get_as(&b, "/v1/players/me", Some(&bob)).await;
    assert_eq!(rating(&me.json()["rating"]), after[1]);
}

/// A stream whose read fails for a moment (the race's start needs the only
/// solver slot, held by a long solve) reads again shortly, rather than
/// end, and sends the race's start once the slot is free.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_reads_again_after_a_busy_solver_and_sends_the_race_begun() {
    use crate::games::next_event;
    use crate::support::{endless_curling, hold_the_slot_by, router_slot_free, solve};
    let mut config = config();
    config.workers = Some(1);
    config.request.solve_timeout_ms = 2_000;
    // The race begins at the first read after the last seat is taken.
    config.games.match_countdown_ms = 0;
    let router = router_on(config, HeldClock::now());
    let (ann, bob) = (sign_up(&router, "Ann").await, sign_up(&router, "Bob").await);
    let body = json!({"game": deal(None), "seats": 2});
    let made = post_as(&router, "/v1/matches", &body, Some(&ann)).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let id = made.json()["id"].as_str().unwrap().to_owned();
    let path = format!("/v1/matches/{id}/events");
    let response = tower::ServiceExt::oneshot(router.clone(), crate::support::get(&path))
        .await
        .expect("infallible");
    let mut events = response.into_body();
    let data = |event: &[String]| -> Value {
        serde_json::from_str(event[2].strip_prefix("data: ").expect("data")).expect("JSON")
    };
    assert_eq!(data(&next_event(&mut events).await)["status"], "open");

    let send = || {
        let router = router.clone();
        tokio::spawn(async move { solve(&router, &endless_curling()).await })
    };
    let busy = hold_the_slot_by(|| router_slot_free(&router), send).await;
    let joined = post_as(
        &router,
        &format!("/v1/matches/{id}/join"),
        &json!({}),
        Some(&bob),
    )
    .await;
    assert_eq!(joined.status, 200, "{}", joined.text());
    // The stream's read begins the race and cannot deal its games while
    // the slot is busy (503): the next events are the games dealt, then
    // the race under way, sent once the long solve ends at its deadline.
    let mut dealt = Vec::new();
    let begun = loop {
        let event = next_event(&mut events).await;
        if event[0] == "event: match" {
            break data(&event);
        }
        let progress = data(&event);
        assert_eq!(
            (progress["version"].clone(), progress["tiles_left"].clone()),
            (json!(0), json!(24))
        );
        dealt.push(progress["game"].as_str().unwrap().to_owned());
    };
    assert_eq!(begun["status"], "playing");
    let games: Vec<String> = (begun["players"].as_array().unwrap().iter())
        .map(|seat| seat["game"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(dealt, games);
    busy.await.unwrap().error(504, "deadline_exceeded");
}
