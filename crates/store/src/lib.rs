//! Where linkpath keeps games between requests. A game is opaque bytes
//! here, stored with a version that every change raises by one and a time
//! at which it expires, and with its log: one opaque entry a version,
//! appended by the write that makes the version and never rewritten, so
//! that a change costs what it changes, not what the game has been
//! through. Beside games, the answers given under idempotency
//! keys, so that a retried request gets the first answer again; and the
//! heartbeat of the processes serving them, with the outages it tells
//! (`downtime.rs`), so that the server's downtime is not a player's time.
//!
//! Players are kept beside games (`player.rs`): an opaque body with a
//! version and an expiry, found by id or by the SHA-256 of the player's
//! token, each on a leaderboard once (its best entry, `board.rs`), each
//! with the list of the games created as its. Erasing a player takes its
//! token's hash, its entries and its list in the same step; its games
//! stay. The calls on players are in `player.rs`.
//!
//! Matches, races of several players on one deal, are kept beside them
//! too (`matches.rs`): an opaque body with a version and an expiry, as a
//! game, and the time its next timer is due, indexed so that a sweeper
//! finds the matches due first. A match's write may carry its players'
//! writes (their ratings after it), stored with it or not at all.
//!
//! Seeks, players waiting to be seated in a race, are kept too
//! (`seeks.rs`): entries that live while their requests wait, paired
//! atomically into matches.
//!
//! A finished game is handed over to the archive from here (`archive.rs`):
//! the write that ends it marks it in the same step, an archiver lists
//! the marks oldest first, copies each game with its whole log, and
//! clears the marks of those it has archived; with
//! [`StoreLimits::keep_unarchived`], no marked game leaves the store
//! before then, expired or not.
//!
//! One interface, [`Store`], over three backends chosen by a
//! [`StoreSpec`]: a redb file (crash-safe, one fsync per group of writes),
//! a Redis server that several replicas share, and memory. All follow the
//! same rules: a write is a compare-and-set on the game's version, refused
//! if its idempotency key was already answered, and it stores the game,
//! the key's answer and a won game's leaderboard entry together or not at
//! all. A refusal's answer is kept under its key alone ([`Store::keep`]).
//! Kept answers are bounded per game by count and in all by bytes. The file and memory run them
//! from `rules.rs` in their own transactions; Redis runs them as one Lua
//! script that mirrors it.
//!
//! Time is the caller's: every call takes `now_ms`, milliseconds since the
//! Unix epoch. A game, key, leaderboard or player expires at its
//! `expires_at_ms`:
//! from that millisecond on it is absent, and [`Store::purge`] may delete
//! it.

mod archive;
mod board;
mod downtime;
mod error;
mod file;
mod matches;
mod memory;
mod player;
mod redis_store;
mod rules;
mod seeks;
mod spec;

use std::future::Future;
use std::ops::Range;
use std::time::Duration;

pub use archive::{ArchiveCopy, MAX_ARCHIVE_BATCH, Unarchived, UnarchivedCount};
pub use board::{BoardPage, BoardStart, Entry, Ranked};
pub use downtime::MAX_OUTAGES;
pub use error::StoreError;
pub use matches::{MatchOutcome, MatchWrite, StoredMatch};
pub use player::{GameCursor, MAX_PLAYERS_READ, PlayerOutcome, PlayerWrite, StoredPlayer};
pub use seeks::{Pairing, Seat, SeekWrite, Seeking};
pub use spec::{RedisSpec, SpecError, StoreSpec};

use file::FileStore;
use memory::MemoryStore;
use redis_store::RedisStore;

/// A game as stored: its version (how many changes it has had, from 0),
/// when it expires (ms since the Unix epoch), and the game itself as the
/// caller serialised it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredGame {
    pub version: u64,
    pub expires_at_ms: u64,
    pub body: Vec<u8>,
}

