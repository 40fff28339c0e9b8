//! A brute-force reference for the engine, written to be obviously right
//! rather than fast, and the checks that a returned path really is one.
//!
//! - `line` movement: Dijkstra over (cell, direction) states on the board
//!   padded by its ring, with the cost `(segments, length)` compared
//!   lexicographically. Nothing is shared with the engine: no shape
//!   shortcuts, no region pruning, no scratch reuse.
//! - `slide` movement: a plain depth-first search over every throw
//!   sequence up to the limit, breaking and restoring blocks as it goes.

use linkpath_engine::{Board, EMPTY, Match, Movement, Point, Reason, Rules};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Right, down, left, up.
const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];

/// What the reference says about one query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// A `line` path exists; the fewest segments and, among paths with that
    /// many, the shortest total length.
    Line {
        segments: u32,
        length: u32,
    },
    /// A `slide` path exists with this many throws and no fewer.
    Slide {
        throws: u32,
    },
    NotConnected(Reason),
}

/// The reference answer for `from -> to` on `board` under `rules`.
pub fn reference(board: &Board, rules: &Rules, from: Point, to: Point) -> Expected {
    reference_grouped(board, rules, &[], from, to)
}

/// [`reference`] with matching groups: under `match: same`, two tiles
/// match when they are of one type or both listed in one of `groups`,
/// asked of the lists themselves.
pub fn reference_grouped(
    board: &Board,
    rules: &Rules,
    groups: &[Vec<u32>],
    from: Point,
    to: Point,
) -> Expected {
    let a = board.get(from).expect("from is on the board");
    let b = board.get(to).expect("to is on the board");
    if from == to {
        return Expected::NotConnected(Reason::SameCell);
    }
    match rules.movement {
        Movement::Line => {
            if a == EMPTY || b == EMPTY {
                Expected::NotConnected(Reason::NotATile)
            } else if rules.matching == Match::Same
                && a != b
                && !groups.iter().any(|g| g.contains(&a) && g.contains(&b))
            {
                Expected::NotConnected(Reason::TypeMismatch)
            } else {
                match line_reference(board, rules, from, to) {
                    Some((segments, length)) => Expected::Line { segments, length },
                    None => Expected::NotConnected(Reason::NoPath),
                }
            }
        }
        Movement::Slide => {
            if a != EMPTY || b != EMPTY {
                Expected::NotConnected(Reason::Blocked)
            } else {
                match slide_reference(board, rules.max_segments, from, to) {
                    Some(throws) => Expected::Slide { throws },
                    None => Expected::NotConnected(Reason::NoPath),
                }
            }
        }
    }
}

/// Whether a `line` path may pass through `p`: an empty board cell, or a
/// cell of the one-cell ring around the board when the rules allow it.
pub fn passable(board: &Board, outside: bool, p: Point) -> bool {
    let (w, h) = (board.width() as i32, board.height() as i32);
    if board.contains(p) {
        board.get(p) == Some(EMPTY)
    } else {
        outside && (-1..=w).contains(&p.x) && (-1..=h).contains(&p.y)
    }
}

