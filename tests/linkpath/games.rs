//! Held games in the real process on its file store: a flood of moves is
//! cut by SIGKILL, and after a restart on the same file every move that
//! was answered 200 is there, and nothing else is half there.

use crate::support::*;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Rows of a board where every row is a pair of its own type with a gap:
/// row `i` can be removed whatever was removed before.
pub(crate) const ROWS: usize = 40;

pub(crate) fn board() -> Value {
    let types = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let rows: Vec<String> = types
        .chars()
        .take(ROWS)
        .map(|c| format!("{c}.{c}"))
        .collect();
    json!({"board": rows, "rules": "lianliankan"})
}

/// One POST over its own connection; `None` once the server is gone.
pub(crate) async fn try_post(
    addr: std::net::SocketAddr,
    path: &str,
    body: &Value,
) -> Option<Reply> {
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.ok()?;
        stream.write_all(&post_bytes(path, body)).await.ok()?;
        let mut bytes = Vec::new();
        stream.read_to_end(&mut bytes).await.ok()?;
        (!bytes.is_empty()).then(|| parse(&bytes))
    };
    tokio::time::timeout(Duration::from_secs(30), exchange)
        .await
        .ok()
        .flatten()
}

#[tokio::test]
async fn every_acknowledged_move_survives_a_sigkill_during_a_flood() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("games-sigkill");
    let _ = std::fs::remove_dir_all(&dir);
    let store = format!("file:{}", dir.join("games.redb").display());
    let mut server = Process::serve("games-sigkill", &["--store", &store]).await;
    let mut ids = Vec::new();
    for _ in 0..8 {
        let created = server.post("/v1/games", &board()).await;
        assert_eq!(created.status, 201, "{}", created.text());
        ids.push(created.json()["id"].as_str().unwrap().to_owned());
    }
    // Eight players, one a game, each removing its rows in order; each
    // keeps the last version the server acknowledged.
    let acknowledged = Arc::new(AtomicUsize::new(0));
    let addr = server.addr;
    let players: Vec<_> = ids
        .iter()
        .cloned()
        .map(|id| {
            let acknowledged = acknowledged.clone();
            tokio::spawn(async move {
                let mut last = 0;
                for row in 0..ROWS as i64 {
                    let step = json!({"from": [0, row], "to": [2, row]});
                    let Some(reply) = try_post(addr, &format!("/v1/games/{id}/moves"), &step).await
                    else {
                        break;
                    };
                    assert_eq!(reply.status, 200, "{}", reply.text());
                    last = reply.json()["version"].as_u64().unwrap();
                    acknowledged.fetch_add(1, Ordering::Relaxed);
                }
                (id, last)
            })
        })
        .collect();
    // Killed in the middle: after a third of the moves were answered.
    let started = std::time::Instant::now();
    while acknowledged.load(Ordering::Relaxed) < ROWS * 8 / 3 {
        assert!(started.elapsed() < LIMIT, "the flood did not get going");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    server.child.0.kill().expect("SIGKILL");
    server.child.0.wait().expect("the server is gone");
    let mut lasts = Vec::new();
    for player in players {
        lasts.push(player.await.expect("a player"));
    }
    assert!(
        lasts.iter().any(|(_, last)| (*last as usize) < ROWS),
        "every game was cleared before the kill: {lasts:?}"
    );

    let restarted = Process::serve("games-sigkill-again", &["--store", &store]).await;
    for (id, last) in lasts {
        let reply = exchange(restarted.addr, &get_bytes(&format!("/v1/games/{id}"))).await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        let game = reply.json();
        let version = game["version"].as_u64().unwrap();
        // Every answered move is there; one more may be, written but not
        // answered before the kill.
        assert!(
            version == last || version == last + 1,
            "game {id}: version {version}, last answered {last}"
        );
        let rows = game["board"].as_array().unwrap();
        for (row, cells) in rows.iter().enumerate() {
            let cleared = cells == "...";
            assert_eq!(
                cleared,
                (row as u64) < version,
                "game {id} row {row}: {cells}"
            );
        }
        assert_eq!(game["tiles_left"], json!(2 * (ROWS as u64 - version)));
    }
}
