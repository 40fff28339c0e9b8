//! Requests that several topics send, with their exact answers.

use serde_json::{Value, json};

/// The Mahjong sample of docs/rules.md as a request.
pub fn mahjong_sample() -> Value {
    json!({
        "board": ["XXXXX", "X   X", "XXX X", " XXX "],
        "rules": "mahjong",
        "queries": [
            {"from": [1, 2], "to": [4, 2]},
            {"from": [0, 2], "to": [3, 3]},
            {"from": [1, 2], "to": [2, 3]}
        ]
    })
}

/// Its exact answer.
pub fn mahjong_sample_results() -> Value {
    json!([
        {"connected": true, "segments": 4, "path": [[1, 2], [1, 1], [3, 1], [3, 2], [4, 2]]},
        {"connected": true, "segments": 3, "path": [[0, 2], [0, 4], [3, 4], [3, 3]]},
        {"connected": false, "reason": "no_path"}
    ])
}

/// A curling request whose search runs until its deadline: [`curling`]
/// with no throw limit. It takes seconds under any sane deadline; the tests
/// only need it to outlast theirs.
pub fn endless_curling() -> Value {
    curling(None)
}

/// A 24 × 24 curling rink with 173 blocks, thrown from one corner to the
/// other. With `max_throws` `None` the search runs until its deadline; with
/// 17 it ends, `no_path`, after half a second or so (0.45 s in a release
/// build on the development machine).
pub fn curling(max_throws: Option<u32>) -> Value {
    const N: usize = 24;
    let board: Vec<Vec<u32>> = (0..N)
        .map(|y| {
            (0..N)
                .map(|x| {
                    let corner = (x, y) == (0, 0) || (x, y) == (N - 1, N - 1);
                    u32::from(!corner && (x * 7 + y * 11) % 10 < 3)
                })
                .collect()
        })
        .collect();
    json!({
        "board": board,
        "rules": {"preset": "curling", "max_segments": max_throws},
        "queries": [{"from": [0, 0], "to": [N - 1, N - 1]}]
    })
}

/// A `width × height` board of text rows whose first `tiles` cells in an
/// order shuffled by `seed` hold tiles, two of each type in turn over
/// `types` letters: every type has an even count, so the board may be
/// clearable.
pub fn paired_board(
    width: usize,
    height: usize,
    tiles: usize,
    types: usize,
    seed: u64,
) -> Vec<String> {
    const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut cells = vec![b'.'; width * height];
    let mut order: Vec<usize> = (0..cells.len()).collect();
    linkpath_engine::SplitMix64::new(seed).shuffle(&mut order);
    for (k, &cell) in order.iter().take(tiles / 2 * 2).enumerate() {
        cells[cell] = LETTERS[(k / 2) % types.min(LETTERS.len())];
    }
    cells
        .chunks(width)
        .map(|row| String::from_utf8(row.to_vec()).expect("ASCII"))
        .collect()
}
