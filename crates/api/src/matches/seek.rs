//! `POST /v1/matches/seek`: the settings of a race a player looks for,
//! as `POST /v1/matches` takes them but for `invited` (whoever seeks the
//! same settings is seated). Players are seated together only under the
//! same key, a hash of the settings with every object's keys in order, as
//! leaderboards are named. The deal's seed, when the body has none, is
//! drawn from the match's id, so that every seated request that makes
//! the match makes the same one.
//!
//! The settings stay a JSON value here: they are a match's body, which
//! `MatchRequest` reads and keeps as sent to create each racer's game,
//! and the key hashes them whole, whatever fields they hold.

use crate::decode::decode;
use crate::error::ApiError;
use crate::limits::Limits;
use crate::matches::MatchRequest;
use linkpath_engine::Stop;
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

/// The body of `POST /v1/matches/seek`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeekMatch {
    /// The deal, as `POST /v1/matches` takes it. Without a `seed`, each
    /// match seated draws its own.
    #[schema(value_type = Object, example = json!({"width": 8, "height": 6, "types": 12}))]
    pub game: Value,
    /// Players who race: 2 to 8.
    #[schema(minimum = 2, maximum = 8)]
    pub seats: u64,
    /// Whether hints and undo are allowed; false when absent.
    #[serde(default)]
    pub assists: bool,
}

/// A seek's settings, read and checked, with their key.
#[derive(Debug, Clone, PartialEq)]
pub struct SeekRequest {
    /// The settings, the seed as sent (0 when none was).
    pub request: MatchRequest,
    /// The hash of the settings: 32 lowercase hex digits.
    pub key: String,
    /// Whether the body named the seed.
    seeded: bool,
}

impl SeekRequest {
    /// Reads a body of `POST /v1/matches/seek`, checking it as
    /// `POST /v1/matches` does (the deal dealt once).
    pub fn read(body: &[u8], limits: &Limits, stop: &Stop) -> Result<SeekRequest, ApiError> {
        let seek: SeekMatch = decode(body, limits)?;
        let mut game = seek.game;
        if let Value::Object(fields) = &mut game
            && fields.get("seed").is_some_and(Value::is_null)
        {
            fields.remove("seed");
        }
        let seeded = game.get("seed").is_some();
        let settings = json!({"game": game, "seats": seek.seats, "assists": seek.assists});
        let bytes = serde_json::to_vec(&settings).expect("JSON serialises");
        let request = MatchRequest::read(&bytes, 0, limits, stop)?;
        let normalised = serde_json::to_vec(&sorted(&settings)).expect("JSON serialises");
        let digest = Sha256::digest(&normalised);
        let key = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        Ok(SeekRequest {
            request,
            key,
            seeded,
        })
    }

    /// The settings of the match `id` seats: the seed the body named, or
    /// one drawn from the id (its first 16 hex digits), the same for
    /// every replica that makes it.
    pub fn for_match(&self, id: &str) -> MatchRequest {
        let mut request = self.request.clone();
        if !self.seeded {
            let seed = id
                .get(..16)
                .and_then(|hex| u64::from_str_radix(hex, 16).ok())
                .unwrap_or(0);
            request.game.insert("seed".into(), Value::from(seed));
        }
        request
    }
}

/// `value` with every object's keys in order, so that equal settings sent
/// in another order have the same key.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<_> = map.keys().collect();
            keys.sort();
            keys.into_iter()
                .map(|key| (key.clone(), sorted(&map[key])))
                .collect::<serde_json::Map<_, _>>()
                .into()
        }
        Value::Array(items) => items.iter().map(sorted).collect(),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(body: &str) -> Result<SeekRequest, ApiError> {
        SeekRequest::read(body.as_bytes(), &Limits::default(), &Stop::never())
    }

    #[test]
    fn equal_settings_share_a_key_in_any_order() {
        let one = read(r#"{"game": {"width": 4, "height": 4, "types": 4}, "seats": 2}"#).unwrap();
        let two = read(
            r#"{"seats": 2, "assists": false, "game": {"types": 4, "height": 4, "width": 4, "seed": null}}"#,
        )
        .unwrap();
        assert_eq!(one.key, two.key);
        assert_eq!(one.key.len(), 32);
        let three = read(r#"{"game": {"width": 4, "height": 4, "types": 4}, "seats": 3}"#).unwrap();
        assert_ne!(one.key, three.key);
        let seeded =
            read(r#"{"game": {"width": 4, "height": 4, "types": 4, "seed": 9}, "seats": 2}"#)
                .unwrap();
        assert_ne!(one.key, seeded.key);
    }

    #[test]
    fn the_seed_is_the_bodys_or_the_match_ids() {
        let id = "00000000000000ff0000000000000000";
        let drawn = read(r#"{"game": {"width": 4, "height": 4, "types": 4}, "seats": 2}"#).unwrap();
        assert_eq!(drawn.for_match(id).game["seed"], 255);
        let seeded =
            read(r#"{"game": {"width": 4, "height": 4, "types": 4, "seed": 9}, "seats": 2}"#)
                .unwrap();
        assert_eq!(seeded.for_match(id).game["seed"], 9);
    }

    #[test]
    fn a_seek_names_nobody_and_is_checked_as_a_match() {
        let invited = format!(
            r#"{{"game": {{"width": 4, "height": 4, "types": 4}}, "seats": 2, "invited": ["{}"]}}"#,
            "a".repeat(32)
        );
        assert_eq!(
            read(&invited).unwrap_err().code,
            crate::ErrorCode::InvalidRequest
        );
        let e = read(r#"{"game": {"width": 4, "height": 4, "types": 4}, "seats": 9}"#).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("seats"));
        let e = read(r#"{"game": {"width": 4, "height": 4}, "seats": 2}"#).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("game.types"));
    }
}
