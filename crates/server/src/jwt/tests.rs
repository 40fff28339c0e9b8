//! The verifier on tokens signed here with the keys of
//! `tests/data/jwt/` (made with openssl, for these tests only), at a fixed
//! time: each valid kind accepted with its player, each fault refused
//! with its reason, and each bad setting stopping the start.

use super::*;
use crate::config::Config;
use jsonwebtoken::{EncodingKey, Header as JwtHeader};
use serde_json::json;
use std::path::PathBuf;

/// The time of every check but those on the real clock: 2027-01-15,
/// in milliseconds.
const NOW_MS: u64 = 1_800_000_000_000;
const NOW: u64 = NOW_MS / 1000;
const SECRET: &str = "a studio secret of at least 32 bytes";
const ISSUER: &str = "https://login.studio.example";
const AUDIENCE: &str = "linkpath";

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/jwt")).join(name)
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap()
}

fn config(key: Option<PathBuf>, secret: Option<&str>) -> Config {
    let mut config = Config::default();
    config.player_jwt.player_jwt_key = key;
    config.player_jwt.player_jwt_secret = secret.map(str::to_owned);
    config.player_jwt.player_jwt_issuer = Some(ISSUER.into());
    config.player_jwt.player_jwt_audience = Some(AUDIENCE.into());
    config
}

fn verifier(config: &Config) -> JwtVerifier {
    JwtVerifier::from_config(config)
        .expect("the settings are valid")
        .expect("a verifier is configured")
}

fn hs256() -> JwtVerifier {
    verifier(&config(None, Some(SECRET)))
}

fn rs256_pem() -> JwtVerifier {
    verifier(&config(Some(fixture("rsa-public.pem")), None))
}

fn jwks() -> JwtVerifier {
    verifier(&config(Some(fixture("jwks.json")), None))
}

/// Valid claims for [`NOW`], with `change` applied.
fn claims(change: impl FnOnce(&mut Map<String, Value>)) -> Value {
    let mut claims = json!({
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": "player-7",
        "name": "Ada",
        "iat": NOW,
        "exp": NOW + 600,
    });
    change(claims.as_object_mut().unwrap());
    claims
}

fn valid() -> Value {
    claims(|_| {})
}

fn sign(algorithm: Algorithm, kid: Option<&str>, key: &EncodingKey, claims: &Value) -> String {
    let mut header = JwtHeader::new(algorithm);
    header.kid = kid.map(str::to_owned);
    jsonwebtoken::encode(&header, claims, key).unwrap()
}

fn hs_token(claims: &Value) -> String {
    let key = EncodingKey::from_secret(SECRET.as_bytes()).unwrap();
    sign(Algorithm::HS256, None, &key, claims)
}

fn rs_token(kid: Option<&str>, claims: &Value) -> String {
    let key = EncodingKey::from_rsa_pem(&read("rsa-private.pem")).unwrap();
    sign(Algorithm::RS256, kid, &key, claims)
}

fn ed_token(file: &str, kid: Option<&str>, claims: &Value) -> String {
    let key = EncodingKey::from_ed_pem(&read(file)).unwrap();
    sign(Algorithm::EdDSA, kid, &key, claims)
}

/// A token of `header` and `claims` with `signature`, base64url each.
fn raw_token(header: &Value, claims: &Value, signature: &[u8]) -> String {
    let part = |bytes: &[u8]| URL_SAFE_NO_PAD.encode(bytes);
    format!(
        "{}.{}.{}",
        part(header.to_string().as_bytes()),
        part(claims.to_string().as_bytes()),
        part(signature)
    )
}

fn player(subject: &str, name: Option<&str>) -> JwtPlayer {
    JwtPlayer {
        issuer: ISSUER.into(),
        subject: subject.into(),
        name: name.map(str::to_owned),
    }
}

