//! Which connections are open and what each is doing: the cap on open
//! connections, the cap per client address, and the choice of an idle
//! connection to close when a new client needs the room.
//!
//! A connection is idle from the moment it is accepted, or its last answer
//! is done, until the first byte of its next request arrives; nginx calls
//! such connections reusable and closes them, longest idle first, when it
//! runs out of connections. A connection lingering after an early answer
//! (see [`super::socket`]) counts as idle too: its answer is sent, and
//! closing it costs its client no more than not lingering would.
//!
//! A connection is receiving while a request's headers or body arrive. One
//! that sends slower than the minimum rate, once past its grace, is cut
//! (closed at once, its request dropped); at the cap, when none is idle,
//! every sender under that rate is cut to make room.
//!
//! An answer's bytes are counted in the memory budget from the moment it
//! leaves the handler until the socket has written them all, or the
//! connection closes.

use super::budget::{MemoryBudget, Reservation};
use axum::body::Body;
use axum::http::{HeaderValue, Request, Response, header};
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, TryAcquireError};

/// How long an idle connection asked to make room has to close before the
/// next idle one is asked instead: closing takes a millisecond unless the
/// connection is still writing its last answer to a slow reader.
const GIVE_WAY: Duration = Duration::from_millis(250);

/// How long a sender is watched before its rate can make it give way at
/// the cap: long enough that one packet's worth is not taken for a rate.
const MEASURED_FOR: Duration = Duration::from_millis(100);

/// The slowest a request may be sent, and after how long that applies.
#[derive(Clone, Copy, Debug)]
pub(super) struct ReceiveRate {
    /// Bytes a second; 0: no minimum.
    pub min: u64,
    pub grace: Duration,
}

/// The open connections of one server.
pub(super) struct Connections {
    slots: Arc<Semaphore>,
    per_client: usize,
    rate: ReceiveRate,
    shared: Arc<Shared>,
}

/// What the connections themselves update.
struct Shared {
    /// Ticks once each time a connection goes idle, so that the smallest
    /// `idle_since` is the longest idle.
    clock: AtomicU64,
    /// Woken whenever a connection goes idle, or declines to close, for a
    /// client waiting for room.
    went_idle: Notify,
    /// A client waits for room: only then is `went_idle` worth waking,
    /// which takes a lock.
    waiting: AtomicBool,
    open: Mutex<Open>,
    /// Where answers are counted.
    memory: MemoryBudget,
}

impl Shared {
    fn wake_waiting(&self) {
        // Against `Connections::slot`: either it sees this connection's new
        // state when it looks, or this sees it waiting.
        if self.waiting.load(Ordering::SeqCst) {
            self.went_idle.notify_waiters();
        }
    }
}

#[derive(Default)]
struct Open {
    next_id: u64,
    links: HashMap<u64, Arc<Link>>,
    per_client: HashMap<IpAddr, usize>,
}

impl Connections {
    /// At most `max` open connections (at least one), and at most
    /// `per_client` from one address (0: any number); requests sent at
    /// `rate` at least; answers counted in `memory`.
    pub(super) fn new(
        max: usize,
        per_client: usize,
        rate: ReceiveRate,
        memory: MemoryBudget,
    ) -> Self {
        Connections {
            slots: Arc::new(Semaphore::new(max.max(1))),
            per_client,
            rate,
            shared: Arc::new(Shared {
                clock: AtomicU64::new(0),
                went_idle: Notify::new(),
                waiting: AtomicBool::new(false),
                open: Mutex::new(Open::default()),
                memory,
            }),
        }
    }

    fn open(&self) -> MutexGuard<'_, Open> {
        // The map stays consistent whatever panicked while holding it.
        self.shared
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `client` may open one more connection.
    pub(super) fn admits(&self, client: IpAddr) -> bool {
        self.per_client == 0
            || self.open().per_client.get(&client).copied().unwrap_or(0) < self.per_client
    }

    /// The per-client limit (0: none).
    pub(super) fn per_client(&self) -> usize {
        self.per_client
    }

