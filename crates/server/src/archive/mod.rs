//! Finished games kept for good: the archive the server opens beside its
//! live store ([`Archives`]), and the archiver that copies each finished
//! game there exactly once ([`archive_loop`]).
//!
//! - `settings.rs`: `--archive` and its bounds, the default beside the store;
//! - `pass.rs`: one pass of the archiver, retention, and the loop;
//! - `export.rs`: the stream every export answers, the exports under way
//!   (one a caller) and their pace;
//! - `history.rs`: a player's archived games for the list of their games;
//! - `unreadable.rs`: the marked games whose records do not read back,
//!   which the archiver passes over and leaves in the store;
//! - `names.rs`: the sweep that erases from the archive the names of
//!   players gone from the live store;
//! - `metrics.rs`: the archive's series.
//!
//! The live store marks a game as its finishing write lands; the archiver
//! lists the marks, copies each game with its whole log, inserts the
//! batch (idempotent by game id) and clears the marks only once the insert
//! is acknowledged. A marked game outlives its expiry until then
//! (`keep_unarchived`), so a crash, or an archive away for hours, loses
//! nothing and copies nothing twice.
//!
//! An archived game's replay is answered from its record as a JSON value,
//! as it was kept by whichever server archived it.

pub(crate) mod export;
mod history;
pub(crate) mod metrics;
mod names;
mod pass;
mod settings;
mod unreadable;

pub use names::NamesRound;
pub(crate) use names::erase_gone;
pub use pass::Pass;
pub(crate) use pass::{archive_loop, pass};
pub use settings::ArchiveSettings;

use linkpath_api::{ApiError, ErrorCode};
use linkpath_archive::{Archive, ArchiveError, ArchiveLimits, ArchiveSpec};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{Notify, OnceCell};

/// How long after a failed open the archive is tried again: meanwhile its
/// reads answer 503 at once.
const REOPEN_AFTER: Duration = Duration::from_secs(1);

/// The archive a server keeps finished games in, opened at start or, when
/// it could not be reached then (a PostgreSQL not up yet), on a later try.
pub(crate) struct Archives {
    /// None: no archive is set (a Redis store, none named), and finished
    /// games leave the store as they expire.
    spec: Option<ArchiveSpec>,
    limits: ArchiveLimits,
    /// How long a game is kept after its finish; none: for good.
    pub(crate) retention_ms: Option<u64>,
    opened: OnceCell<Archive>,
    /// When an open last failed.
    failed_at: std::sync::Mutex<Option<Instant>>,
    /// One open at a time.
    opening: tokio::sync::Mutex<()>,
    /// Told when a game finishes, so the archiver copies it soon.
    pub(crate) finished: Arc<Notify>,
    /// The exports streaming now.
    pub(crate) exports: Arc<export::Exports>,
    /// The marked games whose records do not read back, passed over;
    /// held by a pass, so that one runs at a time.
    unreadable: tokio::sync::Mutex<unreadable::Unreadable>,
    /// Where the sweep of names is; held by a round.
    sweep: tokio::sync::Mutex<names::Sweep>,
}

impl Archives {
    /// The archive `spec` names, not opened yet.
    pub(crate) fn new(
        spec: Option<ArchiveSpec>,
        limits: ArchiveLimits,
        retention_ms: Option<u64>,
        finished: Arc<Notify>,
    ) -> Archives {
        Archives {
            spec,
            limits,
            retention_ms,
            opened: OnceCell::new(),
            failed_at: std::sync::Mutex::new(None),
            opening: tokio::sync::Mutex::new(()),
            finished,
            exports: Arc::default(),
            unreadable: tokio::sync::Mutex::default(),
            sweep: tokio::sync::Mutex::default(),
        }
    }

    /// The archive it names, if any, as its setting is logged.
    pub(crate) fn spec(&self) -> Option<&ArchiveSpec> {
        self.spec.as_ref()
    }

