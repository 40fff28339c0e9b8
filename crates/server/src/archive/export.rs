//! Exports of archived games under way, and their pace: one export a
//! caller at a time, at most [`MAX_EXPORTS`] at once, each streaming at
//! the rate lichess allows its callers (20 games a second to anyone, 30
//! to a signed-in player, 60 to a player exporting their own).

use linkpath_api::{ApiError, ErrorCode};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Exports streaming at once, from every caller.
pub(crate) const MAX_EXPORTS: usize = 64;

/// Games a second an export streams: to anyone, to a signed-in player, to
/// a player exporting their own games.
pub(crate) const ANONYMOUS_RATE: u32 = 20;
pub(crate) const SIGNED_IN_RATE: u32 = 30;
pub(crate) const OWN_RATE: u32 = 60;

/// The callers whose exports stream now.
#[derive(Default)]
pub(crate) struct Exports {
    running: Mutex<HashSet<String>>,
}

/// An export under way: its caller's place, given back when dropped (the
/// stream ended or the client went away).
pub(crate) struct Running {
    exports: Arc<Exports>,
    caller: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        let mut running = self
            .exports
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        running.remove(&self.caller);
    }
}

impl Exports {
    /// A place for an export of `caller` (a player's id, or a client's
    /// address); 429 while one of theirs streams, 503 at [`MAX_EXPORTS`].
    pub(crate) fn start(self: &Arc<Exports>, caller: String) -> Result<Running, ApiError> {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if running.contains(&caller) {
            return Err(ApiError::new(
                ErrorCode::RateLimited,
                "an export of yours is streaming: one export a caller at a time, retry once it ends",
            )
            .retry_after(1));
        }
        if running.len() >= MAX_EXPORTS {
            return Err(ApiError::new(
                ErrorCode::Overloaded,
                format!(
                    "{MAX_EXPORTS} exports are streaming, as many as run at once: retry shortly"
                ),
            )
            .retry_after(1));
        }
        running.insert(caller.clone());
        Ok(Running {
            exports: self.clone(),
            caller,
        })
    }
}

/// How long after an export's start its game `index` (from 0) may be
/// sent, at `rate` games a second.
pub(crate) fn due(index: u64, rate: u32) -> Duration {
    let rate = u64::from(rate.max(1));
    Duration::from_millis(index.saturating_mul(1_000) / rate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_paced_at_the_rate() {
        assert_eq!(due(0, ANONYMOUS_RATE), Duration::ZERO);
        assert_eq!(due(1, ANONYMOUS_RATE), Duration::from_millis(50));
        assert_eq!(due(20, ANONYMOUS_RATE), Duration::from_secs(1));
        assert_eq!(due(30, SIGNED_IN_RATE), Duration::from_secs(1));
        assert_eq!(due(90, OWN_RATE), Duration::from_millis(1_500));
    }

    #[test]
    fn one_export_a_caller_at_a_time() {
        let exports = Arc::new(Exports::default());
        let first = exports.start("p1".to_owned()).unwrap();
        let again = exports.start("p1".to_owned()).err().unwrap();
        assert_eq!(
            (again.code, again.retry_after),
            (ErrorCode::RateLimited, Some(1))
        );
        let other = exports.start("p2".to_owned()).unwrap();
        drop(first);
        let _after = exports.start("p1".to_owned()).unwrap();
        drop(other);
        let held: Vec<Running> = (0..MAX_EXPORTS - 1)
            .map(|n| exports.start(format!("c{n}")).unwrap())
            .collect();
        let full = exports.start("late".to_owned()).err().unwrap();
        assert_eq!(full.code, ErrorCode::Overloaded);
        drop(held);
        assert!(exports.start("late".to_owned()).is_ok());
    }
}
