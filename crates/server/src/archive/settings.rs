//! The archive's settings: where finished games are kept for good, how
//! many connections PostgreSQL gets, and how long games are kept.

use crate::config::at_least_one;
use linkpath_archive::{ArchiveLimits, ArchiveSpec};
use linkpath_store::StoreSpec;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where finished games are kept once the live store lets them go.
#[derive(Clone, Debug, clap::Args)]
pub struct ArchiveSettings {
    /// Where finished games are kept for good: `file:PATH`, a redb file of
    /// its own (created with its folder); `postgres://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE`
    /// (`?sslmode=require` or `verify-full` for TLS), a PostgreSQL that
    /// replicas share, its schema migrated at start; or `memory` (gone
    /// with the process). Default: beside a store file `X.redb`, the file
    /// `X-archive.redb`; `memory` with a memory store; with Redis, none:
    /// replicas share no file, so finished games are not archived until a
    /// PostgreSQL is set.
    #[arg(long, env = "LINKPATH_ARCHIVE")]
    pub archive: Option<ArchiveSpec>,

    /// Most connections to the archive's PostgreSQL at once; at least 1.
    #[arg(long, env = "LINKPATH_ARCHIVE_POOL_SIZE", default_value_t = 8, value_parser = at_least_one::<u32>)]
    pub archive_pool_size: u32,

    /// Time a read or write of the archive may take, in milliseconds (503
    /// beyond for reads; the archiver tries again); at least 1.
    #[arg(long, env = "LINKPATH_ARCHIVE_TIMEOUT_MS", default_value_t = 5_000, value_parser = at_least_one::<u64>)]
    pub archive_timeout_ms: u64,

    /// Time a finished game is kept in the archive, in milliseconds from
    /// its finish; then it is deleted (default: kept for good); at least 1.
    #[arg(long, env = "LINKPATH_ARCHIVE_RETENTION_MS", value_parser = at_least_one::<u64>)]
    pub archive_retention_ms: Option<u64>,

    /// Most games a `memory` archive holds; past it the archiver's
    /// inserts are refused and finished games wait in the store (which
    /// refuses new games once full of them), as with an archive away;
    /// at least 1. A file or PostgreSQL is bounded by its disk and by
    /// retention.
    #[arg(long, env = "LINKPATH_ARCHIVE_MEMORY_GAMES", default_value_t = 100_000, value_parser = at_least_one::<u64>)]
    pub archive_memory_games: u64,
}

impl ArchiveSettings {
    /// The archive to open beside the store `store`: the one set, or the
    /// default that follows the store; none with Redis unless set.
    pub fn spec(&self, store: &StoreSpec) -> Option<ArchiveSpec> {
        match (&self.archive, store) {
            (Some(spec), _) => Some(spec.clone()),
            (None, StoreSpec::Memory) => Some(ArchiveSpec::Memory),
            (None, StoreSpec::File(path)) => Some(ArchiveSpec::File(beside(path))),
            (None, StoreSpec::Redis(_)) => None,
        }
    }

    /// The archive's bounds.
    pub fn limits(&self) -> ArchiveLimits {
        ArchiveLimits {
            timeout: Duration::from_millis(self.archive_timeout_ms),
            pool_size: self.archive_pool_size,
            max_games_in_memory: self.archive_memory_games,
            ..ArchiveLimits::default()
        }
    }
}

/// `X-archive.redb` beside the store file `X.redb` (`X-archive` beside a
/// file without an extension).
fn beside(store: &Path) -> PathBuf {
    let stem = store
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match store.extension() {
        Some(ext) => format!("{stem}-archive.{}", ext.to_string_lossy()),
        None => format!("{stem}-archive"),
    };
    store.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(archive: Option<&str>) -> ArchiveSettings {
        ArchiveSettings {
            archive: archive.map(|a| a.parse().unwrap()),
            archive_pool_size: 8,
            archive_timeout_ms: 5_000,
            archive_retention_ms: None,
            archive_memory_games: 100_000,
        }
    }

    #[test]
    fn the_default_follows_the_store() {
        let store = |s: &str| s.parse::<StoreSpec>().unwrap();
        assert_eq!(
            settings(None).spec(&store("file:/var/lib/linkpath/games.redb")),
            Some(ArchiveSpec::File(PathBuf::from(
                "/var/lib/linkpath/games-archive.redb"
            )))
        );
        assert_eq!(
            settings(None).spec(&store("file:data/games")),
            Some(ArchiveSpec::File(PathBuf::from("data/games-archive")))
        );
        assert_eq!(
            settings(None).spec(&store("memory")),
            Some(ArchiveSpec::Memory)
        );
        assert_eq!(settings(None).spec(&store("redis://127.0.0.1:6379")), None);
    }

    #[test]
    fn a_setting_wins_over_the_default() {
        let store: StoreSpec = "memory".parse().unwrap();
        assert_eq!(
            settings(Some("postgres://app@db/linkpath")).spec(&store),
            Some(ArchiveSpec::Postgres(
                "postgres://app@db/linkpath".to_owned()
            ))
        );
        assert_eq!(
            settings(Some("file:a.redb")).spec(&store),
            Some(ArchiveSpec::File(PathBuf::from("a.redb")))
        );
    }
}
