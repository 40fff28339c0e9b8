//! Why a store call failed, one variant a cause, each message saying what
//! happened and, where it helps, which file. Errors are `Clone` because
//! a failed group commit gives the same error to every write in it.

use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The call took longer than the store's timeout. For a write it is
    /// unknown whether it was applied.
    #[error("the store did not answer within {0:?}")]
    TimedOut(Duration),
    /// The store file, or its folder, could not be created or opened.
    #[error("cannot open the store file {}: {cause}", path.display())]
    Open { path: PathBuf, cause: String },
    /// The file exists but is no store this build can read.
    #[error("{} is not a linkpath store (a redb database): {cause}", path.display())]
    NotAStore { path: PathBuf, cause: String },
    /// The file is a store, but damaged: it fails redb's checks, or redb
    /// stops with a panic reading it. Nothing was written to it.
    #[error(
        "the store file {} is damaged ({cause}): restore it from a backup, or move it aside \
         to start with an empty store",
        path.display()
    )]
    Damaged { path: PathBuf, cause: String },
    /// Another process has the file open.
    #[error("the store file {} is already open in another process", path.display())]
    Locked { path: PathBuf },
    /// Reading or writing the open store failed.
    #[error("the store's I/O failed: {0}")]
    Io(String),
    /// The open store holds bytes that do not decode.
    #[error("the store is corrupted: {0}")]
    Corrupted(String),
    /// The store cannot serve calls any more (its writer stopped, its lock
    /// was poisoned, ...).
    #[error("the store is unavailable: {0}")]
    Unavailable(String),
    /// The caller asked for a write that breaks the store's rules.
    #[error("invalid write: {0}")]
    InvalidWrite(String),
    /// The caller asked for more than one read may take.
    #[error("invalid read: {0}")]
    InvalidRead(String),
}
