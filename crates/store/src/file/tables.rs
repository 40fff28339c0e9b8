//! The store file's tables, how a record is laid out in them, and redb's
//! errors told as the store's.
//!
//! Games and kept answers are keyed by id and key; each kind has an
//! expiry index keyed `(expires_at_ms, name)`, so that a purge reads the
//! first to expire first without scanning. How many games there are is
//! redb's own count of the games table: kept in the table's header,
//! changed in the transaction that changes the table, read in constant
//! time, as for boards.
//!
//! A leaderboard is its expiry under its name in `boards` and its entries
//! in `entries`, keyed `(board, rank)`, so that a board's entries are
//! one range, best first; `board_expiry` indexes boards as the games'
//! index does. Each entry's player is in `entry_players`, keyed as
//! `entries`, and each player's entries in `player_entries`, keyed
//! `(player, board)` to the rank, so that a player's entries are one
//! range. An entry stored before these tables were added has no player.
//!
//! A player is stored in `players` by id, indexed by expiry in
//! `player_expiry` and by its token's hash in `tokens`. A game created
//! with an owner is listed in `owned`, keyed `(owner, created_ms, id)`, so
//! that an owner's games are one range in creation order, and its owner
//! and creation are in `game_owners`, so that the listing goes with it.
//!
//! Each kept answer has its game and charge in `key_owners`; `game_keys`
//! counts a game's answers and `totals` holds the charges of all, each
//! changed with the answers. A key kept before these tables were added
//! has no owner and counts for nothing.
//!
//! A game's log is `log`, keyed `(id, version)`, so that a game's
//! entries are one range in version order, removed with the game.
//!
//! A match is stored in `matches` by id, indexed by expiry in
//! `match_expiry` and, when it has a timer, in `match_due` keyed
//! `(due_at_ms, id)`, so that the matches due first are the first of the
//! range. A file made before matches gets these tables empty when it
//! opens.
//!
//! A game marked finished has its mark's time in `finished` by id, and
//! `unarchived` indexes the marks `(finished_ms, id)`, the oldest first.
//! An expired game held for the archive has its entry moved from
//! `game_expiry` to `game_held`, keyed alike; it stays in `games`, so it
//! counts. A file made before these tables gets them empty.
//!
//! A game is stored as `version | expires_at_ms | body`, a player as
//! `version | expires_at_ms | token length | token | body` (the length a
//! byte, 0 for none), a match as
//! `version | expires_at_ms | due flag | [due_at_ms] | body` (the flag a
//! byte, 1 when `due_at_ms` follows, 0 for none) and a kept answer as
//! `expires_at_ms | fingerprint length | fingerprint | answer`, numbers
//! little-endian (u64, the length u32). Decoding checks every length
//! (`records.rs`): a record that does not decode is
//! [`StoreError::Corrupted`], never a panic.

use std::io;
use std::path::Path;

use redb::{ReadableTable, ReadableTableMetadata, Table, TableDefinition, WriteTransaction};

use super::records::{split_game, split_match};
use crate::rules::{BoardHead, Head, Kind, MatchHead, Tables};
use crate::{Entry, Kept, StoreError, StoredGame, StoredMatch, StoredPlayer};

pub(super) use super::records::{
    read_entries, read_game, read_kept, read_log, read_match, read_owned, read_player,
};

