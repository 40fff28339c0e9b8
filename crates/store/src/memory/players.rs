//! Players in memory: reads on the maps, writes and erases by the rules
//! of `rules.rs`, each under the one lock as every call.

use super::MemoryStore;
use crate::rules::{self, Tables};
use crate::{GameCursor, PlayerOutcome, PlayerWrite, StoreError, StoredPlayer};

impl MemoryStore {
    pub(crate) fn player(&self, id: &str, now_ms: u64) -> Result<Option<StoredPlayer>, StoreError> {
        let maps = self.lock()?;
        Ok(maps
            .players
            .get(id)
            .filter(|player| rules::live(player.expires_at_ms, now_ms))
            .cloned())
    }

    pub(crate) fn player_by_token(
        &self,
        token: &[u8],
        now_ms: u64,
    ) -> Result<Option<(String, StoredPlayer)>, StoreError> {
        let maps = self.lock()?;
        let Some(id) = maps.tokens.get(token) else {
            return Ok(None);
        };
        Ok(maps
            .players
            .get(id)
            .filter(|player| {
                rules::live(player.expires_at_ms, now_ms) && player.token.as_deref() == Some(token)
            })
            .map(|player| (id.clone(), player.clone())))
    }

    pub(crate) fn players(
        &self,
        ids: &[String],
        now_ms: u64,
    ) -> Result<Vec<Option<StoredPlayer>>, StoreError> {
        let maps = self.lock()?;
        Ok(ids
            .iter()
            .map(|id| {
                maps.players
                    .get(id)
                    .filter(|player| rules::live(player.expires_at_ms, now_ms))
                    .cloned()
            })
            .collect())
    }

    pub(crate) fn write_player(
        &self,
        write: &PlayerWrite,
        now_ms: u64,
    ) -> Result<PlayerOutcome, StoreError> {
        rules::apply_player(&mut *self.lock()?, write, now_ms, &self.limits)
    }

    pub(crate) fn erase_player(
        &self,
        id: &str,
        expected: u64,
        now_ms: u64,
    ) -> Result<PlayerOutcome, StoreError> {
        rules::erase_player(&mut *self.lock()?, id, expected, now_ms)
    }

    pub(crate) fn player_count(&self) -> Result<u64, StoreError> {
        self.lock()?.players()
    }

    pub(crate) fn player_games(
        &self,
        player: &str,
        after: Option<&GameCursor>,
        limit: usize,
        now_ms: u64,
    ) -> Result<Vec<(GameCursor, String)>, StoreError> {
        let maps = self.lock()?;
        let Some(games) = maps.owned.get(player) else {
            return Ok(Vec::new());
        };
        let listed: Box<dyn DoubleEndedIterator<Item = &(u64, String)>> = match after {
            Some(cursor) => Box::new(games.range(..(cursor.created_ms, cursor.id.clone()))),
            None => Box::new(games.iter()),
        };
        Ok(listed
            .rev()
            .filter(|(_, id)| {
                maps.games
                    .get(id)
                    .is_some_and(|game| rules::live(game.expires_at_ms, now_ms))
            })
            .take(limit)
            .map(|(created_ms, id)| {
                let cursor = GameCursor {
                    created_ms: *created_ms,
                    id: id.clone(),
                };
                (cursor, id.clone())
            })
            .collect())
    }
}
