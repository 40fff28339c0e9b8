//! What the API tests share: the byte mutator of the fuzz tests (the one
//! the format tests use), and error bodies as the wire has them.

#[path = "../../../../formats/tests/formats/support/mutate.rs"]
pub mod mutate;

use linkpath_api::ApiError;

/// The JSON body an error is answered with.
pub fn body(error: &ApiError) -> String {
    serde_json::to_string(&error.body()).expect("an error body")
}
