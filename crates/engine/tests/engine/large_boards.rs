//! The engine's fast paths against the brute-force reference in
//! `support::reference`, on boards far larger than the property tests use.
//!
//! - `line` movement on 200 × 200 boards (and one non-square one) at tile
//!   densities of 30%, 45% and 58%, under mahjong, shisen-sho, lianliankan
//!   and custom rules with no ring and at most 5 or 6 segments: the
//!   two-turn shapes over run ids, the bidirectional search over runs that
//!   marks the runs on paths with the fewest segments, and the cell search
//!   kept to those runs. Every answer must match the reference exactly: the
//!   reason when not connected; otherwise the segment count, a valid path,
//!   and the shortest length among paths with that many segments.
//! - `slide` movement (curling) on 20 × 20 and 60 × 60 boards, and on
//!   rinks either side of 64 cells a side (a line of blocks in one 64-bit
//!   word, or in several): the padded rink and the two-throw lookahead,
//!   against the reference's exhaustive search, with the stops replayed.
//!
//! Seeds are fixed, so every failure names the seed, board and query that
//! reproduce it.

use crate::support::random::{Rng, random_board};
use crate::support::reference::{
    Expected, check_line_path, check_slide_path, path_length, reference,
};
use linkpath_engine::{
    Answer, Board, EMPTY, Match, Movement, Point, Preset, Query, Reason, Rules, Solver, Stop, solve,
};
use std::sync::OnceLock;
use std::time::Instant;

fn point_of(board: &Board, i: usize) -> Point {
    let w = board.width();
    Point::new((i % w) as i32, (i / w) as i32)
}

/// The cells of a board sorted for drawing query ends: all tiles, the tiles
/// of each type, the tiles near the edge, the empty cells.
struct Cells {
    tiles: Vec<Point>,
    by_type: Vec<Vec<Point>>,
    edge: Vec<Point>,
    empty: Vec<Point>,
}

impl Cells {
    fn new(board: &Board, types: usize) -> Self {
        let (w, h) = (board.width() as i32, board.height() as i32);
        let mut cells = Cells {
            tiles: Vec::new(),
            by_type: vec![Vec::new(); types + 1],
            edge: Vec::new(),
            empty: Vec::new(),
        };
        for (i, &c) in board.cells().iter().enumerate() {
            let p = point_of(board, i);
            if c == EMPTY {
                cells.empty.push(p);
                continue;
            }
            cells.tiles.push(p);
            cells.by_type[c as usize].push(p);
            if p.x < 3 || p.y < 3 || p.x >= w - 3 || p.y >= h - 3 {
                cells.edge.push(p);
            }
        }
        cells
    }
}

fn pick(rng: &mut Rng, from: &[Point]) -> Point {
    from[rng.below(from.len())]
}

/// A tile at most `radius` steps (in each axis) from `a`, of `a`'s type when
/// `same_type`, and not `a` itself; `None` if random tries find none.
fn near(rng: &mut Rng, board: &Board, a: Point, radius: i32, same_type: bool) -> Option<Point> {
    for _ in 0..200 {
        let dx = rng.below(2 * radius as usize + 1) as i32 - radius;
        let dy = rng.below(2 * radius as usize + 1) as i32 - radius;
        let b = Point::new(a.x + dx, a.y + dy);
        let Some(cell) = board.get(b) else { continue };
        if b != a && cell != EMPTY && (!same_type || Some(cell) == board.get(a)) {
            return Some(b);
        }
    }
    None
}

/// A tile on `a`'s row or column, of `a`'s type when `same_type`.
fn aligned(rng: &mut Rng, board: &Board, a: Point, same_type: bool) -> Option<Point> {
    for _ in 0..200 {
        let b = if rng.chance(50) {
            Point::new(rng.below(board.width()) as i32, a.y)
        } else {
            Point::new(a.x, rng.below(board.height()) as i32)
        };
        let cell = board.get(b).expect("on the board");
        if b != a && cell != EMPTY && (!same_type || Some(cell) == board.get(a)) {
            return Some(b);
        }
    }
    None
}

