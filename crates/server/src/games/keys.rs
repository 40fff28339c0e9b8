//! `Idempotency-Key` (IETF httpapi draft): a client names a POST, and the
//! server keeps its answer under that name, written with the change
//! itself. The same key with the same request answers the first answer
//! again (`Idempotent-Replayed: true`) and applies nothing; the same key
//! with another request is 422.

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
    /// The key, scoped to the route and game it was sent to, hashed: a key
    /// is the client's text, and the store's key stays short.
    stored: String,
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
        let stored = hex(&Sha256::new()
            .chain_update(scope.as_bytes())
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
        let answer = KeptAnswer {
            status,
            version,
            location: location.map(str::to_owned),
            body: String::from_utf8_lossy(json).into_owned(),
        };
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
    version: u64,
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
    if kept.fingerprint != key.fingerprint {
        return Err(ApiError::new(
            ErrorCode::IdempotencyKeyReused,
            "this Idempotency-Key was used for another request (another route, game or body), expected a new key for a new request",
        )
        .at("Idempotency-Key"));
    }
    replayed(&kept).map(Some)
}

/// A kept answer, sent again.
pub(super) fn replayed(kept: &Kept) -> Result<Response, ApiError> {
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
    let _ = header::ETAG;
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
