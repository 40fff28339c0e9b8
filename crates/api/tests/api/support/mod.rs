//! What the API tests share: error bodies as the wire has them. The byte
//! mutator of the fuzz tests is the test kit's, shared with the format
//! tests.

use linkpath_api::ApiError;

/// The JSON body an error is answered with.
pub fn body(error: &ApiError) -> String {
    serde_json::to_string(&error.body()).expect("an error body")
}
