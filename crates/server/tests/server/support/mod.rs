//! What the tests share: one HTTP client ([`client`]: the router in
//! process, or a real server on `127.0.0.1:0` over raw TCP), one seeded RNG
//! (the engine's own), one JSON mutator ([`mutate`]) and the requests that
//! several topics send ([`samples`]).

pub mod client;
pub mod mutate;
pub mod samples;

pub use client::*;
pub use linkpath_engine::game::rng::SplitMix64 as Rng;
pub use samples::*;

use serde_json::Value;
use std::sync::LazyLock;

/// The committed `openapi.yaml` (at the top of the workspace) as JSON.
pub fn spec() -> &'static Value {
    static SPEC: LazyLock<Value> = LazyLock::new(|| {
        let text = std::fs::read_to_string(SPEC_FILE).expect("openapi.yaml is readable");
        serde_norway::from_str(&text).expect("openapi.yaml is YAML")
    });
    &SPEC
}

/// Where the committed document is.
pub const SPEC_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../openapi.yaml");
