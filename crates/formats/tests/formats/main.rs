//! The format tests, one module a topic: the judges' text formats, their
//! parser fed arbitrary bytes, and the SVG pictures.

mod fuzz;
mod judge;
mod support;
mod svg;
