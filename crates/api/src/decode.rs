//! The one decoder every route's body goes through: serde derive over the
//! route's request type, field paths from `serde_path_to_error`
//! (`board[3]`, `queries[2].to`), the limits in reach of the board's own
//! [`Deserialize`](serde::Deserialize) while it parses.

use crate::error::{ApiError, ErrorCode, excerpt};
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
    // Asked of the whole body: a decode that stopped at a wrong type never
    // met a syntax error further on.
    if let Err(syntax) = serde_json::from_slice::<serde::de::IgnoredAny>(body) {
        return ApiError::new(
            ErrorCode::MalformedJson,
            format!("the body is not valid JSON: {syntax}"),
        );
    }
    let mut json = serde_json::Deserializer::from_slice(body);
    match serde_path_to_error::deserialize::<_, T>(&mut json) {
        Err(e) => {
            let path = e.path().to_string();
            explain(e.into_inner(), &path)
        }
        Ok(_) => explain(error, "."),
    }
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

/// Turns a serde_json error at `path` in a body of valid JSON into a 422
/// naming the field.
fn explain(error: serde_json::Error, path: &str) -> ApiError {
    // serde_json calls an array with more items than a struct has fields
    // "trailing characters", a syntax error; valid JSON is never 400.
    let mut message = if error.is_syntax() {
        "an array, expected an object".to_owned()
    } else {
        strip_position(&error.to_string())
    };
    let mut field = if path == "." {
        String::new()
    } else {
        path.to_owned()
    };
    // The code of a field given twice is its object's; of a missing one,
    // its own.
    let mut code = error_code(&field);
    // serde names a missing or repeated field in its message, at the path
    // of the object that holds it; the path of an unknown field already
    // ends with it. An unknown field's or variant's name is the client's,
    // so it is quoted cut.
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
        let quoted = excerpt(name);
        if quoted != name {
            message = message.replacen(name, &quoted, 1);
        }
    }
    let error = ApiError::new(code, message);
    if field.is_empty() {
        error
    } else {
        error.at(field)
    }
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

/// The name in serde's message `prefix` "x`...", such as "missing field
/// `x`" or "unknown field `x`, expected ...".
fn named_field<'a>(message: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = message.strip_prefix(prefix)?;
    rest.split_once('`').map(|(name, _)| name)
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
