//! The model's hand-over to the archive, as `archive.rs` and `lib.rs`
//! tell it: a written finishing change marks its game once, at its time;
//! the marks list oldest first; clearing them is idempotent; a copy reads
//! any stored game. An expired game goes at its turn, the first to expire
//! first, unless marked in a store that keeps marked games: then it is
//! held, once, out of every later walk, counted, its id not taken, until
//! its mark is cleared.

use super::rules::{Model, first_expired};
use super::*;

impl Model {
    /// An archiver's `op` as a call.
    pub(super) fn archive_call(&self, op: &Op) -> Call {
        match op {
            Op::Unarchived { at_most } => Call::Unarchived(*at_most),
            Op::Archived { ids } => {
                Call::Archived(ids.iter().map(|id| IDS[*id].to_owned()).collect())
            }
            Op::ArchiveCopy { id } => Call::ArchiveCopy(IDS[*id].to_owned()),
            _ => unreachable!("not an archiver's op"),
        }
    }

    pub(super) fn archive_answer(&mut self, call: &Call, now: u64) -> Answer {
        match call {
            Call::Unarchived(at_most) => Answer::Unarchived(Ok(self.unarchived(*at_most, now))),
            Call::Archived(ids) => {
                let cleared = self.archived(ids);
                if cleared > 0 {
                    self.meet("marks cleared");
                }
                Answer::Archived(Ok(cleared))
            }
            Call::ArchiveCopy(id) => Answer::ArchiveCopy(Ok(self.archive_copy(id))),
            _ => unreachable!("not an archiver's call"),
        }
    }

    /// Whether the stored game `id` stays for the archive once expired.
    pub(super) fn kept(&self, id: &str) -> bool {
        self.limits.keep_unarchived && self.marks.contains_key(id)
    }

    /// Marks the game `write` wrote if the write ends it and it has no
    /// mark yet.
    pub(super) fn mark(&mut self, write: &Write, now: u64) {
        if write.finished && !self.marks.contains_key(&write.id) {
            self.marks.insert(write.id.clone(), now);
            self.meet("a game marked finished");
        }
    }

    /// The next expired game a purge or a full store takes, the first to
    /// expire first: held games are passed by while marked games are kept.
    fn next_expired(&self, now: u64) -> Option<String> {
        let walked = self
            .games
            .iter()
            .filter(|(id, _)| !(self.limits.keep_unarchived && self.held.contains(*id)));
        first_expired(walked.map(|(id, game)| (game.expires_at_ms, id)), now)
    }

    /// Takes the expired game `id`: holds it if kept, else removes it.
    /// Whether it held it.
    fn take(&mut self, id: &str) -> bool {
        if self.kept(id) {
            self.held.insert(id.to_owned());
            self.meet("a marked game held");
            return true;
        }
        if self.marks.contains_key(id) {
            self.meet("a marked game purged with its mark");
        }
        self.remove_game(id);
        false
    }

    /// Takes expired games until one is removed: whether one was. (The
    /// rules stop after 16 taken; a sequence has fewer games.)
    pub(super) fn make_room(&mut self, now: u64) -> bool {
        while let Some(id) = self.next_expired(now) {
            if !self.take(&id) {
                self.meet("an expired game made room");
                return true;
            }
            self.meet("a held game made no room");
        }
        false
    }

    /// Takes at most `at_most` expired games: how many it removed, how
    /// many it held, and whether expired ones are left to take.
    pub(super) fn purge_games(&mut self, now: u64, at_most: usize) -> (usize, usize, bool) {
        let (mut removed, mut held) = (0, 0);
        while let Some(id) = self.next_expired(now) {
            if removed + held == at_most {
                return (removed, held, true);
            }
            if self.take(&id) {
                held += 1;
            } else {
                removed += 1;
            }
        }
        (removed, held, false)
    }

    /// The marks made by `now`, oldest first (then by id), at most
    /// `at_most`.
    pub(super) fn unarchived(&self, at_most: usize, now: u64) -> Vec<Unarchived> {
        let mut marks: Vec<(u64, &String)> = self
            .marks
            .iter()
            .map(|(id, finished_ms)| (*finished_ms, id))
            .filter(|(finished_ms, _)| *finished_ms <= now)
            .collect();
        marks.sort();
        marks
            .into_iter()
            .take(at_most)
            .map(|(finished_ms, id)| Unarchived {
                id: id.clone(),
                finished_ms,
            })
            .collect()
    }

    pub(super) fn unarchived_count(&self) -> UnarchivedCount {
        UnarchivedCount {
            games: self.marks.len() as u64,
            oldest_finished_ms: self.marks.values().min().copied(),
        }
    }

    /// Clears the marks of `ids`: a held game goes back to the walk.
    fn archived(&mut self, ids: &[String]) -> usize {
        let mut cleared = 0;
        for id in ids {
            if self.marks.remove(id).is_some() {
                self.held.remove(id);
                cleared += 1;
            }
        }
        cleared
    }

    /// The stored game `id`, expired or not, its whole log and its mark.
    pub(super) fn archive_copy(&self, id: &str) -> Option<ArchiveCopy> {
        let game = self.games.get(id)?.clone();
        let log = self.logs.get(id).map_or_else(Vec::new, |log| {
            log.iter()
                .map(|(version, entry)| (*version, entry.clone()))
                .collect()
        });
        Some(ArchiveCopy {
            game,
            log,
            finished_ms: self.marks.get(id).copied(),
        })
    }
}
