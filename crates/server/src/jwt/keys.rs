//! The keys a studio's tokens are checked with, read once at start: an
//! HS256 secret, or a file holding a PEM public key (RSA: RS256, Ed25519:
//! EdDSA) or a JWKS, whose keys are picked by the token's `kid`.
//!
//! Each key is checked here as far as it can be without a token (an RSA
//! modulus of at least 2048 bits, an Ed25519 point on the curve), so a
//! wrong file stops the start rather than refusing every player.

use super::JwtRefusal;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, DecodingKeyKind, Validation};
use serde_json::{Map, Value};
use std::io::Read;
use std::path::Path;

/// Largest key file read: a JWKS of a few dozen RSA keys fits many times.
const MAX_KEY_FILE_BYTES: u64 = 1 << 20;

/// Shortest HS256 secret, in bytes: the hash's own size (RFC 7518 3.2).
pub(crate) const MIN_SECRET_BYTES: usize = 32;

/// Smallest RSA modulus taken, in bits.
const MIN_RSA_BITS: u32 = 2048;

const KEY_SETTING: &str = "--player-jwt-key (LINKPATH_PLAYER_JWT_KEY)";

/// One key and the one algorithm tokens signed with it may name.
pub(super) struct VerifyingKey {
    pub(super) algorithm: Algorithm,
    key: DecodingKey,
    /// Signature and algorithm only: the claims are judged by the caller,
    /// to the millisecond and each with its own refusal.
    validation: Validation,
}

/// The configured keys: one, or a JWKS's by `kid`.
pub(super) enum Keys {
    One(Box<VerifyingKey>),
    ById(Vec<(String, VerifyingKey)>),
}

impl Keys {
    /// An HS256 shared secret.
    pub(super) fn from_secret(secret: &[u8]) -> Result<Keys, String> {
        if secret.len() < MIN_SECRET_BYTES {
            return Err(format!(
                "--player-jwt-secret (LINKPATH_PLAYER_JWT_SECRET) is too short: expected at \
                 least {MIN_SECRET_BYTES} bytes"
            ));
        }
        let key = DecodingKey::from_secret(secret).map_err(|e| format!("the secret: {e}"))?;
        Ok(Keys::One(Box::new(VerifyingKey::new(
            Algorithm::HS256,
            key,
        ))))
    }

    /// The key or keys in the file at `path`.
    pub(super) fn from_file(path: &Path) -> Result<Keys, String> {
        let at = |problem: String| format!("{KEY_SETTING} is {}: {problem}", path.display());
        let mut text = String::new();
        std::fs::File::open(path)
            .and_then(|file| file.take(MAX_KEY_FILE_BYTES + 1).read_to_string(&mut text))
            .map_err(|e| at(format!("cannot be read ({e})")))?;
        if text.len() as u64 > MAX_KEY_FILE_BYTES {
            return Err(at(format!(
                "expected a key file of at most {MAX_KEY_FILE_BYTES} bytes"
            )));
        }
        let trimmed = text.trim_start();
        if trimmed.starts_with('{') {
            jwks(trimmed).map_err(at)
        } else if trimmed.starts_with("-----BEGIN") {
            pem(trimmed.as_bytes())
                .map(|key| Keys::One(Box::new(key)))
                .map_err(at)
        } else {
            Err(at(
                "expected a PEM public key (-----BEGIN PUBLIC KEY-----) or a JWKS \
                 ({\"keys\": [...]})"
                    .into(),
            ))
        }
    }

    /// The key for a token's `kid`: a JWKS's key of that id, or its only
    /// key for a token without one; the one key whatever the `kid`.
    pub(super) fn find(&self, kid: Option<&str>) -> Option<&VerifyingKey> {
        match (self, kid) {
            (Keys::One(key), _) => Some(key),
            (Keys::ById(keys), Some(kid)) => keys.iter().find(|(id, _)| id == kid).map(|k| &k.1),
            (Keys::ById(keys), None) => match keys.as_slice() {
                [(_, only)] => Some(only),
                _ => None,
            },
        }
    }
}

impl VerifyingKey {
    fn new(algorithm: Algorithm, key: DecodingKey) -> Self {
        let mut validation = Validation::new(algorithm);
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        validation.validate_nbf = false;
        validation.validate_aud = false;
        validation.leeway = 0;
        VerifyingKey {
            algorithm,
            key,
            validation,
        }
    }

    /// The claims of `token` if its signature verifies with this key.
    pub(super) fn decode(&self, token: &str) -> Result<Map<String, Value>, JwtRefusal> {
        use jsonwebtoken::errors::ErrorKind;
        jsonwebtoken::decode::<Map<String, Value>>(token, &self.key, &self.validation)
            .map(|data| data.claims)
            .map_err(|e| match e.kind() {
                ErrorKind::InvalidSignature => JwtRefusal::BadSignature,
                ErrorKind::InvalidAlgorithm | ErrorKind::MissingAlgorithm => {
                    JwtRefusal::WrongAlgorithm
                }
                _ => JwtRefusal::Malformed,
            })
    }
}

