//! A game to and from the store's bytes: read back with the server's
//! downtime given back to its clock, its log's entries read as an action
//! needs them, and a change written with its log, its kept answer and
//! the leaderboard entry its win earns, in one write. Every store call
//! of a game's record is timed here.

use super::downtime::Downtime;
use super::errors::{corrupted, not_found, short, unavailable};
use crate::metrics;
use linkpath_api::ApiError;
use linkpath_api::games::{ActionKind, Game, Logged, stored};
use linkpath_store::{Expected, Kept, Outcome, Store, StoredGame, Write};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The games as the store keeps them.
pub(crate) struct Records {
    pub store: Arc<Store>,
    /// The server's downtime, given back to every game read.
    pub downtime: Downtime,
    /// How long a game nobody changes is kept.
    pub idle: Duration,
    /// How long a leaderboard is kept after its last entry.
    pub board_ttl: Duration,
}

impl Records {
    /// The stored game under `id`, read back (with the entries of its log
    /// a record of an older format held, for the next write to append),
    /// the server's downtime given back to its clock; and when it expires.
    pub(crate) async fn load(&self, id: &str, now: u64) -> Result<(stored::Loaded, u64), ApiError> {
        let outages = (self.downtime)
            .outages(&self.store, self.idle, now)
            .await
            .map_err(unavailable)?;
        let started = Instant::now();
        let stored = self.store.game(id, now).await;
        metrics::record_store("read", started);
        let stored = stored.map_err(unavailable)?.ok_or_else(not_found)?;
        let mut loaded = stored::decode(&stored.body)
            .map_err(|e| corrupted(format!("game {}…: {e}", short(id))))?;
        loaded.game.give_back(&outages, now);
        Ok((loaded, stored.expires_at_ms))
    }

    /// The entries of the game `id`'s log at `versions`, from `unsaved`
    /// when the store does not hold its log yet.
    pub(crate) async fn entries(
        &self,
        id: &str,
        unsaved: &[Logged],
        versions: &[u64],
        now: u64,
    ) -> Result<BTreeMap<u64, Logged>, ApiError> {
        let mut found = BTreeMap::new();
        for &version in versions {
            let entry = match unsaved.get(version as usize) {
                Some(entry) if !unsaved.is_empty() => entry.clone(),
                _ => {
                    let started = Instant::now();
                    let read = self.store.log(id, version..version + 1, now).await;
                    metrics::record_store("read", started);
                    match read.map_err(unavailable)?.pop() {
                        Some((_, bytes)) => decode_entry(id, &bytes)?,
                        // The action reports the entry it lacks.
                        None => continue,
                    }
                }
            };
            found.insert(version, entry);
        }
        Ok(found)
    }

    /// Every entry of `game`'s log, one a version from its creation: from
    /// the store, or, when it holds none yet, from the record of an older
    /// format that held them (read again only then).
    pub(crate) async fn whole_log(&self, game: &Game, now: u64) -> Result<Vec<Logged>, ApiError> {
        let started = Instant::now();
        let read = self.store.log(&game.id, 0..game.version + 1, now).await;
        metrics::record_store("read", started);
        let read = read.map_err(unavailable)?;
        if read.is_empty() {
            let (stored::Loaded { unsaved, .. }, _) = self.load(&game.id, now).await?;
            if !unsaved.is_empty() {
                return Ok(unsaved);
            }
        }
        if read.len() as u64 != game.version + 1 {
            return Err(corrupted(format!(
                "game {}… at version {} has {} entries in its log",
                short(&game.id),
                game.version,
                read.len()
            )));
        }
        read.iter()
            .map(|(_, bytes)| decode_entry(&game.id, bytes))
            .collect()
    }

    /// The whole log of the game `id` after a change of its version
    /// `version` that appends `appended`: the store's entries up to
    /// `version`, then those; or `appended` alone when it starts with the
    /// deal (a record of an older format held its log).
    pub(crate) async fn history(
        &self,
        id: &str,
        version: u64,
        appended: &[Logged],
        now: u64,
    ) -> Result<Vec<Logged>, ApiError> {
        if appended
            .first()
            .is_some_and(|entry| entry.action == ActionKind::Create)
        {
            return Ok(appended.to_vec());
        }
        let started = Instant::now();
        let read = self.store.log(id, 0..version + 1, now).await;
        metrics::record_store("read", started);
        let mut history = read
            .map_err(unavailable)?
            .iter()
            .map(|(_, bytes)| decode_entry(id, bytes))
            .collect::<Result<Vec<_>, _>>()?;
        history.extend_from_slice(appended);
        Ok(history)
    }

    /// The game written at its new version with the entries it appends to
    /// its log, the entry its win earns and, when the change finishes it,
    /// its mark for the archive; what the store made of it, and when the
    /// game now expires.
    pub(crate) async fn save(
        &self,
        game: &Game,
        expected: Expected,
        key: Option<(String, Kept)>,
        log: &[Logged],
        now: u64,
    ) -> Result<(Outcome, u64), ApiError> {
        // Only the move that wins changes a game to won: the next write of a
        // won game is none (it is finished).
        let entry = game.earned().map(|earned| linkpath_store::Entry {
            board: earned.board,
            player: earned.player,
            rank: earned.rank,
            body: earned.body,
            expires_at_ms: now + self.board_ttl.as_millis() as u64,
        });
        let expires_at_ms = now + self.idle.as_millis() as u64;
        let body = stored::encode(game);
        let write = Write {
            id: game.id.clone(),
            expected,
            game: StoredGame {
                version: game.version,
                expires_at_ms,
                body,
            },
            key,
            entry,
            // The store lists a game under its player from its creation.
            owner: match expected {
                Expected::Absent => game.owner.clone(),
                Expected::Version(_) => None,
            },
            log: log.iter().map(stored::encode_entry).collect(),
            // A finished game takes no action: the write that finishes it
            // is its last, and marks it for the archive in the same step.
            finished: game.status.finished(),
        };
        let started = Instant::now();
        let outcome = self.store.write(write, now).await;
        metrics::record_store("write", started);
        Ok((outcome.map_err(unavailable)?, expires_at_ms))
    }
}

fn decode_entry(id: &str, bytes: &[u8]) -> Result<Logged, ApiError> {
    stored::decode_entry(bytes)
        .map_err(|e| corrupted(format!("an entry of game {}…'s log: {e}", short(id))))
}