/// An answer kept under an idempotency key. The caller serialises status,
/// headers and body into `answer`; `fingerprint` identifies the request
/// that produced it (the caller hashes method, path and body), so that a
/// different request reusing the key can be told apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    pub fingerprint: Vec<u8>,
    pub answer: Vec<u8>,
    pub expires_at_ms: u64,
}

/// What a write expects to find under its game id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// No live game: the write creates one, at version 0.
    Absent,
    /// A live game at this version: the write stores the next one.
    Version(u64),
}

impl Expected {
    /// The live version expected: none for [`Expected::Absent`].
    pub fn version(self) -> Option<u64> {
        match self {
            Expected::Absent => None,
            Expected::Version(version) => Some(version),
        }
    }
}

/// One atomic change: the game's new state, applied only if what is stored
/// is as `expected`, and optionally the answer to keep under an
/// idempotency key in the same commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    /// The game's id: opaque to the store, made by the caller.
    pub id: String,
    pub expected: Expected,
    /// The new state. Its version must follow `expected` (0 on
    /// [`Expected::Absent`], one more than [`Expected::Version`]); a write
    /// where it does not is refused with [`StoreError::InvalidWrite`].
    pub game: StoredGame,
    /// The idempotency key and the answer to keep under it.
    pub key: Option<(String, Kept)>,
    /// The leaderboard entry this change earns (the game was won).
    pub entry: Option<Entry>,
    /// The player whose game it is, read on a create alone: the game is
    /// listed among the player's ([`Store::player_games`]) at
    /// `(now_ms, id)` until it goes (expired, or replaced by a create) or
    /// its player is erased.
    pub owner: Option<String>,
    /// The entries this write appends to the game's log, one a version,
    /// the last at the new version: a change's one, or several for a game
    /// whose log is written for the first time. At most the new version
    /// and one more; a create starts a new log, so an expired game's
    /// entries under the same id are gone.
    pub log: Vec<Vec<u8>>,
    /// This change ends the game (won, out of time, resigned...): it is
    /// marked for the archive at `now_ms` in the same step
    /// ([`Store::unarchived`]). A game marked already keeps its first
    /// mark's time.
    pub finished: bool,
}

impl Write {
    /// The versions of [`Write::log`]'s entries, in order.
    pub fn log_versions(&self) -> Range<u64> {
        let end = self.game.version.saturating_add(1);
        end.saturating_sub(self.log.len() as u64)..end
    }
}

/// An answer kept under a key with no change of its game: see
/// [`Store::keep`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Keep {
    pub game: String,
    pub key: String,
    pub kept: Kept,
}

/// What became of a [`Write`]. Only `Written` stored anything. Any
/// outcome may have deleted expired records on the way (an expired answer
/// under the write's key, an expired game or answers to make room), as a
/// purge would, on every backend alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The game (and the key, if any) are stored: on disk, for a file; in
    /// Redis's memory (and its append-only file, as its fsync policy says),
    /// for Redis.
    Written,
    /// The stored version is not the expected one: `current` is the live
    /// game's version, `None` if there is none (absent or expired). With
    /// [`StoreLimits::keep_unarchived`], a create over an expired game
    /// still marked for the archive is refused so too, `current` `None`:
    /// the old game waits for its copy (ids are random, so this is met
    /// only by a caller that reuses one).
    Stale { current: Option<u64> },
    /// A create, while the store already holds `max_games` games: live
    /// ones, and with [`StoreLimits::keep_unarchived`] expired ones still
    /// marked for the archive.
    Full,
    /// A create with an owner who already has
    /// [`StoreLimits::max_games_per_player`] live games. Checked after
    /// `Full`.
    PlayerFull,
    /// The key already holds an answer (a retry raced the first request):
    /// here it is. Checked before the version.
    Replayed(Kept),
    /// The key is new, and keeping its answer would pass a bound: nothing
    /// was stored.
    TooManyKeys(KeyBound),
}

/// The bound a new idempotency key would pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyBound {
    /// The game holds [`StoreLimits::max_keys_per_game`] live keys.
    Game,
    /// The answers kept hold [`StoreLimits::max_kept_bytes`].
    Store,
}

