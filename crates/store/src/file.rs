//! The store in a redb file: games that outlive restarts and crashes,
//! with no server to install. redb is pure Rust, ACID, with a stable file
//! format, and crash-safe with one fsync a commit: a file cut short by a
//! crash opens on its last commit.
//!
//! Writes go through one writer thread that commits them in groups
//! (`writer.rs`); reads, purges and the archiver's calls (`archive.rs`)
//! each run in a transaction of their own on tokio's blocking threads,
//! off the async ones. redb lets one write transaction run at a time, so
//! a purge waits for the batch being committed and the next batch waits
//! for it. All of them reach the
//! database through a [`Handle`], which opens the file again after an I/O
//! error or a panic of redb's (`handle.rs`). Every open is preceded by a
//! check of the file (`check.rs`), so that a damaged file is an error that
//! names it, not a panic; the file stays locked from the check to the
//! close (`disk.rs`).

mod archive;
mod check;
mod disk;
mod handle;
mod heartbeat;
mod matches;
mod players;
mod records;
mod tables;
mod writer;

use std::any::Any;
use std::fs;
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use redb::{Builder, Database, Durability, ReadOnlyTable, ReadableTableMetadata, TableDefinition};
use tokio::sync::{mpsc, oneshot};

use disk::{Disk, Shared};
use handle::Handle;

use crate::rules::{self, live};
use crate::{
    BoardPage, BoardStart, Keep, Kept, Outcome, Purged, StoreError, StoreLimits, StoredGame, Write,
};
use tables::{
    BOARDS, ENTRIES, ENTRY_PLAYERS, FileTables, GAMES, KEPT, LOG, failed, open_failed,
    read_entries, read_game, read_kept, read_log,
};

/// redb's page cache: its default (1 GiB) is past the memory a replica
/// of the service is given; games are small and the hot ones few.
const CACHE_BYTES: usize = 32 * 1024 * 1024;

pub(crate) struct FileStore {
    db: Arc<Handle>,
    limits: StoreLimits,
    /// Started again by the next write if its thread has stopped.
    writer: Mutex<Writer>,
    /// The seeks: in this process's memory, as they last no longer than
    /// their requests (`seeks.rs`). Boxed: a store's backends stay
    /// near one size.
    pub(crate) seeks: Box<crate::seeks::table::SeekTable>,
}

/// The writer thread and its queue.
struct Writer {
    // Declared before `_thread`, so dropped first: the writer thread sees
    // its queue closed, finishes its batch, and is joined. With no read in
    // flight, the file is closed by the time the store is gone, and can be
    // opened again at once.
    writes: mpsc::Sender<writer::Job>,
    thread: Joined,
}

impl Writer {
    fn start(db: &Arc<Handle>, limits: StoreLimits) -> Result<Writer, StoreError> {
        let (writes, thread) = writer::start(Arc::clone(db), limits)?;
        Ok(Writer {
            writes,
            thread: Joined(Some(thread)),
        })
    }

    /// Whether its thread has ended: it never does but by a panic, as
    /// the store lives.
    fn stopped(&self) -> bool {
        self.writes.is_closed() || self.thread.0.as_ref().is_none_or(JoinHandle::is_finished)
    }
}

impl FileStore {
    pub(crate) fn open(path: &Path, limits: StoreLimits) -> Result<FileStore, StoreError> {
        if let Some(folder) = path
            .parent()
            .filter(|folder| !folder.as_os_str().is_empty())
        {
            fs::create_dir_all(folder).map_err(|err| StoreError::Open {
                path: path.to_owned(),
                cause: format!("cannot create its folder: {err}"),
            })?;
        }
        let db = Arc::new(Handle::open(path)?);
        let writer = Mutex::new(Writer::start(&db, limits)?);
        Ok(FileStore {
            db,
            limits,
            writer,
            seeks: Default::default(),
        })
    }

    pub(crate) async fn game(
        &self,
        id: &str,
        now_ms: u64,
    ) -> Result<Option<StoredGame>, StoreError> {
        let id = id.to_owned();
        self.read(GAMES, move |games| {
            let game = read_game(games, &id)?;
            Ok(game.filter(|game| live(game.expires_at_ms, now_ms)))
        })
        .await
    }

