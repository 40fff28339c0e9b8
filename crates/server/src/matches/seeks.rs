//! Seeks: a player asks for a race on some settings and waits, a
//! long-poll, until enough players seek the same settings with ratings
//! near enough; then every one of them is answered the same new match,
//! full, its countdown running. It knows no HTTP, as the other services.
//!
//! The seekers are in the store (`linkpath_store`'s `seeks.rs`), so that
//! seekers on different replicas of one Redis meet. Each waiting request
//! polls every [`POLL`]: whether a pairing took it (each poll refreshing
//! its entry, which expires [`ENTRY_TTL_MS`] after the last, so a client
//! that went away is never seated), and if not, a pairing of its key
//! under a fresh match id, which takes the seekers at once. Each request
//! seated makes the match under that id if nobody has yet, so a replica
//! that stops between the pairing and the match leaves no seat in a
//! match that does not exist.

use crate::games::errors::unavailable;
use crate::games::service::Answer;
use crate::matches::Matches;
use crate::metrics;
use crate::players::Players;
use crate::players::service::SignedIn;
use linkpath_api::matches::{Entrant, SeekRequest};
use linkpath_api::{ApiError, ErrorCode};
use linkpath_store::{Pairing, Seat, SeekWrite, Seeking, Store};
use std::ops::Deref;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};

/// How often a waiting seek looks whether it was seated.
const POLL: Duration = Duration::from_millis(100);

/// How long a seek's entry outlives its last refresh: a client gone is
/// forgotten within this.
pub(crate) const ENTRY_TTL_MS: u64 = 5_000;

/// How long a pairing's seats are kept for their requests to find.
const SEAT_KEPT_MS: u64 = 60_000;

/// The rating of a player never rated: Glicko-2's start.
const UNRATED: f64 = 1_500.0;

/// What a seek came to.
pub(crate) enum Sought {
    /// Seated: the match, as every seeker seated is answered.
    Seated(Answer),
    /// No partner within the wait (or the seek was replaced by a newer
    /// one of the same player, or the server is stopping): seek again.
    Unseated,
}

/// The seeks waiting here, their bounds and settings.
pub(crate) struct Seeks {
    matches: Arc<Matches>,
    players: Arc<Players>,
    store: Arc<Store>,
    /// How long a seek waits (`LINKPATH_SEEK_WAIT_MS`).
    wait_ms: u64,
    /// How far ratings may be apart (`LINKPATH_SEEK_RATING_RANGE`).
    range: f64,
    /// Seeks waiting at once, within `LINKPATH_MAX_SEEKS`.
    slots: Arc<Semaphore>,
    max: usize,
    /// True once the server is stopping: waiting seeks end.
    closing: watch::Sender<bool>,
    /// How many seeks wait here now.
    waiting: watch::Sender<usize>,
}

impl Seeks {
    pub fn new(
        matches: Arc<Matches>,
        players: Arc<Players>,
        wait_ms: u64,
        range: u32,
        max: usize,
    ) -> Seeks {
        metrics::record_seeks_waiting(0);
        Seeks {
            store: matches.store.clone(),
            matches,
            players,
            wait_ms,
            range: f64::from(range),
            slots: Arc::new(Semaphore::new(max)),
            max,
            closing: watch::channel(false).0,
            waiting: watch::channel(0).0,
        }
    }

    /// Ends every waiting seek (unseated), and every one to come: the
    /// server is stopping.
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// How many seeks wait here, as it changes.
    pub fn waiting(&self) -> watch::Receiver<usize> {
        self.waiting.subscribe()
    }

    /// `player` seeks a race on the settings of `body`, waiting at most
    /// the configured time for partners.
    pub async fn seek<B>(&self, body: B, player: &SignedIn) -> Result<Sought, ApiError>
    where
        B: Deref<Target = [u8]> + Send + 'static,
    {
        let permit = self.slots.clone().try_acquire_owned().map_err(|_| {
            ApiError::new(
                ErrorCode::Overloaded,
                format!(
                    "{} seeks wait here already, as many as allowed; seek again shortly",
                    self.max
                ),
            )
            .retry_after(1)
        })?;
        let settings = self.matches.read_seek(body).await?;
        let rating = player.player.rating.map_or(UNRATED, |r| r.rating);
        let ticket = crate::random::id("a seek's ticket")?;
        let started = Instant::now();
        let now = self.matches.now();
        let deadline = now.saturating_add(self.wait_ms);
        let seek = SeekWrite {
            key: settings.key.clone(),
            player: player.id().to_owned(),
            ticket,
            rating,
            expires_at_ms: now + ENTRY_TTL_MS,
        };
        self.store
            .seek(seek.clone(), now)
            .await
            .map_err(unavailable)?;
        let mut waiter = Waiter::new(self, &seek, permit);
        let mut closing = self.closing.subscribe();
        loop {
            let now = self.matches.now();
            let found = self
                .store
                .seated(&seek.player, &seek.ticket, now + ENTRY_TTL_MS, now)
                .await
                .map_err(unavailable)?;
            let waiting = found == Seeking::Waiting;
            let seat = match found {
                Seeking::Seated(seat) => Some(seat),
                Seeking::Gone => None,
                Seeking::Waiting if *closing.borrow() => None,
                // At the deadline too: a last chance before answering 204.
                Seeking::Waiting => self.pair(&settings, &seek.player, now).await?,
            };
            if let Some(seat) = seat {
                waiter.seated = true;
                metrics::record_seek("seated", started);
                let answer = self.seated(&settings, &seat).await?;
                return Ok(Sought::Seated(answer));
            }
            if !waiting || now >= deadline || *closing.borrow() {
                metrics::record_seek("timed_out", started);
                return Ok(Sought::Unseated);
            }
            tokio::select! {
                () = tokio::time::sleep(POLL) => {}
                _ = closing.wait_for(|closing| *closing) => {}
            }
        }
    }

