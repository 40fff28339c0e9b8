//! A store outage in the real process: the store file is held under a
//! file-size limit (`RLIMIT_FSIZE`, set on the running server), so the
//! next time redb grows it the write fails with EFBIG, as on a full disk.
//! Every answer is then 200 or `503 store_unavailable` with `Retry-After`,
//! a move answered 503 is not applied, and once the limit is lifted the
//! same process serves the same games again, versions without a gap.
//! After a SIGKILL and a restart every move answered 200 is there.

use crate::games::{ROWS, board, try_post};
use crate::support::*;
use rustix::process::{Pid, Resource, Rlimit, getrlimit, prlimit};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

const GAMES: usize = 8;
/// Moves each game makes before the fault.
const WARM_UP: u64 = 10;
/// Moves each game makes once the store is back, after the one retried.
const AFTER: u64 = 5;

/// [`linkpath`] run by `sh`, which ignores SIGXFSZ first: an ignored
/// signal stays ignored across `exec`, so a write past the limit fails
/// with EFBIG instead of killing the process.
fn ignoring_sigxfsz() -> Command {
    let plain = linkpath();
    let mut command = Command::new("sh");
    command
        .args(["-c", r#"trap '' XFSZ; exec "$0" "$@""#])
        .arg(plain.get_program());
    for (name, value) in plain.get_envs() {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    command
}

/// Whether process `pid` ignores SIGXFSZ (signal 25), from its status.
fn ignores_sigxfsz(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the /proc status");
    let mask = status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        .expect("a SigIgn line");
    mask & (1 << (25 - 1)) != 0
}

/// Sets the soft file-size limit of `pid`, keeping the hard one.
fn limit_file_size(pid: Pid, soft: Option<u64>) {
    let hard = getrlimit(Resource::Fsize).maximum;
    let limit = Rlimit {
        current: soft.or(hard),
        maximum: hard,
    };
    prlimit(Some(pid), Resource::Fsize, limit).expect("prlimit on the server");
}

/// 503 `store_unavailable` with `Retry-After`, as JSON.
fn assert_unavailable(reply: &Reply) {
    reply.error(503, "store_unavailable");
    assert_eq!(reply.header("retry-after"), Some("1"), "{reply:?}");
}

/// Removes row `row` of game `id`, at version `acked`: true if answered
/// 200 with the next version, false if 503; anything else fails.
async fn play(addr: SocketAddr, id: &str, row: u64, acked: u64) -> bool {
    let step = json!({"from": [0, row], "to": [2, row]});
    let reply = try_post(addr, &format!("/v1/games/{id}/moves"), &step)
        .await
        .expect("the server answers");
    if reply.status == 200 {
        // A move answered 503 but applied would make this 409 (its tiles
        // gone) or skip a version.
        assert_eq!(reply.json()["version"], json!(acked + 1), "game {id}");
        true
    } else {
        assert_unavailable(&reply);
        false
    }
}

/// Game `id` as stored after `acked` moves: version, rows, tiles.
fn assert_game(id: &str, game: &Value, acked: u64) {
    assert_eq!(game["version"], json!(acked), "game {id}");
    let rows = game["board"].as_array().unwrap();
    for (row, cells) in rows.iter().enumerate() {
        let cleared = cells == "...";
        assert_eq!(
            cleared,
            (row as u64) < acked,
            "game {id} row {row}: {cells}"
        );
    }
    assert_eq!(game["tiles_left"], json!(2 * (ROWS as u64 - acked)));
}

async fn get_game(addr: SocketAddr, id: &str) -> Reply {
    exchange(addr, &get_bytes(&format!("/v1/games/{id}"))).await
}

/// A bigger game than [`board`]: one pair a row, far apart.
fn ballast() -> Value {
    let row = format!("A{}A", ".".repeat(78));
    json!({"board": vec![row; 80], "rules": "lianliankan"})
}

/// Plays each game's rows in order, the games at once, while `go` says
/// so before a move and until `done` says so after one (given whether it
/// was applied); answers each game with its moves answered 200.
async fn flood(
    addr: SocketAddr,
    games: Vec<(String, u64)>,
    go: impl Fn(&str, u64) -> bool + Copy + Send + 'static,
    done: impl Fn(&str, bool) -> bool + Copy + Send + 'static,
) -> Vec<(String, u64)> {
    let players: Vec<_> = games
        .into_iter()
        .map(|(id, mut acked)| {
            tokio::spawn(async move {
                while go(&id, acked) {
                    let applied = play(addr, &id, acked, acked).await;
                    acked += u64::from(applied);
                    if done(&id, applied) {
                        break;
                    }
                }
                (id, acked)
            })
        })
        .collect();
    let mut games = Vec::new();
    for player in players {
        games.push(player.await.expect("a player"));
    }
    games
}

#[tokio::test]
async fn a_store_outage_is_503_and_the_store_comes_back_when_it_ends() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("games-outage");
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("games.redb");
    let store = format!("file:{}", path.display());
    // No store call times out, so every 503 is the fault itself, and a
    // write answered 503 is one that was not applied.
    let flags = ["--store", &store, "--store-timeout-ms", "600000"];
    let mut server = Process::serve_with("games-outage", ignoring_sigxfsz(), &flags).await;
    assert!(ignores_sigxfsz(server.child.0.id()));
    let addr = server.addr;
    let mut games = Vec::new();
    for _ in 0..GAMES {
        let created = server.post("/v1/games", &board()).await;
        assert_eq!(created.status, 201, "{}", created.text());
        games.push((created.json()["id"].as_str().unwrap().to_owned(), 0));
    }
    // Before the fault every move is 200.
    let games = flood(addr, games, |_, acked| acked < WARM_UP, |_, _| false).await;

    // One byte to spare: the next growth of the file fails. New games
    // (ballast, bigger than moves) keep it needing to grow.
    let pid = Pid::from_child(&server.child.0);
    let size = std::fs::metadata(&path).expect("the store file").len();
    limit_file_size(pid, Some(size + 1));
    let refused = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let ballast = tokio::spawn({
        let (refused, stop) = (refused.clone(), stop.clone());
        async move {
            while !stop.load(Ordering::Relaxed) {
                let reply = try_post(addr, "/v1/games", &ballast())
                    .await
                    .expect("the server answers");
                if reply.status != 201 {
                    assert_unavailable(&reply);
                    refused.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    });
    bounded("the store failing", async {
        while refused.load(Ordering::Relaxed) == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    // Moves go on until each game has one answered 503.
    let games = flood(
        addr,
        games,
        |id, acked| {
            assert!(acked < ROWS as u64, "game {id} cleared, never refused");
            true
        },
        |_, applied| !applied,
    )
    .await;
    stop.store(true, Ordering::Relaxed);
    ballast.await.expect("the ballast");
    assert!(
        server.child.0.try_wait().unwrap().is_none(),
        "the server died; log in {}",
        server.log.display()
    );
    // During the outage a game reads as of its last 200, or not at all.
    for (id, acked) in &games {
        let reply = get_game(addr, id).await;
        if reply.status == 200 {
            assert_game(id, &reply.json(), *acked);
        } else {
            assert_unavailable(&reply);
        }
    }

    // The fault ends; the same process takes the moves again.
    limit_file_size(pid, None);
    let players: Vec<_> = games
        .into_iter()
        .map(|(id, mut acked)| {
            tokio::spawn(async move {
                // The move refused last, retried until the store is back.
                bounded("the store coming back", async {
                    while !play(addr, &id, acked, acked).await {
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                })
                .await;
                acked += 1;
                let last = (acked + AFTER).min(ROWS as u64);
                while acked < last {
                    assert!(
                        play(addr, &id, acked, acked).await,
                        "game {id}: 503 once back"
                    );
                    acked += 1;
                }
                (id, acked)
            })
        })
        .collect();
    let mut games = Vec::new();
    for player in players {
        games.push(player.await.expect("a player"));
    }
    for (id, acked) in &games {
        let reply = get_game(addr, id).await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        assert_game(id, &reply.json(), *acked);
    }
    let metrics = exchange(addr, &get_bytes("/metrics")).await;
    let reopens = String::from_utf8_lossy(&metrics.body)
        .lines()
        .find_map(|l| l.strip_prefix("linkpath_store_reopens_total "))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .expect("linkpath_store_reopens_total");
    assert!(reopens > 0);

    server.child.0.kill().expect("SIGKILL");
    server.child.0.wait().expect("the server is gone");
    let log = std::fs::read_to_string(&server.log).unwrap();
    assert!(
        log.contains("File too large"),
        "no EFBIG in the log:\n{log}"
    );
    assert!(log.contains("the store file is open again"), "{log}");
    assert!(!log.contains("status=500"), "{log}");

    // Restarted on the same file, with no limit: every 200 is there.
    let restarted = Process::serve("games-outage-again", &["--store", &store]).await;
    for (id, acked) in &games {
        let reply = get_game(restarted.addr, id).await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        assert_game(id, &reply.json(), *acked);
    }
}
