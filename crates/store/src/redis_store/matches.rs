//! Matches in Redis. A match is a hash `PREFIX:match:{ID}` (`v`, `e`, `d`
//! its due time when it has a timer, `b`), indexed by expiry in
//! `PREFIX:match-expiry` and by due time in `PREFIX:match-due` (the
//! match's id, scored by its due time, so that equal times sort by id).
//! The record expires as a game's does; each index lives as long as the
//! longest-lived match it lists, so that no key of matches is left
//! without an expiry. A write, with its players and key, is one script
//! (`match_write.lua`, after `common.lua`), which announces it on the
//! changes channel as `match VERSION ID`; the due matches are read by
//! `due.lua`, which passes over an expired match's entry.

use super::{RedisStore, failed, number, number_bytes, padded, ttl};
use crate::rules::live;
use crate::{Expected, Kept, KeyBound, MatchOutcome, MatchWrite, StoreError, StoredMatch};

/// A match's fields as `HMGET v e d b` reads them.
type Fields = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<Vec<u8>>,
);

impl RedisStore {
    pub(crate) async fn match_record(
        &self,
        id: &str,
        now_ms: u64,
    ) -> Result<Option<StoredMatch>, StoreError> {
        let fields: Fields = redis::cmd("HMGET")
            .arg(self.names.match_record(id))
            .arg(&["v", "e", "d", "b"])
            .query_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        let what = || format!("match `{id}`");
        let stored = match fields {
            (None, None, None, None) => return Ok(None),
            (Some(version), Some(expires_at_ms), due_at_ms, Some(body)) => StoredMatch {
                version: number(&version, what)?,
                expires_at_ms: number(&expires_at_ms, what)?,
                due_at_ms: due_at_ms.map(|due| number(&due, what)).transpose()?,
                body,
            },
            _ => {
                return Err(StoreError::Corrupted(format!(
                    "match `{id}` lacks some of its fields"
                )));
            }
        };
        Ok(Some(stored).filter(|stored| live(stored.expires_at_ms, now_ms)))
    }

    pub(crate) async fn write_match(
        &self,
        write: &MatchWrite,
        now_ms: u64,
    ) -> Result<MatchOutcome, StoreError> {
        let record = &write.record;
        let mut call = self.call(&self.match_write_script, now_ms);
        call.key("match", self.names.match_record(&write.id))
            .arg("channel", self.names.changes())
            .arg("id", &write.id)
            .arg("expected", expected(write.expected))
            .arg("max_matches", self.limits.max_matches)
            .arg("version", padded(record.version))
            .arg("expires", padded(record.expires_at_ms))
            .arg("score", record.expires_at_ms)
            .arg("ttl", ttl(record.expires_at_ms, now_ms))
            .arg("body", &record.body);
        if let Some(due_at_ms) = record.due_at_ms {
            call.arg("due", padded(due_at_ms))
                .arg("due_score", due_at_ms);
        }
        if let Some((key, kept)) = &write.key {
            self.kept_args(&mut call, key, kept, now_ms);
        }
        for player in &write.players {
            let stored = &player.player;
            call.arg("player_id", &player.id)
                .arg("player_expected", expected(player.expected))
                .arg("player_version", padded(stored.version))
                .arg("player_expires", padded(stored.expires_at_ms))
                .arg("player_score", stored.expires_at_ms)
                .arg("player_ttl", ttl(stored.expires_at_ms, now_ms))
                .arg("player_body", &stored.body)
                .arg("player_token", stored.token.as_deref().unwrap_or_default());
        }
        let reply = call.invoke(&mut self.connection().await?).await;
        match_outcome(&write.id, reply.map_err(failed)?)
    }

    pub(crate) async fn due_matches(
        &self,
        now_ms: u64,
        at_most: usize,
    ) -> Result<Vec<String>, StoreError> {
        if at_most == 0 {
            return Ok(Vec::new());
        }
        self.due_script
            .key(self.names.match_due())
            .arg(padded(now_ms))
            .arg(now_ms)
            .arg(&self.names.prefix)
            .arg(at_most)
            .invoke_async(&mut self.connection().await?)
            .await
            .map_err(failed)
    }

    pub(crate) async fn match_count(&self) -> Result<u64, StoreError> {
        redis::cmd("ZCARD")
            .arg(self.names.match_expiry())
            .query_async(&mut self.connection().await?)
            .await
            .map_err(failed)
    }
}

/// A write's expected version as the scripts compare it: '' for none.
fn expected(expected: Expected) -> String {
    match expected {
        Expected::Absent => String::new(),
        Expected::Version(version) => padded(version),
    }
}

/// What the match's write script answered.
fn match_outcome(id: &str, reply: Vec<Vec<u8>>) -> Result<MatchOutcome, StoreError> {
    let version = |digits: &[u8], what: &str| match digits {
        b"" => Ok(None),
        digits => number_bytes(digits, || what.to_owned()).map(Some),
    };
    match reply.as_slice() {
        [kind] if kind == b"written" => Ok(MatchOutcome::Written),
        [kind] if kind == b"full" => Ok(MatchOutcome::Full),
        [kind, bound] if kind == b"too_many_keys" => {
            Ok(MatchOutcome::TooManyKeys(if bound == b"game" {
                KeyBound::Game
            } else {
                KeyBound::Store
            }))
        }
        [kind, current] if kind == b"stale" => Ok(MatchOutcome::Stale {
            current: version(current, &format!("match `{id}`"))?,
        }),
        [kind, player, current] if kind == b"player_stale" => {
            let player = String::from_utf8_lossy(player).into_owned();
            let current = version(current, &format!("player `{player}`"))?;
            Ok(MatchOutcome::PlayerStale {
                id: player,
                current,
            })
        }
        [kind, player] if kind == b"token_taken" => Err(StoreError::InvalidWrite(format!(
            "player `{}`: its token's hash is another live player's",
            String::from_utf8_lossy(player)
        ))),
        [kind, expires_at_ms, fingerprint, answer] if kind == b"replayed" => {
            Ok(MatchOutcome::Replayed(Kept {
                fingerprint: fingerprint.clone(),
                answer: answer.clone(),
                expires_at_ms: number_bytes(expires_at_ms, || format!("match `{id}`'s key"))?,
            }))
        }
        _ => Err(StoreError::Io(format!(
            "match `{id}`: the write script answered {} parts of an unknown kind",
            reply.len()
        ))),
    }
}
