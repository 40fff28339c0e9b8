//! One memory budget for the whole process: the bytes of request bodies
//! being read and worked on, and of answers not yet written, counted
//! against one limit, as Envoy's overload manager and nginx's buffer
//! limits bound what clients can make a proxy hold.
//!
//! A request body is counted as it arrives; bytes that do not fit wait
//! briefly for room, then the request gets 503 with `Retry-After`. An answer is counted as it leaves the
//! handler and stays counted until the socket has written it or the
//! connection is closed. It is counted even past the limit (its work is
//! done, and throwing it away would waste it), and while the budget is over
//! its limit no new body is taken, so the overshoot is bounded by the
//! answers the solver slots can finish at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::Notify;

/// The bytes counted in the budget for each byte of a request body: the
/// body itself and what decoding it holds at most.
pub const COUNTED_PER_BODY_BYTE: usize = 2;

/// The process's budget; cheap to clone, every clone the same budget.
#[derive(Clone, Debug)]
pub struct MemoryBudget {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    limit: usize,
    used: AtomicUsize,
    /// Woken whenever bytes are given back, for bodies waiting for room.
    freed: Notify,
}

impl MemoryBudget {
    pub fn new(limit: usize) -> Self {
        MemoryBudget {
            inner: Arc::new(Inner {
                limit,
                used: AtomicUsize::new(0),
                freed: Notify::new(),
            }),
        }
    }

    pub fn limit(&self) -> usize {
        self.inner.limit
    }

    /// The bytes counted now.
    pub fn used(&self) -> usize {
        self.inner.used.load(Ordering::Relaxed)
    }

    /// `bytes` if they fit now.
    pub fn try_reserve(&self, bytes: usize) -> Option<Reservation> {
        self.try_add(bytes).then(|| Reservation {
            budget: self.clone(),
            bytes,
        })
    }

    /// `bytes` as soon as they fit, waiting at most `wait`.
    pub async fn reserve(&self, bytes: usize, wait: Duration) -> Option<Reservation> {
        if bytes > self.inner.limit {
            return None;
        }
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let freed = self.inner.freed.notified();
            tokio::pin!(freed);
            // Listen before trying, so that no release goes unseen.
            freed.as_mut().enable();
            if let Some(reservation) = self.try_reserve(bytes) {
                return Some(reservation);
            }
            tokio::select! {
                () = freed => {}
                () = tokio::time::sleep_until(deadline) => return self.try_reserve(bytes),
            }
        }
    }

    /// Counts `bytes` that are already held, fitting or not.
    pub fn charge(&self, bytes: usize) -> Reservation {
        self.inner.used.fetch_add(bytes, Ordering::AcqRel);
        Reservation {
            budget: self.clone(),
            bytes,
        }
    }

    /// An empty reservation, to grow as bytes arrive.
    pub fn empty(&self) -> Reservation {
        Reservation {
            budget: self.clone(),
            bytes: 0,
        }
    }

    fn try_add(&self, bytes: usize) -> bool {
        let limit = self.inner.limit;
        self.inner
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|&total| total <= limit)
            })
            .is_ok()
    }

    fn give_back(&self, bytes: usize) {
        if bytes > 0 {
            self.inner.used.fetch_sub(bytes, Ordering::AcqRel);
            self.inner.freed.notify_waiters();
        }
    }
}

/// Bytes counted against the budget until this is dropped.
#[derive(Debug)]
pub struct Reservation {
    budget: MemoryBudget,
    bytes: usize,
}

impl Reservation {
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Adds `bytes` if they fit now. The server grows a reservation only
    /// by waiting for room ([`Reservation::grow`]); the tests check the
    /// bound with this.
    #[cfg(test)]
    pub fn try_grow(&mut self, bytes: usize) -> bool {
        let grown = self.budget.try_add(bytes);
        if grown {
            self.bytes += bytes;
        }
        grown
    }

    /// Gives back all but `bytes`, when it holds more.
    pub fn shrink_to(&mut self, bytes: usize) {
        if bytes < self.bytes {
            self.budget.give_back(self.bytes - bytes);
            self.bytes = bytes;
        }
    }

    /// Adds `bytes` as soon as they fit, waiting at most `wait`.
    pub async fn grow(&mut self, bytes: usize, wait: Duration) -> bool {
        match self.budget.reserve(bytes, wait).await {
            Some(mut more) => {
                self.bytes += std::mem::take(&mut more.bytes);
                true
            }
            None => false,
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.give_back(self.bytes);
    }
}

/// The default budget: a quarter of the memory limit of the process's
/// cgroup when it has one, as the JVM sizes its heap from it; the rest is
/// for what the budget does not count: each solver's working memory (up to
/// about 100 MiB for a million cells), the runtime, and the pages the
/// allocator has not given back yet. 256 MiB without a limit.
pub(crate) fn default_budget() -> usize {
    cgroup_memory_limit().map_or(DEFAULT_BUDGET, |limit| {
        usize::try_from(limit / 4).unwrap_or(usize::MAX)
    })
}

pub(crate) const DEFAULT_BUDGET: usize = 256 << 20;

/// The memory limit of this process's cgroup, if it has one: its own
/// group's file as `/proc/self/cgroup` names it (v2, then v1), or the
/// mount's root, which is the container's own under a cgroup namespace.
fn cgroup_memory_limit() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let (v2, v1) = own_groups(&groups);
    let mut files = Vec::new();
    if let Some(path) = v2 {
        files.push(format!("/sys/fs/cgroup{path}/memory.max"));
    }
    if let Some(path) = v1 {
        files.push(format!("/sys/fs/cgroup/memory{path}/memory.limit_in_bytes"));
    }
    files.push("/sys/fs/cgroup/memory.max".to_owned());
    files.push("/sys/fs/cgroup/memory/memory.limit_in_bytes".to_owned());
    files
        .iter()
        .find_map(|file| std::fs::read_to_string(file).ok())
        .and_then(|text| parse_limit(&text))
}

