//! Players in the file: reads in a read transaction of their own, writes
//! and erases through the writer thread, in its groups, by the rules of
//! `rules.rs`.

use super::tables::{GAMES, OWNED, PLAYERS, TOKENS, failed, read_game, read_owned, read_player};
use super::{FileStore, writer};
use crate::rules::live;
use crate::{GameCursor, PlayerOutcome, PlayerWrite, StoreError, StoredPlayer};

impl FileStore {
    pub(crate) async fn player(
        &self,
        id: &str,
        now_ms: u64,
    ) -> Result<Option<StoredPlayer>, StoreError> {
        let id = id.to_owned();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(failed)?;
            let player = read_player(&txn.open_table(PLAYERS).map_err(failed)?, &id)?;
            Ok(player.filter(|player| live(player.expires_at_ms, now_ms)))
        })
        .await
    }

    pub(crate) async fn player_by_token(
        &self,
        token: &[u8],
        now_ms: u64,
    ) -> Result<Option<(String, StoredPlayer)>, StoreError> {
        let token = token.to_vec();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(failed)?;
            let tokens = txn.open_table(TOKENS).map_err(failed)?;
            let Some(id) = tokens.get(token.as_slice()).map_err(failed)? else {
                return Ok(None);
            };
            let id = id.value().to_owned();
            let player = read_player(&txn.open_table(PLAYERS).map_err(failed)?, &id)?;
            Ok(player
                .filter(|player| {
                    live(player.expires_at_ms, now_ms) && player.token.as_ref() == Some(&token)
                })
                .map(|player| (id, player)))
        })
        .await
    }

    pub(crate) async fn players(
        &self,
        ids: &[String],
        now_ms: u64,
    ) -> Result<Vec<Option<StoredPlayer>>, StoreError> {
        let ids = ids.to_vec();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(failed)?;
            let players = txn.open_table(PLAYERS).map_err(failed)?;
            ids.iter()
                .map(|id| {
                    let player = read_player(&players, id)?;
                    Ok(player.filter(|player| live(player.expires_at_ms, now_ms)))
                })
                .collect()
        })
        .await
    }

    pub(crate) async fn write_player(
        &self,
        write: PlayerWrite,
        now_ms: u64,
    ) -> Result<PlayerOutcome, StoreError> {
        player_done(self.commit(writer::Change::Player(write), now_ms).await?)
    }

    pub(crate) async fn erase_player(
        &self,
        id: &str,
        expected: u64,
        now_ms: u64,
    ) -> Result<PlayerOutcome, StoreError> {
        let id = id.to_owned();
        let change = writer::Change::Erase { id, expected };
        player_done(self.commit(change, now_ms).await?)
    }

    pub(crate) async fn player_count(&self) -> Result<u64, StoreError> {
        self.blocking(|db| {
            let txn = db.begin_read().map_err(failed)?;
            redb::ReadableTableMetadata::len(&txn.open_table(PLAYERS).map_err(failed)?)
                .map_err(failed)
        })
        .await
    }

    pub(crate) async fn player_games(
        &self,
        player: &str,
        after: Option<&GameCursor>,
        limit: usize,
        now_ms: u64,
    ) -> Result<Vec<(GameCursor, String)>, StoreError> {
        let player = player.to_owned();
        let after = after.cloned();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(failed)?;
            let games = txn.open_table(GAMES).map_err(failed)?;
            let owned = read_owned(&txn.open_table(OWNED).map_err(failed)?, &player)?;
            let mut listed = Vec::new();
            for (created_ms, id) in owned.into_iter().rev() {
                if listed.len() == limit {
                    break;
                }
                let cursor = GameCursor { created_ms, id };
                if after.as_ref().is_some_and(|after| &cursor >= after) {
                    continue;
                }
                let game = read_game(&games, &cursor.id)?;
                if game.is_some_and(|game| live(game.expires_at_ms, now_ms)) {
                    let id = cursor.id.clone();
                    listed.push((cursor, id));
                }
            }
            Ok(listed)
        })
        .await
    }
}

/// A player's write or erase answers a player's outcome.
fn player_done(done: writer::Done) -> Result<PlayerOutcome, StoreError> {
    match done {
        writer::Done::Player(outcome) => Ok(outcome),
        writer::Done::Game(_) | writer::Done::Match(_) => Err(StoreError::Unavailable(
            "the store's writer answered a player's change with another kind's outcome".into(),
        )),
    }
}