#[test]
fn valid_tokens_of_each_key_kind_name_their_player() {
    assert_eq!(
        hs256().verify_at(&hs_token(&valid()), NOW_MS),
        Ok(player("player-7", Some("Ada")))
    );
    assert_eq!(
        rs256_pem().verify_at(&rs_token(None, &valid()), NOW_MS),
        Ok(player("player-7", Some("Ada")))
    );
    let nameless = claims(|c| {
        c.remove("name");
    });
    let ed = ed_token("ed25519-private.pem", Some("studio-ed-1"), &nameless);
    let accepted = jwks().verify_at(&ed, NOW_MS).unwrap();
    assert_eq!(
        (
            accepted.issuer.as_str(),
            accepted.subject.as_str(),
            accepted.name
        ),
        (ISSUER, "player-7", None)
    );
    // The JWKS's RSA key, by its own kid.
    assert_eq!(
        jwks().verify_at(&rs_token(Some("studio-rsa-1"), &valid()), NOW_MS),
        Ok(player("player-7", Some("Ada")))
    );
    // An Ed25519 PEM key: EdDSA.
    let ed_pem = verifier(&config(Some(fixture("ed25519-public.pem")), None));
    let token = ed_token("ed25519-private.pem", None, &valid());
    assert_eq!(
        ed_pem.verify_at(&token, NOW_MS),
        Ok(player("player-7", Some("Ada")))
    );
}

#[test]
fn the_audience_may_be_one_of_several_and_the_subject_any_printable_ascii() {
    let several = claims(|c| {
        c.insert("aud".into(), json!(["other", AUDIENCE]));
        c.insert("sub".into(), json!("~ a player id, with spaces ~"));
    });
    assert_eq!(
        hs256().verify_at(&hs_token(&several), NOW_MS),
        Ok(player("~ a player id, with spaces ~", Some("Ada")))
    );
    let longest = "p".repeat(MAX_SUBJECT_BYTES);
    let at_most = claims(|c| {
        c.insert("sub".into(), json!(longest));
    });
    assert_eq!(
        hs256()
            .verify_at(&hs_token(&at_most), NOW_MS)
            .map(|p| p.subject.len()),
        Ok(128)
    );
}

#[test]
fn a_token_signed_with_another_key_is_refused() {
    let key = EncodingKey::from_secret(b"another studio secret, 32 bytes long").unwrap();
    let other = sign(Algorithm::HS256, None, &key, &valid());
    assert_eq!(
        hs256().verify_at(&other, NOW_MS),
        Err(JwtRefusal::BadSignature)
    );
    let other_ed = ed_token("ed25519-other-private.pem", Some("studio-ed-1"), &valid());
    assert_eq!(
        jwks().verify_at(&other_ed, NOW_MS),
        Err(JwtRefusal::BadSignature)
    );
    // A kid the JWKS does not hold, or none when it holds two keys.
    let unknown = ed_token("ed25519-private.pem", Some("studio-ed-2"), &valid());
    assert_eq!(
        jwks().verify_at(&unknown, NOW_MS),
        Err(JwtRefusal::BadSignature)
    );
    let no_kid = ed_token("ed25519-private.pem", None, &valid());
    assert_eq!(
        jwks().verify_at(&no_kid, NOW_MS),
        Err(JwtRefusal::BadSignature)
    );
    // A signature changed by one character (not the last, whose low bits
    // are padding).
    let mut token = rs_token(None, &valid()).into_bytes();
    let at = token.len() - 10;
    token[at] = if token[at] == b'A' { b'B' } else { b'A' };
    let token = String::from_utf8(token).unwrap();
    assert_eq!(
        rs256_pem().verify_at(&token, NOW_MS),
        Err(JwtRefusal::BadSignature)
    );
}

#[test]
fn an_unsigned_token_is_refused_for_its_algorithm() {
    let none = raw_token(&json!({"alg": "none", "typ": "JWT"}), &valid(), b"");
    assert!(looks_like_jwt(&none));
    for verifier in [hs256(), rs256_pem(), jwks()] {
        assert_eq!(
            verifier.verify_at(&none, NOW_MS),
            Err(JwtRefusal::WrongAlgorithm)
        );
    }
    let none = raw_token(
        &json!({"alg": "None", "kid": "studio-ed-1"}),
        &valid(),
        b"x",
    );
    assert_eq!(
        jwks().verify_at(&none, NOW_MS),
        Err(JwtRefusal::WrongAlgorithm)
    );
}

