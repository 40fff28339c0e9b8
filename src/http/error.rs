//! The one error type of the HTTP layer. Every failure becomes a JSON body
//! `{"error": {"code", "message", "field"?}}` with the status that fits.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// What went wrong with a request, named by its wire `code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// 400 Bad Request: the body is not JSON.
    MalformedJson,
    /// 401 Unauthorized: a missing or unknown API key.
    Unauthorized,
    /// 404 Not Found: no such route.
    NotFound,
    /// 405 Method Not Allowed.
    MethodNotAllowed,
    /// 408 Request Timeout: the body arrived too slowly.
    RequestTimeout,
    /// 413 Payload Too Large: body, cells or queries over a limit.
    TooLarge,
    /// 415 Unsupported Media Type: not `application/json`.
    UnsupportedMediaType,
    /// 422 Unprocessable Entity: a board that is not rectangular or not
    /// made of the allowed cells.
    InvalidBoard,
    /// 422: unknown preset or a bad rules field.
    InvalidRules,
    /// 422: a query point off the board or malformed.
    InvalidQuery,
    /// 422: any other well-formed but wrong request.
    InvalidRequest,
    /// 429 Too Many Requests: the client's rate limit.
    RateLimited,
    /// 500: a bug; details are logged, never sent.
    Internal,
    /// 501 Not Implemented: a transfer coding other than `chunked`.
    NotImplemented,
    /// 503 Service Unavailable: every solver slot is busy.
    Overloaded,
    /// 504 Gateway Timeout: the solve passed its deadline.
    DeadlineExceeded,
}

impl ErrorCode {
    /// Every code, in the order the API description lists them.
    pub const ALL: [ErrorCode; 16] = [
        ErrorCode::MalformedJson,
        ErrorCode::Unauthorized,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::RequestTimeout,
        ErrorCode::TooLarge,
        ErrorCode::UnsupportedMediaType,
        ErrorCode::InvalidBoard,
        ErrorCode::InvalidRules,
        ErrorCode::InvalidQuery,
        ErrorCode::InvalidRequest,
        ErrorCode::RateLimited,
        ErrorCode::Internal,
        ErrorCode::NotImplemented,
        ErrorCode::Overloaded,
        ErrorCode::DeadlineExceeded,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::MalformedJson => "malformed_json",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::RequestTimeout => "request_timeout",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ErrorCode::InvalidBoard => "invalid_board",
            ErrorCode::InvalidRules => "invalid_rules",
            ErrorCode::InvalidQuery => "invalid_query",
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::Internal => "internal",
            ErrorCode::NotImplemented => "not_implemented",
            ErrorCode::Overloaded => "overloaded",
            ErrorCode::DeadlineExceeded => "deadline_exceeded",
        }
    }

    pub fn status(self) -> StatusCode {
        match self {
            ErrorCode::MalformedJson => StatusCode::BAD_REQUEST,
            ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            ErrorCode::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::InvalidBoard
            | ErrorCode::InvalidRules
            | ErrorCode::InvalidQuery
            | ErrorCode::InvalidRequest => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::NotImplemented => StatusCode::NOT_IMPLEMENTED,
            ErrorCode::Overloaded => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::DeadlineExceeded => StatusCode::GATEWAY_TIMEOUT,
        }
    }
}

/// An error answer: code, message for people, and the request field at
/// fault (`board[3]`, `queries[2].to`) when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    pub field: Option<String>,
    /// Seconds for `Retry-After` (503, 429).
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// Messages quote the client through [`excerpt`]; a message that grew
    /// long anyway is cut, so no answer echoes a big input.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        let message = message.into();
        ApiError {
            code,
            message: cut(message, MESSAGE_CHARS),
            field: None,
            retry_after: None,
        }
    }

    /// The request field at fault; a field name that is the client's own
    /// (an unknown key) is cut like a quote.
    pub fn at(mut self, field: impl Into<String>) -> Self {
        self.field = Some(cut(field.into(), EXCERPT_CHARS + 40));
        self
    }

    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    pub fn status(&self) -> StatusCode {
        self.code.status()
    }

    /// The JSON body.
    pub fn body(&self) -> ErrorBody<'_> {
        ErrorBody {
            error: ErrorDetail {
                code: self.code.as_str(),
                message: &self.message,
                field: self.field.as_deref(),
            },
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)?;
        if let Some(field) = &self.field {
            write!(f, " (at {field})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ApiError {}

#[derive(Serialize)]
pub struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

#[derive(Serialize)]
struct ErrorDetail<'a> {
    code: &'static str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'a str>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        // Requests refused before any solving are counted here, in one
        // place, whichever layer refused them.
        super::metrics::record_rejection(self.code);
        let mut response = (self.status(), Json(self.body())).into_response();
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// The most characters of the client's input an error quotes.
pub const EXCERPT_CHARS: usize = 100;

/// The most characters of a whole message.
const MESSAGE_CHARS: usize = 400;

/// At most [`EXCERPT_CHARS`] of `text`, cut with `…`: what an error may
/// quote of the client's input.
pub fn excerpt(text: &str) -> std::borrow::Cow<'_, str> {
    match end_of(text, EXCERPT_CHARS) {
        Some(end) => format!("{}…", &text[..end]).into(),
        None => text.into(),
    }
}

/// `text` cut like an [`excerpt`] of `chars` characters.
fn cut(text: String, chars: usize) -> String {
    match end_of(&text, chars) {
        Some(end) => format!("{}…", &text[..end]),
        None => text,
    }
}

/// The byte offset after the first `chars` characters, if more follow.
fn end_of(text: &str, chars: usize) -> Option<usize> {
    text.char_indices().nth(chars).map(|(end, _)| end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_keeps_100_characters() {
        assert_eq!(excerpt("gzip"), "gzip");
        let long = "é".repeat(150);
        assert_eq!(excerpt(&long), format!("{}…", "é".repeat(100)));
        assert_eq!(excerpt(&"x".repeat(100)), "x".repeat(100));
    }
}
