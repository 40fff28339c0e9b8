//! `gen KIND [--seed N] [--density P]`: deterministic benchmark inputs on
//! stdout (the same seed always gives the same bytes).
//!
//! - `hdu1175`: one HDU 1175 case, 1000 rows x 999 columns, about half the
//!   cells tiles of 20 types, 49 queries between two tiles of the same type
//!   (alternately anywhere on the board and close by, so that both answers
//!   occur), then `0 0`.
//! - `mahjong`: one Mahjong board, 1000 x 1000, P percent tiles (default
//!   30), 50 pairs of two distinct tiles, then `0 0 0 0`.
//! - `poj3009-hard`: 100 POJ 3009 datasets of 20 x 20, half answered 8, 9 or
//!   10 throws and half -1 where the plain search explores more than 10 000
//!   positions, then `0 0`.
//! - `llk-json`, `mahjong-json`: the `/v1/solve` bodies of the same boards
//!   and queries as `hdu1175` and `mahjong` with the same seed and density.

use linkpath_baselines::{CurlingBoard, CurlingDfs, Rng, write_stdout};
use std::fmt::Write as _;

const HDU_ROWS: usize = 1000;
const HDU_COLUMNS: usize = 999;
const HDU_TYPES: usize = 20;
const HDU_QUERIES: usize = 49;

const MAHJONG_SIDE: usize = 1000;
const MAHJONG_PAIRS: usize = 50;

const CURLING_SIDE: usize = 20;
const CURLING_BOARDS: usize = 100;
/// A -1 board counts as hard when the plain search visits more positions.
const CURLING_HARD_NODES: u64 = 10_000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage =
        "usage: gen hdu1175|mahjong|poj3009-hard|llk-json|mahjong-json [--seed N] [--density P]";
    let kind = args.first().unwrap_or_else(|| fail(usage)).clone();
    let (mut seed, mut density) = (1u64, 30usize);
    let mut rest = args[1..].iter();
    while let Some(flag) = rest.next() {
        let value = rest.next().unwrap_or_else(|| fail(usage));
        match flag.as_str() {
            "--seed" => {
                seed = value
                    .parse()
                    .unwrap_or_else(|_| fail("--seed takes a number"))
            }
            "--density" => {
                density = value
                    .parse()
                    .unwrap_or_else(|_| fail("--density takes a percent"));
                if density > 100 {
                    fail("--density takes a percent (0 to 100)");
                }
            }
            _ => fail(usage),
        }
    }
    let text = match kind.as_str() {
        "hdu1175" => hdu1175_text(&hdu1175_case(seed)),
        "llk-json" => llk_json(&hdu1175_case(seed)),
        "mahjong" => mahjong_text(&mahjong_board(seed, density)),
        "mahjong-json" => mahjong_json(&mahjong_board(seed, density)),
        "poj3009-hard" => poj3009_hard(seed),
        _ => fail(usage),
    };
    write_stdout(&text);
}

fn fail(message: &str) -> ! {
    eprintln!("{message}");
    std::process::exit(2);
}

/// An HDU 1175 board with its queries, 0-based `(row, column)` pairs.
struct HduCase {
    cells: Vec<u32>,
    queries: Vec<[usize; 4]>,
}

