//! How many durable writes a second the file store takes, with one writer
//! and with many at once: each writer moves a game of its own on, one
//! write after another, each acknowledged only once on disk. With one
//! writer every write waits for its own fsync; with many, the writer
//! thread commits those waiting together, one fsync a batch.
//!
//! `cargo run --release -p linkpath-store --example throughput [WRITERS...]`
//! (1 and 64 by default). The file goes in a fresh folder under the
//! system's temporary folder, so the figures are those of that disk.
//! `LINKPATH_STORE=redis://127.0.0.1:PORT` makes the same writes to that
//! Redis instead, each run's keys under a prefix of its own.

use std::sync::Arc;
use std::time::{Duration, Instant};

use linkpath_store::{Expected, Outcome, Store, StoreLimits, StoreSpec, StoredGame, Write};

/// How long each run writes.
const RUN_FOR: Duration = Duration::from_secs(3);
/// A game's size on the wire is a few hundred bytes to a few KiB.
const BODY_BYTES: usize = 1024;

#[tokio::main]
async fn main() {
    let writers: Vec<usize> = std::env::args()
        .skip(1)
        .map(|arg| arg.parse().expect("each argument is a number of writers"))
        .collect();
    let writers = if writers.is_empty() {
        vec![1, 64]
    } else {
        writers
    };
    for count in writers {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let spec = match std::env::var("LINKPATH_STORE") {
            Ok(redis) => format!("{redis}?prefix=throughput-{}-{count}", std::process::id())
                .parse()
                .expect("LINKPATH_STORE is a Redis URL without options"),
            Err(_) => StoreSpec::File(dir.path().join("games.redb")),
        };
        let limits = StoreLimits {
            max_games: count as u64,
            max_keys_per_game: 1,
            max_kept_bytes: 1,
            max_boards: 1,
            board_size: 1,
            max_players: 1,
            max_games_per_player: 1,
            max_matches: 10,
            timeout: Duration::from_secs(10),
            keep_unarchived: false,
            feed_heartbeat: linkpath_store::FEED_HEARTBEAT,
        };
        let store = Arc::new(Store::open(&spec, limits).expect("the store opens"));
        let started = Instant::now();
        let runs: Vec<_> = (0..count)
            .map(|writer| tokio::spawn(write_for(Arc::clone(&store), writer, started + RUN_FOR)))
            .collect();
        let mut writes = 0;
        for run in runs {
            writes += run.await.expect("a writer finishes");
        }
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{count:>3} writer(s): {:>6.0} durable writes/s ({writes} in {seconds:.1} s)",
            writes as f64 / seconds
        );
    }
}

/// Creates a game and moves it on until `deadline`; returns the writes.
async fn write_for(store: Arc<Store>, writer: usize, deadline: Instant) -> u64 {
    let id = format!("game-{writer}");
    let mut expected = Expected::Absent;
    let mut version = 0;
    while Instant::now() < deadline {
        let write = Write {
            id: id.clone(),
            expected,
            game: StoredGame {
                version,
                expires_at_ms: u64::MAX,
                body: vec![b'x'; BODY_BYTES],
            },
            key: None,
            entry: None,
            owner: None,
            log: Vec::new(),
            finished: false,
        };
        let now_ms = 0;
        assert_eq!(store.write(write, now_ms).await, Ok(Outcome::Written));
        expected = Expected::Version(version);
        version += 1;
    }
    version
}
