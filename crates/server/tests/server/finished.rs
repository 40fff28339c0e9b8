//! A game that ends is marked for the archive in the same write as its
//! end: won by its last move or resigned, it is listed among the store's
//! unarchived games, with its whole log; a game still played is not. On a
//! store file (read once the server has let it go), and on the Redis
//! store replicas share (read beside them, as an archiver would).

use crate::support::*;
use axum::Router;
use linkpath_server::{AppState, app};
use linkpath_store::{Store, StoreLimits};
use serde_json::{Value, json};
use std::time::Duration;

/// Bounds roomy enough for what a case reads: it writes nothing.
fn limits() -> StoreLimits {
    StoreLimits {
        max_games: 100,
        max_keys_per_game: 100,
        max_kept_bytes: 1 << 20,
        max_boards: 100,
        board_size: 10,
        max_players: 100,
        max_games_per_player: 100,
        max_matches: 100,
        timeout: Duration::from_secs(10),
        keep_unarchived: false,
        feed_heartbeat: linkpath_store::FEED_HEARTBEAT,
    }
}

/// A router on the store `setting` names.
fn on_store(setting: &str) -> Router {
    let mut config = config();
    config.games.store = setting.parse().expect("a store spec");
    app(AppState::open(config).expect("the store opens"))
}

async fn create(router: &Router) -> String {
    let board = json!({"board": ["A.A", "B.B"], "rules": "lianliankan"});
    let made = post(router, "/v1/games", &board).await;
    assert_eq!(made.status, 201, "{}", made.text());
    made.json()["id"].as_str().expect("an id").to_owned()
}

async fn act(router: &Router, id: &str, verb: &str, body: Value) -> Value {
    let path = format!("/v1/games/{id}/{verb}");
    let reply = call(router, action(&path, &body.to_string(), &[])).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json()
}

/// Three games: one won in two moves, one resigned after one, one still
/// played after one; their ids in that order.
async fn play(router: &Router) -> [String; 3] {
    let (won, resigned, played) = (
        create(router).await,
        create(router).await,
        create(router).await,
    );
    for id in [&won, &resigned, &played] {
        let first = act(router, id, "moves", json!({"from": [0, 0], "to": [2, 0]})).await;
        assert_eq!(first["status"], "playing");
    }
    let last = act(router, &won, "moves", json!({"from": [0, 1], "to": [2, 1]})).await;
    assert_eq!(last["status"], "won");
    let gave_up = act(router, &resigned, "resign", json!({})).await;
    assert_eq!(gave_up["status"], "resigned");
    [won, resigned, played]
}

/// The store as the server left it: the two finished games marked, each
/// copied with its whole log (its creation and each action), the game
/// still played not.
async fn only_the_finished_are_marked(store: &Store, [won, resigned, played]: &[String; 3]) {
    let marks = store
        .unarchived(10, u64::MAX)
        .await
        .expect("the marks read");
    let mut marked: Vec<&str> = marks.iter().map(|mark| mark.id.as_str()).collect();
    marked.sort_unstable();
    let mut finished = vec![won.as_str(), resigned.as_str()];
    finished.sort_unstable();
    assert_eq!(marked, finished);
    for (id, entries) in [(won, 3), (resigned, 3)] {
        let copy = store.archive_copy(id).await.expect("a copy reads");
        let copy = copy.expect("the game is stored");
        let versions: Vec<u64> = copy.log.iter().map(|(version, _)| *version).collect();
        assert_eq!(versions, (0..entries).collect::<Vec<u64>>(), "{id}");
        let mark = marks.iter().find(|mark| &mark.id == id).expect("marked");
        assert_eq!(copy.finished_ms, Some(mark.finished_ms));
    }
    let copy = store.archive_copy(played).await.expect("a copy reads");
    assert_eq!(copy.map(|copy| copy.finished_ms), Some(None));
    let count = store.unarchived_count().await.expect("the count reads");
    assert_eq!(count.games, 2);
}

#[tokio::test]
async fn a_finished_game_is_marked_in_the_store_file() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("finished.redb");
    let _ = std::fs::remove_file(&path);
    let setting = format!("file:{}", path.display());
    let router = on_store(&setting);
    let ids = play(&router).await;
    // The server gone, its file is closed: an archiver opens it.
    drop(router);
    let store = Store::open(&setting.parse().expect("a spec"), limits()).expect("the file opens");
    only_the_finished_are_marked(&store, &ids).await;
}

#[tokio::test]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn a_finished_game_is_marked_in_the_shared_redis() {
    let redis = linkpath_testkit::redis::RedisPrefix::fresh("server");
    let router = on_store(&redis.setting());
    let ids = play(&router).await;
    let store = Store::open(&redis.setting().parse().expect("a spec"), limits())
        .expect("a Redis store opens");
    only_the_finished_are_marked(&store, &ids).await;
}
