//! Seeks in Redis, shared by the replicas: a seeker is a hash
//! `PREFIX:seeker:{PLAYER}` (`k` its key, `t` its ticket, `r` its
//! rating, `e` when it expires), in the line of its key,
//! `PREFIX:seek-line:{KEY}` (players scored by their arrival, a count
//! kept in `PREFIX:seek-arrivals`);
//! a seat taken is `PREFIX:seat:{PLAYER}`, JSON of the ticket, the match
//! id, the time it is kept until and the players. Each call is one
//! script (`seek*.lua`); every key expires by itself soon after what it
//! holds does.

use super::{RedisStore, failed, ttl};
use crate::seeks::LINE_SCAN;
use crate::{Pairing, Seat, SeekWrite, Seeking, StoreError};

impl RedisStore {
    pub(crate) async fn seek(&self, seek: &SeekWrite, now_ms: u64) -> Result<(), StoreError> {
        let () = self
            .seek_script
            .key(self.names.seeker(&seek.player))
            .arg(&self.names.prefix)
            .arg(&seek.key)
            .arg(&seek.player)
            .arg(&seek.ticket)
            .arg(seek.rating.to_string())
            .arg(now_ms)
            .arg(seek.expires_at_ms)
            .arg(ttl(seek.expires_at_ms, now_ms))
            .invoke_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        Ok(())
    }

    pub(crate) async fn seated(
        &self,
        player: &str,
        ticket: &str,
        expires_at_ms: u64,
        now_ms: u64,
    ) -> Result<Seeking, StoreError> {
        let mut answer: Vec<String> = self
            .seated_script
            .key(self.names.seat(player))
            .key(self.names.seeker(player))
            .arg(&self.names.prefix)
            .arg(ticket)
            .arg(expires_at_ms)
            .arg(now_ms)
            .arg(ttl(expires_at_ms, now_ms))
            .invoke_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        match answer.first().map(String::as_str) {
            Some("waiting") => Ok(Seeking::Waiting),
            Some("gone") => Ok(Seeking::Gone),
            Some("seated") if answer.len() >= 2 => {
                let players = answer.split_off(2);
                Ok(Seeking::Seated(Seat {
                    match_id: answer.swap_remove(1),
                    players,
                }))
            }
            _ => Err(StoreError::Corrupted(format!(
                "a seek's script answered {answer:?}, expected waiting, gone or a seat"
            ))),
        }
    }

    pub(crate) async fn pair(
        &self,
        pairing: &Pairing,
        now_ms: u64,
    ) -> Result<Option<Vec<String>>, StoreError> {
        let players: Vec<String> = self
            .pair_script
            .key(self.names.seek_line(&pairing.key))
            .arg(&self.names.prefix)
            .arg(&pairing.key)
            .arg(pairing.seats)
            .arg(pairing.range.to_string())
            .arg(&pairing.match_id)
            .arg(now_ms)
            .arg(pairing.kept_until_ms)
            .arg(ttl(pairing.kept_until_ms, now_ms))
            .arg(LINE_SCAN)
            .invoke_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        Ok((!players.is_empty()).then_some(players))
    }

    pub(crate) async fn unseek(&self, player: &str, ticket: &str) -> Result<(), StoreError> {
        let () = self
            .unseek_script
            .key(self.names.seeker(player))
            .arg(&self.names.prefix)
            .arg(player)
            .arg(ticket)
            .invoke_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        Ok(())
    }
}
