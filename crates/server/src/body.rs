//! Reading a JSON request body within the limits: the media type, the size
//! (from `Content-Length` before reading, and while reading), the time a
//! client may take to send it, and the process's memory budget.
//!
//! A large body is not read while every solver slot is busy: it gets 503
//! from its head alone (a small one is read first, so that its connection
//! stays open for the next request). The slot is taken once the body is
//! read, so a client that sends slowly holds no solver. What has arrived is counted in the memory budget
//! twice, the bytes and their decoded form, as it arrives (a client holds
//! only what it has really sent), until the request is answered; a body
//! whose next bytes do not fit waits briefly for room, then gets 503.

use crate::budget::{COUNTED_PER_BODY_BYTE, MemoryBudget, Reservation};
use crate::error::{ErrorCode, HttpError};
use crate::solvers::Solvers;
use axum::body::Bytes;
use axum::extract::{FromRef, FromRequest, Request};
use axum::http::header;
use http_body_util::BodyExt;
use std::ops::Deref;
use std::time::Duration;

/// What a body may be: its size, the time it may take to arrive, and the
/// memory budget it is counted in.
#[derive(Clone)]
pub(crate) struct BodyLimits {
    pub max_bytes: usize,
    /// How long a client may take to send a body.
    pub timeout: Duration,
    /// What request bodies and unwritten answers may hold at once.
    pub memory: MemoryBudget,
    /// How long a body waits for room in the memory budget.
    pub memory_wait: Duration,
}

/// Bodies up to this size, about what the kernel holds for a connection
/// before the server reads, are read even when every solver slot is busy:
/// answering before reading would close the connection.
const READ_FIRST_BYTES: usize = 64 * 1024;

/// Reads and drops the body of a request refused before its handler, so
/// that its connection stays open for the next request: at most
/// [`READ_FIRST_BYTES`], within the body timeout, one frame held at a
/// time. A larger, late or broken body is left: the answer then closes
/// the connection, as an answer to an unread body does.
pub(crate) async fn discard(request: Request, timeout: Duration) {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|length| length > READ_FIRST_BYTES as u64) {
        return;
    }
    let mut body = request.into_body();
    let drained = async {
        let mut read = 0;
        while let Some(Ok(frame)) = body.frame().await {
            if let Ok(data) = frame.into_data() {
                read += data.len();
                if read > READ_FIRST_BYTES {
                    return;
                }
            }
        }
    };
    let _ = tokio::time::timeout(timeout, drained).await;
}

/// The raw bytes of a body that claims to be JSON, read within the limits,
/// with the memory they are counted under until this is dropped.
pub struct JsonBody {
    bytes: Bytes,
    _memory: Reservation,
}

impl Deref for JsonBody {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl<S> FromRequest<S> for JsonBody
where
    S: Send + Sync,
    BodyLimits: FromRef<S>,
    Solvers: FromRef<S>,
{
    type Rejection = HttpError;

    async fn from_request(request: Request, state: &S) -> Result<Self, HttpError> {
        let limits = BodyLimits::from_ref(state);
        let headers = request.headers();
        let content_type = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !is_json(content_type) {
            let found = if content_type.is_empty() {
                "no Content-Type".to_owned()
            } else {
                format!("Content-Type {content_type:?}")
            };
            return Err(HttpError::new(
                ErrorCode::UnsupportedMediaType,
                format!("{found}, expected application/json"),
            ));
        }
        let max = limits.max_bytes;
        let declared = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if let Some(length) = declared
            && length > max as u64
        {
            return Err(too_large(format!("{length} bytes"), max));
        }
        let expected = declared.map_or(0, |length| length as usize);
        if declared.is_none() || expected > READ_FIRST_BYTES {
            Solvers::from_ref(state).any_slot()?;
        }
        let (bytes, memory) =
            tokio::time::timeout(limits.timeout, read(request, expected, &limits))
                .await
                .map_err(|_| {
                    HttpError::new(
                        ErrorCode::RequestTimeout,
                        format!(
                            "the body did not arrive within {} ms",
                            limits.timeout.as_millis()
                        ),
                    )
                })??;
        Ok(JsonBody {
            bytes,
            _memory: memory,
        })
    }
}

/// Reads the body into one buffer of the declared length (its pages taken
/// only as the bytes arrive), or one grown as frames arrive, counting what
/// has arrived in the memory budget.
async fn read(
    request: Request,
    expected: usize,
    limits: &BodyLimits,
) -> Result<(Bytes, Reservation), HttpError> {
    let max = limits.max_bytes;
    let mut memory = limits.memory.empty();
    let mut body = request.into_body();
    let mut buffer = Vec::with_capacity(expected);
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            HttpError::new(
                ErrorCode::MalformedJson,
                format!("the body could not be read: {e}"),
            )
        })?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let length = buffer.len() + data.len();
        if length > max {
            return Err(too_large(format!("more than {max} bytes"), max));
        }
        let counted = length * COUNTED_PER_BODY_BYTE;
        if counted > memory.bytes()
            && !memory
                .grow(counted - memory.bytes(), limits.memory_wait)
                .await
        {
            return Err(no_memory(&limits.memory));
        }
        buffer.extend_from_slice(&data);
    }
    Ok((Bytes::from(buffer), memory))
}

fn too_large(size: String, max: usize) -> HttpError {
    HttpError::new(
        ErrorCode::TooLarge,
        format!("the body is {size}, over the limit of {max} bytes"),
    )
}

fn no_memory(memory: &MemoryBudget) -> HttpError {
    HttpError::new(
        ErrorCode::Overloaded,
        format!(
            "the memory budget of {} bytes is held by other requests and answers, retry shortly",
            memory.limit()
        ),
    )
    .retry_after(1)
}

/// `application/json`, with parameters or a `+json` suffix.
fn is_json(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim();
    essence.eq_ignore_ascii_case("application/json")
        || essence.rsplit_once('+').is_some_and(|(kind, suffix)| {
            kind.starts_with("application/") && suffix.eq_ignore_ascii_case("json")
        })
}
