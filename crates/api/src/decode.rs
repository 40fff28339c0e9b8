//! The one decoder every route's body goes through: serde derive over the
//! route's request type, field paths from `serde_path_to_error`
//! (`board[3]`, `queries[2].to`), the limits in reach of the board's own
//! [`Deserialize`](serde::Deserialize) while it parses.

use crate::error::{ApiError, ErrorCode};
use crate::limits::Limits;
use serde::de::DeserializeOwned;
use std::cell::RefCell;

thread_local! {
    /// What the board's deserializer needs and leaves behind: serde passes
    /// no context down, and its errors carry only a message.
    static CONTEXT: RefCell<Vec<Context>> = const { RefCell::new(Vec::new()) };
}

struct Context {
    limits: Limits,
    /// The structured error behind the last serde error, when we made it.
    failure: Option<ApiError>,
}

/// Decodes a request body of type `T` within `limits`.
pub fn decode<T: DeserializeOwned>(body: &[u8], limits: &Limits) -> Result<T, ApiError> {
    CONTEXT.with_borrow_mut(|stack| {
        stack.push(Context {
            limits: limits.clone(),
            failure: None,
        })
    });
    let _pop = Pop;
    let mut json = serde_json::Deserializer::from_slice(body);
    let value = serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let path = e.path().to_string();
        explain(e.into_inner(), &path, body)
    })?;
    json.end().map_err(|e| explain(e, ".", body))?;
    Ok(value)
}

struct Pop;

impl Drop for Pop {
    fn drop(&mut self) {
        CONTEXT.with_borrow_mut(|stack| stack.pop());
    }
}

/// The limits of the body being decoded; the server's defaults outside
/// [`decode`] (a board read by a test straight from serde_json, say).
pub(crate) fn limits() -> Limits {
    CONTEXT.with_borrow(|stack| stack.last().map_or_else(Limits::default, |c| c.limits.clone()))
}

/// Keeps `error` as the reason for the serde error it becomes.
pub(crate) fn fail<E: serde::de::Error>(error: ApiError) -> E {
    let message = error.message.clone();
    CONTEXT.with_borrow_mut(|stack| {
        if let Some(context) = stack.last_mut() {
            context.failure = Some(error);
        }
    });
    E::custom(message)
}

/// Turns a serde_json error at `path` into an API error: ours if we made
/// it, 400 for broken JSON, 422 naming the field otherwise.
///
/// Whether the body is JSON at all is asked of the whole body, once the
/// typed decoding has failed: serde_json calls extra items in a fixed-size
/// array a syntax error, and a decoding that stops early never meets a
/// syntax error further on.
fn explain(error: serde_json::Error, path: &str, body: &[u8]) -> ApiError {
    if let Some(ours) = CONTEXT.with_borrow_mut(|stack| stack.last_mut()?.failure.take()) {
        return ours;
    }
    if let Err(syntax) = serde_json::from_slice::<serde::de::IgnoredAny>(body) {
        return ApiError::new(
            ErrorCode::MalformedJson,
            format!("the body is not valid JSON: {syntax}"),
        );
    }
    let mut message = strip_position(&error.to_string());
    let mut field = if path == "." { String::new() } else { path.to_owned() };
    // A field given twice is a mistake of the object that holds it.
    let mut code = error_code(&field);
    // serde names a missing or repeated field in its message, at the path
    // of the object that holds it; the path of an unknown field already
    // ends with it. The name of an unknown field or variant is the
    // client's, so it is quoted cut.
    let missing = named_field(&message, "missing field `");
    if let Some(name) = missing.or_else(|| named_field(&message, "duplicate field `")) {
        if !field.is_empty() {
            field.push('.');
        }
        field.push_str(name);
        if missing.is_some() {
            code = error_code(&field);
        }
    } else if let Some(name) = named_field(&message, "unknown field `")
        .or_else(|| named_field(&message, "unknown variant `"))
    {
        let quoted = crate::error::excerpt(name);
        if quoted != name {
            message = message.replacen(name, &quoted, 1);
        }
    }
    let error = ApiError::new(code, message);
    if field.is_empty() { error } else { error.at(field) }
}

/// The code of a mistake at `field`: by the top-level field it lies in.
fn error_code(field: &str) -> ErrorCode {
    match field.split(['[', '.']).next().unwrap_or("") {
        "board" => ErrorCode::InvalidBoard,
        "rules" => ErrorCode::InvalidRules,
        "queries" | "moves" => ErrorCode::InvalidQuery,
        _ => ErrorCode::InvalidRequest,
    }
}

/// The field of serde's message `prefix` "x`...", such as "missing field
/// `x`" or "unknown field `x`, expected ...".
fn named_field<'a>(message: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = message.strip_prefix(prefix)?;
    rest.split_once('`').map(|(name, _)| name)
}

/// serde_json appends " at line L column C"; a field path says more.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}