    /// A slot if one is free now.
    pub(super) fn try_slot(&self) -> Option<OwnedSemaphorePermit> {
        self.slots.clone().try_acquire_owned().ok()
    }

    /// A free connection slot. While there is none, the longest idle
    /// connection is asked to close, one at a time; when none is idle this
    /// waits until a connection closes or goes idle. `None` only if the
    /// slots are closed, which they never are.
    pub(super) async fn slot(&self) -> Option<OwnedSemaphorePermit> {
        loop {
            match self.slots.clone().try_acquire_owned() {
                Ok(permit) => return Some(permit),
                Err(TryAcquireError::Closed) => return None,
                Err(TryAcquireError::NoPermits) => {}
            }
            let went_idle = self.shared.went_idle.notified();
            tokio::pin!(went_idle);
            // Listen before looking, so that no connection goes idle unseen.
            self.shared.waiting.store(true, Ordering::SeqCst);
            went_idle.as_mut().enable();
            if !self.close_longest_idle() {
                self.cut_senders_under_rate();
            }
            let permit = tokio::select! {
                biased;
                permit = self.slots.clone().acquire_owned() => Some(permit.ok()),
                () = went_idle => None,
                // A sender becomes measurable, and so slow enough to give
                // way, with time alone.
                () = tokio::time::sleep(MEASURED_FOR), if self.rate.min > 0 => None,
            };
            if let Some(permit) = permit {
                self.shared.waiting.store(false, Ordering::SeqCst);
                return permit;
            }
        }
    }

    /// Asks the longest idle connection to close, unless one asked a moment
    /// ago is still idle and on its way out. One asked longer ago is still
    /// writing its last answer to a slow reader: room is sought elsewhere.
    /// Whether an idle connection is, or was just asked to be, on its way
    /// out.
    fn close_longest_idle(&self) -> bool {
        let open = self.open();
        let mut longest: Option<(u64, &Arc<Link>)> = None;
        for link in open.links.values() {
            let since = link.idle_since.load(Ordering::SeqCst);
            if since == 0 {
                continue;
            }
            if link.asked_to_close.load(Ordering::Acquire) {
                let asked = *link.asked_at.lock().unwrap_or_else(PoisonError::into_inner);
                if asked.is_some_and(|at| at.elapsed() < GIVE_WAY) {
                    return true;
                }
                continue;
            }
            if longest.is_none_or(|(oldest, _)| since < oldest) {
                longest = Some((since, link));
            }
        }
        if let Some((_, link)) = longest {
            tracing::debug!(client = %link.client, "closing an idle connection to make room");
            link.asked_to_close.store(true, Ordering::SeqCst);
            *link.asked_at.lock().unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
            link.close.notify_one();
            return true;
        }
        false
    }

    /// Cuts every connection sending its request under the minimum rate,
    /// once watched long enough: at the cap they forgo the rest of their
    /// grace, and the clients queued behind them get their room at once
    /// rather than one at a time.
    fn cut_senders_under_rate(&self) {
        if self.rate.min == 0 {
            return;
        }
        let now = Instant::now();
        let open = self.open();
        for link in open.links.values() {
            if let Some((elapsed, rate)) = link.receive_rate(now)
                && elapsed >= MEASURED_FOR
                && rate < self.rate.min as f64
            {
                tracing::debug!(client = %link.client, rate, "cutting a slow sender to make room");
                link.cut(Cut::Room);
            }
        }
    }

    /// Cuts every connection that, sending its request's headers or body,
    /// received under the minimum rate over the last grace period; the
    /// periods follow one another, so a burst does not pay for a stall
    /// after it. The server calls this a few times a second.
    pub(super) fn cut_slow_senders(&self) {
        if self.rate.min == 0 {
            return;
        }
        let now = Instant::now();
        let open = self.open();
        for link in open.links.values() {
            let Some((elapsed, rate)) = link.receive_rate(now) else {
                continue;
            };
            if elapsed < self.rate.grace {
                continue;
            }
            if rate < self.rate.min as f64 {
                tracing::debug!(client = %link.client, rate, "cutting a connection sending under the minimum rate");
                link.cut(Cut::TooSlow);
            } else {
                link.next_period(now);
            }
        }
    }

