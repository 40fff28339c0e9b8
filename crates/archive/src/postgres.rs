//! The archive in PostgreSQL, shared by every replica: a pool of
//! connections (its size a setting, a connection waited for at most the
//! call's timeout), the schema migrated at open by sqlx's migrator
//! (`migrations/`, `migrations.rs`), and plain statements with binds.
//!
//! Each connection sets `statement_timeout` to the call timeout, so a
//! statement the caller gave up on is also stopped in PostgreSQL. TLS
//! is as the URL's `sslmode` says (`disable`, `prefer` (the default),
//! `require`, `verify-ca`, `verify-full`), through rustls; the server's
//! certificate is checked against Mozilla's roots, or against
//! `sslrootcert=PATH` when given.
//!
//! An insert takes its ids' places in the primary key in id order, so
//! that two inserts of the same games in other orders (replicas' archivers
//! racing) wait for each other rather than deadlock.
//!
//! An insert and an erasure of the same player are ordered by an advisory
//! lock on the player (shared for inserts, exclusive for the erasure),
//! each held to its transaction's end: a game inserted while its player
//! is erased is either renamed by the erasure or sees the player in
//! `erased_players` and comes in without a name.

mod migrations;

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions, PgRow, Postgres};
use sqlx::{Connection, QueryBuilder, Row};

use crate::{ArchiveError, ArchiveLimits, ArchivedGame, Cursor, Filter, Order};

/// The first key of the advisory locks on players (the second is the
/// player's hash): "LPAR", so they stay apart from other locks of the
/// database, sqlx's migration lock among them.
const PLAYER_LOCKS: i32 = 0x4c50_4152;

/// The columns of a game, in the order every read selects them.
macro_rules! columns {
    () => {
        "id, player, player_name, leaderboard, match_id, status, rated, created_ms, \
         finished_ms, body"
    };
}

#[derive(Clone)]
pub(crate) struct PostgresArchive {
    pool: PgPool,
}

impl PostgresArchive {
    /// Connects to `url`, runs the migrations this database lacks, and
    /// makes the pool. The connection is bounded by the timeout; the
    /// migrations are not: one may build an index over every game.
    pub(crate) async fn open(
        url: &str,
        limits: &ArchiveLimits,
    ) -> Result<PostgresArchive, ArchiveError> {
        let options = PgConnectOptions::from_str(url)
            .map_err(|err| ArchiveError::Invalid(format!("the PostgreSQL URL: {err}")))?;
        let mut connection =
            tokio::time::timeout(limits.timeout, sqlx::PgConnection::connect_with(&options))
                .await
                .map_err(|_| ArchiveError::TimedOut(limits.timeout))?
                .map_err(classify)?;
        migrations::run(&mut connection).await?;
        // Closing tells the server; a failure to is no failure to open.
        let _ = connection.close().await;
        let statement_timeout = limits.timeout.as_millis().to_string();
        let pool = PgPoolOptions::new()
            .max_connections(limits.pool_size.max(1))
            .min_connections(0)
            .acquire_timeout(limits.timeout)
            // Connections are made again now and then, so that a
            // failover's new primary is found and memory is given back.
            .max_lifetime(Duration::from_secs(30 * 60))
            .idle_timeout(Duration::from_secs(10 * 60))
            .connect_lazy_with(options.options([("statement_timeout", statement_timeout)]));
        Ok(PostgresArchive { pool })
    }

    pub(crate) async fn insert(&self, games: &[ArchivedGame]) -> Result<u64, ArchiveError> {
        let mut players: Vec<&str> = games.iter().filter_map(|g| g.player.as_deref()).collect();
        players.sort_unstable();
        players.dedup();
        let mut txn = self.pool.begin().await.map_err(classify)?;
        if !players.is_empty() {
            sqlx::query(
                "SELECT pg_advisory_xact_lock_shared($1, hashtext(player)) \
                 FROM unnest($2::text[]) AS player",
            )
            .bind(PLAYER_LOCKS)
            .bind(players)
            .execute(&mut *txn)
            .await
            .map_err(classify)?;
        }
        let text = |f: fn(&ArchivedGame) -> Option<&str>| games.iter().map(f).collect::<Vec<_>>();
        let inserted = sqlx::query(
            "INSERT INTO archived_games (id, player, player_name, leaderboard, match_id, status, \
                                         rated, created_ms, finished_ms, body) \
             SELECT g.id, g.player, CASE WHEN e.player IS NULL THEN g.player_name END, \
                    g.leaderboard, g.match_id, g.status, g.rated, g.created_ms, g.finished_ms, \
                    g.body \
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], \
                         $6::text[], $7::bool[], $8::int8[], $9::int8[], $10::bytea[]) \
                  AS g(id, player, player_name, leaderboard, match_id, status, rated, \
                       created_ms, finished_ms, body) \
             LEFT JOIN erased_players e ON e.player = g.player \
             ORDER BY g.id \
             ON CONFLICT (id) DO NOTHING",
        )
        .bind(games.iter().map(|g| g.id.as_str()).collect::<Vec<_>>())
        .bind(text(|g| g.player.as_deref()))
        .bind(text(|g| g.player_name.as_deref()))
        .bind(text(|g| g.leaderboard.as_deref()))
        .bind(text(|g| g.match_id.as_deref()))
        .bind(games.iter().map(|g| g.status.as_str()).collect::<Vec<_>>())
        .bind(games.iter().map(|g| g.rated).collect::<Vec<_>>())
        .bind(games.iter().map(|g| ms(g.created_ms)).collect::<Vec<_>>())
        .bind(games.iter().map(|g| ms(g.finished_ms)).collect::<Vec<_>>())
        .bind(games.iter().map(|g| g.body.as_slice()).collect::<Vec<_>>())
        .execute(&mut *txn)
        .await
        .map_err(classify)?
        .rows_affected();
        txn.commit().await.map_err(classify)?;
        Ok(inserted)
    }

