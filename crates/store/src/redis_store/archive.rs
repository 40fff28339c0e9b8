//! The archiver's calls on Redis. The marks are the sorted set
//! `PREFIX:unarchived` (each game's id, scored by its finish, so that
//! equal times sort by id): listed and counted by plain commands. A copy
//! reads the game, its log and its mark in one `MULTI`, so that the
//! three agree; the clearing of marks is `archived.lua`, after
//! `common.lua`.

use super::{BACKSTOP_GRACE_MS, GameFields, MAX_TTL_MS, RedisStore, failed, number, stored_game};
use crate::{ArchiveCopy, StoreError, Unarchived, UnarchivedCount};

/// A copy as one `MULTI` reads it: the game's fields, its log (version
/// to entry) and its mark's score.
type Copied = (GameFields, Vec<(String, Vec<u8>)>, Option<String>);

impl RedisStore {
    pub(crate) async fn unarchived(
        &self,
        at_most: usize,
        now_ms: u64,
    ) -> Result<Vec<Unarchived>, StoreError> {
        if at_most == 0 {
            return Ok(Vec::new());
        }
        let marks: Vec<(String, String)> = redis::cmd("ZRANGEBYSCORE")
            .arg(self.names.unarchived())
            .arg("-inf")
            .arg(now_ms)
            .arg("WITHSCORES")
            .arg("LIMIT")
            .arg(0)
            .arg(at_most)
            .query_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        marks
            .into_iter()
            .map(|(id, finished_ms)| {
                let finished_ms = number(&finished_ms, || format!("game `{id}`'s mark"))?;
                Ok(Unarchived { id, finished_ms })
            })
            .collect()
    }

    pub(crate) async fn archive_copy(&self, id: &str) -> Result<Option<ArchiveCopy>, StoreError> {
        let (fields, log, finished_ms): Copied = redis::pipe()
            .atomic()
            .cmd("HMGET")
            .arg(self.names.game(id))
            .arg(&["v", "e", "b"])
            .cmd("HGETALL")
            .arg(self.names.log(id))
            .cmd("ZSCORE")
            .arg(self.names.unarchived())
            .arg(id)
            .query_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        let Some(game) = stored_game(id, fields)? else {
            return Ok(None);
        };
        let what = || format!("game `{id}`'s log");
        let mut log = log
            .into_iter()
            .map(|(version, entry)| Ok((number(&version, what)?, entry)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        log.sort_unstable_by_key(|(version, _)| *version);
        let finished_ms = finished_ms
            .map(|finished_ms| number(&finished_ms, || format!("game `{id}`'s mark")))
            .transpose()?;
        Ok(Some(ArchiveCopy {
            game,
            log,
            finished_ms,
        }))
    }

    pub(crate) async fn archived(&self, ids: &[String], now_ms: u64) -> Result<usize, StoreError> {
        let mut call = self.call(&self.archived_script, now_ms);
        call.arg("grace", BACKSTOP_GRACE_MS)
            .arg("max_ttl", MAX_TTL_MS);
        for id in ids {
            call.arg("id", id);
        }
        let mut connection = self.connection().await?;
        call.invoke(&mut connection).await.map_err(failed)
    }

    pub(crate) async fn unarchived_count(&self) -> Result<UnarchivedCount, StoreError> {
        let (games, oldest): (u64, Vec<(String, String)>) = redis::pipe()
            .atomic()
            .cmd("ZCARD")
            .arg(self.names.unarchived())
            .cmd("ZRANGE")
            .arg(self.names.unarchived())
            .arg(0)
            .arg(0)
            .arg("WITHSCORES")
            .query_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        let oldest_finished_ms = match oldest.first() {
            Some((id, finished_ms)) => Some(number(finished_ms, || format!("game `{id}`'s mark"))?),
            None => None,
        };
        Ok(UnarchivedCount {
            games,
            oldest_finished_ms,
        })
    }
}