pub(super) const GAMES: TableDefinition<&str, &[u8]> = TableDefinition::new("games");
pub(super) const KEPT: TableDefinition<&str, &[u8]> = TableDefinition::new("kept");
const GAME_EXPIRY: TableDefinition<(u64, &str), ()> = TableDefinition::new("game_expiry");
const KEY_EXPIRY: TableDefinition<(u64, &str), ()> = TableDefinition::new("key_expiry");
pub(super) const BOARDS: TableDefinition<&str, u64> = TableDefinition::new("boards");
pub(super) const ENTRIES: TableDefinition<(&str, &str), &[u8]> = TableDefinition::new("entries");
const BOARD_EXPIRY: TableDefinition<(u64, &str), ()> = TableDefinition::new("board_expiry");
pub(super) const LOG: TableDefinition<(&str, u64), &[u8]> = TableDefinition::new("log");
const KEY_OWNERS: TableDefinition<&str, (u64, &str)> = TableDefinition::new("key_owners");
const GAME_KEYS: TableDefinition<&str, u64> = TableDefinition::new("game_keys");
const TOTALS: TableDefinition<&str, u64> = TableDefinition::new("totals");
pub(super) const ENTRY_PLAYERS: TableDefinition<(&str, &str), &str> =
    TableDefinition::new("entry_players");
const PLAYER_ENTRIES: TableDefinition<(&str, &str), &str> = TableDefinition::new("player_entries");
pub(super) const PLAYERS: TableDefinition<&str, &[u8]> = TableDefinition::new("players");
const PLAYER_EXPIRY: TableDefinition<(u64, &str), ()> = TableDefinition::new("player_expiry");
pub(super) const TOKENS: TableDefinition<&[u8], &str> = TableDefinition::new("tokens");
pub(super) const OWNED: TableDefinition<(&str, u64, &str), ()> = TableDefinition::new("owned");
const GAME_OWNERS: TableDefinition<&str, (u64, &str)> = TableDefinition::new("game_owners");
pub(super) const MATCHES: TableDefinition<&str, &[u8]> = TableDefinition::new("matches");
const MATCH_EXPIRY: TableDefinition<(u64, &str), ()> = TableDefinition::new("match_expiry");
pub(super) const MATCH_DUE: TableDefinition<(u64, &str), ()> = TableDefinition::new("match_due");
pub(super) const FINISHED: TableDefinition<&str, u64> = TableDefinition::new("finished");
pub(super) const UNARCHIVED: TableDefinition<(u64, &str), ()> = TableDefinition::new("unarchived");
const GAME_HELD: TableDefinition<(u64, &str), ()> = TableDefinition::new("game_held");

/// The row of `totals` that holds the charges of every kept answer.
const KEPT_BYTES: &str = "kept_bytes";

/// The tables, open in one write transaction.
pub(super) struct FileTables<'txn> {
    games: Table<'txn, &'static str, &'static [u8]>,
    log: Table<'txn, (&'static str, u64), &'static [u8]>,
    kept: Table<'txn, &'static str, &'static [u8]>,
    boards: Table<'txn, &'static str, u64>,
    entries: Table<'txn, (&'static str, &'static str), &'static [u8]>,
    game_expiry: Table<'txn, (u64, &'static str), ()>,
    key_expiry: Table<'txn, (u64, &'static str), ()>,
    board_expiry: Table<'txn, (u64, &'static str), ()>,
    key_owners: Table<'txn, &'static str, (u64, &'static str)>,
    game_keys: Table<'txn, &'static str, u64>,
    totals: Table<'txn, &'static str, u64>,
    entry_players: Table<'txn, (&'static str, &'static str), &'static str>,
    player_entries: Table<'txn, (&'static str, &'static str), &'static str>,
    players: Table<'txn, &'static str, &'static [u8]>,
    player_expiry: Table<'txn, (u64, &'static str), ()>,
    tokens: Table<'txn, &'static [u8], &'static str>,
    owned: Table<'txn, (&'static str, u64, &'static str), ()>,
    game_owners: Table<'txn, &'static str, (u64, &'static str)>,
    matches: Table<'txn, &'static str, &'static [u8]>,
    match_expiry: Table<'txn, (u64, &'static str), ()>,
    match_due: Table<'txn, (u64, &'static str), ()>,
    finished: Table<'txn, &'static str, u64>,
    unarchived: Table<'txn, (u64, &'static str), ()>,
    game_held: Table<'txn, (u64, &'static str), ()>,
    /// Whether any table was changed: a batch of stale writes changed
    /// none, and is not synced.
    changed: bool,
}

