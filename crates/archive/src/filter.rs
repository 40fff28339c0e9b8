//! Which games a read wants: a [`Filter`] of columns and times, the
//! time it orders by ([`Order`]), a UTC [`Day`] as a span of times, and
//! how the memory and file archives walk their indexes for it
//! ([`Scope`], [`Span`]), so that both give the same pages in the same
//! order as PostgreSQL.

use std::fmt;
use std::str::FromStr;

use crate::ArchiveError;
use crate::game::{ArchivedGame, Cursor, MAX_TEXT};

/// The games a read wants; every field set must match. The default wants
/// every game.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// The player's games.
    pub player: Option<String>,
    /// The games played on this leaderboard.
    pub leaderboard: Option<String>,
    /// The games of this match.
    pub match_id: Option<String>,
    /// The games that ended so (`won`, `resigned`, ...).
    pub status: Option<String>,
    /// The rated games, or the unrated.
    pub rated: Option<bool>,
    /// The games finished (created, in [`Order::Created`]) at this
    /// millisecond or after.
    pub since_ms: Option<u64>,
    /// The games finished (created) before this millisecond.
    pub until_ms: Option<u64>,
    /// The most games an export yields (lichess's `max`). Pages ignore
    /// it: each has its own `limit`, and a cursor does not count what
    /// came before.
    pub max: Option<u64>,
    /// The time games are ordered by, newest first, and that `since`,
    /// `until` and a page's cursor are in.
    pub order: Order,
}

/// The time a read orders games by: when they finished (every read), or
/// when they were created (a player's games only, as the live store lists
/// them, so that the two lists merge).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Order {
    #[default]
    Finished,
    Created,
}

impl Order {
    /// The time of `game` in this order.
    pub fn time_of(self, game: &ArchivedGame) -> u64 {
        match self {
            Order::Finished => game.finished_ms,
            Order::Created => game.created_ms,
        }
    }
}

impl Filter {
    /// The filter narrowed to the games finished on `day`, UTC.
    pub fn on(mut self, day: Day) -> Filter {
        self.since_ms = Some(
            self.since_ms
                .map_or(day.start_ms(), |s| s.max(day.start_ms())),
        );
        self.until_ms = Some(self.until_ms.map_or(day.end_ms(), |u| u.min(day.end_ms())));
        self
    }

    /// Refuses text no game could hold, as [`ArchivedGame`]'s checks do,
    /// and an order by creation without a player (only a player's games
    /// have that index).
    pub(crate) fn check(&self) -> Result<(), ArchiveError> {
        if self.order == Order::Created && self.player.is_none() {
            return Err(ArchiveError::Invalid(
                "games are read in the order they were created only for one player: the filter names none"
                    .to_owned(),
            ));
        }
        for (field, value) in [
            ("player", &self.player),
            ("leaderboard", &self.leaderboard),
            ("match_id", &self.match_id),
            ("status", &self.status),
        ] {
            let Some(value) = value else { continue };
            if value.len() > MAX_TEXT {
                return Err(ArchiveError::Invalid(format!(
                    "the filter's {field} is {} bytes, at most {MAX_TEXT}",
                    value.len()
                )));
            }
            if value.contains('\0') {
                return Err(ArchiveError::Invalid(format!(
                    "the filter's {field} holds a NUL character, which no text may"
                )));
            }
        }
        Ok(())
    }

    /// Whether `game` is one this filter wants (the cursor aside).
    pub(crate) fn admits(&self, game: &GameColumns<'_>) -> bool {
        let equal = |want: &Option<String>, have: Option<&str>| {
            want.as_deref().is_none_or(|want| have == Some(want))
        };
        equal(&self.player, game.player)
            && equal(&self.leaderboard, game.leaderboard)
            && equal(&self.match_id, game.match_id)
            && self.status.as_deref().is_none_or(|s| s == game.status)
            && self.rated.is_none_or(|rated| rated == game.rated)
            && self
                .since_ms
                .is_none_or(|since| self.time_of(game) >= since)
            && self.until_ms.is_none_or(|until| self.time_of(game) < until)
    }

    fn time_of(&self, game: &GameColumns<'_>) -> u64 {
        match self.order {
            Order::Finished => game.finished_ms,
            Order::Created => game.created_ms,
        }
    }

