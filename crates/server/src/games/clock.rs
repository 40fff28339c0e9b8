//! The games' time: milliseconds since the Unix epoch, read from a
//! [`Clock`] the service is given, so that tests can hold time still and
//! move it on instead of sleeping.

use std::time::{SystemTime, UNIX_EPOCH};

/// Where the games' time comes from.
pub trait Clock: Send + Sync {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;
}

/// The machine's clock.
pub(crate) struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
    }
}
