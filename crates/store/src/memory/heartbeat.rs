//! The heartbeat, the outages and when the store began, in memory, under
//! the maps' one lock. A new process starts with none: what it knows of
//! downtime is its own (a process stopped, or a machine asleep, for
//! longer than the gap), and the store begins with it.

use std::ops::Range;

use super::{Maps, MemoryStore};
use crate::StoreError;
use crate::downtime::{self, Beats};

impl MemoryStore {
    pub(crate) fn alive(
        &self,
        now_ms: u64,
        gap_ms: u64,
        forget_before_ms: u64,
    ) -> Result<Option<Range<u64>>, StoreError> {
        downtime::alive(&mut *self.lock()?, now_ms, gap_ms, forget_before_ms)
    }

    pub(crate) fn outages(&self) -> Result<Vec<Range<u64>>, StoreError> {
        self.lock()?.outages()
    }

    pub(crate) fn born(&self, now_ms: u64) -> Result<u64, StoreError> {
        Ok(*self.lock()?.born.get_or_insert(now_ms))
    }
}

impl Beats for Maps {
    fn last_beat(&self) -> Result<Option<u64>, StoreError> {
        Ok(self.last_beat)
    }

    fn set_beat(&mut self, at_ms: u64) -> Result<(), StoreError> {
        self.last_beat = Some(at_ms);
        Ok(())
    }

    fn outages(&self) -> Result<Vec<Range<u64>>, StoreError> {
        Ok(self
            .outages
            .iter()
            .map(|(&end, &start)| start..end)
            .collect())
    }

    fn add_outage(&mut self, outage: Range<u64>) -> Result<(), StoreError> {
        self.outages.insert(outage.end, outage.start);
        Ok(())
    }

    fn remove_outage(&mut self, outage: &Range<u64>) -> Result<(), StoreError> {
        self.outages.remove(&outage.end);
        Ok(())
    }
}
