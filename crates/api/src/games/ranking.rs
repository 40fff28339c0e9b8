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
use super::query::unknown_parameter;
use super::settings::GameSettings;
use super::view::rfc3339;
use crate::error::{ApiError, ErrorCode};
use crate::mechanics::DifficultyName;
use crate::wire::{Gravity, HeldRules};
use serde::{Deserialize, Serialize, Serializer};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

/// Entries a leaderboard answers when `limit` is absent.
pub const DEFAULT_LIMIT: usize = 10;

/// A board's best players, best first: each player's best game, by the
/// least play time, then the highest score, then the earliest id.
#[derive(Debug, Serialize, ToSchema)]
pub struct Leaderboard {
    /// The board's name, as games and daily deals give it.
    pub leaderboard: String,
    pub entries: Vec<LeaderboardEntry>,
    /// Where the next page starts: send it back as `after`. Absent on the
    /// last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub next: Option<String>,
}

/// A player's best won game on a leaderboard.
#[derive(Debug, Serialize, ToSchema)]
pub struct LeaderboardEntry {
    /// 1 for the best.
    pub rank: u64,
    /// The player's name now.
    pub player: String,
    /// The player's id (`GET /v1/players/{id}/games`).
    pub player_id: String,
    /// The game's id: its replay checks the win.
    pub game: String,
    /// Play time on the server's clock, paused time left out.
    pub elapsed_ms: u64,
    pub score: u64,
    /// RFC 3339, UTC.
    #[schema(format = DateTime)]
    pub won_at: String,
}

/// An entry as the store keeps it: the player's name is read when the
/// board is, so that a new name shows, and an erased player's entries
/// are gone with it.
#[derive(Debug, Serialize, Deserialize)]
struct Kept {
    game: String,
    elapsed_ms: u64,
    score: u64,
    won_at_ms: u64,
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
    #[serde(serialize_with = "sorted_rules")]
    rules: Option<&'a HeldRules>,
    gravity: Gravity,
    settle: bool,
}

/// The rules as sent, an object's fields in the order of their names, so
/// that equal rules sent in another order name the same board; mahjong
/// when absent.
fn sorted_rules<S: Serializer>(
    rules: &Option<&HeldRules>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match rules {
        Some(rules) => rules.sorted().serialize(serializer),
        None => serializer.serialize_str("mahjong"),
    }
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
        rules: settings.rules.as_ref(),
        gravity: settings.gravity,
        settle: settings.settle,
    };
    let json = serde_json::to_vec(&deal).ok()?;
    let digest = Sha256::digest(&json);
    Some(digest[..16].iter().map(|b| format!("{b:02x}")).collect())
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

/// What a leaderboard request asks for: how many entries, and from
/// where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardQuery {
    pub limit: usize,
    pub from: BoardFrom,
}

/// Where a page of a leaderboard starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardFrom {
    /// The best entry.
    Top,
    /// The entry after the rank a cursor names (`after`).
    After(String),
    /// Around the signed-in player's entry (`around=me`): the page holds
    /// it in its middle, or starts at the top if the player has none.
    Me,
}

/// A leaderboard request's query: `limit` (1 to `most`), and at most one
/// of `after` (a page's `next`) and `around=me`.
pub fn read_board_query(query: Option<&str>, most: usize) -> Result<BoardQuery, ApiError> {
    let mut limit = None;
    let mut from = None;
    for (name, value) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        let read = match &*name {
            "limit" => {
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
                continue;
            }
            "after" => BoardFrom::After(read_cursor(&value)?),
            "around" if value == "me" => BoardFrom::Me,
            "around" => {
                return Err(ApiError::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "`around` is {:?}, expected `me` (with a player's token)",
                        crate::excerpt(&value)
                    ),
                )
                .at("around"));
            }
            _ => return Err(unknown_parameter(&name, "`limit`, `after` or `around`")),
        };
        if from.replace(read).is_some() {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                "`after` and `around` are given together or twice, expected at most one of them",
            )
            .at(name.into_owned()));
        }
    }
    Ok(BoardQuery {
        limit: limit.unwrap_or(DEFAULT_LIMIT.min(most)),
        from: from.unwrap_or(BoardFrom::Top),
    })
}

