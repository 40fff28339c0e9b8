//! A game as it is answered.

use super::game::{Assists, Game, Last, Status, Unranked};
use super::settings::GameSettings;
use crate::board::BoardRows;
use serde::Serialize;
use std::time::{Duration, UNIX_EPOCH};
use utoipa::ToSchema;

/// A game as answered. While it is paused its board is left out, as a
/// paused game hides it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct GameView {
    /// Opaque and URL-safe.
    pub id: String,
    /// Changes applied, from 0; the `ETag` of every answer.
    pub version: u64,
    pub status: Status,
    /// Absent while the game is paused.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::board::WireBoard>, nullable = false)]
    pub board: Option<BoardRows>,
    pub settings: GameSettings,
    pub tiles_left: usize,
    /// Moves open on the board, as `/v1/moves` counts them.
    pub moves_open: usize,
    /// By the one scoring rule (docs/games.md), as of the last change:
    /// its tiles removed and its play time then.
    pub score: u64,
    /// Play time on the server's clock, paused time left out.
    pub elapsed_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub time_limit_ms: Option<u64>,
    pub assists: Assists,
    /// False once any assist was used, or once a win's moves came faster
    /// than a person plays; `unranked` says which.
    pub ranked: bool,
    /// Why the game is not ranked; absent while it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub unranked: Option<Unranked>,
    /// The name the game was created with, shown with it; it enters no
    /// leaderboard (`owner` does).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub player: Option<String>,
    /// The id of the player whose game it is: only they act on it, and
    /// their win is entered on its leaderboard. Absent for a game created
    /// without a player's token, which anyone with its id may play.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub owner: Option<String>,
    /// The match the game is a seat's race in (`GET /v1/matches/{id}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub match_id: Option<String>,
    /// The leaderboard of the game's deal (`GET /v1/leaderboards/{name}`);
    /// absent for a game on a board sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub leaderboard: Option<String>,
    /// RFC 3339, UTC.
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// When the game is purged if nothing changes it first.
    #[schema(format = DateTime)]
    pub expires_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub last: Option<Last>,
}

impl GameView {
    /// `game` at `now_ms`, expiring at `expires_at_ms`.
    pub fn new(game: &Game, now_ms: u64, expires_at_ms: u64) -> GameView {
        let board = (game.status != Status::Paused)
            .then(|| BoardRows::new(&game.board(), game.settings.encoding));
        GameView {
            id: game.id.clone(),
            version: game.version,
            status: game.status,
            board,
            settings: game.settings.clone(),
            tiles_left: game.tiles_left,
            moves_open: game.moves_open,
            score: game.score,
            elapsed_ms: game.clock.at(now_ms),
            time_limit_ms: game.settings.time_limit_ms,
            assists: game.assists,
            ranked: game.ranked(),
            unranked: game.unranked(),
            player: game.player.clone(),
            owner: game.owner.clone(),
            match_id: game.match_id.clone(),
            leaderboard: game.leaderboard.clone(),
            created_at: rfc3339(game.created_at_ms),
            updated_at: rfc3339(game.updated_at_ms),
            expires_at: rfc3339(expires_at_ms),
            last: game.last.clone(),
        }
    }
}

/// Milliseconds since the Unix epoch as RFC 3339 in UTC, to the
/// millisecond.
pub fn rfc3339(ms: u64) -> String {
    humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_millis(ms)).to_string()
}
