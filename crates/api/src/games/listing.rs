//! A player's games as `GET /v1/players/{id}/games` lists them: newest
//! first, a page at a time, filtered by status, leaderboard and time,
//! each game in short with the link to its replay.

use super::game::{Game, Status};
use super::ranking::{read_board, unknown_parameter};
use super::view::rfc3339;
use crate::error::{ApiError, ErrorCode};
use serde::Serialize;
use std::time::{Duration, UNIX_EPOCH};
use utoipa::ToSchema;

/// Games a page lists when `limit` is absent.
pub const DEFAULT_GAMES: usize = 20;

/// The most games a page lists.
pub const MAX_GAMES: usize = 100;

/// What a listing asks for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GamesQuery {
    pub limit: usize,
    /// The page's start: a game's creation time and id, from `next`.
    pub after: Option<(u64, String)>,
    pub status: Option<Status>,
    pub leaderboard: Option<String>,
    /// Games created at or after this time (ms since the Unix epoch).
    pub since_ms: Option<u64>,
    /// Games created before this time.
    pub until_ms: Option<u64>,
}

impl GamesQuery {
    /// Whether `game` is one the listing asks for.
    pub fn wants(&self, game: &Game) -> bool {
        self.status.is_none_or(|status| status == game.status)
            && (self.leaderboard.is_none() || self.leaderboard == game.leaderboard)
            && self
                .since_ms
                .is_none_or(|since| game.created_at_ms >= since)
            && self.until_ms.is_none_or(|until| game.created_at_ms < until)
    }
}

/// A page of a player's games, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerGames {
    pub games: Vec<GameSummary>,
    /// Where the next page starts: send it back as `after`. Absent on the
    /// last page. A page may hold fewer games than `limit` and still have
    /// a next: each page looks at a bounded number of games.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub next: Option<String>,
}

/// A game in short.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameSummary {
    pub id: String,
    pub status: Status,
    pub score: u64,
    /// Play time on the server's clock, paused time left out.
    pub elapsed_ms: u64,
    pub tiles_left: usize,
    pub ranked: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub leaderboard: Option<String>,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub updated_at: String,
    /// The game's replay: `GET` it to check the game.
    #[schema(example = "/v1/games/0f1e2d3c4b5a69788796a5b4c3d2e1f0/replay")]
    pub replay: String,
}

impl GameSummary {
    /// `game` at `now_ms`.
    pub fn new(game: &Game, now_ms: u64) -> GameSummary {
        GameSummary {
            id: game.id.clone(),
            status: game.status,
            score: game.score,
            elapsed_ms: game.clock.at(now_ms),
            tiles_left: game.tiles_left,
            ranked: game.ranked(),
            leaderboard: game.leaderboard.clone(),
            created_at: rfc3339(game.created_at_ms),
            updated_at: rfc3339(game.updated_at_ms),
            replay: format!("/v1/games/{}/replay", game.id),
        }
    }
}

/// A page's cursor from the last game it looked at.
pub fn games_cursor(created_ms: u64, id: &str) -> String {
    crate::cursor::encode(&format!("{created_ms}:{id}"))
}

fn read_games_cursor(cursor: &str) -> Option<(u64, String)> {
    let text = crate::cursor::decode(cursor)?;
    let (created, id) = text.split_once(':')?;
    Some((created.parse().ok()?, id.to_owned()))
}

/// A listing's query: `limit` (1 to 100), `after` (a page's `next`),
/// `status`, `leaderboard`, `since` and `until` (RFC 3339), each at most
/// once.
pub fn read_games_query(query: Option<&str>) -> Result<GamesQuery, ApiError> {
    let mut read = GamesQuery {
        limit: DEFAULT_GAMES,
        ..GamesQuery::default()
    };
    let mut seen: Vec<String> = Vec::new();
    for (name, value) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        if seen.iter().any(|s| *s == name) {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                format!(
                    "`{}` is given twice, expected it at most once",
                    crate::excerpt(&name)
                ),
            )
            .at(name.into_owned()));
        }
        let bad = |expected: &str| {
            ApiError::new(
                ErrorCode::InvalidRequest,
                format!(
                    "`{name}` is {:?}, expected {expected}",
                    crate::excerpt(&value)
                ),
            )
            .at(name.to_string())
        };
        match &*name {
            "limit" => {
                read.limit = value
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=MAX_GAMES).contains(n))
                    .ok_or_else(|| bad(&format!("a whole number from 1 to {MAX_GAMES}")))?;
            }
            "after" => {
                read.after = Some(
                    read_games_cursor(&value)
                        .ok_or_else(|| bad("the `next` of a page of this list"))?,
                );
            }
            "status" => {
                read.status = Some(
                    serde_json::from_value(serde_json::Value::String(value.to_string()))
                        .map_err(|_| bad("playing, paused, stuck, won, out_of_time or resigned"))?,
                );
            }
            "leaderboard" => {
                read.leaderboard = Some(
                    read_board(&value)
                        .map_err(|_| bad("32 lowercase hex digits"))?
                        .to_owned(),
                );
            }
            "since" | "until" => {
                let at = humantime::parse_rfc3339(&value)
                    .ok()
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .as_ref()
                    .map(Duration::as_millis)
                    .and_then(|ms| u64::try_from(ms).ok())
                    .ok_or_else(|| bad("a time in RFC 3339, such as 2026-12-05T00:00:00Z"))?;
                if name == "since" {
                    read.since_ms = Some(at);
                } else {
                    read.until_ms = Some(at);
                }
            }
            _ => {
                return Err(unknown_parameter(
                    &name,
                    "`limit`, `after`, `status`, `leaderboard`, `since` or `until`",
                ));
            }
        }
        seen.push(name.into_owned());
    }
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_read() {
        assert_eq!(
            read_games_query(None),
            Ok(GamesQuery {
                limit: 20,
                ..GamesQuery::default()
            })
        );
        let after = games_cursor(1_700_000_000_000, "ab12");
        let read = read_games_query(Some(&format!(
            "limit=5&status=won&after={after}&since=2026-12-05T00:00:00Z"
        )))
        .unwrap();
        assert_eq!(read.limit, 5);
        assert_eq!(read.status, Some(Status::Won));
        assert_eq!(read.after, Some((1_700_000_000_000, "ab12".to_owned())));
        assert_eq!(read.since_ms, Some(1_796_428_800_000));
        for bad in [
            "limit=0",
            "limit=101",
            "status=lost",
            "after=zz",
            "since=yesterday",
            "leaderboard=x",
            "limit=1&limit=2",
            "colour=red",
        ] {
            assert!(read_games_query(Some(bad)).is_err(), "{bad}");
        }
    }
}
