//! Players in Redis: not stored by this backend yet; every call answers so.

use super::RedisStore;
use crate::{
    BoardPage, BoardStart, GameCursor, PlayerOutcome, PlayerWrite, StoreError, StoredPlayer,
};

fn not_yet() -> StoreError {
    StoreError::Unavailable("the Redis store does not keep players yet".into())
}

impl RedisStore {
    pub(crate) async fn leaderboard(
        &self,
        _board: &str,
        _start: &BoardStart,
        _limit: usize,
        _now_ms: u64,
    ) -> Result<BoardPage, StoreError> {
        Err(not_yet())
    }
    pub(crate) async fn player(
        &self,
        _id: &str,
        _now_ms: u64,
    ) -> Result<Option<StoredPlayer>, StoreError> {
        Err(not_yet())
    }
    pub(crate) async fn player_by_token(
        &self,
        _token: &[u8],
        _now_ms: u64,
    ) -> Result<Option<(String, StoredPlayer)>, StoreError> {
        Err(not_yet())
    }
    pub(crate) async fn players(
        &self,
        _ids: &[String],
        _now_ms: u64,
    ) -> Result<Vec<Option<StoredPlayer>>, StoreError> {
        Err(not_yet())
    }
    pub(crate) async fn write_player(
        &self,
        _write: &PlayerWrite,
        _now_ms: u64,
    ) -> Result<PlayerOutcome, StoreError> {
        Err(not_yet())
    }
    pub(crate) async fn erase_player(
        &self,
        _id: &str,
        _expected: u64,
        _now_ms: u64,
    ) -> Result<PlayerOutcome, StoreError> {
        Err(not_yet())
    }
    pub(crate) async fn player_count(&self) -> Result<u64, StoreError> {
        Err(not_yet())
    }
    pub(crate) async fn player_games(
        &self,
        _player: &str,
        _after: Option<&GameCursor>,
        _limit: usize,
        _now_ms: u64,
    ) -> Result<Vec<(GameCursor, String)>, StoreError> {
        Err(not_yet())
    }
}
