//! `contestant FORMAT`: the straightforward solver a competent contestant
//! writes, reading the judge input on stdin and printing exactly what
//! `linkpath judge FORMAT` prints. FORMAT is `mahjong`, `hdu1175`, `poj3009`
//! (the plain search) or `poj3009-pruned` (with the usual depth cut).
//!
//! These are fair baselines: fast input (all of stdin at once, a byte-level
//! number scanner), flat arrays, one output write; only the algorithms are
//! the textbook ones, with nothing precomputed between queries.

use linkpath_baselines::{
    CurlingDfs, HduCase, MahjongInput, Scanner, read_hdu1175, read_mahjong, read_poj3009,
    read_stdin, write_stdout,
};
use std::collections::VecDeque;
use std::fmt::Write as _;

fn main() {
    let format = std::env::args().nth(1).unwrap_or_default();
    let input = read_stdin();
    let mut sc = Scanner::new(&input);
    let mut out = String::new();
    match format.as_str() {
        "mahjong" => {
            if let Some(board) = read_mahjong(&mut sc) {
                mahjong(&board, &mut out);
            }
        }
        "hdu1175" => {
            while let Some(case) = read_hdu1175(&mut sc) {
                hdu1175(&case, &mut out);
            }
        }
        "poj3009" | "poj3009-pruned" => {
            let prune = format == "poj3009-pruned";
            while let Some(board) = read_poj3009(&mut sc) {
                let (answer, _) = CurlingDfs::solve(&board, prune);
                let _ = writeln!(out, "{}", answer.map_or(-1, i64::from));
            }
        }
        _ => {
            eprintln!("usage: contestant mahjong|hdu1175|poj3009|poj3009-pruned < input");
            std::process::exit(2);
        }
    }
    write_stdout(&out);
}

const UNREACHED: u32 = u32::MAX;

/// Mahjong (docs/rules.md §1): for each pair, a fresh breadth-first search over
/// the board padded with one ring of empty cells. `dist[c]` is the fewest
/// segments that reach cell `c`; a popped cell sends a ray in each of the
/// four directions up to the next tile or the edge of the padded board,
/// giving every cell not reached yet one segment more, and walking on
/// through cells already reached (stopping there would lose paths that
/// reach them again later in a better direction). The search ends when a
/// ray arrives at the target tile. Prints the segment count, or 0.
fn mahjong(board: &MahjongInput, out: &mut String) {
    let (w, h) = (board.width + 2, board.height + 2);
    let mut tile = vec![false; w * h];
    for y in 0..board.height {
        for x in 0..board.width {
            tile[(y + 1) * w + x + 1] = board.tiles[y * board.width + x] == 1;
        }
    }
    let mut dist = vec![UNREACHED; w * h];
    let mut queue = VecDeque::new();
    for &[x1, y1, x2, y2] in &board.pairs {
        // 1-based (column, row) is the padded board's 0-based (x, y).
        let (from, to) = (y1 * w + x1, y2 * w + x2);
        let segments = if from == to || !tile[from] || !tile[to] {
            0
        } else {
            dist.fill(UNREACHED);
            queue.clear();
            ray_bfs(&tile, w, h, from, to, &mut dist, &mut queue)
        };
        let _ = writeln!(out, "{segments}");
    }
}

/// The ray BFS from tile `from` to tile `to`: the fewest segments, or 0.
fn ray_bfs(
    tile: &[bool],
    w: usize,
    h: usize,
    from: usize,
    to: usize,
    dist: &mut [u32],
    queue: &mut VecDeque<usize>,
) -> u32 {
    dist[from] = 0;
    queue.push_back(from);
    while let Some(cell) = queue.pop_front() {
        let next = dist[cell] + 1;
        let (x, y) = (cell % w, cell / w);
        // Steps right, left, down, up, with how many cells each ray may walk.
        for (step, room) in [
            (1isize, w - 1 - x),
            (-1, x),
            (w as isize, h - 1 - y),
            (-(w as isize), y),
        ] {
            let mut at = cell;
            for _ in 0..room {
                at = at.wrapping_add_signed(step);
                if at == to {
                    return next;
                }
                if tile[at] {
                    break;
                }
                if dist[at] == UNREACHED {
                    dist[at] = next;
                    queue.push_back(at);
                }
            }
        }
    }
    0
}

/// Lianliankan (docs/rules.md §2), for reference: per query, the same ray BFS
/// inside the board only, limited to three segments (two turns). YES when
/// both cells are distinct tiles of one type and such a path exists.
fn hdu1175(case: &HduCase, out: &mut String) {
    let (w, h) = (case.columns, case.rows);
    let mut dist = vec![UNREACHED; w * h];
    let mut queue = VecDeque::new();
    for &[x1, y1, x2, y2] in &case.queries {
        // 1-based (row, column).
        let (from, to) = ((x1 - 1) * w + y1 - 1, (x2 - 1) * w + y2 - 1);
        let kind = case.cells[from];
        let yes = from != to && kind != 0 && case.cells[to] == kind && {
            dist.fill(UNREACHED);
            queue.clear();
            limited_bfs(&case.cells, w, h, from, to, &mut dist, &mut queue)
        };
        out.push_str(if yes { "YES\n" } else { "NO\n" });
    }
}

/// Whether tile `to` is reached from tile `from` in at most three segments.
fn limited_bfs(
    cells: &[u32],
    w: usize,
    h: usize,
    from: usize,
    to: usize,
    dist: &mut [u32],
    queue: &mut VecDeque<usize>,
) -> bool {
    dist[from] = 0;
    queue.push_back(from);
    while let Some(cell) = queue.pop_front() {
        let next = dist[cell] + 1;
        if next > 3 {
            return false;
        }
        let (x, y) = (cell % w, cell / w);
        for (step, room) in [
            (1isize, w - 1 - x),
            (-1, x),
            (w as isize, h - 1 - y),
            (-(w as isize), y),
        ] {
            let mut at = cell;
            for _ in 0..room {
                at = at.wrapping_add_signed(step);
                if at == to {
                    return true;
                }
                if cells[at] != 0 {
                    break;
                }
                if dist[at] == UNREACHED {
                    dist[at] = next;
                    queue.push_back(at);
                }
            }
        }
    }
    false
}