#[test]
fn an_hs256_token_keyed_with_the_rsa_public_key_is_refused() {
    // The classic confusion: the public key's bytes used as an HMAC secret.
    let public = EncodingKey::from_secret(&read("rsa-public.pem")).unwrap();
    let forged = sign(Algorithm::HS256, None, &public, &valid());
    assert_eq!(
        rs256_pem().verify_at(&forged, NOW_MS),
        Err(JwtRefusal::WrongAlgorithm)
    );
    let forged = sign(Algorithm::HS256, Some("studio-rsa-1"), &public, &valid());
    assert_eq!(
        jwks().verify_at(&forged, NOW_MS),
        Err(JwtRefusal::WrongAlgorithm)
    );
    // And an RS256 token where the secret is configured.
    assert_eq!(
        hs256().verify_at(&rs_token(None, &valid()), NOW_MS),
        Err(JwtRefusal::WrongAlgorithm)
    );
    // Another algorithm of the same key's family is not the key's either.
    let key = EncodingKey::from_rsa_pem(&read("rsa-private.pem")).unwrap();
    let rs512 = sign(Algorithm::RS512, None, &key, &valid());
    assert_eq!(
        rs256_pem().verify_at(&rs512, NOW_MS),
        Err(JwtRefusal::WrongAlgorithm)
    );
}

/// `claims` changed by `change`, signed with the secret, checked at
/// [`NOW_MS`] with the default leeway of 30 s.
fn refusal(change: impl FnOnce(&mut Map<String, Value>)) -> Result<String, JwtRefusal> {
    hs256()
        .verify_at(&hs_token(&claims(change)), NOW_MS)
        .map(|player| player.subject)
}

#[test]
fn exp_and_nbf_are_checked_within_the_leeway() {
    let at = |claim: &'static str, value: Value| {
        refusal(move |c| {
            c.insert(claim.into(), value);
        })
    };
    let accepted = Ok("player-7".to_owned());
    assert_eq!(at("exp", json!(NOW - 30)), Err(JwtRefusal::Expired));
    assert_eq!(at("exp", json!(NOW - 3600)), Err(JwtRefusal::Expired));
    assert_eq!(at("exp", json!(NOW - 29)), accepted);
    // A NumericDate may have a fraction: 29.999 s past it, then 30.001.
    assert_eq!(at("exp", json!(NOW as f64 - 29.999)), accepted);
    assert_eq!(
        at("exp", json!(NOW as f64 - 30.001)),
        Err(JwtRefusal::Expired)
    );
    assert_eq!(at("nbf", json!(NOW + 31)), Err(JwtRefusal::NotYetValid));
    assert_eq!(at("nbf", json!(NOW + 30)), accepted);
    assert_eq!(at("nbf", json!(NOW)), accepted);
    assert_eq!(
        refusal(|c| {
            c.remove("exp");
        }),
        Err(JwtRefusal::Malformed),
        "exp is required"
    );
    assert_eq!(at("exp", json!("tomorrow")), Err(JwtRefusal::Malformed));
    assert_eq!(at("nbf", json!(null)), Err(JwtRefusal::Malformed));

    // Without leeway, the second of `exp` is already too late.
    let mut strict = config(None, Some(SECRET));
    strict.player_jwt.player_jwt_leeway_ms = 0;
    let token = hs_token(&claims(|c| {
        c.insert("exp".into(), json!(NOW));
    }));
    assert_eq!(
        verifier(&strict).verify_at(&token, NOW_MS),
        Err(JwtRefusal::Expired)
    );
    assert_eq!(
        verifier(&strict)
            .verify_at(&token, NOW_MS - 1)
            .map(|p| p.subject),
        accepted
    );
}

#[test]
fn issuer_audience_and_subject_are_each_refused_by_name() {
    let set = |claim: &'static str, value: Value| {
        refusal(move |c| {
            c.insert(claim.into(), value);
        })
    };
    let drop = |claim: &'static str| {
        refusal(move |c| {
            c.remove(claim);
        })
    };
    assert_eq!(
        set("iss", json!("https://evil.example")),
        Err(JwtRefusal::WrongIssuer)
    );
    assert_eq!(drop("iss"), Err(JwtRefusal::WrongIssuer));
    assert_eq!(
        set("aud", json!("another-service")),
        Err(JwtRefusal::WrongAudience)
    );
    assert_eq!(
        set("aud", json!(["a", "b"])),
        Err(JwtRefusal::WrongAudience)
    );
    assert_eq!(drop("aud"), Err(JwtRefusal::WrongAudience));
    assert_eq!(drop("sub"), Err(JwtRefusal::MissingSubject));
    for bad in [
        json!(""),
        json!("p".repeat(129)),
        json!("joué"),
        json!("a\tb"),
        json!(7),
    ] {
        assert_eq!(
            set("sub", bad.clone()),
            Err(JwtRefusal::MissingSubject),
            "{bad}"
        );
    }
    assert_eq!(set("name", json!(7)), Err(JwtRefusal::Malformed));
    // The times are judged first: an expired token of the wrong issuer.
    let both = refusal(|c| {
        c.insert("exp".into(), json!(NOW - 3600));
        c.insert("iss".into(), json!("https://evil.example"));
    });
    assert_eq!(both, Err(JwtRefusal::Expired));
}

