//! Counts per client address in a fixed window of time: how many unknown
//! tokens an address sent this minute, how many players it signed up this
//! hour. Past the limit, the address is refused until the window is over.
//! A fixed window, counted only on what the limit is about, so that a
//! player's good token or an address's other requests spend nothing.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The most addresses counted in one window; past it a new address is
/// not counted (each address counted keeps its limit), so that the table
/// is bounded whatever a crowd of addresses sends.
const ADDRESSES: usize = 100_000;

/// What each address did in the current window.
#[derive(Clone)]
pub(crate) struct PerAddress {
    limit: u32,
    length: Duration,
    window: Arc<Mutex<Window>>,
}

#[derive(Default)]
struct Window {
    started: Option<Instant>,
    counts: HashMap<IpAddr, u32>,
}

impl PerAddress {
    /// At most `limit` a window of `length`.
    pub(crate) fn new(limit: u32, length: Duration) -> PerAddress {
        PerAddress {
            limit,
            length,
            window: Arc::default(),
        }
    }

    /// The window now: a new one, empty, once the last is over.
    fn window(&self) -> MutexGuard<'_, Window> {
        let mut window = self
            .window
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let now = Instant::now();
        if window
            .started
            .is_none_or(|started| now.duration_since(started) >= self.length)
        {
            window.started = Some(now);
            window.counts.clear();
        }
        window
    }

    /// Whether `address` is under its limit, and if not, the whole seconds
    /// until the window is over.
    pub(crate) fn allows(&self, address: IpAddr) -> Result<(), u64> {
        let window = self.window();
        match window.counts.get(&address) {
            Some(&count) if count >= self.limit => {
                let started = window.started.unwrap_or_else(Instant::now);
                let left = self.length.saturating_sub(started.elapsed());
                Err(left.as_secs().max(1))
            }
            _ => Ok(()),
        }
    }

    /// Counts one for `address`.
    pub(crate) fn count(&self, address: IpAddr) {
        let mut window = self.window();
        if window.counts.len() < ADDRESSES || window.counts.contains_key(&address) {
            *window.counts.entry(address).or_default() += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn an_address_past_its_limit_waits_for_the_window() {
        let limit = PerAddress::new(2, Duration::from_secs(3600));
        let (a, b) = (
            IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V4(Ipv4Addr::BROADCAST),
        );
        assert_eq!(limit.allows(a), Ok(()));
        limit.count(a);
        limit.count(a);
        let refused = limit.allows(a).unwrap_err();
        assert!((3599..=3600).contains(&refused), "{refused}");
        assert_eq!(limit.allows(b), Ok(()));
        // A window that is over starts again empty.
        let short = PerAddress::new(1, Duration::ZERO);
        short.count(a);
        assert_eq!(short.allows(a), Ok(()));
    }
}
