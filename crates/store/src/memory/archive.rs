//! The archiver's calls in memory: reads on the maps, the clearing of
//! marks by the rules of `rules/archive.rs`, each under the one lock as
//! every call.

use super::MemoryStore;
use crate::rules;
use crate::{ArchiveCopy, StoreError, Unarchived, UnarchivedCount};

impl MemoryStore {
    pub(crate) fn unarchived(
        &self,
        at_most: usize,
        now_ms: u64,
    ) -> Result<Vec<Unarchived>, StoreError> {
        let maps = self.lock()?;
        Ok(maps
            .unarchived
            .iter()
            .take_while(|(finished_ms, _)| *finished_ms <= now_ms)
            .take(at_most)
            .map(|(finished_ms, id)| Unarchived {
                id: id.clone(),
                finished_ms: *finished_ms,
            })
            .collect())
    }

    pub(crate) fn archive_copy(&self, id: &str) -> Result<Option<ArchiveCopy>, StoreError> {
        let maps = self.lock()?;
        let Some(game) = maps.games.get(id) else {
            return Ok(None);
        };
        let log = maps.logs.get(id).map_or_else(Vec::new, |log| {
            log.iter()
                .map(|(version, entry)| (*version, entry.clone()))
                .collect()
        });
        Ok(Some(ArchiveCopy {
            game: game.clone(),
            log,
            finished_ms: maps.finished.get(id).copied(),
        }))
    }

    pub(crate) fn archived(&self, ids: &[String]) -> Result<usize, StoreError> {
        rules::archived(&mut *self.lock()?, ids)
    }

    pub(crate) fn unarchived_count(&self) -> Result<UnarchivedCount, StoreError> {
        let maps = self.lock()?;
        Ok(UnarchivedCount {
            games: maps.unarchived.len() as u64,
            oldest_finished_ms: maps.unarchived.first().map(|(finished_ms, _)| *finished_ms),
        })
    }
}
