//! The exports of archived games (a player's, a leaderboard's, a day's)
//! as NDJSON, one game a line with its replay and result, newest first.
//! Their query (`since`, `until`, `max`, `status`, `rated`,
//! `leaderboard`, `match`, `player`, each route taking some of them) read
//! into the archive's [`Filter`], a day's date into its [`Day`], and each
//! line written from an [`ArchivedGame`].
//!
//! A line's `replay` and `result` are JSON values copied from the archived
//! record: a record written by any earlier server is given back as it was
//! kept, not read into today's types and written again.

use super::archived::ArchivedResult;
use super::listing::read_time;
use super::query::{read_params, unknown_parameter};
use super::ranking::read_board;
use super::replay::Replay;
use super::view::rfc3339;
use crate::error::{ApiError, ErrorCode};
use linkpath_archive::{ArchivedGame, Day, Filter};
use serde::Serialize;
use utoipa::ToSchema;

/// The statuses a finished game ends in, as a filter takes them.
const FINISHED: [&str; 4] = ["won", "out_of_time", "resigned", "race_over"];

/// One line of an export: an archived game.
#[derive(Debug, Serialize, ToSchema)]
pub struct ExportedGame {
    pub id: String,
    /// The id of the player who played it.
    pub player: String,
    /// The player's name when the game finished; absent once the player
    /// is erased, and soon after they expire for idleness.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub player_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub leaderboard: Option<String>,
    /// The match the game was a race of.
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub match_id: Option<String>,
    /// `won`, `out_of_time`, `resigned` or `race_over`.
    pub status: String,
    /// Whether it counted: a race of a match, or a game on a leaderboard
    /// played as it ranks.
    pub rated: bool,
    /// RFC 3339, UTC.
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub finished_at: String,
    /// The body `POST /v1/replays` checks again.
    #[schema(value_type = Replay)]
    pub replay: serde_json::Value,
    #[schema(value_type = ArchivedResult)]
    pub result: serde_json::Value,
}

/// The record as the archive keeps it (`games/archived.rs`), read back.
#[derive(serde::Deserialize)]
struct Record {
    replay: serde_json::Value,
    result: serde_json::Value,
}

/// `game` as one line of an export, its newline included; the error
/// says what in the archived record does not read back.
pub fn export_line(game: &ArchivedGame) -> Result<Vec<u8>, String> {
    let record: Record = serde_json::from_slice(&game.body)
        .map_err(|e| format!("its archived record does not read: {e}"))?;
    let line = ExportedGame {
        id: game.id.clone(),
        player: game.player.clone().unwrap_or_default(),
        player_name: game.player_name.clone(),
        leaderboard: game.leaderboard.clone(),
        match_id: game.match_id.clone(),
        status: game.status.clone(),
        rated: game.rated,
        created_at: rfc3339(game.created_ms),
        finished_at: rfc3339(game.finished_ms),
        replay: record.replay,
        result: record.result,
    };
    let mut bytes = serde_json::to_vec(&line).map_err(|e| e.to_string())?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// The most games one export may ask for: the largest int64.
pub const MAX_EXPORTED: u64 = i64::MAX as u64;

/// The parameters a player's export takes.
pub const PLAYER_EXPORT: [ExportParam; 7] = [
    ExportParam::Since,
    ExportParam::Until,
    ExportParam::Max,
    ExportParam::Status,
    ExportParam::Rated,
    ExportParam::Leaderboard,
    ExportParam::Match,
];

/// The parameters a leaderboard's export takes: its board is the path's.
pub const LEADERBOARD_EXPORT: [ExportParam; 7] = [
    ExportParam::Since,
    ExportParam::Until,
    ExportParam::Max,
    ExportParam::Status,
    ExportParam::Rated,
    ExportParam::Match,
    ExportParam::Player,
];

/// The parameters a day's export takes.
pub const DAY_EXPORT: [ExportParam; 8] = [
    ExportParam::Since,
    ExportParam::Until,
    ExportParam::Max,
    ExportParam::Status,
    ExportParam::Rated,
    ExportParam::Leaderboard,
    ExportParam::Match,
    ExportParam::Player,
];

/// A parameter of an export's query; each export route names those it
/// takes, and any other is refused as unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportParam {
    /// `since`: games finished at or after this time (RFC 3339).
    Since,
    /// `until`: games finished before this time (RFC 3339).
    Until,
    /// `max`: the most games streamed, at least 1.
    Max,
    /// `status`: games that ended so (a finished status).
    Status,
    /// `rated`: `true` or `false`.
    Rated,
    /// `leaderboard`: games on this board (32 lowercase hex digits).
    Leaderboard,
    /// `match`: the races of this match (32 lowercase hex digits).
    Match,
    /// `player`: this player's games (32 lowercase hex digits).
    Player,
}