impl<'txn> FileTables<'txn> {
    /// Opens the tables, creating those missing.
    pub(super) fn open(txn: &'txn WriteTransaction) -> Result<Self, redb::TableError> {
        Ok(FileTables {
            games: txn.open_table(GAMES)?,
            log: txn.open_table(LOG)?,
            kept: txn.open_table(KEPT)?,
            boards: txn.open_table(BOARDS)?,
            entries: txn.open_table(ENTRIES)?,
            game_expiry: txn.open_table(GAME_EXPIRY)?,
            key_expiry: txn.open_table(KEY_EXPIRY)?,
            board_expiry: txn.open_table(BOARD_EXPIRY)?,
            key_owners: txn.open_table(KEY_OWNERS)?,
            game_keys: txn.open_table(GAME_KEYS)?,
            totals: txn.open_table(TOTALS)?,
            entry_players: txn.open_table(ENTRY_PLAYERS)?,
            player_entries: txn.open_table(PLAYER_ENTRIES)?,
            players: txn.open_table(PLAYERS)?,
            player_expiry: txn.open_table(PLAYER_EXPIRY)?,
            tokens: txn.open_table(TOKENS)?,
            owned: txn.open_table(OWNED)?,
            game_owners: txn.open_table(GAME_OWNERS)?,
            matches: txn.open_table(MATCHES)?,
            match_expiry: txn.open_table(MATCH_EXPIRY)?,
            match_due: txn.open_table(MATCH_DUE)?,
            finished: txn.open_table(FINISHED)?,
            unarchived: txn.open_table(UNARCHIVED)?,
            game_held: txn.open_table(GAME_HELD)?,
            changed: false,
        })
    }

    /// Whether any table was changed since they were opened.
    pub(super) fn changed(&self) -> bool {
        self.changed
    }

    fn index(&mut self, kind: Kind) -> &mut Table<'txn, (u64, &'static str), ()> {
        match kind {
            Kind::Game => &mut self.game_expiry,
            Kind::Key => &mut self.key_expiry,
            Kind::Board => &mut self.board_expiry,
            Kind::Player => &mut self.player_expiry,
            Kind::Match => &mut self.match_expiry,
        }
    }

    /// The ranks of `board`'s entries, best first: at most the board
    /// size and one more, so the walk is bounded.
    fn ranks(&self, board: &str) -> Result<Vec<String>, StoreError> {
        let mut ranks = Vec::new();
        for entry in self.entries.range((board, "")..).map_err(failed)? {
            let (key, _) = entry.map_err(failed)?;
            let (on, rank) = key.value();
            if on != board {
                break;
            }
            ranks.push(rank.to_owned());
        }
        Ok(ranks)
    }

    fn reindex(
        &mut self,
        kind: Kind,
        name: &str,
        replaces: Option<u64>,
        expires_at_ms: u64,
    ) -> Result<(), StoreError> {
        let index = self.index(kind);
        if let Some(old) = replaces {
            index.remove((old, name)).map_err(failed)?;
        }
        index.insert((expires_at_ms, name), ()).map_err(failed)?;
        Ok(())
    }
}

