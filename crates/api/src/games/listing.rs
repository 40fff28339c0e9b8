//! A player's games as `GET /v1/players/{id}/games` lists them: newest
//! created first, a page at a time, filtered by status, leaderboard and
//! time, each game in short with the link to its replay; the live store's
//! games and the archive's merged into one list ([`merge`]).

use super::game::{Game, Status};
use super::query::{named, read_params, unknown_parameter};
use super::ranking::read_board;
use super::view::rfc3339;
use crate::error::ApiError;
use linkpath_archive::ArchivedGame;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
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
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
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

impl GameSummary {
    /// The archived game `game` in short; the error says what in its
    /// record does not read back.
    pub fn archived(game: &ArchivedGame) -> Result<GameSummary, String> {
        /// The part of an archived record a summary shows.
        #[derive(Deserialize)]
        struct Record {
            result: Outcome,
        }
        #[derive(Deserialize)]
        struct Outcome {
            status: Status,
            score: u64,
            elapsed_ms: u64,
            tiles_left: usize,
            // Absent from the records archived before it was kept: then
            // what the archive calls rated, which a leaderboard's game is
            // exactly when it ranks.
            ranked: Option<bool>,
        }
        let record: Record = serde_json::from_slice(&game.body)
            .map_err(|e| format!("its archived record does not read: {e}"))?;
        let result = record.result;
        Ok(GameSummary {
            id: game.id.clone(),
            status: result.status,
            score: result.score,
            elapsed_ms: result.elapsed_ms,
            tiles_left: result.tiles_left,
            ranked: result.ranked.unwrap_or(game.rated),
            leaderboard: game.leaderboard.clone(),
            created_at: rfc3339(game.created_ms),
            updated_at: rfc3339(game.finished_ms),
            replay: format!("/v1/games/{}/replay", game.id),
        })
    }
}

/// A game's place in a player's list: when it was created, and its id;
/// the list is newest first, by this pair.
pub type Place = (u64, String);

/// Games read from one source, the live store or the archive, for a page
/// of the list: each with its place, newest first, and how far the source
/// was read.
#[derive(Debug, Default)]
pub struct SourcePage {
    pub games: Vec<(Place, GameSummary)>,
    /// Every game of the source from the page's start down to this place
    /// (itself included) is in `games` or was looked at and left out;
    /// none: the source was read to its end.
    pub read_to: Option<Place>,
}

/// One page of `limit` games from the pages the live store and the
/// archive gave for the same query and cursor: the games of both, newest
/// first, a game held by both (finished, archived, not yet expired) once,
/// as the live store has it. Games past the place either source was read
/// to are left for the next page, which starts there.
pub fn merge(live: SourcePage, archived: SourcePage, limit: usize) -> PlayerGames {
    // Below the higher of the two places, one source was not read.
    let read_to = live.read_to.max(archived.read_to);
    let held: HashSet<String> = live.games.iter().map(|(_, g)| g.id.clone()).collect();
    let mut games: Vec<(Place, GameSummary)> = live
        .games
        .into_iter()
        .chain(
            archived
                .games
                .into_iter()
                .filter(|(_, game)| !held.contains(&game.id)),
        )
        .filter(|(place, _)| read_to.as_ref().is_none_or(|to| place >= to))
        .collect();
    games.sort_by(|a, b| b.0.cmp(&a.0));
    let next = if games.len() > limit {
        games.truncate(limit);
        games.last().map(|(place, _)| place.clone())
    } else {
        read_to
    };
    PlayerGames {
        games: games.into_iter().map(|(_, game)| game).collect(),
        next: next.map(|(created_ms, id)| games_cursor(created_ms, &id)),
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
    read_params(query, |name, value, bad| {
        match name {
            "limit" => {
                read.limit = value
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=MAX_GAMES).contains(n))
                    .ok_or_else(|| bad(&format!("a whole number from 1 to {MAX_GAMES}")))?;
            }
            "after" => {
                read.after = Some(
                    read_games_cursor(value)
                        .ok_or_else(|| bad("the `next` of a page of this list"))?,
                );
            }
            "status" => {
                read.status = Some(named(value).ok_or_else(|| {
                    bad("playing, paused, stuck, won, out_of_time, resigned or race_over")
                })?);
            }
            "leaderboard" => {
                read.leaderboard = Some(
                    read_board(value)
                        .map_err(|_| bad("32 lowercase hex digits"))?
                        .to_owned(),
                );
            }
            "since" | "until" => {
                let at = read_time(value).ok_or_else(|| {
                    bad("a time in RFC 3339, such as 2026-12-05T00:00:00Z or 2026-12-05T01:00:00+01:00")
                })?;
                if name == "since" {
                    read.since_ms = Some(at);
                } else {
                    read.until_ms = Some(at);
                }
            }
            _ => {
                return Err(unknown_parameter(
                    name,
                    "`limit`, `after`, `status`, `leaderboard`, `since` or `until`",
                ));
            }
        }
        Ok(())
    })?;
    Ok(read)
}