    /// Registers a connection just accepted from `client`, holding `slot`
    /// (none during the shutdown grace) until it closes.
    pub(super) fn register(
        &self,
        client: IpAddr,
        slot: Option<OwnedSemaphorePermit>,
    ) -> Registration {
        let mut open = self.open();
        open.next_id += 1;
        let id = open.next_id;
        let link = Arc::new(Link {
            client,
            idle_since: AtomicU64::new(0),
            lingering: AtomicBool::new(false),
            body_unread: AtomicBool::new(false),
            asked_to_close: AtomicBool::new(false),
            asked_at: Mutex::new(None),
            close: Notify::new(),
            received: AtomicU64::new(0),
            receiving: Mutex::new(None),
            written: AtomicU64::new(0),
            unwritten: Mutex::new(None),
            unwritten_until: AtomicU64::new(0),
            cut: Notify::new(),
            is_cut: AtomicBool::new(false),
            shared: self.shared.clone(),
        });
        // Connected and silent: idle until its first byte.
        link.went_idle();
        open.links.insert(id, link.clone());
        *open.per_client.entry(client).or_default() += 1;
        Registration {
            id,
            link,
            connections: self.shared.clone(),
            _slot: slot,
        }
    }
}

/// An open connection's place among the open connections; dropping it (when
/// the connection has closed) frees the place and then the slot.
pub(super) struct Registration {
    id: u64,
    link: Arc<Link>,
    connections: Arc<Shared>,
    _slot: Option<OwnedSemaphorePermit>,
}

impl Registration {
    pub(super) fn link(&self) -> &Arc<Link> {
        &self.link
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut open = self
            .connections
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        open.links.remove(&self.id);
        // Its last answer will never be written now.
        self.link.unwritten_lock().take();
        if let Some(count) = open.per_client.get_mut(&self.link.client) {
            *count -= 1;
            if *count == 0 {
                open.per_client.remove(&self.link.client);
            }
        }
    }
}

/// What one connection is doing, seen by its socket, its requests and the
/// other connections.
pub(super) struct Link {
    client: IpAddr,
    /// The tick at which the connection last went idle; 0 while busy.
    idle_since: AtomicU64,
    /// Reading and discarding a body after an early answer.
    lingering: AtomicBool,
    /// The last request's body was not read to its end.
    body_unread: AtomicBool,
    /// Asked to close, to make room for a new client or by the shutdown.
    asked_to_close: AtomicBool,
    /// When it was last asked to make room.
    asked_at: Mutex<Option<Instant>>,
    close: Notify,
    /// Bytes read from the socket so far.
    received: AtomicU64,
    /// While a request's headers or body arrive: since when, and
    /// `received` then.
    receiving: Mutex<Option<(Instant, u64)>>,
    /// Bytes written to the socket so far.
    written: AtomicU64,
    /// The memory of an answer hyper still holds, until `written` reaches
    /// the mark.
    unwritten: Mutex<Option<(u64, Reservation)>>,
    /// That mark, 0 when none: looked at on every write without the lock.
    unwritten_until: AtomicU64,
    /// Asked to close at once, request or not.
    cut: Notify,
    is_cut: AtomicBool,
    shared: Arc<Shared>,
}

/// Why a connection is cut.
#[derive(Clone, Copy, Debug)]
enum Cut {
    /// It sent under the minimum rate past its grace.
    TooSlow,
    /// A sender under the minimum rate, to make room at the cap.
    Room,
}

