//! Seeks: players waiting to be seated in a race with others who want
//! the same settings. A seek is an entry under a key (a hash of the
//! settings, made by the caller), for one player, with their rating, the
//! ticket of the request that waits on it and the time it expires. It
//! lives only while its request does: the request refreshes it every
//! poll ([`Store::seated`]), removes it when it ends ([`Store::unseek`]),
//! and an entry whose request went away without a word expires a few
//! seconds after its last refresh, so it is never seated.
//!
//! [`Store::pair`] takes, at once, `seats` live entries of one key whose
//! ratings are within a range of the first's (the oldest entry that has
//! enough partners), and records for each taken player the match id and
//! everyone taken. Each waiting request finds that record by its player
//! and its ticket ([`Store::seated`]), and makes the match under that id
//! if nobody has yet (create-if-absent): a crash between the pairing and
//! the match's creation leaves a seat record, never a seat in a match
//! that does not exist, and whichever seated request reads it next makes
//! the match. A player has one seek at a time: a new one (a new ticket)
//! replaces the old, whose request then finds itself gone.
//!
//! Where: in Redis, for replicas that share it, each call one Lua script
//! (`redis_store/seek*.lua`). A file or memory store has one process,
//! and a seek no longer than its request: seeks need no disk, so both
//! keep them in the process's memory under one lock ([`table`]), each
//! call one critical section.

pub(crate) mod table;

use crate::{Backend, Store, StoreError};

/// A seek to add, or to replace a player's other one.
#[derive(Debug, Clone, PartialEq)]
pub struct SeekWrite {
    /// The settings' hash: only seeks under one key are seated together.
    pub key: String,
    pub player: String,
    /// The request's own id: a refresh or a removal names it, so a newer
    /// seek of the same player is never taken for this one.
    pub ticket: String,
    /// The player's rating, compared with others' when pairing.
    pub rating: f64,
    /// When the entry expires unless refreshed (ms since the Unix epoch).
    pub expires_at_ms: u64,
}

/// What [`Store::pair`] takes: how many seekers, how far apart, and the
/// match that seats them.
#[derive(Debug, Clone, PartialEq)]
pub struct Pairing {
    pub key: String,
    pub seats: usize,
    /// How far a rating may be from the first seeker's.
    pub range: f64,
    /// The id of the match the taken seekers are seated in.
    pub match_id: String,
    /// Until when the taken players' seat records are kept.
    pub kept_until_ms: u64,
}

/// A seeker's seat: the match, and the players seated in it, first
/// seeker first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seat {
    pub match_id: String,
    pub players: Vec<String>,
}

/// What became of a seek, as [`Store::seated`] finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seeking {
    /// Still waiting: its entry is refreshed.
    Waiting,
    /// Taken into a match.
    Seated(Seat),
    /// Neither: expired, removed, or replaced by a newer seek.
    Gone,
}

/// The calls on seeks, each bounded by the store's timeout.
impl Store {
    /// Adds `seek`, or refreshes it if its ticket is the player's entry
    /// already (keeping its place in line); a seek of another ticket
    /// replaces the player's entry, whatever its key.
    pub async fn seek(&self, seek: SeekWrite, now_ms: u64) -> Result<(), StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.seeks.seek(&seek, now_ms),
                Backend::File(store) => store.seeks.seek(&seek, now_ms),
                Backend::Redis(store) => store.seek(&seek, now_ms).await,
            }
        })
        .await
    }

    /// Whether the seek of `player` under `ticket` was seated; a seek
    /// still waiting is refreshed to expire at `expires_at_ms`.
    pub async fn seated(
        &self,
        player: &str,
        ticket: &str,
        expires_at_ms: u64,
        now_ms: u64,
    ) -> Result<Seeking, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.seeks.seated(player, ticket, expires_at_ms, now_ms),
                Backend::File(store) => store.seeks.seated(player, ticket, expires_at_ms, now_ms),
                Backend::Redis(store) => store.seated(player, ticket, expires_at_ms, now_ms).await,
            }
        })
        .await
    }

    /// Takes `pairing.seats` live seeks of `pairing.key` within
    /// `pairing.range` of the first's rating, oldest first, and records
    /// their seat in `pairing.match_id`: the players taken, first seeker
    /// first, or `None` (nothing taken) while there are not enough.
    pub async fn pair(
        &self,
        pairing: &Pairing,
        now_ms: u64,
    ) -> Result<Option<Vec<String>>, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.seeks.pair(pairing, now_ms),
                Backend::File(store) => store.seeks.pair(pairing, now_ms),
                Backend::Redis(store) => store.pair(pairing, now_ms).await,
            }
        })
        .await
    }

    /// Removes the seek of `player` if it is still `ticket`'s: its
    /// request ended unseated.
    pub async fn unseek(&self, player: &str, ticket: &str) -> Result<(), StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.seeks.unseek(player, ticket),
                Backend::File(store) => store.seeks.unseek(player, ticket),
                Backend::Redis(store) => store.unseek(player, ticket).await,
            }
        })
        .await
    }
}

/// How many of a line, oldest first, a pairing looks at: a call stays
/// short however long the line (a Redis script holds the server).
pub(crate) const LINE_SCAN: usize = 200;

/// The players to take from `line` (oldest first: player and rating):
/// the first whose `seats - 1` nearest in line are within `range` of
/// its rating, with them; the first seeker first. The one rule of every
/// backend (`seek_pair.lua` mirrors it).
pub(crate) fn choose(line: &[(String, f64)], seats: usize, range: f64) -> Option<Vec<usize>> {
    if seats == 0 || line.len() < seats {
        return None;
    }
    for (first, (_, rating)) in line.iter().enumerate() {
        let mut taken = vec![first];
        for (other, (_, theirs)) in line.iter().enumerate() {
            if taken.len() == seats {
                break;
            }
            if other != first && (theirs - rating).abs() <= range {
                taken.push(other);
            }
        }
        if taken.len() == seats {
            return Some(taken);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::choose;

    fn line(ratings: &[f64]) -> Vec<(String, f64)> {
        ratings
            .iter()
            .enumerate()
            .map(|(i, r)| (format!("p{i}"), *r))
            .collect()
    }

    #[test]
    fn the_first_seeker_with_partners_is_seated_with_the_nearest_in_line() {
        assert_eq!(choose(&line(&[1500.0, 1700.0]), 2, 300.0), Some(vec![0, 1]));
        assert_eq!(choose(&line(&[1500.0, 1900.0]), 2, 300.0), None);
        // The first has nobody near; the second and third are near.
        assert_eq!(
            choose(&line(&[1000.0, 1500.0, 1800.0]), 2, 300.0),
            Some(vec![1, 2])
        );
        assert_eq!(
            choose(&line(&[1500.0, 2500.0, 1600.0, 1400.0]), 3, 300.0),
            Some(vec![0, 2, 3])
        );
        assert_eq!(choose(&line(&[1500.0]), 2, 300.0), None);
    }
}
