//! The marked games whose records do not read back (a record this build
//! cannot decode, a damaged one): the archiver passes over them, so that
//! they never hold back the readable games behind them in the
//! oldest-first queue, and leaves them marked and in the store, for a
//! later build that reads them (a restart starts the set afresh).
//!
//! Each is logged and counted once while the process runs, not each
//! pass. The set is bounded by [`PASSED_OVER_AT_MOST`]: a pass lists that
//! many marks beyond a batch, and one listing holds at most
//! [`MAX_ARCHIVE_BATCH`](linkpath_store::MAX_ARCHIVE_BATCH).

use super::metrics;
use super::pass::BATCH;
use linkpath_store::{MAX_ARCHIVE_BATCH, Unarchived};
use std::collections::HashSet;
use std::fmt::Display;

/// How many unreadable marked games the archiver passes over at most.
/// With that many at the head of the queue, one more there holds back
/// the games finished after it until a build that reads them runs (or
/// they are taken out of the store by hand); a line says so once.
pub(crate) const PASSED_OVER_AT_MOST: usize = MAX_ARCHIVE_BATCH - BATCH;

/// The ids of the marked games found unreadable, passed over from then on.
#[derive(Default)]
pub(crate) struct Unreadable {
    ids: HashSet<String>,
    /// The bound's line was logged, and the set has not gone under it since.
    at_bound: bool,
}

impl Unreadable {
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    pub(crate) fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    /// Keeps the ids `listed` marks still: a game archived by another
    /// replica of a build that reads it, or gone, leaves the set.
    pub(crate) fn keep_listed(&mut self, listed: &[Unarchived]) {
        let listed: HashSet<&str> = listed.iter().map(|mark| mark.id.as_str()).collect();
        self.ids.retain(|id| listed.contains(id.as_str()));
        if self.ids.len() < PASSED_OVER_AT_MOST {
            self.at_bound = false;
        }
        metrics::record_unreadable(self.ids.len());
    }

    /// The marked game `id` does not read back, for `why`: passed over
    /// from now on, logged and counted once. Past the bound it is not
    /// taken, and only the bound's line is logged, once.
    pub(crate) fn found(&mut self, id: &str, why: &dyn Display) {
        if self.ids.len() >= PASSED_OVER_AT_MOST {
            if !self.at_bound {
                self.at_bound = true;
                tracing::error!(
                    passed_over = self.ids.len(),
                    "the archiver passes over as many unreadable finished games as it may \
                     ({PASSED_OVER_AT_MOST}): the next one at the head of the queue holds back \
                     the games finished after it until a build that reads them runs"
                );
            }
            return;
        }
        tracing::error!(
            game = %crate::games::errors::short(id),
            error = %why,
            "a finished game's record does not read back: it stays marked and in the store, and the archiver passes over it"
        );
        metrics::record_writes("failed", 1);
        self.ids.insert(id.to_owned());
        metrics::record_unreadable(self.ids.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(ids: &[&str]) -> Vec<Unarchived> {
        ids.iter()
            .map(|id| Unarchived {
                id: (*id).to_owned(),
                finished_ms: 1,
            })
            .collect()
    }

    #[test]
    fn a_game_no_longer_marked_leaves_the_set() {
        let mut unreadable = Unreadable::default();
        unreadable.found("a", &"bad");
        unreadable.found("b", &"bad");
        unreadable.keep_listed(&marks(&["b", "c"]));
        assert_eq!(
            (unreadable.contains("a"), unreadable.contains("b")),
            (false, true)
        );
        assert_eq!(unreadable.len(), 1);
    }

    #[test]
    fn the_set_stops_at_its_bound_until_it_goes_under() {
        let mut unreadable = Unreadable::default();
        let ids: Vec<String> = (0..=PASSED_OVER_AT_MOST).map(|n| n.to_string()).collect();
        for id in &ids {
            unreadable.found(id, &"bad");
        }
        assert_eq!(unreadable.len(), PASSED_OVER_AT_MOST);
        assert!(!unreadable.contains(&PASSED_OVER_AT_MOST.to_string()));
        assert!(unreadable.at_bound);
        let kept: Vec<&str> = ids[1..].iter().map(String::as_str).collect();
        unreadable.keep_listed(&marks(&kept));
        assert_eq!(unreadable.len(), PASSED_OVER_AT_MOST - 1);
        assert!(!unreadable.at_bound);
        unreadable.found(&ids[PASSED_OVER_AT_MOST], &"bad");
        assert_eq!(unreadable.len(), PASSED_OVER_AT_MOST);
    }
}
