//! The one error type of the API. Every failure becomes a JSON body
//! `{"error": {"code", "message", "field"?}}` with the status that fits;
//! the server adds the status line and headers.

use serde::Serialize;
use utoipa::ToSchema;

/// What went wrong with a request, named by its wire `code`. The status
/// each code is answered with:
///
/// - `malformed_json`: 400
///
/// - `unauthorized`: 401 (a player's token unknown, or no API key where
///   `LINKPATH_API_KEYS` is set)
///
/// - `forbidden`: 403 (a player's token on a route for services)
///
/// - `not_your_game`: 403 (another player's game)
///
/// - `not_found`: 404
///
/// - `game_not_found`: 404
///
/// - `method_not_allowed`: 405
///
/// - `request_timeout`: 408
///
/// - `illegal_move`: 409
///
/// - `action_refused`: 409
///
/// - `game_over`: 409
///
/// - `version_mismatch`: 412
///
/// - `too_large`: 413
///
/// - `unsupported_media_type`: 415
///
/// - `invalid_board`: 422
///
/// - `invalid_rules`: 422
///
/// - `invalid_query`: 422
///
/// - `invalid_request`: 422
///
/// - `idempotency_key_reused`: 422
///
/// - `rate_limited`: 429 (when `LINKPATH_RATE_LIMIT_PER_SECOND` or
///   `LINKPATH_MAX_CONNECTIONS_PER_CLIENT` is set, or after too many
///   unknown players' tokens)
///
/// - `quota_exceeded`: 429 (a player's games held)
///
/// - `internal`: 500
///
/// - `not_implemented`: 501 (a `Transfer-Encoding` other than `chunked`)
///
/// - `overloaded`: 503
///
/// - `store_full`: 503
///
/// - `store_unavailable`: 503
///
/// - `deadline_exceeded`: 504
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    ToSchema,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ErrorCode {
    /// 400 Bad Request: the body is not JSON.
    MalformedJson,
    /// 401 Unauthorized: a missing or unknown API key, or an unknown,
    /// revoked or expired player token.
    Unauthorized,
    /// 403 Forbidden: a player's token where the route wants a service's
    /// API key.
    Forbidden,
    /// 403: an action on a game that another player owns.
    NotYourGame,
    /// 404 Not Found: no such route.
    NotFound,
    /// 404: no game with this id, or it expired.
    GameNotFound,
    /// 405 Method Not Allowed.
    MethodNotAllowed,
    /// 408 Request Timeout: the body arrived too slowly.
    RequestTimeout,
    /// 409 Conflict: a move the game's rules refuse; `reason` says why,
    /// as `/v1/solve` names it, or `off_board`.
    IllegalMove,
    /// 409: an action that does not apply to the game now (paused,
    /// nothing to undo, no move to hint, ...).
    ActionRefused,
    /// 409: the game is finished (won, out of time or resigned).
    GameOver,
    /// 412 Precondition Failed: `If-Match` names another version.
    VersionMismatch,
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
    /// 422: an `Idempotency-Key` used before with another request.
    IdempotencyKeyReused,
    /// 429 Too Many Requests: the client's rate limit.
    RateLimited,
    /// 429: the player holds as many games as one player may.
    QuotaExceeded,
    /// 500: a bug; details are logged, never sent.
    Internal,
    /// 501 Not Implemented: a transfer coding other than `chunked`.
    NotImplemented,
    /// 503 Service Unavailable: every solver slot is busy.
    Overloaded,
    /// 503: the store holds as many games, or a new idempotency key
    /// would pass the keys kept, as this server allows; nothing changed.
    StoreFull,
    /// 503: the store did not answer in time or failed; nothing changed.
    StoreUnavailable,
    /// 504 Gateway Timeout: the solve passed its deadline.
    DeadlineExceeded,
}

impl ErrorCode {
    /// The wire name, as serde writes it.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The HTTP status it is answered with.
    pub fn status(self) -> u16 {
        match self {
            ErrorCode::MalformedJson => 400,
            ErrorCode::Unauthorized => 401,
            ErrorCode::Forbidden | ErrorCode::NotYourGame => 403,
            ErrorCode::NotFound | ErrorCode::GameNotFound => 404,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::RequestTimeout => 408,
            ErrorCode::IllegalMove | ErrorCode::ActionRefused | ErrorCode::GameOver => 409,
            ErrorCode::VersionMismatch => 412,
            ErrorCode::TooLarge => 413,
            ErrorCode::UnsupportedMediaType => 415,
            ErrorCode::InvalidBoard
            | ErrorCode::InvalidRules
            | ErrorCode::InvalidQuery
            | ErrorCode::InvalidRequest
            | ErrorCode::IdempotencyKeyReused => 422,
            ErrorCode::RateLimited | ErrorCode::QuotaExceeded => 429,
            ErrorCode::Internal => 500,
            ErrorCode::NotImplemented => 501,
            ErrorCode::Overloaded | ErrorCode::StoreFull | ErrorCode::StoreUnavailable => 503,
            ErrorCode::DeadlineExceeded => 504,
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
    /// Why a move is illegal (`illegal_move`).
    pub reason: Option<&'static str>,
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
            reason: None,
            retry_after: None,
        }
    }