impl ExportParam {
    /// Its name in a query.
    pub fn name(self) -> &'static str {
        match self {
            ExportParam::Since => "since",
            ExportParam::Until => "until",
            ExportParam::Max => "max",
            ExportParam::Status => "status",
            ExportParam::Rated => "rated",
            ExportParam::Leaderboard => "leaderboard",
            ExportParam::Match => "match",
            ExportParam::Player => "player",
        }
    }
}

/// The query of an export, read onto `filter` (what the route's path
/// fixed): of the parameters `takes`, `since` and `until` (RFC 3339, on
/// the finish), `max` (at least 1), `status` (a finished one), `rated`
/// (`true` or `false`), `leaderboard`, `match` and `player` (32 lowercase
/// hex digits), each at most once.
pub fn read_export_query(
    mut filter: Filter,
    takes: &[ExportParam],
    query: Option<&str>,
) -> Result<Filter, ApiError> {
    read_params(query, |name, value, bad| {
        let Some(param) = takes.iter().find(|param| param.name() == name) else {
            return Err(unknown_parameter(name, &listed(takes)));
        };
        let hex = || {
            read_board(value)
                .map(str::to_owned)
                .map_err(|_| bad("32 lowercase hex digits"))
        };
        match param {
            ExportParam::Since | ExportParam::Until => {
                let at = read_time(value).ok_or_else(|| {
                    bad("a time in RFC 3339, such as 2026-12-05T00:00:00Z or 2026-12-05T01:00:00+01:00")
                })?;
                if *param == ExportParam::Since {
                    filter.since_ms = Some(at);
                } else {
                    filter.until_ms = Some(at);
                }
            }
            // Within the contract's int64, as a database's LIMIT is.
            ExportParam::Max => {
                filter.max = Some(
                    value
                        .parse::<u64>()
                        .ok()
                        .filter(|&n| (1..=MAX_EXPORTED).contains(&n))
                        .ok_or_else(|| bad(&format!("a whole number from 1 to {MAX_EXPORTED}")))?,
                );
            }
            ExportParam::Status => {
                let status = FINISHED
                    .iter()
                    .find(|status| **status == value)
                    .ok_or_else(|| bad("won, out_of_time, resigned or race_over"))?;
                filter.status = Some((*status).to_owned());
            }
            ExportParam::Rated => {
                filter.rated = Some(match value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(bad("true or false")),
                });
            }
            ExportParam::Leaderboard => filter.leaderboard = Some(hex()?),
            ExportParam::Match => filter.match_id = Some(hex()?),
            ExportParam::Player => filter.player = Some(hex()?),
        }
        Ok(())
    })?;
    Ok(filter)
}

/// The parameters a route takes, as a refusal lists them: "`a`, `b` or
/// `c`".
fn listed(takes: &[ExportParam]) -> String {
    let names: Vec<String> = takes.iter().map(|p| format!("`{}`", p.name())).collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => "no parameter".to_owned(),
    }
}

