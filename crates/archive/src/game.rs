//! A finished game as the archive keeps it, the checks every backend runs
//! on it before it is stored, and the cursor that pages through games.

use crate::ArchiveError;
use crate::filter::Order;

/// The longest id, player, name, leaderboard, match or status, in bytes:
/// each is an index key, or short text.
pub const MAX_TEXT: usize = 256;

/// The latest millisecond a game may have: PostgreSQL's `bigint`, about
/// 292 million years from 1970.
pub const MAX_MS: u64 = i64::MAX as u64;

/// A finished game: the columns reads filter and order on, and its record
/// (`body`: settings, dealt board, actions with their times, result, as
/// the server serialised them), opaque to the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivedGame {
    /// The game's id; the key: a second insert of an id changes nothing.
    pub id: String,
    /// The id of the player who played it, if signed in.
    pub player: Option<String>,
    /// The player's name when the game finished; erased with the player
    /// ([`crate::Archive::erase_player`]).
    pub player_name: Option<String>,
    /// The leaderboard the game was played on.
    pub leaderboard: Option<String>,
    /// The match the game was part of.
    pub match_id: Option<String>,
    /// How it ended: `won`, `out_of_time`, `resigned`, `lost`, ...
    pub status: String,
    /// Whether it counted: on a leaderboard, or in a rated match.
    pub rated: bool,
    /// When it was created, in milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// When it finished, in milliseconds since the Unix epoch: games are
    /// read newest first by it.
    pub finished_ms: u64,
    /// The record, opaque here.
    pub body: Vec<u8>,
}

impl ArchivedGame {
    /// Where a page that ended on this game goes on from, in the order by
    /// finish time.
    pub fn cursor(&self) -> Cursor {
        self.cursor_in(Order::Finished)
    }

    /// Where a page in `order` that ended on this game goes on from.
    pub fn cursor_in(&self, order: Order) -> Cursor {
        Cursor {
            at_ms: order.time_of(self),
            id: self.id.clone(),
        }
    }

    /// Refuses a game a backend could not store alike: text too long, or
    /// holding a NUL (PostgreSQL's text cannot), times past [`MAX_MS`],
    /// a record past `max_body_bytes`.
    pub(crate) fn check(&self, max_body_bytes: usize) -> Result<(), ArchiveError> {
        let id = &self.id;
        if id.is_empty() {
            return Err(ArchiveError::Invalid(
                "an archived game needs an id: it is empty".to_owned(),
            ));
        }
        check_text(id, "id", &self.id)?;
        for (field, value) in [
            ("player", &self.player),
            ("player_name", &self.player_name),
            ("leaderboard", &self.leaderboard),
            ("match_id", &self.match_id),
        ] {
            if let Some(value) = value {
                check_text(id, field, value)?;
            }
        }
        check_text(id, "status", &self.status)?;
        for (field, ms) in [
            ("created_ms", self.created_ms),
            ("finished_ms", self.finished_ms),
        ] {
            if ms > MAX_MS {
                return Err(ArchiveError::Invalid(format!(
                    "game `{id}`: its {field} {ms} is past {MAX_MS}, the latest time kept"
                )));
            }
        }
        if self.body.len() > max_body_bytes {
            return Err(ArchiveError::Invalid(format!(
                "game `{id}`: its record is {} bytes, more than the {max_body_bytes} one may have",
                self.body.len()
            )));
        }
        Ok(())
    }
}

fn check_text(id: &str, field: &str, value: &str) -> Result<(), ArchiveError> {
    // The id itself is shown cut short, in case it is the long one.
    let shown: String = id.chars().take(64).collect();
    if value.len() > MAX_TEXT {
        return Err(ArchiveError::Invalid(format!(
            "game `{shown}`: its {field} is {} bytes, at most {MAX_TEXT}",
            value.len()
        )));
    }
    if value.contains('\0') {
        return Err(ArchiveError::Invalid(format!(
            "game `{shown}`: its {field} holds a NUL character, which no text may"
        )));
    }
    Ok(())
}

/// Where the next page starts: the last game of the page before, by
/// `(at_ms, id)`, `at_ms` its time in the read's [`Order`]. A page holds
/// the games strictly before it, newest first.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cursor {
    pub at_ms: u64,
    pub id: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> ArchivedGame {
        ArchivedGame {
            id: "g1".to_owned(),
            player: Some("p1".to_owned()),
            player_name: Some("Ada".to_owned()),
            leaderboard: None,
            match_id: None,
            status: "won".to_owned(),
            rated: false,
            created_ms: 1,
            finished_ms: 2,
            body: b"{}".to_vec(),
        }
    }

    #[test]
    fn a_game_within_bounds_passes() {
        assert_eq!(game().check(2), Ok(()));
    }

    #[test]
    fn each_bound_names_its_field() {
        let invalid = |game: ArchivedGame| match game.check(2) {
            Err(ArchiveError::Invalid(message)) => message,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            invalid(ArchivedGame {
                id: String::new(),
                ..game()
            }),
            "an archived game needs an id: it is empty"
        );
        assert_eq!(
            invalid(ArchivedGame {
                leaderboard: Some("b".repeat(257)),
                ..game()
            }),
            "game `g1`: its leaderboard is 257 bytes, at most 256"
        );
        assert_eq!(
            invalid(ArchivedGame {
                status: "w\0n".to_owned(),
                ..game()
            }),
            "game `g1`: its status holds a NUL character, which no text may"
        );
        assert_eq!(
            invalid(ArchivedGame {
                finished_ms: MAX_MS + 1,
                ..game()
            }),
            "game `g1`: its finished_ms 9223372036854775808 is past 9223372036854775807, \
             the latest time kept"
        );
        assert_eq!(
            invalid(ArchivedGame {
                body: b"{ }".to_vec(),
                ..game()
            }),
            "game `g1`: its record is 3 bytes, more than the 2 one may have"
        );
    }
}