    /// The index the memory and file archives walk: in the order by
    /// creation, the player's; else the narrowest the filter names (a
    /// match's games are fewest, then a player's, then a leaderboard's),
    /// or all games by time.
    pub(crate) fn scope(&self) -> Scope<'_> {
        if self.order == Order::Created
            && let Some(player) = &self.player
        {
            Scope::PlayerCreated(player)
        } else if let Some(id) = &self.match_id {
            Scope::Match(id)
        } else if let Some(player) = &self.player {
            Scope::Player(player)
        } else if let Some(board) = &self.leaderboard {
            Scope::Leaderboard(board)
        } else {
            Scope::All
        }
    }

    /// The keys of the index to walk, from the filter's times and the
    /// cursor: `None` when no game can be in it.
    pub(crate) fn span(&self, after: Option<&Cursor>) -> Option<Span> {
        let since = self.since_ms.unwrap_or(0);
        // A game passes when its (finished_ms, id) is below the bound; no
        // id is below the empty one.
        let until = self.until_ms.map(|until| (until, String::new()));
        let cursor = after.map(|c| (c.at_ms, c.id.clone()));
        let before = match (until, cursor) {
            (Some(until), Some(cursor)) => Some(until.min(cursor)),
            (bound, None) | (None, bound) => bound,
        };
        match &before {
            Some(before) if *before <= (since, String::new()) => None,
            _ => Some(Span { since, before }),
        }
    }
}

/// The columns of a game a filter looks at.
pub(crate) struct GameColumns<'a> {
    pub player: Option<&'a str>,
    pub leaderboard: Option<&'a str>,
    pub match_id: Option<&'a str>,
    pub status: &'a str,
    pub rated: bool,
    pub created_ms: u64,
    pub finished_ms: u64,
}

impl<'a> From<&'a ArchivedGame> for GameColumns<'a> {
    fn from(game: &'a ArchivedGame) -> GameColumns<'a> {
        GameColumns {
            player: game.player.as_deref(),
            leaderboard: game.leaderboard.as_deref(),
            match_id: game.match_id.as_deref(),
            status: &game.status,
            rated: game.rated,
            created_ms: game.created_ms,
            finished_ms: game.finished_ms,
        }
    }
}

/// An index of games by `(finished_ms, id)`: all of them, or those of one
/// match, player or leaderboard; or of a player's by `(created_ms, id)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope<'a> {
    Match(&'a str),
    Player(&'a str),
    Leaderboard(&'a str),
    All,
    PlayerCreated(&'a str),
}

/// The keys of an index a read walks: from `(since, "")` on, and below
/// `before` if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Span {
    pub since: u64,
    pub before: Option<(u64, String)>,
}

/// A day of the UTC calendar, from 1970-01-01 on, written `YYYY-MM-DD`:
/// the games finished from its midnight to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Day {
    /// Days since 1970-01-01.
    days: u64,
}

const DAY_MS: u64 = 86_400_000;

/// The last year a [`Day`] may be in: four digits.
const LAST_YEAR: u64 = 9999;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a UTC date: expected YYYY-MM-DD, from 1970-01-01 to 9999-12-31")]
pub struct DayError(String);

impl Day {
    /// The day holding this millisecond since the Unix epoch.
    pub fn of_ms(ms: u64) -> Day {
        Day { days: ms / DAY_MS }
    }

    /// Its first millisecond since the Unix epoch.
    pub fn start_ms(self) -> u64 {
        self.days * DAY_MS
    }

    /// The first millisecond of the next day.
    pub fn end_ms(self) -> u64 {
        (self.days + 1) * DAY_MS
    }
}

impl FromStr for Day {
    type Err = DayError;

    fn from_str(text: &str) -> Result<Day, DayError> {
        let refused = || DayError(text.chars().take(32).collect());
        let bytes = text.as_bytes();
        if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
            return Err(refused());
        }
        let number = |range: std::ops::Range<usize>| {
            let digits = &text[range];
            if digits.bytes().all(|b| b.is_ascii_digit()) {
                digits.parse::<u64>().ok()
            } else {
                None
            }
        };
        let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10))
        else {
            return Err(refused());
        };
        if !(1970..=LAST_YEAR).contains(&year)
            || !(1..=12).contains(&month)
            || day < 1
            || day > days_in_month(year, month)
        {
            return Err(refused());
        }
        Ok(Day {
            days: days_from_civil(year, month, day),
        })
    }
}

