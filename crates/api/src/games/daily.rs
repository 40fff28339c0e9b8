//! `GET /v1/daily/{date}`: the deal everyone gets on a day, for the
//! settings asked in the query. Its seed is derived from the date and the
//! settings, so every replica and every client computes the same one;
//! a game created with the answer's `game` is on the answer's
//! leaderboard, as every game of that deal is.
//!
//! The seed is the first 53 bits, big-endian, of SHA-256 over the text
//! `linkpath daily DATE width=W height=H types=T copies=C difficulty=D
//! rules=R gravity=G settle=S`, every setting filled in (docs/games.md):
//! 53 bits, so that a JavaScript number holds it exactly.

use super::create::read;
use super::query::{name_of, named, unknown_parameter};
use super::ranking::board_of;
use crate::board::{BoardEncoding, BoardRows};
use crate::error::{ApiError, ErrorCode};
use crate::limits::Limits;
use crate::mechanics::DifficultyName;
use crate::wire::{Gravity, PresetName};
use linkpath_engine::Stop;
use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

/// The day's deal.
#[derive(Debug, Serialize, ToSchema)]
pub struct DailyDeal {
    /// The day, `YYYY-MM-DD`.
    pub date: String,
    /// The body of `POST /v1/games` that deals this game: add `player` to
    /// be ranked, and `time_limit_ms` if wanted.
    pub game: DailyGame,
    /// The leaderboard its games are ranked on.
    pub leaderboard: String,
    #[schema(value_type = crate::board::WireBoard)]
    pub board: BoardRows,
}

/// The settings of a day's deal, every one filled in, with its seed.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DailyGame {
    /// 14 when not asked.
    pub width: u64,
    /// 6 when not asked.
    pub height: u64,
    /// 21 when not asked.
    pub types: u64,
    /// 4 when not asked.
    pub copies: u64,
    /// `medium` when not asked.
    pub difficulty: DifficultyName,
    /// `shisen-sho` when not asked.
    pub rules: PresetName,
    /// `none` when not asked.
    pub gravity: Gravity,
    /// False when not asked.
    pub settle: bool,
    /// Derived from the date and the other settings.
    pub seed: u64,
}

/// The day's deal on `date` (`YYYY-MM-DD`) with the settings `query` asks.
pub fn daily(
    date: &str,
    query: Option<&str>,
    limits: &Limits,
    stop: &Stop,
) -> Result<DailyDeal, ApiError> {
    check_date(date)?;
    let mut game = settings(query)?;
    game.seed = seed(date, &game);
    let body = serde_json::to_vec(&game)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("the day's settings: {e}")))?;
    let (_, board, settings) = read(&body, limits, stop)?;
    let leaderboard = board_of(&settings)
        .ok_or_else(|| ApiError::new(ErrorCode::Internal, "a dealt game is on no leaderboard"))?;
    Ok(DailyDeal {
        date: date.to_owned(),
        game,
        leaderboard,
        board: BoardRows::new(&board, BoardEncoding::Text),
    })
}

/// The seed of the deal on `date` with `game`'s settings.
fn seed(date: &str, game: &DailyGame) -> u64 {
    let text = format!(
        "linkpath daily {date} width={} height={} types={} copies={} difficulty={} rules={} gravity={} settle={}",
        game.width,
        game.height,
        game.types,
        game.copies,
        name_of(&game.difficulty),
        name_of(&game.rules),
        name_of(&game.gravity),
        game.settle,
    );
    let digest = Sha256::digest(text.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first) >> 11
}