    /// The archive, opened now if it is not yet; a failed open is tried
    /// again only [`REOPEN_AFTER`] later, and answers
    /// [`ArchiveError::Unavailable`] until then.
    pub(crate) async fn archive(&self) -> Result<&Archive, ArchiveError> {
        if let Some(archive) = self.opened.get() {
            return Ok(archive);
        }
        let Some(spec) = &self.spec else {
            return Err(ArchiveError::Unavailable(
                "no archive is set: with a Redis store, set --archive (LINKPATH_ARCHIVE) \
                 to a PostgreSQL the replicas share"
                    .to_owned(),
            ));
        };
        let _one = self.opening.lock().await;
        if let Some(archive) = self.opened.get() {
            return Ok(archive);
        }
        let failed_at = *self.failed_at.lock().unwrap_or_else(|e| e.into_inner());
        if failed_at.is_some_and(|at| at.elapsed() < REOPEN_AFTER) {
            return Err(ArchiveError::Unavailable(
                "it could not be opened a moment ago; tried again each second".to_owned(),
            ));
        }
        match open(spec.clone(), self.limits).await {
            Ok(archive) => {
                // The start-up line names the archive opened at start.
                if failed_at.is_some() {
                    tracing::info!(archive = %spec, "the archive is open at last");
                }
                // Only this open, under `opening`, sets it.
                let _ = self.opened.set(archive);
                self.opened.get().ok_or_else(|| {
                    ArchiveError::Unavailable("the archive opened but was not kept".to_owned())
                })
            }
            Err(e) => {
                *self.failed_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
                Err(e)
            }
        }
    }
}

impl Archives {
    /// The replay of the archived game `id` and the version it ended at,
    /// for a game gone from the live store; None where no archive is set
    /// or it holds no such game. Where games are private (`private`), only
    /// its player reads it, as a live game's.
    pub(crate) async fn replay(
        &self,
        id: &str,
        private: bool,
        player: Option<&str>,
    ) -> Result<Option<(Vec<u8>, u64)>, ApiError> {
        if self.spec.is_none() {
            return Ok(None);
        }
        let archive = self.archive().await.map_err(unavailable)?;
        let Some(game) = archive.game(id).await.map_err(unavailable)? else {
            return Ok(None);
        };
        if private {
            crate::games::service::owned_by(game.player.as_deref(), player)?;
        }
        let record: serde_json::Value =
            serde_json::from_slice(&game.body).map_err(|e| unreadable(id, e.to_string()))?;
        let replay = &record["replay"];
        // One action a version, the deal's version 0.
        let version = replay["actions"]
            .as_array()
            .ok_or_else(|| unreadable(id, "no `replay.actions`".to_owned()))?
            .len() as u64;
        let json = serde_json::to_vec(replay).map_err(|e| unreadable(id, e.to_string()))?;
        Ok(Some((json, version)))
    }
}

/// An archived record that does not read: a 500, its cause logged.
fn unreadable(id: &str, why: String) -> ApiError {
    tracing::error!(
        game = crate::games::errors::short(id),
        why,
        "an archived game does not read"
    );
    ApiError::new(ErrorCode::Internal, "an archived game does not read")
}

/// Opens the archive on a blocking thread of its own, driven there: sqlx's
/// migrator, generic over `Acquire`, makes the open's future one the
/// compiler cannot prove `Send` for every lifetime, so it cannot be
/// awaited on a task; the open itself is bounded by the archive's timeout
/// (the migrations are not).
async fn open(spec: ArchiveSpec, limits: ArchiveLimits) -> Result<Archive, ArchiveError> {
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || runtime.block_on(Archive::open(&spec, limits)))
        .await
        .unwrap_or_else(|e| Err(ArchiveError::Unavailable(format!("its open stopped: {e}"))))
}

/// A failed archive call as an answer: 503 `store_unavailable` with
/// `Retry-After` when the archive is away or slow, 500 otherwise; the
/// cause is logged, never sent.
pub(crate) fn unavailable(e: ArchiveError) -> ApiError {
    if e.is_unavailable() {
        tracing::warn!(error = %e, "the archive is unavailable");
        ApiError::new(
            ErrorCode::StoreUnavailable,
            "the archive of finished games is unavailable, retry shortly",
        )
        .retry_after(1)
    } else {
        tracing::error!(error = %e, "the archive failed");
        ApiError::new(ErrorCode::Internal, "the archive of finished games failed")
    }
}