/// What a win enters on a leaderboard: the board, the player, the
/// entry's rank (the store lists ranks in byte order) and the entry.
pub struct Earned {
    pub board: String,
    pub player: String,
    pub rank: String,
    pub body: Vec<u8>,
}

impl Game {
    /// The entry this game earns, if it is won, ranked (no assists), on a
    /// board and played by a signed-in player.
    pub fn earned(&self) -> Option<Earned> {
        if self.status != Status::Won || !self.ranked() {
            return None;
        }
        let board = self.leaderboard.clone()?;
        let player = self.owner.clone()?;
        let elapsed_ms = self.clock.elapsed_ms;
        // Least time first, then most score, then the id: fixed widths, so
        // byte order is that order.
        let rank = format!("{elapsed_ms:020}{:020}{}", u64::MAX - self.score, self.id);
        let kept = Kept {
            game: self.id.clone(),
            elapsed_ms,
            score: self.score,
            won_at_ms: self.updated_at_ms,
        };
        let body = serde_json::to_vec(&kept).ok()?;
        Some(Earned {
            board,
            player,
            rank,
            body,
        })
    }
}

/// One entry of a board as the store lists it: its place (0 for the
/// best), its rank, its player's id and the bytes [`Game::earned`] made.
pub struct Listed<'a> {
    pub place: u64,
    pub rank: &'a str,
    pub player: &'a str,
    pub body: &'a [u8],
}

/// A page of the board `name` answered: `listed` in order, each with its
/// player's name now from `name_of` (an entry whose player is gone, erased
/// while the page was read, is left out); `more` if entries follow.
pub fn leaderboard<'a>(
    name: &str,
    listed: impl IntoIterator<Item = Listed<'a>>,
    name_of: impl Fn(&str) -> Option<String>,
    more: bool,
) -> Result<Leaderboard, ApiError> {
    let mut entries = Vec::new();
    let mut last_rank = None;
    for entry in listed {
        last_rank = Some(entry.rank.to_owned());
        let Some(player) = name_of(entry.player) else {
            continue;
        };
        let kept: Kept = serde_json::from_slice(entry.body).map_err(|e| {
            ApiError::new(
                ErrorCode::StoreUnavailable,
                format!("an entry of this leaderboard does not read: {e}"),
            )
        })?;
        entries.push(LeaderboardEntry {
            rank: entry.place + 1,
            player,
            player_id: entry.player.to_owned(),
            game: kept.game,
            elapsed_ms: kept.elapsed_ms,
            score: kept.score,
            won_at: rfc3339(kept.won_at_ms),
        });
    }
    Ok(Leaderboard {
        leaderboard: name.to_owned(),
        entries,
        next: last_rank
            .filter(|_| more)
            .map(|rank| crate::cursor::encode(&rank)),
    })
}

/// The rank a cursor names back; what is not a cursor says so.
pub fn read_cursor(cursor: &str) -> Result<String, ApiError> {
    let bad = || {
        ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "`after` is {:?}, expected the `next` of a page of this leaderboard",
                crate::excerpt(cursor)
            ),
        )
        .at("after")
    };
    crate::cursor::decode(cursor).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_read() {
        let read = |query: &str, most| read_board_query(Some(query), most);
        let page = |limit, from| Ok(BoardQuery { limit, from });
        assert_eq!(read_board_query(None, 100), page(10, BoardFrom::Top));
        assert_eq!(read("", 5), page(5, BoardFrom::Top));
        assert_eq!(read("limit=3", 100), page(3, BoardFrom::Top));
        assert_eq!(read("around=me&limit=3", 100), page(3, BoardFrom::Me));
        let after = crate::cursor::encode("00000000000000001234x");
        assert_eq!(
            read(&format!("after={after}"), 100),
            page(10, BoardFrom::After("00000000000000001234x".into()))
        );
        for bad in [
            "limit=0",
            "limit=101",
            "limit=x",
            "limit=1&limit=2",
            "top=3",
            "around=you",
            "around=me&around=me",
            "after=0",
            "after=zz",
            "around=me&after=00",
        ] {
            assert!(read(bad, 100).is_err(), "{bad}");
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