    pub(crate) async fn game(&self, id: &str) -> Result<Option<ArchivedGame>, ArchiveError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            columns!(),
            " FROM archived_games WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .map_err(classify)?;
        row.as_ref().map(game_of).transpose()
    }

    pub(crate) async fn page(
        &self,
        filter: &Filter,
        after: Option<&Cursor>,
        limit: usize,
    ) -> Result<Vec<ArchivedGame>, ArchiveError> {
        let mut query = QueryBuilder::<Postgres>::new(concat!(
            "SELECT ",
            columns!(),
            " FROM archived_games WHERE true"
        ));
        for (column, value) in [
            ("player", &filter.player),
            ("leaderboard", &filter.leaderboard),
            ("match_id", &filter.match_id),
            ("status", &filter.status),
        ] {
            if let Some(value) = value {
                query
                    .push(format!(" AND {column} = "))
                    .push_bind(value.as_str());
            }
        }
        if let Some(rated) = filter.rated {
            query.push(" AND rated = ").push_bind(rated);
        }
        // The column the order is by: fixed text, never the caller's.
        let time = match filter.order {
            Order::Finished => "finished_ms",
            Order::Created => "created_ms",
        };
        if let Some(since) = filter.since_ms {
            if since > crate::MAX_MS {
                return Ok(Vec::new());
            }
            query.push(format!(" AND {time} >= ")).push_bind(ms(since));
        }
        // Past the latest time kept, a bound leaves every game in.
        if let Some(until) = filter.until_ms.filter(|until| *until <= crate::MAX_MS) {
            query.push(format!(" AND {time} < ")).push_bind(ms(until));
        }
        if let Some(cursor) = after.filter(|c| c.at_ms <= crate::MAX_MS) {
            query
                .push(format!(" AND ({time}, id) < ("))
                .push_bind(ms(cursor.at_ms))
                .push(", ")
                .push_bind(cursor.id.as_str())
                .push(")");
        }
        query
            .push(format!(" ORDER BY {time} DESC, id DESC LIMIT "))
            .push_bind(i64::try_from(limit).unwrap_or(i64::MAX));
        let rows = query
            .build()
            .fetch_all(&self.pool)
            .await
            .map_err(classify)?;
        rows.iter().map(game_of).collect()
    }

    pub(crate) async fn erase_player(&self, player: &str) -> Result<u64, ArchiveError> {
        let mut txn = self.pool.begin().await.map_err(classify)?;
        sqlx::query("SELECT pg_advisory_xact_lock($1, hashtext($2))")
            .bind(PLAYER_LOCKS)
            .bind(player)
            .execute(&mut *txn)
            .await
            .map_err(classify)?;
        sqlx::query("INSERT INTO erased_players (player) VALUES ($1) ON CONFLICT DO NOTHING")
            .bind(player)
            .execute(&mut *txn)
            .await
            .map_err(classify)?;
        let erased = sqlx::query(
            "UPDATE archived_games SET player_name = NULL \
             WHERE player = $1 AND player_name IS NOT NULL",
        )
        .bind(player)
        .execute(&mut *txn)
        .await
        .map_err(classify)?
        .rows_affected();
        txn.commit().await.map_err(classify)?;
        Ok(erased)
    }

    /// Walks the partial index of named games in player order, at most
    /// `at_most` of its entries.
    pub(crate) async fn named_players(
        &self,
        after: Option<&str>,
        at_most: usize,
    ) -> Result<Vec<String>, ArchiveError> {
        let limit = i64::try_from(at_most).unwrap_or(i64::MAX);
        // Two statements rather than `$1 IS NULL OR`, which a generic
        // plan could not match to the index.
        let query = match after {
            Some(after) => sqlx::query_scalar(
                "SELECT player FROM archived_games \
                 WHERE player_name IS NOT NULL AND player > $1 ORDER BY player LIMIT $2",
            )
            .bind(after)
            .bind(limit),
            None => sqlx::query_scalar(
                "SELECT player FROM archived_games \
                 WHERE player_name IS NOT NULL AND player IS NOT NULL ORDER BY player LIMIT $1",
            )
            .bind(limit),
        };
        let mut players: Vec<String> = query.fetch_all(&self.pool).await.map_err(classify)?;
        players.dedup();
        Ok(players)
    }

    pub(crate) async fn purge_finished_before(
        &self,
        cutoff_ms: u64,
        at_most: usize,
    ) -> Result<u64, ArchiveError> {
        let purged = sqlx::query(
            "DELETE FROM archived_games WHERE id IN ( \
                 SELECT id FROM archived_games WHERE finished_ms < $1 \
                 ORDER BY finished_ms, id LIMIT $2)",
        )
        .bind(ms(cutoff_ms.min(crate::MAX_MS)))
        .bind(i64::try_from(at_most).unwrap_or(i64::MAX))
        .execute(&self.pool)
        .await
        .map_err(classify)?
        .rows_affected();
        Ok(purged)
    }

    /// Counts every row: an index-only scan of the time index, as long as
    /// a vacuum has passed lately.
    pub(crate) async fn count(&self) -> Result<u64, ArchiveError> {
        let count: i64 = sqlx::query_scalar("SELECT count(*) FROM archived_games")
            .fetch_one(&self.pool)
            .await
            .map_err(classify)?;
        u64::try_from(count).map_err(|_| ArchiveError::Corrupted(format!("a count of {count}")))
    }

    pub(crate) async fn available(&self) -> bool {
        sqlx::query("SELECT 1").execute(&self.pool).await.is_ok()
    }
}

