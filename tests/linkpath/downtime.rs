//! The server's downtime is not the player's time, in the real process:
//! a server killed and started again on its file after longer than a
//! heartbeat gap gives that time back to every running game clock, so a
//! time-limited game is still in play, a paused one reads the same, and
//! the replay checks again to the game. With replicas on one Redis, the
//! downtime is only when none served: a replica killed while another
//! serves gives nothing back.

use crate::games::board;
use crate::support::*;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

/// The time limit of the games: shorter than the downtime, far longer
/// than the play around it.
const LIMIT_MS: u64 = 4_000;

/// How long the servers stay down: past the heartbeat gap (5 s) and the
/// time limit.
const DOWN: Duration = Duration::from_secs(8);

async fn get(addr: SocketAddr, path: &str) -> Value {
    let reply = exchange(addr, &get_bytes(path)).await;
    assert_eq!(reply.status, 200, "{path}: {}", reply.text());
    reply.json()
}

/// A new game with the time limit, through `server`: its id.
async fn limited_game(server: &Process) -> String {
    let mut body = board();
    body["time_limit_ms"] = json!(LIMIT_MS);
    let created = server.post("/v1/games", &body).await;
    assert_eq!(created.status, 201, "{}", created.text());
    created.json()["id"].as_str().unwrap().to_owned()
}

fn kill(server: &mut Process) {
    server.child.0.kill().expect("SIGKILL");
    server.child.0.wait().expect("the server is gone");
}

#[tokio::test]
async fn a_restarts_downtime_is_given_back_to_every_running_clock() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("games-downtime");
    let _ = std::fs::remove_dir_all(&dir);
    let store = format!("file:{}", dir.join("games.redb").display());
    let mut server = Process::serve("games-downtime", &["--store", &store]).await;
    let limited = limited_game(&server).await;
    let paused = limited_game(&server).await;
    let pause = server
        .post(&format!("/v1/games/{paused}/pause"), &json!(null))
        .await;
    assert_eq!(pause.status, 200, "{}", pause.text());
    let paused_ms = pause.json()["elapsed_ms"].clone();
    kill(&mut server);
    tokio::time::sleep(DOWN).await;

    let restarted = Process::serve("games-downtime-again", &["--store", &store]).await;
    let addr = restarted.addr;
    let game = get(addr, &format!("/v1/games/{limited}")).await;
    assert_eq!(
        (&game["status"], &game["version"]),
        (&json!("playing"), &json!(0))
    );
    let game = get(addr, &format!("/v1/games/{paused}")).await;
    assert_eq!(
        (&game["status"], &game["elapsed_ms"]),
        (&json!("paused"), &paused_ms)
    );
    // A move after the downtime, and the replay checked again: the same
    // play time and score.
    let step = json!({"from": [0, 0], "to": [2, 0]});
    let moved = restarted
        .post(&format!("/v1/games/{limited}/moves"), &step)
        .await;
    assert_eq!(moved.status, 200, "{}", moved.text());
    let moved = moved.json();
    assert_eq!(moved["status"], "playing");
    let replay = get(addr, &format!("/v1/games/{limited}/replay")).await;
    let check = restarted.post("/v1/replays", &replay).await;
    assert_eq!(check.status, 200, "{}", check.text());
    let check = check.json();
    assert_eq!(
        (&check["elapsed_ms"], &check["score"], &check["status"]),
        (&moved["elapsed_ms"], &moved["score"], &json!("playing"))
    );
    let log = std::fs::read_to_string(&restarted.log).unwrap();
    assert!(log.contains("no process served games"), "{log}");
    println!(
        "down {DOWN:?} across a restart: the {LIMIT_MS} ms game is in play with {} ms played",
        moved["elapsed_ms"]
    );
}

#[tokio::test]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn replicas_on_redis_give_back_only_the_time_none_served() {
    let redis = linkpath_testkit::redis::RedisPrefix::fresh("downtime");
    let store = redis.setting();
    let flags = ["--store", store.as_str()];
    let mut a = Process::serve("downtime-replica-a", &flags).await;
    let mut b = Process::serve("downtime-replica-b", &flags).await;
    // `a` goes down while `b` serves: the time runs on.
    let served = limited_game(&a).await;
    kill(&mut a);
    tokio::time::sleep(DOWN).await;
    let game = get(b.addr, &format!("/v1/games/{served}")).await;
    assert_eq!(
        (&game["status"], &game["elapsed_ms"]),
        (&json!("out_of_time"), &json!(LIMIT_MS))
    );
    // Then both are down: that time is given back.
    let unserved = limited_game(&b).await;
    kill(&mut b);
    tokio::time::sleep(DOWN).await;
    let a = Process::serve("downtime-replica-a-again", &flags).await;
    let game = get(a.addr, &format!("/v1/games/{unserved}")).await;
    assert_eq!(game["status"], "playing");
}
