//! Seeks through the router, on the held clock: two players seeking the
//! same settings are seated in one match; different settings, or ratings
//! too far apart, are not, and the wait ends with 204; a seeker that went
//! away is never seated; six seekers for two seats make three matches;
//! the bound on seeks, the shutdown and bad requests have their answers.
//! A test waits for the seeks to be waiting (`AppState::seeks_waiting`)
//! before it moves the clock on.

use crate::support::players::{Signed, get_as, post_as, sign_up};
use crate::support::{HeldClock, Reply, Scratch, config, config_on};
use axum::Router;
use linkpath_server::{AppState, Config, app};
use linkpath_testkit::stores::Backend;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The settings most tests seek.
fn settings(seats: usize) -> Value {
    json!({"game": {"width": 6, "height": 4, "types": 6, "rules": "shisen-sho"}, "seats": seats})
}

struct Seeking {
    router: Router,
    state: AppState,
    clock: Arc<HeldClock>,
    waiting: watch::Receiver<usize>,
    _scratch: Scratch,
}

impl Seeking {
    fn new(config: Config) -> Seeking {
        let clock = HeldClock::now();
        let state = AppState::in_memory(config, clock.clone());
        Seeking::over(state, clock, Scratch::Memory)
    }

    /// Seeks on a store of `backend`.
    fn on(backend: Backend) -> Seeking {
        let clock = HeldClock::now();
        let (config, scratch) = config_on(backend, "seeks");
        let state = AppState::open_on(config, clock.clone()).expect("the store opens");
        Seeking::over(state, clock, scratch)
    }

    fn over(state: AppState, clock: Arc<HeldClock>, scratch: Scratch) -> Seeking {
        let waiting = state.seeks_waiting();
        Seeking {
            router: app(state.clone()),
            state,
            clock,
            waiting,
            _scratch: scratch,
        }
    }

    /// `player` seeks `body`, answered later.
    fn seek(&self, player: &Signed, body: &Value) -> JoinHandle<Reply> {
        let router = self.router.clone();
        let player = Signed {
            id: player.id.clone(),
            token: player.token.clone(),
        };
        let body = body.clone();
        tokio::spawn(
            async move { post_as(&router, "/v1/matches/seek", &body, Some(&player)).await },
        )
    }

    /// Returns once `n` seeks wait.
    async fn until_waiting(&mut self, n: usize) {
        self.waiting
            .wait_for(|w| *w == n)
            .await
            .expect("the server's state lives");
    }

    /// Moves the clock past every wait now running.
    fn past_the_wait(&self) {
        self.clock.advance(Duration::from_millis(30_000));
    }

    async fn players(&self, names: &[&str]) -> Vec<Signed> {
        let mut players = Vec::new();
        for name in names {
            players.push(sign_up(&self.router, name).await);
        }
        players
    }
}