fn hdu1175_case(seed: u64) -> HduCase {
    let mut rng = Rng::new(seed);
    let (n, m) = (HDU_ROWS, HDU_COLUMNS);
    let cells: Vec<u32> = (0..n * m)
        .map(|_| {
            if rng.below(2) == 0 {
                1 + rng.below(HDU_TYPES) as u32
            } else {
                0
            }
        })
        .collect();
    let mut queries = Vec::with_capacity(HDU_QUERIES);
    while queries.len() < HDU_QUERIES {
        let a = rng.below(n * m);
        if cells[a] == 0 {
            continue;
        }
        let (ar, ac) = (a / m, a % m);
        // Even queries: a partner anywhere (almost always NO); odd ones: a
        // partner within 4 rows and columns (often YES).
        let near = queries.len() % 2 == 1;
        let mut partner = None;
        for _ in 0..10_000 {
            let (r, c) = if near {
                let r = (ar + rng.below(9)).checked_sub(4).filter(|&r| r < n);
                let c = (ac + rng.below(9)).checked_sub(4).filter(|&c| c < m);
                match (r, c) {
                    (Some(r), Some(c)) => (r, c),
                    _ => continue,
                }
            } else {
                (rng.below(n), rng.below(m))
            };
            let b = r * m + c;
            if b != a && cells[b] == cells[a] {
                partner = Some((r, c));
                break;
            }
        }
        if let Some((br, bc)) = partner {
            queries.push([ar, ac, br, bc]);
        }
    }
    HduCase { cells, queries }
}

fn hdu1175_text(case: &HduCase) -> String {
    let mut out = String::with_capacity(HDU_ROWS * HDU_COLUMNS * 3);
    let _ = writeln!(out, "{HDU_ROWS} {HDU_COLUMNS}");
    for row in case.cells.chunks(HDU_COLUMNS) {
        push_joined(&mut out, row.iter(), " ");
        out.push('\n');
    }
    let _ = writeln!(out, "{}", case.queries.len());
    for [r1, c1, r2, c2] in &case.queries {
        // 1-based, x the row.
        let _ = writeln!(out, "{} {} {} {}", r1 + 1, c1 + 1, r2 + 1, c2 + 1);
    }
    out.push_str("0 0\n");
    out
}

fn llk_json(case: &HduCase) -> String {
    let mut out = String::with_capacity(HDU_ROWS * HDU_COLUMNS * 3);
    out.push_str("{\"board\":[");
    for (i, row) in case.cells.chunks(HDU_COLUMNS).enumerate() {
        out.push_str(if i == 0 { "[" } else { ",[" });
        push_joined(&mut out, row.iter(), ",");
        out.push(']');
    }
    out.push_str("],\"rules\":\"lianliankan\",\"queries\":[");
    for (i, [r1, c1, r2, c2]) in case.queries.iter().enumerate() {
        // 0-based [x, y], x the column.
        let comma = if i == 0 { "" } else { "," };
        let _ = write!(out, "{comma}{{\"from\":[{c1},{r1}],\"to\":[{c2},{r2}]}}");
    }
    out.push_str("],\"include_path\":true}\n");
    out
}

fn push_joined<T: std::fmt::Display>(out: &mut String, items: impl Iterator<Item = T>, sep: &str) {
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        let _ = write!(out, "{item}");
    }
}

/// A Mahjong board with its pairs, 0-based `(x, y)` with x the column.
struct MahjongBoard {
    tiles: Vec<bool>,
    pairs: Vec<[usize; 4]>,
}

fn mahjong_board(seed: u64, density: usize) -> MahjongBoard {
    let mut rng = Rng::new(seed);
    let side = MAHJONG_SIDE;
    let tiles: Vec<bool> = (0..side * side).map(|_| rng.below(100) < density).collect();
    if tiles.iter().filter(|&&t| t).count() < 2 {
        fail("the board needs at least two tiles for its pairs");
    }
    let mut random_tile = || loop {
        let i = rng.below(side * side);
        if tiles[i] {
            return i;
        }
    };
    let mut pairs = Vec::with_capacity(MAHJONG_PAIRS);
    while pairs.len() < MAHJONG_PAIRS {
        let (a, b) = (random_tile(), random_tile());
        if a != b {
            pairs.push([a % side, a / side, b % side, b / side]);
        }
    }
    MahjongBoard { tiles, pairs }
}

fn mahjong_rows(board: &MahjongBoard) -> impl Iterator<Item = String> + '_ {
    board
        .tiles
        .chunks(MAHJONG_SIDE)
        .map(|row| row.iter().map(|&t| if t { 'X' } else { ' ' }).collect())
}

