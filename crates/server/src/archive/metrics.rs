//! The archive's Prometheus series, described and registered at 0 with
//! the others (`crate::metrics`): how far the archiver is behind, its
//! writes, the marked games it passes over, and the games archived.

use metrics::{Unit, counter, describe_counter, describe_gauge, gauge};

pub(crate) const ARCHIVE_LAG: &str = "linkpath_archive_lag_seconds";
pub(crate) const ARCHIVE_PENDING: &str = "linkpath_archive_pending";
pub(crate) const ARCHIVE_UNREADABLE: &str = "linkpath_archive_unreadable";
pub(crate) const ARCHIVE_WRITES: &str = "linkpath_archive_writes_total";
pub(crate) const ARCHIVED_GAMES: &str = "linkpath_archived_games";

/// What became of a game the archiver copied, for
/// `linkpath_archive_writes_total`: its insert acknowledged, or not: the
/// archive away (each try, to be tried again), or the game's record
/// unreadable (once, then passed over).
pub(crate) const WRITE_OUTCOMES: [&str; 2] = ["written", "failed"];

pub(crate) fn describe() {
    describe_gauge!(
        ARCHIVE_LAG,
        Unit::Seconds,
        "Age of the oldest finished game not archived yet (0 when none waits)"
    );
    describe_gauge!(
        ARCHIVE_PENDING,
        "Finished games waiting for their archive copy"
    );
    describe_gauge!(
        ARCHIVE_UNREADABLE,
        "Finished games marked for the archive whose records do not read back: kept in the store, passed over by the archiver"
    );
    describe_counter!(
        ARCHIVE_WRITES,
        "Finished games the archiver copied, by outcome: written, or failed (each try while the archive is away, once for an unreadable record)"
    );
    describe_gauge!(
        ARCHIVED_GAMES,
        "Games in the archive, as last counted (every 30 s)"
    );
}

pub(crate) fn register_zeros() {
    gauge!(ARCHIVE_LAG).set(0.0);
    gauge!(ARCHIVE_PENDING).set(0.0);
    gauge!(ARCHIVE_UNREADABLE).set(0.0);
    for outcome in WRITE_OUTCOMES {
        counter!(ARCHIVE_WRITES, "outcome" => outcome).increment(0);
    }
    gauge!(ARCHIVED_GAMES).set(0.0);
}

/// How far behind the archive is at `now_ms`: `pending` games, the oldest
/// finished at `oldest_ms`.
pub(crate) fn record_pending(pending: u64, oldest_ms: Option<u64>, now_ms: u64) {
    gauge!(ARCHIVE_PENDING).set(pending as f64);
    let lag_ms = oldest_ms.map_or(0, |oldest| now_ms.saturating_sub(oldest));
    gauge!(ARCHIVE_LAG).set(lag_ms as f64 / 1000.0);
}

/// How many marked games the archiver passes over as unreadable.
pub(crate) fn record_unreadable(games: usize) {
    gauge!(ARCHIVE_UNREADABLE).set(games as f64);
}

/// `games` copied, `outcome` one of [`WRITE_OUTCOMES`].
pub(crate) fn record_writes(outcome: &'static str, games: usize) {
    debug_assert!(WRITE_OUTCOMES.contains(&outcome), "{outcome}");
    counter!(ARCHIVE_WRITES, "outcome" => outcome).increment(games as u64);
}

pub(crate) fn record_archived(games: u64) {
    gauge!(ARCHIVED_GAMES).set(games as f64);
}