/// The ids of the players seated in a match answered.
fn seated(reply: &Reply) -> Vec<String> {
    reply.json()["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|seat| seat["player"].as_str().expect("an id").to_owned())
        .collect()
}

linkpath_testkit::on_each_store!(two_seeking_the_same_settings_are_seated_in_one_match);

async fn two_seeking_the_same_settings_are_seated_in_one_match(backend: Backend) {
    let mut seeking = Seeking::on(backend);
    let players = seeking.players(&["Ann", "Bob"]).await;
    let ann = seeking.seek(&players[0], &settings(2));
    seeking.until_waiting(1).await;
    let bob = seeking.seek(&players[1], &settings(2));
    let (ann, bob) = (ann.await.unwrap(), bob.await.unwrap());
    assert_eq!(ann.status, 201, "{}", ann.text());
    assert_eq!(bob.status, 201, "{}", bob.text());
    let id = ann.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(bob.json()["id"], id.as_str());
    assert_eq!(
        ann.header("location"),
        Some(format!("/v1/matches/{id}").as_str())
    );
    assert_eq!(ann.json()["status"], "countdown");
    assert_eq!(seated(&ann), [players[0].id.clone(), players[1].id.clone()]);
    assert_eq!(seated(&bob), seated(&ann));
    // Both deal the same board: the seed was drawn once, from the id.
    let shown = get_as(&seeking.router, &format!("/v1/matches/{id}"), None).await;
    assert_eq!(shown.json()["status"], "countdown");
    assert_eq!(
        shown.json()["settings"]["game"]["seed"],
        ann.json()["settings"]["game"]["seed"]
    );
    seeking.until_waiting(0).await;
}

#[tokio::test]
async fn other_settings_are_not_seated_together_and_the_wait_ends_with_204() {
    let mut seeking = Seeking::new(config());
    let players = seeking.players(&["Ann", "Bob", "Cat"]).await;
    let two = seeking.seek(&players[0], &settings(2));
    let three = seeking.seek(&players[1], &settings(3));
    let mut other = settings(2);
    other["game"]["types"] = json!(4);
    let other = seeking.seek(&players[2], &other);
    seeking.until_waiting(3).await;
    seeking.past_the_wait();
    for reply in [two, three, other] {
        let reply = reply.await.unwrap();
        assert_eq!(reply.status, 204, "{}", reply.text());
        assert!(reply.body.is_empty());
    }
}

/// Ann beats Bob in a race Bob leaves: Ann rated about 1662, Bob about
/// 1338, more than 300 apart.
async fn rated_apart(seeking: &Seeking, ann: &Signed, bob: &Signed) {
    let body = json!({"game": {"width": 6, "height": 4, "types": 6, "seed": 3}, "seats": 2});
    let made = post_as(&seeking.router, "/v1/matches", &body, Some(ann)).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let id = made.json()["id"].as_str().unwrap().to_owned();
    let path = format!("/v1/matches/{id}");
    let joined = post_as(
        &seeking.router,
        &format!("{path}/join"),
        &json!({}),
        Some(bob),
    )
    .await;
    assert_eq!(joined.status, 200, "{}", joined.text());
    seeking.clock.advance(Duration::from_millis(3_000));
    assert_eq!(
        get_as(&seeking.router, &path, None).await.json()["status"],
        "playing"
    );
    let left = post_as(
        &seeking.router,
        &format!("{path}/leave"),
        &json!({}),
        Some(bob),
    )
    .await;
    assert_eq!(left.json()["status"], "finished", "{}", left.text());
    let rating = |me: Reply| me.json()["rating"]["rating"].as_f64().expect("a rating");
    let ann = rating(get_as(&seeking.router, "/v1/players/me", Some(ann)).await);
    let bob = rating(get_as(&seeking.router, "/v1/players/me", Some(bob)).await);
    assert!(ann - bob > 300.0, "Ann {ann}, Bob {bob}");
}

#[tokio::test]
async fn ratings_too_far_apart_are_not_seated_together() {
    let mut seeking = Seeking::new(config());
    let players = seeking.players(&["Ann", "Bob", "Cat"]).await;
    rated_apart(&seeking, &players[0], &players[1]).await;
    let ann = seeking.seek(&players[0], &settings(2));
    seeking.until_waiting(1).await;
    let bob = seeking.seek(&players[1], &settings(2));
    seeking.until_waiting(2).await;
    // Cat, never rated (1500), is near Ann, the first seeker.
    let cat = seeking.seek(&players[2], &settings(2));
    let (ann, cat) = (ann.await.unwrap(), cat.await.unwrap());
    assert_eq!(ann.status, 201, "{}", ann.text());
    assert_eq!(seated(&ann), [players[0].id.clone(), players[2].id.clone()]);
    assert_eq!(cat.json()["id"], ann.json()["id"]);
    seeking.until_waiting(1).await;
    seeking.past_the_wait();
    assert_eq!(bob.await.unwrap().status, 204);
}

#[tokio::test]
async fn a_seeker_that_went_away_is_never_seated() {
    let mut seeking = Seeking::new(config());
    let players = seeking.players(&["Ann", "Bob", "Cat"]).await;
    let ann = seeking.seek(&players[0], &settings(2));
    seeking.until_waiting(1).await;
    ann.abort();
    seeking.until_waiting(0).await;
    // Removed as the request ended, or else expired by now.
    seeking.clock.advance(Duration::from_millis(5_000));
    let bob = seeking.seek(&players[1], &settings(2));
    seeking.until_waiting(1).await;
    let cat = seeking.seek(&players[2], &settings(2));
    let (bob, cat) = (bob.await.unwrap(), cat.await.unwrap());
    assert_eq!(bob.status, 201, "{}", bob.text());
    assert_eq!(seated(&bob), [players[1].id.clone(), players[2].id.clone()]);
    assert_eq!(seated(&cat), seated(&bob));
}

#[tokio::test]
async fn six_seekers_for_two_seats_make_three_matches() {
    // A solver slot each, to read all six at once.
    let seeking = Seeking::new(Config {
        workers: Some(6),
        ..config()
    });
    let names = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"];
    let players = seeking.players(&names).await;
    let seeks: Vec<_> = players
        .iter()
        .map(|p| seeking.seek(p, &settings(2)))
        .collect();
    let mut matches: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for seek in seeks {
        let reply = seek.await.unwrap();
        assert_eq!(reply.status, 201, "{}", reply.text());
        let id = reply.json()["id"].as_str().unwrap().to_owned();
        let seats = seated(&reply);
        assert_eq!(seats.len(), 2);
        assert_eq!(*matches.entry(id).or_insert_with(|| seats.clone()), seats);
    }
    assert_eq!(matches.len(), 3);
    let mut everyone: Vec<String> = matches.into_values().flatten().collect();
    everyone.sort();
    let mut ids: Vec<String> = players.iter().map(|p| p.id.clone()).collect();
    ids.sort();
    assert_eq!(everyone, ids);
}

#[tokio::test]
async fn seeks_past_the_bound_are_refused_and_the_shutdown_ends_them() {
    let mut bounded = config();
    bounded.games.max_seeks = 1;
    let mut seeking = Seeking::new(bounded);
    let players = seeking.players(&["Ann", "Bob"]).await;
    let ann = seeking.seek(&players[0], &settings(2));
    seeking.until_waiting(1).await;
    let bob = seeking.seek(&players[1], &settings(2)).await.unwrap();
    assert_eq!(bob.status, 503, "{}", bob.text());
    assert_eq!(bob.json()["error"]["code"], "overloaded");
    assert_eq!(bob.header("retry-after"), Some("1"));
    seeking.state.begin_shutdown();
    assert_eq!(ann.await.unwrap().status, 204);
}

#[tokio::test]
async fn a_seek_needs_a_player_and_good_settings() {
    let seeking = Seeking::new(config());
    let ann = sign_up(&seeking.router, "Ann").await;
    let nobody = post_as(&seeking.router, "/v1/matches/seek", &settings(2), None).await;
    assert_eq!(nobody.status, 401, "{}", nobody.text());
    let mut invited = settings(2);
    invited["invited"] = json!([ann.id]);
    for (body, field) in [
        (settings(9), Some("seats")),
        (invited, None),
        (
            json!({"game": {"width": 6, "height": 4}, "seats": 2}),
            Some("game.types"),
        ),
    ] {
        let refused = post_as(&seeking.router, "/v1/matches/seek", &body, Some(&ann)).await;
        assert_eq!(refused.status, 422, "{}", refused.text());
        assert_eq!(refused.json()["error"]["code"], "invalid_request");
        if let Some(field) = field {
            assert_eq!(
                refused.json()["error"]["field"],
                field,
                "{}",
                refused.text()
            );
        }
    }
}

/// Seekers on two replicas of one Redis store are seated together: the
/// seek waits in Redis, and the replica that pairs makes the match both
/// are answered. On the server `LINKPATH_TEST_REDIS_URL` names, under a
/// key prefix of its own.
#[tokio::test]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn seekers_on_two_replicas_are_seated_together() {
    let redis = linkpath_testkit::redis::RedisPrefix::fresh("server");
    let replica = || {
        let mut config = config();
        config.games.store = redis
            .setting()
            .parse()
            .expect("the test Redis URL is a store");
        let state = AppState::open(config).expect("a Redis store opens");
        (app(state.clone()), state.seeks_waiting())
    };
    let ((one, mut waiting), (two, _)) = (replica(), replica());
    // Each replica's players are the store's: Bob, signed up on the
    // second, is known on the first.
    let ann = sign_up(&one, "Ann").await;
    let bob = sign_up(&two, "Bob").await;
    let seek = |router: &Router, player: &Signed| {
        let (router, body) = (router.clone(), settings(2));
        let player = Signed {
            id: player.id.clone(),
            token: player.token.clone(),
        };
        tokio::spawn(
            async move { post_as(&router, "/v1/matches/seek", &body, Some(&player)).await },
        )
    };
    let ann_seeks = seek(&one, &ann);
    waiting
        .wait_for(|w| *w == 1)
        .await
        .expect("the state lives");
    let bob_seeks = seek(&two, &bob);
    let (ann_seeks, bob_seeks) = (ann_seeks.await.unwrap(), bob_seeks.await.unwrap());
    assert_eq!(ann_seeks.status, 201, "{}", ann_seeks.text());
    assert_eq!(bob_seeks.status, 201, "{}", bob_seeks.text());
    assert_eq!(ann_seeks.json()["id"], bob_seeks.json()["id"]);
    assert_eq!(seated(&bob_seeks), [ann.id.clone(), bob.id.clone()]);
}