/// Dijkstra over (cell, direction) on the padded board. Turning (by a right
/// angle) starts a new segment; every step costs one unit of length.
fn line_reference(board: &Board, rules: &Rules, from: Point, to: Point) -> Option<(u32, u32)> {
    let max = rules.max_segments.unwrap_or(u32::MAX);
    if max == 0 {
        return None;
    }
    let (pw, ph) = (board.width() as i32 + 2, board.height() as i32 + 2);
    let index = |p: Point, d: usize| (((p.y + 1) * pw + (p.x + 1)) as usize) * 4 + d;
    let mut best_state = vec![(u32::MAX, u32::MAX); (pw * ph) as usize * 4];
    let mut heap = BinaryHeap::new();
    let mut best: Option<(u32, u32)> = None;
    let step = |p: Point, d: usize| Point::new(p.x + DIRECTIONS[d].0, p.y + DIRECTIONS[d].1);

    for d in 0..4 {
        let n = step(from, d);
        if n == to {
            return Some((1, 1));
        }
        if passable(board, rules.outside, n) {
            best_state[index(n, d)] = (1, 1);
            heap.push(Reverse((1u32, 1u32, n.x, n.y, d)));
        }
    }
    while let Some(Reverse((segments, length, x, y, d))) = heap.pop() {
        let here = Point::new(x, y);
        if best_state[index(here, d)] != (segments, length) {
            continue;
        }
        for nd in 0..4 {
            if nd == (d + 2) % 4 {
                continue; // turning back is never a right angle
            }
            let cost = (segments + u32::from(nd != d), length + 1);
            if cost.0 > max {
                continue;
            }
            let n = step(here, nd);
            if n == to {
                if best.is_none_or(|b| cost < b) {
                    best = Some(cost);
                }
            } else if passable(board, rules.outside, n) && cost < best_state[index(n, nd)] {
                best_state[index(n, nd)] = cost;
                heap.push(Reverse((cost.0, cost.1, n.x, n.y, nd)));
            }
        }
    }
    best
}

/// One throw on a board of blocks.
enum Throw {
    /// A block stands right beside the stone in that direction.
    NotAllowed,
    Lost,
    Goal,
    /// The stone stopped at the point; the block at the index broke.
    Stopped(Point, usize),
}

/// Throws the stone from `at` in direction `d` (nothing is changed).
fn throw(blocks: &[bool], width: i32, height: i32, at: Point, goal: Point, d: usize) -> Throw {
    let mut pos = at;
    loop {
        let next = Point::new(pos.x + DIRECTIONS[d].0, pos.y + DIRECTIONS[d].1);
        if next.x < 0 || next.y < 0 || next.x >= width || next.y >= height {
            return Throw::Lost;
        }
        let i = (next.y * width + next.x) as usize;
        if blocks[i] {
            return if pos == at {
                Throw::NotAllowed
            } else {
                Throw::Stopped(pos, i)
            };
        }
        if next == goal {
            return Throw::Goal;
        }
        pos = next;
    }
}

/// The fewest throws, by trying every throw sequence up to the limit. With
/// no limit, `blocks + 1` throws suffice to try everything: a throw that
/// neither wins nor loses breaks a block.
fn slide_reference(board: &Board, max: Option<u32>, start: Point, goal: Point) -> Option<u32> {
    let mut blocks: Vec<bool> = board.cells().iter().map(|&c| c != EMPTY).collect();
    let count = blocks.iter().filter(|&&b| b).count() as u32;
    let limit = max.unwrap_or(count + 1);
    let (w, h) = (board.width() as i32, board.height() as i32);

    fn dfs(
        blocks: &mut Vec<bool>,
        (w, h): (i32, i32),
        at: Point,
        goal: Point,
        thrown: u32,
        limit: u32,
        best: &mut Option<u32>,
    ) {
        // Another throw must still beat the best found so far.
        if thrown >= limit || best.is_some_and(|b| thrown + 1 >= b) {
            return;
        }
        for d in 0..4 {
            match throw(blocks, w, h, at, goal, d) {
                Throw::NotAllowed | Throw::Lost => {}
                Throw::Goal => *best = Some(thrown + 1),
                Throw::Stopped(rest, broken) => {
                    blocks[broken] = false;
                    dfs(blocks, (w, h), rest, goal, thrown + 1, limit, best);
                    blocks[broken] = true;
                }
            }
            if best.is_some_and(|b| thrown + 1 >= b) {
                return;
            }
        }
    }

    let mut best = None;
    dfs(&mut blocks, (w, h), start, goal, 0, limit, &mut best);
    best
}

