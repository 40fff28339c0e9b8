//! An I/O error fails the writes it hits and no more: a process holds
//! its file store under a file-size limit (`RLIMIT_FSIZE`, with SIGXFSZ
//! caught, so that a write past it fails with EFBIG as on a full disk),
//! creates games until a write fails, then lifts the limit. The same
//! store takes the failed write again, and the file, reopened, holds
//! every write acknowledged and not the one that failed.
//!
//! The limit is the whole process's, so the case runs in this test
//! binary run again with `FAULT_DIR` set, running only `fault::faulty`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use linkpath_store::{Outcome, Store, StoreError};
use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
use tokio::signal::unix::{SignalKind, signal};

use crate::support::{NOW, create, open_file};

/// Set, it names the folder `fault::faulty` keeps its store in.
const FAULT_DIR: &str = "LINKPATH_STORE_FAULT_DIR";
/// Past it, games are too many for the file to hold under the limit.
const MAX_GAMES: u64 = 100_000;
/// How long the store may take to come back once the limit is lifted: it
/// opens the file again at most once a second.
const BACK_WITHIN: Duration = Duration::from_secs(30);

#[test]
fn an_io_error_fails_its_writes_and_the_store_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "fault::faulty",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(FAULT_DIR, dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("back after the fault"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The faulty process: without `FAULT_DIR` (a plain test run) it does
/// nothing.
#[test]
fn faulty() {
    let Some(dir) = std::env::var_os(FAULT_DIR) else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(fault(Path::new(&dir)));
    println!("back after the fault");
}

async fn fault(dir: &Path) {
    // Caught, SIGXFSZ leaves the write past the limit failing with EFBIG
    // instead of ending the process.
    let _caught = signal(SignalKind::from_raw(25)).unwrap();
    let path = dir.join("games.redb");
    let store = open_file(&path, MAX_GAMES).unwrap();
    // Bodies big enough that the file soon needs to grow.
    let body = "x".repeat(4096);
    let write = |n: usize| create(&format!("g{n}"), &body);
    assert_eq!(store.write(write(0), NOW).await, Ok(Outcome::Written));

    let hard = getrlimit(Resource::Fsize).maximum;
    let size = std::fs::metadata(&path).unwrap().len();
    let limit = |soft| Rlimit {
        current: soft,
        maximum: hard,
    };
    setrlimit(Resource::Fsize, limit(Some(size + 1))).unwrap();
    let mut created = 1;
    let failed = loop {
        assert!(created < MAX_GAMES as usize, "the file never grew");
        match store.write(write(created), NOW).await {
            Ok(outcome) => assert_eq!(outcome, Outcome::Written),
            Err(err) => break err,
        }
        created += 1;
    };
    assert!(
        matches!(&failed, StoreError::Io(cause) if cause.contains("File too large")),
        "{failed:?}"
    );
    // Until the file is open again, a call fails or answers as of the
    // last commit.
    let read = store.game(&format!("g{created}"), NOW).await;
    assert!(
        matches!(
            read,
            Ok(None) | Err(StoreError::Io(_) | StoreError::Unavailable(_))
        ),
        "{read:?}"
    );

    setrlimit(Resource::Fsize, limit(hard)).unwrap();
    let deadline = Instant::now() + BACK_WITHIN;
    loop {
        match store.write(write(created), NOW).await {
            Ok(outcome) => {
                assert_eq!(outcome, Outcome::Written);
                break;
            }
            Err(StoreError::Io(_) | StoreError::Unavailable(_)) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(err) => panic!("the store did not come back: {err:?}"),
        }
    }
    created += 1;
    assert!(store.reopens() > 0);
    assert_stored(&store, created, &body).await;
    drop(store);
    assert_stored(&open_file(&path, MAX_GAMES).unwrap(), created, &body).await;
}

/// `g0` to `g{created - 1}` are stored, each once.
async fn assert_stored(store: &Store, created: usize, body: &str) {
    assert_eq!(store.games().await, Ok(created as u64));
    for n in 0..created {
        let game = store.game(&format!("g{n}"), NOW).await.unwrap();
        assert_eq!(game.map(|g| g.body), Some(body.as_bytes().to_vec()), "g{n}");
    }
}
