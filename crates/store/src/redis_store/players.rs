//! Players in Redis, and the reads that name them: a page of a board
//! (`board.lua`) and a player's games (`player_games.lua`). A player's
//! write and erase are scripts after `common.lua`, as a game's write is;
//! the reads are single commands, or scripts where one step reads keys
//! named by what it found.

use super::{RedisStore, failed, number, number_bytes, padded, ttl};
use crate::rules::live;
use crate::{
    BoardPage, BoardStart, Expected, GameCursor, PlayerOutcome, PlayerWrite, Ranked, StoreError,
    StoredPlayer,
};

/// The most entries or games a page asks Redis for: every sum of places
/// stays exact in Lua's numbers, and no board or list holds as many.
const MOST: usize = 1 << 40;

/// A player's fields as `HMGET v e t b` reads them.
type Fields = (
    Option<String>,
    Option<String>,
    Option<Vec<u8>>,
    Option<Vec<u8>>,
);

impl RedisStore {
    pub(crate) async fn player(
        &self,
        id: &str,
        now_ms: u64,
    ) -> Result<Option<StoredPlayer>, StoreError> {
        let fields: Fields = redis::cmd("HMGET")
            .arg(self.names.player(id))
            .arg(&["v", "e", "t", "b"])
            .query_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        live_player(id, fields, now_ms)
    }

    pub(crate) async fn players(
        &self,
        ids: &[String],
        now_ms: u64,
    ) -> Result<Vec<Option<StoredPlayer>>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for id in ids {
            pipe.cmd("HMGET")
                .arg(self.names.player(id))
                .arg(&["v", "e", "t", "b"]);
        }
        let found: Vec<Fields> = pipe
            .query_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        ids.iter()
            .zip(found)
            .map(|(id, fields)| live_player(id, fields, now_ms))
            .collect()
    }

    pub(crate) async fn player_by_token(
        &self,
        token: &[u8],
        now_ms: u64,
    ) -> Result<Option<(String, StoredPlayer)>, StoreError> {
        let found: Vec<Vec<u8>> = self
            .player_token_script
            .key(self.names.token_players())
            .arg(padded(now_ms))
            .arg(&self.names.prefix)
            .arg(token)
            .invoke_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        let [id, version, expires_at_ms, body] = match <[Vec<u8>; 4]>::try_from(found) {
            Ok(parts) => parts,
            Err(found) if found.is_empty() => return Ok(None),
            Err(found) => {
                return Err(StoreError::Corrupted(format!(
                    "a token's player read as {} parts",
                    found.len()
                )));
            }
        };
        let id = String::from_utf8(id)
            .map_err(|_| StoreError::Corrupted("a token's player has an id not UTF-8".into()))?;
        let what = || format!("player `{id}`");
        let player = StoredPlayer {
            version: number_bytes(&version, what)?,
            expires_at_ms: number_bytes(&expires_at_ms, what)?,
            token: Some(token.to_vec()),
            body,
        };
        Ok(Some((id, player)))
    }

    pub(crate) async fn write_player(
        &self,
        write: &PlayerWrite,
        now_ms: u64,
    ) -> Result<PlayerOutcome, StoreError> {
        let player = &write.player;
        let expected = match write.expected {
            Expected::Absent => String::new(),
            Expected::Version(version) => padded(version),
        };
        let mut call = self.call(&self.player_write_script, now_ms);
        call.key("player", self.names.player(&write.id))
            .arg("id", &write.id)
            .arg("expected", expected)
            .arg("max_players", self.limits.max_players)
            .arg("version", padded(player.version))
            .arg("expires", padded(player.expires_at_ms))
            .arg("score", player.expires_at_ms)
            .arg("ttl", ttl(player.expires_at_ms, now_ms))
            .arg("body", &player.body);
        if let Some(token) = &player.token {
            call.arg("token", token);
        }
        let reply = call.invoke(&mut self.connection().await?).await;
        player_outcome(&write.id, reply.map_err(failed)?)
    }

    pub(crate) async fn erase_player(
        &self,
        id: &str,
        expected: u64,
        now_ms: u64,
    ) -> Result<PlayerOutcome, StoreError> {
        let mut call = self.call(&self.player_erase_script, now_ms);
        call.key("player", self.names.player(id))
            .arg("id", id)
            .arg("expected", padded(expected));
        let reply = call.invoke(&mut self.connection().await?).await;
        player_outcome(id, reply.map_err(failed)?)
    }

    pub(crate) async fn player_count(&self) -> Result<u64, StoreError> {
        redis::cmd("ZCARD")
            .arg(self.names.player_expiry())
            .query_async(&mut self.connection().await?)
            .await
            .map_err(failed)
    }

    pub(crate) async fn player_games(
        &self,
        player: &str,
        after: Option<&GameCursor>,
        limit: usize,
        now_ms: u64,
    ) -> Result<Vec<(GameCursor, String)>, StoreError> {
        let after = after.map_or_else(String::new, |cursor| {
            format!("{} {}", padded(cursor.created_ms), cursor.id)
        });
        let listed: Vec<String> = self
            .player_games_script
            .key(self.names.player_games(player))
            .arg(padded(now_ms))
            .arg(&self.names.prefix)
            .arg(after)
            .arg(limit.min(MOST))
            .invoke_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        listed
            .into_iter()
            .map(|owned| {
                let what = || format!("player `{player}`'s games");
                let (created_ms, id) = owned.split_once(' ').ok_or_else(|| {
                    StoreError::Corrupted(format!("{}: a place without its id", what()))
                })?;
                let cursor = GameCursor {
                    created_ms: number(created_ms, what)?,
                    id: id.to_owned(),
                };
                Ok((cursor, id.to_owned()))
            })
            .collect()
    }

    pub(crate) async fn leaderboard(
        &self,
        board: &str,
        start: &BoardStart,
        limit: usize,
        now_ms: u64,
    ) -> Result<BoardPage, StoreError> {
        let (how, from, before) = match start {
            BoardStart::After(None) => ("top", "", 0),
            BoardStart::After(Some(rank)) => ("after", rank.as_str(), 0),
            BoardStart::Around { player, before } => ("around", player.as_str(), *before),
        };
        let page: Vec<Vec<u8>> = self
            .board_script
            .key(self.names.board(board))
            .key(self.names.ranks(board))
            .key(self.names.entries(board))
            .key(self.names.entry_players(board))
            .key(self.names.board_players(board))
            .arg(padded(now_ms))
            .arg(how)
            .arg(from)
            .arg(before.min(MOST))
            .arg(limit.min(MOST))
            .invoke_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        read_page(board, page)
    }
}

