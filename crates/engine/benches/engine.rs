//! Engine benchmarks on the board sizes the service is asked about:
//! `cargo bench --bench engine`.

use criterion::{Criterion, criterion_group, criterion_main};
use linkpath_engine::{Board, Point, Preset, Query, Rules, Stop, solve};
use std::hint::black_box;

/// A small deterministic generator (xorshift64*), so every run measures the
/// same boards.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A board with tiles of `types` kinds at `density` percent.
fn board(rng: &mut Rng, width: usize, height: usize, density: usize, types: u32) -> Board {
    let cells = (0..width * height)
        .map(|_| {
            if rng.below(100) < density {
                1 + (rng.next() % u64::from(types)) as u32
            } else {
                0
            }
        })
        .collect();
    Board::new(width, height, cells).expect("a valid board")
}

/// `count` queries between tiles; with `same_type`, pairs of one type.
fn tile_queries(rng: &mut Rng, board: &Board, count: usize, same_type: bool) -> Vec<Query> {
    let tiles: Vec<Point> = (0..board.cells().len())
        .filter(|&i| board.cells()[i] != 0)
        .map(|i| Point::new((i % board.width()) as i32, (i / board.width()) as i32))
        .collect();
    let mut queries = Vec::new();
    while queries.len() < count {
        let from = tiles[rng.below(tiles.len())];
        let to = tiles[rng.below(tiles.len())];
        if from != to && (!same_type || board.get(from) == board.get(to)) {
            queries.push(Query::new(from, to));
        }
    }
    queries
}

/// A curling board: blocks at `density` percent, start and goal on empty
/// cells.
fn rink(rng: &mut Rng, side: usize, density: usize) -> (Board, Query) {
    let board = board(rng, side, side, density, 1);
    let empty: Vec<usize> = (0..side * side)
        .filter(|&i| board.cells()[i] == 0)
        .collect();
    let at = |i: usize| Point::new((i % side) as i32, (i / side) as i32);
    let start = empty[rng.below(empty.len())];
    let mut goal = start;
    while goal == start {
        goal = empty[rng.below(empty.len())];
    }
    (board, Query::new(at(start), at(goal)))
}

fn engine(c: &mut Criterion) {
    let mut rng = Rng(0x5EED_1175);
    let llk = board(&mut rng, 999, 1000, 50, 20);
    let llk_queries = tile_queries(&mut rng, &llk, 49, true);
    let mahjong = board(&mut rng, 1000, 1000, 30, 1);
    let mahjong_queries = tile_queries(&mut rng, &mahjong, 50, false);
    let rinks: Vec<(Board, Query)> = (0..100).map(|_| rink(&mut rng, 20, 15)).collect();

    let mut group = c.benchmark_group("engine");
    group.sample_size(10);
    let run = |board: &Board, rules: Rules, queries: &[Query]| {
        solve(board, &rules, queries, &Stop::never()).expect("on-board queries")
    };
    group.bench_function("lianliankan 1000x999 50% 49 queries", |b| {
        b.iter(|| run(black_box(&llk), Preset::Lianliankan.rules(), &llk_queries))
    });
    group.bench_function("mahjong 1000x1000 30% 50 queries", |b| {
        b.iter(|| {
            run(
                black_box(&mahjong),
                Preset::Mahjong.rules(),
                &mahjong_queries,
            )
        })
    });
    group.bench_function("curling 100 random 20x20", |b| {
        b.iter(|| {
            for (board, query) in &rinks {
                black_box(run(
                    board,
                    Preset::Curling.rules(),
                    std::slice::from_ref(query),
                ));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
