//! What decoding holds, in proportion to the body: matching groups are
//! read flat, so a body of many groups holds a few bytes a byte at its
//! peak, not the twenty it held when each group was a vector of its own.
//! The counter is exact and counts this thread only, so the figure is the
//! same on every run.

use linkpath_api::{Limits, SolveRequest};
use serde_json::json;

/// The most bytes a decode may hold at its peak for each byte of body.
const HELD_PER_BODY_BYTE: u64 = 4;

fn peak_per_body_byte(body: &[u8]) -> f64 {
    let limits = Limits::default();
    let held = allocation_counter::measure(|| {
        let request = SolveRequest::decode(body, &limits).expect("a valid request");
        std::hint::black_box(&request);
    });
    held.bytes_max as f64 / body.len() as f64
}

#[test]
fn many_matching_groups_hold_a_few_bytes_a_byte_of_body() {
    for groups in [100_000u32, 300_000] {
        let numbers: Vec<[u32; 1]> = (1..=groups).map(|t| [t]).collect();
        let body = json!({
            "board": [[1, 2]],
            "rules": {"preset": "mahjong", "match": {"groups": numbers}},
            "queries": [],
        })
        .to_string();
        let held = peak_per_body_byte(body.as_bytes());
        println!(
            "{groups} groups in {} bytes: {held:.2} bytes held a byte at the peak",
            body.len()
        );
        assert!(
            held <= HELD_PER_BODY_BYTE as f64,
            "{groups} groups in {} bytes held {held:.2} bytes a byte",
            body.len()
        );
    }
}
