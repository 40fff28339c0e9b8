//! Players signed in by a studio's own login: the studio signs a JWT that
//! names the player (`sub`) with a key the operator configures
//! (`--player-jwt-key` or `--player-jwt-secret`), and linkpath checks it,
//! never holding a password.
//!
//! The algorithm is the configured key's, never the token's: a token whose
//! header names another one (`none` included) is refused before its
//! signature is looked at, so an RSA public key can never be used as an
//! HMAC secret. Only a token whose signature verifies has its claims read:
//! `exp` (required) and `nbf` within `--player-jwt-leeway-ms`, then `iss`,
//! `aud` and `sub`, in that order, each with its own refusal.

mod keys;
#[cfg(test)]
mod tests;

use crate::config::Config;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::Algorithm;
use serde_json::{Map, Value};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// Longest token read: a studio's token is a few hundred bytes; a longer
/// one is refused before it is decoded.
const MAX_TOKEN_BYTES: usize = 8 * 1024;

/// Longest `sub`, in bytes: a player id is printable ASCII of 1 to this.
pub(crate) const MAX_SUBJECT_BYTES: usize = 128;

/// Checks studio-signed tokens; built once at start from the [`Config`].
#[derive(Clone)]
pub(crate) struct JwtVerifier(Arc<Verifier>);

struct Verifier {
    keys: keys::Keys,
    issuer: String,
    audience: String,
    leeway_ms: u64,
}

/// A player a valid token names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct JwtPlayer {
    /// The token's `iss`: the configured issuer.
    pub issuer: String,
    /// The token's `sub`: printable ASCII, 1 to 128 bytes.
    pub subject: String,
    /// The token's `name`, when it has one.
    pub name: Option<String>,
}

/// Why a token was refused. Its message never quotes the token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JwtRefusal {
    /// Not three base64url parts of JSON, too long, or without `exp`.
    Malformed,
    /// The header names an algorithm other than the configured key's.
    WrongAlgorithm,
    /// The signature does not verify, or no configured key has its `kid`.
    BadSignature,
    /// `exp` is past, by more than the leeway.
    Expired,
    /// `nbf` is ahead, by more than the leeway.
    NotYetValid,
    /// `iss` is not the configured issuer.
    WrongIssuer,
    /// `aud` does not name the configured audience.
    WrongAudience,
    /// `sub` is absent, or not 1 to 128 bytes of printable ASCII.
    MissingSubject,
}

impl JwtRefusal {
    /// The refusal's label in metrics.
    pub(crate) fn reason(self) -> &'static str {
        match self {
            JwtRefusal::Malformed => "malformed",
            JwtRefusal::WrongAlgorithm => "wrong_algorithm",
            JwtRefusal::BadSignature => "bad_signature",
            JwtRefusal::Expired => "expired",
            JwtRefusal::NotYetValid => "not_yet_valid",
            JwtRefusal::WrongIssuer => "wrong_issuer",
            JwtRefusal::WrongAudience => "wrong_audience",
            JwtRefusal::MissingSubject => "missing_subject",
        }
    }

    /// What the caller is told.
    pub(crate) fn message(self) -> &'static str {
        match self {
            JwtRefusal::Malformed => "the token is not a signed JWT with an exp claim",
            JwtRefusal::WrongAlgorithm => {
                "the token is signed with an algorithm other than the configured key's"
            }
            JwtRefusal::BadSignature => "the token's signature does not verify",
            JwtRefusal::Expired => "the token has expired",
            JwtRefusal::NotYetValid => "the token is not valid yet (nbf)",
            JwtRefusal::WrongIssuer => "the token's issuer (iss) is not the configured one",
            JwtRefusal::WrongAudience => "the token's audience (aud) does not name this service",
            JwtRefusal::MissingSubject => {
                "the token names no player: sub must be 1 to 128 printable ASCII characters"
            }
        }
    }
}

impl fmt::Display for JwtRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for JwtRefusal {}

/// Whether `token` has a JWT's shape: three parts of base64url characters
/// separated by dots, the first two not empty. An unsigned token (an empty
/// third part) has that shape, so that it reaches the verifier and is
/// refused there rather than taken for another kind of token.
pub(crate) fn looks_like_jwt(token: &str) -> bool {
    let base64url = |part: &str| {
        part.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    let mut parts = token.split('.');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(header), Some(payload), Some(signature), None) => {
            !header.is_empty()
                && !payload.is_empty()
                && base64url(header)
                && base64url(payload)
                && base64url(signature)
        }
        _ => false,
    }
}

/// The header fields read before the signature is checked.
#[derive(serde::Deserialize)]
struct Header {
    alg: String,
    kid: Option<String>,
}

impl JwtVerifier {
    /// The verifier the settings describe; `None` when neither a key nor a
    /// secret is set. The error is the one-line start-up message naming the
    /// setting at fault.
    pub(crate) fn from_config(config: &Config) -> Result<Option<JwtVerifier>, String> {
        let settings = &config.player_jwt;
        let keys = match (&settings.player_jwt_key, &settings.player_jwt_secret) {
            (Some(_), Some(_)) => {
                return Err("--player-jwt-key (LINKPATH_PLAYER_JWT_KEY) and \
                     --player-jwt-secret (LINKPATH_PLAYER_JWT_SECRET) are both set: \
                     expected at most one"
                    .into());
            }
            (None, None) => return unconfigured(config),
            (Some(path), None) => keys::Keys::from_file(path)?,
            (None, Some(secret)) => keys::Keys::from_secret(secret.as_bytes())?,
        };
        let required = |value: &Option<String>, setting: &str, claim: &str| {
            value.clone().ok_or_else(|| {
                format!(
                    "{setting} is not set: expected the {claim} of the studio's tokens, \
                     required with --player-jwt-key or --player-jwt-secret"
                )
            })
        };
        let issuer = required(
            &settings.player_jwt_issuer,
            "--player-jwt-issuer (LINKPATH_PLAYER_JWT_ISSUER)",
            "issuer (iss)",
        )?;
        let audience = required(
            &settings.player_jwt_audience,
            "--player-jwt-audience (LINKPATH_PLAYER_JWT_AUDIENCE)",
            "audience (aud)",
        )?;
        Ok(Some(JwtVerifier(Arc::new(Verifier {
            keys,
            issuer,
            audience,
            leeway_ms: settings.player_jwt_leeway_ms,
        }))))
    }

