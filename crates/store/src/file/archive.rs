//! The archiver's calls on the file: reads in a read transaction of
//! their own, the clearing of marks in a write transaction of its own
//! (as a purge's), by the rules of `rules/archive.rs`.

use redb::{ReadableTable, ReadableTableMetadata};

use super::tables::{FINISHED, GAMES, LOG, UNARCHIVED, failed, read_game, read_log};
use super::{FileStore, in_write};
use crate::rules;
use crate::{ArchiveCopy, StoreError, Unarchived, UnarchivedCount};

impl FileStore {
    pub(crate) async fn unarchived(
        &self,
        at_most: usize,
        now_ms: u64,
    ) -> Result<Vec<Unarchived>, StoreError> {
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(failed)?;
            let unarchived = txn.open_table(UNARCHIVED).map_err(failed)?;
            let mut marks = Vec::new();
            for entry in unarchived.iter().map_err(failed)? {
                let (key, _) = entry.map_err(failed)?;
                let (finished_ms, id) = key.value();
                if marks.len() == at_most || finished_ms > now_ms {
                    break;
                }
                marks.push(Unarchived {
                    id: id.to_owned(),
                    finished_ms,
                });
            }
            Ok(marks)
        })
        .await
    }

    pub(crate) async fn archive_copy(&self, id: &str) -> Result<Option<ArchiveCopy>, StoreError> {
        let id = id.to_owned();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(failed)?;
            let Some(game) = read_game(&txn.open_table(GAMES).map_err(failed)?, &id)? else {
                return Ok(None);
            };
            // One entry a version: bounded by the game's actions.
            let log = read_log(&txn.open_table(LOG).map_err(failed)?, &id, 0..u64::MAX)?;
            let finished = txn.open_table(FINISHED).map_err(failed)?;
            let finished_ms = finished.get(id.as_str()).map_err(failed)?;
            Ok(Some(ArchiveCopy {
                game,
                log,
                finished_ms: finished_ms.map(|finished_ms| finished_ms.value()),
            }))
        })
        .await
    }

    pub(crate) async fn archived(&self, ids: Vec<String>) -> Result<usize, StoreError> {
        self.blocking(move |db| in_write(db, |tables| rules::archived(tables, &ids)))
            .await
    }

    pub(crate) async fn unarchived_count(&self) -> Result<UnarchivedCount, StoreError> {
        self.blocking(|db| {
            let txn = db.begin_read().map_err(failed)?;
            let unarchived = txn.open_table(UNARCHIVED).map_err(failed)?;
            let oldest = unarchived.first().map_err(failed)?;
            Ok(UnarchivedCount {
                games: unarchived.len().map_err(failed)?,
                oldest_finished_ms: oldest.map(|(key, _)| key.value().0),
            })
        })
        .await
    }
}
