//! The API's tests, one module a topic, driven through `linkpath_api`
//! with no HTTP: the decoder's errors with their exact bodies, the decoder
//! fuzzed, and `/v1/render`'s work against `/v1/solve`'s.

mod decode_errors;
mod decode_fuzz;
mod render;
mod support;