#[test]
fn what_is_not_a_jwt_is_malformed() {
    let long = format!("{}.e30.sig", "a".repeat(MAX_TOKEN_BYTES));
    let not_json = raw_token(&json!("just a string"), &valid(), b"sig");
    let claims_not_json = format!(
        "{}.{}.c2ln",
        URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256"}"#),
        URL_SAFE_NO_PAD.encode(b"not json")
    );
    for token in [
        "",
        "lk_0123456789abcdef",
        "a.b",
        "a.b.c.d",
        "a+b.c.d",
        "a.b.c",
        ".e30.sig",
        long.as_str(),
        not_json.as_str(),
    ] {
        assert_eq!(
            hs256().verify_at(token, NOW_MS),
            Err(JwtRefusal::Malformed),
            "{token:.40}"
        );
    }
    // A header that parses but claims that do not: the signature is
    // checked first, and this one is not signed with the secret.
    assert_eq!(
        hs256().verify_at(&claims_not_json, NOW_MS),
        Err(JwtRefusal::BadSignature)
    );
    assert!(looks_like_jwt(&hs_token(&valid())));
    assert!(!looks_like_jwt("a.b"));
    assert!(!looks_like_jwt("a..c"));
    assert!(!looks_like_jwt("a.b=.c"));
}

#[test]
fn each_refusal_has_its_label_and_message() {
    let all = [
        JwtRefusal::Malformed,
        JwtRefusal::WrongAlgorithm,
        JwtRefusal::BadSignature,
        JwtRefusal::Expired,
        JwtRefusal::NotYetValid,
        JwtRefusal::WrongIssuer,
        JwtRefusal::WrongAudience,
        JwtRefusal::MissingSubject,
    ];
    assert_eq!(
        all.map(JwtRefusal::reason),
        [
            "malformed",
            "wrong_algorithm",
            "bad_signature",
            "expired",
            "not_yet_valid",
            "wrong_issuer",
            "wrong_audience",
            "missing_subject",
        ]
    );
    assert_eq!(JwtRefusal::Expired.to_string(), "the token has expired");
    assert_eq!(
        JwtRefusal::MissingSubject.message(),
        "the token names no player: sub must be 1 to 128 printable ASCII characters"
    );
}

