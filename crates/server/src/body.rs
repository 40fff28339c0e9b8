//! Reading a JSON request body within the limits: the media type, the size
//! (from `Content-Length` before reading, and while reading), and the time a
//! client may take to send it.

use super::AppState;
use super::error::{ErrorCode, HttpError};
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::header;
use http_body_util::{BodyExt, LengthLimitError, Limited};

/// The raw bytes of a body that claims to be JSON, read within the limits.
pub struct JsonBody(pub Bytes);

impl FromRequest<AppState> for JsonBody {
    type Rejection = HttpError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, HttpError> {
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
        let max = state.config.request.max_body_bytes;
        let too_large = |size: String| {
            HttpError::new(
                ErrorCode::TooLarge,
                format!("the body is {size}, over the limit of {max} bytes"),
            )
        };
        let declared = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if let Some(length) = declared
            && length > max as u64
        {
            return Err(too_large(format!("{length} bytes")));
        }
        let read = Limited::new(request.into_body(), max).collect();
        match tokio::time::timeout(state.body_timeout, read).await {
            Ok(Ok(collected)) => Ok(JsonBody(collected.to_bytes())),
            Ok(Err(e)) if e.is::<LengthLimitError>() => {
                Err(too_large(format!("more than {max} bytes")))
            }
            Ok(Err(e)) => Err(HttpError::new(
                ErrorCode::MalformedJson,
                format!("the body could not be read: {e}"),
            )),
            Err(_) => Err(HttpError::new(
                ErrorCode::RequestTimeout,
                format!(
                    "the body did not arrive within {} ms",
                    state.body_timeout.as_millis()
                ),
            )),
        }
    }
}

/// `application/json`, with parameters or a `+json` suffix.
fn is_json(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim();
    essence.eq_ignore_ascii_case("application/json")
        || essence.rsplit_once('+').is_some_and(|(kind, suffix)| {
            kind.starts_with("application/") && suffix.eq_ignore_ascii_case("json")
        })
}
