//! The archive in a redb file of its own: finished games kept across
//! restarts with no server to run, the default when no PostgreSQL is
//! named. Every insert is one write transaction, committed with an fsync
//! before it answers, so an acknowledged game survives a crash; redb
//! lets one write transaction run at a time, which makes an insert's
//! check of each id and its write one step.
//!
//! Calls run on tokio's blocking threads, off the async ones. Those that
//! walk many keys (pages with filters the index does not cover, erasing,
//! purging, the walk of named players) look at their deadline as they go and give up at it, so a
//! call past its timeout does not keep a thread busy.

mod row;
mod schema;

use std::any::Any;
use std::io;
use std::ops::Bound;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use redb::{Builder, Database, ReadableTable, ReadableTableMetadata, WriteTransaction};

use crate::filter::{GameColumns, Scope, Span};
use crate::{ArchiveError, ArchivedGame, Cursor, Deadline, Filter};
use row::Row;
use schema::{
    BODIES, BY_LEADERBOARD, BY_MATCH, BY_NAMED_PLAYER, BY_PLAYER, BY_PLAYER_CREATED, BY_TIME,
    ERASED, GAMES, Scoped, prepare,
};

/// redb's page cache: its default (1 GiB) is past the memory a replica
/// is given; reads of the archive are pages of games, mostly cold.
const CACHE_BYTES: usize = 32 * 1024 * 1024;

/// How many keys a walk reads between two looks at its deadline.
const DEADLINE_EVERY: usize = 256;

#[derive(Clone)]
pub(crate) struct FileArchive {
    db: Arc<Database>,
}

type ScopedKey<'a> = (&'a str, u64, &'a str);

impl FileArchive {
    /// Opens the file at `path`, made with its folder if missing, and
    /// brings its schema to this build's (`schema.rs`).
    pub(crate) async fn open(path: &Path) -> Result<FileArchive, ArchiveError> {
        let path = path.to_owned();
        let db = tokio::task::spawn_blocking(move || {
            panic::catch_unwind(AssertUnwindSafe(|| open_file(&path))).unwrap_or_else(|payload| {
                Err(ArchiveError::Corrupted(format!(
                    "redb stopped with a panic opening {}: {}",
                    path.display(),
                    panic_message(payload.as_ref())
                )))
            })
        })
        .await
        .map_err(|err| ArchiveError::Unavailable(format!("opening the file stopped: {err}")))??;
        Ok(FileArchive { db: Arc::new(db) })
    }

    /// Runs `work` on a blocking thread; a panic of redb's is an error.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Database) -> Result<T, ArchiveError> + Send + 'static,
    ) -> Result<T, ArchiveError> {
        let db = Arc::clone(&self.db);
        tokio::task::spawn_blocking(move || {
            panic::catch_unwind(AssertUnwindSafe(|| work(&db))).unwrap_or_else(|payload| {
                Err(ArchiveError::Corrupted(format!(
                    "redb stopped with a panic: {}",
                    panic_message(payload.as_ref())
                )))
            })
        })
        .await
        .map_err(|err| ArchiveError::Unavailable(format!("the archive's thread stopped: {err}")))?
    }

    pub(crate) async fn insert(&self, games: Vec<ArchivedGame>) -> Result<u64, ArchiveError> {
        self.blocking(move |db| in_write(db, |txn| insert(txn, &games)))
            .await
    }

    pub(crate) async fn game(&self, id: String) -> Result<Option<ArchivedGame>, ArchiveError> {
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(failed)?;
            let games = txn.open_table(GAMES).map_err(failed)?;
            let bodies = txn.open_table(BODIES).map_err(failed)?;
            read_game(&games, &bodies, &id)
        })
        .await
    }

    pub(crate) async fn page(
        &self,
        filter: Filter,
        after: Option<Cursor>,
        limit: usize,
        deadline: Deadline,
    ) -> Result<Vec<ArchivedGame>, ArchiveError> {
        self.blocking(move |db| page(db, &filter, after.as_ref(), limit, deadline))
            .await
    }

    pub(crate) async fn erase_player(
        &self,
        player: String,
        deadline: Deadline,
    ) -> Result<u64, ArchiveError> {
        self.blocking(move |db| in_write(db, |txn| erase_player(txn, &player, deadline)))
            .await
    }

    pub(crate) async fn named_players(
        &self,
        after: Option<String>,
        at_most: usize,
        deadline: Deadline,
    ) -> Result<Vec<String>, ArchiveError> {
        self.blocking(move |db| named_players(db, after.as_deref(), at_most, deadline))
            .await
    }

    pub(crate) async fn purge_finished_before(
        &self,
        cutoff_ms: u64,
        at_most: usize,
        deadline: Deadline,
    ) -> Result<u64, ArchiveError> {
        self.blocking(move |db| in_write(db, |txn| purge(txn, cutoff_ms, at_most, deadline)))
            .await
    }

    pub(crate) async fn count(&self) -> Result<u64, ArchiveError> {
        self.blocking(|db| {
            let txn = db.begin_read().map_err(failed)?;
            let games = txn.open_table(GAMES).map_err(failed)?;
            games.len().map_err(failed)
        })
        .await
    }

    pub(crate) async fn available(&self) -> bool {
        self.blocking(|db| db.begin_read().map(drop).map_err(failed))
            .await
            .is_ok()
    }
}