impl fmt::Display for Day {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (year, month, day) = civil_from_days(self.days);
        write!(f, "{year:04}-{month:02}-{day:02}")
    }
}

fn leap(year: u64) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn days_in_month(year: u64, month: u64) -> u64 {
    match month {
        2 if leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's algorithms (`days_from_civil`, `civil_from_days`), for
// years from 1970 on, where every quantity is non-negative. Years start
// in March, so that the leap day ends one.
fn days_from_civil(year: u64, month: u64, day: u64) -> u64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year / 400;
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    // 719_468: the days from 0000-03-01 to 1970-01-01.
    era * 146_097 + day_of_era - 719_468
}

fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let days = days + 719_468;
    let era = days / 146_097;
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_utc_spans_of_milliseconds() {
        let day: Day = "1970-01-01".parse().unwrap();
        assert_eq!((day.start_ms(), day.end_ms()), (0, 86_400_000));
        // 2026-12-06T00:00:00Z is 1_796_515_200 s after the epoch.
        let day: Day = "2026-12-06".parse().unwrap();
        assert_eq!(day.start_ms(), 1_796_515_200_000);
        assert_eq!(Day::of_ms(1_796_515_200_000 + 86_399_999), day);
        assert_eq!(day.to_string(), "2026-12-06");
    }

    #[test]
    fn every_day_prints_back_as_it_parses() {
        let mut days = 0;
        for year in 1970..=2400 {
            for month in 1..=12 {
                for d in 1..=days_in_month(year, month) {
                    let text = format!("{year:04}-{month:02}-{d:02}");
                    let day: Day = text.parse().unwrap();
                    assert_eq!(day, Day { days }, "{text}");
                    assert_eq!(day.to_string(), text);
                    days += 1;
                }
            }
        }
    }

    #[test]
    fn malformed_dates_are_refused() {
        for text in [
            "",
            "2026-1-06",
            "2026-13-01",
            "2026-00-10",
            "2026-02-29",
            "2100-02-29",
            "1969-12-31",
            "2026/12/06",
            "+026-12-06",
            "2026-12-0x",
            "20261206",
        ] {
            assert_eq!(
                text.parse::<Day>(),
                Err(DayError(text.to_owned())),
                "{text}"
            );
        }
        assert!("2024-02-29".parse::<Day>().is_ok());
        assert!("2000-02-29".parse::<Day>().is_ok());
        assert_eq!(
            "2026-02-30".parse::<Day>().unwrap_err().to_string(),
            "`2026-02-30` is not a UTC date: expected YYYY-MM-DD, from 1970-01-01 to 9999-12-31"
        );
    }

    #[test]
    fn a_day_narrows_the_times_it_is_given() {
        let day: Day = "1970-01-02".parse().unwrap();
        let filter = Filter {
            since_ms: Some(90_000_000),
            ..Filter::default()
        }
        .on(day);
        assert_eq!(filter.since_ms, Some(90_000_000));
        assert_eq!(filter.until_ms, Some(172_800_000));
    }

    #[test]
    fn spans_meet_the_cursor_and_the_times() {
        let filter = Filter {
            since_ms: Some(10),
            until_ms: Some(20),
            ..Filter::default()
        };
        let cursor = |at_ms, id: &str| Cursor {
            at_ms,
            id: id.to_owned(),
        };
        assert_eq!(
            filter.span(None),
            Some(Span {
                since: 10,
                before: Some((20, String::new()))
            })
        );
        assert_eq!(
            filter.span(Some(&cursor(15, "g"))),
            Some(Span {
                since: 10,
                before: Some((15, "g".to_owned()))
            })
        );
        assert_eq!(
            filter.span(Some(&cursor(25, "g"))),
            Some(Span {
                since: 10,
                before: Some((20, String::new()))
            })
        );
        assert_eq!(filter.span(Some(&cursor(10, ""))), None);
        assert_eq!(
            filter.span(Some(&cursor(10, "a"))).map(|s| s.before),
            Some(Some((10, "a".to_owned())))
        );
        let empty = Filter {
            since_ms: Some(20),
            until_ms: Some(20),
            ..Filter::default()
        };
        assert_eq!(empty.span(None), None);
        assert_eq!(
            Filter::default().span(None),
            Some(Span {
                since: 0,
                before: None
            })
        );
    }
}
