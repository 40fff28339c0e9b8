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
pub(crate) fn decode<T: DeserializeOwned>(body: &[u8], limits: &Limits) -> Result<T, ApiError> {
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
    // Asked of the whole body first: a decode that stopped at a wrong type,
    // or at a limit, never met a syntax error further on, and a body that
    // is not JSON is 400 whatever else is wrong with it.
    if let Some(malformed) = malformed(body) {
        return malformed;
    }
    if let Some(ours) = take_failure() {
        return ours;
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
    if let Some(malformed) = malformed(body) {
        return Err(malformed);
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

/// The 400 for a body that is not JSON, naming the first mistake and where
/// it is; `None` for valid JSON.
///
/// serde_json's skipping parser checks the structure but not what a typed
/// decode would refuse inside it: bytes that are not UTF-8, escapes of half
/// a surrogate pair, numbers beyond `f64`. Those are looked for here, and
/// the earlier of the two mistakes is named.
fn malformed(body: &[u8]) -> Option<ApiError> {
    let refused = |what: String| {
        Some(ApiError::new(
            ErrorCode::MalformedJson,
            format!("the body is not valid JSON: {what}"),
        ))
    };
    if let Err(e) = std::str::from_utf8(body) {
        let at = e.valid_up_to();
        let (line, column) = position(body, at);
        return refused(format!(
            "byte 0x{:02X} is not UTF-8 at line {line} column {column}",
            body[at]
        ));
    }
    let structure = serde_json::from_slice::<serde::de::IgnoredAny>(body).err();
    let token = bad_token(body).map(|(at, what)| (position(body, at), what));
    match (structure, token) {
        (None, None) => None,
        (Some(e), Some(((line, column), what))) if (line, column) < (e.line(), e.column()) => {
            refused(format!("{what} at line {line} column {column}"))
        }
        (None, Some(((line, column), what))) => {
            refused(format!("{what} at line {line} column {column}"))
        }
        (Some(e), _) => refused(e.to_string()),
    }
}

/// The most characters of a number quoted in an error.
const NUMBER_CHARS: usize = 24;

/// The first string escape or number of `body` that serde_json's typed
/// decode refuses and its skipping parser lets through: where it starts,
/// and what it is. Read as JSON tokens; up to the first error in the
/// structure, where it matters, that is what they are.
fn bad_token(body: &[u8]) -> Option<(usize, String)> {
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'"' => {
                i += 1;
                while i < body.len() && body[i] != b'"' {
                    match (body[i], body.get(i + 1)) {
                        (b'\\', Some(b'u')) => {
                            let (length, lone) = unicode_escape(&body[i..]);
                            if lone {
                                // `\u` and four hex digits: ASCII.
                                let escape = String::from_utf8_lossy(&body[i..i + 6]);
                                return Some((
                                    i,
                                    format!(
                                        "{escape} is half of a UTF-16 surrogate pair, expected both halves"
                                    ),
                                ));
                            }
                            i += length;
                        }
                        (b'\\', _) => i += 2,
                        _ => i += 1,
                    }
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while body
                    .get(i)
                    .is_some_and(|b| matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                {
                    i += 1;
                }
                let number = std::str::from_utf8(&body[start..i]).unwrap_or("");
                if number.parse::<f64>().is_ok_and(f64::is_infinite) {
                    // ASCII, so cut anywhere.
                    let quoted = if number.len() > NUMBER_CHARS {
                        format!("{}…", &number[..NUMBER_CHARS])
                    } else {
                        number.to_owned()
                    };
                    return Some((start, format!("the number {quoted} is out of range")));
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// The length of the `\u` escape that starts `text` (two escapes for a
/// surrogate pair), and whether it is half a pair alone, which serde_json
/// refuses in a string it decodes.
fn unicode_escape(text: &[u8]) -> (usize, bool) {
    let unit = |at: usize| -> Option<u16> {
        let hex = text.get(at + 2..at + 6)?;
        if text.get(at..at + 2) != Some(b"\\u") || !hex.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    };
    match unit(0) {
        Some(0xD800..=0xDBFF) => match unit(6) {
            Some(0xDC00..=0xDFFF) => (12, false),
            _ => (6, true),
        },
        Some(0xDC00..=0xDFFF) => (6, true),
        // Not four hex digits: the structure's error.
        _ => (2, false),
    }
}

/// The line and column (both from 1, the column in bytes, as serde_json
/// counts them) of byte `at` of `body`.
fn position(body: &[u8], at: usize) -> (usize, usize) {
    let before = &body[..at];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    (line, at - line_start + 1)
}