/// The total length of a path: the sum of `|dx| + |dy|` between corners.
pub fn path_length(corners: &[Point]) -> u32 {
    corners
        .windows(2)
        .map(|w| w[0].x.abs_diff(w[1].x) + w[0].y.abs_diff(w[1].y))
        .sum()
}

/// Checks that `corners` is a `line` path with `segments` segments from
/// `from` to `to` under `outside`: it starts and ends right, each segment is
/// axis-aligned and non-empty, consecutive segments turn by a right angle,
/// and every cell strictly between the ends is passable.
pub fn check_line_path(
    board: &Board,
    outside: bool,
    from: Point,
    to: Point,
    segments: u32,
    corners: &[Point],
) -> Result<(), String> {
    if corners.first() != Some(&from) || corners.last() != Some(&to) {
        return Err(format!("path {corners:?} does not run from {from} to {to}"));
    }
    if corners.len() != segments as usize + 1 {
        return Err(format!(
            "{segments} segments but {} corners: {corners:?}",
            corners.len()
        ));
    }
    let mut previous: Option<(i32, i32)> = None;
    for (n, pair) in corners.windows(2).enumerate() {
        let last = n + 2 == corners.len();
        let (p, q) = (pair[0], pair[1]);
        if p.x != q.x && p.y != q.y {
            return Err(format!("segment {p} -> {q} is not axis-aligned"));
        }
        if p == q {
            return Err(format!("segment {p} -> {q} is empty"));
        }
        let direction = ((q.x - p.x).signum(), (q.y - p.y).signum());
        if let Some(before) = previous {
            // A right angle: the two unit vectors are orthogonal.
            if before.0 * direction.0 + before.1 * direction.1 != 0 {
                return Err(format!("no right-angle turn at {p} in {corners:?}"));
            }
        }
        previous = Some(direction);
        let mut cell = p;
        while cell != q {
            cell = Point::new(cell.x + direction.0, cell.y + direction.1);
            let end = last && cell == q;
            if !end && !passable(board, outside, cell) {
                return Err(format!("path {corners:?} crosses {cell}"));
            }
        }
    }
    Ok(())
}

/// Replays `stops` (start, every stop, goal) on `board`, breaking blocks as
/// the stone hits them, and checks that each throw ends exactly at the next
/// stop and the last one on the goal.
pub fn check_slide_path(
    board: &Board,
    start: Point,
    goal: Point,
    throws: u32,
    stops: &[Point],
) -> Result<(), String> {
    if stops.first() != Some(&start) || stops.last() != Some(&goal) {
        return Err(format!("stops {stops:?} do not run from {start} to {goal}"));
    }
    if stops.len() != throws as usize + 1 {
        return Err(format!(
            "{throws} throws but {} stops: {stops:?}",
            stops.len()
        ));
    }
    let mut blocks: Vec<bool> = board.cells().iter().map(|&c| c != EMPTY).collect();
    let (w, h) = (board.width() as i32, board.height() as i32);
    for (n, pair) in stops.windows(2).enumerate() {
        let (p, q) = (pair[0], pair[1]);
        let direction = ((q.x - p.x).signum(), (q.y - p.y).signum());
        let d = DIRECTIONS
            .iter()
            .position(|&s| s == direction)
            .ok_or_else(|| format!("throw {p} -> {q} is not along a row or column"))?;
        let last = n + 2 == stops.len();
        match throw(&blocks, w, h, p, goal, d) {
            Throw::Goal if last && q == goal => {}
            Throw::Stopped(rest, broken) if !last && rest == q => blocks[broken] = false,
            Throw::Goal => return Err(format!("throw {p} -> {q} reaches the goal early")),
            Throw::Stopped(rest, _) => return Err(format!("throw {p} -> {q} stops at {rest}")),
            Throw::Lost => return Err(format!("throw {p} -> {q} leaves the board")),
            Throw::NotAllowed => return Err(format!("throw {p} -> {q} is against a block")),
        }
    }
    Ok(())
}
