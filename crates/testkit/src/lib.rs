//! What the tests of linkpath share, so that the service's tests
//! (`crates/server/tests`) and the end-to-end tests of the binary
//! (`tests/`) speak HTTP and send the samples the same way.

pub mod http;
pub mod samples;

pub use http::*;
pub use samples::*;