impl Link {
    fn receiving_lock(&self) -> MutexGuard<'_, Option<(Instant, u64)>> {
        self.receiving
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn unwritten_lock(&self) -> MutexGuard<'_, Option<(u64, Reservation)>> {
        self.unwritten
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// How long the request under way has been arriving, and at how many
    /// bytes a second; `None` when nothing is arriving.
    fn receive_rate(&self, now: Instant) -> Option<(Duration, f64)> {
        let (since, at) = (*self.receiving_lock())?;
        let elapsed = now.saturating_duration_since(since);
        let bytes = self.received.load(Ordering::Relaxed).saturating_sub(at);
        Some((elapsed, bytes as f64 / elapsed.as_secs_f64().max(1e-3)))
    }

    fn start_receiving(&self) {
        *self.receiving_lock() = Some((Instant::now(), self.received.load(Ordering::Relaxed)));
    }

    /// Starts the next period over which the rate is measured, if the
    /// request is still arriving.
    fn next_period(&self, now: Instant) {
        let mut receiving = self.receiving_lock();
        if receiving.is_some() {
            *receiving = Some((now, self.received.load(Ordering::Relaxed)));
        }
    }

    fn stop_receiving(&self) {
        *self.receiving_lock() = None;
    }

    fn cut(&self, why: Cut) {
        // Once: the connection closes at its next poll.
        if self.is_cut.swap(true, Ordering::AcqRel) {
            return;
        }
        super::metrics::record_cut(match why {
            Cut::TooSlow => "too_slow",
            Cut::Room => "room",
        });
        self.cut.notify_one();
    }

    /// Resolves when the connection is to close at once.
    pub(super) async fn cut_off(&self) {
        self.cut.notified().await;
    }

    /// The socket read `bytes`.
    pub(super) fn read(&self, bytes: usize) {
        self.received.fetch_add(bytes as u64, Ordering::Relaxed);
        self.busy();
    }

    /// The socket wrote `bytes`: an answer they complete is no longer held.
    pub(super) fn wrote(&self, bytes: usize) {
        let written = self.written.fetch_add(bytes as u64, Ordering::Relaxed) + bytes as u64;
        let until = self.unwritten_until.load(Ordering::Acquire);
        if until != 0 && written >= until {
            self.unwritten_until.store(0, Ordering::Release);
            self.unwritten_lock().take();
        }
    }

    fn went_idle(&self) {
        let tick = self.shared.clock.fetch_add(1, Ordering::AcqRel) + 1;
        self.idle_since.store(tick, Ordering::SeqCst);
        self.shared.wake_waiting();
    }

    /// Request bytes arrived. A connection asked to close to make room
    /// declines once it turns out busy, and the room is sought elsewhere.
    pub(super) fn busy(&self) {
        if self.idle_since.load(Ordering::Relaxed) != 0 {
            self.idle_since.store(0, Ordering::SeqCst);
            self.start_receiving();
            if self.asked_to_close.swap(false, Ordering::SeqCst) {
                self.shared.wake_waiting();
            }
        }
    }

    /// Resolves when the connection is asked to close to make room; it may
    /// have declined since, see [`Link::is_asked_to_close`].
    pub(super) async fn asked_to_close(&self) {
        self.close.notified().await;
    }

    pub(super) fn is_asked_to_close(&self) -> bool {
        self.asked_to_close.load(Ordering::SeqCst)
    }

    /// For the server's shutdown: no lingering from now on. Whether the
    /// connection is lingering already, to be closed at once.
    pub(super) fn stop_lingering(&self) -> bool {
        self.asked_to_close.store(true, Ordering::SeqCst);
        self.is_lingering()
    }

    pub(super) fn is_lingering(&self) -> bool {
        self.lingering.load(Ordering::SeqCst)
    }

    /// Called as the connection is asked to close, by the server's shutdown
    /// or to make room: if it is idle, its last request's body was read
    /// (hyper keeps a connection only then), so closing it needs no
    /// lingering.
    pub(super) fn closing(&self) {
        if self.idle_since.load(Ordering::Acquire) != 0 && !self.is_lingering() {
            self.body_unread.store(false, Ordering::Release);
        }
    }

