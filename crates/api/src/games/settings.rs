//! The settings a game was created with, kept with it and read again to
//! play it: the rules read once, when the game is created or loaded, and
//! each action checks them from that against the server's limits.

use crate::board::{BoardEncoding, WireLayout};
use crate::error::ApiError;
use crate::limits::Limits;
use crate::mechanics::{DifficultyName, Settings};
use crate::wire::{Gravity, HeldRules, WireRules};
use serde::{Deserialize, Serialize};
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
    pub rules: Option<HeldRules>,
    pub gravity: Gravity,
    pub settle: bool,
    /// Play time allowed, in milliseconds; no limit when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limit_ms: Option<u64>,
}

impl GameSettings {
    /// How the game is played: its rules and groups, checked when it was
    /// created, checked again against the server's limits.
    pub(crate) fn read(&self, limits: &Limits) -> Result<Settings, ApiError> {
        Settings::read(
            self.encoding,
            self.rules.as_ref().map(HeldRules::wire),
            Some(self.gravity),
            Some(self.settle),
            limits,
        )
    }
}
