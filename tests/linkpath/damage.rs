//! A damaged store file in the real process. At start: the process exits
//! 1 (never a signal) with a line naming the file, what is damaged and
//! what to do. Under a running server: game requests answer
//! `503 store_unavailable`, `/readyz` says `store_unavailable`, and once
//! the file is whole again the same process serves it, the reopen
//! counted in `linkpath_store_reopens_total`.

use crate::support::*;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A store file made by the binary, closed by SIGTERM: `games` games, the
/// first moved once. Answers the file, the first game's id and the file's
/// bytes.
async fn store_file(name: &str, games: usize) -> (PathBuf, String, Vec<u8>) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("games.redb");
    let store = format!("file:{}", path.display());
    let mut server = Process::serve(name, &["--store", &store]).await;
    let mut ids = Vec::new();
    for _ in 0..games {
        let created = server.post("/v1/games", &crate::games::board()).await;
        assert_eq!(created.status, 201, "{}", created.text());
        ids.push(created.json()["id"].as_str().unwrap().to_owned());
    }
    let id = ids.swap_remove(0);
    let moved = server
        .post(
            &format!("/v1/games/{id}/moves"),
            &json!({"from": [0, 0], "to": [2, 0]}),
        )
        .await;
    assert_eq!(moved.status, 200, "{}", moved.text());
    server.terminate();
    assert_eq!(server.exit_code().await, Some(0));
    let bytes = std::fs::read(&path).unwrap();
    (path, id, bytes)
}

fn flipped(bytes: &[u8], offset: usize) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    bytes[offset] ^= 0xFF;
    bytes
}

#[tokio::test]
async fn a_damaged_store_file_stops_the_start_naming_it_and_what_to_do() {
    let (path, id, bytes) = store_file("damage-at-start", 1).await;
    let store = format!("file:{}", path.display());
    // The commit slot the header's god byte names as the last one.
    let last_commit = 64 + 128 * usize::from(bytes[9] & 1);
    for (offset, cause) in [
        (
            12,
            "its header's page size or region layout is not one redb writes",
        ),
        (
            last_commit + 8,
            "its last commit fails its checksums, and that commit was written whole",
        ),
    ] {
        let damaged = flipped(&bytes, offset);
        std::fs::write(&path, &damaged).unwrap();
        let mut command = linkpath();
        command.args([
            "serve",
            "--listen",
            &free_addr().to_string(),
            "--store",
            &store,
        ]);
        let output = run(command, b"");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "offset {offset}: {stderr}");
        assert_eq!(
            stderr.lines().last(),
            Some(
                format!(
                    "linkpath: opening the game store: the store file {} is damaged ({cause}): \
                     restore it from a backup, or move it aside to start with an empty store",
                    path.display()
                )
                .as_str()
            ),
            "offset {offset}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), damaged, "offset {offset}");
    }

    // Whole again, it serves the game.
    std::fs::write(&path, &bytes).unwrap();
    let server = Process::serve("damage-at-start-whole", &["--store", &store]).await;
    let reply = exchange(server.addr, &get_bytes(&format!("/v1/games/{id}"))).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["version"], 1);
}

#[tokio::test]
async fn a_store_file_damaged_under_the_server_is_503_and_not_ready_until_whole_again() {
    // Games enough for pages of their own, which the server reads only
    // when asked for their games (the table's root it reads at start, to
    // count them).
    let (path, id, bytes) = store_file("damage-running", 16).await;
    let store = format!("file:{}", path.display());
    let mut server = Process::serve("damage-running-again", &["--store", &store]).await;
    let ready = exchange(server.addr, &get_bytes("/readyz")).await;
    assert_eq!(ready.status, 200, "{}", ready.text());

    // Every page holding the game's id (its record, its expiry) typed as
    // neither a leaf nor a branch: redb panics on the first it reads.
    let mut damaged = bytes.clone();
    for page in (0..bytes.len()).step_by(4096) {
        let end = (page + 4096).min(bytes.len());
        if bytes[page..end]
            .windows(id.len())
            .any(|w| w == id.as_bytes())
        {
            damaged[page] ^= 0xFF;
        }
    }
    std::fs::write(&path, &damaged).unwrap();
    let read = exchange(server.addr, &get_bytes(&format!("/v1/games/{id}"))).await;
    assert_eq!(read.status, 503, "{}", read.text());
    assert_eq!(read.json()["error"]["code"], "store_unavailable");
    assert_eq!(read.header("retry-after"), Some("1"));
    let ready = exchange(server.addr, &get_bytes("/readyz")).await;
    assert_eq!(
        (ready.status, ready.json()),
        (503, json!({"status": "store_unavailable"}))
    );
    let moved = server
        .post(
            &format!("/v1/games/{id}/moves"),
            &json!({"from": [0, 1], "to": [2, 1]}),
        )
        .await;
    assert_eq!(moved.status, 503, "{}", moved.text());

    // Whole again: the probes open it again, with no restart.
    std::fs::write(&path, &bytes).unwrap();
    let started = Instant::now();
    while exchange(server.addr, &get_bytes("/readyz")).await.status != 200 {
        assert!(started.elapsed() < LIMIT, "/readyz never turned 200 again");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let moved = server
        .post(
            &format!("/v1/games/{id}/moves"),
            &json!({"from": [0, 1], "to": [2, 1]}),
        )
        .await;
    assert_eq!(moved.status, 200, "{}", moved.text());
    assert_eq!(moved.json()["version"], 2);
    let metrics = exchange(server.addr, &get_bytes("/metrics")).await;
    assert!(
        metrics
            .text()
            .lines()
            .any(|l| l == "linkpath_store_reopens_total 1"),
        "{}",
        metrics.text()
    );
    server.terminate();
    assert_eq!(server.exit_code().await, Some(0));
}