/// A board's page as `board.lua` answers it.
fn read_page(board: &str, page: Vec<Vec<u8>>) -> Result<BoardPage, StoreError> {
    let what = || format!("board `{board}`");
    let mut parts = page.into_iter();
    let (Some(position), Some(found)) = (parts.next(), parts.next()) else {
        return Ok(BoardPage::default());
    };
    let text = |bytes: Vec<u8>| {
        String::from_utf8(bytes)
            .map_err(|_| StoreError::Corrupted(format!("{}: a rank or player not UTF-8", what())))
    };
    let mut entries = Vec::new();
    while let Some(rank) = parts.next() {
        let (Some(player), Some(body)) = (parts.next(), parts.next()) else {
            return Err(StoreError::Corrupted(format!(
                "{}: an entry without its player or body",
                what()
            )));
        };
        entries.push(Ranked {
            rank: text(rank)?,
            player: text(player)?,
            body,
        });
    }
    Ok(BoardPage {
        position: number_bytes(&position, what)?,
        entries,
        found: match found.as_slice() {
            b"" => None,
            digits => Some(number_bytes(digits, what)?),
        },
    })
}

/// The live player `fields` hold, if they hold one.
fn live_player(id: &str, fields: Fields, now_ms: u64) -> Result<Option<StoredPlayer>, StoreError> {
    let what = || format!("player `{id}`");
    let player = match fields {
        (None, None, None, None) => return Ok(None),
        (Some(version), Some(expires_at_ms), token, Some(body)) => StoredPlayer {
            version: number(&version, what)?,
            expires_at_ms: number(&expires_at_ms, what)?,
            token,
            body,
        },
        _ => {
            return Err(StoreError::Corrupted(format!(
                "{} lacks some of its fields",
                what()
            )));
        }
    };
    Ok(Some(player).filter(|player| live(player.expires_at_ms, now_ms)))
}

/// What a player's script answered.
fn player_outcome(id: &str, reply: Vec<Vec<u8>>) -> Result<PlayerOutcome, StoreError> {
    match reply.as_slice() {
        [kind] if kind == b"written" => Ok(PlayerOutcome::Written),
        [kind] if kind == b"full" => Ok(PlayerOutcome::Full),
        [kind] if kind == b"token_taken" => Ok(PlayerOutcome::TokenTaken),
        [kind, current] if kind == b"stale" => {
            let current = match current.as_slice() {
                b"" => None,
                digits => Some(number_bytes(digits, || format!("player `{id}`"))?),
            };
            Ok(PlayerOutcome::Stale { current })
        }
        _ => Err(StoreError::Io(format!(
            "player `{id}`: a script answered {} parts of an unknown kind",
            reply.len()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_reads_as_the_script_answers_it() {
        let parts = |parts: &[&str]| parts.iter().map(|p| p.as_bytes().to_vec()).collect();
        assert_eq!(read_page("b", parts(&[])), Ok(BoardPage::default()));
        let page = read_page("b", parts(&["2", "3", "4x", "p", "body", "5y", "", "old"]));
        assert_eq!(
            page,
            Ok(BoardPage {
                position: 2,
                entries: vec![
                    Ranked {
                        rank: "4x".into(),
                        player: "p".into(),
                        body: b"body".to_vec(),
                    },
                    Ranked {
                        rank: "5y".into(),
                        player: String::new(),
                        body: b"old".to_vec(),
                    },
                ],
                found: Some(3),
            })
        );
        assert!(matches!(
            read_page("b", parts(&["0", "", "4x", "p"])),
            Err(StoreError::Corrupted(_))
        ));
    }
}
