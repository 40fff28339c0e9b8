//! The archiver: each pass lists the live store's marks of finished
//! games, oldest first, copies each game with its whole log, inserts the
//! batch in the archive, and clears the marks once the insert is
//! acknowledged; a game whose record does not read back stays marked and
//! is passed over (`unreadable.rs`). Every 30 s it counts the archive,
//! deletes what is past retention and erases the names of players gone
//! from the live store (`names.rs`). The loop runs a pass each second,
//! and soon after a game finishes.

use super::{Archives, metrics};
use crate::games::Games;
use linkpath_archive::ArchivedGame;
use linkpath_store::{Store, StoreError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Finished games one pass copies at most: one insert, one clearing of
/// marks.
pub(crate) const BATCH: usize = 100;

/// How often a pass runs when no finish wakes it.
const EVERY: Duration = Duration::from_secs(1);

/// How often the archive is counted and retention applied.
const COUNT_EVERY: Duration = Duration::from_secs(30);

/// Games one retention delete removes at most, and how many deletes one
/// round makes at most before the next pass.
const PURGE_AT_ONCE: usize = 1_000;
const PURGES_A_ROUND: usize = 10;

/// What one pass did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pass {
    /// Games whose copies the archive acknowledged (inserted now, or
    /// before: a copy made again after a crash), their marks cleared.
    pub archived: usize,
    /// Marked games gone from the store before they were copied (nothing
    /// to copy): their marks cleared.
    pub gone: usize,
    /// Marked games whose record did not read back in this pass: left
    /// marked and in the store, logged and counted once, and passed over
    /// from then on (`unreadable.rs`).
    pub unreadable: usize,
    /// Marked games found unreadable by an earlier pass, passed over
    /// without a look.
    pub passed_over: usize,
}

/// Copies at most [`BATCH`] finished games to the archive, as the loop
/// does each pass, at the store's time `now_ms`. The error says which
/// step failed; the marks of what was not acknowledged stay, for the next
/// pass. It lists as many marks beyond a batch as it knows unreadable, so
/// that those never hold back the games behind them.
pub(crate) async fn pass(archives: &Archives, store: &Store, now_ms: u64) -> Result<Pass, String> {
    let archive = archives
        .archive()
        .await
        .map_err(|e| format!("opening the archive: {e}"))?;
    // Before the first game archived from it, the store's beginning: the
    // names sweep erases only the names of players who played since.
    store
        .born(now_ms)
        .await
        .map_err(|e| format!("reading when the live store began: {e}"))?;
    // Held for the pass: one pass at a time in a process.
    let mut unreadable = archives.unreadable.lock().await;
    let marks = store
        .unarchived(BATCH + unreadable.len(), now_ms)
        .await
        .map_err(|e| format!("listing finished games: {e}"))?;
    unreadable.keep_listed(&marks);
    let mut done = Pass::default();
    let mut copies: Vec<ArchivedGame> = Vec::with_capacity(BATCH);
    let mut cleared: Vec<String> = Vec::with_capacity(BATCH);
    for mark in marks {
        if cleared.len() == BATCH {
            break;
        }
        if unreadable.contains(&mark.id) {
            done.passed_over += 1;
            continue;
        }
        let copy = match store.archive_copy(&mark.id).await {
            Ok(copy) => copy,
            // The record is there but does not decode: as unreadable as
            // one that decodes to no game.
            Err(StoreError::Corrupted(why)) => {
                unreadable.found(&mark.id, &why);
                done.unreadable += 1;
                continue;
            }
            Err(e) => {
                return Err(format!(
                    "copying finished game {}…: {e}",
                    crate::games::errors::short(&mark.id)
                ));
            }
        };
        let Some(copy) = copy else {
            tracing::warn!(game = %crate::games::errors::short(&mark.id), "a finished game was gone before its archive copy");
            done.gone += 1;
            cleared.push(mark.id);
            continue;
        };
        let finished_ms = copy.finished_ms.or(Some(mark.finished_ms));
        match linkpath_api::games::archived_game(&copy.game.body, &copy.log, finished_ms) {
            Ok(mut game) => {
                if let Some(player) = &game.player {
                    game.player_name = player_name(store, player, now_ms).await?;
                }
                copies.push(game);
                cleared.push(mark.id);
            }
            Err(why) => {
                unreadable.found(&mark.id, &why);
                done.unreadable += 1;
            }
        }
    }
    if let Err(e) = archive.insert(&copies).await {
        metrics::record_writes("failed", copies.len());
        let hint = match e {
            linkpath_archive::ArchiveError::Full(_) => {
                " (raise LINKPATH_ARCHIVE_MEMORY_GAMES, or set LINKPATH_ARCHIVE_RETENTION_MS)"
            }
            _ => "",
        };
        return Err(format!(
            "inserting {} games in the archive: {e}{hint}",
            copies.len()
        ));
    }
    metrics::record_writes("written", copies.len());
    done.archived = copies.len();
    store
        .archived(&cleared, now_ms)
        .await
        .map_err(|e| format!("clearing the marks of archived games: {e}"))?;
    Ok(done)
}

