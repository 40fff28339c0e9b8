//! Game benchmarks: `cargo bench --bench game`.
//!
//! - `moves`: every removable pair of a standard 18 × 8 Shisen-Sho deal
//!   (144 tiles, 36 types × 4) and of a 40 × 25 deal (1000 tiles, 250 types
//!   × 4), by `game::moves` and by the naive check written here (the solver
//!   asked about every pair of same-type tiles).
//! - `moves from one tile`: the moves of one tile (`game::moves_from`)
//!   against every move, on the same two deals.
//! - `deal`: dealing 18 × 8 and 30 × 16 Shisen-Sho boards.
//! - then a table, not a criterion measurement: `clear` on 100 dealt
//!   18 × 8 boards per setting, with a 1 s budget each: the share decided
//!   and the median time, with the move ordering on and off (left out with
//!   `GAME_TABLES=0`).

use criterion::Criterion;
use linkpath_engine::game::{self, ClearOptions, Clearing, Gravity};
use linkpath_engine::{Answer, Board, EMPTY, Point, Preset, Query, Rules, Solver, Stop};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn tiles(types: u32) -> Vec<(u32, usize)> {
    (1..=types).map(|t| (t, 4)).collect()
}

fn dealt(width: usize, height: usize, types: u32, gravity: Gravity, seed: u64) -> Board {
    let rules = Preset::ShisenSho.rules();
    game::deal(
        width,
        height,
        &tiles(types),
        &rules,
        gravity,
        seed,
        &Stop::never(),
    )
    .expect("a deal")
    .0
}

/// The naive check: the solver asked about every pair of tiles (a pair of
/// two types is refused in O(1)).
fn naive_moves(board: &Board, rules: &Rules) -> usize {
    let w = board.width();
    let tiles: Vec<Point> = (0..board.cells().len())
        .filter(|&i| board.cells()[i] != EMPTY)
        .map(|i| Point::new((i % w) as i32, (i / w) as i32))
        .collect();
    let mut solver = Solver::new(board, *rules);
    let mut found = 0;
    for (k, &a) in tiles.iter().enumerate() {
        for &b in &tiles[k + 1..] {
            if let Answer::Connected(_) = solver
                .answer(Query::new(a, b), &Stop::never())
                .expect("never stopped")
            {
                found += 1;
            }
        }
    }
    found
}

/// A small deterministic generator (SplitMix64) for the random boards.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// `tiles` tiles (`types` types, an even number of each) dropped at random
/// on a `width × height` board: no construction, so some cannot be cleared.
fn random_board(width: usize, height: usize, tiles: usize, types: usize, seed: u64) -> Board {
    let mut rng = Rng(seed);
    let mut cells = vec![EMPTY; width * height];
    for (i, cell) in cells.iter_mut().take(tiles).enumerate() {
        *cell = 1 + ((i / 2) % types) as u32;
    }
    for i in (1..cells.len()).rev() {
        let j = rng.below(i + 1);
        cells.swap(i, j);
    }
    Board::new(width, height, cells).expect("a board")
}

fn bench_moves(c: &mut Criterion) {
    let rules = Preset::ShisenSho.rules();
    for (name, board) in [
        ("18x8 144 tiles", dealt(18, 8, 36, Gravity::None, 1)),
        ("40x25 1000 tiles", dealt(40, 25, 250, Gravity::None, 1)),
        (
            "50x40 1000 tiles 10 types",
            random_board(50, 40, 1000, 10, 1),
        ),
    ] {
        let moves = game::moves(&board, &rules, None, &Stop::never()).expect("moves");
        assert_eq!(moves.len(), naive_moves(&board, &rules));
        eprintln!("{name}: {} moves", moves.len());
        let mut group = c.benchmark_group(format!("moves {name}"));
        group.bench_function("game::moves", |b| {
            b.iter(|| game::moves(black_box(&board), &rules, None, &Stop::never()))
        });
        group.bench_function("game::moves limit 1", |b| {
            b.iter(|| game::moves(black_box(&board), &rules, Some(1), &Stop::never()))
        });
        group.bench_function("naive all pairs", |b| {
            b.iter(|| naive_moves(black_box(&board), &rules))
        });
        group.finish();
    }
}

/// One tile's moves (`game::moves_from`, the hint for a picked tile)
/// against every move of the board, on the boards of [`bench_moves`]. The
/// tile changes each iteration, through every tile in reading order, so
/// the figure is the mean over the board's tiles.
fn bench_moves_from(c: &mut Criterion) {
    let rules = Preset::ShisenSho.rules();
    for (name, board) in [
        ("18x8 144 tiles", dealt(18, 8, 36, Gravity::None, 1)),
        ("40x25 1000 tiles", dealt(40, 25, 250, Gravity::None, 1)),
    ] {
        let w = board.width();
        let tiles: Vec<Point> = (0..board.cells().len())
            .filter(|&i| board.cells()[i] != EMPTY)
            .map(|i| Point::new((i % w) as i32, (i / w) as i32))
            .collect();
        let all = game::moves(&board, &rules, None, &Stop::never()).expect("moves");
        let per_tile: usize = tiles
            .iter()
            .map(|&t| {
                game::moves_from(&board, &rules, t, None, &Stop::never())
                    .expect("moves")
                    .len()
            })
            .sum();
        // Each move is listed from both of its tiles.
        assert_eq!(per_tile, 2 * all.len());
        let mut group = c.benchmark_group(format!("moves from one tile {name}"));
        group.bench_function("game::moves every tile", |b| {
            b.iter(|| game::moves(black_box(&board), &rules, None, &Stop::never()))
        });
        let mut next = 0;
        group.bench_function("game::moves_from one tile", |b| {
            b.iter(|| {
                let tile = tiles[next % tiles.len()];
                next += 1;
                game::moves_from(black_box(&board), &rules, tile, None, &Stop::never())
            })
        });
        group.finish();
    }
}

