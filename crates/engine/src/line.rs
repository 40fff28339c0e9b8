//! Paths with any number of turns: a search over (cell, direction) states
//! by layers of segment count, keeping for each state the shortest length
//! at its layer, so the first layer that reaches the target holds a path
//! with the fewest segments and, among those, the shortest length.
//!
//! A layer starts from its seeds (the turns out of the previous layer) and
//! walks each seed's ray cell by cell while that improves the length known
//! for the state. Along one ray lengths grow by one per cell, so a walk may
//! stop at the first state it cannot improve: whoever set that state walks
//! (or walked) on from there with lengths no worse. The order of the seeds
//! therefore does not matter, and a layer is a few tight loops over rays.
//!
//! The caller passes which (direction, cell) states to admit: with only the
//! runs that lie on some path with the fewest segments admitted (see
//! [`super::runs`]), the search touches a thin band of the board instead of
//! everything nearer than the answer, and finds the same path.

use super::grid::Grid;
use super::stop::{Interrupted, Stop};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const UNSEEN: u64 = u64::MAX;

/// `(segments, length)` packed so that comparing keys compares costs
/// lexicographically.
#[inline]
fn key(segments: u32, length: u32) -> u64 {
    (u64::from(segments) << 32) | u64::from(length)
}

#[inline]
fn length(key: u64) -> u32 {
    key as u32
}

/// Search state reused across the queries of a batch.
///
/// The search only visits the thin band of states the caller admits, so the
/// best keys live in a hash map sized to that band rather than an array of
/// four states per cell: a batch on a million-cell board keeps its working
/// memory to what its queries touch.
pub(crate) struct Scratch {
    /// Best key per state `direction * cells + cell`; absent means unseen.
    best: HashMap<usize, u64, BuildHasherDefault<StateHasher>>,
    cells: usize,
    layer: Vec<u32>,
    seeds: Vec<(u32, u32)>,
    next_seeds: Vec<(u32, u32)>,
}

impl Scratch {
    pub fn new(grid: &Grid) -> Self {
        Scratch {
            best: HashMap::default(),
            cells: grid.open.len(),
            layer: Vec::new(),
            seeds: Vec::new(),
            next_seeds: Vec::new(),
        }
    }

    fn reset(&mut self) {
        self.best.clear();
        // A big query's table need not outlive it.
        self.best.shrink_to(1 << 16);
    }

    /// The best key known for `state`.
    #[inline]
    fn best(&self, state: usize) -> u64 {
        self.best.get(&state).copied().unwrap_or(UNSEEN)
    }

    /// Records `value` for `state` if it beats what is known.
    #[inline]
    fn improve(&mut self, state: usize, value: u64) -> bool {
        let known = self.best.entry(state).or_insert(UNSEEN);
        if value < *known {
            *known = value;
            true
        } else {
            false
        }
    }
}

/// Hashes a state index with one multiplication (Fibonacci hashing): the
/// keys are small distinct integers, so nothing slower is needed.
#[derive(Default)]
struct StateHasher(u64);

impl Hasher for StateHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b) ^ self.0.rotate_left(8));
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// The directions at right angles to direction `d` (0 right, 1 down, 2 left,
/// 3 up).
#[inline]
fn across(d: usize) -> [usize; 2] {
    [(d + 1) % 4, (d + 3) % 4]
}

/// The padded cells where the best path from tile `a` to tile `b` through
/// admitted states turns, from `a` to `b` inclusive, and its segment count;
/// `None` when no such path has at most `max_segments` segments.
/// `admit(d, cell)`: whether a path may move in direction `d` through open
/// `cell`.
pub(crate) fn shortest(
    grid: &Grid,
    scratch: &mut Scratch,
    (a, b): (usize, usize),
    max_segments: u32,
    stop: &Stop,
    admit: impl Fn(usize, usize) -> bool,
) -> Result<Option<(u32, Vec<usize>)>, Interrupted> {
    let found = search(grid, scratch, (a, b), max_segments, stop, admit);
    let result = match found {
        Ok(Some(arrival)) => Ok(Some(trace_back(grid, scratch, a, b, arrival))),
        Ok(None) => Ok(None),
        Err(e) => Err(e),
    };
    scratch.reset();
    result
}

/// The state (`direction * cells + cell`) from which a straight step enters
/// `b`, with its segments and length.
type Arrival = (usize, u32, u32);

