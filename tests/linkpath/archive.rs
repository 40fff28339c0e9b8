//! The archive in the real process: with the archive away (a PostgreSQL
//! on a closed port) a won game waits in the store, the lag grows and
//! games go on; the server killed (SIGKILL) before any copy, and started
//! again on the same store with a file archive, copies the game by
//! itself, exactly once.

use crate::support::*;
use linkpath_archive::{Archive, ArchiveLimits, ArchiveSpec, Filter};
use serde_json::json;
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

/// The value of the series `name` (no labels, or the labels written as
/// in the exposition) in the server's `/metrics`.
async fn metric(addr: SocketAddr, name: &str) -> Option<f64> {
    let reply = exchange(addr, &get_bytes("/metrics")).await;
    let text = String::from_utf8_lossy(&reply.body).into_owned();
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|value| value.trim().parse().ok())
}

/// Waits until the series `name` reads what `wanted` accepts.
async fn wait_for(server: &Process, name: &str, wanted: impl Fn(f64) -> bool) -> f64 {
    let started = Instant::now();
    loop {
        if let Some(value) = metric(server.addr, name).await.filter(|v| wanted(*v)) {
            return value;
        }
        assert!(
            started.elapsed() < LIMIT,
            "{name} never came; log in {}",
            server.log.display()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A two-pair game won in two moves: its id.
async fn won_game(server: &Process) -> String {
    let board = json!({"board": ["A.A", "B.B"], "rules": "lianliankan"});
    let made = server.post("/v1/games", &board).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let id = made.json()["id"].as_str().expect("an id").to_owned();
    for step in [
        json!({"from": [0, 0], "to": [2, 0]}),
        json!({"from": [0, 1], "to": [2, 1]}),
    ] {
        let moved = server.post(&format!("/v1/games/{id}/moves"), &step).await;
        assert_eq!(moved.status, 200, "{}", moved.text());
    }
    id
}

#[tokio::test]
async fn a_game_won_before_a_sigkill_is_archived_once_after_the_restart() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("archive-sigkill");
    let _ = std::fs::remove_dir_all(&dir);
    let store = format!("file:{}", dir.join("games.redb").display());
    let closed = free_addr();
    let away = format!("postgres://linkpath@{closed}/linkpath");
    let mut server = Process::serve(
        "archive-away",
        &[
            "--store",
            &store,
            "--archive",
            &away,
            "--archive-timeout-ms",
            "500",
        ],
    )
    .await;
    let id = won_game(&server).await;
    wait_for(&server, "linkpath_archive_pending", |v| v == 1.0).await;
    // The lag grows while the archive is away, and games go on.
    wait_for(&server, "linkpath_archive_lag_seconds", |v| v >= 2.0).await;
    won_game(&server).await;
    wait_for(&server, "linkpath_archive_pending", |v| v == 2.0).await;
    assert_eq!(
        metric(server.addr, "linkpath_archived_games").await,
        Some(0.0)
    );
    server.child.0.kill().expect("SIGKILL");
    server.child.0.wait().expect("the server is gone");

    let archive_file = dir.join("archive.redb");
    let archive = format!("file:{}", archive_file.display());
    let mut restarted = Process::serve(
        "archive-restarted",
        &["--store", &store, "--archive", &archive],
    )
    .await;
    wait_for(&restarted, "linkpath_archive_pending", |v| v == 0.0).await;
    wait_for(&restarted, "linkpath_archived_games", |v| v == 2.0).await;
    assert_eq!(
        metric(restarted.addr, "linkpath_archive_lag_seconds").await,
        Some(0.0)
    );
    restarted.terminate();
    assert_eq!(restarted.exit_code().await, Some(0));

    // The server gone, its archive file is free: exactly one copy of each.
    let archive = Archive::open(&ArchiveSpec::File(archive_file), ArchiveLimits::default())
        .await
        .expect("the archive opens");
    let games = archive
        .page(&Filter::default(), None, 10)
        .await
        .expect("a page");
    assert_eq!(games.len(), 2);
    let copy = games.iter().find(|game| game.id == id).expect("archived");
    assert_eq!(
        (copy.status.as_str(), copy.player.as_deref()),
        ("won", None)
    );
}