fn open_file(path: &Path) -> Result<Database, ArchiveError> {
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder).map_err(|err| ArchiveError::Open {
            path: path.to_owned(),
            cause: format!("its folder cannot be made: {err}"),
        })?;
    }
    let db = Builder::new()
        // The format redb 3 reads, as the store's file, so a later
        // upgrade needs no migration of the format.
        .create_with_file_format_v3(true)
        .set_cache_size(CACHE_BYTES)
        .create(path)
        .map_err(|err| open_failed(path, err))?;
    let txn = db.begin_write().map_err(|err| open_failed(path, err))?;
    prepare(path, &txn)?;
    txn.commit().map_err(|err| open_failed(path, err))?;
    Ok(db)
}

/// Runs `work` in one write transaction and commits it, synced; an error
/// drops the transaction, which aborts it.
fn in_write<T>(
    db: &Database,
    work: impl FnOnce(&WriteTransaction) -> Result<T, ArchiveError>,
) -> Result<T, ArchiveError> {
    let txn = db.begin_write().map_err(failed)?;
    let done = work(&txn)?;
    txn.commit().map_err(failed)?;
    Ok(done)
}

fn insert(txn: &WriteTransaction, games: &[ArchivedGame]) -> Result<u64, ArchiveError> {
    let mut rows = txn.open_table(GAMES).map_err(failed)?;
    let mut bodies = txn.open_table(BODIES).map_err(failed)?;
    let mut by_time = txn.open_table(BY_TIME).map_err(failed)?;
    let erased = txn.open_table(ERASED).map_err(failed)?;
    let mut named = txn.open_table(BY_NAMED_PLAYER).map_err(failed)?;
    let mut inserted = 0;
    for game in games {
        if rows.get(game.id.as_str()).map_err(failed)?.is_some() {
            continue;
        }
        let erased_player = match &game.player {
            Some(player) => erased.get(player.as_str()).map_err(failed)?.is_some(),
            None => false,
        };
        let row = Row {
            player: game.player.clone(),
            player_name: game.player_name.clone().filter(|_| !erased_player),
            leaderboard: game.leaderboard.clone(),
            match_id: game.match_id.clone(),
            status: game.status.clone(),
            rated: game.rated,
            created_ms: game.created_ms,
            finished_ms: game.finished_ms,
        };
        let id = game.id.as_str();
        rows.insert(id, row.encode().as_slice()).map_err(failed)?;
        bodies.insert(id, game.body.as_slice()).map_err(failed)?;
        by_time.insert((game.finished_ms, id), ()).map_err(failed)?;
        for (index, key, at_ms) in scoped_keys(&row) {
            txn.open_table(index)
                .map_err(failed)?
                .insert((key, at_ms, id), ())
                .map_err(failed)?;
        }
        if let (Some(player), Some(_)) = (&row.player, &row.player_name) {
            named.insert((player.as_str(), id), ()).map_err(failed)?;
        }
        inserted += 1;
    }
    Ok(inserted)
}

/// The scoped indexes a game with `row`'s columns is in, each with its
/// key and time there.
fn scoped_keys(row: &Row) -> impl Iterator<Item = (Scoped, &str, u64)> {
    [
        (BY_MATCH, &row.match_id, row.finished_ms),
        (BY_PLAYER, &row.player, row.finished_ms),
        (BY_LEADERBOARD, &row.leaderboard, row.finished_ms),
        (BY_PLAYER_CREATED, &row.player, row.created_ms),
    ]
    .into_iter()
    .filter_map(|(index, key, at_ms)| key.as_deref().map(|key| (index, key, at_ms)))
}

