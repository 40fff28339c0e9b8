//! Matches in memory: reads on the maps, writes by the rules of
//! `rules.rs`, each under the one lock as every call.

use super::MemoryStore;
use crate::rules::{self, Tables};
use crate::{MatchOutcome, MatchWrite, StoreError, StoredMatch};

impl MemoryStore {
    pub(crate) fn match_record(
        &self,
        id: &str,
        now_ms: u64,
    ) -> Result<Option<StoredMatch>, StoreError> {
        let maps = self.lock()?;
        Ok(maps
            .matches
            .get(id)
            .filter(|stored| rules::live(stored.expires_at_ms, now_ms))
            .cloned())
    }

    pub(crate) fn write_match(
        &self,
        write: &MatchWrite,
        now_ms: u64,
    ) -> Result<MatchOutcome, StoreError> {
        rules::apply_match(&mut *self.lock()?, write, now_ms, &self.limits)
    }

    pub(crate) fn due_matches(
        &self,
        now_ms: u64,
        at_most: usize,
    ) -> Result<Vec<String>, StoreError> {
        let maps = self.lock()?;
        Ok(maps
            .match_due
            .iter()
            .take_while(|(due_at_ms, _)| *due_at_ms <= now_ms)
            .filter(|(_, id)| {
                maps.matches
                    .get(id)
                    .is_some_and(|stored| rules::live(stored.expires_at_ms, now_ms))
            })
            .take(at_most)
            .map(|(_, id)| id.clone())
            .collect())
    }

    pub(crate) fn match_count(&self) -> Result<u64, StoreError> {
        self.lock()?.matches()
    }
}