fn bench_deal(c: &mut Criterion) {
    let rules = Preset::ShisenSho.rules();
    let mut group = c.benchmark_group("deal");
    for (name, width, height, types) in [("18x8", 18, 8, 36), ("30x16", 30, 16, 120)] {
        for gravity in [Gravity::None, Gravity::Down] {
            let mut seed = 0;
            group.bench_function(format!("{name} gravity {}", gravity.name()), |b| {
                b.iter(|| {
                    seed += 1;
                    game::deal(
                        width,
                        height,
                        &tiles(types),
                        &rules,
                        gravity,
                        seed,
                        &Stop::never(),
                    )
                })
            });
        }
    }
    group.finish();
}

/// `clear` on 100 deals per setting, 1 s each: decided share and median.
fn clear_table() {
    let rules = Preset::ShisenSho.rules();
    println!();
    println!("clear: 100 dealt 18x8 Shisen-Sho boards per row, budget 1 s each");
    println!(
        "| gravity | ordering | solved | proved impossible | unknown | median | 90th percentile | states (median) |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for gravity in [Gravity::None, Gravity::Down] {
        for ordering in [true, false] {
            let (mut solved, mut impossible, mut unknown) = (0, 0, 0);
            let mut times = Vec::new();
            let mut states = Vec::new();
            for seed in 0..100 {
                let board = dealt(18, 8, 36, gravity, 1000 + seed);
                let started = Instant::now();
                let options = ClearOptions {
                    fall: gravity.into(),
                    budget: Some(started + Duration::from_secs(1)),
                    ordering,
                    ..ClearOptions::default()
                };
                let outcome = game::clear_with(&board, &rules, &options, &Stop::never())
                    .expect("never stopped");
                times.push(started.elapsed());
                states.push(outcome.states);
                match outcome.result {
                    Clearing::Solved(_) => solved += 1,
                    Clearing::Impossible => impossible += 1,
                    Clearing::Unknown => unknown += 1,
                }
            }
            times.sort();
            states.sort_unstable();
            println!(
                "| {} | {} | {solved}% | {impossible}% | {unknown}% | {:.2?} | {:.2?} | {} |",
                gravity.name(),
                if ordering { "on" } else { "off" },
                times[50],
                times[90],
                states[50]
            );
        }
    }
}

/// `clear` on 50 random 18 × 8 boards (144 tiles, 36 types × 4, placed at
/// random) per setting, 1 s each.
fn clear_random_table() {
    let rules = Preset::ShisenSho.rules();
    println!();
    println!(
        "clear: 50 random 18x8 Shisen-Sho boards per row (36 types x 4 dropped at random), budget 1 s each"
    );
    println!(
        "| gravity | pruning | ordering | solved | proved impossible | unknown | median | 90th percentile |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (gravity, pruning, ordering) in [
        (Gravity::None, true, true),
        (Gravity::None, true, false),
        (Gravity::None, false, true),
        (Gravity::Down, true, true),
        (Gravity::Down, true, false),
    ] {
        let (mut solved, mut impossible, mut unknown) = (0, 0, 0);
        let mut times = Vec::new();
        for seed in 0..50 {
            let board = random_board(18, 8, 144, 36, 7000 + seed);
            let started = Instant::now();
            let options = ClearOptions {
                fall: gravity.into(),
                budget: Some(started + Duration::from_secs(1)),
                pruning,
                ordering,
                ..ClearOptions::default()
            };
            let outcome =
                game::clear_with(&board, &rules, &options, &Stop::never()).expect("never stopped");
            times.push(started.elapsed());
            match outcome.result {
                Clearing::Solved(_) => solved += 1,
                Clearing::Impossible => impossible += 1,
                Clearing::Unknown => unknown += 1,
            }
        }
        times.sort();
        println!(
            "| {} | {} | {} | {solved} | {impossible} | {unknown} | {:.2?} | {:.2?} |",
            gravity.name(),
            if pruning { "on" } else { "off" },
            if ordering { "on" } else { "off" },
            times[25],
            times[45],
        );
    }
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_moves(&mut criterion);
    bench_moves_from(&mut criterion);
    bench_deal(&mut criterion);
    criterion.final_summary();
    // The tables take minutes: `GAME_TABLES=0` leaves them out when only
    // a criterion group is wanted.
    if std::env::var_os("GAME_TABLES").is_none_or(|v| v != "0") {
        clear_table();
        clear_random_table();
    }
}
