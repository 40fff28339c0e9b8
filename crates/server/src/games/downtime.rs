//! The server's downtime given back to the games. While it serves, a
//! process records a heartbeat in the store every [`HEARTBEAT`]
//! ([`super::tasks::heartbeat_loop`], started by `run_with_admin`); a gap between
//! heartbeats longer than [`GAP_MS`] is an outage, a time when no process
//! served (replicas on one Redis share the heartbeat), and every game's
//! running clock skips it when the game is next read
//! (`Game::give_back`), its play time and its time limit alike.
//!
//! A game is read only with the outages known from a heartbeat less than
//! [`GAP_MS`] ago: otherwise (at start, or after heartbeats failed) the
//! reader beats first, so no game is read, and perhaps ended out of time,
//! before the outage it sat through is known. A router driven without
//! `run_with_admin` (the in-process tests) beats only then, so a pause of
//! more than [`GAP_MS`] between its game reads counts as downtime.

use linkpath_api::games::rfc3339;
use linkpath_store::{Store, StoreError};
use std::ops::Range;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

/// How often a serving process records its heartbeat.
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(1);

/// A gap between heartbeats longer than this is an outage: five missed
/// heartbeats, so that a process slow for a moment (a long fsync, a busy
/// runtime) gives nothing back, while a restart's downtime is.
pub(crate) const GAP_MS: u64 = 5_000;

/// The outages as of this process's last heartbeat.
#[derive(Default)]
pub(crate) struct Downtime {
    known: RwLock<Known>,
    /// One heartbeat at a time from this process.
    pub(crate) beating: tokio::sync::Mutex<()>,
}

#[derive(Default, Clone)]
struct Known {
    /// When this process last beat, if it has.
    beat_at_ms: Option<u64>,
    outages: Arc<[Range<u64>]>,
}

impl Downtime {
    /// The outages to give back at `now`: those known at the last
    /// heartbeat if it was less than [`GAP_MS`] ago, else from a
    /// heartbeat made first.
    pub(crate) async fn outages(
        &self,
        store: &Store,
        idle: Duration,
        now: u64,
    ) -> Result<Arc<[Range<u64>]>, StoreError> {
        if let Some(outages) = self.fresh(now) {
            return Ok(outages);
        }
        let _one = self.beating.lock().await;
        // Another caller may have beaten while this one waited.
        if let Some(outages) = self.fresh(now) {
            return Ok(outages);
        }
        self.beat(store, idle, now).await
    }

    /// One heartbeat at `now`, then the outages kept. Those that ended
    /// more than the idle time ago are forgotten: every live game was
    /// changed since (a game expires when idle that long), and a change
    /// stores its clock already past them.
    pub(crate) async fn beat(
        &self,
        store: &Store,
        idle: Duration,
        now: u64,
    ) -> Result<Arc<[Range<u64>]>, StoreError> {
        let forget_before = now.saturating_sub(idle.as_millis() as u64);
        if let Some(outage) = store.alive(now, GAP_MS, forget_before).await? {
            tracing::warn!(
                from = %rfc3339(outage.start),
                to = %rfc3339(outage.end),
                down_ms = outage.end - outage.start,
                "no process served games in this time; every running game clock skips it"
            );
        }
        let outages: Arc<[Range<u64>]> = store.outages().await?.into();
        *self.known.write().unwrap_or_else(PoisonError::into_inner) = Known {
            beat_at_ms: Some(now),
            outages: outages.clone(),
        };
        Ok(outages)
    }

    fn fresh(&self, now: u64) -> Option<Arc<[Range<u64>]>> {
        let known = self.known.read().unwrap_or_else(PoisonError::into_inner);
        known
            .beat_at_ms
            .filter(|&at| now.saturating_sub(at) < GAP_MS)
            .map(|_| known.outages.clone())
    }
}
