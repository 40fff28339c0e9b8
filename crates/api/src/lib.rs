//! linkpath's wire format and each route's work, without HTTP: request and
//! answer types declared once with serde derive (the OpenAPI document is
//! generated from the same types), the limits they are checked against,
//! the one error type, and for each route the step from a decoded request
//! to its answer.
//!
//! Every body goes through [`decode::decode`]; the board is the one type
//! with a hand-written `Deserialize` ([`board`]), shared by every route.
//!
//! ```
//! use linkpath_api::{Limits, solve::solve_body};
//! use linkpath_engine::Stop;
//! let body = br#"{"board": ["A.A"], "rules": "shisen-sho",
//!                 "queries": [{"from": [0, 0], "to": [2, 0]}]}"#;
//! let answer = solve_body(body, &Limits::default(), &Stop::never()).unwrap();
//! assert_eq!(
//!     String::from_utf8(answer).unwrap(),
//!     r#"{"results":[{"connected":true,"segments":1,"path":[[0,0],[2,0]]}]}"#
//! );
//! ```

pub mod board;
pub mod decode;
pub mod error;
pub mod game;
pub mod games;
pub mod limits;
pub mod render;
pub mod solve;
pub mod wire;

pub use error::{ApiError, ErrorCode, Work};
pub use limits::Limits;

use serde::Serialize;

/// An answer's JSON body.
pub fn encode<T: Serialize>(answer: &T) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec(answer).map_err(|_| ApiError::new(ErrorCode::Internal, "internal error"))
}
