//! API errors as HTTP answers: the status, the JSON body, `Retry-After`.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
pub(crate) use linkpath_api::{ApiError, ErrorCode};

/// An [`ApiError`] on its way out as an HTTP answer; handlers return it so
/// that `?` turns any API error into one.
#[derive(Debug)]
pub struct HttpError(pub ApiError);

impl HttpError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        HttpError(ApiError::new(code, message))
    }

    /// Seconds for `Retry-After`.
    pub fn retry_after(self, seconds: u64) -> Self {
        HttpError(self.0.retry_after(seconds))
    }
}

impl From<ApiError> for HttpError {
    fn from(error: ApiError) -> Self {
        HttpError(error)
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        let error = self.0;
        // Requests refused before any solving are counted here, in one
        // place, whichever layer refused them.
        super::metrics::record_rejection(error.code);
        let status =
            StatusCode::from_u16(error.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, Json(error.body())).into_response();
        // For the request's log line.
        response.extensions_mut().insert(error.code);
        if let Some(seconds) = error.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}
