//! Answers as JSON bodies: every route's answer leaves through [`encode`],
//! as every request comes in through the decoder.

use crate::error::{ApiError, ErrorCode};
use serde::Serialize;

/// An answer's JSON body.
pub fn encode<T: Serialize>(answer: &T) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec(answer).map_err(|_| ApiError::new(ErrorCode::Internal, "internal error"))
}
