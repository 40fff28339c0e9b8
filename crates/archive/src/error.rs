//! Why an archive call failed, one variant a cause. The server answers
//! [`ArchiveError::is_unavailable`] ones with `503` and `Retry-After`
//! (the archive is down or slow, and will be back), the caller's
//! mistakes ([`ArchiveError::Invalid`]) with a `4xx`, the rest with a
//! `500` and a log line.

use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArchiveError {
    /// The archive cannot be reached now: PostgreSQL refuses connections,
    /// is restarting or read-only, or the pool had no connection free
    /// within the timeout. Retrying later may succeed; an insert may or
    /// may not have been applied (a retry is harmless: inserts are
    /// idempotent).
    #[error("the archive is unavailable: {0}")]
    Unavailable(String),
    /// The call took longer than the archive's timeout; as
    /// [`ArchiveError::Unavailable`], whether an insert was applied is
    /// unknown.
    #[error("the archive did not answer within {0:?}")]
    TimedOut(Duration),
    /// The caller asked for something the archive does not take: a game
    /// field too long, a page too big, a batch too large. The message
    /// names the field and the bound.
    #[error("{0}")]
    Invalid(String),
    /// A memory archive holds as many games as its bound allows.
    #[error("the archive is full: it holds its {0} games")]
    Full(u64),
    /// The archive file, or its folder, could not be created or opened.
    #[error("cannot open the archive file {}: {cause}", path.display())]
    Open { path: PathBuf, cause: String },
    /// Another process has the archive file open.
    #[error("the archive file {} is already open in another process", path.display())]
    Locked { path: PathBuf },
    /// The file is a redb database, but not an archive (a game store,
    /// say), or no redb database at all.
    #[error("{} is not a linkpath archive: {cause}", path.display())]
    NotAnArchive { path: PathBuf, cause: String },
    /// The archive was written by a newer linkpath, whose schema this one
    /// does not know: it is left as it is.
    #[error(
        "the archive's schema is version {found}, newer than the {known} this linkpath knows: \
         run a linkpath at least as new as the one that wrote it"
    )]
    NewerSchema { found: i64, known: i64 },
    /// A migration of the schema failed; the archive is as it was before
    /// that migration.
    #[error("migrating the archive's schema failed: {0}")]
    Migration(String),
    /// The archive holds bytes or values that do not decode.
    #[error("the archive is corrupted: {0}")]
    Corrupted(String),
    /// Reading or writing the archive file failed.
    #[error("the archive's I/O failed: {0}")]
    Io(String),
    /// PostgreSQL refused a statement for another reason than being
    /// unavailable.
    #[error("the archive's database refused a statement: {0}")]
    Database(String),
}

impl ArchiveError {
    /// Whether the archive is down or slow rather than wrong: worth a
    /// `503` with `Retry-After`, and a retry later.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            ArchiveError::Unavailable(_) | ArchiveError::TimedOut(_)
        )
    }
}