/// A UTC day named in a path (`date`), as the archive reads it:
/// `YYYY-MM-DD`, from 1970-01-01 to 9999-12-31.
pub fn read_export_day(date: &str) -> Result<Day, ApiError> {
    date.parse::<Day>().map_err(|_| {
        ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "the date is {:?}, expected a UTC day as YYYY-MM-DD, from 1970-01-01 to 9999-12-31",
                crate::excerpt(date)
            ),
        )
        .at("date")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAYER: &str = "0123456789abcdef0123456789abcdef";

    fn players(query: Option<&str>) -> Result<Filter, ApiError> {
        let filter = Filter {
            player: Some(PLAYER.to_owned()),
            ..Filter::default()
        };
        read_export_query(filter, &PLAYER_EXPORT, query)
    }

    #[test]
    fn max_is_within_an_int64() {
        let at_most = players(Some("max=9223372036854775807")).unwrap();
        assert_eq!(at_most.max, Some(9_223_372_036_854_775_807));
        let over = players(Some("max=9223372036854775808")).unwrap_err();
        assert_eq!(
            (over.code, over.message.as_str()),
            (
                ErrorCode::InvalidRequest,
                "`max` is \"9223372036854775808\", expected a whole number from 1 to 9223372036854775807"
            )
        );
    }

    #[test]
    fn a_query_reads_into_the_filter() {
        let filter = players(Some(
            "since=2026-12-05T00:00:00Z&until=2026-12-06T00:00:00%2B01:00&max=5&status=won\
             &rated=true&leaderboard=ffffffffffffffffffffffffffffffff\
             &match=eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
        ))
        .unwrap();
        assert_eq!(
            filter,
            Filter {
                player: Some(PLAYER.to_owned()),
                leaderboard: Some("f".repeat(32)),
                match_id: Some("e".repeat(32)),
                status: Some("won".to_owned()),
                rated: Some(true),
                since_ms: Some(1_796_428_800_000),
                until_ms: Some(1_796_511_600_000),
                max: Some(5),
                ..Filter::default()
            }
        );
        assert_eq!(
            players(None).unwrap(),
            Filter {
                player: Some(PLAYER.to_owned()),
                ..Filter::default()
            }
        );
    }

    #[test]
    fn a_bad_parameter_is_named_with_what_was_expected() {
        let refused = |query: &str| {
            let e = players(Some(query)).unwrap_err();
            (e.field.unwrap_or_default(), e.message)
        };
        assert_eq!(
            refused("max=0"),
            (
                "max".to_owned(),
                "`max` is \"0\", expected a whole number from 1 to 9223372036854775807".to_owned()
            )
        );
        assert_eq!(
            refused("status=playing"),
            (
                "status".to_owned(),
                "`status` is \"playing\", expected won, out_of_time, resigned or race_over"
                    .to_owned()
            )
        );
        assert_eq!(
            refused("rated=yes"),
            (
                "rated".to_owned(),
                "`rated` is \"yes\", expected true or false".to_owned()
            )
        );
        assert_eq!(
            refused("max=1&max=2"),
            (
                "max".to_owned(),
                "`max` is given twice, expected it at most once".to_owned()
            )
        );
        assert_eq!(
            refused("opponent=x"),
            (
                "opponent".to_owned(),
                "the query parameter `opponent` is unknown, expected `since`, `until`, `max`, \
                 `status`, `rated`, `leaderboard` or `match`"
                    .to_owned()
            )
        );
        // A player's export names its player in the path, not the query.
        assert_eq!(refused(&format!("player={PLAYER}")).0, "player");
    }

    /// Each route's parameters are its own: one it does not name is
    /// unknown, listed with those it does; `player` reads a player's id.
    #[test]
    fn a_route_takes_the_parameters_it_names() {
        let board = [ExportParam::Max, ExportParam::Match, ExportParam::Player];
        let on_board = Filter {
            leaderboard: Some("f".repeat(32)),
            ..Filter::default()
        };
        assert_eq!(
            read_export_query(
                on_board.clone(),
                &board,
                Some(&format!("player={PLAYER}&max=2"))
            )
            .unwrap(),
            Filter {
                player: Some(PLAYER.to_owned()),
                leaderboard: Some("f".repeat(32)),
                max: Some(2),
                ..Filter::default()
            }
        );
        let unknown = read_export_query(
            on_board.clone(),
            &board,
            Some("leaderboard=ffffffffffffffffffffffffffffffff"),
        )
        .unwrap_err();
        assert_eq!(
            (unknown.field.as_deref(), unknown.message.as_str()),
            (
                Some("leaderboard"),
                "the query parameter `leaderboard` is unknown, expected `max`, `match` or `player`"
            )
        );
        let bad = read_export_query(on_board, &board, Some("player=Ada")).unwrap_err();
        assert_eq!(
            (bad.field.as_deref(), bad.message.as_str()),
            (
                Some("player"),
                "`player` is \"Ada\", expected 32 lowercase hex digits"
            )
        );
        assert_eq!(
            read_export_query(Filter::default(), &[ExportParam::Max], Some("since=x"))
                .unwrap_err()
                .message,
            "the query parameter `since` is unknown, expected `max`"
        );
    }

    #[test]
    fn a_day_is_a_utc_date_named_in_date() {
        assert_eq!(
            read_export_day("2026-12-05").unwrap().start_ms(),
            1_796_428_800_000
        );
        for bad in ["2026-02-30", "2026-12-5", "yesterday", "1969-12-31"] {
            let e = read_export_day(bad).unwrap_err();
            assert_eq!(
                (e.code, e.field.as_deref(), e.message),
                (
                    ErrorCode::InvalidRequest,
                    Some("date"),
                    format!(
                        "the date is {bad:?}, expected a UTC day as YYYY-MM-DD, from 1970-01-01 to 9999-12-31"
                    )
                ),
            );
        }
    }
}
