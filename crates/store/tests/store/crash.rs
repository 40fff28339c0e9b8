//! A write the file store acknowledged is on disk: a real process writes
//! and prints each acknowledged version, is killed with SIGKILL in the
//! middle of its writes, and the file, reopened, holds every version it
//! printed, and the mark for the archive of every game whose finishing
//! write (its version 1) it printed.
//!
//! The writing process is this test binary run again with
//! `WRITER_FILE` set, running only `crash::writer`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use linkpath_store::Outcome;

use crate::support::{NOW, create, next, open_file};

/// Set, it names the file `crash::writer` writes to.
const WRITER_FILE: &str = "LINKPATH_STORE_CRASH_WRITER_FILE";
/// Games written at once, each by a task of its own.
const GAMES: usize = 8;
/// Acknowledged writes seen before the kill.
const KILL_AFTER: usize = 400;
/// How long the writer writes before stopping by itself, and how long the
/// test waits for its acknowledgements.
const RUN_FOR: Duration = Duration::from_secs(60);

#[test]
fn acknowledged_writes_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.redb");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "crash::writer",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WRITER_FILE, &path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();

    // Lines are read on a thread of their own so that the wait is bounded.
    let (lines, acks) = mpsc::channel();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                return;
            }
        }
    });
    let deadline = Instant::now() + RUN_FOR;
    let mut acked: HashMap<String, u64> = HashMap::new();
    let mut seen = 0;
    while seen < KILL_AFTER {
        let Ok(line) = acks.recv_timeout(deadline.saturating_duration_since(Instant::now())) else {
            break;
        };
        let Some((id, version)) = line
            .strip_prefix("acked ")
            .and_then(|ack| ack.split_once(' '))
        else {
            continue;
        };
        acked.insert(id.to_owned(), version.parse().unwrap());
        seen += 1;
    }
    // SIGKILL: no destructor, no flush, whatever the writer was doing.
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(seen, KILL_AFTER, "the writer stopped early");
    assert_eq!(acked.len(), GAMES);

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let store = open_file(&path, GAMES as u64).unwrap();
    runtime.block_on(async {
        assert_eq!(store.games().await, Ok(GAMES as u64));
        for (id, version) in &acked {
            let stored = store.game(id, NOW).await.unwrap().unwrap();
            assert!(
                stored.version >= *version,
                "{id}: version {version} was acknowledged, {} is stored",
                stored.version
            );
            assert_eq!(stored.body, stored.version.to_string().into_bytes());
        }
        // A game acknowledged at version 0 alone may have been finished
        // unacknowledged: marked or not, it is one of the writer's.
        let marks = store.unarchived(GAMES, u64::MAX).await.unwrap();
        for (id, version) in &acked {
            let marked = marks.iter().any(|mark| &mark.id == id);
            assert!(marked || *version == 0, "{id}: finished, and not marked");
        }
        assert!(marks.iter().all(|mark| acked.contains_key(&mark.id)));
    });
}

/// The writing process: without `WRITER_FILE` (a plain test run) it does
/// nothing.
#[test]
fn writer() {
    let Some(path) = std::env::var_os(WRITER_FILE) else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(write_until_killed(Path::new(&path)));
}

/// Moves `GAMES` games on, each in a task, printing each version once the
/// store has acknowledged it, until `RUN_FOR` has passed.
async fn write_until_killed(path: &Path) {
    let store = Arc::new(open_file(path, GAMES as u64).unwrap());
    let deadline = Instant::now() + RUN_FOR;
    let tasks: Vec<_> = (0..GAMES)
        .map(|game| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                let id = format!("g{game}");
                let mut write = create(&id, "0");
                let mut version = 0;
                while Instant::now() < deadline {
                    assert_eq!(store.write(write, NOW).await, Ok(Outcome::Written));
                    let mut stdout = std::io::stdout().lock();
                    writeln!(stdout, "acked {id} {version}").unwrap();
                    stdout.flush().unwrap();
                    write = next(&id, version, &(version + 1).to_string());
                    // Version 1 ends the game: its write marks it.
                    write.finished = version == 0;
                    version += 1;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
}
