//! What the cases share: opening a store of any backend in a place of its
//! own (a folder, or a key prefix in the test Redis), games and writes in
//! a line each, and `on_each!`, which runs a case on each backend as a
//! test of its own.

use std::io::Write as _;
use std::path::Path;
use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use linkpath_store::{Entry, Expected, Kept, Store, StoreError, StoreLimits, StoredGame, Write};
use tempfile::TempDir;

/// The time the cases run at, and when their games expire unless a case
/// says otherwise.
pub const NOW: u64 = 1_700_000_000_000;
pub const LATER: u64 = NOW + 3_600_000;

/// The Redis server the Redis cases run against, as a `redis://` URL;
/// unset, they are left out.
pub const TEST_REDIS_URL: &str = "LINKPATH_TEST_REDIS_URL";

#[derive(Debug, Clone, Copy)]
pub enum Backend {
    Memory,
    File,
    Redis,
}

/// Runs each case, an `async fn(Backend)` of the module, on each backend:
/// `case::memory`, `case::file` and `case::redis`. The Redis test passes
/// without running the case when no test Redis is named.
macro_rules! on_each {
    ($($case:ident),+ $(,)?) => {$(
        mod $case {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn memory() {
                super::$case(crate::support::Backend::Memory).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn file() {
                super::$case(crate::support::Backend::File).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn redis() {
                if crate::support::test_redis().is_some() {
                    super::$case(crate::support::Backend::Redis).await
                }
            }
        }
    )+};
}

/// A store of `backend`, in a folder removed when the `TempDir` drops, or
/// under a key prefix of its own in the test Redis.
pub fn open(backend: Backend, max_games: u64) -> (Store, TempDir) {
    open_with(backend, limits(max_games))
}

/// A store of `backend` with these bounds, as [`open`] opens it.
pub fn open_with(backend: Backend, limits: StoreLimits) -> (Store, TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let setting = match backend {
        Backend::Memory => "memory".to_owned(),
        Backend::File => format!("file:{}", dir.path().join("games.redb").display()),
        Backend::Redis => fresh_redis_store(),
    };
    (Store::open(&setting.parse().unwrap(), limits).unwrap(), dir)
}

/// The bounds of a store of `max_games` games, as many boards, of 3
/// entries each.
pub fn limits(max_games: u64) -> StoreLimits {
    StoreLimits {
        max_games,
        max_keys_per_game: 1_000,
        max_kept_bytes: 1 << 30,
        max_boards: max_games,
        board_size: 3,
        timeout: Duration::from_secs(30),
    }
}

/// The test Redis's URL, if one is named; if not, says once, on the
/// terminal rather than in a test's captured output, how to name one.
pub fn test_redis() -> Option<String> {
    static LEFT_OUT: Once = Once::new();
    let url = std::env::var(TEST_REDIS_URL)
        .ok()
        .filter(|url| !url.is_empty());
    if url.is_none() {
        LEFT_OUT.call_once(|| {
            let _ = writeln!(
                std::io::stderr(),
                "linkpath-store: the Redis cases were left out, as {TEST_REDIS_URL} is unset; \
                 to run them: redis-server --port 6390 --save '' --appendonly no & \
                 {TEST_REDIS_URL}=redis://127.0.0.1:6390 cargo test"
            );
        });
    }
    url
}

/// A store setting for the test Redis under a prefix no other store of
/// this run or of another process uses, so cases share the server apart.
pub fn fresh_redis_store() -> String {
    let url = test_redis().expect("a test Redis is named");
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}prefix={}", fresh_prefix())
}

/// A key prefix no other store of this run or of another process uses.
pub fn fresh_prefix() -> String {
    static STORES: AtomicU64 = AtomicU64::new(0);
    let store = STORES.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("linkpath-test:{}-{nanos}-{store}", std::process::id())
}

pub fn open_file(path: &Path, max_games: u64) -> Result<Store, StoreError> {
    open_spec(&format!("file:{}", path.display()), max_games)
}

pub fn open_spec(setting: &str, max_games: u64) -> Result<Store, StoreError> {
    Store::open(&setting.parse().unwrap(), limits(max_games))
}

pub fn game(version: u64, body: &str) -> StoredGame {
    StoredGame {
        version,
        expires_at_ms: LATER,
        body: body.as_bytes().to_vec(),
    }
}

/// The log entry [`create`] and [`next`] append for `version`: the body
/// in capitals, so that a search of a file for the body finds the game.
pub fn entry(version: u64, body: &str) -> Vec<u8> {
    format!("{version}: {}", body.to_uppercase()).into_bytes()
}

/// Creates `id`.
pub fn create(id: &str, body: &str) -> Write {
    Write {
        id: id.to_owned(),
        expected: Expected::Absent,
        game: game(0, body),
        key: None,
        entry: None,
        log: vec![entry(0, body)],
    }
}

/// Moves `id` from version `from` to the next.
pub fn next(id: &str, from: u64, body: &str) -> Write {
    Write {
        id: id.to_owned(),
        expected: Expected::Version(from),
        game: game(from + 1, body),
        key: None,
        entry: None,
        log: vec![entry(from + 1, body)],
    }
}

/// `write`, keeping `answer` under `key`.
pub fn keyed(write: Write, key: &str, answer: &str) -> Write {
    Write {
        key: Some((key.to_owned(), kept(answer))),
        ..write
    }
}

/// `write`, its game (and key, if any) expiring at `expires_at_ms`.
pub fn expiring(mut write: Write, expires_at_ms: u64) -> Write {
    write.game.expires_at_ms = expires_at_ms;
    if let Some((_, kept)) = &mut write.key {
        kept.expires_at_ms = expires_at_ms;
    }
    write
}

/// `write`, entering its game on `board` at `rank` (the entry's body is
/// `rank` too), the board lasting until `expires_at_ms`.
pub fn won(write: Write, board: &str, rank: &str, expires_at_ms: u64) -> Write {
    Write {
        entry: Some(Entry {
            board: board.to_owned(),
            rank: rank.to_owned(),
            body: rank.as_bytes().to_vec(),
            expires_at_ms,
        }),
        ..write
    }
}

pub fn kept(answer: &str) -> Kept {
    Kept {
        fingerprint: format!("fingerprint of {answer}").into_bytes(),
        answer: answer.as_bytes().to_vec(),
        expires_at_ms: LATER,
    }
}
