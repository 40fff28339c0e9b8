//! `serde-floor FILE [--iters N]`: the time serde_json alone needs to parse
//! a `/v1/solve` body. Reads FILE into memory once, then parses it N times
//! (default 20) into a typed struct shaped like the request, and prints the
//! median and the minimum parse time as `median_ms=… min_ms=…`.
//!
//! A service that takes JSON cannot answer faster than its JSON parser reads
//! the body, so this is the floor for the HTTP path. To make it a strict
//! floor, the board is decoded straight into its concrete type: a cheap peek
//! at the body (the first value inside `"board": [`) tells whether the rows
//! are strings or arrays of numbers, and the parse then uses a struct whose
//! `board` field has exactly that type. (An untagged enum would make serde
//! buffer the whole board in its intermediate `Content` tree first, and time
//! that instead.) The peek is timed with the parse.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use std::time::Instant;

#[derive(Deserialize)]
#[allow(dead_code)] // the fields are only parsed
struct Query {
    from: [i64; 2],
    to: [i64; 2],
}

/// The request, with the board rows as `B`: `Vec<String>` or
/// `Vec<Vec<u32>>`.
#[derive(Deserialize)]
#[allow(dead_code)]
struct SolveRequest<B> {
    board: Vec<B>,
    rules: serde_json::Value,
    queries: Vec<Query>,
    include_path: Option<bool>,
}

/// How the board rows are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rows {
    Strings,
    Numbers,
}

/// Finds the `"board"` key (a `"board"` followed by `:`, so not a string
/// value) and looks at the first value of its array: `"` for string rows,
/// `[` for number rows. An empty board (`[]`) parses either way; it is taken
/// as strings. `None` when the body has no such key or array.
fn peek_rows(body: &[u8]) -> Option<Rows> {
    const KEY: &[u8] = b"\"board\"";
    let skip_space = |mut i: usize| {
        while i < body.len() && body[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let mut from = 0;
    while let Some(at) = body[from..].windows(KEY.len()).position(|w| w == KEY) {
        let after = skip_space(from + at + KEY.len());
        from += at + 1;
        if body.get(after) != Some(&b':') {
            continue;
        }
        let open = skip_space(after + 1);
        if body.get(open) != Some(&b'[') {
            return None;
        }
        return match body.get(skip_space(open + 1)) {
            Some(b'"') | Some(b']') => Some(Rows::Strings),
            Some(b'[') => Some(Rows::Numbers),
            _ => None,
        };
    }
    None
}

/// Parses `body` as a request with board rows of type `B`, and returns how
/// long that took in milliseconds.
fn parse<B: DeserializeOwned>(file: &str, body: &[u8]) -> f64 {
    let start = Instant::now();
    let request: SolveRequest<B> = serde_json::from_slice(body).unwrap_or_else(|e| {
        eprintln!("{file}: {e}");
        std::process::exit(1);
    });
    let elapsed = start.elapsed().as_secs_f64() * 1000.0;
    std::hint::black_box(&request);
    elapsed
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = || -> ! {
        eprintln!("usage: serde-floor FILE [--iters N]");
        std::process::exit(2);
    };
    let (file, iters) = match args.as_slice() {
        [file] => (file, 20),
        [file, flag, n] if flag == "--iters" => (file, n.parse().unwrap_or_else(|_| usage())),
        _ => usage(),
    };
    if iters == 0 {
        usage();
    }
    let body = std::fs::read(file).unwrap_or_else(|e| {
        eprintln!("{file}: {e}");
        std::process::exit(1);
    });
    let mut times: Vec<f64> = (0..iters)
        .map(|_| {
            let start = Instant::now();
            let rows = peek_rows(&body);
            let peeked = start.elapsed().as_secs_f64() * 1000.0;
            peeked
                + match rows {
                    Some(Rows::Strings) => parse::<String>(file, &body),
                    Some(Rows::Numbers) => parse::<Vec<u32>>(file, &body),
                    None => {
                        eprintln!("{file}: no \"board\" array of strings or of number arrays");
                        std::process::exit(1);
                    }
                }
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let median = if iters % 2 == 1 {
        times[iters / 2]
    } else {
        (times[iters / 2 - 1] + times[iters / 2]) / 2.0
    };
    println!("median_ms={median:.3} min_ms={:.3}", times[0]);
}
