//! `GET /v1/players/{id}/games/export`: a player's archived games as
//! NDJSON, one game a line with its replay and result, newest first. Its
//! query (`since`, `until`, `max`, `status`, `rated`, `leaderboard`,
//! `match`) read into the archive's [`Filter`], and each line written
//! from an [`ArchivedGame`].

use super::archived::ArchivedResult;
use super::listing::read_time;
use super::query::{read_params, unknown_parameter};
use super::ranking::read_board;
use super::replay::Replay;
use super::view::rfc3339;
use crate::error::ApiError;
use linkpath_archive::{ArchivedGame, Filter};
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
        .map_err(|e| format!("archived game {}: {e}", game.id))?;
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

/// The query of an export of `player`'s games: `since` and `until` (RFC
/// 3339, on the finish), `max` (at least 1), `status` (a finished one),
/// `rated` (`true` or `false`), `leaderboard` and `match` (32 lowercase
/// hex digits), each at most once.
pub fn read_export_query(player: &str, query: Option<&str>) -> Result<Filter, ApiError> {
    let mut filter = Filter {
        player: Some(player.to_owned()),
        ..Filter::default()
    };
    read_params(query, |name, value, bad| {
        let hex = || {
            read_board(value)
                .map(str::to_owned)
                .map_err(|_| bad("32 lowercase hex digits"))
        };
        match name {
            "since" | "until" => {
                let at = read_time(value).ok_or_else(|| {
                    bad("a time in RFC 3339, such as 2026-12-05T00:00:00Z or 2026-12-05T01:00:00+01:00")
                })?;
                if name == "since" {
                    filter.since_ms = Some(at);
                } else {
                    filter.until_ms = Some(at);
                }
            }
            // Within the contract's int64, as a database's LIMIT is.
            "max" => {
                filter.max = Some(
                    value
                        .parse::<u64>()
                        .ok()
                        .filter(|&n| (1..=MAX_EXPORTED).contains(&n))
                        .ok_or_else(|| bad(&format!("a whole number from 1 to {MAX_EXPORTED}")))?,
                );
            }
            "status" => {
                let status = FINISHED
                    .iter()
                    .find(|status| **status == value)
                    .ok_or_else(|| bad("won, out_of_time, resigned or race_over"))?;
                filter.status = Some((*status).to_owned());
            }
            "rated" => {
                filter.rated = Some(match value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(bad("true or false")),
                });
            }
            "leaderboard" => filter.leaderboard = Some(hex()?),
            "match" => filter.match_id = Some(hex()?),
            _ => {
                return Err(unknown_parameter(
                    name,
                    "`since`, `until`, `max`, `status`, `rated`, `leaderboard` or `match`",
                ));
            }
        }
        Ok(())
    })?;
    Ok(filter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    const PLAYER: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn max_is_within_an_int64() {
        let at_most = read_export_query(PLAYER, Some("max=9223372036854775807")).unwrap();
        assert_eq!(at_most.max, Some(9_223_372_036_854_775_807));
        let over = read_export_query(PLAYER, Some("max=9223372036854775808")).unwrap_err();
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
        let filter = read_export_query(
            PLAYER,
            Some(
                "since=2026-12-05T00:00:00Z&until=2026-12-06T00:00:00%2B01:00&max=5&status=won\
                 &rated=true&leaderboard=ffffffffffffffffffffffffffffffff\
                 &match=eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
            ),
        )
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
            }
        );
        assert_eq!(
            read_export_query(PLAYER, None).unwrap(),
            Filter {
                player: Some(PLAYER.to_owned()),
                ..Filter::default()
            }
        );
    }

    #[test]
    fn a_bad_parameter_is_named_with_what_was_expected() {
        let refused = |query: &str| {
            let e = read_export_query(PLAYER, Some(query)).unwrap_err();
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
    }
}