    /// The request field at fault; a field name that is the client's own
    /// (an unknown key) is cut like a quote.
    pub fn at(mut self, field: impl Into<String>) -> Self {
        self.field = Some(cut(field.into(), EXCERPT_CHARS + 40));
        self
    }

    pub fn reason(mut self, reason: &'static str) -> Self {
        self.reason = Some(reason);
        self
    }

    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    pub fn status(&self) -> u16 {
        self.code.status()
    }

    /// The JSON body.
    pub fn body(&self) -> ErrorBody {
        ErrorBody {
            error: ErrorDetail {
                code: self.code,
                message: self.message.clone(),
                field: self.field.clone(),
                reason: self.reason,
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

/// Every error answer's body. Named `ErrorBody`, not `Error`: a model
/// named after its only field (`error`) trips openapi-python-client's
/// generated code under `mypy --strict`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

/// What went wrong.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorDetail {
    pub code: ErrorCode,
    /// For people: what was wrong and what was expected, quoting at most a
    /// short piece of the input.
    pub message: String,
    /// The request field at fault, as a path: `board[3]`, `queries[2].to`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub field: Option<String>,
    /// Why a move is illegal: `no_path`, `type_mismatch`, `not_a_tile`,
    /// `same_cell` (as `/v1/solve` names them) or `off_board`; present
    /// with `illegal_move`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub reason: Option<&'static str>,
}

/// The most characters of the client's input an error quotes.
pub(crate) const EXCERPT_CHARS: usize = 100;

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

/// The work a request asks for: a request stopped by the deadline is told
/// which work did not finish and what to ask instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    Solve,
    Render,
    Moves,
    Play,
    Clear,
    Deal,
    Shuffle,
}

impl Work {
    /// What the work is called in a message, and what asks for less of it.
    fn name_and_advice(self) -> (&'static str, &'static str) {
        match self {
            Work::Solve => (
                "solve",
                "ask fewer queries, a smaller board or a lower max_segments",
            ),
            Work::Render => (
                "picture",
                "ask fewer queries, a smaller board or a lower max_segments",
            ),
            Work::Moves => (
                "move list",
                "ask a smaller board, a lower limit, or one tile's moves with from",
            ),
            Work::Play => ("play", "send fewer moves or a smaller board"),
            Work::Clear => (
                "clearing search",
                "ask a smaller board or a lower budget_ms",
            ),
            Work::Deal => ("deal", "ask a smaller board or an easier difficulty"),
            Work::Shuffle => (
                "shuffle",
                "ask a smaller board, or one that need not be solvable",
            ),
        }
    }

    /// The error for this work stopped by its deadline or cancelled.
    pub fn stopped(self, e: linkpath_engine::Interrupted) -> ApiError {
        let (name, advice) = self.name_and_advice();
        match e {
            linkpath_engine::Interrupted::Deadline => ApiError::new(
                ErrorCode::DeadlineExceeded,
                format!("the {name} did not finish within the server's deadline; {advice}"),
            ),
            linkpath_engine::Interrupted::Cancelled => ApiError::new(
                ErrorCode::DeadlineExceeded,
                format!("the {name} was cancelled"),
            ),
        }
    }

    /// [`Work::stopped`] for `map_err`.
    pub fn interrupted(self) -> impl Fn(linkpath_engine::Interrupted) -> ApiError {
        move |e| self.stopped(e)
    }
}

/// "1 tile", "3 tiles": how a message counts things.
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request past its deadline is told which work stopped and what
    /// to ask for less of it.
    #[test]
    fn each_work_past_its_deadline_says_what_to_ask_instead() {
        use linkpath_engine::Interrupted;
        let said = [
            (
                Work::Solve,
                "solve",
                "ask fewer queries, a smaller board or a lower max_segments",
            ),
            (
                Work::Render,
                "picture",
                "ask fewer queries, a smaller board or a lower max_segments",
            ),
            (
                Work::Moves,
                "move list",
                "ask a smaller board, a lower limit, or one tile's moves with from",
            ),
            (Work::Play, "play", "send fewer moves or a smaller board"),
            (
                Work::Clear,
                "clearing search",
                "ask a smaller board or a lower budget_ms",
            ),
            (
                Work::Deal,
                "deal",
                "ask a smaller board or an easier difficulty",
            ),
            (
                Work::Shuffle,
                "shuffle",
                "ask a smaller board, or one that need not be solvable",
            ),
        ];
        for (work, name, advice) in said {
            let error = work.stopped(Interrupted::Deadline);
            assert_eq!(error.code, ErrorCode::DeadlineExceeded);
            assert_eq!(error.field, None);
            assert_eq!(
                error.message,
                format!("the {name} did not finish within the server's deadline; {advice}")
            );
        }
        assert_eq!(
            Work::Deal.stopped(Interrupted::Cancelled).message,
            "the deal was cancelled"
        );
    }

    #[test]
    fn excerpt_keeps_100_characters() {
        assert_eq!(excerpt("gzip"), "gzip");
        let long = "é".repeat(150);
        assert_eq!(excerpt(&long), format!("{}…", "é".repeat(100)));
        assert_eq!(excerpt(&"x".repeat(100)), "x".repeat(100));
    }
}