fn page(
    db: &Database,
    filter: &Filter,
    after: Option<&Cursor>,
    limit: usize,
    deadline: Deadline,
) -> Result<Vec<ArchivedGame>, ArchiveError> {
    let Some(span) = filter.span(after) else {
        return Ok(Vec::new());
    };
    let txn = db.begin_read().map_err(failed)?;
    let rows = txn.open_table(GAMES).map_err(failed)?;
    let bodies = txn.open_table(BODIES).map_err(failed)?;
    let mut page = Vec::new();
    let mut take = |walked: usize, id: &str| -> Result<bool, ArchiveError> {
        if walked.is_multiple_of(DEADLINE_EVERY) {
            deadline.check()?;
        }
        let row = read_row(&rows, id)?;
        if filter.admits(&columns(&row)) {
            page.push(with_body(&bodies, id, row)?);
        }
        Ok(page.len() < limit)
    };
    let (index, key) = match filter.scope() {
        Scope::All => {
            let by_time = txn.open_table(BY_TIME).map_err(failed)?;
            let lower = Bound::Included((span.since, ""));
            let upper = match &span.before {
                Some((ms, id)) => Bound::Excluded((*ms, id.as_str())),
                None => Bound::Unbounded,
            };
            let range = by_time
                .range::<(u64, &str)>((lower, upper))
                .map_err(failed)?;
            for (walked, entry) in range.rev().enumerate() {
                let (key, _) = entry.map_err(failed)?;
                if limit == 0 || !take(walked, key.value().1)? {
                    break;
                }
            }
            return Ok(page);
        }
        Scope::Match(key) => (BY_MATCH, key),
        Scope::Player(key) => (BY_PLAYER, key),
        Scope::Leaderboard(key) => (BY_LEADERBOARD, key),
        Scope::PlayerCreated(key) => (BY_PLAYER_CREATED, key),
    };
    let index = txn.open_table(index).map_err(failed)?;
    let end = format!("{key}\0");
    let range = index
        .range::<ScopedKey<'_>>(scoped_range(key, &end, &span))
        .map_err(failed)?;
    for (walked, entry) in range.rev().enumerate() {
        let (key, _) = entry.map_err(failed)?;
        if limit == 0 || !take(walked, key.value().2)? {
            break;
        }
    }
    Ok(page)
}

/// The keys of `key`'s games in `span`; `end` is `key` with a NUL after
/// it, the next string in byte order, past every key of `key`.
fn scoped_range<'a>(
    key: &'a str,
    end: &'a str,
    span: &'a Span,
) -> (Bound<ScopedKey<'a>>, Bound<ScopedKey<'a>>) {
    let upper = match &span.before {
        Some((ms, id)) => (key, *ms, id.as_str()),
        None => (end, 0, ""),
    };
    (
        Bound::Included((key, span.since, "")),
        Bound::Excluded(upper),
    )
}

fn erase_player(
    txn: &WriteTransaction,
    player: &str,
    deadline: Deadline,
) -> Result<u64, ArchiveError> {
    txn.open_table(ERASED)
        .map_err(failed)?
        .insert(player, ())
        .map_err(failed)?;
    let by_player = txn.open_table(BY_PLAYER).map_err(failed)?;
    let mut rows = txn.open_table(GAMES).map_err(failed)?;
    let mut named = txn.open_table(BY_NAMED_PLAYER).map_err(failed)?;
    let end = format!("{player}\0");
    let everything = Span {
        since: 0,
        before: None,
    };
    let mut erased = 0;
    let range = by_player
        .range::<ScopedKey<'_>>(scoped_range(player, &end, &everything))
        .map_err(failed)?;
    for (walked, entry) in range.enumerate() {
        if walked.is_multiple_of(DEADLINE_EVERY) {
            deadline.check()?;
        }
        let (key, _) = entry.map_err(failed)?;
        let id = key.value().2;
        let mut row = read_row(&rows, id)?;
        if row.player_name.take().is_some() {
            rows.insert(id, row.encode().as_slice()).map_err(failed)?;
            named.remove((player, id)).map_err(failed)?;
            erased += 1;
        }
    }
    Ok(erased)
}

/// The players of at most `at_most` games in `by_named_player` after
/// `after`'s, each once.
fn named_players(
    db: &Database,
    after: Option<&str>,
    at_most: usize,
    deadline: Deadline,
) -> Result<Vec<String>, ArchiveError> {
    let txn = db.begin_read().map_err(failed)?;
    let named = txn.open_table(BY_NAMED_PLAYER).map_err(failed)?;
    // Past every key of `after` comes `after` with a NUL after it.
    let lower = after.map_or_else(String::new, |after| format!("{after}\0"));
    let mut players: Vec<String> = Vec::new();
    let range = named
        .range::<(&str, &str)>((lower.as_str(), "")..)
        .map_err(failed)?;
    for (walked, entry) in range.take(at_most).enumerate() {
        if walked.is_multiple_of(DEADLINE_EVERY) {
            deadline.check()?;
        }
        let (key, _) = entry.map_err(failed)?;
        let player = key.value().0;
        if players.last().is_none_or(|last| last != player) {
            players.push(player.to_owned());
        }
    }
    Ok(players)
}

