//! linkpath answers tile-connection puzzles: Mahjong connect ("The Game",
//! POJ 1101), Lianliankan (HDU 1175) and Shisen-Sho, and Curling 2.0
//! (POJ 3009). For each query pair it tells whether the two cells connect,
//! the fewest straight segments, and the path's corner points.
//!
//! # Layout
//!
//! - [`solver`]: the pure engine (boards, rules, searches); no I/O, no serde.
//! - [`judge`]: the classic judges' text formats over the engine.
//! - [`render`]: SVG pictures of a board and its answered queries.
//! - [`http`]: the axum service: wire types, routes, limits, server loop.
//! - [`healthcheck`]: the probe behind `linkpath healthcheck`.

pub mod healthcheck;
pub mod http;
pub mod judge;
pub mod render;
pub mod solver;
