//! Paths with any number of turns: a search over (cell, direction) states
//! ordered by (segments, length), so the first path that reaches the target
//! has the fewest segments and, among those, the shortest length.
//!
//! Turning costs a segment and no length; going straight costs one cell and
//! no segment. The states of one segment count form a layer. Inside a layer,
//! states are taken in order of length by merging two queues that are each
//! already sorted: the layer's seeds (turns out of the previous layer, made
//! in length order) and the straight moves made within the layer (each one
//! cell longer than the state it came from).

use super::grid::Grid;
use super::stop::{Interrupted, Stop};

const UNSEEN: u32 = u32::MAX;

/// Search state reused across the queries of a batch. Only the states a
/// query touched are reset after it, so a short query on a large board stays
/// cheap.
pub(crate) struct Scratch {
    segments: Vec<u32>,
    length: Vec<u32>,
    touched: Vec<u32>,
    seeds: Vec<(u32, u32)>,
    next_seeds: Vec<(u32, u32)>,
    straight: Vec<(u32, u32)>,
}

impl Scratch {
    pub fn new(grid: &Grid) -> Self {
        let states = grid.open.len() * 4;
        Scratch {
            segments: vec![UNSEEN; states],
            length: vec![UNSEEN; states],
            touched: Vec::new(),
            seeds: Vec::new(),
            next_seeds: Vec::new(),
            straight: Vec::new(),
        }
    }

    fn reset(&mut self) {
        for &state in &self.touched {
            self.segments[state as usize] = UNSEEN;
            self.length[state as usize] = UNSEEN;
        }
        self.touched.clear();
    }

    /// Records `(segments, length)` for `state` if it beats what is known.
    #[inline]
    fn improve(&mut self, state: usize, segments: u32, length: u32) -> bool {
        let (s, l) = (self.segments[state], self.length[state]);
        if segments < s || (segments == s && length < l) {
            if s == UNSEEN {
                self.touched.push(state as u32);
            }
            self.segments[state] = segments;
            self.length[state] = length;
            true
        } else {
            false
        }
    }
}

/// The directions at right angles to direction `d` (0 right, 1 down, 2 left,
/// 3 up).
#[inline]
fn across(d: usize) -> [usize; 2] {
    [(d + 1) % 4, (d + 3) % 4]
}

/// The padded cells where the best path from tile `a` to tile `b` turns,
/// from `a` to `b` inclusive, and its segment count; `None` when no path has
/// at most `max_segments` segments.
pub(crate) fn shortest(
    grid: &Grid,
    scratch: &mut Scratch,
    a: usize,
    b: usize,
    max_segments: u32,
    stop: &Stop,
) -> Result<Option<(u32, Vec<usize>)>, Interrupted> {
    let found = search(grid, scratch, a, b, max_segments, stop);
    let result = match found {
        Ok(Some(last)) => Ok(Some(trace_back(grid, scratch, a, b, last))),
        Ok(None) => Ok(None),
        Err(e) => Err(e),
    };
    scratch.reset();
    result
}

/// The state `(cell * 4 + direction, segments, length)` from which a straight
/// step enters `b`, or `None`.
fn search(
    grid: &Grid,
    scratch: &mut Scratch,
    a: usize,
    b: usize,
    max_segments: u32,
    stop: &Stop,
) -> Result<Option<(usize, u32, u32)>, Interrupted> {
    if max_segments == 0 {
        return Ok(None);
    }
    let steps = grid.steps();
    let mut seeds = std::mem::take(&mut scratch.seeds);
    let mut next = std::mem::take(&mut scratch.next_seeds);
    let mut straight = std::mem::take(&mut scratch.straight);
    seeds.clear();

    for (d, &step) in steps.iter().enumerate() {
        let n = a.wrapping_add_signed(step);
        if n == b {
            return Ok(Some((a * 4 + d, 0, 0)));
        }
        if grid.open[n] && scratch.improve(n * 4 + d, 1, 1) {
            seeds.push(((n * 4 + d) as u32, 1));
        }
    }

    let mut work = 0;
    let mut segments = 1;
    let found = 'layers: loop {
        if seeds.is_empty() {
            break None;
        }
        straight.clear();
        next.clear();
        let (mut si, mut qi) = (0, 0);
        loop {
            // Take the shorter head of the two sorted queues.
            let (state, length) = match (seeds.get(si), straight.get(qi)) {
                (Some(&s), Some(&q)) if s.1 <= q.1 => {
                    si += 1;
                    s
                }
                (_, Some(&q)) => {
                    qi += 1;
                    q
                }
                (Some(&s), None) => {
                    si += 1;
                    s
                }
                (None, None) => break,
            };
            let state = state as usize;
            if scratch.segments[state] != segments || scratch.length[state] != length {
                continue; // superseded by a better entry
            }
            if let Err(e) = stop.tick(&mut work) {
                break 'layers Some(Err(e));
            }
            let (cell, d) = (state / 4, state % 4);
            let n = cell.wrapping_add_signed(steps[d]);
            if n == b {
                break 'layers Some(Ok((state, segments, length)));
            }
            if grid.open[n] && scratch.improve(n * 4 + d, segments, length + 1) {
                straight.push(((n * 4 + d) as u32, length + 1));
            }
            if segments < max_segments {
                for turn in across(d) {
                    let s = cell * 4 + turn;
                    if scratch.improve(s, segments + 1, length) {
                        next.push((s as u32, length));
                    }
                }
            }
        }
        segments += 1;
        std::mem::swap(&mut seeds, &mut next);
    };
    scratch.seeds = seeds;
    scratch.next_seeds = next;
    scratch.straight = straight;
    found.transpose()
}

/// Walks back from the last state to `a`, collecting the turn cells.
fn trace_back(
    grid: &Grid,
    scratch: &Scratch,
    a: usize,
    b: usize,
    (last, segments, length): (usize, u32, u32),
) -> (u32, Vec<usize>) {
    if segments == 0 {
        // `a` and `b` are neighbours.
        return (1, vec![a, b]);
    }
    let steps = grid.steps();
    let mut corners = vec![b];
    let (mut cell, mut d) = (last / 4, last % 4);
    let (mut s, mut l) = (segments, length);
    loop {
        let back = cell.wrapping_add_signed(-steps[d]);
        if s == 1 && back == a {
            break;
        }
        let straight = back * 4 + d;
        if scratch.segments[straight] == s && scratch.length[straight] == l - 1 {
            cell = back;
            l -= 1;
            continue;
        }
        let turn = across(d)
            .into_iter()
            .find(|&t| scratch.segments[cell * 4 + t] == s - 1 && scratch.length[cell * 4 + t] == l)
            .expect("every reached state has a predecessor");
        corners.push(cell);
        d = turn;
        s -= 1;
    }
    corners.push(a);
    corners.reverse();
    (segments, corners)
}
