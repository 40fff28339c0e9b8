//! What the tests share: one HTTP client ([`client`]: the router in
//! process, or a real server on `127.0.0.1:0` over raw TCP), one seeded RNG
//! (the engine's own), one JSON mutator ([`mutate`]) and the requests that
//! several topics send (`linkpath_testkit::samples`).

pub mod client;
pub mod mutate;
pub mod players;
pub mod stores;

pub use client::*;
pub use linkpath_engine::SplitMix64 as Rng;
pub use linkpath_testkit::samples::*;
pub use players::*;
pub use stores::*;

use serde_json::Value;
use std::process::Command;
use std::sync::LazyLock;

/// The committed `openapi.yaml` (at the top of the workspace) as JSON.
pub fn spec() -> &'static Value {
    static SPEC: LazyLock<Value> = LazyLock::new(|| {
        let text = std::fs::read_to_string(SPEC_FILE).expect("openapi.yaml is readable");
        serde_norway::from_str(&text).expect("openapi.yaml is YAML")
    });
    &SPEC
}

/// A `/v1/shuffle` body of a 1000-column board of `rows` rows, every tile
/// a pair beside its partner: its answer lists every tile's move, about
/// 33 KB a row, too big for loopback's socket buffers to take unread.
pub fn big_shuffle(rows: usize) -> Value {
    let rows: Vec<String> = (0..rows)
        .map(|y| {
            (0..1000)
                .map(|x| char::from(b'A' + ((x / 2 + y) % 26) as u8))
                .collect()
        })
        .collect();
    serde_json::json!({"board": rows, "rules": "mahjong", "seed": 1})
}

/// Where the committed document is.
pub const SPEC_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../openapi.yaml");

/// Set in the process that [`alone_in_a_process`] starts.
const ALONE: &str = "LINKPATH_TEST_ALONE";

/// Whether the test `name` (its path in this binary) is to run its body
/// here: true in a process of its own; otherwise this starts one that runs
/// just that test, waits for it and fails when it fails.
pub fn alone_in_a_process(name: &str) -> bool {
    if std::env::var_os(ALONE).is_some() {
        return true;
    }
    let output = Command::new(std::env::current_exe().expect("the test binary"))
        .args([name, "--exact", "--test-threads", "1", "--nocapture"])
        .env(ALONE, "1")
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "{name} alone: {}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    false
}