    pub(crate) async fn log(
        &self,
        id: &str,
        versions: Range<u64>,
        now_ms: u64,
    ) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        let id = id.to_owned();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(failed)?;
            let game = read_game(&txn.open_table(GAMES).map_err(failed)?, &id)?;
            if !game.is_some_and(|game| live(game.expires_at_ms, now_ms)) {
                return Ok(Vec::new());
            }
            read_log(&txn.open_table(LOG).map_err(failed)?, &id, versions)
        })
        .await
    }

    pub(crate) async fn kept(&self, key: &str, now_ms: u64) -> Result<Option<Kept>, StoreError> {
        let key = key.to_owned();
        self.read(KEPT, move |kept| {
            let kept = read_kept(kept, &key)?;
            Ok(kept.filter(|kept| live(kept.expires_at_ms, now_ms)))
        })
        .await
    }

    pub(crate) async fn write(&self, write: Write, now_ms: u64) -> Result<Outcome, StoreError> {
        game_done(
            self.commit(writer::Change::Write(Box::new(write)), now_ms)
                .await?,
        )
    }

    pub(crate) async fn keep(&self, keep: Keep, now_ms: u64) -> Result<Outcome, StoreError> {
        game_done(self.commit(writer::Change::Keep(keep), now_ms).await?)
    }

    /// Hands `change` to the writer thread and waits for its commit.
    async fn commit(
        &self,
        change: writer::Change,
        now_ms: u64,
    ) -> Result<writer::Done, StoreError> {
        let (reply, answer) = oneshot::channel();
        let job = writer::Job {
            change,
            now_ms,
            reply,
        };
        self.writes()?.send(job).await.map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())?
    }

    /// The writer's queue, the writer started again first if its thread
    /// has stopped.
    fn writes(&self) -> Result<mpsc::Sender<writer::Job>, StoreError> {
        let mut writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        if writer.stopped() {
            tracing::error!("the store's writer thread has stopped; starting a new one");
            *writer = Writer::start(&self.db, self.limits)?;
        }
        Ok(writer.writes.clone())
    }

    /// Whether the store can serve: its writer running (started again if
    /// it had stopped) and its file open, opened again first if it failed
    /// and a second has passed since the last try.
    pub(crate) async fn available(&self) -> bool {
        if self.writes().is_err() {
            return false;
        }
        let db = Arc::clone(&self.db);
        tokio::task::spawn_blocking(move || db.available())
            .await
            .unwrap_or(false)
    }

    pub(crate) async fn leaderboard(
        &self,
        board: &str,
        start: BoardStart,
        limit: usize,
        now_ms: u64,
    ) -> Result<BoardPage, StoreError> {
        let board = board.to_owned();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(failed)?;
            let boards = txn.open_table(BOARDS).map_err(failed)?;
            let live_board = boards
                .get(board.as_str())
                .map_err(failed)?
                .is_some_and(|expires_at_ms| live(expires_at_ms.value(), now_ms));
            if !live_board {
                return Ok(BoardPage::default());
            }
            let ranked = read_entries(
                &txn.open_table(ENTRIES).map_err(failed)?,
                &txn.open_table(ENTRY_PLAYERS).map_err(failed)?,
                &board,
            )?;
            Ok(BoardPage::of(ranked, &start, limit))
        })
        .await
    }

    pub(crate) async fn purge(&self, now_ms: u64, at_most: usize) -> Result<Purged, StoreError> {
        let limits = self.limits;
        self.blocking(move |db| {
            in_write(db, |tables| rules::purge(tables, now_ms, at_most, &limits))
        })
        .await
    }

    pub(crate) async fn games(&self) -> Result<u64, StoreError> {
        self.read(GAMES, |games| games.len().map_err(failed)).await
    }

    pub(crate) fn reopens(&self) -> u64 {
        self.db.reopens()
    }

    /// Runs `work` on `table` in a read transaction of its own.
    async fn read<T: Send + 'static>(
        &self,
        table: TableDefinition<'static, &'static str, &'static [u8]>,
        work: impl FnOnce(&ReadOnlyTable<&'static str, &'static [u8]>) -> Result<T, StoreError>
        + Send
        + 'static,
    ) -> Result<T, StoreError> {
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(failed)?;
            work(&txn.open_table(table).map_err(failed)?)
        })
        .await
    }

    /// Runs `work` on a blocking thread: redb's calls wait on the disk.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Database) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let db = Arc::clone(&self.db);
        tokio::task::spawn_blocking(move || db.with(work))
            .await
            .map_err(|err| StoreError::Unavailable(format!("a store call stopped: {err}")))?
    }
}

/// Opens or creates the redb file at `path`, with the store's tables,
/// once it has passed its check; with the file, to cut it off later.
fn open_file(path: &Path) -> Result<(Database, Arc<Disk>), StoreError> {
    let disk = Disk::open(path)?;
    check::check(path, &disk)?;
    // After the check redb has nothing left to panic on that is known;
    // were it to, the file is damaged all the same.
    let db = panic::catch_unwind(AssertUnwindSafe(|| create(path, &disk)))
        .unwrap_or_else(|payload| Err(damaged(path, payload.as_ref())))?;
    Ok((db, disk))
}

/// redb as the store opens its file, and as the check opens its copy.
fn builder() -> Builder {
    let mut builder = Builder::new();
    builder
        // The format redb 3 reads, so a later upgrade needs no migration.
        .create_with_file_format_v3(true)
        .set_cache_size(CACHE_BYTES);
    builder
}

