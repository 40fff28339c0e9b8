//! What the archive's hand-over costs the store when the archive is far
//! behind: GAMES finished games, all expired and marked, in a store that
//! keeps marked games. The purge holds them (each once), a second purge
//! passes them by, the archiver lists and clears the marks a batch at a
//! time, and a last purge deletes them all. Each step's time is printed.
//!
//! `cargo run --release -p linkpath-store --example held [GAMES]` (10,000
//! by default), on a file in a fresh folder under the system's temporary
//! folder; `LINKPATH_STORE=redis://127.0.0.1:PORT` runs it on that Redis,
//! under a prefix of its own (deleted at the end by the last purge).

use std::time::{Duration, Instant};

use linkpath_store::{
    Expected, MAX_ARCHIVE_BATCH, Outcome, Store, StoreLimits, StoreSpec, StoredGame, Write,
};

/// When the games are written, and when they have expired.
const NOW: u64 = 1_700_000_000_000;
const EXPIRED: u64 = NOW + 1_000;

#[tokio::main]
async fn main() {
    let games: usize = std::env::args()
        .nth(1)
        .map_or(10_000, |arg| arg.parse().expect("GAMES is a number"));
    let dir = tempfile::tempdir().expect("a temporary folder");
    let spec: StoreSpec = match std::env::var("LINKPATH_STORE") {
        Ok(redis) => format!("{redis}?prefix=held-{}", std::process::id())
            .parse()
            .expect("LINKPATH_STORE is a Redis URL without options"),
        Err(_) => StoreSpec::File(dir.path().join("games.redb")),
    };
    let limits = StoreLimits {
        max_games: games as u64,
        max_keys_per_game: 1,
        max_kept_bytes: 1 << 20,
        max_boards: 1,
        board_size: 1,
        max_players: 1,
        max_games_per_player: 1,
        max_matches: 1,
        timeout: Duration::from_secs(60),
        keep_unarchived: true,
        feed_heartbeat: linkpath_store::FEED_HEARTBEAT,
    };
    let store = Store::open(&spec, limits).expect("the store opens");
    let started = Instant::now();
    for n in 0..games {
        let write = Write {
            id: format!("g{n:08}"),
            expected: Expected::Absent,
            game: StoredGame {
                version: 0,
                expires_at_ms: NOW + 1,
                body: vec![b'.'; 512],
            },
            key: None,
            entry: None,
            owner: None,
            log: vec![vec![b'.'; 64]],
            finished: true,
        };
        assert_eq!(store.write(write, NOW).await, Ok(Outcome::Written));
    }
    report(&format!("{games} finishing writes, one at a time"), started);

    let started = Instant::now();
    let purged = store.purge_expired(EXPIRED).await.expect("a purge");
    assert_eq!((purged.games, purged.held), (0, games));
    report("the purge that holds them all", started);
    let started = Instant::now();
    let purged = store.purge_expired(EXPIRED).await.expect("a purge");
    assert_eq!((purged.games, purged.held), (0, 0));
    report("a purge that passes them by", started);

    let started = Instant::now();
    let mut cleared = 0;
    loop {
        let marks = store
            .unarchived(MAX_ARCHIVE_BATCH, EXPIRED)
            .await
            .expect("the marks read");
        if marks.is_empty() {
            break;
        }
        let ids: Vec<String> = marks.into_iter().map(|mark| mark.id).collect();
        cleared += store.archived(&ids, EXPIRED).await.expect("marks clear");
    }
    assert_eq!(cleared, games);
    report(
        &format!("listing and clearing the marks, {MAX_ARCHIVE_BATCH} a call"),
        started,
    );

    let started = Instant::now();
    let purged = store.purge_expired(EXPIRED).await.expect("a purge");
    assert_eq!((purged.games, purged.held), (games, 0));
    report("the purge that deletes them", started);
    assert_eq!(store.games().await, Ok(0));
}

fn report(what: &str, started: Instant) {
    println!("{what}: {:.0} ms", started.elapsed().as_secs_f64() * 1e3);
}