/// What a kept answer counts against [`StoreLimits::max_kept_bytes`]: its
/// bytes, its key's and a fixed share for the record and its index
/// entries, so that many tiny answers are bounded too.
pub fn kept_charge(key: &str, kept: &Kept) -> u64 {
    (KEPT_OVERHEAD + key.len() + kept.fingerprint.len() + kept.answer.len()) as u64
}

/// The bytes a kept answer is counted for beside its own: about what a
/// record and its expiry index entry cost in the memory store.
pub const KEPT_OVERHEAD: usize = 256;

/// What a store shared with other processes tells of their writes: see
/// [`Store::changes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Feed {
    /// The game `id` was written at `version`, by this process or another.
    Written { id: String, version: u64 },
    /// The match `id` was written at `version`, by this process or
    /// another.
    Match { id: String, version: u64 },
    /// The feed has just (re)connected: writes made while it was away went
    /// unheard, so read again the games you follow.
    Resumed,
}

/// What one [`Store::purge`] deleted, and the expired games it kept for
/// the archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Purged {
    pub games: usize,
    /// Expired games still marked for the archive, kept past their
    /// expiry ([`StoreLimits::keep_unarchived`]): taken out of the expiry
    /// walk, each once, until their marks are cleared.
    pub held: usize,
    pub keys: usize,
    pub boards: usize,
    pub players: usize,
    pub matches: usize,
}

impl Purged {
    /// The most records of one kind this purge took: games deleted and
    /// held count as one walk.
    fn most(&self) -> usize {
        (self.games + self.held)
            .max(self.keys)
            .max(self.boards)
            .max(self.players)
            .max(self.matches)
    }
}

/// The bounds a store keeps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreLimits {
    /// How many live games may be stored. An expired game not yet purged
    /// does not count: a create that finds the store full deletes one.
    /// With `keep_unarchived`, an expired game marked for the archive
    /// does count, so that memory stays bounded while the archive is
    /// behind: a full store then refuses creates ([`Outcome::Full`])
    /// until the archiver catches up.
    pub max_games: u64,
    /// How many live kept answers one game may have.
    pub max_keys_per_game: u64,
    /// How many bytes all kept answers may count, each as
    /// [`kept_charge`] says.
    pub max_kept_bytes: u64,
    /// How many leaderboards may be stored, as `max_games` counts games.
    pub max_boards: u64,
    /// How many entries a leaderboard keeps, its best; at least 1.
    pub board_size: usize,
    /// How many live players may be stored, as `max_games` counts games.
    pub max_players: u64,
    /// How many live games one player may own: a create with an owner
    /// past it is [`Outcome::PlayerFull`].
    pub max_games_per_player: u64,
    /// How many live matches may be stored, as `max_games` counts games:
    /// a create past it is [`MatchOutcome::Full`].
    pub max_matches: u64,
    /// How long any one call may take; past it the call answers
    /// [`StoreError::TimedOut`].
    pub timeout: Duration,
    /// Whether a game marked for the archive stays, with its log, until
    /// its mark is cleared ([`Store::archived`]): a purge, or a create
    /// making room, holds it past its expiry instead of deleting it,
    /// and a create under its id is refused. Set where an archiver runs;
    /// without one, marked games go at their expiry as others do (their
    /// marks with them), and those held before go at the next purge.
    pub keep_unarchived: bool,
    /// How often the Redis store checks the connection its changes are
    /// heard on with a PING ([`FEED_HEARTBEAT`] by default): one that died
    /// silently is found within this and `timeout`, and made again. The
    /// other stores have no such connection.
    pub feed_heartbeat: Duration,
}

/// The Redis store's heartbeat on its changes connection, unless the
/// limits say otherwise ([`StoreLimits::feed_heartbeat`]).
pub const FEED_HEARTBEAT: Duration = Duration::from_secs(5);

/// The most records of each kind one batch of [`Store::purge_expired`]
/// deletes: one transaction of the file, one script call of Redis.
pub const PURGE_BATCH: usize = 1_000;

