//! What the cases share: opening a store of any backend in a place of its
//! own (a folder, or a key prefix in the test Redis), games and writes in
//! a line each, and `on_each!`, which runs a case on each backend as a
//! test of its own.

use std::path::Path;
use std::time::Duration;

use linkpath_store::{
    Entry, Expected, Kept, PlayerWrite, Store, StoreError, StoreLimits, StoredGame, StoredPlayer,
    Write,
};
use tempfile::TempDir;

pub use linkpath_testkit::redis::RedisPrefix;

/// The time the cases run at, and when their games expire unless a case
/// says otherwise.
pub const NOW: u64 = 1_700_000_000_000;
pub const LATER: u64 = NOW + 3_600_000;

#[derive(Debug, Clone, Copy)]
pub enum Backend {
    Memory,
    File,
    Redis,
}

/// Runs each case, an `async fn(Backend)` of the module, on each backend:
/// `case::memory`, `case::file` and `case::redis`. The Redis test is
/// ignored unless asked for (`cargo test -- --ignored`, with a test Redis
/// named: see `linkpath_testkit::redis`).
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
            #[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
            async fn redis() {
                super::$case(crate::support::Backend::Redis).await
            }
        }
    )+};
}

/// Where a store of a case keeps its records, removed when it drops: a
/// folder, and for Redis a key prefix of its own.
pub struct Scratch {
    _dir: TempDir,
    _redis: Option<RedisPrefix>,
}

impl From<TempDir> for Scratch {
    fn from(dir: TempDir) -> Scratch {
        Scratch {
            _dir: dir,
            _redis: None,
        }
    }
}

/// A store of `backend`, in a folder, or under a key prefix of its own in
/// the test Redis, both removed when the [`Scratch`] drops.
pub fn open(backend: Backend, max_games: u64) -> (Store, Scratch) {
    open_with(backend, limits(max_games))
}

/// A store of `backend` with these bounds, as [`open`] opens it.
pub fn open_with(backend: Backend, limits: StoreLimits) -> (Store, Scratch) {
    let dir = tempfile::tempdir().unwrap();
    let mut redis = None;
    let setting = match backend {
        Backend::Memory => "memory".to_owned(),
        Backend::File => format!("file:{}", dir.path().join("games.redb").display()),
        Backend::Redis => redis.insert(fresh_redis_store()).setting(),
    };
    let store = Store::open(&setting.parse().unwrap(), limits).unwrap();
    (
        store,
        Scratch {
            _dir: dir,
            _redis: redis,
        },
    )
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
        max_players: max_games,
        max_games_per_player: max_games,
        max_matches: max_games,
        timeout: Duration::from_secs(30),
        keep_unarchived: false,
        feed_heartbeat: linkpath_store::FEED_HEARTBEAT,
    }
}

/// A prefix of the test Redis of its own, its keys deleted when it drops.
pub fn fresh_redis_store() -> RedisPrefix {
    RedisPrefix::fresh("store")
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
        owner: None,
        log: vec![entry(0, body)],
        finished: false,
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
        owner: None,
        log: vec![entry(from + 1, body)],
        finished: false,
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
/// `rank` too), the board lasting until `expires_at_ms`; the entry's
/// player is the game, so that each game has an entry of its own.
pub fn won(write: Write, board: &str, rank: &str, expires_at_ms: u64) -> Write {
    let player = write.id.clone();
    won_by(write, &player, board, rank, expires_at_ms)
}

/// [`won`], the entry `player`'s.
pub fn won_by(write: Write, player: &str, board: &str, rank: &str, expires_at_ms: u64) -> Write {
    Write {
        entry: Some(Entry {
            board: board.to_owned(),
            player: player.to_owned(),
            rank: rank.to_owned(),
            body: rank.as_bytes().to_vec(),
            expires_at_ms,
        }),
        ..write
    }
}

/// `write`, a create, listing its game among `owner`'s.
pub fn owned_by(write: Write, owner: &str) -> Write {
    Write {
        owner: Some(owner.to_owned()),
        ..write
    }
}

/// The hash of token number `n`: 32 bytes, as SHA-256's.
pub fn token(n: u8) -> Vec<u8> {
    vec![n; 32]
}

/// A player at `version` with this body and token number, expiring
/// [`LATER`].
pub fn player(version: u64, body: &str, token_number: Option<u8>) -> StoredPlayer {
    StoredPlayer {
        version,
        expires_at_ms: LATER,
        token: token_number.map(token),
        body: body.as_bytes().to_vec(),
    }
}

/// Creates the player `id`.
pub fn join(id: &str, body: &str, token_number: Option<u8>) -> PlayerWrite {
    PlayerWrite {
        id: id.to_owned(),
        expected: Expected::Absent,
        player: player(0, body, token_number),
    }
}

/// Changes the player `id` from version `from` to the next.
pub fn change(id: &str, from: u64, body: &str, token_number: Option<u8>) -> PlayerWrite {
    PlayerWrite {
        id: id.to_owned(),
        expected: Expected::Version(from),
        player: player(from + 1, body, token_number),
    }
}

pub fn kept(answer: &str) -> Kept {
    Kept {
        fingerprint: format!("fingerprint of {answer}").into_bytes(),
        answer: answer.as_bytes().to_vec(),
        expires_at_ms: LATER,
    }
}
