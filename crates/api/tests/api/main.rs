//! The API's tests, one module a topic, driven through `linkpath_api`
//! with no HTTP: the decoder's errors with their exact bodies, the decoder
//! fuzzed, `/v1/render`'s work against `/v1/solve`'s, matching groups on
//! every route against a brute-force reference, and what decoding holds.

mod decode_errors;
mod decode_fuzz;
mod decode_memory;
mod games;
mod groups;
mod layout;
mod render;
mod support;
