//! The heartbeat and the outages in Redis: `PREFIX:heartbeat`, shared by
//! every replica, and `PREFIX:outages`, a sorted set of `START:END` (20
//! digits each) scored by the end. A heartbeat is one script
//! (`heartbeat.lua`), so replicas starting at once after a time when none
//! served record that outage once. Neither key has a TTL: they are two
//! keys, the set bounded by [`MAX_OUTAGES`].

use std::ops::Range;
use std::sync::LazyLock;

use redis::Script;

use super::{Names, RedisStore, failed, number, padded};
use crate::StoreError;
use crate::downtime::MAX_OUTAGES;

static HEARTBEAT: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("heartbeat.lua")));

impl RedisStore {
    pub(crate) async fn alive(
        &self,
        now_ms: u64,
        gap_ms: u64,
        forget_before_ms: u64,
    ) -> Result<Option<Range<u64>>, StoreError> {
        let outage: Vec<String> = HEARTBEAT
            .key(self.names.heartbeat())
            .key(self.names.outages())
            .arg(padded(now_ms))
            .arg(padded(now_ms.saturating_sub(gap_ms)))
            .arg(now_ms)
            .arg(forget_before_ms)
            .arg(MAX_OUTAGES)
            .invoke_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        match outage.as_slice() {
            [] => Ok(None),
            [start, end] => Ok(Some(
                number(start, || "the heartbeat".into())?..number(end, || "now".into())?,
            )),
            _ => Err(StoreError::Io(format!(
                "the heartbeat script answered {} parts, expected none or two",
                outage.len()
            ))),
        }
    }

    pub(crate) async fn outages(&self) -> Result<Vec<Range<u64>>, StoreError> {
        let members: Vec<String> = redis::cmd("ZRANGE")
            .arg(self.names.outages())
            .arg(0)
            .arg(-1)
            .query_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        members.iter().map(|member| outage(member)).collect()
    }
}

/// An outage as the set keeps it: `START:END`.
fn outage(member: &str) -> Result<Range<u64>, StoreError> {
    let what = || format!("the outage `{member}`");
    let (start, end) = member
        .split_once(':')
        .ok_or_else(|| StoreError::Corrupted(format!("{}: no `:` in it", what())))?;
    Ok(number(start, what)?..number(end, what)?)
}

impl Names {
    /// The last heartbeat of any replica.
    fn heartbeat(&self) -> String {
        format!("{}:heartbeat", self.prefix)
    }

    fn outages(&self) -> String {
        format!("{}:outages", self.prefix)
    }
}
