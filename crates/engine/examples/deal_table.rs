//! What `/v1/deal`'s difficulties measure, against random boards that the
//! solver finds solvable: the moves open at the start and the share of
//! random playouts that clear the board ([`game::stats`]), medians over
//! fixed seeds. `bench/clear.sh deal` runs it; BENCHMARKS.md records it.
//!
//! ```text
//! cargo run --release --example deal_table -- [--deals N] [--big] [--layouts]
//! ```
//!
//! 18 x 8 boards of 36 types x 4 under Shisen-Sho and Lianliankan, gravity
//! none and down; `--big` adds 30 x 16 boards of 120 types x 4.
//! `--layouts` measures deals onto two shipped layouts of 40 cells
//! (`assets/layouts/pyramid.txt` and `islands.txt`) beside the 8 x 5
//! rectangle, 10 types x 4 each, instead.

use linkpath_engine::game::{self, Clearing, DealStats, Difficulty, Gravity};
use linkpath_engine::{Board, EMPTY, Preset, Rules, Stop};
use std::time::{Duration, Instant};

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

fn random_board(width: usize, height: usize, types: usize, seed: u64) -> Board {
    let mut rng = Rng(seed);
    let mut cells: Vec<u32> = (0..types * 4).map(|i| (i / 4 + 1) as u32).collect();
    cells.resize(width * height, EMPTY);
    for i in (1..cells.len()).rev() {
        let j = rng.below(i + 1);
        cells.swap(i, j);
    }
    Board::new(width, height, cells).expect("a board")
}

/// Medians of moves open and of the playout clear share, in percent.
fn row(
    name: &str,
    preset: Preset,
    gravity: Gravity,
    measured: &[DealStats],
    times: &mut [Duration],
    note: &str,
) {
    let mut open: Vec<usize> = measured.iter().map(|s| s.moves_open).collect();
    let mut share: Vec<u32> = measured
        .iter()
        .map(|s| 100 * s.cleared / s.playouts.max(1))
        .collect();
    open.sort_unstable();
    share.sort_unstable();
    times.sort();
    let median = |n: usize| n / 2;
    println!(
        "| {preset} | {} | {name} | {} | {} | {}% | {} | {} |",
        gravity.name(),
        measured.len(),
        open[median(open.len())],
        share[median(share.len())],
        if times.is_empty() {
            "-".to_owned()
        } else {
            format!("{:.1?}", times[median(times.len())])
        },
        note,
    );
}

/// Deals `deals` boards of one shape (width, height, and the marked cells
/// of a layout if any) from seeds 0, 1, ...: their measures, and the time
/// each deal with its measures took.
fn measure(
    (width, height, layout): (usize, usize, Option<&[usize]>),
    tiles: &[(u32, usize)],
    preset: Preset,
    gravity: Gravity,
    difficulty: Difficulty,
    deals: u64,
) -> (Vec<DealStats>, Vec<Duration>) {
    let mut measured = Vec::new();
    let mut times = Vec::new();
    for seed in 0..deals {
        let started = Instant::now();
        let deal = game::Deal {
            width,
            height,
            tiles,
            layout,
            rules: preset.rules(),
            fall: gravity.into(),
            difficulty,
            seed,
        };
        let (_, _, stats) = game::deal_measured(&deal, &Stop::never()).expect("a deal");
        measured.push(stats);
        times.push(started.elapsed());
    }
    (measured, times)
}

/// The marked cells of a layout file, and its width and height.
fn layout(text: &str) -> (usize, usize, Vec<usize>) {
    let rows: Vec<&str> = text.lines().collect();
    let width = rows[0].len();
    let cells = rows
        .iter()
        .flat_map(|row| row.bytes())
        .enumerate()
        .filter(|&(_, b)| b == b'#')
        .map(|(i, _)| i)
        .collect();
    (width, rows.len(), cells)
}

/// Deals onto the pyramid and the islands beside the rectangle of as many
/// cells, every difficulty.
fn layouts(deals: u64) {
    let shapes = [
        ("8 x 5 rectangle", (8, 5, (0..40).collect::<Vec<usize>>())),
        (
            "pyramid (16 x 4)",
            layout(include_str!("../../../assets/layouts/pyramid.txt")),
        ),
        (
            "islands (14 x 4)",
            layout(include_str!("../../../assets/layouts/islands.txt")),
        ),
    ];
    let tiles: Vec<(u32, usize)> = (1..=10).map(|t| (t, 4)).collect();
    for preset in [Preset::ShisenSho, Preset::Lianliankan] {
        for gravity in [Gravity::None, Gravity::Down] {
            for (name, (width, height, cells)) in &shapes {
                assert_eq!(cells.len(), 40, "{name}");
                for difficulty in Difficulty::ALL {
                    let shape = (*width, *height, Some(cells.as_slice()));
                    let (measured, mut times) =
                        measure(shape, &tiles, preset, gravity, difficulty, deals);
                    let name = format!("{name} {}", difficulty.name());
                    row(&name, preset, gravity, &measured, &mut times, "");
                }
            }
        }
    }
}

fn main() {
    let mut deals = 30;
    let mut big = false;
    let mut shaped = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--deals" => deals = args.next().and_then(|n| n.parse().ok()).expect("a count"),
            "--big" => big = true,
            "--layouts" => shaped = true,
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    println!(
        "| rules | gravity | boards | count | moves open (median) | playouts cleared (median) | deal + stats (median) | |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    if shaped {
        layouts(deals);
        return;
    }
    let mut shapes = vec![(18, 8, 36)];
    if big {
        shapes.push((30, 16, 120));
    }
    for (width, height, types) in shapes {
        for preset in [Preset::ShisenSho, Preset::Lianliankan] {
            for gravity in [Gravity::None, Gravity::Down] {
                let rules: Rules = preset.rules();
                let tiles: Vec<(u32, usize)> = (1..=types as u32).map(|t| (t, 4)).collect();
                for difficulty in Difficulty::ALL {
                    let (measured, mut times) = measure(
                        (width, height, None),
                        &tiles,
                        preset,
                        gravity,
                        difficulty,
                        deals,
                    );
                    let name = format!("{width} x {height} {}", difficulty.name());
                    row(&name, preset, gravity, &measured, &mut times, "");
                }
                let mut measured = Vec::new();
                let mut tried = 0;
                let mut undecided = 0;
                while measured.len() < deals as usize && tried < 8 * deals {
                    let board = random_board(width, height, types, 5000 + tried);
                    tried += 1;
                    let budget = Instant::now() + Duration::from_secs(1);
                    let outcome =
                        game::clear(&board, &rules, gravity, Some(budget), &Stop::never())
                            .expect("never stopped");
                    match outcome.result {
                        Clearing::Solved(_) => measured.push(
                            game::stats(&board, &rules, gravity, tried, &Stop::never())
                                .expect("never stopped"),
                        ),
                        Clearing::Unknown => undecided += 1,
                        Clearing::Impossible => {}
                    }
                }
                let name = format!("{width} x {height} random solvable");
                if measured.is_empty() {
                    println!(
                        "| {preset} | {} | {name} | 0 | - | - | - | of {tried} random boards none proved solvable ({undecided} undecided in 1 s) |",
                        gravity.name()
                    );
                } else {
                    let note = format!(
                        "{} of {tried} random boards ({undecided} undecided in 1 s)",
                        measured.len()
                    );
                    row(&name, preset, gravity, &measured, &mut [], &note);
                }
            }
        }
    }
}