/// `count` queries of every kind: far and near pairs, pairs on one row or
/// column, pairs by the edge (where the ring matters), mostly of one type
/// when the rules want that, and a few refusals (an empty end, one cell
/// twice).
fn line_queries(
    rng: &mut Rng,
    board: &Board,
    cells: &Cells,
    count: usize,
    same_rules: bool,
) -> Vec<Query> {
    let mut queries = Vec::with_capacity(count);
    let mut kind = 0;
    while queries.len() < count {
        kind += 1;
        // Under same-type rules most pairs are of one type (a pair of two
        // types is refused at once); under any-type rules, some are anyway.
        let same_type = if same_rules {
            !rng.chance(15)
        } else {
            rng.chance(30)
        };
        let a = pick(rng, &cells.tiles);
        let partner = |rng: &mut Rng, pool: &[Point]| -> Point {
            if same_type {
                let tile = board.get(a).expect("on the board") as usize;
                pick(rng, &cells.by_type[tile])
            } else {
                pick(rng, pool)
            }
        };
        let query = match kind % 16 {
            0 if kind % 32 == 0 && !cells.empty.is_empty() => {
                Some(Query::new(a, pick(rng, &cells.empty)))
            }
            0 => Some(Query::new(a, a)),
            1..=3 => near(rng, board, a, 2, same_type).map(|b| Query::new(a, b)),
            4..=6 => near(rng, board, a, 6, same_type).map(|b| Query::new(a, b)),
            7 | 8 => near(rng, board, a, 25, same_type).map(|b| Query::new(a, b)),
            9 | 10 => aligned(rng, board, a, same_type).map(|b| Query::new(a, b)),
            11 | 12 if !cells.edge.is_empty() => {
                let a = pick(rng, &cells.edge);
                let tile = board.get(a).expect("on the board");
                (0..200)
                    .map(|_| pick(rng, &cells.edge))
                    .find(|&b| b != a && (!same_type || board.get(b) == Some(tile)))
                    .map(|b| Query::new(a, b))
            }
            _ => Some(Query::new(a, partner(rng, &cells.tiles))),
        };
        // A random partner may be the tile itself; that is a fine query too.
        if let Some(q) = query {
            queries.push(q);
        }
    }
    queries
}

/// How the answers fell, so the test fails if the boards stop exercising
/// what they are meant to.
#[derive(Default, Debug)]
struct Tally {
    by_segments: [usize; 8],
    no_path: usize,
    refused: usize,
}

impl Tally {
    fn add(&mut self, answer: &Answer) {
        match answer {
            Answer::Connected(path) => self.by_segments[(path.segments as usize).min(7)] += 1,
            Answer::NotConnected(Reason::NoPath) => self.no_path += 1,
            Answer::NotConnected(_) => self.refused += 1,
        }
    }
}

/// Checks one engine answer against the reference; the error names what
/// differs.
fn check(board: &Board, rules: &Rules, query: Query, answer: &Answer) -> Result<(), String> {
    let expected = reference(board, rules, query.from, query.to);
    match (answer, expected) {
        (Answer::Connected(path), Expected::Line { segments, length }) => {
            if path.segments != segments {
                return Err(format!(
                    "engine {} segments, reference {segments}: {:?}",
                    path.segments, path.corners
                ));
            }
            check_line_path(
                board,
                rules.outside,
                query.from,
                query.to,
                path.segments,
                &path.corners,
            )?;
            let found = path_length(&path.corners);
            if found != length {
                return Err(format!(
                    "engine length {found}, reference {length} ({segments} segments): {:?}",
                    path.corners
                ));
            }
        }
        (Answer::Connected(path), Expected::Slide { throws }) => {
            if path.segments != throws {
                return Err(format!(
                    "engine {} throws, reference {throws}: {:?}",
                    path.segments, path.corners
                ));
            }
            check_slide_path(board, query.from, query.to, path.segments, &path.corners)?;
        }
        (Answer::NotConnected(reason), Expected::NotConnected(want)) if *reason == want => {}
        (answer, expected) => {
            return Err(format!("engine {answer:?}, reference {expected:?}"));
        }
    }
    Ok(())
}

