//! Leaderboards: which board a game is ranked on, who may enter it, the
//! entry a win makes, and a board as answered. docs/games.md says it for
//! players.
//!
//! A game the server dealt is on the board of its deal: the settings
//! that decide the tiles and how they are played (size or layout, types,
//! copies, difficulty, seed, rules, gravity, settling), so every game of
//! one deal, whoever dealt it, competes on one board. Its name is the
//! first 16 bytes of SHA-256 over those settings as compact JSON, in
//! hexadecimal. A game on a board the client sent is on none.

use super::game::{Game, Status};
use super::settings::GameSettings;
use super::view::rfc3339;
use crate::error::{ApiError, ErrorCode};
use crate::mechanics::DifficultyName;
use crate::wire::Gravity;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

/// The longest player name, in characters.
pub const PLAYER_CHARS: usize = 32;

/// Entries a leaderboard answers when `limit` is absent.
pub const DEFAULT_LIMIT: usize = 10;

/// A board's best games, best first: the least play time, then the
/// highest score, then the earliest id.
#[derive(Debug, Serialize, ToSchema)]
pub struct Leaderboard {
    /// The board's name, as games and daily deals give it.
    pub leaderboard: String,
    pub entries: Vec<LeaderboardEntry>,
}

/// A won game on a leaderboard.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct LeaderboardEntry {
    /// 1 for the best.
    #[serde(default)]
    pub rank: usize,
    pub player: String,
    /// The game's id: its replay checks the win.
    pub game: String,
    /// Play time on the server's clock, paused time left out.
    pub elapsed_ms: u64,
    pub score: u64,
    /// RFC 3339, UTC.
    pub won_at: String,
}

/// The settings that name a board, absent ones filled in, serialised in
/// this order (a struct's fields keep theirs).
#[derive(Serialize)]
struct Deal<'a> {
    width: usize,
    height: usize,
    layout: Option<&'a [String]>,
    types: u64,
    copies: u64,
    difficulty: DifficultyName,
    seed: u64,
    rules: serde_json::Value,
    gravity: Gravity,
    settle: bool,
}

/// The leaderboard a game dealt with `settings` is ranked on; none for a
/// board sent.
pub fn board_of(settings: &GameSettings) -> Option<String> {
    let deal = Deal {
        width: settings.width,
        height: settings.height,
        layout: settings.layout.as_deref(),
        types: settings.types?,
        copies: settings.copies.unwrap_or(4),
        difficulty: settings.difficulty.unwrap_or_default(),
        seed: settings.seed.unwrap_or(0),
        rules: settings
            .rules
            .as_ref()
            .map_or_else(|| "mahjong".into(), sorted),
        gravity: settings.gravity,
        settle: settings.settle,
    };
    let json = serde_json::to_vec(&deal).ok()?;
    let digest = Sha256::digest(&json);
    Some(digest[..16].iter().map(|b| format!("{b:02x}")).collect())
}

/// `value` with every object's keys in order, so that equal rules sent in
/// another order name the same board.
fn sorted(value: &serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => {
            let mut keys: Vec<_> = map.keys().collect();
            keys.sort();
            keys.into_iter()
                .map(|key| (key.clone(), sorted(&map[key])))
                .collect::<serde_json::Map<_, _>>()
                .into()
        }
        serde_json::Value::Array(items) => items.iter().map(sorted).collect(),
        other => other.clone(),
    }
}

/// A leaderboard's name as a path gives it: 32 lowercase hex digits.
pub fn read_board(name: &str) -> Result<&str, ApiError> {
    if name.len() == 32 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Ok(name);
    }
    Err(ApiError::new(
        ErrorCode::InvalidRequest,
        format!(
            "the leaderboard is {:?}, expected 32 lowercase hex digits, as a game's `leaderboard` gives it",
            crate::excerpt(name)
        ),
    )
    .at("leaderboard"))
}

/// Checks a player's name: 1 to 32 letters, digits, spaces, `-`, `_` or
/// `.`, not starting or ending with a space.
pub fn check_player(name: &str) -> Result<(), ApiError> {
    let chars = name.chars().count();
    let allowed = |c: char| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.');
    let problem = if chars == 0 || chars > PLAYER_CHARS {
        Some(format!("{chars} characters"))
    } else if let Some(c) = name.chars().find(|&c| !allowed(c)) {
        Some(format!("the character {c:?}"))
    } else if name.starts_with(' ') || name.ends_with(' ') {
        Some("a space at an end".to_owned())
    } else {
        None
    };
    match problem {
        None => Ok(()),
        Some(problem) => Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "`player` has {problem}, expected 1 to {PLAYER_CHARS} letters, digits, spaces, `-`, `_` or `.`, with no space at either end"
            ),
        )
        .at("player")),
    }
}

