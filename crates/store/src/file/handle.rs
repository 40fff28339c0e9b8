//! The open database, shared by the writer thread, the reads and the
//! purges, and opened again after an I/O error or a panic of redb's.
//!
//! After an I/O error redb refuses every later call with `PreviousIo`
//! until the file is closed and opened again, so one failed write (a full
//! disk, a file-size limit) would leave the store unavailable until a
//! restart; after a panic (redb reading a page damaged since the file was
//! opened) its locks may be poisoned and its state half changed. Here a
//! call that fails on I/O, or panics, marks the database failed; the next
//! call cuts it off from its file (`disk.rs`: it writes nothing more),
//! closes it and opens the file again, checked first, which rolls it back
//! to its last commit, before it does its own work. Opening is tried at
//! most once every [`RETRY`]: in between, calls answer at once that the
//! store is unavailable, so a fault that lasts costs one open a second,
//! not one a call. A file that fails its check stays closed, every call
//! answering why, until it passes.

use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

use redb::Database;

use super::disk::Disk;
use super::{open_file, panic_message};
use crate::StoreError;

/// The least time between two opens of the file after a failure: the
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
    db: Option<Opened>,
    /// Raised at each close, from 1.
    generation: u64,
    /// When the file was last opened again, successfully or not.
    reopened_at: Option<Instant>,
    /// Why the last open failed, while the file is closed.
    cause: String,
}

/// The database, and its file to cut off when it fails.
struct Opened {
    db: Database,
    disk: Arc<Disk>,
}

impl Opened {
    fn new((db, disk): (Database, Arc<Disk>)) -> Opened {
        Opened { db, disk }
    }

    /// Cuts the file off, then drops the database: whatever redb tries
    /// on closing fails (a panic there, on a lock poisoned by the
    /// failure, included), and the file is left as a crash leaves it.
    fn close(self) {
        self.disk.cut_off();
        let db = self.db;
        let _ = panic::catch_unwind(AssertUnwindSafe(move || drop(db)));
    }
}

impl Handle {
    pub(super) fn open(path: &Path) -> Result<Handle, StoreError> {
        Ok(Handle {
            path: path.to_owned(),
            state: RwLock::new(State {
                db: Some(Opened::new(open_file(path)?)),
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

    /// Whether the database is open and no call failed on it, once a
    /// failed one has been opened again if it was time to.
    pub(super) fn available(&self) -> bool {
        self.recover().is_ok()
    }

    /// Runs `work` on the database, opened again first if a call failed on
    /// it. An I/O error of `work`, or a panic, marks it failed; the panic
    /// is answered as [`StoreError::Unavailable`].
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
        let done = match panic::catch_unwind(AssertUnwindSafe(|| work(db))) {
            Ok(done) => done,
            Err(payload) => {
                let message = panic_message(payload.as_ref());
                tracing::error!(path = %self.path.display(), panic = message, "redb stopped with a panic; its file is closed, to be checked and opened again");
                self.failed.store(state.generation, Ordering::Release);
                return Err(StoreError::Unavailable(format!(
                    "redb stopped with a panic ({message}); its file is checked and opened again"
                )));
            }
        };
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
        // Closed first: redb locks the file, and the lock goes with it.
        if let Some(opened) = state.db.take() {
            tracing::warn!(path = %self.path.display(), "the store failed; closing its file to check it and open it again");
            opened.close();
        }
        state.generation += 1;
        match open_file(&self.path) {
            Ok(opened) => {
                state.db = Some(Opened::new(opened));
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
            .map(|opened| &opened.db)
    }

    fn read(&self) -> RwLockReadGuard<'_, State> {
        // A panic under the write lock leaves `State` whole: every field
        // is set in one step.
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }
}

fn closed(state: &State) -> StoreError {
    StoreError::Unavailable(if state.db.is_some() || state.cause.is_empty() {
        "the store failed; its file is checked and opened again within a second".into()
    } else {
        format!(
            "the store failed, and opening its file again failed: {}",
            state.cause
        )
    })
}