/// Answers `queries` as one batch and each on a fresh solver, requires the
/// two to agree, checks every answer against the reference, and collects
/// every failure. The batch runs on four threads whatever the machine, so
/// a batch big enough to be spread over threads is (each thread's later
/// queries reuse the search state of its earlier ones).
fn run_board(
    what: &str,
    board: &Board,
    rules: &Rules,
    queries: &[Query],
    tally: &mut Tally,
    failures: &mut Vec<String>,
) {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    let pool = POOL.get_or_init(|| {
        let threads = rayon::ThreadPoolBuilder::new().num_threads(4);
        threads.build().expect("a thread pool")
    });
    let answers = pool
        .install(|| solve(board, rules, queries, &Stop::never()))
        .expect("no stop");
    assert_eq!(answers.len(), queries.len());
    for (n, (query, answer)) in queries.iter().zip(&answers).enumerate() {
        let context = format!(
            "{what}, {} x {} board, rules {rules:?}, query #{n} {} -> {}",
            board.width(),
            board.height(),
            query.from,
            query.to
        );
        tally.add(answer);
        if let Err(e) = check(board, rules, *query, answer) {
            failures.push(format!("{context}: {e}"));
            continue;
        }
        let alone = Solver::new(board, *rules)
            .answer(*query, &Stop::never())
            .expect("no stop");
        if alone != *answer {
            failures.push(format!("{context}: in a batch {answer:?}, alone {alone:?}"));
        }
    }
}