fn mahjong_text(board: &MahjongBoard) -> String {
    let mut out = String::with_capacity(MAHJONG_SIDE * (MAHJONG_SIDE + 1) + 1024);
    let _ = writeln!(out, "{MAHJONG_SIDE} {MAHJONG_SIDE}");
    for row in mahjong_rows(board) {
        out.push_str(&row);
        out.push('\n');
    }
    for [x1, y1, x2, y2] in &board.pairs {
        // 1-based, x the column.
        let _ = writeln!(out, "{} {} {} {}", x1 + 1, y1 + 1, x2 + 1, y2 + 1);
    }
    out.push_str("0 0 0 0\n");
    out
}

fn mahjong_json(board: &MahjongBoard) -> String {
    let mut out = String::with_capacity(MAHJONG_SIDE * (MAHJONG_SIDE + 3) + 4096);
    out.push_str("{\"board\":[");
    for (i, row) in mahjong_rows(board).enumerate() {
        out.push_str(if i == 0 { "\"" } else { ",\"" });
        out.push_str(&row);
        out.push('"');
    }
    out.push_str("],\"rules\":\"mahjong\",\"queries\":[");
    for (i, [x1, y1, x2, y2]) in board.pairs.iter().enumerate() {
        let comma = if i == 0 { "" } else { "," };
        let _ = write!(out, "{comma}{{\"from\":[{x1},{y1}],\"to\":[{x2},{y2}]}}");
    }
    out.push_str("],\"include_path\":true}\n");
    out
}

/// 100 hard Curling boards, alternating one answered in 8 to 10 throws and
/// one answered -1 after a long search. Boards are random (blocks at a
/// density drawn from a range that yields such answers, start and goal on
/// distinct vacant cells) and kept when their plain-search answer fits.
fn poj3009_hard(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let side = CURLING_SIDE;
    let (mut solved, mut lost) = (Vec::new(), Vec::new());
    let mut tried = 0u64;
    while solved.len() < CURLING_BOARDS / 2 || lost.len() < CURLING_BOARDS / 2 {
        tried += 1;
        let density = curling_density(&mut rng);
        let mut blocks: Vec<u8> = (0..side * side)
            .map(|_| u8::from(rng.below(100) < density))
            .collect();
        let start = rng.below(side * side);
        let goal = rng.below(side * side);
        if start == goal {
            continue;
        }
        blocks[start] = 0;
        blocks[goal] = 0;
        let board = CurlingBoard {
            width: side,
            height: side,
            blocks,
            start,
            goal,
        };
        let (answer, dfs) = CurlingDfs::solve(&board, false);
        match answer {
            Some(8..=10) if solved.len() < CURLING_BOARDS / 2 => solved.push(board),
            None if dfs.nodes > CURLING_HARD_NODES && lost.len() < CURLING_BOARDS / 2 => {
                lost.push(board)
            }
            _ => {}
        }
    }
    if std::env::var_os("GEN_VERBOSE").is_some() {
        eprintln!("poj3009-hard: {tried} random boards tried");
    }
    let mut out = String::new();
    for (a, b) in solved.iter().zip(&lost) {
        for board in [a, b] {
            let _ = writeln!(out, "{side} {side}");
            for y in 0..side {
                let row = (0..side).map(|x| {
                    let i = y * side + x;
                    if i == board.start {
                        2
                    } else if i == board.goal {
                        3
                    } else {
                        board.blocks[i]
                    }
                });
                push_joined(&mut out, row, " ");
                out.push('\n');
            }
        }
    }
    out.push_str("0 0\n");
    out
}

/// The block density (percent) of the next random Curling board: from 36 to
/// 56, where (by trying) about a quarter of the random boards answer 8 to 10
/// and close to a tenth answer -1 after more than 10 000 positions.
fn curling_density(rng: &mut Rng) -> usize {
    36 + rng.below(21)
}