    /// The player `token` names, if it is valid now.
    #[cfg(test)]
    pub(crate) fn verify(&self, token: &str) -> Result<JwtPlayer, JwtRefusal> {
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| {
                u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
            });
        self.verify_at(token, now_ms)
    }

    /// [`JwtVerifier::verify`] at `now_ms`, milliseconds since the Unix
    /// epoch: for a caller that reads the time from its own clock.
    pub(crate) fn verify_at(&self, token: &str, now_ms: u64) -> Result<JwtPlayer, JwtRefusal> {
        if token.len() > MAX_TOKEN_BYTES || !looks_like_jwt(token) {
            return Err(JwtRefusal::Malformed);
        }
        let encoded = token.split('.').next().unwrap_or_default();
        let header: Header = URL_SAFE_NO_PAD
            .decode(encoded)
            .ok()
            .and_then(|json| serde_json::from_slice(&json).ok())
            .ok_or(JwtRefusal::Malformed)?;
        // `none` and names no key has are refused whatever the `kid`.
        let algorithm = Algorithm::from_str(&header.alg).map_err(|_| JwtRefusal::WrongAlgorithm)?;
        let key = self
            .0
            .keys
            .find(header.kid.as_deref())
            .ok_or(JwtRefusal::BadSignature)?;
        if algorithm != key.algorithm {
            return Err(JwtRefusal::WrongAlgorithm);
        }
        let claims = key.decode(token)?;
        self.0.judge(&claims, now_ms)
    }
}

/// Neither a key nor a secret: no verifier, and an issuer or audience set
/// alone is a mistake worth stopping for.
fn unconfigured(config: &Config) -> Result<Option<JwtVerifier>, String> {
    let settings = &config.player_jwt;
    let alone = [
        (
            settings.player_jwt_issuer.is_some(),
            "--player-jwt-issuer (LINKPATH_PLAYER_JWT_ISSUER)",
        ),
        (
            settings.player_jwt_audience.is_some(),
            "--player-jwt-audience (LINKPATH_PLAYER_JWT_AUDIENCE)",
        ),
    ];
    match alone.iter().find(|(set, _)| *set) {
        Some((_, setting)) => Err(format!(
            "{setting} is set without a key: expected --player-jwt-key \
             (LINKPATH_PLAYER_JWT_KEY) or --player-jwt-secret (LINKPATH_PLAYER_JWT_SECRET) too"
        )),
        None => Ok(None),
    }
}

impl Verifier {
    /// The claims of a token whose signature verified: the times first,
    /// then who issued it, for whom, and whom it names.
    fn judge(&self, claims: &Map<String, Value>, now_ms: u64) -> Result<JwtPlayer, JwtRefusal> {
        let now = now_ms as f64;
        let leeway = self.leeway_ms as f64;
        let expires = numeric_date(claims.get("exp"))?.ok_or(JwtRefusal::Malformed)?;
        // RFC 7519 4.1.4: valid only before `exp`.
        if now >= expires + leeway {
            return Err(JwtRefusal::Expired);
        }
        if numeric_date(claims.get("nbf"))?.is_some_and(|not_before| now + leeway < not_before) {
            return Err(JwtRefusal::NotYetValid);
        }
        if claims.get("iss").and_then(Value::as_str) != Some(self.issuer.as_str()) {
            return Err(JwtRefusal::WrongIssuer);
        }
        let audience = self.audience.as_str();
        let for_us = match claims.get("aud") {
            Some(Value::String(aud)) => aud == audience,
            Some(Value::Array(auds)) => auds.iter().any(|aud| aud.as_str() == Some(audience)),
            _ => false,
        };
        if !for_us {
            return Err(JwtRefusal::WrongAudience);
        }
        let subject = claims
            .get("sub")
            .and_then(Value::as_str)
            .filter(|sub| is_subject(sub))
            .ok_or(JwtRefusal::MissingSubject)?;
        let name = match claims.get("name") {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) => Some(name.clone()),
            Some(_) => return Err(JwtRefusal::Malformed),
        };
        Ok(JwtPlayer {
            issuer: self.issuer.clone(),
            subject: subject.to_owned(),
            name,
        })
    }
}

/// A NumericDate claim (seconds since the epoch, fractions allowed) in
/// milliseconds; `None` when absent, refused when not a number.
fn numeric_date(claim: Option<&Value>) -> Result<Option<f64>, JwtRefusal> {
    match claim {
        None => Ok(None),
        Some(value) => value
            .as_f64()
            .filter(|seconds| seconds.is_finite())
            .map(|seconds| Some(seconds * 1000.0))
            .ok_or(JwtRefusal::Malformed),
    }
}

/// A player id: 1 to 128 bytes of printable ASCII (space to `~`).
fn is_subject(sub: &str) -> bool {
    (1..=MAX_SUBJECT_BYTES).contains(&sub.len()) && sub.bytes().all(|b| (0x20..=0x7e).contains(&b))
}
