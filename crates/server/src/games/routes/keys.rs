//! `Idempotency-Key` (IETF httpapi draft) over HTTP: a client names a
//! POST, and the server keeps its first final answer under that name: a
//! change's answer written with the change itself, a refusal's (any 4xx
//! once the game was read) on its own. The same key with the same request
//! answers that answer again (`Idempotent-Replayed: true`) and applies
//! nothing; the same key with another request, on any route or game, is
//! 422. A key names one request of one caller: keys are apart for each
//! `Authorization` sent.
//!
//! The service keeps and finds the answers (`games::idempotency`); what
//! an answer is, the status, the headers and the body, is this file's:
//! it is kept as [`KeptAnswer`] and sent again byte for byte.

use super::respond;
use crate::games::errors::corrupted;
use crate::games::idempotency::{Keeping, Key};
use crate::games::service::Answer;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use linkpath_api::{ApiError, ErrorCode};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

const HEADER: &str = "idempotency-key";

/// The most characters of a key: a UUID is 36.
const MAX_KEY: usize = 255;

/// The header's schema in the OpenAPI document: what [`read`] takes, 1 to
/// [`MAX_KEY`] visible ASCII characters (`!` to `~`).
pub(crate) fn schema() -> serde_json::Value {
    serde_json::json!({"type": "string", "minLength": 1, "maxLength": MAX_KEY, "pattern": "^[!-~]+$"})
}

/// The key of a request to `scope` with `body`, if it has one; its
/// answer, if it changes the game, is sent with `status` (and, for a new
/// game, its `Location`).
pub(super) fn read(
    headers: &HeaderMap,
    method: &str,
    scope: &str,
    body: &[u8],
    status: StatusCode,
) -> Result<Option<Key>, ApiError> {
    read_at(headers, method, scope, body, status, "/v1/games/")
}

/// As [`read`], for records whose new ones are found under `location`
/// (`/v1/matches/`).
pub(crate) fn read_at(
    headers: &HeaderMap,
    method: &str,
    scope: &str,
    body: &[u8],
    status: StatusCode,
    location: &'static str,
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
        keeping: Box::new(Http { status, location }),
    }))
}

/// How an answer of a route is kept: the status of a change's answer.
struct Http {
    status: StatusCode,
    /// Where a new record is found, its id after it.
    location: &'static str,
}

impl Keeping for Http {
    fn record(&self, id: &str, version: u64, json: &[u8]) -> Vec<u8> {
        let created = self.status == StatusCode::CREATED;
        keep(&KeptAnswer {
            status: self.status.as_u16(),
            version: Some(version),
            location: created.then(|| format!("{}{id}", self.location)),
            body: String::from_utf8_lossy(json).into_owned(),
        })
    }

    /// A 4xx is final; a 5xx is not (the store, a deadline, a full
    /// server): a retry may go through.
    fn refusal(&self, refused: &ApiError) -> Option<Vec<u8>> {
        if !(400..500).contains(&refused.status()) {
            return None;
        }
        let body = serde_json::to_string(&refused.body()).ok()?;
        Some(keep(&KeptAnswer {
            status: refused.status(),
            version: None,
            location: None,
            body,
        }))
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

fn keep(answer: &KeptAnswer) -> Vec<u8> {
    serde_json::to_vec(answer).unwrap_or_default()
}

/// The service's answer to a change, sent with `status`: the game, with
/// its `Location` when it is new, or the answer kept from a try before.
pub(super) fn send(answer: Answer, status: StatusCode) -> Result<Response, ApiError> {
    send_at(answer, status, "/v1/games/")
}

/// As [`send`], for records whose new ones are found under `location`.
pub(crate) fn send_at(
    answer: Answer,
    status: StatusCode,
    location: &str,
) -> Result<Response, ApiError> {
    match answer {
        Answer::Game { id, version, json } => {
            let location = (status == StatusCode::CREATED).then(|| format!("{location}{id}"));
            Ok(respond(status, Some(version), location.as_deref(), json))
        }
        Answer::Kept(kept) => replayed(&kept),
    }
}

/// A kept answer, sent again.
fn replayed(kept: &[u8]) -> Result<Response, ApiError> {
    let answer: KeptAnswer =
        serde_json::from_slice(kept).map_err(|e| corrupted(format!("a kept answer: {e}")))?;
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
    let mut response = respond(
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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