/// A file of `text` in the temporary folder, for one test.
fn temporary(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("linkpath-jwt-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

fn start_error(config: &Config) -> String {
    match JwtVerifier::from_config(config) {
        Err(message) => message,
        Ok(verifier) => panic!("started with a verifier: {}", verifier.is_some()),
    }
}

#[test]
fn settings_that_cannot_work_stop_the_start() {
    assert!(
        JwtVerifier::from_config(&Config::default())
            .unwrap()
            .is_none()
    );
    assert_eq!(
        start_error(&config(Some(fixture("rsa-public.pem")), Some(SECRET))),
        "--player-jwt-key (LINKPATH_PLAYER_JWT_KEY) and --player-jwt-secret \
         (LINKPATH_PLAYER_JWT_SECRET) are both set: expected at most one"
    );
    assert_eq!(
        start_error(&config(None, Some(&SECRET[..31]))),
        "--player-jwt-secret (LINKPATH_PLAYER_JWT_SECRET) is too short: expected at least 32 bytes"
    );
    let mut no_issuer = config(None, Some(SECRET));
    no_issuer.player_jwt.player_jwt_issuer = None;
    assert_eq!(
        start_error(&no_issuer),
        "--player-jwt-issuer (LINKPATH_PLAYER_JWT_ISSUER) is not set: expected the issuer (iss) \
         of the studio's tokens, required with --player-jwt-key or --player-jwt-secret"
    );
    let mut no_audience = config(Some(fixture("jwks.json")), None);
    no_audience.player_jwt.player_jwt_audience = None;
    assert_eq!(
        start_error(&no_audience),
        "--player-jwt-audience (LINKPATH_PLAYER_JWT_AUDIENCE) is not set: expected the audience \
         (aud) of the studio's tokens, required with --player-jwt-key or --player-jwt-secret"
    );
    let alone = config(None, None);
    assert_eq!(
        start_error(&alone),
        "--player-jwt-issuer (LINKPATH_PLAYER_JWT_ISSUER) is set without a key: expected \
         --player-jwt-key (LINKPATH_PLAYER_JWT_KEY) or --player-jwt-secret \
         (LINKPATH_PLAYER_JWT_SECRET) too"
    );
}

#[test]
fn a_key_file_that_cannot_work_stops_the_start() {
    let key_error = |path: PathBuf| {
        let message = start_error(&config(Some(path.clone()), None));
        let prefix = format!(
            "--player-jwt-key (LINKPATH_PLAYER_JWT_KEY) is {}: ",
            path.display()
        );
        message
            .strip_prefix(&prefix)
            .unwrap_or_else(|| panic!("{message}"))
            .to_owned()
    };
    assert_eq!(
        key_error(fixture("rsa-private.pem")),
        "expected a public key, found a private one: give linkpath the public half \
         (openssl pkey -pubout)"
    );
    assert_eq!(
        key_error(fixture("rsa-1024-public.pem")),
        "the RSA key has 1024 bits: expected at least 2048"
    );
    assert!(key_error(fixture("missing.pem")).starts_with("cannot be read ("));
    let cases = [
        (
            "not-a-key",
            "ssh-ed25519 AAAA",
            "expected a PEM public key (-----BEGIN PUBLIC KEY-----) or a JWKS ({\"keys\": [...]})",
        ),
        (
            "empty-set",
            r#"{"keys": []}"#,
            "the JWKS has no signing key",
        ),
        (
            "no-kid",
            r#"{"keys": [{"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#,
            "key 0 of the JWKS has no kid: expected one on each",
        ),
        (
            "short-ed",
            r#"{"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "k", "x": "AAAA"}]}"#,
            "key \"k\" of the JWKS: the Ed25519 key has 3 bytes: expected 32",
        ),
        (
            "secret",
            r#"{"keys": [{"kty": "oct", "kid": "k", "k": "c2VjcmV0"}]}"#,
            "key \"k\" of the JWKS: a shared secret (kty oct) belongs in --player-jwt-secret \
             (LINKPATH_PLAYER_JWT_SECRET), not in a key file",
        ),
        (
            "mismatch",
            r#"{"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "k", "alg": "RS256", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#,
            "key \"k\" of the JWKS: its alg RS256 does not suit its key type",
        ),
    ];
    for (name, text, expected) in cases {
        let path = temporary(name, text);
        assert_eq!(key_error(path.clone()), expected, "{name}");
        std::fs::remove_file(path).unwrap();
    }
    // An encryption key is left out; the signing key beside it is used.
    let mut set: Value = serde_json::from_slice(&read("jwks.json")).unwrap();
    set["keys"].as_array_mut().unwrap().push(json!(
        {"kty": "RSA", "use": "enc", "kid": "enc-1", "n": "AQAB", "e": "AQAB"}
    ));
    let path = temporary("with-enc", &set.to_string());
    let token = ed_token("ed25519-private.pem", Some("studio-ed-1"), &valid());
    assert_eq!(
        verifier(&config(Some(path.clone()), None)).verify_at(&token, NOW_MS),
        Ok(player("player-7", Some("Ada")))
    );
    std::fs::remove_file(path).unwrap();
}

#[test]
fn the_state_holds_the_verifier_and_it_reads_the_clock() {
    use axum::extract::FromRef;
    let state = crate::AppState::new(config(None, Some(SECRET)));
    let Some(verifier) = crate::players::Gate::from_ref(&state).jwt else {
        panic!("the state has no verifier");
    };
    let now = jsonwebtoken::get_current_timestamp();
    let current = hs_token(&claims(|c| {
        c.insert("iat".into(), json!(now));
        c.insert("exp".into(), json!(now + 600));
    }));
    assert_eq!(
        verifier.verify(&current),
        Ok(player("player-7", Some("Ada")))
    );
    let past = hs_token(&claims(|c| {
        c.insert("exp".into(), json!(now - 3600));
    }));
    assert_eq!(verifier.verify(&past), Err(JwtRefusal::Expired));
    let unconfigured = crate::AppState::new(Config::default());
    assert!(crate::players::Gate::from_ref(&unconfigured).jwt.is_none());
}
