//! What the tests of linkpath share: the service's tests
//! (`crates/server/tests`) and the end-to-end tests of the binary
//! (`tests/`) speak HTTP and send the samples the same way; the format
//! tests and the command line's tests feed the same malformed judge inputs;
//! the fuzz tests of the formats and of the API mangle inputs the same way;
//! the cases that need a Redis name it and keep their keys apart alike,
//! those that need a PostgreSQL make a database of their own, and a case
//! runs on each store backend the same way.

pub mod http;
pub mod malformed;
pub mod mutate;
pub mod postgres;
pub mod redis;
pub mod samples;
pub mod stores;

pub use http::*;
pub use malformed::MALFORMED;
pub use samples::*;
