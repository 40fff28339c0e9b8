//! The heartbeat, the outages and when the store began, in the file, in
//! tables of their own: `heartbeat` holds the last under `last` and the
//! store's beginning under `born`, `outages` each outage's start under its
//! end. A heartbeat is one write transaction, synced as a game's
//! write is: a heartbeat lost in a crash would make the next outage start
//! earlier than it did, and give games back time they were served. A
//! file is one process's (redb locks it), so its outages are the times
//! that process was down, across restarts.

use std::ops::Range;

use redb::{Database, Durability, ReadableTable, Table, TableDefinition, TableError};

use super::FileStore;
use super::tables::failed;
use crate::StoreError;
use crate::downtime::{self, Beats};

const HEARTBEAT: TableDefinition<&str, u64> = TableDefinition::new("heartbeat");
const OUTAGES: TableDefinition<u64, u64> = TableDefinition::new("outages");
const LAST: &str = "last";
const BORN: &str = "born";

impl FileStore {
    pub(crate) async fn alive(
        &self,
        now_ms: u64,
        gap_ms: u64,
        forget_before_ms: u64,
    ) -> Result<Option<Range<u64>>, StoreError> {
        self.blocking(move |db| beat(db, now_ms, gap_ms, forget_before_ms))
            .await
    }

    pub(crate) async fn outages(&self) -> Result<Vec<Range<u64>>, StoreError> {
        self.blocking(|db| {
            let txn = db.begin_read().map_err(failed)?;
            // A file no process ever beat on has no such table yet.
            match txn.open_table(OUTAGES) {
                Ok(outages) => read_outages(&outages),
                Err(TableError::TableDoesNotExist(_)) => Ok(Vec::new()),
                Err(err) => Err(failed(err)),
            }
        })
        .await
    }

    pub(crate) async fn born(&self, now_ms: u64) -> Result<u64, StoreError> {
        self.blocking(move |db| {
            // Read first: only a file's first call writes.
            let txn = db.begin_read().map_err(failed)?;
            match txn.open_table(HEARTBEAT) {
                Ok(table) => {
                    if let Some(born) = table.get(BORN).map_err(failed)? {
                        return Ok(born.value());
                    }
                }
                Err(TableError::TableDoesNotExist(_)) => {}
                Err(err) => return Err(failed(err)),
            }
            drop(txn);
            let mut txn = db.begin_write().map_err(failed)?;
            txn.set_durability(Durability::Immediate);
            let born = {
                let mut table = txn.open_table(HEARTBEAT).map_err(failed)?;
                let kept = table.get(BORN).map_err(failed)?.map(|born| born.value());
                match kept {
                    Some(born) => born,
                    None => {
                        table.insert(BORN, now_ms).map_err(failed)?;
                        now_ms
                    }
                }
            };
            txn.commit().map_err(failed)?;
            Ok(born)
        })
        .await
    }
}

/// One heartbeat in a synced write transaction of its own.
fn beat(
    db: &Database,
    now_ms: u64,
    gap_ms: u64,
    forget_before_ms: u64,
) -> Result<Option<Range<u64>>, StoreError> {
    let mut txn = db.begin_write().map_err(failed)?;
    txn.set_durability(Durability::Immediate);
    let outage = {
        let mut tables = BeatTables {
            heartbeat: txn.open_table(HEARTBEAT).map_err(failed)?,
            outages: txn.open_table(OUTAGES).map_err(failed)?,
        };
        downtime::alive(&mut tables, now_ms, gap_ms, forget_before_ms)?
    };
    txn.commit().map_err(failed)?;
    Ok(outage)
}

struct BeatTables<'txn> {
    heartbeat: Table<'txn, &'static str, u64>,
    outages: Table<'txn, u64, u64>,
}

impl Beats for BeatTables<'_> {
    fn last_beat(&self) -> Result<Option<u64>, StoreError> {
        Ok(self
            .heartbeat
            .get(LAST)
            .map_err(failed)?
            .map(|last| last.value()))
    }

    fn set_beat(&mut self, at_ms: u64) -> Result<(), StoreError> {
        self.heartbeat.insert(LAST, at_ms).map_err(failed)?;
        Ok(())
    }

    fn outages(&self) -> Result<Vec<Range<u64>>, StoreError> {
        read_outages(&self.outages)
    }

    fn add_outage(&mut self, outage: Range<u64>) -> Result<(), StoreError> {
        self.outages
            .insert(outage.end, outage.start)
            .map_err(failed)?;
        Ok(())
    }

    fn remove_outage(&mut self, outage: &Range<u64>) -> Result<(), StoreError> {
        self.outages.remove(outage.end).map_err(failed)?;
        Ok(())
    }
}

/// The outages in `outages`, oldest first.
fn read_outages(outages: &impl ReadableTable<u64, u64>) -> Result<Vec<Range<u64>>, StoreError> {
    let mut kept = Vec::new();
    for outage in outages.iter().map_err(failed)? {
        let (end, start) = outage.map_err(failed)?;
        kept.push(start.value()..end.value());
    }
    Ok(kept)
}
