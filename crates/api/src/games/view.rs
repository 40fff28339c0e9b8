//! A game as it is answered, and the settings it was created with.

use super::game::{Assists, Game, Last, Status};
use crate::board::{BoardEncoding, BoardRows, WireLayout};
use crate::decode::decode;
use crate::error::ApiError;
use crate::game::{DifficultyName, Settings};
use crate::limits::Limits;
use crate::wire::{Gravity, WireRules};
use serde::{Deserialize, Serialize};
use std::time::{Duration, UNIX_EPOCH};
use utoipa::ToSchema;

/// The settings a game was created with, as they were sent (absent ones
/// left out), with the board's size and form. In a replay sent back,
/// `null` is the same as absent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GameSettings {
    pub width: usize,
    pub height: usize,
    pub encoding: BoardEncoding,
    /// The shape dealt onto, marked cells `#`; absent for a game dealt on
    /// `width` and `height` or on a board sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<WireLayout>)]
    pub layout: Option<Vec<String>>,
    /// Tile types dealt; absent for a game on a board sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub types: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copies: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<DifficultyName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alphabet: Option<String>,
    /// The rules as sent; mahjong when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<WireRules>)]
    pub rules: Option<serde_json::Value>,
    pub gravity: Gravity,
    pub settle: bool,
    /// Play time allowed, in milliseconds; no limit when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limit_ms: Option<u64>,
}

/// `rules` alone, read as every route reads it.
#[derive(Deserialize)]
struct RulesOnly {
    #[serde(default)]
    rules: Option<WireRules>,
}

impl GameSettings {
    /// How the game is played: its rules and groups read again as when it
    /// was created (they were checked then).
    pub(crate) fn read(&self, limits: &Limits) -> Result<Settings, ApiError> {
        let rules = match &self.rules {
            Some(rules) => {
                let body = serde_json::json!({ "rules": rules }).to_string();
                decode::<RulesOnly>(body.as_bytes(), limits)?.rules
            }
            None => None,
        };
        Settings::read(
            self.encoding,
            rules,
            Some(self.gravity),
            Some(self.settle),
            limits,
        )
    }
}

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
    /// False once any assist was used.
    pub ranked: bool,
    /// The name a win is entered under on the leaderboard; absent, a win
    /// is not entered.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub player: Option<String>,
    /// The leaderboard of the game's deal (`GET /v1/leaderboards/{name}`);
    /// absent for a game on a board sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub leaderboard: Option<String>,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub updated_at: String,
    /// When the game is purged if nothing changes it first.
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
            player: game.player.clone(),
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
