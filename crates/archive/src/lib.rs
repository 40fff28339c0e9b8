//! Where linkpath keeps finished games for good, after the live store
//! lets them go: one interface, [`Archive`], over PostgreSQL (shared by
//! replicas), a redb file of its own (the default: nothing to run) and
//! memory, chosen by an [`ArchiveSpec`] (`postgres://...`, `file:PATH`,
//! `memory`).
//!
//! A game is an [`ArchivedGame`]: its record (`body`: settings, dealt
//! board, actions with their times, result), opaque here, and the
//! columns reads use: id, player, the player's name, leaderboard, match,
//! status, rated, created and finished times. This crate knows no other
//! linkpath crate: the server serialises the record and fills the
//! columns.
//!
//! ```text
//! Archive::open(&spec, limits)            runs the schema's migrations
//! insert(&[game])    -> newly inserted    idempotent by id: a second insert of an id changes nothing
//! game(id)           -> Option<game>
//! page(&filter, after, limit) -> games    newest first by (finished_ms, id), strictly after the cursor;
//!                                         a player's by (created_ms, id) in Order::Created
//! export(filter)     -> Stream of games   the same order, fetched a batch at a time
//! erase_player(id)   -> names erased      the name goes, the games and the id stay
//! named_players(after, at_most) -> ids    players whose name a game holds still, in id order
//! purge_finished_before(ms, at_most) -> games deleted, oldest first (retention)
//! count()            -> games
//! available()        -> bool              a cheap probe
//! ```
//!
//! Inserts are idempotent, so an archiver that copies a game and crashes
//! before the live store forgets it copies it again harmlessly; an
//! acknowledged insert is durable (a PostgreSQL commit, a redb commit
//! with its fsync). A player once erased stays erased: a game of theirs
//! inserted later comes in without the name.
//!
//! Every call is bounded by [`ArchiveLimits::timeout`]. PostgreSQL down,
//! or no pooled connection in time, is [`ArchiveError::Unavailable`] (or
//! [`ArchiveError::TimedOut`]; both answer
//! [`ArchiveError::is_unavailable`]), which a server answers with `503`
//! and `Retry-After`; the pool reconnects by itself once it is back.
//!
//! PostgreSQL is named by a libpq URL: `sslmode=require` (or `verify-ca`,
//! `verify-full`, with `sslrootcert=PATH` for a private CA) turns TLS
//! on, through rustls; the schema is migrated at open (`migrations/`,
//! recorded in `_sqlx_migrations`). A filter's player, leaderboard, match
//! and day each have an index (`migrations/0001_archived_games.sql`),
//! as do a player's games by creation (`0003`) and the games that hold
//! their player's name (`0004`); the file keeps the same indexes as
//! tables (`file/schema.rs`).

mod error;
mod file;
mod filter;
mod game;
mod memory;
mod postgres;
mod spec;

use std::future::Future;
use std::time::{Duration, Instant};

use futures_util::Stream;

pub use error::ArchiveError;
pub use filter::{Day, DayError, Filter, Order};
pub use game::{ArchivedGame, Cursor, MAX_MS, MAX_TEXT};
pub use spec::{ArchiveSpec, ArchiveSpecError};

use file::FileArchive;
use memory::MemoryArchive;
use postgres::PostgresArchive;

/// The bounds an archive keeps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchiveLimits {
    /// How long any one call may take (for PostgreSQL, also how long a
    /// connection is waited for, and each statement's
    /// `statement_timeout`); past it the call answers
    /// [`ArchiveError::TimedOut`]. An export bounds each batch by it.
    pub timeout: Duration,
    /// How many connections to PostgreSQL the pool holds at most.
    pub pool_size: u32,
    /// How many games one insert may carry.
    pub max_batch: usize,
    /// How many games one page may hold.
    pub max_page: usize,
    /// How many bytes one game's record may have.
    pub max_body_bytes: usize,
    /// How many games an export fetches at a time: its memory is about
    /// this many records.
    pub export_batch: usize,
    /// How many games a memory archive holds; inserts past it are
    /// refused ([`ArchiveError::Full`]). The file and PostgreSQL are
    /// bounded by their disks and by retention.
    pub max_games_in_memory: u64,
}

impl Default for ArchiveLimits {
    fn default() -> ArchiveLimits {
        ArchiveLimits {
            timeout: Duration::from_secs(5),
            pool_size: 8,
            max_batch: 1_000,
            max_page: 1_000,
            max_body_bytes: 1 << 20,
            export_batch: 500,
            max_games_in_memory: 100_000,
        }
    }
}

/// The archive. Cloning it is cheap and shares it (an export holds a
/// clone while it streams).
#[derive(Clone)]
pub struct Archive {
    backend: Backend,
    limits: ArchiveLimits,
}

// Enum dispatch: one match a call, no trait objects. Each variant is a
// shared handle (an `Arc` inside, or a pool).
#[derive(Clone)]
enum Backend {
    Memory(std::sync::Arc<MemoryArchive>),
    File(FileArchive),
    Postgres(PostgresArchive),
}

