//! `POST /v1/matches`: the deal every seat plays, how many seats, whether
//! hints and undo are allowed, and who may join. The deal is checked here
//! by dealing it once, so that a match never begins on a deal that fails.
//!
//! The deal stays a JSON object as sent: it is the body of `POST /v1/games`
//! that each seat's game is created from (read there as any game's), and
//! the match record keeps it so.

use crate::decode::decode;
use crate::error::{ApiError, ErrorCode};
use crate::limits::Limits;
use linkpath_engine::Stop;
use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

/// The fewest seats of a match.
pub const MIN_SEATS: usize = 2;
/// The most seats of a match.
pub const MAX_SEATS: usize = 8;

/// The fields of `POST /v1/games` a match's deal takes: `board` and
/// `player` have no place in it (every seat plays the same deal, under
/// its own player).
const NOT_IN_A_MATCH: [&str; 2] = ["board", "player"];

/// The body of `POST /v1/matches`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateMatch {
    /// The deal, as the fields of `POST /v1/games` that deal it (`width`,
    /// `height` or `layout`, `types`, ..., and `time_limit_ms`, the race's
    /// time limit; no `board`, no `player`). A `seed` is drawn when absent.
    #[schema(value_type = crate::games::CreateGame, example = json!({"width": 8, "height": 6, "types": 12}))]
    pub game: Value,
    /// Players who race, the creator included: 2 to 8.
    #[schema(minimum = 2, maximum = 8)]
    pub seats: u64,
    /// Whether hints and undo are allowed; false when absent. Shuffles
    /// always are: a stuck board needs one.
    #[serde(default)]
    pub assists: bool,
    /// The ids of the players who may join; anyone with the match's id
    /// when absent. At most `seats - 1`.
    #[serde(default)]
    #[schema(nullable = false)]
    pub invited: Option<Vec<String>>,
}

/// A match's settings read from the body of `POST /v1/matches`.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchRequest {
    /// The deal as `POST /v1/games` takes it, `seed` filled in.
    pub game: Map<String, Value>,
    pub seats: usize,
    pub assists: bool,
    pub invited: Option<Vec<String>>,
}

impl MatchRequest {
    /// Reads a body of `POST /v1/matches`, drawing `seed` where the deal
    /// has none, and deals it once to check it.
    pub fn read(
        body: &[u8],
        seed: u64,
        limits: &Limits,
        stop: &Stop,
    ) -> Result<MatchRequest, ApiError> {
        let request: CreateMatch = decode(body, limits)?;
        let Value::Object(mut game) = request.game else {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                "`game` is not an object, expected the fields of `POST /v1/games` that deal a board",
            )
            .at("game"));
        };
        if let Some(field) = NOT_IN_A_MATCH.iter().find(|f| game.contains_key(**f)) {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                format!(
                    "`game.{field}` has no place in a match, expected only the fields that deal a board: every seat plays one deal"
                ),
            )
            .at(format!("game.{field}")));
        }
        if game.get("seed").is_none_or(Value::is_null) {
            game.insert("seed".into(), Value::from(seed));
        }
        let bytes = serde_json::to_vec(&game).expect("a JSON object serialises");
        crate::games::create::read(&bytes, limits, stop).map_err(|mut e| {
            e.field = Some(match e.field.take() {
                Some(field) => format!("game.{field}"),
                None => "game".to_owned(),
            });
            e
        })?;
        let seats = usize::try_from(request.seats).unwrap_or(usize::MAX);
        if !(MIN_SEATS..=MAX_SEATS).contains(&seats) {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                format!(
                    "`seats` is {}, expected {MIN_SEATS} to {MAX_SEATS}",
                    request.seats
                ),
            )
            .at("seats"));
        }
        if let Some(invited) = &request.invited {
            if invited.len() > seats - 1 {
                return Err(ApiError::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "`invited` names {} players, expected at most {} (`seats` - 1: the creator takes a seat)",
                        invited.len(),
                        seats - 1
                    ),
                )
                .at("invited"));
            }
            for (i, id) in invited.iter().enumerate() {
                crate::players::read_id(id).map_err(|e| e.at(format!("invited[{i}]")))?;
            }
        }
        Ok(MatchRequest {
            game,
            seats,
            assists: request.assists,
            invited: request.invited,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(body: &str) -> Result<MatchRequest, ApiError> {
        MatchRequest::read(body.as_bytes(), 77, &Limits::default(), &Stop::never())
    }

    #[test]
    fn a_seed_is_drawn_when_absent() {
        let request =
            read(r#"{"game": {"width": 4, "height": 4, "types": 4}, "seats": 2}"#).unwrap();
        assert_eq!(request.game["seed"], 77);
        assert_eq!(request.seats, 2);
        assert!(!request.assists);
        assert_eq!(request.invited, None);
        let kept = read(r#"{"game": {"width": 4, "height": 4, "types": 4, "seed": 5}, "seats": 8, "assists": true}"#)
            .unwrap();
        assert_eq!(kept.game["seed"], 5);
        assert!(kept.assists);
    }

    #[test]
    fn bad_bodies_name_their_field() {
        let refused = |body: &str| {
            let e = read(body).unwrap_err();
            (e.code, e.field.unwrap_or_default())
        };
        let invalid = ErrorCode::InvalidRequest;
        let game = r#""game": {"width": 4, "height": 4, "types": 4}"#;
        assert_eq!(
            refused(&format!("{{{game}, \"seats\": 1}}")),
            (invalid, "seats".into())
        );
        assert_eq!(
            refused(&format!("{{{game}, \"seats\": 9}}")),
            (invalid, "seats".into())
        );
        assert_eq!(
            refused(&format!("{{{game}, \"seats\": 2, \"colour\": 1}}")).0,
            invalid
        );
        assert_eq!(
            refused(r#"{"game": {"board": ["AA"]}, "seats": 2}"#),
            (invalid, "game.board".into())
        );
        assert_eq!(
            refused(r#"{"game": {"width": 4, "height": 4}, "seats": 2}"#),
            (invalid, "game.types".into())
        );
        assert_eq!(
            refused(r#"{"game": {"width": 4, "height": 4, "types": 4, "speed": 1}, "seats": 2}"#).0,
            invalid
        );
        assert_eq!(
            refused(r#"{"game": 3, "seats": 2}"#),
            (invalid, "game".into())
        );
        let two = format!("\"{}\", \"{}\"", "a".repeat(32), "b".repeat(32));
        assert_eq!(
            refused(&format!("{{{game}, \"seats\": 2, \"invited\": [{two}]}}")),
            (invalid, "invited".into())
        );
        assert_eq!(
            refused(&format!("{{{game}, \"seats\": 3, \"invited\": [\"Ann\"]}}")),
            (invalid, "invited[0]".into())
        );
    }
}