/// A time as PostgreSQL's `bigint`; games are checked to be within it.
fn ms(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

fn game_of(row: &PgRow) -> Result<ArchivedGame, ArchiveError> {
    let decode =
        |err: sqlx::Error| ArchiveError::Corrupted(format!("a row does not decode: {err}"));
    let time = |column: &str| -> Result<u64, ArchiveError> {
        let ms: i64 = row.try_get(column).map_err(decode)?;
        u64::try_from(ms).map_err(|_| ArchiveError::Corrupted(format!("a {column} of {ms}")))
    };
    Ok(ArchivedGame {
        id: row.try_get("id").map_err(decode)?,
        player: row.try_get("player").map_err(decode)?,
        player_name: row.try_get("player_name").map_err(decode)?,
        leaderboard: row.try_get("leaderboard").map_err(decode)?,
        match_id: row.try_get("match_id").map_err(decode)?,
        status: row.try_get("status").map_err(decode)?,
        rated: row.try_get("rated").map_err(decode)?,
        created_ms: time("created_ms")?,
        finished_ms: time("finished_ms")?,
        body: row.try_get("body").map_err(decode)?,
    })
}

/// sqlx's error as the archive's: the server down, unreachable, starting,
/// stopping, out of connections or read-only (a failover), and the pool
/// with none free in time, are [`ArchiveError::Unavailable`].
pub(crate) fn classify(err: sqlx::Error) -> ArchiveError {
    match err {
        sqlx::Error::PoolTimedOut => ArchiveError::Unavailable(
            "no connection to PostgreSQL came free or could be made in time".to_owned(),
        ),
        sqlx::Error::PoolClosed | sqlx::Error::WorkerCrashed => {
            ArchiveError::Unavailable(err.to_string())
        }
        sqlx::Error::Io(err) => ArchiveError::Unavailable(format!("PostgreSQL: {err}")),
        sqlx::Error::Tls(err) => ArchiveError::Unavailable(format!("PostgreSQL's TLS: {err}")),
        sqlx::Error::Database(db) => {
            let code = db.code().unwrap_or_default().into_owned();
            let message = format!("PostgreSQL ({code}): {}", db.message());
            // 08: connection exceptions; 53: out of connections, memory
            // or disk; 57P01..57P05: shutting down, starting, idle too
            // long; 57014: a statement timed out; 25006: a read-only
            // transaction (a standby after a failover).
            let unavailable = code.starts_with("08")
                || code.starts_with("53")
                || (code.starts_with("57P") && code != "57P04")
                || code == "57014"
                || code == "25006";
            if unavailable {
                ArchiveError::Unavailable(message)
            } else {
                ArchiveError::Database(message)
            }
        }
        err => ArchiveError::Database(err.to_string()),
    }
}