/// The paths of this process's v2 group and v1 memory group, from the
/// lines of `/proc/self/cgroup` (`0::/path`, `4:memory:/path`).
fn own_groups(text: &str) -> (Option<&str>, Option<&str>) {
    let mut v2 = None;
    let mut v1 = None;
    for line in text.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if id == "0" && controllers.is_empty() {
            v2 = Some(path);
        } else if controllers.split(',').any(|c| c == "memory") {
            v1 = Some(path);
        }
    }
    (v2, v1)
}

/// A cgroup's limit file: a number of bytes, or `max` (v2) or a value near
/// `i64::MAX` (v1) for none.
fn parse_limit(text: &str) -> Option<u64> {
    let limit = text.trim().parse::<u64>().ok()?;
    // cgroup v1 writes "no limit" as the largest multiple of the page size.
    (limit < 1 << 62).then_some(limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cgroup_limit_reads_as_bytes_or_none() {
        assert_eq!(parse_limit("536870912\n"), Some(512 << 20));
        assert_eq!(parse_limit("max\n"), None);
        assert_eq!(parse_limit("9223372036854771712\n"), None);
        assert_eq!(parse_limit(""), None);
    }

    #[test]
    fn the_own_groups_are_read_from_proc_self_cgroup() {
        let text = "9:name=systemd:/\n4:memory:/pods/abc\n1:cpu,cpuacct:/\n0::/kubepods/pod1\n";
        assert_eq!(
            own_groups(text),
            (Some("/kubepods/pod1"), Some("/pods/abc"))
        );
        assert_eq!(own_groups("0::/\n"), (Some("/"), None));
        assert_eq!(own_groups(""), (None, None));
    }

    #[test]
    fn reservations_fit_the_limit_and_charges_may_pass_it() {
        let budget = MemoryBudget::new(100);
        let a = budget.try_reserve(60).expect("60 of 100 fit");
        assert!(budget.try_reserve(41).is_none());
        let mut b = budget.try_reserve(40).expect("40 more fit");
        assert!(!b.try_grow(1));
        assert_eq!(budget.used(), 100);
        let answer = budget.charge(50);
        assert_eq!(budget.used(), 150);
        drop(a);
        drop(answer);
        assert!(b.try_grow(60));
        assert_eq!(budget.used(), 100);
        drop(b);
        assert_eq!(budget.used(), 0);
    }

    #[test]
    fn a_reservation_shrinks_to_what_is_still_held() {
        let budget = MemoryBudget::new(100);
        let mut answer = budget.charge(150);
        answer.shrink_to(200);
        assert_eq!(budget.used(), 150);
        answer.shrink_to(30);
        assert_eq!((answer.bytes(), budget.used()), (30, 30));
        assert!(budget.try_reserve(70).is_some());
        drop(answer);
        assert_eq!(budget.used(), 0);
    }

    #[tokio::test]
    async fn a_reservation_grows_within_the_limit() {
        let budget = MemoryBudget::new(100);
        let mut reservation = budget.empty();
        assert!(reservation.grow(70, Duration::from_millis(10)).await);
        assert!(!reservation.grow(31, Duration::from_millis(10)).await);
        assert!(reservation.grow(30, Duration::from_millis(10)).await);
        assert_eq!((reservation.bytes(), budget.used()), (100, 100));
        drop(reservation);
        assert_eq!(budget.used(), 0);
    }

    #[tokio::test]
    async fn a_waiting_reservation_takes_the_room_given_back() {
        let budget = MemoryBudget::new(100);
        let held = budget.try_reserve(80).expect("80 fit");
        let waiting = tokio::spawn({
            let budget = budget.clone();
            async move { budget.reserve(50, Duration::from_secs(60)).await }
        });
        tokio::task::yield_now().await;
        drop(held);
        let reservation = waiting.await.expect("no panic").expect("room given back");
        assert_eq!(reservation.bytes(), 50);
        assert!(budget.reserve(101, Duration::from_secs(60)).await.is_none());
    }

    #[tokio::test]
    async fn a_reservation_that_never_fits_gives_up_after_its_wait() {
        let budget = MemoryBudget::new(100);
        let _held = budget.try_reserve(80).expect("80 fit");
        assert!(
            budget
                .reserve(50, Duration::from_millis(10))
                .await
                .is_none()
        );
    }
}