/// The name of the player `id` now, as the archive keeps it with their
/// game; none once the player is erased or expired.
async fn player_name(store: &Store, id: &str, now_ms: u64) -> Result<Option<String>, String> {
    let stored = store
        .player(id, now_ms)
        .await
        .map_err(|e| format!("reading player {}…: {e}", crate::games::errors::short(id)))?;
    Ok(stored.and_then(|stored| match linkpath_api::players::decode(&stored.body) {
        Ok(player) => Some(player.name),
        Err(e) => {
            tracing::error!(player = %crate::games::errors::short(id), error = %e, "a player's record does not read back: their game is archived without their name");
            None
        }
    }))
}

/// Deletes the games finished before the retention time at `now_ms`, a
/// bounded round of deletes, and counts the archive.
async fn upkeep(archives: &Archives, now_ms: u64) -> Result<(), String> {
    let archive = archives
        .archive()
        .await
        .map_err(|e| format!("opening the archive: {e}"))?;
    if let Some(retention) = archives.retention_ms {
        let cutoff = now_ms.saturating_sub(retention);
        let mut deleted = 0;
        for _ in 0..PURGES_A_ROUND {
            let round = archive
                .purge_finished_before(cutoff, PURGE_AT_ONCE)
                .await
                .map_err(|e| format!("deleting archived games past retention: {e}"))?;
            deleted += round;
            if round < PURGE_AT_ONCE as u64 {
                break;
            }
        }
        if deleted > 0 {
            tracing::info!(games = deleted, "deleted archived games past retention");
        }
    }
    let count = archive
        .count()
        .await
        .map_err(|e| format!("counting archived games: {e}"))?;
    metrics::record_archived(count);
    Ok(())
}

/// Runs [`pass`] each second, at once again while passes come back full,
/// and soon after a game finishes; then sets the lag and the pending
/// count. Every 30 s it runs the upkeep and a round of the sweep of
/// names. A failure (the archive or the store away) is logged once until
/// a pass succeeds again: meanwhile games go on, held in the store, and
/// the lag grows. The serve loop stops it.
pub(crate) async fn archive_loop(archives: Arc<Archives>, games: Arc<Games>) {
    let store = &games.records.store;
    let mut failing = false;
    let mut counted: Option<Instant> = None;
    loop {
        let now = games.now();
        let full = match pass(&archives, store, now).await {
            Ok(done) => {
                if failing {
                    failing = false;
                    tracing::info!("the archiver copies finished games again");
                }
                done.archived + done.gone == BATCH
            }
            Err(e) => {
                if !failing {
                    failing = true;
                    tracing::warn!(error = %e, "the archiver could not copy finished games; games go on, held in the store, and it tries again each second");
                }
                false
            }
        };
        if let Ok(pending) = store.unarchived_count().await {
            metrics::record_pending(pending.games, pending.oldest_finished_ms, games.now());
        }
        if !failing && counted.is_none_or(|at| at.elapsed() >= COUNT_EVERY) {
            counted = Some(Instant::now());
            if let Err(e) = upkeep(&archives, games.now()).await {
                tracing::warn!(error = %e, "the archive's upkeep failed; it runs again in 30 s");
            }
            if let Err(e) = super::erase_gone(&archives, store, games.now()).await {
                tracing::warn!(error = %e, "the sweep of names gone from the live store failed; it goes on in 30 s");
            }
        }
        if full {
            tokio::task::yield_now().await;
            continue;
        }
        tokio::select! {
            () = tokio::time::sleep(EVERY) => {}
            () = archives.finished.notified() => {}
        }
    }
}