impl Tables for FileTables<'_> {
    fn head(&self, id: &str) -> Result<Option<Head>, StoreError> {
        let Some(record) = self.games.get(id).map_err(failed)? else {
            return Ok(None);
        };
        let (version, expires_at_ms, _) = split_game(id, record.value())?;
        Ok(Some(Head {
            version,
            expires_at_ms,
        }))
    }

    fn kept(&self, key: &str) -> Result<Option<Kept>, StoreError> {
        read_kept(&self.kept, key)
    }

    fn count(&self) -> Result<u64, StoreError> {
        self.games.len().map_err(failed)
    }

    fn put_game(
        &mut self,
        id: &str,
        game: &StoredGame,
        replaces: Option<u64>,
    ) -> Result<(), StoreError> {
        self.changed = true;
        let mut record = Vec::with_capacity(16 + game.body.len());
        record.extend_from_slice(&game.version.to_le_bytes());
        record.extend_from_slice(&game.expires_at_ms.to_le_bytes());
        record.extend_from_slice(&game.body);
        self.games.insert(id, record.as_slice()).map_err(failed)?;
        self.reindex(Kind::Game, id, replaces, game.expires_at_ms)
    }

    fn put_log(
        &mut self,
        id: &str,
        versions: std::ops::Range<u64>,
        entries: &[Vec<u8>],
    ) -> Result<(), StoreError> {
        self.changed = true;
        for (version, entry) in versions.zip(entries) {
            self.log
                .insert((id, version), entry.as_slice())
                .map_err(failed)?;
        }
        Ok(())
    }

    fn put_kept(
        &mut self,
        key: &str,
        game: &str,
        kept: &Kept,
        charge: u64,
    ) -> Result<(), StoreError> {
        self.changed = true;
        let fingerprint_len = u32::try_from(kept.fingerprint.len()).map_err(|_| {
            StoreError::InvalidWrite(format!(
                "key `{key}`: a fingerprint of {} bytes is past 4 GiB",
                kept.fingerprint.len()
            ))
        })?;
        let mut record = Vec::with_capacity(12 + kept.fingerprint.len() + kept.answer.len());
        record.extend_from_slice(&kept.expires_at_ms.to_le_bytes());
        record.extend_from_slice(&fingerprint_len.to_le_bytes());
        record.extend_from_slice(&kept.fingerprint);
        record.extend_from_slice(&kept.answer);
        self.kept.insert(key, record.as_slice()).map_err(failed)?;
        self.key_owners
            .insert(key, (charge, game))
            .map_err(failed)?;
        let count = self.keys_of(game)?;
        self.game_keys.insert(game, count + 1).map_err(failed)?;
        let bytes = self.kept_bytes()?;
        self.totals
            .insert(KEPT_BYTES, bytes.saturating_add(charge))
            .map_err(failed)?;
        self.reindex(Kind::Key, key, None, kept.expires_at_ms)
    }

    fn keys_of(&self, game: &str) -> Result<u64, StoreError> {
        let count = self.game_keys.get(game).map_err(failed)?;
        Ok(count.map_or(0, |count| count.value()))
    }

    fn kept_bytes(&self) -> Result<u64, StoreError> {
        let bytes = self.totals.get(KEPT_BYTES).map_err(failed)?;
        Ok(bytes.map_or(0, |bytes| bytes.value()))
    }

    fn board(&self, board: &str) -> Result<Option<BoardHead>, StoreError> {
        let Some(expires_at_ms) = self.boards.get(board).map_err(failed)? else {
            return Ok(None);
        };
        Ok(Some(BoardHead {
            expires_at_ms: expires_at_ms.value(),
            entries: self.ranks(board)?.len(),
        }))
    }

    fn boards(&self) -> Result<u64, StoreError> {
        self.boards.len().map_err(failed)
    }

    fn entry_of(&self, board: &str, player: &str) -> Result<Option<String>, StoreError> {
        let rank = self.player_entries.get((player, board)).map_err(failed)?;
        Ok(rank.map(|rank| rank.value().to_owned()))
    }

    fn holds(&self, board: &str, rank: &str) -> Result<bool, StoreError> {
        Ok(self.entries.get((board, rank)).map_err(failed)?.is_some())
    }

    fn boards_of(&self, player: &str) -> Result<Vec<String>, StoreError> {
        let mut boards = Vec::new();
        for entry in self.player_entries.range((player, "")..).map_err(failed)? {
            let (key, _) = entry.map_err(failed)?;
            let (of, board) = key.value();
            if of != player {
                break;
            }
            boards.push(board.to_owned());
        }
        Ok(boards)
    }

    fn put_entry(
        &mut self,
        entry: &Entry,
        expires_at_ms: u64,
        replaces: Option<u64>,
    ) -> Result<(), StoreError> {
        self.changed = true;
        let (board, rank, player) = (
            entry.board.as_str(),
            entry.rank.as_str(),
            entry.player.as_str(),
        );
        self.boards.insert(board, expires_at_ms).map_err(failed)?;
        self.reindex(Kind::Board, board, replaces, expires_at_ms)?;
        self.entries
            .insert((board, rank), entry.body.as_slice())
            .map_err(failed)?;
        self.entry_players
            .insert((board, rank), player)
            .map_err(failed)?;
        self.player_entries
            .insert((player, board), rank)
            .map_err(failed)?;
        Ok(())
    }

    fn worst(&self, board: &str) -> Result<Option<String>, StoreError> {
        Ok(self.ranks(board)?.pop())
    }

    fn remove_entry(&mut self, board: &str, rank: &str) -> Result<(), StoreError> {
        self.changed = true;
        self.entries.remove((board, rank)).map_err(failed)?;
        let player = self.entry_players.remove((board, rank)).map_err(failed)?;
        if let Some(player) = player.map(|player| player.value().to_owned()) {
            self.player_entries
                .remove((player.as_str(), board))
                .map_err(failed)?;
        }
        Ok(())
    }

    fn player(&self, id: &str) -> Result<Option<StoredPlayer>, StoreError> {
        read_player(&self.players, id)
    }

    fn players(&self) -> Result<u64, StoreError> {
        self.players.len().map_err(failed)
    }

    fn token_owner(&self, token: &[u8]) -> Result<Option<String>, StoreError> {
        let owner = self.tokens.get(token).map_err(failed)?;
        Ok(owner.map(|owner| owner.value().to_owned()))
    }

    fn put_player(
        &mut self,
        id: &str,
        player: &StoredPlayer,
        replaces: Option<u64>,
    ) -> Result<(), StoreError> {
        self.changed = true;
        let token = player.token.as_deref().unwrap_or_default();
        let token_len = u8::try_from(token.len()).map_err(|_| {
            StoreError::InvalidWrite(format!(
                "player `{id}`: a token's hash of {} bytes",
                token.len()
            ))
        })?;
        let mut record = Vec::with_capacity(17 + token.len() + player.body.len());
        record.extend_from_slice(&player.version.to_le_bytes());
        record.extend_from_slice(&player.expires_at_ms.to_le_bytes());
        record.push(token_len);
        record.extend_from_slice(token);
        record.extend_from_slice(&player.body);
        self.players.insert(id, record.as_slice()).map_err(failed)?;
        self.reindex(Kind::Player, id, replaces, player.expires_at_ms)
    }

    fn put_token(&mut self, token: &[u8], id: &str) -> Result<(), StoreError> {
        self.changed = true;
        self.tokens.insert(token, id).map_err(failed)?;
        Ok(())
    }

    fn remove_token(&mut self, token: &[u8]) -> Result<(), StoreError> {
        self.changed = true;
        self.tokens.remove(token).map_err(failed)?;
        Ok(())
    }

    fn own(&mut self, owner: &str, created_ms: u64, id: &str) -> Result<(), StoreError> {
        self.changed = true;
        self.owned
            .insert((owner, created_ms, id), ())
            .map_err(failed)?;
        self.game_owners
            .insert(id, (created_ms, owner))
            .map_err(failed)?;
        Ok(())
    }

    fn unown(&mut self, id: &str) -> Result<(), StoreError> {
        let owner = self.game_owners.remove(id).map_err(failed)?.map(|owner| {
            let (created_ms, owner) = owner.value();
            (created_ms, owner.to_owned())
        });
        if let Some((created_ms, owner)) = owner {
            self.changed = true;
            self.owned
                .remove((owner.as_str(), created_ms, id))
                .map_err(failed)?;
        }
        Ok(())
    }

    fn owned(&self, owner: &str) -> Result<Vec<(u64, String)>, StoreError> {
        read_owned(&self.owned, owner)
    }

    fn match_head(&self, id: &str) -> Result<Option<MatchHead>, StoreError> {
        let Some(record) = self.matches.get(id).map_err(failed)? else {
            return Ok(None);
        };
        Ok(Some(split_match(id, record.value())?.0))
    }

    fn matches(&self) -> Result<u64, StoreError> {
        self.matches.len().map_err(failed)
    }

    fn put_match(
        &mut self,
        id: &str,
        record: &StoredMatch,
        replaces: Option<MatchHead>,
    ) -> Result<(), StoreError> {
        self.changed = true;
        let mut bytes = Vec::with_capacity(25 + record.body.len());
        bytes.extend_from_slice(&record.version.to_le_bytes());
        bytes.extend_from_slice(&record.expires_at_ms.to_le_bytes());
        match record.due_at_ms {
            Some(due_at_ms) => {
                bytes.push(1);
                bytes.extend_from_slice(&due_at_ms.to_le_bytes());
            }
            None => bytes.push(0),
        }
        bytes.extend_from_slice(&record.body);
        self.matches.insert(id, bytes.as_slice()).map_err(failed)?;
        if let Some(due_at_ms) = replaces.and_then(|head| head.due_at_ms) {
            self.match_due.remove((due_at_ms, id)).map_err(failed)?;
        }
        if let Some(due_at_ms) = record.due_at_ms {
            self.match_due.insert((due_at_ms, id), ()).map_err(failed)?;
        }
        let old = replaces.map(|head| head.expires_at_ms);
        self.reindex(Kind::Match, id, old, record.expires_at_ms)
    }

    fn first_to_expire(&self, kind: Kind) -> Result<Option<(u64, String)>, StoreError> {
        let index = match kind {
            Kind::Game => &self.game_expiry,
            Kind::Key => &self.key_expiry,
            Kind::Board => &self.board_expiry,
            Kind::Player => &self.player_expiry,
            Kind::Match => &self.match_expiry,
        };
        let first = index.first().map_err(failed)?;
        Ok(first.map(|(entry, _)| {
            let (expires_at_ms, name) = entry.value();
            (expires_at_ms, name.to_owned())
        }))
    }

    fn remove(&mut self, kind: Kind, expires_at_ms: u64, name: &str) -> Result<(), StoreError> {
        self.changed = true;
        self.index(kind)
            .remove((expires_at_ms, name))
            .map_err(failed)?;
        match kind {
            Kind::Game => {
                self.game_held
                    .remove((expires_at_ms, name))
                    .map_err(failed)?;
                self.games.remove(name).map_err(failed)?;
                // One entry a version: bounded by the game's actions.
                self.log
                    .retain_in((name, 0)..=(name, u64::MAX), |_, _| false)
                    .map_err(failed)?;
            }
            Kind::Key => {
                self.kept.remove(name).map_err(failed)?;
                let owner = self.key_owners.remove(name).map_err(failed)?.map(|owner| {
                    let (charge, game) = owner.value();
                    (charge, game.to_owned())
                });
                if let Some((charge, game)) = owner {
                    let game = game.as_str();
                    let bytes = self.kept_bytes()?;
                    self.totals
                        .insert(KEPT_BYTES, bytes.saturating_sub(charge))
                        .map_err(failed)?;
                    match self.keys_of(game)? {
                        0 | 1 => drop(self.game_keys.remove(game).map_err(failed)?),
                        count => drop(self.game_keys.insert(game, count - 1).map_err(failed)?),
                    }
                }
            }
            Kind::Board => {
                self.boards.remove(name).map_err(failed)?;
                for rank in self.ranks(name)? {
                    self.remove_entry(name, &rank)?;
                }
            }
            Kind::Player => {
                self.players.remove(name).map_err(failed)?;
            }
            Kind::Match => {
                let due = match self.matches.remove(name).map_err(failed)? {
                    Some(record) => split_match(name, record.value())?.0.due_at_ms,
                    None => None,
                };
                if let Some(due_at_ms) = due {
                    self.match_due.remove((due_at_ms, name)).map_err(failed)?;
                }
            }
        }
        Ok(())
    }

    fn finished(&self, id: &str) -> Result<Option<u64>, StoreError> {
        let finished_ms = self.finished.get(id).map_err(failed)?;
        Ok(finished_ms.map(|finished_ms| finished_ms.value()))
    }

    fn mark(&mut self, id: &str, finished_ms: u64) -> Result<(), StoreError> {
        self.changed = true;
        self.finished.insert(id, finished_ms).map_err(failed)?;
        self.unarchived
            .insert((finished_ms, id), ())
            .map_err(failed)?;
        Ok(())
    }

    fn unmark(&mut self, id: &str) -> Result<(), StoreError> {
        let finished_ms = self.finished.remove(id).map_err(failed)?;
        if let Some(finished_ms) = finished_ms.map(|finished_ms| finished_ms.value()) {
            self.changed = true;
            self.unarchived.remove((finished_ms, id)).map_err(failed)?;
        }
        Ok(())
    }

    fn hold(&mut self, id: &str, expires_at_ms: u64) -> Result<(), StoreError> {
        self.changed = true;
        self.game_expiry
            .remove((expires_at_ms, id))
            .map_err(failed)?;
        self.game_held
            .insert((expires_at_ms, id), ())
            .map_err(failed)?;
        Ok(())
    }

    fn release(&mut self, id: &str, expires_at_ms: u64) -> Result<(), StoreError> {
        if self
            .game_held
            .remove((expires_at_ms, id))
            .map_err(failed)?
            .is_some()
        {
            self.changed = true;
            self.game_expiry
                .insert((expires_at_ms, id), ())
                .map_err(failed)?;
        }
        Ok(())
    }

    fn first_held(&self) -> Result<Option<(u64, String)>, StoreError> {
        let first = self.game_held.first().map_err(failed)?;
        Ok(first.map(|(entry, _)| {
            let (expires_at_ms, id) = entry.value();
            (expires_at_ms, id.to_owned())
        }))
    }
}