/// When a call on a blocking thread must give up, and the timeout it
/// reports then.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline {
    at: Instant,
    timeout: Duration,
}

impl Deadline {
    fn after(timeout: Duration) -> Deadline {
        Deadline {
            at: Instant::now() + timeout,
            timeout,
        }
    }

    pub(crate) fn check(&self) -> Result<(), ArchiveError> {
        if Instant::now() >= self.at {
            Err(ArchiveError::TimedOut(self.timeout))
        } else {
            Ok(())
        }
    }
}

impl Archive {
    /// Opens the archive `spec` names and brings its schema to this
    /// build's: for a file, creates it and its folder if missing; for
    /// PostgreSQL, connects (within the timeout: unreachable is
    /// [`ArchiveError::Unavailable`] or [`ArchiveError::TimedOut`]) and
    /// runs the migrations it lacks, however long they take.
    pub async fn open(spec: &ArchiveSpec, limits: ArchiveLimits) -> Result<Archive, ArchiveError> {
        let backend = match spec {
            ArchiveSpec::Memory => Backend::Memory(std::sync::Arc::new(MemoryArchive::new(
                limits.max_games_in_memory,
            ))),
            ArchiveSpec::File(path) => Backend::File(FileArchive::open(path).await?),
            ArchiveSpec::Postgres(url) => {
                Backend::Postgres(PostgresArchive::open(url, &limits).await?)
            }
        };
        Ok(Archive { backend, limits })
    }

    /// The bounds it was opened with.
    pub fn limits(&self) -> &ArchiveLimits {
        &self.limits
    }

    /// Stores the games whose ids it does not hold yet, all or none, and
    /// answers how many those were: a game whose id is stored already
    /// (by an earlier insert, a concurrent one, or earlier in `games`)
    /// changes nothing. A game of an erased player comes in without its
    /// name. Refused whole, before anything is stored, if a game breaks a
    /// bound ([`ArchiveError::Invalid`] names it).
    pub async fn insert(&self, games: &[ArchivedGame]) -> Result<u64, ArchiveError> {
        if games.len() > self.limits.max_batch {
            return Err(ArchiveError::Invalid(format!(
                "an insert of {} games is more than the {} one may carry",
                games.len(),
                self.limits.max_batch
            )));
        }
        for game in games {
            game.check(self.limits.max_body_bytes)?;
        }
        if games.is_empty() {
            return Ok(0);
        }
        self.bounded(async {
            match &self.backend {
                Backend::Memory(archive) => archive.insert(games),
                Backend::File(archive) => archive.insert(games.to_vec()).await,
                Backend::Postgres(archive) => archive.insert(games).await,
            }
        })
        .await
    }