/// An RFC 3339 date-time (`format: date-time`), with any offset (`Z`,
/// `+01:00`, `-05:30`), as milliseconds since 1970; a time before 1970 is
/// 0, before every game.
pub(super) fn read_time(text: &str) -> Option<u64> {
    if !text.is_ascii() {
        return None;
    }
    let (local, offset_minutes) = split_offset(text)?;
    let ms = read_local_time(local)? - offset_minutes * 60_000;
    Some(u64::try_from(ms).unwrap_or(0))
}

/// The local time of an RFC 3339 date-time and its offset from UTC, in
/// minutes east.
fn split_offset(text: &str) -> Option<(&str, i64)> {
    if let Some(local) = text.strip_suffix(['Z', 'z']) {
        return Some((local, 0));
    }
    let (local, offset) = text.split_at(text.len().checked_sub(6)?);
    let o = offset.as_bytes();
    let sign = match o[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let (hours, minutes) = (number(&o[1..3])?, number(&o[4..6])?);
    (o[3] == b':' && hours <= 23 && minutes <= 59).then_some((local, sign * (hours * 60 + minutes)))
}

/// `YYYY-MM-DDTHH:MM:SS[.fraction]` as milliseconds since 1970 (negative
/// before), fractions of a millisecond cut; a leap second reads as the
/// second before it.
fn read_local_time(local: &str) -> Option<i64> {
    let (whole, fraction) = match local.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (local, None),
    };
    let w = whole.as_bytes();
    if w.len() != 19
        || [w[4], w[7], w[13], w[16]] != [b'-', b'-', b':', b':']
        || !matches!(w[10], b'T' | b't')
    {
        return None;
    }
    let [year, month, day, hour, minute, second] =
        [0..4, 5..7, 8..10, 11..13, 14..16, 17..19].map(|at| number(&w[at]));
    let (year, month, day) = (year?, month?, day?);
    let (hour, minute, second) = (hour?, minute?, second?);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if !(1..=days_in_month).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let millis = match fraction {
        None => 0,
        Some(digits) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            let first: Vec<u8> = digits
                .bytes()
                .chain(std::iter::repeat(b'0'))
                .take(3)
                .collect();
            number(&first)?
        }
        Some(_) => return None,
    };
    let seconds =
        days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second.min(59);
    Some(seconds * 1_000 + millis)
}

/// A run of ASCII digits as a number.
fn number(digits: &[u8]) -> Option<i64> {
    digits.iter().try_fold(0, |n, &b| {
        b.is_ascii_digit().then(|| n * 10 + i64::from(b - b'0'))
    })
}

