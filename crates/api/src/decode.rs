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
        explain(e.into_inner(), &path)
    })?;
    json.end().map_err(|e| explain(e, "."))?;
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
    CONTEXT.with_borrow(|stack| {
        stack
            .last()
            .map_or_else(Limits::default, |c| c.limits.clone())
    })
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
fn explain(error: serde_json::Error, path: &str) -> ApiError {
    if let Some(ours) = CONTEXT.with_borrow_mut(|stack| stack.last_mut()?.failure.take()) {
        return ours;
    }
    if error.is_syntax() || error.is_eof() || error.is_io() {
        return ApiError::new(
            ErrorCode::MalformedJson,
            format!("the body is not valid JSON: {error}"),
        );
    }
    let message = strip_position(&error.to_string());
    let mut field = if path == "." {
        String::new()
    } else {
        path.to_owned()
    };
    // serde names a missing or repeated field in its message, at the path
    // of the object that holds it; an unknown field's key is on the path
    // already.
    if let Some(name) = named_field(&message) {
        if !field.is_empty() {
            field.push('.');
        }
        field.push_str(name);
    }
    let code = match field.split(['[', '.']).next().unwrap_or("") {
        // A top-level field given twice is a mistake in the request, not
        // in the field's value.
        _ if path == "." && message.starts_with("duplicate field") => ErrorCode::InvalidRequest,
        "board" => ErrorCode::InvalidBoard,
        "rules" => ErrorCode::InvalidRules,
        "queries" | "moves" => ErrorCode::InvalidQuery,
        _ => ErrorCode::InvalidRequest,
    };
    let error = ApiError::new(code, message);
    if field.is_empty() {
        error
    } else {
        error.at(field)
    }
}

/// The field serde's "missing field `x`" and "duplicate field `x`"
/// messages are about.
fn named_field(message: &str) -> Option<&str> {
    let rest = message
        .strip_prefix("missing field `")
        .or_else(|| message.strip_prefix("duplicate field `"))?;
    rest.split_once('`').map(|(name, _)| name)
}

/// serde_json appends " at line L column C"; a field path says more.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}
