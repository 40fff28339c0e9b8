//! The loops the serve loop runs beside the routes while it serves, and
//! stops: the purge of what expired, and the heartbeat that tells the
//! server's downtime (see [`super::downtime`]).

use super::downtime::HEARTBEAT;
use super::service::Games;
use crate::metrics;
use std::sync::Arc;
use std::time::Duration;

/// Purges expired games, keys and leaderboards every 30 seconds, all of
/// them (in batches: [`linkpath_store::Store::purge_expired`]), and counts the games,
/// players and matches stored; the serve loop stops it. The count is the first call at
/// start: a store that does not answer (a Redis not up yet) is logged
/// then, and games answer 503 until it does.
pub async fn purge_loop(games: Arc<Games>) {
    const EVERY: Duration = Duration::from_secs(30);
    loop {
        match games.records.store.games().await {
            Ok(stored) => metrics::record_games_stored(stored),
            Err(e) => tracing::warn!(
                error = %e,
                "the game store does not answer; game routes answer 503 until it does"
            ),
        }
        if let Ok(players) = games.records.store.player_count().await {
            metrics::record_players_stored(players);
        }
        if let Ok(matches) = games.records.store.matches().await {
            metrics::record_matches_stored(matches);
        }
        tokio::time::sleep(EVERY).await;
        match games.records.store.purge_expired(games.now()).await {
            Ok(purged) => {
                if purged.games > 0
                    || purged.keys > 0
                    || purged.boards > 0
                    || purged.players > 0
                    || purged.matches > 0
                {
                    tracing::info!(
                        games = purged.games,
                        keys = purged.keys,
                        leaderboards = purged.boards,
                        players = purged.players,
                        matches = purged.matches,
                        "purged expired games"
                    );
                }
            }
            Err(e) => tracing::warn!(error = %e, "purging expired games failed; next pass retries"),
        }
    }
}

/// Records this process's heartbeat every [`HEARTBEAT`] while it serves;
/// the serve loop stops it. A heartbeat that fails is logged once, until
/// one succeeds again: meanwhile games are read only after a heartbeat
/// made first, as at start.
pub async fn heartbeat_loop(games: Arc<Games>) {
    let mut tick = tokio::time::interval(HEARTBEAT);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut failing = false;
    loop {
        tick.tick().await;
        let beat = async {
            let records = &games.records;
            let _one = records.downtime.beating.lock().await;
            (records.downtime)
                .beat(&records.store, records.idle, games.now())
                .await
        };
        match beat.await {
            Ok(_) if failing => {
                failing = false;
                tracing::info!("the heartbeat is recorded again");
            }
            Ok(_) => {}
            Err(e) if !failing => {
                failing = true;
                tracing::warn!(
                    error = %e,
                    "the heartbeat was not recorded; retrying every second, and games are read only after one is"
                );
            }
            Err(_) => {}
        }
    }
}