fn search(
    grid: &Grid,
    scratch: &mut Scratch,
    (a, b): (usize, usize),
    max_segments: u32,
    stop: &Stop,
    admit: impl Fn(usize, usize) -> bool,
) -> Result<Option<Arrival>, Interrupted> {
    if max_segments == 0 {
        return Ok(None);
    }
    let steps = grid.steps();
    let cells = scratch.cells;
    let mut seeds = std::mem::take(&mut scratch.seeds);
    let mut next = std::mem::take(&mut scratch.next_seeds);
    let mut layer = std::mem::take(&mut scratch.layer);
    seeds.clear();
    for (d, &step) in steps.iter().enumerate() {
        let n = a.wrapping_add_signed(step);
        if n == b {
            return Ok(Some((d * cells + a, 0, 0)));
        }
        if grid.open[n] && admit(d, n) && scratch.improve(d * cells + n, key(1, 1)) {
            seeds.push(((d * cells + n) as u32, 1));
        }
    }

    let mut work = 0;
    let mut segments = 1;
    let found = loop {
        if seeds.is_empty() {
            break Ok(None);
        }
        // Walk every seed's ray as far as it improves lengths.
        layer.clear();
        let mut arrival: Option<Arrival> = None;
        let mut interrupted = None;
        for &(seed, seed_length) in &seeds {
            let seed = seed as usize;
            if scratch.best(seed) != key(segments, seed_length) {
                continue; // a walk through this state already did better
            }
            if let Err(e) = stop.tick(&mut work) {
                interrupted = Some(e);
                break;
            }
            let (d, mut cell) = (seed / cells, seed % cells);
            let step = steps[d];
            let mut length = seed_length;
            layer.push(seed as u32);
            loop {
                let n = cell.wrapping_add_signed(step);
                if n == b {
                    if arrival.is_none_or(|(_, _, l)| length < l) {
                        arrival = Some((d * cells + cell, segments, length));
                    }
                    break;
                }
                if !grid.open[n] || !scratch.improve(d * cells + n, key(segments, length + 1)) {
                    break;
                }
                cell = n;
                length += 1;
                layer.push((d * cells + n) as u32);
            }
        }
        if let Some(e) = interrupted {
            break Err(e);
        }
        if arrival.is_some() {
            break Ok(arrival);
        }
        if segments >= max_segments {
            break Ok(None);
        }
        // Every state of this layer is final now: turn out of each.
        next.clear();
        for &state in &layer {
            let state = state as usize;
            let (d, cell) = (state / cells, state % cells);
            let length = length(scratch.best(state));
            for turn in across(d) {
                let to = turn * cells + cell;
                if admit(turn, cell) && scratch.improve(to, key(segments + 1, length)) {
                    next.push((to as u32, length));
                }
            }
        }
        segments += 1;
        std::mem::swap(&mut seeds, &mut next);
    };
    finish(scratch, seeds, next, layer, found)
}

/// Hands the queues back to the scratch space for the next query.
fn finish<T>(
    scratch: &mut Scratch,
    seeds: Vec<(u32, u32)>,
    next: Vec<(u32, u32)>,
    layer: Vec<u32>,
    result: T,
) -> T {
    scratch.seeds = seeds;
    scratch.next_seeds = next;
    scratch.layer = layer;
    result
}

/// Walks back from the arrival to `a`, collecting the turn cells.
fn trace_back(
    grid: &Grid,
    scratch: &Scratch,
    a: usize,
    b: usize,
    (last, segments, length): Arrival,
) -> (u32, Vec<usize>) {
    if segments == 0 {
        // `a` and `b` are neighbours.
        return (1, vec![a, b]);
    }
    let steps = grid.steps();
    let cells = scratch.cells;
    let mut corners = vec![b];
    let (mut d, mut cell) = (last / cells, last % cells);
    let (mut s, mut l) = (segments, length);
    loop {
        let back = cell.wrapping_add_signed(-steps[d]);
        if s == 1 && back == a {
            break;
        }
        if scratch.best(d * cells + back) == key(s, l - 1) {
            cell = back;
            l -= 1;
            continue;
        }
        let turn = across(d)
            .into_iter()
            .find(|&t| scratch.best(t * cells + cell) == key(s - 1, l))
            .expect("every reached state has a predecessor");
        corners.push(cell);
        d = turn;
        s -= 1;
    }
    corners.push(a);
    corners.reverse();
    (segments, corners)
}
