//! The server's downtime, as the store keeps it: every process serving
//! games records a heartbeat about every second ([`crate::Store::alive`]);
//! a gap between heartbeats longer than the caller allows is an outage,
//! kept as the time from the last heartbeat before it to the first after
//! it, so that a game's clock can skip it. Processes that share a store
//! (replicas on one Redis) share its heartbeat: an outage is a time when
//! none of them beat.
//!
//! The rules are written once here for the backends that run them in a
//! transaction of their own (memory and the file), over [`Beats`]; Redis
//! runs them as one script, `redis_store/heartbeat.lua`, which mirrors
//! them.

use std::ops::Range;

use crate::StoreError;

/// The most outages kept; past it the oldest is forgotten first. An
/// outage is a restart or a store fault longer than the gap, a few a day;
/// only those within a game's idle time can touch a live game, so 100 is
/// far past what a service that is not crash-looping has, and keeps what
/// each heartbeat reads under 2 KiB.
pub const MAX_OUTAGES: usize = 100;

/// A backend's heartbeat and outages, within one transaction.
pub(crate) trait Beats {
    /// The last heartbeat, if any process ever beat.
    fn last_beat(&self) -> Result<Option<u64>, StoreError>;
    fn set_beat(&mut self, at_ms: u64) -> Result<(), StoreError>;
    /// The outages kept, oldest first (by their end: outages do not
    /// overlap, as each ends at the heartbeat that the next starts after).
    fn outages(&self) -> Result<Vec<Range<u64>>, StoreError>;
    fn add_outage(&mut self, outage: Range<u64>) -> Result<(), StoreError>;
    fn remove_outage(&mut self, outage: &Range<u64>) -> Result<(), StoreError>;
}

/// A heartbeat at `now_ms`: the outage it ends if no process beat in the
/// `gap_ms` before, kept; the heartbeat moved to `now_ms` unless another
/// process, its clock ahead, beat later; the outages that ended before
/// `forget_before_ms`, and past [`MAX_OUTAGES`] the oldest, forgotten.
pub(crate) fn alive(
    beats: &mut impl Beats,
    now_ms: u64,
    gap_ms: u64,
    forget_before_ms: u64,
) -> Result<Option<Range<u64>>, StoreError> {
    let last = beats.last_beat()?;
    let outage = last
        .filter(|&last| now_ms.saturating_sub(last) > gap_ms)
        .map(|last| last..now_ms);
    if let Some(outage) = &outage {
        beats.add_outage(outage.clone())?;
    }
    if last.is_none_or(|last| now_ms > last) {
        beats.set_beat(now_ms)?;
    }
    let kept = beats.outages()?;
    let excess = kept.len().saturating_sub(MAX_OUTAGES);
    for (i, old) in kept.iter().enumerate() {
        if i < excess || old.end < forget_before_ms {
            beats.remove_outage(old)?;
        }
    }
    Ok(outage)
}