/// The settings the query asks, the others filled in; the seed is left 0.
fn settings(query: Option<&str>) -> Result<DailyGame, ApiError> {
    let mut game = DailyGame {
        width: 14,
        height: 6,
        types: 21,
        copies: 4,
        difficulty: DifficultyName::Medium,
        rules: PresetName::ShisenSho,
        gravity: Gravity::None,
        settle: false,
        seed: 0,
    };
    let mut seen: Vec<String> = Vec::new();
    for (param, value) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        let wrong = |expected: &str| {
            ApiError::new(
                ErrorCode::InvalidRequest,
                format!(
                    "`{param}` is {:?}, expected {expected}",
                    crate::excerpt(&value)
                ),
            )
            .at(param.to_string())
        };
        if seen.iter().any(|s| *s == param) {
            return Err(wrong("it once"));
        }
        let whole = || {
            value
                .parse::<u64>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| wrong("a whole number from 1"))
        };
        match &*param {
            "width" => game.width = whole()?,
            "height" => game.height = whole()?,
            "types" => game.types = whole()?,
            "copies" => game.copies = whole()?,
            "difficulty" => {
                game.difficulty =
                    named(&value).ok_or_else(|| wrong("`easy`, `medium` or `hard`"))?;
            }
            "gravity" => {
                game.gravity = named(&value)
                    .ok_or_else(|| wrong("`none`, `down`, `up`, `left` or `right`"))?;
            }
            "settle" => {
                game.settle = match &*value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(wrong("`true` or `false`")),
                };
            }
            "rules" => {
                game.rules = named(&value)
                    .ok_or_else(|| wrong("`mahjong`, `shisen-sho` or `lianliankan`"))?;
            }
            _ => {
                return Err(unknown_parameter(
                    &param,
                    "`width`, `height`, `types`, `copies`, `difficulty`, `rules`, `gravity` or `settle`",
                ));
            }
        }
        seen.push(param.into_owned());
    }
    Ok(game)
}

/// A day as `YYYY-MM-DD`, from 1970 to 9999, that the calendar has.
fn check_date(date: &str) -> Result<(), ApiError> {
    let parts: Vec<&str> = date.split('-').collect();
    let number = |part: &str, digits: usize| {
        (part.len() == digits && part.bytes().all(|b| b.is_ascii_digit()))
            .then(|| part.parse::<u32>().ok())
            .flatten()
    };
    let day = match parts.as_slice() {
        [y, m, d] => number(y, 4).zip(number(m, 2)).zip(number(d, 2)),
        _ => None,
    };
    let real = day.is_some_and(|((year, month), day)| {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
        let days = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => 0,
        };
        year >= 1970 && (1..=days).contains(&day)
    });
    if real {
        return Ok(());
    }
    Err(ApiError::new(
        ErrorCode::InvalidRequest,
        format!(
            "the date is {:?}, expected a day as YYYY-MM-DD, from 1970-01-01 to 9999-12-31",
            crate::excerpt(date)
        ),
    )
    .at("date"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_checked() {
        for good in ["2026-12-02", "2024-02-29", "1970-01-01", "9999-12-31"] {
            assert_eq!(check_date(good), Ok(()), "{good}");
        }
        for bad in [
            "2026-02-29",
            "2026-13-01",
            "2026-1-01",
            "1969-12-31",
            "26-12-02",
            "2026-12-02x",
            "",
        ] {
            assert!(check_date(bad).is_err(), "{bad}");
        }
    }

    // The derivation as docs/games.md writes it, computed apart.
    #[test]
    fn the_seed_is_the_documented_one() {
        let game = settings(None).unwrap();
        let text = "linkpath daily 2026-12-02 width=14 height=6 types=21 copies=4 difficulty=medium rules=shisen-sho gravity=none settle=false";
        let digest = Sha256::digest(text.as_bytes());
        let expected = u64::from_be_bytes(digest[..8].try_into().unwrap()) >> 11;
        assert_eq!(seed("2026-12-02", &game), expected);
        assert_ne!(seed("2026-12-03", &game), expected);
    }

    #[test]
    fn settings_are_read() {
        let game = settings(Some(
            "width=8&height=4&types=8&difficulty=easy&rules=mahjong&gravity=down&settle=true",
        ))
        .unwrap();
        assert_eq!(
            (game.width, game.height, game.types, game.copies),
            (8, 4, 8, 4)
        );
        assert_eq!(game.difficulty, DifficultyName::Easy);
        assert_eq!(
            (game.rules, game.gravity, game.settle),
            (PresetName::Mahjong, Gravity::Down, true)
        );
        for bad in [
            "width=0",
            "width=x",
            "width=2&width=3",
            "difficulty=brutal",
            "settle=yes",
            "seed=4",
            "gravity=sideways",
        ] {
            let err = settings(Some(bad)).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidRequest, "{bad}");
        }
    }
}
