//! The archive keeps a player's name only while the live store has the
//! player: a player erased (`DELETE /v1/players/me`) loses it at once,
//! and one gone otherwise (erased for idleness, `LINKPATH_PLAYER_IDLE_MS`,
//! or anything else that leaves the store without them) loses it in the
//! archiver's next sweep.
//!
//! A sweep walks the players whose names the archive holds still, in id
//! order ([`Archive::named_players`]), a round every 30 s: one round
//! lists the players of at most [`NAMES_AT_ONCE`] named games, reads
//! them all from the live store in one call, and erases the names of
//! those it does not have ([`Archive::erase_player`], which also keeps
//! the names off their games archived later), within [`ROUND_FOR`]. The
//! next round goes on after the last player it looked at; past the last,
//! the sweep starts again. The state is the archive itself (which names
//! it holds), so the sweep needs nothing kept across restarts, and
//! replicas sweeping the same archive each erase only what is gone, which
//! is idempotent. Only a definite answer erases: a store or an archive
//! that fails ends the round, to be tried again.
//!
//! A store's absence speaks only of players that were in it: an absent
//! player's names go only if their newest archived game finished since
//! the store began ([`Store::born`], which the archiver's passes set
//! first). A store that lost what it held (a Redis flushed, a file made
//! anew) begins again, so the players of the store before keep their
//! names, and a round in which it begins again between its reads erases
//! nothing.
//!
//! [`Archive::named_players`]: linkpath_archive::Archive::named_players
//! [`Archive::erase_player`]: linkpath_archive::Archive::erase_player
//! [`Store::born`]: linkpath_store::Store::born

use super::Archives;
use linkpath_archive::{Archive, Filter};
use linkpath_store::{MAX_PLAYERS_READ, Store};
use std::time::{Duration, Instant};

/// Named games one round looks at at most: one listing of the archive,
/// one read of the players they name.
pub(crate) const NAMES_AT_ONCE: usize = 1_000;
const _: () = assert!(NAMES_AT_ONCE <= MAX_PLAYERS_READ);

/// How long one round may erase for; the players left wait for the next.
const ROUND_FOR: Duration = Duration::from_secs(5);

/// What one round of the sweep did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NamesRound {
    /// Players whose names the archive holds, looked up in the live store.
    pub checked: usize,
    /// Those the live store no longer has and had since it began: their
    /// names erased.
    pub gone: usize,
    /// The names erased, one a game.
    pub names_erased: u64,
}

/// Where the sweep is: the last player a round looked at; none at the
/// start of a sweep.
#[derive(Default)]
pub(crate) struct Sweep {
    after: Option<String>,
}

/// One round of the sweep at the store's time `now_ms`: the names of the
/// next players the live store had since it began and has no more leave
/// the archive.
pub(crate) async fn erase_gone(
    archives: &Archives,
    store: &Store,
    now_ms: u64,
) -> Result<NamesRound, String> {
    let archive = archives
        .archive()
        .await
        .map_err(|e| format!("opening the archive: {e}"))?;
    // Held for the round: one round at a time in a process.
    let mut sweep = archives.sweep.lock().await;
    let deadline = Instant::now() + ROUND_FOR;
    let at_most = NAMES_AT_ONCE.min(archive.limits().max_page);
    let listed = |after: Option<String>| async move {
        archive
            .named_players(after.as_deref(), at_most)
            .await
            .map_err(|e| format!("listing the players named in the archive: {e}"))
    };
    let mut players = listed(sweep.after.clone()).await?;
    if players.is_empty() && sweep.after.is_some() {
        // Past the last: the sweep starts again.
        sweep.after = None;
        players = listed(None).await?;
    }
    let mut round = NamesRound::default();
    if players.is_empty() {
        return Ok(round);
    }
    let born = |what: &'static str| async move {
        store
            .born(now_ms)
            .await
            .map_err(|e| format!("reading when the live store began{what}: {e}"))
    };
    let began = born("").await?;
    let live = store
        .players(&players, now_ms)
        .await
        .map_err(|e| format!("reading the players named in the archive: {e}"))?;
    if born(", again").await? != began {
        tracing::warn!(
            "the live store began again during a round of the archive's names sweep: nothing erased"
        );
        return Ok(round);
    }
    let mut kept = 0_usize;
    for (player, live) in players.into_iter().zip(live) {
        if Instant::now() >= deadline {
            break;
        }
        if live.is_none() {
            if played_since(archive, &player, began).await? {
                round.names_erased += archive.erase_player(&player).await.map_err(|e| {
                    format!(
                        "erasing the name of player {}… from the archive: {e}",
                        crate::games::errors::short(&player)
                    )
                })?;
                round.gone += 1;
            } else {
                kept += 1;
            }
        }
        round.checked += 1;
        sweep.after = Some(player);
    }
    if kept > 0 {
        tracing::debug!(
            players = kept,
            "kept in the archive the names of players absent from a live store that began after their games"
        );
    }
    if round.gone > 0 {
        tracing::info!(
            players = round.gone,
            names = round.names_erased,
            "erased from the archive the names of players gone from the live store"
        );
    }
    Ok(round)
}

/// Whether `player`'s newest archived game finished at `began_ms` or
/// after: then the live store, begun at `began_ms`, had the player.
async fn played_since(archive: &Archive, player: &str, began_ms: u64) -> Result<bool, String> {
    let filter = Filter {
        player: Some(player.to_owned()),
        ..Filter::default()
    };
    let newest = archive.page(&filter, None, 1).await.map_err(|e| {
        format!(
            "reading the newest archived game of player {}…: {e}",
            crate::games::errors::short(player)
        )
    })?;
    Ok(newest
        .first()
        .is_some_and(|game| game.finished_ms >= began_ms))
}
