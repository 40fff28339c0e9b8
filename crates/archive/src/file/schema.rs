//! The archive file's tables, the schema version kept in it, and the
//! migrations from each older version, run when the file opens.
//!
//! Version 1: a game's columns in `games` (by id, `row.rs`), its record
//! in `bodies` (by id), and its keys in the indexes `by_time`
//! `(finished_ms, id)`, `by_match`, `by_player` and `by_leaderboard`
//! `(key, finished_ms, id)`, each read backwards for newest first.
//! Version 2 adds `erased_players`, the players whose names a game
//! archived after their erasure loses (as PostgreSQL's migration 0002).
//! Version 3 adds `by_player_created` `(player, created_ms, id)`, a
//! player's games in the order they were created (as migration 0003),
//! filled from `games` when an older file opens.
//! Version 4 adds `by_named_player` `(player, id)`, the games that hold
//! their player's name still (as PostgreSQL's migration 0004), filled
//! from `games` as an older file opens.
//!
//! The version is `schema` in `archive_meta`; a file without that table
//! but with others is something else (a game store, say) and is left
//! alone.

use std::path::Path;

use redb::{ReadableTable, TableDefinition, TableHandle, WriteTransaction};

use super::row::Row;
use super::{failed, open_failed};
use crate::ArchiveError;

/// The schema this build writes.
pub(super) const VERSION: u64 = 4;

pub(super) const META: TableDefinition<&str, u64> = TableDefinition::new("archive_meta");
const SCHEMA: &str = "schema";

pub(super) const GAMES: TableDefinition<&str, &[u8]> = TableDefinition::new("games");
pub(super) const BODIES: TableDefinition<&str, &[u8]> = TableDefinition::new("bodies");
pub(super) const BY_TIME: TableDefinition<(u64, &str), ()> = TableDefinition::new("by_time");
pub(super) type Scoped = TableDefinition<'static, (&'static str, u64, &'static str), ()>;
pub(super) const BY_MATCH: Scoped = TableDefinition::new("by_match");
pub(super) const BY_PLAYER: Scoped = TableDefinition::new("by_player");
pub(super) const BY_LEADERBOARD: Scoped = TableDefinition::new("by_leaderboard");
pub(super) const BY_PLAYER_CREATED: Scoped = TableDefinition::new("by_player_created");
pub(super) const ERASED: TableDefinition<&str, ()> = TableDefinition::new("erased_players");
pub(super) const BY_NAMED_PLAYER: TableDefinition<(&str, &str), ()> =
    TableDefinition::new("by_named_player");

/// Brings the file in `txn` to [`VERSION`]: makes the tables of a new
/// file, migrates an older one, and refuses a newer one or one that is
/// no archive. The caller commits.
pub(super) fn prepare(path: &Path, txn: &WriteTransaction) -> Result<(), ArchiveError> {
    let tables: Vec<String> = txn
        .list_tables()
        .map_err(|err| open_failed(path, err))?
        .map(|table| table.name().to_owned())
        .collect();
    let found = if tables.is_empty() {
        None
    } else if tables.iter().any(|name| name == META.name()) {
        let meta = txn.open_table(META).map_err(|err| open_failed(path, err))?;
        let version = meta.get(SCHEMA).map_err(failed)?.map(|v| v.value());
        Some(version.ok_or_else(|| ArchiveError::NotAnArchive {
            path: path.to_owned(),
            cause: "its archive_meta table holds no schema version".to_owned(),
        })?)
    } else {
        return Err(ArchiveError::NotAnArchive {
            path: path.to_owned(),
            cause: format!(
                "it holds tables ({}) but no archive_meta: a game store, or another redb file",
                tables.join(", ")
            ),
        });
    };
    match found {
        Some(version) if version > VERSION => {
            return Err(ArchiveError::NewerSchema {
                found: version as i64,
                known: VERSION as i64,
            });
        }
        Some(VERSION) => {}
        Some(version) => {
            tracing::info!(path = %path.display(), from = version, to = VERSION, "migrating the archive file");
        }
        None => {}
    }
    // Opening a table makes it if missing, and checks its types if not:
    // version 1 gains `erased_players` here, a new file every table.
    create_tables(path, txn)?;
    if found.is_some_and(|version| version < 3) {
        index_by_creation(txn)?;
    }
    if found.is_some_and(|version| version < 4) {
        index_named(txn)?;
    }
    txn.open_table(META)
        .map_err(|err| open_failed(path, err))?
        .insert(SCHEMA, VERSION)
        .map_err(failed)?;
    Ok(())
}

fn create_tables(path: &Path, txn: &WriteTransaction) -> Result<(), ArchiveError> {
    let opened = |err| open_failed(path, err);
    txn.open_table(GAMES).map_err(opened)?;
    txn.open_table(BODIES).map_err(opened)?;
    txn.open_table(BY_TIME).map_err(opened)?;
    for scoped in [BY_MATCH, BY_PLAYER, BY_LEADERBOARD, BY_PLAYER_CREATED] {
        txn.open_table(scoped).map_err(opened)?;
    }
    txn.open_table(ERASED).map_err(opened)?;
    txn.open_table(BY_NAMED_PLAYER).map_err(opened)?;
    Ok(())
}

/// Fills `by_named_player` from every row: once, as a file older than
/// version 4 opens (a walk of every game, as a migration of PostgreSQL's
/// builds its index).
fn index_named(txn: &WriteTransaction) -> Result<(), ArchiveError> {
    let rows = txn.open_table(GAMES).map_err(failed)?;
    let mut named = txn.open_table(BY_NAMED_PLAYER).map_err(failed)?;
    for entry in rows.iter().map_err(failed)? {
        let (id, row) = entry.map_err(failed)?;
        let row = Row::decode(id.value(), row.value())?;
        if let (Some(player), Some(_)) = (&row.player, &row.player_name) {
            named
                .insert((player.as_str(), id.value()), ())
                .map_err(failed)?;
        }
    }
    Ok(())
}

/// Fills `by_player_created` from every game's row: the migration to
/// version 3, one pass over `games`, however many (as a PostgreSQL
/// migration builds its index).
fn index_by_creation(txn: &WriteTransaction) -> Result<(), ArchiveError> {
    let rows = txn.open_table(GAMES).map_err(failed)?;
    let mut index = txn.open_table(BY_PLAYER_CREATED).map_err(failed)?;
    for entry in rows.iter().map_err(failed)? {
        let (id, row) = entry.map_err(failed)?;
        let id = id.value();
        let row = super::row::Row::decode(id, row.value())?;
        if let Some(player) = &row.player {
            index
                .insert((player.as_str(), row.created_ms, id), ())
                .map_err(failed)?;
        }
    }
    Ok(())
}
