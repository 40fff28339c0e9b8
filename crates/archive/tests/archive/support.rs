//! What the cases share: an archive of any backend in a place of its own
//! (a folder, or a database of the test PostgreSQL), games in a line
//! each, and `on_each!`, which runs a case on each backend as a test of
//! its own.

use std::time::Duration;

use futures_util::TryStreamExt;
use linkpath_archive::{Archive, ArchiveLimits, ArchiveSpec, ArchivedGame, Cursor, Filter};
use linkpath_testkit::postgres::PostgresDatabase;
use tempfile::TempDir;

/// When the cases' games finish, give or take.
pub const T0: u64 = 1_796_515_200_000;

#[derive(Debug, Clone, Copy)]
pub enum Backend {
    Memory,
    File,
    Postgres,
}

/// Runs each case, an `async fn(Backend)` of the module, on each backend:
/// `case::memory`, `case::file` and `case::postgres`. The PostgreSQL test
/// is ignored unless asked for (`cargo test -- --ignored`, with a test
/// PostgreSQL named: see `linkpath_testkit::postgres`).
macro_rules! on_each {
    ($($case:ident),+ $(,)?) => {$(
        mod $case {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn memory() {
                super::$case(crate::support::Backend::Memory).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn file() {
                super::$case(crate::support::Backend::File).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            #[ignore = "needs a PostgreSQL: LINKPATH_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres cargo test -- --ignored"]
            async fn postgres() {
                super::$case(crate::support::Backend::Postgres).await
            }
        }
    )+};
}

/// Where an archive of a case keeps its games, removed when it drops: a
/// folder, and for PostgreSQL a database of its own.
pub struct Scratch {
    pub dir: TempDir,
    pub database: Option<PostgresDatabase>,
}

impl Scratch {
    pub async fn new(backend: Backend) -> Scratch {
        let database = match backend {
            Backend::Postgres => Some(PostgresDatabase::fresh("archive").await),
            Backend::Memory | Backend::File => None,
        };
        Scratch {
            dir: tempfile::tempdir().unwrap(),
            database,
        }
    }

    /// The setting of this scratch's archive of `backend`.
    pub fn spec(&self, backend: Backend) -> ArchiveSpec {
        match backend {
            Backend::Memory => ArchiveSpec::Memory,
            Backend::File => ArchiveSpec::File(self.dir.path().join("archive.redb")),
            Backend::Postgres => {
                let database = self.database.as_ref().expect("made for PostgreSQL");
                database.url().parse().unwrap()
            }
        }
    }
}

/// An archive of `backend` with the default bounds.
pub async fn open(backend: Backend) -> (Archive, Scratch) {
    open_with(backend, limits()).await
}

pub async fn open_with(backend: Backend, limits: ArchiveLimits) -> (Archive, Scratch) {
    let scratch = Scratch::new(backend).await;
    let archive = Archive::open(&scratch.spec(backend), limits).await.unwrap();
    (archive, scratch)
}

/// The default bounds, with a timeout long enough for a loaded machine.
pub fn limits() -> ArchiveLimits {
    ArchiveLimits {
        timeout: Duration::from_secs(30),
        ..ArchiveLimits::default()
    }
}

/// A game `id` of nobody's, won, unrated, finished at `finished_ms`; its
/// record names it.
pub fn game(id: &str, finished_ms: u64) -> ArchivedGame {
    ArchivedGame {
        id: id.to_owned(),
        player: None,
        player_name: None,
        leaderboard: None,
        match_id: None,
        status: "won".to_owned(),
        rated: false,
        created_ms: finished_ms.saturating_sub(60_000),
        finished_ms,
        body: format!("{{\"id\":\"{id}\",\"actions\":[]}}").into_bytes(),
    }
}

/// `game`, `player`'s, named `name`.
pub fn played_by(game: ArchivedGame, player: &str, name: &str) -> ArchivedGame {
    ArchivedGame {
        player: Some(player.to_owned()),
        player_name: Some(name.to_owned()),
        ..game
    }
}

pub fn ids(games: &[ArchivedGame]) -> Vec<&str> {
    games.iter().map(|game| game.id.as_str()).collect()
}

/// Every game `filter` wants, page after page of `size`.
pub async fn all_pages(archive: &Archive, filter: &Filter, size: usize) -> Vec<ArchivedGame> {
    let mut all = Vec::new();
    let mut after: Option<Cursor> = None;
    loop {
        let page = archive.page(filter, after.as_ref(), size).await.unwrap();
        let last = page.len() < size;
        after = page.last().map(|game| game.cursor_in(filter.order));
        all.extend(page);
        if last {
            return all;
        }
    }
}

/// Every game an export of `filter` yields.
pub async fn exported(archive: &Archive, filter: Filter) -> Vec<ArchivedGame> {
    archive.export(filter).try_collect().await.unwrap()
}