/// The most batches one [`Store::purge_expired`] runs: a million records.
pub const PURGE_BATCHES: usize = 1_000;

/// The store games live in. Which backend is a private matter, so adding
/// one changes no caller.
pub struct Store {
    backend: Backend,
    timeout: Duration,
}

// Enum dispatch: one match a call, no trait objects.
enum Backend {
    // Boxed, as Redis is: its maps are several times the size of a file's
    // handle.
    Memory(Box<MemoryStore>),
    File(FileStore),
    // Boxed: the Redis client, its scripts and its feed are several times
    // the size of the others.
    Redis(Box<RedisStore>),
}

impl Store {
    /// Opens the store `spec` names: for a file, creates it and its folder
    /// if missing, or opens it (redb repairs it first after a crash).
    /// Opening is not bounded by `limits.timeout`: a repair takes as long
    /// as the file needs. Redis is not reached at opening: while it is
    /// unreachable, calls answer [`StoreError::Unavailable`] (or time out),
    /// and they succeed again once it is back.
    pub fn open(spec: &StoreSpec, limits: StoreLimits) -> Result<Store, StoreError> {
        let backend = match spec {
            StoreSpec::Memory => Backend::Memory(Box::new(MemoryStore::new(limits))),
            StoreSpec::File(path) => Backend::File(FileStore::open(path, limits)?),
            StoreSpec::Redis(redis) => {
                let store = RedisStore::open(redis, limits)?;
                Backend::Redis(Box::new(store))
            }
        };
        Ok(Store {
            backend,
            timeout: limits.timeout,
        })
    }