fn report(name: &str, started: Instant, tally: &Tally, failures: &[String]) {
    eprintln!("{name}: {:.1?}, {tally:?}", started.elapsed());
    assert!(
        failures.is_empty(),
        "{} mismatches against the reference:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

const TYPES: usize = 4;
const LINE_QUERIES: usize = 40;

/// Custom rules: no ring, a few segments more than the two-turn presets.
fn custom(max_segments: u32, matching: Match) -> Rules {
    Rules {
        movement: Movement::Line,
        max_segments: Some(max_segments),
        outside: false,
        matching,
    }
}

/// Every board of one density: three 200 × 200 boards and one of 257 × 143
/// (so rows and columns cannot be mixed up unnoticed), each under every rule
/// set with its own queries.
fn line_density(density: usize) -> Tally {
    let started = Instant::now();
    let rule_sets = [
        Preset::Mahjong.rules(),
        Preset::ShisenSho.rules(),
        Preset::Lianliankan.rules(),
        custom(6, Match::Any),
        custom(5, Match::Same),
    ];
    let boards = [
        (1u64, 200, 200),
        (2, 200, 200),
        (3, 200, 200),
        (4, 257, 143),
    ];
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for (seed, w, h) in boards {
        let mut rng = Rng::new(seed * 1000 + density as u64);
        let board = random_board(&mut rng, w, h, density, TYPES);
        let cells = Cells::new(&board, TYPES);
        for rules in &rule_sets {
            let same = rules.matching == Match::Same;
            let queries = line_queries(&mut rng, &board, &cells, LINE_QUERIES, same);
            let what = format!("seed {seed}, density {density}%");
            run_board(&what, &board, rules, &queries, &mut tally, &mut failures);
        }
    }
    report(
        &format!("line, density {density}%"),
        started,
        &tally,
        &failures,
    );
    tally
}

fn more_than_three(tally: &Tally) -> usize {
    tally.by_segments[4..].iter().sum()
}

#[test]
fn line_density_30_matches_reference() {
    let tally = line_density(30);
    assert!(
        tally.by_segments[1..=3].iter().all(|&n| n >= 20)
            && more_than_three(&tally) >= 60
            && tally.no_path >= 40
            && tally.refused >= 20,
        "the boards no longer exercise every path: {tally:?}"
    );
}

#[test]
fn line_density_45_matches_reference() {
    let tally = line_density(45);
    assert!(
        tally.by_segments[1..=3].iter().all(|&n| n >= 20)
            && more_than_three(&tally) >= 30
            && tally.no_path >= 100,
        "the boards no longer exercise every path: {tally:?}"
    );
}

#[test]
fn line_density_58_matches_reference() {
    let tally = line_density(58);
    assert!(
        tally.by_segments[1..=2].iter().all(|&n| n >= 20) && tally.no_path >= 200,
        "the boards no longer exercise every path: {tally:?}"
    );
}

/// `count` (start, goal) pairs of empty cells: any two, two on one row or
/// column (one throw, or a lookahead shortcut), two near each other, and a
/// few refusals (a block at one end, one cell twice).
fn slide_queries(rng: &mut Rng, board: &Board, cells: &Cells, count: usize) -> Vec<Query> {
    let mut queries = Vec::with_capacity(count);
    let mut kind = 0;
    while queries.len() < count && cells.empty.len() >= 2 {
        kind += 1;
        let a = pick(rng, &cells.empty);
        let query = match kind % 6 {
            0 if kind % 12 == 0 && !cells.tiles.is_empty() => {
                Some(Query::new(a, pick(rng, &cells.tiles)))
            }
            0 if kind % 18 == 0 => Some(Query::new(a, a)),
            1 => (0..200)
                .map(|_| {
                    if rng.chance(50) {
                        Point::new(rng.below(board.width()) as i32, a.y)
                    } else {
                        Point::new(a.x, rng.below(board.height()) as i32)
                    }
                })
                .find(|&b| b != a && board.get(b) == Some(EMPTY))
                .map(|b| Query::new(a, b)),
            2 => (0..200)
                .map(|_| {
                    let dx = rng.below(11) as i32 - 5;
                    let dy = rng.below(11) as i32 - 5;
                    Point::new(a.x + dx, a.y + dy)
                })
                .find(|&b| b != a && board.get(b) == Some(EMPTY))
                .map(|b| Query::new(a, b)),
            _ => Some(Query::new(a, pick(rng, &cells.empty))),
        };
        if let Some(q) = query {
            queries.push(q);
        }
    }
    queries
}

fn slide_rules(max_segments: Option<u32>) -> Rules {
    Rules {
        movement: Movement::Slide,
        max_segments,
        outside: false,
        matching: Match::Any,
    }
}

#[test]
fn curling_20_by_20_matches_reference() {
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    let rule_sets = [
        Preset::Curling.rules(),
        slide_rules(Some(3)),
        slide_rules(Some(6)),
    ];
    for seed in 1..=4u64 {
        for density in [10, 20, 30, 40] {
            let mut rng = Rng::new(500 + seed * 1000 + density as u64);
            let board = random_board(&mut rng, 20, 20, density, 1);
            let cells = Cells::new(&board, 1);
            for rules in &rule_sets {
                let queries = slide_queries(&mut rng, &board, &cells, 25);
                let what = format!("seed {seed}, density {density}%");
                run_board(&what, &board, rules, &queries, &mut tally, &mut failures);
            }
        }
    }
    report("curling 20 x 20", started, &tally, &failures);
    let connected: usize = tally.by_segments.iter().sum();
    assert!(
        connected >= 300
            && tally.by_segments[4..].iter().sum::<usize>() >= 50
            && tally.no_path >= 100,
        "the boards no longer exercise every path: {tally:?}"
    );
}

#[test]
fn curling_60_by_60_matches_reference() {
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for (seed, density) in [(1u64, 8), (2, 15), (3, 25)] {
        let mut rng = Rng::new(700 + seed * 1000 + density as u64);
        let board = random_board(&mut rng, 60, 60, density, 1);
        let cells = Cells::new(&board, 1);
        let rules = Preset::Curling.rules();
        let queries = slide_queries(&mut rng, &board, &cells, 20);
        let what = format!("seed {seed}, density {density}%");
        run_board(&what, &board, &rules, &queries, &mut tally, &mut failures);
    }
    report("curling 60 x 60", started, &tally, &failures);
    let connected: usize = tally.by_segments.iter().sum();
    assert!(
        connected >= 10,
        "the boards no longer exercise every path: {tally:?}"
    );
}

/// Rinks whose rows or columns take more than one 64-bit word, and the
/// widest that take one: the search keeps a rink of one word per line apart
/// from the general one, and both must answer as the reference does. Half
/// the queries start or end in the last column or row, where a one-word
/// line uses its top bit. Each board must connect some queries and refuse
/// others, so that neither path is left unexercised.
#[test]
fn curling_rinks_across_the_word_boundary_match_reference() {
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    let mut thin = Vec::new();
    for (seed, w, h, density) in [
        (1u64, 64, 64, 15),
        (2, 64, 64, 25),
        (3, 64, 63, 20),
        (4, 63, 64, 20),
        (5, 65, 64, 20),
        (6, 64, 65, 20),
        (7, 70, 20, 25),
        (8, 20, 70, 25),
        (9, 130, 66, 12),
    ] {
        let mut rng = Rng::new(800 + seed * 1000 + density as u64);
        let board = random_board(&mut rng, w, h, density, 1);
        let cells = Cells::new(&board, 1);
        let rules = Preset::Curling.rules();
        let mut queries = slide_queries(&mut rng, &board, &cells, 20);
        queries.extend(last_line_queries(&mut rng, &board, &cells, 20));
        let what = format!("seed {seed}, {w} x {h}, density {density}%");
        let before = (tally.by_segments.iter().sum::<usize>(), tally.no_path);
        run_board(&what, &board, &rules, &queries, &mut tally, &mut failures);
        let connected = tally.by_segments.iter().sum::<usize>() - before.0;
        let no_path = tally.no_path - before.1;
        if connected < 3 || no_path < 1 {
            thin.push(format!(
                "{what}: {connected} connected, {no_path} without a path"
            ));
        }
    }
    report("curling across 64", started, &tally, &failures);
    assert!(
        thin.is_empty(),
        "boards no longer exercise every path: {thin:?}"
    );
}

/// Curling queries with one end in the last column or row of the rink
/// (and the other anywhere, or there too).
fn last_line_queries(rng: &mut Rng, board: &Board, cells: &Cells, count: usize) -> Vec<Query> {
    let (w, h) = (board.width() as i32, board.height() as i32);
    let last: Vec<Point> = (cells.empty.iter().copied())
        .filter(|p| p.x == w - 1 || p.y == h - 1)
        .collect();
    if last.is_empty() || cells.empty.len() < 2 {
        return Vec::new();
    }
    (0..count)
        .map(|i| {
            let a = pick(rng, &last);
            let others = if i % 3 == 0 { &last } else { &cells.empty };
            let b = pick(rng, others);
            if i % 2 == 0 {
                Query::new(a, b)
            } else {
                Query::new(b, a)
            }
        })
        .collect()
}

/// Boards big enough for the run graph to be numbered in bands, one per
/// thread, with vertical runs reaching across the band boundaries: every
/// answer, path included, must be the one the same batch gets with the
/// graph numbered in one band (checked against the reference above).
#[test]
fn run_graph_numbered_in_bands_answers_as_in_one() {
    let pool = |threads| {
        let builder = rayon::ThreadPoolBuilder::new().num_threads(threads);
        builder.build().expect("a thread pool")
    };
    let (one, four) = (pool(1), pool(4));
    let mut searched = 0;
    for (seed, w, h, density) in [(1u64, 520, 520, 12), (2, 700, 400, 35)] {
        let mut rng = Rng::new(9000 + seed);
        let board = random_board(&mut rng, w, h, density, 1);
        let cells = Cells::new(&board, 1);
        let queries = line_queries(&mut rng, &board, &cells, 12, false);
        for rules in [Preset::Mahjong.rules(), custom(12, Match::Any)] {
            let solve_on = |pool: &rayon::ThreadPool| {
                let answers = pool.install(|| solve(&board, &rules, &queries, &Stop::never()));
                answers.expect("no stop")
            };
            let in_one = solve_on(&one);
            assert_eq!(
                solve_on(&four),
                in_one,
                "seed {seed}, {w} x {h}, density {density}%, rules {rules:?}"
            );
            searched += in_one.iter().filter(|a| a.segments() > Some(3)).count();
        }
    }
    assert!(
        searched >= 12,
        "only {searched} answers took the run search"
    );
}
