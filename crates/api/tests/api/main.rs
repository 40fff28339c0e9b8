//! The API's tests, one module a topic, driven through `linkpath_api`
//! with no HTTP: the decoder's errors with their exact bodies, the decoder
//! fuzzed, `/v1/render`'s work against `/v1/solve`'s, matching groups on
//! every route against a brute-force reference, what decoding holds, and a
//! held game's rules kept as they were sent.

mod decode_errors;
mod decode_fuzz;
mod decode_memory;
mod games;
mod groups;
mod held_rules;
mod layout;
mod render;
mod support;