fn purge(
    txn: &WriteTransaction,
    cutoff_ms: u64,
    at_most: usize,
    deadline: Deadline,
) -> Result<u64, ArchiveError> {
    let mut by_time = txn.open_table(BY_TIME).map_err(failed)?;
    let mut old = Vec::new();
    for entry in by_time
        .range::<(u64, &str)>(..(cutoff_ms, ""))
        .map_err(failed)?
        .take(at_most)
    {
        let (key, _) = entry.map_err(failed)?;
        let (finished_ms, id) = key.value();
        old.push((finished_ms, id.to_owned()));
    }
    let mut rows = txn.open_table(GAMES).map_err(failed)?;
    let mut bodies = txn.open_table(BODIES).map_err(failed)?;
    let mut named = txn.open_table(BY_NAMED_PLAYER).map_err(failed)?;
    for (purged, (finished_ms, id)) in old.iter().enumerate() {
        if purged.is_multiple_of(DEADLINE_EVERY) {
            deadline.check()?;
        }
        let row = read_row(&rows, id)?;
        for (index, key, at_ms) in scoped_keys(&row) {
            txn.open_table(index)
                .map_err(failed)?
                .remove((key, at_ms, id.as_str()))
                .map_err(failed)?;
        }
        if let (Some(player), Some(_)) = (&row.player, &row.player_name) {
            named
                .remove((player.as_str(), id.as_str()))
                .map_err(failed)?;
        }
        rows.remove(id.as_str()).map_err(failed)?;
        bodies.remove(id.as_str()).map_err(failed)?;
        by_time
            .remove((*finished_ms, id.as_str()))
            .map_err(failed)?;
    }
    Ok(old.len() as u64)
}

fn read_row(
    rows: &impl ReadableTable<&'static str, &'static [u8]>,
    id: &str,
) -> Result<Row, ArchiveError> {
    let guard = rows
        .get(id)
        .map_err(failed)?
        .ok_or_else(|| ArchiveError::Corrupted(format!("game `{id}` is indexed but has no row")))?;
    Row::decode(id, guard.value())
}

fn read_game(
    rows: &impl ReadableTable<&'static str, &'static [u8]>,
    bodies: &impl ReadableTable<&'static str, &'static [u8]>,
    id: &str,
) -> Result<Option<ArchivedGame>, ArchiveError> {
    let row = match rows.get(id).map_err(failed)? {
        Some(guard) => Row::decode(id, guard.value())?,
        None => return Ok(None),
    };
    with_body(bodies, id, row).map(Some)
}

fn with_body(
    bodies: &impl ReadableTable<&'static str, &'static [u8]>,
    id: &str,
    row: Row,
) -> Result<ArchivedGame, ArchiveError> {
    let body = bodies
        .get(id)
        .map_err(failed)?
        .ok_or_else(|| ArchiveError::Corrupted(format!("game `{id}` has a row but no record")))?
        .value()
        .to_vec();
    Ok(ArchivedGame {
        id: id.to_owned(),
        player: row.player,
        player_name: row.player_name,
        leaderboard: row.leaderboard,
        match_id: row.match_id,
        status: row.status,
        rated: row.rated,
        created_ms: row.created_ms,
        finished_ms: row.finished_ms,
        body,
    })
}

fn columns(row: &Row) -> GameColumns<'_> {
    GameColumns {
        player: row.player.as_deref(),
        leaderboard: row.leaderboard.as_deref(),
        match_id: row.match_id.as_deref(),
        status: &row.status,
        rated: row.rated,
        created_ms: row.created_ms,
        finished_ms: row.finished_ms,
    }
}

/// A redb error met on an open file.
fn failed(err: impl Into<redb::Error>) -> ArchiveError {
    match err.into() {
        redb::Error::Io(err) => ArchiveError::Io(err.to_string()),
        err @ redb::Error::PreviousIo => ArchiveError::Io(err.to_string()),
        redb::Error::Corrupted(message) => ArchiveError::Corrupted(message),
        err => ArchiveError::Io(err.to_string()),
    }
}

/// A redb error met while opening the file at `path`.
fn open_failed(path: &Path, err: impl Into<redb::Error>) -> ArchiveError {
    let path: PathBuf = path.to_owned();
    match err.into() {
        redb::Error::DatabaseAlreadyOpen => ArchiveError::Locked { path },
        // What redb answers when the file does not start with its header.
        redb::Error::Io(err) if err.kind() == io::ErrorKind::InvalidData => {
            ArchiveError::NotAnArchive {
                path,
                cause: "it does not start with redb's header".to_owned(),
            }
        }
        err @ (redb::Error::UpgradeRequired(_)
        | redb::Error::TableTypeMismatch { .. }
        | redb::Error::TypeDefinitionChanged { .. }
        | redb::Error::TableIsMultimap(_)) => ArchiveError::NotAnArchive {
            path,
            cause: err.to_string(),
        },
        err => ArchiveError::Open {
            path,
            cause: err.to_string(),
        },
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message")
}
