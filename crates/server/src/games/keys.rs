//! `Idempotency-Key` (IETF httpapi draft): a client names a POST, and the
//! server keeps its first final answer under that name: a change's answer
//! written with the change itself, a refusal's (any 4xx once the game was
//! read) on its own. The same key with the same request answers that
//! answer again (`Idempotent-Replayed: true`) and applies nothing; the
//! same key with another request, on any route or game, is 422. A key
//! names one request of one caller: keys are apart for each
//! `Authorization` sent.

use super::Games;
use crate::metrics;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use linkpath_api::{ApiError, ErrorCode};
use linkpath_store::Kept;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::time::{Duration, Instant};

const HEADER: &str = "idempotency-key";

/// The most characters of a key: a UUID is 36.
const MAX_KEY: usize = 255;

/// A request's key: where its answer is kept, and what the request was.
pub(super) struct Key {
    /// The key with the caller's credentials, hashed: a key is the
    /// client's text, and the store's key stays short.
    pub stored: String,
    fingerprint: Vec<u8>,
}

impl Key {
    /// The key of a request to `scope` with `body`, if it has one.
    pub fn read(
        headers: &HeaderMap,
        method: &str,
        scope: &str,
        body: &[u8],
    ) -> Result<Option<Key>, ApiError> {
        let Some(value) = headers.get(HEADER) else {
            return Ok(None);
        };
        let text = value.to_str().unwrap_or("");
        if text.is_empty() || text.len() > MAX_KEY || !text.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                format!(
                    "Idempotency-Key is {} bytes of which not all are visible ASCII, expected 1 to {MAX_KEY} visible ASCII characters (a UUID, say)",
                    value.len()
                ),
            )
            .at("Idempotency-Key"));
        }
        // Not the route or game: the same key sent elsewhere is found, and
        // told apart by its fingerprint.
        let caller = headers
            .get(header::AUTHORIZATION)
            .map_or(&b""[..], HeaderValue::as_bytes);
        let stored = hex(&Sha256::new()
            .chain_update(caller)
            .chain_update([0])
            .chain_update(text.as_bytes())
            .finalize());
        let fingerprint = Sha256::new()
            .chain_update(method.as_bytes())
            .chain_update([0])
            .chain_update(scope.as_bytes())
            .chain_update([0])
            .chain_update(body)
            .finalize()
            .to_vec();
        Ok(Some(Key {
            stored,
            fingerprint,
        }))
    }

    /// The answer to keep with the change, for `ttl` from `now`.
    pub fn keep(
        &self,
        status: u16,
        version: u64,
        location: Option<&str>,
        json: &[u8],
        now: u64,
        ttl: Duration,
    ) -> (String, Kept) {
        self.kept(
            KeptAnswer {
                status,
                version: Some(version),
                location: location.map(str::to_owned),
                body: String::from_utf8_lossy(json).into_owned(),
            },
            now,
            ttl,
        )
    }

    /// The refusal `error` to keep, if it is final: a 4xx. A 5xx is not
    /// (the store, a deadline, a full server): a retry may go through.
    pub fn keep_refusal(
        &self,
        error: &ApiError,
        now: u64,
        ttl: Duration,
    ) -> Option<(String, Kept)> {
        if !(400..500).contains(&error.status()) {
            return None;
        }
        let body = serde_json::to_string(&error.body()).ok()?;
        Some(self.kept(
            KeptAnswer {
                status: error.status(),
                version: None,
                location: None,
                body,
            },
            now,
            ttl,
        ))
    }

    fn kept(&self, answer: KeptAnswer, now: u64, ttl: Duration) -> (String, Kept) {
        let kept = Kept {
            fingerprint: self.fingerprint.clone(),
            answer: serde_json::to_vec(&answer).unwrap_or_default(),
            expires_at_ms: now + ttl.as_millis() as u64,
        };
        (self.stored.clone(), kept)
    }
}

/// An answer as kept.
#[derive(Serialize, Deserialize)]
struct KeptAnswer {
    status: u16,
    /// The game's version, for `ETag`; none on a refusal.
    #[serde(default)]
    version: Option<u64>,
    #[serde(default)]
    location: Option<String>,
    body: String,
}

/// The answer kept under `key`, if it was answered before: the same answer
/// for the same request, 422 for another.
pub(super) async fn kept_answer(
    games: &Games,
    key: &Key,
    now: u64,
) -> Result<Option<Response>, ApiError> {
    let started = Instant::now();
    let kept = games.store.kept(&key.stored, now).await;
    metrics::record_store("read", started);
    let Some(kept) = kept.map_err(super::unavailable)? else {
        return Ok(None);
    };
    replayed(key, &kept).map(Some)
}

/// The answer kept under `key`, sent again if it answered this request;
/// 422 if it answered another.
pub(super) fn replayed(key: &Key, kept: &Kept) -> Result<Response, ApiError> {
    if kept.fingerprint != key.fingerprint {
        return Err(ApiError::new(
            ErrorCode::IdempotencyKeyReused,
            "this Idempotency-Key was used for another request (another route, game or body), expected a new key for a new request",
        )
        .at("Idempotency-Key"));
    }
    let answer: KeptAnswer = serde_json::from_slice(&kept.answer).map_err(|e| {
        super::unavailable(linkpath_store::StoreError::Corrupted(format!(
            "a kept answer: {e}"
        )))
    })?;
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
    let mut response = super::respond(
        status,
        answer.version,
        answer.location.as_deref(),
        answer.body.into_bytes(),
    );
    response
        .headers_mut()
        .insert("idempotent-replayed", HeaderValue::from_static("true"));
    Ok(response)
}

/// Spreads ids over the per-game locks.
pub(super) fn spread(id: &str) -> usize {
    // FNV-1a; the ids are random already.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in id.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash as usize
}

/// The first characters of an id: enough to find it in a log, not enough
/// to act on the game.
pub(super) fn short(id: &str) -> &str {
    id.get(..6).unwrap_or("")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
