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
//! index does.
//!
//! Each kept answer has its game and charge in `key_owners`; `game_keys`
//! counts a game's answers and `totals` holds the charges of all, each
//! changed with the answers. A key kept before these tables were added
//! has no owner and counts for nothing.
//!
//! A game's log is `log`, keyed `(id, version)`, so that a game's
//! entries are one range in version order, removed with the game.
//!
//! A game is stored as `version | expires_at_ms | body` and a kept answer
//! as `expires_at_ms | fingerprint length | fingerprint | answer`, numbers
//! little-endian (u64, the length u32). Decoding checks every length: a
//! record that does not decode is [`StoreError::Corrupted`], never a panic.

use std::io;
use std::path::Path;

use redb::{ReadableTable, ReadableTableMetadata, Table, TableDefinition, WriteTransaction};

use crate::rules::{BoardHead, Head, Kind, Tables};
use crate::{Entry, Kept, StoreError, StoredGame};

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

    fn put_entry(
        &mut self,
        entry: &Entry,
        expires_at_ms: u64,
        replaces: Option<u64>,
    ) -> Result<bool, StoreError> {
        self.changed = true;
        self.boards
            .insert(entry.board.as_str(), expires_at_ms)
            .map_err(failed)?;
        self.reindex(Kind::Board, &entry.board, replaces, expires_at_ms)?;
        let replaced = self
            .entries
            .insert(
                (entry.board.as_str(), entry.rank.as_str()),
                entry.body.as_slice(),
            )
            .map_err(failed)?;
        Ok(replaced.is_none())
    }

    fn remove_worst(&mut self, board: &str) -> Result<(), StoreError> {
        self.changed = true;
        if let Some(worst) = self.ranks(board)?.pop() {
            self.entries
                .remove((board, worst.as_str()))
                .map_err(failed)?;
        }
        Ok(())
    }

    fn first_to_expire(&self, kind: Kind) -> Result<Option<(u64, String)>, StoreError> {
        let index = match kind {
            Kind::Game => &self.game_expiry,
            Kind::Key => &self.key_expiry,
            Kind::Board => &self.board_expiry,
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
                    self.entries.remove((name, rank.as_str())).map_err(failed)?;
                }
            }
        }
        Ok(())
    }
}

/// The first `limit` entries of `board` in `entries`, best first.
pub(super) fn read_entries(
    entries: &impl ReadableTable<(&'static str, &'static str), &'static [u8]>,
    board: &str,
    limit: usize,
) -> Result<Vec<Vec<u8>>, StoreError> {
    let mut bodies = Vec::new();
    for entry in entries.range((board, "")..).map_err(failed)? {
        let (key, body) = entry.map_err(failed)?;
        if key.value().0 != board || bodies.len() == limit {
            break;
        }
        bodies.push(body.value().to_vec());
    }
    Ok(bodies)
}

/// The entries of `id`'s log at `versions`, in order.
pub(super) fn read_log(
    log: &impl ReadableTable<(&'static str, u64), &'static [u8]>,
    id: &str,
    versions: std::ops::Range<u64>,
) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
    if versions.is_empty() {
        return Ok(Vec::new());
    }
    let mut entries = Vec::new();
    for entry in log
        .range((id, versions.start)..(id, versions.end))
        .map_err(failed)?
    {
        let (key, body) = entry.map_err(failed)?;
        entries.push((key.value().1, body.value().to_vec()));
    }
    Ok(entries)
}

/// The game stored under `id` in `games`, expired or not.
pub(super) fn read_game(
    games: &impl ReadableTable<&'static str, &'static [u8]>,
    id: &str,
) -> Result<Option<StoredGame>, StoreError> {
    let Some(record) = games.get(id).map_err(failed)? else {
        return Ok(None);
    };
    let (version, expires_at_ms, body) = split_game(id, record.value())?;
    Ok(Some(StoredGame {
        version,
        expires_at_ms,
        body: body.to_vec(),
    }))
}

/// The answer kept under `key` in `kept`, expired or not.
pub(super) fn read_kept(
    kept: &impl ReadableTable<&'static str, &'static [u8]>,
    key: &str,
) -> Result<Option<Kept>, StoreError> {
    let Some(record) = kept.get(key).map_err(failed)? else {
        return Ok(None);
    };
    let bytes = record.value();
    let corrupted = || {
        StoreError::Corrupted(format!(
            "the answer kept under `{key}` is {} bytes, short of what its head says",
            bytes.len()
        ))
    };
    let (expires_at_ms, rest) = take_u64(bytes).ok_or_else(corrupted)?;
    let (length, rest) = rest.split_first_chunk::<4>().ok_or_else(corrupted)?;
    let length = usize::try_from(u32::from_le_bytes(*length)).map_err(|_| corrupted())?;
    let (fingerprint, answer) = rest.split_at_checked(length).ok_or_else(corrupted)?;
    Ok(Some(Kept {
        fingerprint: fingerprint.to_vec(),
        answer: answer.to_vec(),
        expires_at_ms,
    }))
}

/// A game record's version, expiry and body.
fn split_game<'a>(id: &str, bytes: &'a [u8]) -> Result<(u64, u64, &'a [u8]), StoreError> {
    take_u64(bytes)
        .and_then(|(version, rest)| {
            take_u64(rest).map(|(expires_at_ms, body)| (version, expires_at_ms, body))
        })
        .ok_or_else(|| {
            StoreError::Corrupted(format!(
                "game `{id}` is {} bytes, shorter than its 16-byte head",
                bytes.len()
            ))
        })
}

fn take_u64(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let (number, rest) = bytes.split_first_chunk::<8>()?;
    Some((u64::from_le_bytes(*number), rest))
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