/// Days from 1970-01-01 to a day of the proleptic Gregorian calendar
/// (Howard Hinnant's `days_from_civil`), negative before it.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game created at `created_ms`, its id `id`, as a source lists it.
    fn listed(created_ms: u64, id: &str, status: Status) -> (Place, GameSummary) {
        let summary = GameSummary {
            id: id.to_owned(),
            status,
            score: 0,
            elapsed_ms: 0,
            tiles_left: 0,
            ranked: true,
            leaderboard: None,
            created_at: rfc3339(created_ms),
            updated_at: rfc3339(created_ms),
            replay: format!("/v1/games/{id}/replay"),
        };
        ((created_ms, id.to_owned()), summary)
    }

    fn shown(page: &PlayerGames) -> Vec<(&str, Status)> {
        page.games
            .iter()
            .map(|g| (g.id.as_str(), g.status))
            .collect()
    }

    #[test]
    fn two_sources_merge_newest_first_each_game_once() {
        let live = SourcePage {
            games: vec![
                listed(9, "a", Status::Playing),
                listed(7, "c", Status::Won),
                listed(4, "f", Status::Paused),
            ],
            read_to: None,
        };
        // "c" finished and was archived, and is still held: shown once, as
        // held.
        let archived = SourcePage {
            games: vec![
                listed(8, "b", Status::Resigned),
                listed(7, "c", Status::Resigned),
                listed(5, "e", Status::Won),
            ],
            read_to: None,
        };
        let page = merge(live, archived, 10);
        assert_eq!(
            shown(&page),
            [
                ("a", Status::Playing),
                ("b", Status::Resigned),
                ("c", Status::Won),
                ("e", Status::Won),
                ("f", Status::Paused)
            ]
        );
        assert_eq!(page.next, None);
    }

    #[test]
    fn a_full_page_goes_on_from_its_last_game() {
        let live = SourcePage {
            games: vec![listed(9, "a", Status::Playing), listed(6, "d", Status::Won)],
            read_to: None,
        };
        let archived = SourcePage {
            games: vec![listed(8, "b", Status::Won), listed(7, "c", Status::Won)],
            read_to: Some((7, "c".to_owned())),
        };
        let page = merge(live, archived, 2);
        assert_eq!(shown(&page), [("a", Status::Playing), ("b", Status::Won)]);
        assert_eq!(page.next, Some(games_cursor(8, "b")));
    }

    #[test]
    fn games_past_where_a_source_stopped_wait_for_the_next_page() {
        // The live store was read down to 7 (a bounded scan); the archive
        // to its end. The archive's game at 3 may have live games above
        // it not read yet: it waits, and the next page starts at 7.
        let live = SourcePage {
            games: vec![listed(9, "a", Status::Playing)],
            read_to: Some((7, "x".to_owned())),
        };
        let archived = SourcePage {
            games: vec![listed(8, "b", Status::Won), listed(3, "g", Status::Won)],
            read_to: None,
        };
        let page = merge(live, archived, 5);
        assert_eq!(shown(&page), [("a", Status::Playing), ("b", Status::Won)]);
        assert_eq!(page.next, Some(games_cursor(7, "x")));
        // Ties in time go by id, as both sources order them.
        let live = SourcePage {
            games: vec![listed(5, "b", Status::Won)],
            read_to: None,
        };
        let archived = SourcePage {
            games: vec![listed(5, "c", Status::Won), listed(5, "a", Status::Won)],
            read_to: None,
        };
        let page = merge(live, archived, 5);
        assert_eq!(
            shown(&page),
            [("c", Status::Won), ("b", Status::Won), ("a", Status::Won)]
        );
    }

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

    #[test]
    fn times_are_rfc_3339_with_any_offset() {
        let at = Some(1_796_428_800_000);
        for same in [
            "2026-12-05T00:00:00Z",
            "2026-12-05t00:00:00z",
            "2026-12-05T00:00:00+00:00",
            "2026-12-05T00:00:00-00:00",
            "2026-12-05T01:30:00+01:30",
            "2026-12-04T19:00:00-05:00",
            "2026-12-05T00:00:00.0000Z",
        ] {
            assert_eq!(read_time(same), at, "{same}");
        }
        assert_eq!(read_time("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            read_time("2026-12-05T00:00:00.1239Z"),
            Some(1_796_428_800_123)
        );
        assert_eq!(read_time("2024-02-29T23:59:60Z"), Some(1_709_251_199_000));
        // Before 1970: before every game.
        assert_eq!(read_time("0001-01-01T00:00:00Z"), Some(0));
        assert_eq!(read_time("1970-01-01T00:30:00+01:00"), Some(0));
        for bad in [
            "",
            "2026-12-05",
            "2026-12-05T00:00:00",
            "2026-12-05 00:00:00Z",
            "2026-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-12-05T24:00:00Z",
            "2026-12-05T00:00:00.Z",
            "2026-12-05T00:00:00+24:00",
            "2026-12-05T00:00:00+0100",
            "2026-12-05T00:00:00é+0:00",
            "+2026-12-5T00:00:00Z",
        ] {
            assert_eq!(read_time(bad), None, "{bad}");
        }
    }
}
