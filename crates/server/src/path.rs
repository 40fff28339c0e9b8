//! Reading a route's path parameters so that every refusal is the JSON
//! error: axum's own `Path` answers a plain-text 400 ("Invalid URL") for a
//! parameter whose percent-encoding decodes to bytes that are not UTF-8,
//! such as `/v1/games/%ff`. Every route with a path parameter takes
//! [`PathParam`] instead.

use super::error::{ApiError, ErrorCode, HttpError};
use axum::extract::path::ErrorKind;
use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use linkpath_api::excerpt;
use serde::de::DeserializeOwned;

/// The route's path parameters, as [`axum::extract::Path`] reads them; a
/// parameter that cannot be read is a 422 `invalid_request` naming it in
/// `field`.
pub struct PathParam<T>(pub T);

impl<T, S> FromRequestParts<S> for PathParam<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, HttpError> {
        match Path::<T>::from_request_parts(parts, state).await {
            Ok(Path(value)) => Ok(PathParam(value)),
            Err(rejection) => Err(refused(rejection)),
        }
    }
}

/// The JSON error for a path that cannot be read: the client's doing is a
/// 422, naming the parameter when axum does; a route whose parameters do
/// not fit its extractor is a bug, a 500 logged here.
fn refused(rejection: PathRejection) -> HttpError {
    let kind = match rejection {
        PathRejection::FailedToDeserializePathParams(failed) => failed.into_kind(),
        other => return bug(&other.body_text()),
    };
    match kind {
        ErrorKind::InvalidUtf8InPathParam { key } => HttpError(
            ApiError::new(
                ErrorCode::InvalidRequest,
                format!(
                    "`{key}` in the path is not UTF-8 once percent-decoded, expected percent-encoded UTF-8 text"
                ),
            )
            .at(key),
        ),
        ErrorKind::ParseError { .. }
        | ErrorKind::ParseErrorAtKey { .. }
        | ErrorKind::ParseErrorAtIndex { .. }
        | ErrorKind::DeserializeError { .. } => HttpError::new(
            ErrorCode::InvalidRequest,
            format!("the path cannot be read: {}", excerpt(&kind.to_string())),
        ),
        other => bug(&other.to_string()),
    }
}

fn bug(what: &str) -> HttpError {
    tracing::error!(
        rejection = what,
        "a route's path parameters do not fit its extractor"
    );
    HttpError::new(ErrorCode::Internal, "internal error")
}
