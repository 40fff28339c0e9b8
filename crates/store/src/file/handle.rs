//! The open database, shared by the writer thread, the reads and the
//! purges, and opened again after an I/O error.
//!
//! After an I/O error redb refuses every later call with `PreviousIo`
//! until the file is closed and opened again, so one failed write (a full
//! disk, a file-size limit) would leave the store unavailable until a
//! restart. Here a call that fails on I/O marks the database failed; the
//! next call closes it and opens the file again, which rolls it back to
//! its last commit, before it does its own work. Opening is tried at most
//! once every [`RETRY`]: in between, calls answer at once that the store
//! is unavailable, so a fault that lasts costs one open a second, not one
//! a call.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{PoisonError, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

use redb::Database;

use super::open_file;
use crate::StoreError;

/// The least time between two opens of the file after an I/O error: the
/// `Retry-After` the service answers with.
const RETRY: Duration = Duration::from_secs(1);

pub(super) struct Handle {
    path: PathBuf,
    state: RwLock<State>,
    /// The generation of the last database a call failed on with an I/O
    /// error (0: none). Set under a read lock, so that it names the
    /// database still open.
    failed: AtomicU64,
    /// How many times the file was opened again.
    reopens: AtomicU64,
}

struct State {
    /// `None` once closed, until an open succeeds.
    db: Option<Database>,
    /// Raised at each close, from 1.
    generation: u64,
    /// When the file was last opened again, successfully or not.
    reopened_at: Option<Instant>,
    /// Why the last open failed, while the file is closed.
    cause: String,
}

impl Handle {
    pub(super) fn open(path: &Path) -> Result<Handle, StoreError> {
        Ok(Handle {
            path: path.to_owned(),
            state: RwLock::new(State {
                db: Some(open_file(path)?),
                generation: 1,
                reopened_at: None,
                cause: String::new(),
            }),
            failed: AtomicU64::new(0),
            reopens: AtomicU64::new(0),
        })
    }

    pub(super) fn reopens(&self) -> u64 {
        self.reopens.load(Ordering::Relaxed)
    }

    /// Runs `work` on the database, opened again first if a call failed on
    /// it with an I/O error. An I/O error of `work` marks it failed.
    pub(super) fn with<T>(
        &self,
        work: impl FnOnce(&Database) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.recover()?;
        let state = self.read();
        let Some(db) = self.healthy(&state) else {
            // Closed by another call since `recover`.
            return Err(closed(&state));
        };
        let done = work(db);
        if let Err(StoreError::Io(_)) = &done {
            self.failed.store(state.generation, Ordering::Release);
        }
        done
    }

    /// Closes a failed database and opens the file again, unless the last
    /// open was less than [`RETRY`] ago.
    fn recover(&self) -> Result<(), StoreError> {
        if self.healthy(&self.read()).is_some() {
            return Ok(());
        }
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        // Another call may have opened it while this one waited.
        if self.healthy(&state).is_some() {
            return Ok(());
        }
        if state.reopened_at.is_some_and(|at| at.elapsed() < RETRY) {
            return Err(closed(&state));
        }
        state.reopened_at = Some(Instant::now());
        // Dropped first: redb locks the file, and the lock goes with it.
        if state.db.take().is_some() {
            tracing::warn!(path = %self.path.display(), "the store failed on I/O; closing its file to open it again");
        }
        state.generation += 1;
        match open_file(&self.path) {
            Ok(db) => {
                state.db = Some(db);
                state.cause.clear();
                self.reopens.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(path = %self.path.display(), "the store file is open again");
                Ok(())
            }
            Err(err) => {
                tracing::error!(path = %self.path.display(), error = %err, "the store file could not be opened again; the next call past a second retries");
                state.cause = err.to_string();
                Err(closed(&state))
            }
        }
    }

    /// The database, if it is open and no call failed on it.
    fn healthy<'a>(&self, state: &'a State) -> Option<&'a Database> {
        state
            .db
            .as_ref()
            .filter(|_| self.failed.load(Ordering::Acquire) != state.generation)
    }

    fn read(&self) -> RwLockReadGuard<'_, State> {
        // A panic under the write lock leaves `State` whole: every field
        // is set in one step.
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }
}

fn closed(state: &State) -> StoreError {
    StoreError::Unavailable(if state.db.is_some() || state.cause.is_empty() {
        "the store failed on I/O; its file is opened again within a second".into()
    } else {
        format!(
            "the store failed on I/O, and opening its file again failed: {}",
            state.cause
        )
    })
}