    /// The live game stored under `id`, if any.
    pub async fn game(&self, id: &str, now_ms: u64) -> Result<Option<StoredGame>, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.game(id, now_ms),
                Backend::File(store) => store.game(id, now_ms).await,
                Backend::Redis(store) => store.game(id, now_ms).await,
            }
        })
        .await
    }

    /// Applies `write` if the stored game is as it expects and its key
    /// holds no answer yet, with its leaderboard entry if any. [`StoreError::TimedOut`] leaves it unknown
    /// whether the write was applied: a retry with the same key tells.
    pub async fn write(&self, write: Write, now_ms: u64) -> Result<Outcome, StoreError> {
        rules::check(&write)?;
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.write(&write, now_ms),
                Backend::File(store) => store.write(write, now_ms).await,
                Backend::Redis(store) => store.write(&write, now_ms).await,
            }
        })
        .await
    }

    /// Keeps `kept` under `key` for the game `game` unless the key holds a
    /// live answer already: a refused request's answer, which changes no
    /// game. [`Outcome::Written`], [`Outcome::Replayed`] with the answer
    /// found, or [`Outcome::TooManyKeys`].
    pub async fn keep(
        &self,
        game: &str,
        key: &str,
        kept: Kept,
        now_ms: u64,
    ) -> Result<Outcome, StoreError> {
        let keep = Keep {
            game: game.to_owned(),
            key: key.to_owned(),
            kept,
        };
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.keep(&keep, now_ms),
                Backend::File(store) => store.keep(keep, now_ms).await,
                Backend::Redis(store) => store.keep(&keep, now_ms).await,
            }
        })
        .await
    }

    /// The live answer kept under `key`, if any.
    pub async fn kept(&self, key: &str, now_ms: u64) -> Result<Option<Kept>, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.kept(key, now_ms),
                Backend::File(store) => store.kept(key, now_ms).await,
                Backend::Redis(store) => store.kept(key, now_ms).await,
            }
        })
        .await
    }

    /// The entries of the live game `id`'s log at `versions`, each with
    /// its version, in order; none for a game absent or expired, and none
    /// for a version never written.
    pub async fn log(
        &self,
        id: &str,
        versions: Range<u64>,
        now_ms: u64,
    ) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.log(id, versions, now_ms),
                Backend::File(store) => store.log(id, versions, now_ms).await,
                Backend::Redis(store) => store.log(id, versions, now_ms).await,
            }
        })
        .await
    }

    /// At most `limit` entries of the leaderboard `board`, best first,
    /// from `start`; an empty page for a board never made, or expired.
    pub async fn leaderboard(
        &self,
        board: &str,
        start: BoardStart,
        limit: usize,
        now_ms: u64,
    ) -> Result<BoardPage, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.leaderboard(board, &start, limit, now_ms),
                Backend::File(store) => store.leaderboard(board, start, limit, now_ms).await,
                Backend::Redis(store) => store.leaderboard(board, &start, limit, now_ms).await,
            }
        })
        .await
    }

    /// Deletes the games, keys, leaderboards, players and matches expired
    /// at `now_ms`, those that expired first first, at most `at_most` of
    /// each. A player goes as [`Store::erase_player`] erases one; a match
    /// with its entry in the due index. An expired game marked for the
    /// archive is held instead, with [`StoreLimits::keep_unarchived`]
    /// (at most `at_most` games deleted and held in all); without it,
    /// games held before go too, in the same walk.
    pub async fn purge(&self, now_ms: u64, at_most: usize) -> Result<Purged, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.purge(now_ms, at_most),
                Backend::File(store) => store.purge(now_ms, at_most).await,
                Backend::Redis(store) => store.purge(now_ms, at_most).await,
            }
        })
        .await
    }

    /// Deletes everything expired at `now_ms`, in batches of
    /// [`PURGE_BATCH`] of each kind (each batch one call, as
    /// [`Store::purge`]), until a batch finds less, or after
    /// [`PURGE_BATCHES`] batches: a pass keeps pace with what expires
    /// without holding the store for long at a time.
    pub async fn purge_expired(&self, now_ms: u64) -> Result<Purged, StoreError> {
        let mut total = Purged {
            games: 0,
            held: 0,
            keys: 0,
            boards: 0,
            players: 0,
            matches: 0,
        };
        for _ in 0..PURGE_BATCHES {
            let batch = self.purge(now_ms, PURGE_BATCH).await?;
            total.games += batch.games;
            total.held += batch.held;
            total.keys += batch.keys;
            total.boards += batch.boards;
            total.players += batch.players;
            total.matches += batch.matches;
            if batch.most() < PURGE_BATCH {
                break;
            }
        }
        Ok(total)
    }

    /// How many games are stored, expired ones not yet purged included
    /// (a full store deletes one of those to make room), and those held
    /// for the archive.
    pub async fn games(&self) -> Result<u64, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.games(),
                Backend::File(store) => store.games().await,
                Backend::Redis(store) => store.games().await,
            }
        })
        .await
    }

    /// Records the heartbeat of a process serving games at `now_ms`,
    /// shared by every process on the store. If none beat in the `gap_ms`
    /// before, the time from the last heartbeat to `now_ms` was an outage,
    /// when no process served: it is kept and answered. A heartbeat
    /// earlier than the last (a clock behind another replica's) leaves the
    /// last. Outages that ended before `forget_before_ms` are forgotten,
    /// and past [`MAX_OUTAGES`] the oldest (`downtime.rs`).
    pub async fn alive(
        &self,
        now_ms: u64,
        gap_ms: u64,
        forget_before_ms: u64,
    ) -> Result<Option<Range<u64>>, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.alive(now_ms, gap_ms, forget_before_ms),
                Backend::File(store) => store.alive(now_ms, gap_ms, forget_before_ms).await,
                Backend::Redis(store) => store.alive(now_ms, gap_ms, forget_before_ms).await,
            }
        })
        .await
    }

    /// When this store began: `now_ms` of the first call on it, kept
    /// after. A store that lost what it held (a Redis flushed, a file made
    /// anew) begins again at the next call, so a record it lacks says
    /// something only of the time since: a player it does not have was
    /// erased from it only if they played in it after it began.
    pub async fn born(&self, now_ms: u64) -> Result<u64, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.born(now_ms),
                Backend::File(store) => store.born(now_ms).await,
                Backend::Redis(store) => store.born(now_ms).await,
            }
        })
        .await
    }

    /// The outages kept, oldest first: each from the last heartbeat before
    /// it to the first after it.
    pub async fn outages(&self) -> Result<Vec<Range<u64>>, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.outages(),
                Backend::File(store) => store.outages().await,
                Backend::Redis(store) => store.outages().await,
            }
        })
        .await
    }

    /// Every write to the store by any process that shares it, as it is
    /// committed (a game's as [`Feed::Written`], a match's as
    /// [`Feed::Match`]), for a store that others share (Redis); `None` for a file
    /// or memory, which only this process writes, so it knows its writes.
    /// The first call starts the listening, which needs a tokio runtime;
    /// it stops with the store. A receiver that falls behind is told so
    /// (`Lagged`): it reads again what it follows, as after
    /// [`Feed::Resumed`].
    pub fn changes(&self) -> Option<tokio::sync::broadcast::Receiver<Feed>> {
        match &self.backend {
            Backend::Memory(_) | Backend::File(_) => None,
            Backend::Redis(store) => Some(store.changes()),
        }
    }

    /// How many heartbeats of the changes connection Redis has answered
    /// since the listening started ([`Store::changes`]), across every
    /// connection it made: a count that only grows, to be waited on.
    /// Always 0 for a file or memory, which hear no changes.
    pub fn feed_heartbeats(&self) -> tokio::sync::watch::Receiver<u64> {
        match &self.backend {
            Backend::Memory(_) | Backend::File(_) => tokio::sync::watch::channel(0).1,
            Backend::Redis(store) => store.feed_heartbeats(),
        }
    }

    /// Whether other processes write to this store too (Redis): what this
    /// process read may have changed without its knowing. A file or
    /// memory has one writer, this process.
    pub fn shared(&self) -> bool {
        matches!(self.backend, Backend::Redis(_))
    }

    /// How many times the file was closed and opened again after an I/O
    /// error (redb refuses every call after one until then) or a panic of
    /// redb's; 0 for memory and Redis, whose connection is made again by
    /// itself.
    pub fn reopens(&self) -> u64 {
        match &self.backend {
            Backend::Memory(_) | Backend::Redis(_) => 0,
            Backend::File(store) => store.reopens(),
        }
    }

    /// Whether the store can serve calls now, for readiness: false while
    /// a file store is closed after a failure (to be checked and opened
    /// again, which this call tries once a second is past), or cannot be
    /// opened again (damaged). Memory and Redis answer true: Redis's
    /// outages show in the calls, each bounded by the timeout.
    pub async fn available(&self) -> bool {
        match &self.backend {
            Backend::Memory(_) | Backend::Redis(_) => true,
            Backend::File(store) => self
                .bounded(async { Ok(store.available().await) })
                .await
                .unwrap_or(false),
        }
    }

    async fn bounded<T>(
        &self,
        call: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        tokio::time::timeout(self.timeout, call)
            .await
            .unwrap_or(Err(StoreError::TimedOut(self.timeout)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every call goes through `bounded`; a call that never answers shows
    // it stops at the timeout. (A real slow disk cannot be had on demand.)
    #[tokio::test]
    async fn a_call_past_the_timeout_times_out() {
        let timeout = Duration::from_millis(5);
        let limits = StoreLimits {
            max_games: 1,
            max_keys_per_game: 1,
            max_kept_bytes: 1,
            max_boards: 1,
            board_size: 1,
            max_players: 1,
            max_games_per_player: 1,
            max_matches: 1,
            timeout,
            keep_unarchived: false,
            feed_heartbeat: FEED_HEARTBEAT,
        };
        let store = Store::open(&StoreSpec::Memory, limits).unwrap();
        let never = std::future::pending::<Result<(), StoreError>>();
        assert_eq!(
            store.bounded(never).await,
            Err(StoreError::TimedOut(timeout))
        );
    }
}
