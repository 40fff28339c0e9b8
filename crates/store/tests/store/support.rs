//! What the cases share: opening a store of either backend in a folder of
//! its own, games and writes in a line each, and `on_both!`, which runs a
//! case on each backend as a test of its own.

use std::path::Path;
use std::time::Duration;

use linkpath_store::{Expected, Kept, Store, StoreError, StoreLimits, StoredGame, Write};
use tempfile::TempDir;

/// The time the cases run at, and when their games expire unless a case
/// says otherwise.
pub const NOW: u64 = 1_700_000_000_000;
pub const LATER: u64 = NOW + 3_600_000;

#[derive(Debug, Clone, Copy)]
pub enum Backend {
    Memory,
    File,
}

/// Runs each case, an `async fn(Backend)` of the module, on each backend:
/// `case::memory` and `case::file`.
macro_rules! on_both {
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
        }
    )+};
}

/// A store of `backend`, in a folder removed when the `TempDir` drops.
pub fn open(backend: Backend, max_games: u64) -> (Store, TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = match backend {
        Backend::Memory => open_spec("memory", max_games),
        Backend::File => open_file(&dir.path().join("games.redb"), max_games),
    };
    (store.unwrap(), dir)
}

pub fn open_file(path: &Path, max_games: u64) -> Result<Store, StoreError> {
    open_spec(&format!("file:{}", path.display()), max_games)
}

fn open_spec(setting: &str, max_games: u64) -> Result<Store, StoreError> {
    let limits = StoreLimits {
        max_games,
        timeout: Duration::from_secs(30),
    };
    Store::open(&setting.parse().unwrap(), limits)
}

pub fn game(version: u64, body: &str) -> StoredGame {
    StoredGame {
        version,
        expires_at_ms: LATER,
        body: body.as_bytes().to_vec(),
    }
}

/// Creates `id`.
pub fn create(id: &str, body: &str) -> Write {
    Write {
        id: id.to_owned(),
        expected: Expected::Absent,
        game: game(0, body),
        key: None,
    }
}

/// Moves `id` from version `from` to the next.
pub fn next(id: &str, from: u64, body: &str) -> Write {
    Write {
        id: id.to_owned(),
        expected: Expected::Version(from),
        game: game(from + 1, body),
        key: None,
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

pub fn kept(answer: &str) -> Kept {
    Kept {
        fingerprint: format!("fingerprint of {answer}").into_bytes(),
        answer: answer.as_bytes().to_vec(),
        expires_at_ms: LATER,
    }
}