    /// The game stored under `id`, if any.
    pub async fn game(&self, id: &str) -> Result<Option<ArchivedGame>, ArchiveError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(archive) => Ok(archive.game(id)),
                Backend::File(archive) => archive.game(id.to_owned()).await,
                Backend::Postgres(archive) => archive.game(id).await,
            }
        })
        .await
    }

    /// At most `limit` of the games `filter` wants, newest first by
    /// `(finished_ms, id)` (by `(created_ms, id)` in [`Order::Created`]),
    /// from just after `after` (the last game of the page before:
    /// [`ArchivedGame::cursor_in`]). Fewer than `limit` means there are no
    /// more. `filter.max` is not looked at.
    pub async fn page(
        &self,
        filter: &Filter,
        after: Option<&Cursor>,
        limit: usize,
    ) -> Result<Vec<ArchivedGame>, ArchiveError> {
        if limit > self.limits.max_page {
            return Err(ArchiveError::Invalid(format!(
                "a page of {limit} games is more than the {} one may hold",
                self.limits.max_page
            )));
        }
        filter.check()?;
        self.page_within(filter, after, limit).await
    }

    async fn page_within(
        &self,
        filter: &Filter,
        after: Option<&Cursor>,
        limit: usize,
    ) -> Result<Vec<ArchivedGame>, ArchiveError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let deadline = Deadline::after(self.limits.timeout);
        self.bounded(async {
            match &self.backend {
                Backend::Memory(archive) => Ok(archive.page(filter, after, limit)),
                Backend::File(archive) => {
                    archive
                        .page(filter.clone(), after.cloned(), limit, deadline)
                        .await
                }
                Backend::Postgres(archive) => archive.page(filter, after, limit).await,
            }
        })
        .await
    }

    /// The games `filter` wants, newest first, at most `filter.max`, as a
    /// stream that fetches [`ArchiveLimits::export_batch`] games at a
    /// time, each batch a page after the last game of the one before
    /// (each bounded by the timeout): its memory is one batch, however
    /// many games it streams. Games archived while it streams appear if
    /// they fall after its place in the order. An error ends it; the
    /// caller may go on with [`Archive::page`] from the last game's
    /// cursor. Dropping it stops it.
    pub fn export(
        &self,
        filter: Filter,
    ) -> impl Stream<Item = Result<ArchivedGame, ArchiveError>> + Send + 'static {
        let state = Export {
            archive: self.clone(),
            left: filter.max,
            filter,
            after: None,
            batch: Vec::new().into_iter(),
            done: false,
        };
        futures_util::stream::try_unfold(state, Export::next)
    }

    /// Erases `player`'s name from their games, and from the games of
    /// theirs inserted from now on; answers how many names went. The games
    /// and the player's id stay.
    pub async fn erase_player(&self, player: &str) -> Result<u64, ArchiveError> {
        let deadline = Deadline::after(self.limits.timeout);
        self.bounded(async {
            match &self.backend {
                Backend::Memory(archive) => Ok(archive.erase_player(player)),
                Backend::File(archive) => archive.erase_player(player.to_owned(), deadline).await,
                Backend::Postgres(archive) => archive.erase_player(player).await,
            }
        })
        .await
    }

    /// The players whose name a game of theirs holds still, in byte order
    /// of id, strictly after `after`, each once: those of the next
    /// `at_most` such games at most, so that the call's work is bounded
    /// (a player with many games may fill it alone). An empty answer
    /// means there are none after `after`; a walk of them all goes on
    /// from the last id answered. `at_most` is at most
    /// [`ArchiveLimits::max_page`].
    pub async fn named_players(
        &self,
        after: Option<&str>,
        at_most: usize,
    ) -> Result<Vec<String>, ArchiveError> {
        if at_most > self.limits.max_page {
            return Err(ArchiveError::Invalid(format!(
                "a walk of {at_most} named games is more than the {} a page may hold",
                self.limits.max_page
            )));
        }
        if at_most == 0 {
            return Ok(Vec::new());
        }
        let deadline = Deadline::after(self.limits.timeout);
        self.bounded(async {
            match &self.backend {
                Backend::Memory(archive) => Ok(archive.named_players(after, at_most)),
                Backend::File(archive) => {
                    archive
                        .named_players(after.map(str::to_owned), at_most, deadline)
                        .await
                }
                Backend::Postgres(archive) => archive.named_players(after, at_most).await,
            }
        })
        .await
    }

    /// Deletes at most `at_most` of the games finished before
    /// `cutoff_ms`, oldest first, and answers how many: retention, called
    /// again while it answers `at_most`.
    pub async fn purge_finished_before(
        &self,
        cutoff_ms: u64,
        at_most: usize,
    ) -> Result<u64, ArchiveError> {
        if at_most == 0 {
            return Ok(0);
        }
        let deadline = Deadline::after(self.limits.timeout);
        self.bounded(async {
            match &self.backend {
                Backend::Memory(archive) => Ok(archive.purge_finished_before(cutoff_ms, at_most)),
                Backend::File(archive) => {
                    archive
                        .purge_finished_before(cutoff_ms, at_most, deadline)
                        .await
                }
                Backend::Postgres(archive) => {
                    archive.purge_finished_before(cutoff_ms, at_most).await
                }
            }
        })
        .await
    }

    /// How many games are archived.
    pub async fn count(&self) -> Result<u64, ArchiveError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(archive) => Ok(archive.count()),
                Backend::File(archive) => archive.count().await,
                Backend::Postgres(archive) => archive.count().await,
            }
        })
        .await
    }

    /// Whether the archive answers now: PostgreSQL answers a `SELECT 1`
    /// within the timeout, the file can begin a read.
    pub async fn available(&self) -> bool {
        self.bounded(async {
            Ok(match &self.backend {
                Backend::Memory(_) => true,
                Backend::File(archive) => archive.available().await,
                Backend::Postgres(archive) => archive.available().await,
            })
        })
        .await
        .unwrap_or(false)
    }

    async fn bounded<T>(
        &self,
        call: impl Future<Output = Result<T, ArchiveError>>,
    ) -> Result<T, ArchiveError> {
        tokio::time::timeout(self.limits.timeout, call)
            .await
            .unwrap_or(Err(ArchiveError::TimedOut(self.limits.timeout)))
    }
}

/// Where an export is: the batch being yielded, and the cursor of the
/// next.
struct Export {
    archive: Archive,
    filter: Filter,
    /// How many games `filter.max` lets it yield still.
    left: Option<u64>,
    after: Option<Cursor>,
    batch: std::vec::IntoIter<ArchivedGame>,
    /// The last batch was short: there are no more.
    done: bool,
}

impl Export {
    async fn next(mut self) -> Result<Option<(ArchivedGame, Export)>, ArchiveError> {
        if self.left == Some(0) {
            return Ok(None);
        }
        if self.batch.len() == 0 {
            if self.done {
                return Ok(None);
            }
            if self.after.is_none() {
                // Checked once, as `page` checks each page.
                self.filter.check()?;
            }
            let size = self.archive.limits.export_batch.max(1);
            let size = self.left.map_or(size, |left| size.min(left as usize));
            let batch = self
                .archive
                .page_within(&self.filter, self.after.as_ref(), size)
                .await?;
            self.done = batch.len() < size;
            let order = self.filter.order;
            self.after = batch.last().map(|game| game.cursor_in(order));
            self.batch = batch.into_iter();
        }
        let Some(game) = self.batch.next() else {
            return Ok(None);
        };
        self.left = self.left.map(|left| left - 1);
        Ok(Some((game, self)))
    }
}
