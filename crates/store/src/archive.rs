//! The live store's side of the archive: a hand-over that loses no
//! finished game and copies none twice.
//!
//! The write that ends a game marks it ([`Write::finished`](crate::Write))
//! in the same atomic step as the game itself, in an index of marks
//! ordered by the time of the finish. An archiver lists the marks, oldest
//! first ([`Store::unarchived`]), copies each game with its whole log
//! ([`Store::archive_copy`]), which reads an expired game too, writes the
//! copy where it keeps games for good (an insert idempotent by game id),
//! and only then clears the marks ([`Store::archived`]). A crash anywhere
//! in between leaves the marks, so the next pass copies again what was
//! not acknowledged, and the idempotent insert makes that one copy.
//!
//! With [`StoreLimits::keep_unarchived`](crate::StoreLimits), a marked
//! game leaves the store only after its mark is cleared: a purge that
//! meets it expired holds it (out of the expiry walk, in an index of held
//! games), and clearing its mark puts it back for the next purge. Held
//! games read as absent to players and count toward nothing a player
//! sees, but toward `max_games`, so memory stays bounded while the
//! archive is behind.

use crate::{Backend, Store, StoreError, StoredGame};

/// The most marks one [`Store::unarchived`] lists, and the most ids one
/// [`Store::archived`] clears: one batch of the archiver, one transaction
/// of the file, one script call of Redis.
pub const MAX_ARCHIVE_BATCH: usize = 1_000;

/// A finished game waiting for its archive copy: its id and when it
/// finished (ms since the Unix epoch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unarchived {
    pub id: String,
    pub finished_ms: u64,
}

/// A game as the archive copies it: the game as stored (expired or not),
/// its whole log, each entry with its version, and its mark's time
/// (`None` once cleared, or if it was never marked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveCopy {
    pub game: StoredGame,
    pub log: Vec<(u64, Vec<u8>)>,
    pub finished_ms: Option<u64>,
}

/// How far the archive is behind: how many games are marked, and when
/// the oldest of them finished (`None` when none is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnarchivedCount {
    pub games: u64,
    pub oldest_finished_ms: Option<u64>,
}

/// The archiver's calls, beside the games' in `lib.rs`: each bounded by
/// the store's timeout, as every call.
impl Store {
    /// The marks of at most `at_most` games finished by `now_ms`, oldest
    /// first (by finish, then by id); at most [`MAX_ARCHIVE_BATCH`].
    pub async fn unarchived(
        &self,
        at_most: usize,
        now_ms: u64,
    ) -> Result<Vec<Unarchived>, StoreError> {
        if at_most > MAX_ARCHIVE_BATCH {
            return Err(StoreError::InvalidRead(format!(
                "{at_most} finished games asked for at once, past the {MAX_ARCHIVE_BATCH} a call lists"
            )));
        }
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.unarchived(at_most, now_ms),
                Backend::File(store) => store.unarchived(at_most, now_ms).await,
                Backend::Redis(store) => store.unarchived(at_most, now_ms).await,
            }
        })
        .await
    }

    /// The game stored under `id`, live or expired (held for the archive,
    /// or not yet purged), with its whole log and its mark; `None` once
    /// it is gone.
    pub async fn archive_copy(&self, id: &str) -> Result<Option<ArchiveCopy>, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.archive_copy(id),
                Backend::File(store) => store.archive_copy(id).await,
                Backend::Redis(store) => store.archive_copy(id).await,
            }
        })
        .await
    }

    /// Clears the marks of `ids`, whose copies the archive has
    /// acknowledged, in one step: a held game among them goes back to the
    /// expiry walk, so the next purge deletes it. An id with no mark
    /// (cleared before, never marked, gone) is passed over. Answers how
    /// many marks it cleared; at most [`MAX_ARCHIVE_BATCH`] ids. From
    /// `now_ms`, Redis gives each game back the life left to it as a
    /// backstop (kept without one while marked).
    pub async fn archived(&self, ids: &[String], now_ms: u64) -> Result<usize, StoreError> {
        if ids.len() > MAX_ARCHIVE_BATCH {
            return Err(StoreError::InvalidWrite(format!(
                "{} archived games cleared at once, past the {MAX_ARCHIVE_BATCH} a call clears",
                ids.len()
            )));
        }
        if ids.is_empty() {
            return Ok(0);
        }
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.archived(ids),
                Backend::File(store) => store.archived(ids.to_vec()).await,
                Backend::Redis(store) => store.archived(ids, now_ms).await,
            }
        })
        .await
    }

    /// How many games are marked for the archive, and the oldest mark's
    /// time: the archive's lag.
    pub async fn unarchived_count(&self) -> Result<UnarchivedCount, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.unarchived_count(),
                Backend::File(store) => store.unarchived_count().await,
                Backend::Redis(store) => store.unarchived_count().await,
            }
        })
        .await
    }
}
