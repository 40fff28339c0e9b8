//! Stopping a search from outside: a deadline and a cancellation flag that
//! the search loops poll, so a solve that runs too long frees its thread.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// When a search must give up. Polling is cheap: the clock is read only
/// every [`Stop::POLL_EVERY`] calls to [`Stop::tick`].
#[derive(Debug, Default, Clone, Copy)]
pub struct Stop<'a> {
    deadline: Option<Instant>,
    cancelled: Option<&'a AtomicBool>,
}

/// The search was stopped before it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Interrupted {
    #[error("the search passed its deadline")]
    Deadline,
    #[error("the search was cancelled")]
    Cancelled,
}

impl<'a> Stop<'a> {
    /// How many units of work pass between two looks at the clock.
    pub const POLL_EVERY: u32 = 4096;

    /// Never stops.
    pub fn never() -> Self {
        Stop::default()
    }

    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    pub fn with_flag(mut self, cancelled: &'a AtomicBool) -> Self {
        self.cancelled = Some(cancelled);
        self
    }

    /// The same stop with its deadline moved up to `instant` when that comes
    /// first: a budget inside the caller's deadline.
    pub fn sooner(&self, instant: Instant) -> Self {
        Stop {
            deadline: Some(self.deadline.map_or(instant, |d| d.min(instant))),
            cancelled: self.cancelled,
        }
    }

    /// Checks now whether the search must stop.
    pub fn check(&self) -> Result<(), Interrupted> {
        if self.cancelled.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(Interrupted::Cancelled);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Interrupted::Deadline);
        }
        Ok(())
    }

    /// Counts one unit of work and checks every [`Stop::POLL_EVERY`] units.
    #[inline]
    pub fn tick(&self, counter: &mut u32) -> Result<(), Interrupted> {
        *counter += 1;
        if *counter >= Self::POLL_EVERY {
            *counter = 0;
            self.check()
        } else {
            Ok(())
        }
    }
}
