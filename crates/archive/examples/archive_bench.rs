//! How fast the archive takes and gives games, for `bench/archive.sh`:
//!
//! - `insert SPEC SECONDS`: one writer, as the server's archiver is,
//!   inserting batches of 100 games (records of about 2 KiB, players
//!   cycling through 1,000) one after another, each acknowledged durable
//!   before the next; prints games a second.
//! - `fill SPEC PLAYER COUNT`: archives COUNT games of PLAYER, one in
//!   eight of another player's between them, in batches of 1,000.
//! - `export SPEC PLAYER [MAX]`: streams PLAYER's games newest first
//!   (at most MAX), writing each record as an NDJSON line to nowhere;
//!   prints games and bytes a second. Its peak RSS, measured from outside
//!   (`/usr/bin/time -f %M`), is what an export costs in memory.
//!
//! SPEC is an archive setting: `file:PATH` or `postgres://...`.
//!
//! `cargo run --release -p linkpath-archive --example archive_bench -- insert file:/tmp/a.redb 10`

use std::io::Write;
use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use linkpath_archive::{Archive, ArchiveLimits, ArchiveSpec, ArchivedGame, Filter};

// The allocator of the service binary (src/main.rs), so that the RSS
// measured is the one the server would have.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// A record's size: settings, the dealt board and a few hundred actions
/// with their times come to a few KiB of JSON.
const BODY_BYTES: usize = 2048;
/// When the games finish: from 2026-12-06, one a second.
const START_MS: u64 = 1_796_515_200_000;

fn usage() -> ! {
    eprintln!(
        "usage: archive_bench insert SPEC SECONDS | fill SPEC PLAYER COUNT | export SPEC PLAYER [MAX]"
    );
    std::process::exit(2)
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(mode), Some(spec)) = (args.first(), args.get(1)) else {
        usage()
    };
    let spec: ArchiveSpec = spec.parse().unwrap_or_else(|err| {
        eprintln!("{err}");
        std::process::exit(2)
    });
    let number = |at: usize| -> u64 {
        args.get(at)
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| usage())
    };
    let limits = ArchiveLimits {
        timeout: Duration::from_secs(60),
        ..ArchiveLimits::default()
    };
    let archive = Archive::open(&spec, limits)
        .await
        .unwrap_or_else(|err| panic!("cannot open {spec}: {err}"));
    match mode.as_str() {
        "insert" => insert(&archive, Duration::from_secs(number(2))).await,
        "fill" => {
            let player = args.get(2).unwrap_or_else(|| usage());
            fill(&archive, player, number(3)).await;
        }
        "export" => {
            let player = args.get(2).unwrap_or_else(|| usage()).clone();
            let max = args.get(3).map(|_| number(3));
            export(&archive, player, max).await;
        }
        _ => usage(),
    }
}

fn record(id: &str) -> Vec<u8> {
    let head = format!("{{\"id\":\"{id}\",\"actions\":\"");
    let mut body = head.into_bytes();
    body.resize(BODY_BYTES - 2, b'x');
    body.extend_from_slice(b"\"}");
    body
}

fn game(id: String, player: String, finished_ms: u64) -> ArchivedGame {
    ArchivedGame {
        body: record(&id),
        player_name: Some(format!("name of {player}")),
        player: Some(player),
        leaderboard: None,
        match_id: None,
        status: "won".to_owned(),
        rated: false,
        created_ms: finished_ms - 60_000,
        finished_ms,
        id,
    }
}

async fn insert(archive: &Archive, run_for: Duration) {
    // Ids of this run's own, so that a run on an archive used before
    // inserts as many games.
    let run = std::process::id();
    let started = Instant::now();
    let mut games = 0u64;
    let mut batches = 0u64;
    while started.elapsed() < run_for {
        let batch: Vec<ArchivedGame> = (0..100)
            .map(|n| {
                let serial = games + n;
                let player = format!("p{}", serial % 1000);
                game(format!("r{run}-{serial}"), player, START_MS + serial * 1000)
            })
            .collect();
        let inserted = archive.insert(&batch).await.expect("an insert");
        assert_eq!(inserted, 100, "every game is new");
        games += inserted;
        batches += 1;
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "inserted {games} games in {batches} batches of 100 in {seconds:.2} s: {:.0} games/s, \
         {:.1} ms a batch",
        games as f64 / seconds,
        seconds * 1000.0 / batches as f64
    );
}

async fn fill(archive: &Archive, player: &str, count: u64) {
    let started = Instant::now();
    let mut serial = 0u64;
    let mut mine = 0u64;
    while mine < count {
        let mut batch = Vec::with_capacity(1000);
        while batch.len() < 1000 && mine < count {
            let owner = if serial % 8 == 7 {
                format!("other{}", serial % 100)
            } else {
                mine += 1;
                player.to_owned()
            };
            batch.push(game(format!("f{serial}"), owner, START_MS + serial * 1000));
            serial += 1;
        }
        archive.insert(&batch).await.expect("an insert");
    }
    println!(
        "archived {mine} games of {player} and {} of others in {:.1} s",
        serial - mine,
        started.elapsed().as_secs_f64()
    );
}

async fn export(archive: &Archive, player: String, max: Option<u64>) {
    let filter = Filter {
        player: Some(player.clone()),
        max,
        ..Filter::default()
    };
    let started = Instant::now();
    let mut out = std::io::BufWriter::new(std::io::sink());
    let mut games = 0u64;
    let mut bytes = 0u64;
    let mut last: Option<(u64, String)> = None;
    let mut stream = Box::pin(archive.export(filter));
    while let Some(game) = stream.try_next().await.expect("the export") {
        // Newest first, each once.
        let key = (game.finished_ms, game.id.clone());
        assert!(last.as_ref().is_none_or(|last| key < *last), "out of order");
        last = Some(key);
        out.write_all(&game.body).expect("a write to nowhere");
        out.write_all(b"\n").expect("a write to nowhere");
        games += 1;
        bytes += game.body.len() as u64 + 1;
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "exported {games} games of {player} ({:.1} MiB) in {seconds:.2} s: {:.0} games/s",
        bytes as f64 / (1024.0 * 1024.0),
        games as f64 / seconds
    );
}
