//! Players: who plays, proven by a token. A player has an id (128 random
//! bits, or for a player a studio signs in with a JWT, a digest of the
//! studio's issuer and subject), a name that need not be unique, and a
//! secret token shown once and stored only as its SHA-256. Everything
//! here is pure: the server makes the random bytes and keeps the records.
//!
//! A token reads `lpp_` and 64 lowercase hex digits (256 random bits), so
//! that a player's token is told apart from a service's API key, and from
//! a JWT, by its look alone, as GitHub's tokens are by their prefix.

use crate::error::{ApiError, ErrorCode};
use crate::games::rfc3339;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use unicode_normalization::UnicodeNormalization;
use utoipa::ToSchema;

/// The longest name, in characters (after normalisation).
pub const NAME_CHARS: usize = 32;

/// What every player token begins with.
pub const TOKEN_PREFIX: &str = "lpp_";

/// The random bytes of a token.
pub const TOKEN_BYTES: usize = 32;

/// The format player records are written in.
pub const FORMAT: u32 = 1;

/// The body of `POST /v1/players` and of `PATCH /v1/players/me`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayerName {
    /// 1 to 32 letters, digits, spaces, `-`, `_` or `.`, with no space at
    /// either end; compared and kept in Unicode's NFC form. Names need not
    /// be unique: the id is.
    #[schema(min_length = 1, max_length = 32, example = "Ann")]
    pub name: String,
}

impl PlayerName {
    /// The name a body asks for, checked and normalised.
    pub fn read(body: &[u8], limits: &crate::Limits) -> Result<String, ApiError> {
        let request: PlayerName = crate::decode::decode(body, limits)?;
        read_name(&request.name, "name")
    }
}

/// A player as kept: what the token's hash and the id leave out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Player {
    pub id: String,
    pub name: String,
    pub created_at_ms: u64,
    /// The studio that signed the player in, for a player made by a JWT.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub studio: Option<Studio>,
    /// The player's rating, moved by each finished match; none before
    /// the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<crate::matches::Rating>,
}

/// Who signed a player in: a JWT's issuer and subject.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Studio {
    pub issuer: String,
    pub subject: String,
}

/// A player as answered.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PlayerView {
    /// 32 lowercase hex digits.
    #[schema(example = "5f0c6a1e9b3d4c2a8e7f6b5a4c3d2e1f")]
    pub id: String,
    #[schema(example = "Ann")]
    pub name: String,
    /// RFC 3339, UTC.
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Glicko-2, moved by each finished match; absent before the first.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub rating: Option<crate::matches::Rating>,
}

impl PlayerView {
    pub fn new(player: &Player) -> PlayerView {
        PlayerView {
            id: player.id.clone(),
            name: player.name.clone(),
            created_at: rfc3339(player.created_at_ms),
            rating: player.rating,
        }
    }
}

/// A player with its new token: the only answer that shows the token.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SignedUp {
    #[serde(flatten)]
    pub player: PlayerView,
    /// The player's secret: send it as `Authorization: Bearer <token>`.
    /// Shown this once; linkpath keeps only its hash.
    #[schema(example = "lpp_8c1e0f4b2a7d9e3c5b6a1f0e9d8c7b6a5f4e3d2c1b0a99887766554433221100")]
    pub token: String,
}

#[derive(Serialize)]
struct Record<'a> {
    format: u32,
    player: &'a Player,
}

#[derive(Deserialize)]
struct Stored {
    format: u32,
    player: Player,
}

/// The stored bytes of `player`.
pub fn encode(player: &Player) -> Vec<u8> {
    serde_json::to_vec(&Record {
        format: FORMAT,
        player,
    })
    .expect("a player serialises")
}

/// A player as stored; what does not read says why.
pub fn decode(bytes: &[u8]) -> Result<Player, String> {
    let stored: Stored = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    if stored.format != FORMAT {
        return Err(format!(
            "a player record of format {}, not this server's {FORMAT}: run the newer server",
            stored.format
        ));
    }
    Ok(stored.player)
}

/// A token made of `random` bytes.
pub fn token(random: &[u8; TOKEN_BYTES]) -> String {
    let mut token = String::with_capacity(TOKEN_PREFIX.len() + 2 * TOKEN_BYTES);
    token.push_str(TOKEN_PREFIX);
    token.push_str(&hex(random));
    token
}

/// Whether `presented` has a player token's form (it may still be
/// unknown).
pub fn is_token(presented: &[u8]) -> bool {
    presented
        .strip_prefix(TOKEN_PREFIX.as_bytes())
        .is_some_and(|digits| {
            digits.len() == 2 * TOKEN_BYTES
                && digits
                    .iter()
                    .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        })
}