/// A query parameter a route does not take; `expected` lists those it
/// does.
pub(super) fn unknown_parameter(name: &str, expected: &str) -> ApiError {
    ApiError::new(
        ErrorCode::InvalidRequest,
        format!(
            "the query parameter `{}` is unknown, expected {expected}",
            crate::excerpt(name)
        ),
    )
    .at(name.to_owned())
}

/// How many entries a leaderboard request asks for: `limit` in its query,
/// 1 to `most`.
pub fn read_limit(query: Option<&str>, most: usize) -> Result<usize, ApiError> {
    let mut limit = None;
    for (name, value) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        if name != "limit" {
            return Err(unknown_parameter(&name, "only `limit`"));
        }
        let read = value
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=most).contains(n));
        match (read, limit) {
            (Some(n), None) => limit = Some(n),
            _ => {
                return Err(ApiError::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "`limit` is {:?}, expected one whole number from 1 to {most}",
                        crate::excerpt(&value)
                    ),
                )
                .at("limit"));
            }
        }
    }
    Ok(limit.unwrap_or(DEFAULT_LIMIT.min(most)))
}

/// What a win enters on a leaderboard: the board, the entry's rank (the
/// store lists ranks in byte order) and the entry.
pub struct Earned {
    pub board: String,
    pub rank: String,
    pub body: Vec<u8>,
}

impl Game {
    /// The entry this game earns, if it is won, ranked (no assists), on a
    /// board and played under a player's name.
    pub fn earned(&self) -> Option<Earned> {
        if self.status != Status::Won || !self.ranked() {
            return None;
        }
        let board = self.leaderboard.clone()?;
        let player = self.player.clone()?;
        let elapsed_ms = self.clock.elapsed_ms;
        // Least time first, then most score, then the id: fixed widths, so
        // byte order is that order.
        let rank = format!("{elapsed_ms:020}{:020}{}", u64::MAX - self.score, self.id);
        let entry = LeaderboardEntry {
            rank: 0,
            player,
            game: self.id.clone(),
            elapsed_ms,
            score: self.score,
            won_at: rfc3339(self.updated_at_ms),
        };
        let body = serde_json::to_vec(&entry).ok()?;
        Some(Earned { board, rank, body })
    }
}

/// A board's entries as the store lists them, best first, answered.
pub fn leaderboard(name: &str, stored: &[Vec<u8>]) -> Result<Leaderboard, ApiError> {
    let entries = stored
        .iter()
        .enumerate()
        .map(|(i, body)| {
            let mut entry: LeaderboardEntry = serde_json::from_slice(body).map_err(|e| {
                ApiError::new(
                    ErrorCode::StoreUnavailable,
                    format!("an entry of this leaderboard does not read: {e}"),
                )
            })?;
            entry.rank = i + 1;
            Ok(entry)
        })
        .collect::<Result<_, ApiError>>()?;
    Ok(Leaderboard {
        leaderboard: name.to_owned(),
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_are_checked() {
        for good in ["Ann", "li ming", "Zoë_2", "a.b-c", &"x".repeat(32), "東風"] {
            assert_eq!(check_player(good), Ok(()), "{good}");
        }
        let message = |name: &str| check_player(name).unwrap_err().message;
        assert!(message("").starts_with("`player` has 0 characters"));
        assert!(message(&"x".repeat(33)).starts_with("`player` has 33 characters"));
        assert!(message("a<b").starts_with("`player` has the character '<'"));
        assert!(message(" ann").starts_with("`player` has a space at an end"));
        assert!(message("a\nb").starts_with("`player` has the character '\\n'"));
    }

    #[test]
    fn limits_are_read() {
        assert_eq!(read_limit(None, 100), Ok(10));
        assert_eq!(read_limit(Some(""), 5), Ok(5));
        assert_eq!(read_limit(Some("limit=3"), 100), Ok(3));
        for bad in [
            "limit=0",
            "limit=101",
            "limit=x",
            "limit=1&limit=2",
            "top=3",
        ] {
            assert!(read_limit(Some(bad), 100).is_err(), "{bad}");
        }
    }

    #[test]
    fn board_names_are_read() {
        assert!(read_board("0123456789abcdef0123456789abcdef").is_ok());
        for bad in [
            "",
            "0123456789ABCDEF0123456789ABCDEF",
            "xyz",
            &"a".repeat(33),
        ] {
            assert!(read_board(bad).is_err(), "{bad}");
        }
    }
}
