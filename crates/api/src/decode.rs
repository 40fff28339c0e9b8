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
    not_an_object(body)?;
    CONTEXT.with_borrow_mut(|stack| {
        stack.push(Context {
            limits: limits.clone(),
            failure: None,
        })
    });
    let _pop = Pop;
    let mut json = serde_json::Deserializer::from_slice(body);
    let first = T::deserialize(&mut json).and_then(|value| json.end().map(|()| value));
    first.map_err(|e| locate::<T>(e, body))
}

/// The API error for a failed decode. A data error is located by decoding
/// again with `serde_path_to_error`: tracking the path costs about as much
/// as the parse itself on a million-cell board, so only a body that failed
/// pays for it.
fn locate<T: DeserializeOwned>(error: serde_json::Error, body: &[u8]) -> ApiError {
    if let Some(ours) = take_failure() {
        return ours;
    }
    if error.is_data() || is_json(body) {
        let mut json = serde_json::Deserializer::from_slice(body);
        if let Err(e) = serde_path_to_error::deserialize::<_, T>(&mut json) {
            let path = e.path().to_string();
            return explain(e.into_inner(), &path, body);
        }
    }
    explain(error, ".", body)
}

fn take_failure() -> Option<ApiError> {
    CONTEXT.with_borrow_mut(|stack| stack.last_mut()?.failure.take())
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
fn explain(error: serde_json::Error, path: &str, body: &[u8]) -> ApiError {
    if let Some(ours) = take_failure() {
        return ours;
    }
    // serde_json calls an array with more items than a struct has fields
    // "trailing characters", a syntax error; valid JSON is never 400.
    let broken = error.is_syntax() || error.is_eof() || error.is_io();
    if broken && is_json(body) {
        return at_field(
            ErrorCode::InvalidRequest,
            "an array, expected an object".into(),
            path,
        );
    }
    if broken {
        return ApiError::new(
            ErrorCode::MalformedJson,
            format!("the body is not valid JSON: {error}"),
        );
    }
    at_field(
        ErrorCode::InvalidRequest,
        strip_position(&error.to_string()),
        path,
    )
}

/// A 422 at `path`, its code by the field's top-level name.
fn at_field(fallback: ErrorCode, message: String, path: &str) -> ApiError {
    let mut field = if path == "." {
        String::new()
    } else {
        path.to_owned()
    };
    // The code of a field given twice is its object's; of a missing one,
    // its own.
    let mut coded = field.clone();
    // serde names a missing or repeated field in its message, at the path
    // of the object that holds it.
    if let Some((name, missing)) = named_field(&message) {
        if !field.is_empty() {
            field.push('.');
        }
        field.push_str(name);
        if missing {
            coded = field.clone();
        }
    }
    let code = match coded.split(['[', '.']).next().unwrap_or("") {
        "board" => ErrorCode::InvalidBoard,
        "rules" => ErrorCode::InvalidRules,
        "queries" | "moves" => ErrorCode::InvalidQuery,
        _ => fallback,
    };
    let error = ApiError::new(code, message);
    if field.is_empty() {
        error
    } else {
        error.at(field)
    }
}

/// The field serde's "missing field `x`" and "duplicate field `x`"
/// messages are about. (For an unknown field the path already ends with
/// it.)
fn named_field(message: &str) -> Option<(&str, bool)> {
    let (rest, missing) = match message.strip_prefix("missing field `") {
        Some(rest) => (rest, true),
        None => (message.strip_prefix("duplicate field `")?, false),
    };
    rest.split_once('`').map(|(name, _)| (name, missing))
}

fn is_json(body: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok()
}

/// Every request body is a JSON object: serde derive would also read a
/// struct from an array of its fields in order.
fn not_an_object(body: &[u8]) -> Result<(), ApiError> {
    let kind = match body.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') | None => return Ok(()),
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        Some(_) => "a number",
    };
    if !is_json(body) {
        // Broken JSON: the parser says where.
        return Ok(());
    }
    Err(ApiError::new(
        ErrorCode::InvalidRequest,
        format!("the body is {kind}, expected a JSON object"),
    ))
}

/// serde_json appends " at line L column C"; a field path says more.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}
