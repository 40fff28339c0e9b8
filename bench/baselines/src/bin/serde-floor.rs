//! `serde-floor FILE [--iters N]`: the time serde_json alone needs to parse
//! a `/v1/solve` body. Reads FILE into memory once, then parses it N times
//! (default 20) into a typed struct shaped like the request, and prints the
//! median and the minimum parse time as `median_ms=… min_ms=…`.
//!
//! A service that takes JSON cannot answer faster than its JSON parser reads
//! the body, so this is the floor for the HTTP path.

use serde::Deserialize;
use std::time::Instant;

#[derive(Deserialize)]
#[serde(untagged)]
#[allow(dead_code)] // the fields are only parsed
enum Board {
    Strings(Vec<String>),
    Numbers(Vec<Vec<u32>>),
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Query {
    from: [i64; 2],
    to: [i64; 2],
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct SolveRequest {
    board: Board,
    rules: serde_json::Value,
    queries: Vec<Query>,
    include_path: Option<bool>,
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
            let request: SolveRequest = serde_json::from_slice(&body).unwrap_or_else(|e| {
                eprintln!("{file}: {e}");
                std::process::exit(1);
            });
            let elapsed = start.elapsed().as_secs_f64() * 1000.0;
            std::hint::black_box(&request);
            elapsed
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