    /// Whether the socket should linger as it closes: the last request's
    /// body was left unread. Marks the connection lingering when it should.
    pub(super) fn start_lingering(&self) -> bool {
        if !self.body_unread.swap(false, Ordering::AcqRel) {
            return false;
        }
        // Against `close_longest_idle` and the connection's task: either
        // this sees the request to close, or the task sees the lingering
        // and drops the connection.
        self.lingering.store(true, Ordering::SeqCst);
        if self.asked_to_close.load(Ordering::SeqCst) {
            self.lingering.store(false, Ordering::SeqCst);
            return false;
        }
        self.went_idle();
        true
    }

    /// A request arrived: its body is tracked until read to its end.
    pub(super) fn request<B: HttpBody + Unpin>(
        self: &Arc<Self>,
        request: Request<B>,
    ) -> Request<RequestBody<B>> {
        self.busy();
        // The headers are in; the body's rate is watched from when the
        // handler starts reading it.
        self.stop_receiving();
        let unread = !request.body().is_end_stream();
        self.body_unread.store(unread, Ordering::Release);
        request.map(|inner| RequestBody {
            inner,
            link: self.clone(),
            started: false,
        })
    }

    /// Its answer: the connection is idle again once the answer's body is
    /// done with. An answer sent before the request body was read says
    /// that the connection closes after it, as it does (and lingers).
    pub(super) fn response(
        self: &Arc<Self>,
        mut response: Response<Body>,
    ) -> Response<ResponseBody> {
        if self.body_unread.load(Ordering::Acquire) {
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        // A compressed body cannot tell its size: the size it had before
        // is what the encoder holds.
        let bytes = response.body().size_hint().lower().max(
            response
                .extensions()
                .get::<super::compress::Uncompressed>()
                .map_or(0, |u| u.0),
        );
        let memory = self
            .shared
            .memory
            .charge(usize::try_from(bytes).unwrap_or(usize::MAX));
        let start = self.written.load(Ordering::Relaxed);
        response.map(|inner| ResponseBody {
            inner,
            link: self.clone(),
            start,
            sent: 0,
            memory: Some(memory),
        })
    }
}

/// A request body that tells its connection when it has been read to the
/// end.
pub(super) struct RequestBody<B> {
    inner: B,
    link: Arc<Link>,
    /// The handler has begun reading it.
    started: bool,
}

impl<B: HttpBody + Unpin> HttpBody for RequestBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        if !self.started {
            self.started = true;
            self.link.start_receiving();
        }
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        let ended = match &polled {
            Poll::Ready(None) => true,
            Poll::Ready(Some(Ok(_))) => self.inner.is_end_stream(),
            _ => false,
        };
        if ended {
            self.link.body_unread.store(false, Ordering::Release);
            self.link.stop_receiving();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// An answer's body that marks its connection idle once hyper drops it,
/// sent or not, and keeps its bytes counted until they are written.
pub(super) struct ResponseBody {
    inner: Body,
    link: Arc<Link>,
    /// The socket's `written` when the answer left the handler.
    start: u64,
    /// The bytes handed to hyper so far (compressed, when it is).
    sent: u64,
    /// Its memory: the body as the handler built it, until dropped, then
    /// what hyper still has to write.
    memory: Option<Reservation>,
}

impl HttpBody for ResponseBody {
    type Data = <Body as HttpBody>::Data;
    type Error = <Body as HttpBody>::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled
            && let Some(data) = frame.data_ref()
        {
            self.sent += data.len() as u64;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for ResponseBody {
    fn drop(&mut self) {
        // The answer may still sit in hyper's write buffer: closing the
        // connection now goes through hyper's graceful shutdown, which
        // finishes the answer first.
        let mark = self.start + self.sent;
        if let Some(mut memory) = self.memory.take()
            && self.link.written.load(Ordering::Relaxed) < mark
        {
            // The body the handler built is gone; what hyper was handed
            // stays until written.
            memory.shrink_to(usize::try_from(self.sent).unwrap_or(usize::MAX));
            *self.link.unwritten_lock() = Some((mark, memory));
            self.link.unwritten_until.store(mark, Ordering::Release);
        }
        self.link.went_idle();
    }
}
