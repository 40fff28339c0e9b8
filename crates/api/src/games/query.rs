//! A route's query string, read a parameter at a time: each at most
//! once, a value not as expected refused naming its parameter, an unknown
//! parameter refused naming those the route takes.

use crate::error::{ApiError, ErrorCode};
use serde::Serialize;
use serde::de::{DeserializeOwned, value::StrDeserializer};

/// Each `name=value` of `query` in order, given to `read` with `bad`,
/// which makes the refusal of that value (`bad(expected)`); a name given
/// twice is refused before `read` sees it again.
pub(super) fn read_params(
    query: Option<&str>,
    mut read: impl FnMut(&str, &str, &dyn Fn(&str) -> ApiError) -> Result<(), ApiError>,
) -> Result<(), ApiError> {
    let mut seen: Vec<String> = Vec::new();
    for (name, value) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        if seen.iter().any(|s| *s == name) {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                format!(
                    "`{}` is given twice, expected it at most once",
                    crate::excerpt(&name)
                ),
            )
            .at(name.into_owned()));
        }
        let bad = |expected: &str| {
            ApiError::new(
                ErrorCode::InvalidRequest,
                format!(
                    "`{name}` is {:?}, expected {expected}",
                    crate::excerpt(&value)
                ),
            )
            .at(name.to_string())
        };
        read(&name, &value, &bad)?;
        seen.push(name.into_owned());
    }
    Ok(())
}

/// A query parameter a route does not take; `expected` lists those it
/// does.
pub(super) fn unknown_parameter(name: &str, expected: &str) -> ApiError {
    ApiError::new(
        ErrorCode::InvalidRequest,
        format!(
            "the query parameter `{}` is unknown, expected {expected}",
            crate::excerpt(name)
        ),
    )
    .at(name.to_owned())
}

/// The unit variant of `T` whose wire name is `value`; `None` for a name
/// `T` has not.
pub(super) fn named<T: DeserializeOwned>(value: &str) -> Option<T> {
    T::deserialize(StrDeserializer::<serde::de::value::Error>::new(value)).ok()
}

/// A unit variant's wire name: it serialises as the name in quotes, with
/// nothing in it that JSON escapes.
pub(super) fn name_of(variant: &impl Serialize) -> String {
    serde_json::to_string(variant)
        .map(|quoted| quoted.trim_matches('"').to_owned())
        .unwrap_or_default()
}