/// What a token is looked up by: its SHA-256. A token is 256 random
/// bits, so a fast hash is as safe as a slow one, and the lookup is one
/// read by an exact key.
pub fn token_hash(token: &[u8]) -> Vec<u8> {
    Sha256::digest(token).to_vec()
}

/// The id of the player a studio signs in as `subject`: the same on every
/// replica and every sign-in, with no table to keep.
pub fn studio_player_id(issuer: &str, subject: &str) -> String {
    let mut digest = Sha256::new();
    digest.update(b"linkpath studio player\0");
    digest.update(issuer.as_bytes());
    digest.update(b"\0");
    digest.update(subject.as_bytes());
    hex(&digest.finalize()[..16])
}

/// A player's id as a path gives it: 32 lowercase hex digits.
pub fn read_id(id: &str) -> Result<&str, ApiError> {
    if id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Ok(id);
    }
    Err(ApiError::new(
        ErrorCode::InvalidRequest,
        format!(
            "the player id is {:?}, expected 32 lowercase hex digits, as `POST /v1/players` gives it",
            crate::excerpt(id)
        ),
    )
    .at("id"))
}

/// `raw` as a player's name: in NFC, 1 to [`NAME_CHARS`] letters, digits,
/// spaces, `-`, `_` or `.`, with no space at either end. `field` names it
/// in the error.
pub fn read_name(raw: &str, field: &str) -> Result<String, ApiError> {
    let name: String = raw.nfc().collect();
    let chars = name.chars().count();
    let allowed = |c: char| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.');
    let problem = if chars == 0 || chars > NAME_CHARS {
        Some(format!("{chars} characters"))
    } else if let Some(c) = name.chars().find(|&c| !allowed(c)) {
        Some(format!("the character {c:?}"))
    } else if name.starts_with(' ') || name.ends_with(' ') {
        Some("a space at an end".to_owned())
    } else {
        None
    };
    match problem {
        None => Ok(name),
        Some(problem) => Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "`{field}` has {problem}, expected 1 to {NAME_CHARS} letters, digits, spaces, `-`, `_` or `.`, with no space at either end"
            ),
        )
        .at(field.to_owned())),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_and_normalised() {
        for good in ["Ann", "li ming", "Zoë_2", "a.b-c", &"x".repeat(32), "東風"] {
            assert_eq!(read_name(good, "name").as_deref(), Ok(good), "{good}");
        }
        // "e" and a combining acute accent: one character in NFC.
        assert_eq!(read_name("Zoe\u{301}", "name").as_deref(), Ok("Zoé"));
        let message = |name: &str| read_name(name, "name").unwrap_err().message;
        assert!(message("").starts_with("`name` has 0 characters"));
        assert!(message(&"x".repeat(33)).starts_with("`name` has 33 characters"));
        assert!(message("a<b").starts_with("`name` has the character '<'"));
        assert!(message(" ann").starts_with("`name` has a space at an end"));
        assert!(message("a\nb").starts_with("`name` has the character '\\n'"));
        assert!(message("a\u{202e}b").starts_with("`name` has the character '\\u{202e}'"));
    }

    #[test]
    fn tokens_have_one_form() {
        let made = token(&[0xab; TOKEN_BYTES]);
        assert_eq!(made, format!("lpp_{}", "ab".repeat(32)));
        assert!(is_token(made.as_bytes()));
        for bad in [
            "ab".repeat(32),
            format!("lpp_{}", "AB".repeat(32)),
            format!("lpp_{}", "ab".repeat(31)),
            format!("lpp_{}0", "ab".repeat(32)),
            "lpp_".to_owned(),
        ] {
            assert!(!is_token(bad.as_bytes()), "{bad}");
        }
        assert_eq!(token_hash(made.as_bytes()).len(), 32);
    }

    #[test]
    fn studio_players_have_stable_ids() {
        let id = studio_player_id("https://studio.example", "user-1");
        assert_eq!(id, studio_player_id("https://studio.example", "user-1"));
        assert_ne!(id, studio_player_id("https://studio.example", "user-2"));
        // The separator keeps ("a", "bc") and ("ab", "c") apart.
        assert_ne!(studio_player_id("a", "bc"), studio_player_id("ab", "c"));
        assert!(read_id(&id).is_ok());
    }

    #[test]
    fn records_read_back() {
        let player = Player {
            id: "0".repeat(32),
            name: "Ann".into(),
            created_at_ms: 1_700_000_000_000,
            studio: None,
            rating: None,
        };
        assert_eq!(decode(&encode(&player)), Ok(player));
        assert!(decode(br#"{"format": 9, "player": {}}"#).is_err());
    }
}
