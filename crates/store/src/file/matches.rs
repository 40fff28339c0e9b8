//! Matches in the file: reads in a read transaction of their own, writes
//! through the writer thread, in its groups, by the rules of `rules.rs`:
//! a match and its players in one transaction.

use redb::ReadableTableMetadata;

use super::tables::{MATCH_DUE, MATCHES, failed, read_match};
use super::{FileStore, writer};
use crate::rules::live;
use crate::{MatchOutcome, MatchWrite, StoreError, StoredMatch};

impl FileStore {
    pub(crate) async fn match_record(
        &self,
        id: &str,
        now_ms: u64,
    ) -> Result<Option<StoredMatch>, StoreError> {
        let id = id.to_owned();
        self.read(MATCHES, move |matches| {
            let stored = read_match(matches, &id)?;
            Ok(stored.filter(|stored| live(stored.expires_at_ms, now_ms)))
        })
        .await
    }

    pub(crate) async fn write_match(
        &self,
        write: MatchWrite,
        now_ms: u64,
    ) -> Result<MatchOutcome, StoreError> {
        match self
            .commit(writer::Change::Match(Box::new(write)), now_ms)
            .await?
        {
            writer::Done::Match(outcome) => Ok(outcome),
            writer::Done::Game(_) | writer::Done::Player(_) => Err(StoreError::Unavailable(
                "the store's writer answered a match's write with another kind's outcome".into(),
            )),
        }
    }

    /// Walks the due index from its start; an expired match's entry,
    /// waiting for its purge, is passed over.
    pub(crate) async fn due_matches(
        &self,
        now_ms: u64,
        at_most: usize,
    ) -> Result<Vec<String>, StoreError> {
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(failed)?;
            let due = txn.open_table(MATCH_DUE).map_err(failed)?;
            let matches = txn.open_table(MATCHES).map_err(failed)?;
            let mut ids = Vec::new();
            for entry in due.range((0, "")..).map_err(failed)? {
                if ids.len() == at_most {
                    break;
                }
                let (key, _) = entry.map_err(failed)?;
                let (due_at_ms, id) = key.value();
                if due_at_ms > now_ms {
                    break;
                }
                let stored = read_match(&matches, id)?;
                if stored.is_some_and(|stored| live(stored.expires_at_ms, now_ms)) {
                    ids.push(id.to_owned());
                }
            }
            Ok(ids)
        })
        .await
    }

    pub(crate) async fn match_count(&self) -> Result<u64, StoreError> {
        self.read(MATCHES, |matches| matches.len().map_err(failed))
            .await
    }
}