/// A redb error met while the store is open.
pub(super) fn failed(err: impl Into<redb::Error>) -> StoreError {
    match err.into() {
        redb::Error::Io(err) => StoreError::Io(err.to_string()),
        redb::Error::Corrupted(message) => StoreError::Corrupted(message),
        err @ redb::Error::PreviousIo => StoreError::Io(err.to_string()),
        err @ redb::Error::ValueTooLarge(_) => StoreError::InvalidWrite(err.to_string()),
        err => StoreError::Unavailable(err.to_string()),
    }
}

/// A redb error met while opening the file at `path`.
pub(super) fn open_failed(path: &Path, err: impl Into<redb::Error>) -> StoreError {
    let path = path.to_owned();
    match err.into() {
        redb::Error::DatabaseAlreadyOpen => StoreError::Locked { path },
        redb::Error::Corrupted(cause) => StoreError::Damaged { path, cause },
        // What redb answers when the file does not start with its header.
        redb::Error::Io(err) if err.kind() == io::ErrorKind::InvalidData => StoreError::NotAStore {
            path,
            cause: "it does not start with redb's header".into(),
        },
        err @ (redb::Error::UpgradeRequired(_)
        | redb::Error::TableTypeMismatch { .. }
        | redb::Error::TypeDefinitionChanged { .. }
        | redb::Error::TableIsMultimap(_)) => StoreError::NotAStore {
            path,
            cause: err.to_string(),
        },
        err => StoreError::Open {
            path,
            cause: err.to_string(),
        },
    }
}
