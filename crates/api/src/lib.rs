//! linkpath's wire format and each route's work, without HTTP: request and
//! answer types declared once with serde derive (the OpenAPI document is
//! generated from the same types), the limits they are checked against,
//! the one error type, and for each route the step from a decoded request
//! to its answer.
//!
//! Every body goes through one decoder (`decode.rs`); the board is the one
//! type with a hand-written `Deserialize` (`board.rs`), shared by every
//! route. The modules are private: what the server, the command line and
//! the tests use is named here, the game mechanics' routes (on a board
//! sent with each request) under [`mechanics`], and the games the server
//! holds under [`games`].
//!
//! ```
//! use linkpath_api::{Limits, solve_body};
//! use linkpath_engine::Stop;
//! let body = br#"{"board": ["A.A"], "rules": "shisen-sho",
//!                 "queries": [{"from": [0, 0], "to": [2, 0]}]}"#;
//! let answer = solve_body(body, &Limits::default(), &Stop::never()).unwrap();
//! assert_eq!(
//!     String::from_utf8(answer).unwrap(),
//!     r#"{"results":[{"connected":true,"segments":1,"path":[[0,0],[2,0]]}]}"#
//! );
//! ```

mod board;
mod cursor;
mod decode;
mod encode;
mod error;
pub mod games;
mod limits;
pub mod matches;
pub mod mechanics;
pub mod players;
mod render;
mod solve;
mod wire;

pub use encode::encode;
pub use error::{ApiError, ErrorBody, ErrorCode, Work, excerpt};
pub use limits::Limits;
pub use render::{SVG, render_body};
pub use solve::{SolveBody, SolveRequest, SolveResponse, solve_body};
