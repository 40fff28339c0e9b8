//! Seeks in this process's memory, for the memory and file stores (one
//! process serves them, and a seek lives no longer than its request):
//! one lock around the entries, each call one critical section, so a
//! pairing takes its seekers at once.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, MutexGuard};

use super::{LINE_SCAN, Pairing, Seat, SeekWrite, Seeking, choose};
use crate::StoreError;
use crate::rules::live;

/// The seeks: entries by player, the line of each key, and the seats
/// recorded by pairings.
#[derive(Default)]
pub(crate) struct SeekTable {
    maps: Mutex<Maps>,
}

#[derive(Default)]
struct Maps {
    entries: HashMap<String, Entry>,
    /// Each key's seekers by `(arrival, player)`: oldest first.
    lines: HashMap<String, BTreeSet<(u64, String)>>,
    /// The arrival of the last seek: a count, so that seeks made in the
    /// same millisecond keep their order.
    arrivals: u64,
    /// The seat of each player taken, under the ticket that sought it.
    seats: HashMap<String, (String, Seat, u64)>,
}

struct Entry {
    key: String,
    ticket: String,
    rating: f64,
    arrival: u64,
    expires_at_ms: u64,
}

impl SeekTable {
    fn lock(&self) -> Result<MutexGuard<'_, Maps>, StoreError> {
        self.maps
            .lock()
            .map_err(|_| StoreError::Unavailable("the seeks' lock is poisoned".into()))
    }

    pub(crate) fn seek(&self, seek: &SeekWrite, now_ms: u64) -> Result<(), StoreError> {
        let mut maps = self.lock()?;
        maps.forget_expired(now_ms);
        if let Some(entry) = maps.entries.get_mut(&seek.player)
            && entry.ticket == seek.ticket
            && entry.key == seek.key
        {
            entry.expires_at_ms = seek.expires_at_ms;
            entry.rating = seek.rating;
            return Ok(());
        }
        maps.remove(&seek.player);
        maps.arrivals += 1;
        let arrival = maps.arrivals;
        maps.lines
            .entry(seek.key.clone())
            .or_default()
            .insert((arrival, seek.player.clone()));
        maps.entries.insert(
            seek.player.clone(),
            Entry {
                key: seek.key.clone(),
                ticket: seek.ticket.clone(),
                rating: seek.rating,
                arrival,
                expires_at_ms: seek.expires_at_ms,
            },
        );
        Ok(())
    }

    pub(crate) fn seated(
        &self,
        player: &str,
        ticket: &str,
        expires_at_ms: u64,
        now_ms: u64,
    ) -> Result<Seeking, StoreError> {
        let mut maps = self.lock()?;
        if let Some((seated_ticket, seat, kept_until_ms)) = maps.seats.get(player)
            && seated_ticket == ticket
            && live(*kept_until_ms, now_ms)
        {
            return Ok(Seeking::Seated(seat.clone()));
        }
        match maps.entries.get_mut(player) {
            Some(entry) if entry.ticket == ticket && live(entry.expires_at_ms, now_ms) => {
                entry.expires_at_ms = expires_at_ms;
                Ok(Seeking::Waiting)
            }
            _ => Ok(Seeking::Gone),
        }
    }

    pub(crate) fn pair(
        &self,
        pairing: &Pairing,
        now_ms: u64,
    ) -> Result<Option<Vec<String>>, StoreError> {
        let mut maps = self.lock()?;
        let Some(line) = maps.lines.get(&pairing.key) else {
            return Ok(None);
        };
        let line: Vec<(String, f64)> = line
            .iter()
            .take(LINE_SCAN)
            .filter_map(|(_, player)| {
                let entry = maps.entries.get(player)?;
                live(entry.expires_at_ms, now_ms).then(|| (player.clone(), entry.rating))
            })
            .collect();
        let Some(taken) = choose(&line, pairing.seats, pairing.range) else {
            return Ok(None);
        };
        let players: Vec<String> = taken.iter().map(|&i| line[i].0.clone()).collect();
        let seat = Seat {
            match_id: pairing.match_id.clone(),
            players: players.clone(),
        };
        for player in &players {
            let ticket = maps.remove(player).expect("a player in line has an entry");
            maps.seats.insert(
                player.clone(),
                (ticket, seat.clone(), pairing.kept_until_ms),
            );
        }
        Ok(Some(players))
    }

    pub(crate) fn unseek(&self, player: &str, ticket: &str) -> Result<(), StoreError> {
        let mut maps = self.lock()?;
        if maps.entries.get(player).is_some_and(|e| e.ticket == ticket) {
            maps.remove(player);
        }
        Ok(())
    }
}

impl Maps {
    /// Takes `player`'s entry out of its line; its ticket.
    fn remove(&mut self, player: &str) -> Option<String> {
        let entry = self.entries.remove(player)?;
        if let Some(line) = self.lines.get_mut(&entry.key) {
            line.remove(&(entry.arrival, player.to_owned()));
            if line.is_empty() {
                self.lines.remove(&entry.key);
            }
        }
        Some(entry.ticket)
    }

    /// Drops expired entries and seats: a seek whose request went away
    /// without removing it, a seat nobody came for. Bounded by the seeks
    /// a server lets wait at once.
    fn forget_expired(&mut self, now_ms: u64) {
        let expired: Vec<String> = self
            .entries
            .iter()
            .filter(|(_, entry)| !live(entry.expires_at_ms, now_ms))
            .map(|(player, _)| player.clone())
            .collect();
        for player in expired {
            self.remove(&player);
        }
        self.seats
            .retain(|_, (_, _, kept_until_ms)| live(*kept_until_ms, now_ms));
    }
}