/// A PEM public key: RSA (PKCS#1 or SPKI) or Ed25519 (SPKI).
fn pem(text: &[u8]) -> Result<VerifyingKey, String> {
    if text.windows(11).any(|w| w == b"PRIVATE KEY") {
        return Err(
            "expected a public key, found a private one: give linkpath the public half \
             (openssl pkey -pubout)"
                .into(),
        );
    }
    if let Ok(key) = DecodingKey::from_rsa_pem(text) {
        check_rsa(&key)?;
        return Ok(VerifyingKey::new(Algorithm::RS256, key));
    }
    if let Ok(key) = DecodingKey::from_ed_pem(text) {
        check_ed25519(&key)?;
        return Ok(VerifyingKey::new(Algorithm::EdDSA, key));
    }
    Err("expected an RSA or Ed25519 public key in PEM".into())
}

/// A JWKS: every signing key with a `kid`, each checked; a key for
/// encryption (`"use": "enc"`) is left out.
fn jwks(text: &str) -> Result<Keys, String> {
    let set: JwkSet =
        serde_json::from_str(text).map_err(|e| format!("not a JWKS ({{\"keys\": [...]}}): {e}"))?;
    let mut keys: Vec<(String, VerifyingKey)> = Vec::new();
    for (place, jwk) in set.keys.iter().enumerate() {
        if jwk.common.public_key_use == Some(PublicKeyUse::Encryption) {
            continue;
        }
        let kid =
            jwk.common.key_id.clone().ok_or_else(|| {
                format!("key {place} of the JWKS has no kid: expected one on each")
            })?;
        if keys.iter().any(|(id, _)| *id == kid) {
            return Err(format!("two keys of the JWKS have the kid {kid:?}"));
        }
        let key = jwk_key(jwk).map_err(|e| format!("key {kid:?} of the JWKS: {e}"))?;
        keys.push((kid, key));
    }
    if keys.is_empty() {
        return Err("the JWKS has no signing key".into());
    }
    Ok(Keys::ById(keys))
}

/// One JWK and its algorithm: its `alg` if it has one (which must suit
/// its type), else RS256 for RSA and EdDSA for Ed25519.
fn jwk_key(jwk: &Jwk) -> Result<VerifyingKey, String> {
    let named = match &jwk.common.key_algorithm {
        Some(alg) => Some(
            alg.to_string()
                .parse::<Algorithm>()
                .map_err(|_| format!("its alg {alg} is not a signing algorithm"))?,
        ),
        None => None,
    };
    let key = DecodingKey::from_jwk(jwk).map_err(|e| format!("not a usable key ({e})"))?;
    let algorithm = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => {
            check_rsa(&key)?;
            let rsa = [
                Algorithm::RS256,
                Algorithm::RS384,
                Algorithm::RS512,
                Algorithm::PS256,
                Algorithm::PS384,
                Algorithm::PS512,
            ];
            suited(named, Algorithm::RS256, &rsa)?
        }
        AlgorithmParameters::OctetKeyPair(params) if params.curve == EllipticCurve::Ed25519 => {
            check_ed25519(&key)?;
            suited(named, Algorithm::EdDSA, &[Algorithm::EdDSA])?
        }
        AlgorithmParameters::OctetKey(_) => {
            return Err("a shared secret (kty oct) belongs in --player-jwt-secret \
                        (LINKPATH_PLAYER_JWT_SECRET), not in a key file"
                .into());
        }
        _ => return Err("expected an RSA key or an OKP key on the Ed25519 curve".into()),
    };
    Ok(VerifyingKey::new(algorithm, key))
}

/// The JWK's own `alg` when it is one of those its type takes, else the
/// type's default.
fn suited(
    named: Option<Algorithm>,
    default: Algorithm,
    allowed: &[Algorithm],
) -> Result<Algorithm, String> {
    match named {
        None => Ok(default),
        Some(alg) if allowed.contains(&alg) => Ok(alg),
        Some(alg) => Err(format!("its alg {alg:?} does not suit its key type")),
    }
}

/// An RSA public key that parses, of at least [`MIN_RSA_BITS`].
fn check_rsa(key: &DecodingKey) -> Result<(), String> {
    use rsa::pkcs1::DecodeRsaPublicKey;
    use rsa::traits::PublicKeyParts;
    let parsed = match key.kind() {
        DecodingKeyKind::SecretOrDer(der) => rsa::PublicKey::from_pkcs1_der(der)
            .map_err(|e| format!("not an RSA public key ({e})"))?,
        DecodingKeyKind::RsaModulusExponent { n, e } => rsa::PublicKey::new(
            rsa::BoxedUint::from_be_slice_vartime(n),
            rsa::BoxedUint::from_be_slice_vartime(e),
        )
        .map_err(|e| format!("not an RSA public key ({e})"))?,
    };
    let bits = parsed.n().bit_width();
    if bits < MIN_RSA_BITS {
        return Err(format!(
            "the RSA key has {bits} bits: expected at least {MIN_RSA_BITS}"
        ));
    }
    Ok(())
}

/// An Ed25519 public key: 32 bytes that are a point of the curve, which
/// the verifier's construction checks (an empty signature never verifies,
/// so only the key can make it fail).
fn check_ed25519(key: &DecodingKey) -> Result<(), String> {
    let length = match key.kind() {
        DecodingKeyKind::SecretOrDer(bytes) => bytes.len(),
        DecodingKeyKind::RsaModulusExponent { .. } => 0,
    };
    if length != 32 {
        return Err(format!("the Ed25519 key has {length} bytes: expected 32"));
    }
    jsonwebtoken::crypto::verify("", b"", key, Algorithm::EdDSA)
        .map(drop)
        .map_err(|e| format!("not an Ed25519 public key ({e})"))
}