fn create(path: &Path, disk: &Arc<Disk>) -> Result<Database, StoreError> {
    let db = builder()
        .create_with_backend(Shared(Arc::clone(disk)))
        .map_err(|err| open_failed(path, err))?;
    // Creates the tables a new file lacks, so that reads find them, and
    // checks the types of those an existing file has.
    let txn = db.begin_write().map_err(|err| open_failed(path, err))?;
    drop(FileTables::open(&txn).map_err(|err| open_failed(path, err))?);
    txn.commit().map_err(|err| open_failed(path, err))?;
    Ok(db)
}

/// What a panic of redb's while opening the file at `path` says of it.
fn damaged(path: &Path, payload: &(dyn Any + Send)) -> StoreError {
    StoreError::Damaged {
        path: path.to_owned(),
        cause: format!(
            "redb stopped with a panic reading it: {}",
            panic_message(payload)
        ),
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message")
}

/// Runs `work` in one write transaction, then commits it, synced, if it
/// changed any table; else aborts it, as there is nothing to sync. A
/// refused write may have changed some all the same: the expired records
/// it deleted on the way stay deleted, as on every backend. An error
/// drops the transaction, which aborts it.
fn in_write<T>(
    db: &Database,
    work: impl FnOnce(&mut FileTables<'_>) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let mut txn = db.begin_write().map_err(failed)?;
    // An answer given after the commit means the change is on disk.
    txn.set_durability(Durability::Immediate);
    let mut tables = FileTables::open(&txn).map_err(failed)?;
    let done = work(&mut tables)?;
    let changed = tables.changed();
    drop(tables);
    if changed {
        txn.commit().map_err(failed)?;
    } else {
        txn.abort().map_err(failed)?;
    }
    Ok(done)
}

/// A game's write or keep answers a game's outcome.
fn game_done(done: writer::Done) -> Result<Outcome, StoreError> {
    match done {
        writer::Done::Game(outcome) => Ok(outcome),
        writer::Done::Player(_) | writer::Done::Match(_) => Err(StoreError::Unavailable(
            "the store's writer answered a game's write with another kind's outcome".into(),
        )),
    }
}

fn stopped() -> StoreError {
    StoreError::Unavailable("the store's writer thread has stopped".into())
}

/// The writer thread, joined when dropped.
struct Joined(Option<JoinHandle<()>>);

impl Drop for Joined {
    fn drop(&mut self) {
        if let Some(thread) = self.0.take() {
            // A writer that panicked has already answered its callers
            // (their channels closed): nothing more to report here.
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::{Expected, StoredGame, Write};

    // A writer thread stops only on a panic outside the store calls,
    // which catch redb's: here it is stopped by hand.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_stopped_writer_is_started_again() {
        let dir = tempfile::tempdir().unwrap();
        let limits = StoreLimits {
            max_games: 10,
            max_keys_per_game: 10,
            max_kept_bytes: 1 << 20,
            max_boards: 10,
            board_size: 3,
            max_players: 10,
            max_games_per_player: 10,
            max_matches: 10,
            timeout: Duration::from_secs(30),
            keep_unarchived: false,
            feed_heartbeat: crate::FEED_HEARTBEAT,
        };
        let store = FileStore::open(&dir.path().join("games.redb"), limits).unwrap();
        let (writes, queue) = mpsc::channel(1);
        drop(queue);
        *store.writer.lock().unwrap() = Writer {
            writes,
            thread: Joined(Some(std::thread::spawn(|| {}))),
        };
        assert!(store.writer.lock().unwrap().stopped());

        let game = StoredGame {
            version: 0,
            expires_at_ms: 2,
            body: b"dealt".to_vec(),
        };
        let write = Write {
            id: "g".into(),
            expected: Expected::Absent,
            game: game.clone(),
            key: None,
            entry: None,
            owner: None,
            log: Vec::new(),
            finished: false,
        };
        assert_eq!(store.write(write, 1).await, Ok(Outcome::Written));
        assert!(!store.writer.lock().unwrap().stopped());
        assert_eq!(store.game("g", 1).await, Ok(Some(game)));
        assert!(store.available().await);
    }

    // A file written before players were stored has none of their tables,
    // and entries with no player: it opens, its entries read with an
    // empty player, and players are stored beside them.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_file_from_before_players_opens_and_takes_them() {
        use crate::{BoardStart, PlayerOutcome, PlayerWrite, Ranked, StoredPlayer};

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.redb");
        {
            let db = builder().create(&path).unwrap();
            let txn = db.begin_write().unwrap();
            txn.open_table(BOARDS).unwrap().insert("daily", 10).unwrap();
            txn.open_table(ENTRIES)
                .unwrap()
                .insert(("daily", "5g"), b"old".as_slice())
                .unwrap();
            txn.commit().unwrap();
        }
        let limits = StoreLimits {
            max_games: 10,
            max_keys_per_game: 10,
            max_kept_bytes: 1 << 20,
            max_boards: 10,
            board_size: 3,
            max_players: 10,
            max_games_per_player: 10,
            max_matches: 10,
            timeout: Duration::from_secs(30),
            keep_unarchived: false,
            feed_heartbeat: crate::FEED_HEARTBEAT,
        };
        let store = FileStore::open(&path, limits).unwrap();
        let top = BoardStart::After(None);
        let page = store
            .leaderboard("daily", top.clone(), 10, 1)
            .await
            .unwrap();
        let old = Ranked {
            rank: "5g".into(),
            player: String::new(),
            body: b"old".to_vec(),
        };
        assert_eq!(page.entries, std::slice::from_ref(&old));

        let player = StoredPlayer {
            version: 0,
            expires_at_ms: 10,
            token: Some(vec![1; 32]),
            body: b"Ada".to_vec(),
        };
        let join = PlayerWrite {
            id: "p".into(),
            expected: Expected::Absent,
            player: player.clone(),
        };
        assert_eq!(
            store.write_player(join, 1).await,
            Ok(PlayerOutcome::Written)
        );
        assert_eq!(store.player("p", 1).await, Ok(Some(player)));
        assert_eq!(store.player_count().await, Ok(1));
        let won = Write {
            id: "h".into(),
            expected: Expected::Absent,
            game: StoredGame {
                version: 0,
                expires_at_ms: 10,
                body: b"won".to_vec(),
            },
            key: None,
            entry: Some(crate::Entry {
                board: "daily".into(),
                player: "p".into(),
                rank: "4h".into(),
                body: b"new".to_vec(),
                expires_at_ms: 10,
            }),
            owner: Some("p".into()),
            log: Vec::new(),
            finished: false,
        };
        assert_eq!(store.write(won, 1).await, Ok(Outcome::Written));
        let page = store.leaderboard("daily", top, 10, 1).await.unwrap();
        let new = Ranked {
            rank: "4h".into(),
            player: "p".into(),
            body: b"new".to_vec(),
        };
        assert_eq!(page.entries, [new, old]);
        let games = store.player_games("p", None, 10, 1).await.unwrap();
        assert_eq!(games.len(), 1);
    }

    // A file written before matches were stored has none of their tables:
    // it opens with its games as they were, takes matches beside them,
    // and keeps them, due index and all, across a reopening.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_file_from_before_matches_opens_and_keeps_them() {
        use crate::{MatchOutcome, MatchWrite, StoredMatch};

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.redb");
        let game = StoredGame {
            version: 0,
            expires_at_ms: 10,
            body: b"old".to_vec(),
        };
        {
            let db = builder().create(&path).unwrap();
            let txn = db.begin_write().unwrap();
            let mut record = Vec::new();
            record.extend_from_slice(&0u64.to_le_bytes());
            record.extend_from_slice(&10u64.to_le_bytes());
            record.extend_from_slice(b"old");
            txn.open_table(GAMES)
                .unwrap()
                .insert("g", record.as_slice())
                .unwrap();
            txn.commit().unwrap();
        }
        let limits = StoreLimits {
            max_games: 10,
            max_keys_per_game: 10,
            max_kept_bytes: 1 << 20,
            max_boards: 10,
            board_size: 3,
            max_players: 10,
            max_games_per_player: 10,
            max_matches: 10,
            timeout: Duration::from_secs(30),
            keep_unarchived: false,
            feed_heartbeat: crate::FEED_HEARTBEAT,
        };
        let store = FileStore::open(&path, limits).unwrap();
        assert_eq!(store.game("g", 1).await, Ok(Some(game.clone())));
        assert_eq!(store.match_count().await, Ok(0));
        assert_eq!(store.due_matches(u64::MAX, 10).await, Ok(Vec::new()));
        let record = StoredMatch {
            version: 0,
            expires_at_ms: 10,
            due_at_ms: Some(5),
            body: b"open".to_vec(),
        };
        let opened = MatchWrite {
            id: "m".into(),
            expected: Expected::Absent,
            record: record.clone(),
            key: None,
            players: Vec::new(),
        };
        assert_eq!(
            store.write_match(opened, 1).await,
            Ok(MatchOutcome::Written)
        );
        drop(store);

        let store = FileStore::open(&path, limits).unwrap();
        assert_eq!(store.match_record("m", 1).await, Ok(Some(record)));
        assert_eq!(store.due_matches(5, 10).await, Ok(vec!["m".to_owned()]));
        assert_eq!(store.match_count().await, Ok(1));
        assert_eq!(store.game("g", 1).await, Ok(Some(game)));
    }
}
