//! The PostgreSQL schema's migrations, `crates/archive/migrations/`,
//! built into the binary and run at open by sqlx's migrator: each once,
//! in order, in a transaction of its own, recorded with its checksum in
//! `_sqlx_migrations`, under an advisory lock so that replicas starting
//! together migrate once.
//!
//! They are listed here with `include_str!` rather than by
//! `sqlx::migrate!`, which needs sqlx's `macros` feature (and builds
//! sqlx a second time, for the proc macro); the migrator, its table and
//! its checksums are the same, so `sqlx migrate info` reads this
//! database as usual. A test checks that the list and the folder agree.

use std::borrow::Cow;

use sqlx::PgConnection;
use sqlx::migrate::{MigrateError, Migration, MigrationType, Migrator};

use super::classify;
use crate::ArchiveError;

/// Each migration: its version, its description (the file's name after
/// the number, as sqlx's folder source reads it) and its SQL.
const MIGRATIONS: [(i64, &str, &str); 4] = [
    (
        1,
        "archived games",
        include_str!("../../migrations/0001_archived_games.sql"),
    ),
    (
        2,
        "erased players",
        include_str!("../../migrations/0002_erased_players.sql"),
    ),
    (
        3,
        "player games by creation",
        include_str!("../../migrations/0003_player_games_by_creation.sql"),
    ),
    (
        4,
        "named players",
        include_str!("../../migrations/0004_named_players.sql"),
    ),
];

/// The schema version this build brings a database to.
pub(crate) const LATEST: i64 = MIGRATIONS[MIGRATIONS.len() - 1].0;

fn migrator() -> Migrator {
    Migrator::with_migrations(
        MIGRATIONS
            .iter()
            .map(|&(version, description, sql)| {
                Migration::new(
                    version,
                    Cow::Borrowed(description),
                    MigrationType::Simple,
                    sqlx::SqlSafeStr::into_sql_str(sql),
                    false,
                )
            })
            .collect(),
    )
}

/// Runs on `connection` the migrations its database lacks.
pub(super) async fn run(connection: &mut PgConnection) -> Result<(), ArchiveError> {
    migrator().run(connection).await.map_err(|err| match err {
        MigrateError::Execute(err) => match classify(err) {
            err if err.is_unavailable() => err,
            err => ArchiveError::Migration(err.to_string()),
        },
        MigrateError::ExecuteMigration(err, version) => match classify(err) {
            err if err.is_unavailable() => err,
            err => ArchiveError::Migration(format!("migration {version}: {err}")),
        },
        MigrateError::VersionMissing(found) => ArchiveError::NewerSchema {
            found,
            known: LATEST,
        },
        MigrateError::VersionMismatch(version) => ArchiveError::Migration(format!(
            "migration {version} as applied to this database differs from this linkpath's"
        )),
        err => ArchiveError::Migration(err.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The folder, read as `sqlx migrate` and `sqlx::migrate!` read it,
    /// and the list built in agree: same versions, descriptions and
    /// checksums.
    #[tokio::test]
    async fn the_list_is_the_folder() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        let from_folder = Migrator::new(folder).await.unwrap();
        let seen = |migrator: &Migrator| -> Vec<(i64, String, Vec<u8>)> {
            migrator
                .iter()
                .map(|m| (m.version, m.description.to_string(), m.checksum.to_vec()))
                .collect()
        };
        assert_eq!(seen(&migrator()), seen(&from_folder));
        assert_eq!(LATEST, 4);
    }
}
