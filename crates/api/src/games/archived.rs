//! A finished game as the archive keeps it: from the live store's record
//! and whole log to an [`ArchivedGame`], its record (`body`) the replay
//! `POST /v1/replays` checks again plus the result, and its columns the
//! ones a player's history and exports filter on.

use super::game::Game;
use super::log::Logged;
use super::replay::Replay;
use super::stored;
use linkpath_archive::ArchivedGame;
use serde::Serialize;
use utoipa::ToSchema;

/// How a game ended, as its archived record keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct ArchivedResult {
    /// `won`, `out_of_time`, `resigned` or `race_over`.
    pub status: String,
    pub score: u64,
    /// Play time, the server's downtime left out.
    pub elapsed_ms: u64,
    pub tiles_left: usize,
    /// Whether a win of it was (or would have been) entered on a
    /// leaderboard: no assist, not too fast.
    pub ranked: bool,
}

/// An archived game's record: the replay, the body `POST /v1/replays`
/// takes, and the result it comes to.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ArchivedRecord {
    pub replay: Replay,
    pub result: ArchivedResult,
}

/// The archive's copy of a game from its stored `record` and its whole
/// `log` (one entry a version, from its creation), finished at
/// `finished_ms` (when its mark says, else its last change). Its
/// `player_name` is the name the game was created with; the caller puts
/// a signed-in player's own name in, read from the player's record. The
/// error says what in the stored bytes is wrong.
pub fn archived_game(
    record: &[u8],
    log: &[(u64, Vec<u8>)],
    finished_ms: Option<u64>,
) -> Result<ArchivedGame, String> {
    let stored::Loaded { game, unsaved } = stored::decode(record)?;
    let log: Vec<Logged> = if log.is_empty() {
        // A record of an older format held its log.
        unsaved
    } else {
        log.iter()
            .map(|(_, bytes)| stored::decode_entry(bytes))
            .collect::<Result<_, _>>()?
    };
    if !game.status.finished() {
        return Err(format!(
            "game {} is {}, expected a finished game",
            game.id,
            game.status.name()
        ));
    }
    let replay = Replay::of(&game, &log)
        .ok_or_else(|| format!("game {}'s log does not start with its deal", game.id))?;
    let record = ArchivedRecord {
        replay,
        result: ArchivedResult {
            status: game.status.name().to_owned(),
            score: game.score,
            elapsed_ms: game.clock.elapsed_ms,
            tiles_left: game.tiles_left,
            ranked: game.ranked(),
        },
    };
    let body = serde_json::to_vec(&record).map_err(|e| e.to_string())?;
    Ok(ArchivedGame {
        id: game.id.clone(),
        player: game.owner.clone(),
        player_name: game.player.clone(),
        leaderboard: game.leaderboard.clone(),
        match_id: game.match_id.clone(),
        status: game.status.name().to_owned(),
        rated: rated(&game),
        created_ms: game.created_at_ms,
        finished_ms: finished_ms.unwrap_or(game.updated_at_ms),
        body,
    })
}

/// Whether the game counted: a signed-in player's race of a match, or
/// their game on a leaderboard played as it ranks (no assist, not too
/// fast).
fn rated(game: &Game) -> bool {
    game.owner.is_some()
        && (game.match_id.is_some() || (game.leaderboard.is_some() && game.ranked()))
}
