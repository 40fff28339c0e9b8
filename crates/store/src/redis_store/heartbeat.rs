//! The heartbeat, the outages and when the store began, in Redis:
//! `PREFIX:heartbeat`, shared by every replica, `PREFIX:outages`, a sorted
//! set of `START:END` (20 digits each) scored by the end, and
//! `PREFIX:born`, set once (`SET NX`) by the first replica to ask. A
//! heartbeat is one script (`heartbeat.lua`), so replicas starting at once
//! after a time when none served record that outage once. None of the
//! keys has a TTL: they are three keys, the set bounded by
//! [`MAX_OUTAGES`].

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

    pub(crate) async fn born(&self, now_ms: u64) -> Result<u64, StoreError> {
        let mut connection = self.connection().await?;
        let key = self.names.born();
        // `SET NX`, then a read: the first replica's time stands.
        let _: Option<String> = redis::cmd("SET")
            .arg(&key)
            .arg(now_ms)
            .arg("NX")
            .query_async(&mut connection)
            .await
            .map_err(failed)?;
        let born: Option<String> = redis::cmd("GET")
            .arg(&key)
            .query_async(&mut connection)
            .await
            .map_err(failed)?;
        // Gone between the two: the keys were deleted just then.
        let born = born.ok_or_else(|| {
            StoreError::Io("the store's beginning was deleted as it was set".into())
        })?;
        number(&born, || "the store's beginning".into())
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

    fn born(&self) -> String {
        format!("{}:born", self.prefix)
    }
}