    /// Pairs the seekers of `settings`' key into a new match: `player`'s
    /// seat if they are among those taken.
    async fn pair(
        &self,
        settings: &SeekRequest,
        player: &str,
        now: u64,
    ) -> Result<Option<Seat>, ApiError> {
        let pairing = Pairing {
            key: settings.key.clone(),
            seats: settings.request.seats,
            range: self.range,
            match_id: crate::random::id("a match id")?,
            kept_until_ms: now + SEAT_KEPT_MS,
        };
        let taken = self.store.pair(&pairing, now).await.map_err(unavailable)?;
        Ok(taken
            .filter(|players| players.iter().any(|p| p == player))
            .map(|players| Seat {
                match_id: pairing.match_id,
                players,
            }))
    }

    /// The match of `seat`, made if nobody has made it yet.
    async fn seated(&self, settings: &SeekRequest, seat: &Seat) -> Result<Answer, ApiError> {
        let now = self.matches.now();
        let mut entrants = Vec::with_capacity(seat.players.len());
        for id in &seat.players {
            let name = self
                .players
                .find(id, now)
                .await?
                .map(|found| found.player.name.clone())
                .unwrap_or_default();
            entrants.push(Entrant {
                id: id.clone(),
                name,
            });
        }
        let request = settings.for_match(&seat.match_id);
        self.matches
            .seat(&seat.match_id, request, &entrants, now)
            .await
    }
}

/// A seek waiting: counted while it lives, and its entry removed when it
/// ends unseated, however it ends (answered, or its client gone).
struct Waiter {
    store: Arc<Store>,
    player: String,
    ticket: String,
    waiting: watch::Sender<usize>,
    seated: bool,
    _permit: OwnedSemaphorePermit,
}

impl Waiter {
    fn new(seeks: &Seeks, seek: &SeekWrite, permit: OwnedSemaphorePermit) -> Waiter {
        seeks.waiting.send_modify(|n| *n += 1);
        metrics::record_seeks_waiting(*seeks.waiting.borrow());
        Waiter {
            store: seeks.store.clone(),
            player: seek.player.clone(),
            ticket: seek.ticket.clone(),
            waiting: seeks.waiting.clone(),
            seated: false,
            _permit: permit,
        }
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        self.waiting.send_modify(|n| *n -= 1);
        metrics::record_seeks_waiting(*self.waiting.borrow());
        if self.seated {
            return;
        }
        let (store, player, ticket) = (
            self.store.clone(),
            std::mem::take(&mut self.player),
            std::mem::take(&mut self.ticket),
        );
        // Dropped with its request, maybe outside any task: the removal
        // runs on its own; should it not, the entry expires.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(e) = store.unseek(&player, &ticket).await {
                    tracing::warn!(error = %e, "a seek that ended was left to expire");
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::state::AppState;
    use axum::extract::FromRef;
    use linkpath_api::matches::MatchStatus;

    /// A replica paired Ann with Bob and stopped before it made their
    /// match (Bob's request gone with it): Ann's request, here, finds its
    /// seat and makes the match under the pairing's id.
    #[tokio::test]
    async fn a_pairing_whose_replica_stopped_is_made_by_a_seated_request() {
        let state = AppState::new(Config::default());
        let seeks = Arc::<Seeks>::from_ref(&state);
        let players = Arc::<Players>::from_ref(&state);
        let now = seeks.matches.now();
        let mut signed = Vec::new();
        for name in ["Ann", "Bob"] {
            let (player, _) = players.sign_up(name.into(), now).await.unwrap();
            signed.push(SignedIn::new(player, 0, u64::MAX, None));
        }
        let body = br#"{"game": {"width": 6, "height": 4, "types": 6}, "seats": 2}"#.to_vec();
        let key = seeks.matches.read_seek(body.clone()).await.unwrap().key;
        let mut waiting = seeks.waiting();
        let ann = {
            let (seeks, ann) = (seeks.clone(), signed[0].clone());
            tokio::spawn(async move { seeks.seek(body, &ann).await })
        };
        waiting.wait_for(|w| *w == 1).await.unwrap();
        // The other replica's work: Bob's seek, the pairing, then nothing.
        let bob = SeekWrite {
            key: key.clone(),
            player: signed[1].id().to_owned(),
            ticket: "bob's".into(),
            rating: UNRATED,
            expires_at_ms: now + ENTRY_TTL_MS,
        };
        seeks.store.seek(bob, now).await.unwrap();
        let id = "ab".repeat(16);
        let pairing = Pairing {
            key,
            seats: 2,
            range: 300.0,
            match_id: id.clone(),
            kept_until_ms: now + SEAT_KEPT_MS,
        };
        let taken = seeks.store.pair(&pairing, now).await.unwrap();
        let ids: Vec<String> = signed.iter().map(|s| s.id().to_owned()).collect();
        assert_eq!(taken.as_ref(), Some(&ids));
        let Ok(Ok(Sought::Seated(Answer::Game { id: answered, .. }))) = ann.await else {
            panic!("Ann was not seated");
        };
        assert_eq!(answered, id);
        let (record, _) = seeks.matches.read(&id, seeks.matches.now()).await.unwrap();
        assert_eq!(record.status, MatchStatus::Countdown);
        let seated: Vec<&str> = record.seats.iter().map(|s| s.player.as_str()).collect();
        assert_eq!(seated, ids);
    }
}
