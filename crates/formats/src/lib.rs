//! The formats over the engine that are not JSON: the classic judges' text
//! inputs and outputs ([`judge`]) and SVG pictures of a board and its
//! answered queries ([`svg`]).

pub mod judge;
pub mod svg;
