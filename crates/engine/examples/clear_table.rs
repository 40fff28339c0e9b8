//! `/v1/clear`'s search on fixed-seed random boards: how many it decides
//! within the budget, and how long and how many states that takes.
//! `bench/clear.sh` runs it; BENCHMARKS.md records what it prints.
//!
//! ```text
//! cargo run --release --example clear_table -- [SET ...] [--boards N] [--budget-ms MS]
//!     [--max-states N] [--off IDEA ...] [--pairing] [--each]
//! ```
//!
//! Sets: `18x8-none`, `18x8-down` (200 boards of 36 types x 4),
//! `kshisen-none`, `kshisen-down` (50 boards of 30 x 16 filled as KShisen
//! fills them: 120 groups of 4 tiles cycling over 42 faces), `120x4-none`,
//! `120x4-down` (50 boards of 30 x 16 with 120 types x 4, budget 10 s).
//! The same seeds give the same boards for both gravities. `--max-states`
//! bounds each board's search by states as well (a budget that does not
//! depend on the machine's load). `--off` turns
//! an idea of the search off (`whole-type`, `relaxed`, `restarts`, `links`,
//! `pruning`, `ordering`); `--pairing` turns the partner search on to measure what it gives; `--each` prints one
//! line per board.

use linkpath_engine::game::{self, ClearOptions, Clearing, Gravity};
use linkpath_engine::{Board, EMPTY, Preset, Stop};
use std::time::{Duration, Instant};

/// SplitMix64, as the tests' boards use.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (((z ^ (z >> 31)) as u128 * n as u128) >> 64) as usize
    }
}

/// `kinds` (one entry per tile) shuffled over a full `width × height` board.
fn shuffled(width: usize, height: usize, mut kinds: Vec<u32>, seed: u64) -> Board {
    let mut rng = Rng(seed);
    for i in (1..kinds.len()).rev() {
        let j = rng.below(i + 1);
        kinds.swap(i, j);
    }
    kinds.resize(width * height, EMPTY);
    Board::new(width, height, kinds).expect("a board")
}

struct Set {
    name: &'static str,
    gravity: Gravity,
    boards: usize,
    budget: Duration,
    board: fn(u64) -> Board,
}

fn standard(seed: u64) -> Board {
    shuffled(18, 8, (0..144).map(|i| i / 4 + 1).collect(), seed)
}

fn kshisen(seed: u64) -> Board {
    shuffled(30, 16, (0..480).map(|i| (i / 4) % 42 + 1).collect(), seed)
}

fn distinct(seed: u64) -> Board {
    shuffled(30, 16, (0..480).map(|i| i / 4 + 1).collect(), seed)
}

fn sets() -> Vec<Set> {
    let second = Duration::from_secs(1);
    let set = |name, gravity, boards, budget, board| Set {
        name,
        gravity,
        boards,
        budget,
        board,
    };
    vec![
        set(
            "18x8-none",
            Gravity::None,
            200,
            second,
            standard as fn(u64) -> Board,
        ),
        set("18x8-down", Gravity::Down, 200, second, standard),
        set("kshisen-none", Gravity::None, 50, second, kshisen),
        set("kshisen-down", Gravity::Down, 50, second, kshisen),
        set("120x4-none", Gravity::None, 50, second * 10, distinct),
        set("120x4-down", Gravity::Down, 50, second * 10, distinct),
    ]
}

fn percentile<T: Copy + Ord>(sorted: &[T], p: usize) -> T {
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

fn main() {
    let mut names = Vec::new();
    let mut boards = None;
    let mut budget = None;
    let mut max_states = None;
    let mut off = Vec::new();
    let mut pairing = false;
    let mut each = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--boards" => boards = args.next().and_then(|n| n.parse::<usize>().ok()),
            "--budget-ms" => {
                budget = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .map(Duration::from_millis)
            }
            "--max-states" => max_states = args.next().and_then(|n| n.parse().ok()),
            "--off" => off.push(args.next().expect("an idea after --off")),
            "--each" => each = true,
            "--pairing" => pairing = true,
            // cargo bench passes --bench to every target.
            "--bench" => {}
            name => names.push(name.to_owned()),
        }
    }
    let rules = Preset::ShisenSho.rules();
    println!(
        "| boards | gravity | budget | true | false | unknown | decided | median | p90 | states median | states p90 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for set in sets() {
        if !names.is_empty() && !names.iter().any(|n| n == set.name) {
            continue;
        }
        let count = boards.unwrap_or(set.boards).min(set.boards);
        let budget = budget.unwrap_or(set.budget);
        let (mut yes, mut no, mut unknown) = (0, 0, 0);
        let mut times = Vec::new();
        let mut states = Vec::new();
        for seed in 0..count as u64 {
            let board = (set.board)(seed);
            let started = Instant::now();
            let mut options = ClearOptions {
                fall: set.gravity.into(),
                budget: Some(started + budget),
                max_states,
                ordering: set.gravity == Gravity::None,
                pairing,
                ..ClearOptions::default()
            };
            for idea in &off {
                match idea.as_str() {
                    "whole-type" => options.whole_type = false,
                    "relaxed" => options.relaxed = false,
                    "restarts" => options.restarts = false,
                    "links" => options.links = false,
                    "pruning" => options.pruning = false,
                    "ordering" => options.ordering = false,
                    other => panic!("unknown idea {other}"),
                }
            }
            let outcome =
                game::clear_with(&board, &rules, &options, &Stop::never()).expect("never stopped");
            let took = started.elapsed();
            let verdict = match &outcome.result {
                Clearing::Solved(sequence) => {
                    let played = game::play(&board, &rules, set.gravity, sequence, &Stop::never())
                        .expect("never stopped");
                    assert!(
                        played.stopped.is_none() && game::cleared(&played.board),
                        "{} seed {seed}: the sequence does not clear the board",
                        set.name
                    );
                    yes += 1;
                    "true"
                }
                Clearing::Impossible => {
                    no += 1;
                    "false"
                }
                Clearing::Unknown => {
                    unknown += 1;
                    "unknown"
                }
            };
            if each {
                eprintln!(
                    "{} seed {seed}: {verdict} in {took:.2?}, {} states",
                    set.name, outcome.states
                );
            }
            times.push(took);
            states.push(outcome.states);
        }
        times.sort();
        states.sort_unstable();
        println!(
            "| {} ({count}) | {} | {:?} | {yes} | {no} | {unknown} | {:.1}% | {:.2?} | {:.2?} | {} | {} |",
            set.name,
            set.gravity.name(),
            budget,
            100.0 * (yes + no) as f64 / count as f64,
            percentile(&times, 50),
            percentile(&times, 90),
            percentile(&states, 50),
            percentile(&states, 90),
        );
    }
}
