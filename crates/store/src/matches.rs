//! Matches as the store keeps them: several players racing on one deal.
//! A match is opaque bytes with a version and an expiry, as a game, and
//! the time its next timer is due (a countdown's end, a time limit, an
//! open match's expiry), indexed by that time, so that a sweeper reads
//! the matches due first without scanning. Reading them claims nothing:
//! whoever applies the due change does it with a compare-and-set, so
//! replicas that read the same due match apply it once.
//!
//! A match's write may carry an idempotency key, as a game's, and the
//! writes of its players (their ratings after it): each a
//! compare-and-set as [`Store::write_player`] makes it, stored with the
//! match or not at all. The rules are `rules.rs`'s `apply_match`; Redis
//! runs them as `redis_store/match_write.lua`.

use crate::rules;
use crate::{Backend, Expected, Kept, KeyBound, PlayerWrite, Store, StoreError};

/// A match as stored: as a game, plus the time its next timer is due.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMatch {
    pub version: u64,
    pub expires_at_ms: u64,
    /// When the match's next timer is due (ms since the Unix epoch);
    /// `None`: no timer, and no entry in the due index.
    pub due_at_ms: Option<u64>,
    pub body: Vec<u8>,
}

/// One compare-and-set of a match, with what must change with it or not
/// at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchWrite {
    /// The match's id: opaque to the store, made by the caller.
    pub id: String,
    /// [`Expected::Absent`]: create at version 0; [`Expected::Version`]
    /// `v`: the next is `v + 1`. A record whose version does not follow is
    /// refused with [`StoreError::InvalidWrite`].
    pub expected: Expected,
    pub record: StoredMatch,
    /// An idempotency key and its answer, kept with the write, as a
    /// game's (counted against the match's id for
    /// [`StoreLimits::max_keys_per_game`](crate::StoreLimits::max_keys_per_game);
    /// [`MatchOutcome::Replayed`] when the key already holds an answer).
    pub key: Option<(String, Kept)>,
    /// Players changed with the match (their ratings after it): each a
    /// compare-and-set as [`Store::write_player`] does, all or nothing
    /// with the match. Each changes a stored player
    /// ([`Expected::Version`]), at most once a write; a player created
    /// here, named twice, or given a token's hash another live player
    /// holds is refused with [`StoreError::InvalidWrite`].
    pub players: Vec<PlayerWrite>,
}

/// What became of a [`MatchWrite`]. Only `Written` stored anything; any
/// outcome may have deleted expired records on the way, as a game's
/// write does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchOutcome {
    /// The match, its key and its players are stored.
    Written,
    /// The match's version is not the expected one: `current` is the live
    /// match's version, `None` if there is none (absent or expired).
    Stale { current: Option<u64> },
    /// One of the write's players is not at its expected version:
    /// `current` is its live version, `None` if there is none.
    PlayerStale { id: String, current: Option<u64> },
    /// A create while [`StoreLimits::max_matches`](crate::StoreLimits::max_matches)
    /// live matches are stored.
    Full,
    /// The key already holds an answer: here it is. Checked first.
    Replayed(Kept),
    /// The key is new, and keeping its answer would pass a bound.
    TooManyKeys(KeyBound),
}

/// The calls on matches, beside the games' in `lib.rs`: each bounded by
/// the store's timeout, as every call.
impl Store {
    /// The live match stored under `id`, if any.
    pub async fn match_record(
        &self,
        id: &str,
        now_ms: u64,
    ) -> Result<Option<StoredMatch>, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.match_record(id, now_ms),
                Backend::File(store) => store.match_record(id, now_ms).await,
                Backend::Redis(store) => store.match_record(id, now_ms).await,
            }
        })
        .await
    }

    /// Applies `write` if its key holds no answer yet, the match is at
    /// the expected version, the bound on matches allows a create, every
    /// player is at its expected version and the key's answer fits, in
    /// that order; the match (and its entry in the due index), its key
    /// and its players are stored together or not at all. A create over
    /// an expired match of the same id deletes that one first.
    /// [`StoreError::TimedOut`] leaves it unknown whether it was applied:
    /// a retry with the same key tells.
    pub async fn write_match(
        &self,
        write: MatchWrite,
        now_ms: u64,
    ) -> Result<MatchOutcome, StoreError> {
        rules::check_match(&write)?;
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.write_match(&write, now_ms),
                Backend::File(store) => store.write_match(write, now_ms).await,
                Backend::Redis(store) => store.write_match(&write, now_ms).await,
            }
        })
        .await
    }

    /// Up to `at_most` live matches whose `due_at_ms` <= `now_ms`, soonest
    /// first (then by id): their ids. Reading claims nothing: the caller
    /// applies the due change with a compare-and-set.
    pub async fn due_matches(
        &self,
        now_ms: u64,
        at_most: usize,
    ) -> Result<Vec<String>, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.due_matches(now_ms, at_most),
                Backend::File(store) => store.due_matches(now_ms, at_most).await,
                Backend::Redis(store) => store.due_matches(now_ms, at_most).await,
            }
        })
        .await
    }

    /// How many matches are stored, expired ones not yet purged included,
    /// as [`Store::games`] counts games (a full store deletes an expired
    /// one to make room).
    pub async fn matches(&self) -> Result<u64, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.match_count(),
                Backend::File(store) => store.match_count().await,
                Backend::Redis(store) => store.match_count().await,
            }
        })
        .await
    }
}
