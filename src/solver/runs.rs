//! Maximal straight runs of open cells, and the search over them.
//!
//! Every open cell lies in one horizontal and one vertical run: the longest
//! stretch of open cells through it along its row or column. A path's
//! segments lie in runs, one run each, and consecutive segments lie in
//! crossing runs. So the fewest segments between two tiles is one more
//! than the fewest hops between their runs in the graph whose nodes are runs
//! and whose edges are crossings. That graph is several times smaller than
//! the (cell, direction) states, and a breadth-first search over it needs no
//! lengths; [`RunSearch`] runs it from both ends at once, always growing
//! the smaller frontier (so a tile shut in a small region costs only that
//! region, and two far tiles cost two balls of half the radius), then marks
//! the runs that lie on some path with the fewest segments, so the search
//! for the shortest such path only looks at those.

use prefetch_index::prefetch_index;
use rayon::prelude::*;
use std::ops::Range;

use super::grid::Grid;
use super::pages::Pages;
use super::stop::{Interrupted, Stop};

/// No run: a closed cell.
const NONE: u32 = u32::MAX;

/// How many runs ahead of its growth a frontier run's crossings are fetched.
const AHEAD: usize = 8;

/// Side of the square tiles runs are numbered by.
const TILE: usize = 32;

/// The runs of a padded grid, and which runs cross which.
///
/// Two arrays of run ids cover every cell: the vertical run of each cell in
/// row-major order, then the horizontal run of each cell in column-major
/// order. A horizontal run's cells lie side by side in the first, so the
/// runs crossing it are a stretch of that array; a vertical run's cells lie
/// side by side in the second, so the runs crossing it are a stretch of that
/// one. Each stretch ends at a closed cell, whose entry is [`NONE`]. So the
/// same arrays are the graph: a run needs only where its stretch starts.
///
/// Runs are numbered tile by tile (square tiles of [`TILE`] cells a side):
/// runs near each other on the board get near ids, which keeps a search's
/// reads close together in memory.
pub(crate) struct Runs {
    /// `down[cell]` (row-major) then `across[column-major cell]`.
    ids: Pages<u32>,
    /// Where in `ids` the runs crossing run `r` start. Some ids belong to
    /// no run (the spare ones and the provisional ones of [`Runs::new`]):
    /// no run crosses them, so no search reaches them.
    crossings_from: Pages<u32>,
    /// One bit per run of a single cell: it crosses one run only, so a
    /// search reaching it from that run has nowhere further to go.
    dead_end: Vec<u64>,
    width: usize,
    height: usize,
}

impl Runs {
    /// Numbers the runs band by band: each band (whole rows of tiles) on a
    /// thread of its own, when rayon has them and the board is big. Each
    /// band's ids start at a multiple of 64, past a spare id after the
    /// band above (see [`number`]), so bands write apart in every array.
    /// A vertical run reaching into a band from the band above takes a
    /// provisional id there; once all bands are done, its cells below the
    /// boundary get its real id, and the provisional id stays unused.
    ///
    /// `ids` starts zeroed and untouched, and each band writes its own
    /// slots: a page's first write costs (microseconds for a small page,
    /// the zeroing of 2 MiB for a huge one), and the bands pay them side
    /// by side.
    pub fn new(grid: &Grid) -> Self {
        let (w, h) = (grid.width, grid.height);
        let cells = w * h;
        let bands = bands(h, cells);
        let counts: Vec<usize> = bands.par_iter().map(|rows| starts(grid, rows)).collect();
        let mut firsts = Vec::with_capacity(bands.len());
        let mut ends = 0;
        for &count in &counts {
            firsts.push(ends);
            ends = (ends + count + 1).next_multiple_of(64);
        }
        let mut ids = Pages::zeroed(2 * cells);
        let mut crossings_from = Pages::zeroed(ends);
        let mut dead_end = vec![0; ends / 64];
        {
            // Cut every array into the bands' parts.
            let (mut down, across) = ids.split_at_mut(cells);
            let mut columns: Vec<Vec<&mut [u32]>> = bands.iter().map(|_| Vec::new()).collect();
            for mut column in across.chunks_mut(h) {
                for (rows, pieces) in bands.iter().zip(&mut columns) {
                    let (piece, rest) = std::mem::take(&mut column).split_at_mut(rows.len());
                    pieces.push(piece);
                    column = rest;
                }
            }
            let (mut from, mut dead) = (&mut crossings_from[..], &mut dead_end[..]);
            let mut parts = Vec::with_capacity(bands.len());
            for (b, (rows, across)) in bands.iter().zip(columns).enumerate() {
                let first = firsts[b];
                let next = firsts.get(b + 1).copied().unwrap_or(ends);
                let (band_down, rest) = std::mem::take(&mut down).split_at_mut(rows.len() * w);
                down = rest;
                let (band_from, rest) = std::mem::take(&mut from).split_at_mut(next - first);
                from = rest;
                let (band_dead, rest) = std::mem::take(&mut dead).split_at_mut((next - first) / 64);
                dead = rest;
                parts.push(Band {
                    rows: rows.clone(),
                    first,
                    down: band_down,
                    across,
                    crossings_from: band_from,
                    dead_end: band_dead,
                });
            }
            let numbered: Vec<usize> = parts
                .into_par_iter()
                .map(|band| number(grid, band))
                .collect();
            debug_assert_eq!(numbered, counts);
        }
        // Vertical runs reaching into a band take the id they started with,
        // band by band from the top, so a run crossing several bands
        // carries its id all the way down.
        let open = &grid.open;
        for rows in &bands[1..] {
            for x in 1..w - 1 {
                let above = (rows.start - 1) * w + x;
                if !open[above] {
                    continue;
                }
                let mut i = above + w;
                while i < rows.end * w && open[i] {
                    ids[i] = ids[above];
                    i += w;
                }
            }
        }
        let count = firsts.last().zip(counts.last()).map_or(0, |(f, c)| f + c);
        crossings_from.truncate(count);
        dead_end.truncate(count.div_ceil(64));
        Runs {
            ids,
            crossings_from,
            dead_end,
            width: w,
            height: h,
        }
    }

    fn count(&self) -> usize {
        self.crossings_from.len()
    }

    /// The run a path moving in direction `d` (0 right, 1 down, 2 left,
    /// 3 up) uses through open cell `cell`.
    #[inline]
    fn run(&self, d: usize, cell: usize) -> u32 {
        if d % 2 == 0 {
            let (y, x) = (cell / self.width, cell % self.width);
            self.ids[self.width * self.height + x * self.height + y]
        } else {
            self.ids[cell]
        }
    }

    /// The runs a path from or to tile `tile` starts or ends in: the runs
    /// of its open neighbours, along the direction towards each.
    fn ends(&self, grid: &Grid, tile: usize) -> impl Iterator<Item = u32> {
        let steps = grid.steps();
        (0..4).filter_map(move |d| {
            let n = tile.wrapping_add_signed(steps[d]);
            grid.open[n].then(|| self.run(d, n))
        })
    }

    /// The runs crossing run `run`.
    #[inline]
    fn crossing(&self, run: u32) -> impl Iterator<Item = u32> + '_ {
        crossing(&self.ids, &self.crossings_from, run)
    }
}

/// The runs crossing run `run`, from [`Runs::ids`] and
/// [`Runs::crossings_from`] taken as slices once, out of a hot loop.
#[inline]
fn crossing<'a>(
    ids: &'a [u32],
    crossings_from: &[u32],
    run: u32,
) -> impl Iterator<Item = u32> + 'a {
    let from = crossings_from[run as usize] as usize;
    ids[from..].iter().copied().take_while(|&r| r != NONE)
}

/// The rows each band numbers: whole rows of tiles, as many bands as
/// rayon has threads on a board of a million cells, fewer on smaller
/// boards (one below 65 536 cells), covering every row.
fn bands(h: usize, cells: usize) -> Vec<Range<usize>> {
    let tile_rows = h.div_ceil(TILE);
    let n = rayon::current_num_threads()
        .min(cells >> 16)
        .clamp(1, tile_rows);
    let row = |b: usize| (b * tile_rows / n * TILE).min(h);
    (0..n).map(|b| row(b)..row(b + 1)).collect()
}

/// How many runs [`number`] numbers in the band of `rows`: those starting
/// in it, and the vertical runs reaching into it from above.
fn starts(grid: &Grid, rows: &Range<usize>) -> usize {
    let (w, h) = (grid.width, grid.height);
    let open = &grid.open;
    let mut count = 0;
    for y in rows.start.max(1)..rows.end.min(h - 1) {
        let row = &open[y * w + 1..(y + 1) * w - 1];
        let left = &open[y * w..(y + 1) * w - 2];
        let across = row.iter().zip(left).filter(|&(&here, &left)| here && !left);
        count += across.count();
        count += if y == rows.start {
            row.iter().filter(|&&here| here).count()
        } else {
            let above = &open[(y - 1) * w + 1..y * w - 1];
            let down = row
                .iter()
                .zip(above)
                .filter(|&(&here, &above)| here && !above);
            down.count()
        };
    }
    count
}

/// One band's share of the arrays [`Runs::new`] fills.
struct Band<'a> {
    rows: Range<usize>,
    /// The band's first id, a multiple of 64.
    first: usize,
    /// Its rows of the row-major half of [`Runs::ids`].
    down: &'a mut [u32],
    /// Its rows of each column of the column-major half.
    across: Vec<&'a mut [u32]>,
    /// Its ids' entries of [`Runs::crossings_from`] and the dead-end bits.
    crossings_from: &'a mut [u32],
    dead_end: &'a mut [u64],
}

/// Numbers the runs of one band, filling in its slots of the run-id
/// arrays, where each run's crossings start and which runs are dead ends.
/// Returns how many runs it numbered.
///
/// Tile by tile, each tile row by row: a horizontal run continues from the
/// cell on its left and a vertical one from the cell above, both already
/// numbered (same tile, or the tile to the left or above), except in the
/// band's first row, where every vertical run starts as far as the band
/// knows. The closed outer ring means an open cell has a cell on every
/// side. Whether a cell is open, or starts a run, is a coin toss to the
/// branch predictor: the loop computes rather than branches, writing the
/// next run's entries whether or not it starts (the next start overwrites
/// them), which is why each band has a spare id.
fn number(grid: &Grid, band: Band) -> usize {
    let (w, h) = (grid.width, grid.height);
    let cells = w * h;
    let open = &grid.open;
    let Band {
        rows,
        first,
        down,
        mut across,
        crossings_from,
        dead_end,
    } = band;
    let top = rows.start;
    // The outer ring, read as the cells before the first ones numbered.
    for y in rows.clone() {
        // Every cell of the first and last rows, the two ends of the others.
        let step = if y == 0 || y == h - 1 { 1 } else { w - 1 };
        for x in (0..w).step_by(step) {
            down[(y - top) * w + x] = NONE;
            across[x][y - top] = NONE;
        }
    }
    let mut count = 0;
    // The dead-end bits of the 64 ids from `word * 64`, gathered in a
    // register: a read-modify-write of memory per cell would wait on the
    // one before.
    let (mut word, mut bits) = (0, 0u64);
    let mut number = |before: u32, here: bool, last: bool, crossings: usize| {
        let starts = here & (before == NONE);
        crossings_from[count] = crossings as u32;
        bits |= u64::from(starts & last) << (count % 64);
        let id = match (here, starts) {
            (false, _) => NONE,
            (true, true) => (first + count) as u32,
            (true, false) => before,
        };
        count += usize::from(starts);
        if count / 64 != word {
            dead_end[word] = bits;
            (word, bits) = (count / 64, 0);
        }
        id
    };
    for tile_top in rows.clone().step_by(TILE) {
        for left in (0..w).step_by(TILE) {
            let columns = left.max(1)..(left + TILE).min(w - 1);
            for y in tile_top.max(1)..(tile_top + TILE).min(rows.end).min(h - 1) {
                let band_y = y - top;
                // The run of the cell on the left, kept from one cell to
                // the next rather than read back from memory.
                let mut row = across[columns.start - 1][band_y];
                for x in columns.clone() {
                    let i = y * w + x;
                    let here = open[i];
                    row = number(row, here, !open[i + 1], i);
                    across[x][band_y] = row;
                    let slot = band_y * w + x;
                    let column = if y == top { NONE } else { down[slot - w] };
                    down[slot] = number(column, here, !open[i + w], cells + x * h + y);
                }
            }
        }
    }
    dead_end[word] = bits;
    count
}

/// One side of the bidirectional search: the runs it reached, their hop
/// counts from its end, and its current frontier.
struct Side {
    /// Which of the two `seen` bits of [`Marks`] are this side's.
    index: usize,
    /// Hop count from this side's end, meaningful where `seen`; kept only
    /// by searches that mark the runs on shortest paths.
    hops: Vec<u32>,
    frontier: Vec<u32>,
    /// Where a layer grows: one slot per run and one spare, so every run
    /// reached is written without a branch and only the new ones counted.
    next: Vec<u32>,
    /// Hop count of the frontier.
    level: u32,
}

impl Side {
    fn new(index: usize, runs: usize) -> Self {
        Side {
            index,
            hops: vec![0; runs],
            frontier: Vec::new(),
            next: vec![0; runs + 1],
            level: 0,
        }
    }

    /// Starts from the runs at one end of the path, at hop 0.
    fn start(&mut self, marks: &mut [Marks], ends: impl Iterator<Item = u32>) {
        self.frontier.clear();
        self.level = 0;
        for run in ends {
            if self.hops(marks, run).is_none() {
                marks[run as usize / 64].seen[self.index] |= 1 << (run % 64);
                self.hops[run as usize] = 0;
                self.frontier.push(run);
            }
        }
    }

    #[inline]
    fn hops(&self, marks: &[Marks], run: u32) -> Option<u32> {
        let seen = marks[run as usize / 64].seen[self.index] & (1 << (run % 64)) != 0;
        seen.then(|| self.hops[run as usize])
    }
}

/// What a search knows of 64 runs in a row, side by side so that looking a
/// run up costs one cache line, not three.
#[derive(Clone, Copy, Default)]
#[repr(align(32))]
struct Marks {
    /// One bit per run reached by each side in the current query.
    seen: [u64; 2],
    /// One bit per run of a single cell ([`Runs::dead_end`]).
    dead_end: u64,
}

/// The breadth-first search over runs, from both ends at once, with its
/// memory reused across the queries of a batch.
pub(crate) struct RunSearch {
    /// From the start tile, and from the end tile.
    sides: [Side; 2],
    marks: Vec<Marks>,
    /// Runs where the two searches met on a path with the fewest segments.
    meetings: Vec<u32>,
    /// `marked[run] == stamp`: the run lies on a path with the fewest
    /// segments of the last query; each query takes a new stamp, so the
    /// marks need no clearing.
    marked: Vec<u32>,
    stamp: u32,
}

impl RunSearch {
    pub fn new(runs: &Runs) -> Self {
        let count = runs.count();
        let marks = runs
            .dead_end
            .iter()
            .map(|&dead_end| Marks {
                dead_end,
                ..Marks::default()
            })
            .collect();
        RunSearch {
            sides: [Side::new(0, count), Side::new(1, count)],
            marks,
            meetings: Vec::new(),
            marked: vec![0; count],
            stamp: 0,
        }
    }

    /// The fewest segments of a path from tile `a` to tile `b`, at most
    /// `max_segments`, with (when `mark`) the runs on such paths marked for
    /// [`RunSearch::on_path`]; `None` when there is no such path. Tiles
    /// that are neighbours (a path with no run) are the caller's to catch.
    pub fn fewest_segments(
        &mut self,
        runs: &Runs,
        grid: &Grid,
        (a, b): (usize, usize),
        max_segments: u32,
        mark: bool,
        stop: &Stop,
    ) -> Result<Option<u32>, Interrupted> {
        self.new_stamp();
        if max_segments == 0 {
            return Ok(None);
        }
        // Most searches finish before their first poll: look once first.
        stop.check()?;
        let [from, to] = &mut self.sides;
        let marks = &mut self.marks;
        for m in marks.iter_mut() {
            m.seen = [0; 2];
        }
        from.start(marks, runs.ends(grid, a));
        to.start(marks, runs.ends(grid, b));
        self.meetings.clear();
        self.meetings.extend(
            to.frontier
                .iter()
                .copied()
                .filter(|&r| from.hops(marks, r) == Some(0)),
        );

        let mut work = 0;
        let found = loop {
            if !self.meetings.is_empty() {
                break Ok(true);
            }
            // The next layer can only find paths of more hops than both
            // searches have covered.
            if from.level + to.level + 1 >= max_segments
                || from.frontier.is_empty()
                || to.frontier.is_empty()
            {
                break Ok(false);
            }
            // Grow the smaller frontier by one layer.
            let meetings = &mut self.meetings;
            let grown = match (from.frontier.len() <= to.frontier.len(), mark) {
                (true, false) => grow::<0, false>(runs, marks, from, meetings, stop, &mut work),
                (true, true) => grow::<0, true>(runs, marks, from, meetings, stop, &mut work),
                (false, false) => grow::<1, false>(runs, marks, to, meetings, stop, &mut work),
                (false, true) => grow::<1, true>(runs, marks, to, meetings, stop, &mut work),
            };
            if let Err(e) = grown {
                break Err(e);
            }
        };
        match found {
            Ok(true) if mark => Ok(Some(self.mark(runs) + 1)),
            // Every meeting of the last layer lies `level` hops from each
            // end (see `grow`), so the hops themselves were not kept.
            Ok(true) => Ok(Some(from.level + to.level + 1)),
            Ok(false) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The fewest hops of a path through one of the meetings.
    fn fewest_hops(&self) -> u32 {
        let through = |&run: &u32| hops_through(&self.sides, &self.marks, run);
        self.meetings.iter().filter_map(through).min().unwrap_or(0)
    }

    /// Marks every run on a path with the fewest hops: from the meeting
    /// runs of that many hops, back towards each end through runs one hop
    /// nearer to it. Returns that fewest number of hops.
    fn mark(&mut self, runs: &Runs) -> u32 {
        let stamp = self.stamp;
        let best = self.fewest_hops();
        let RunSearch {
            sides,
            marks,
            meetings,
            marked,
            ..
        } = self;
        meetings.retain(|&r| hops_through(sides, marks, r) == Some(best));
        let [from, to] = sides;
        for &run in meetings.iter() {
            marked[run as usize] = stamp;
        }
        // The meetings all come from one layer: each lies the same number of
        // hops from either end.
        let mut layer = Vec::new();
        let mut below = Vec::new();
        for side in [&*from, &*to] {
            layer.clear();
            layer.extend_from_slice(meetings);
            let mut hop = side.hops(marks, meetings[0]).unwrap_or(0);
            while hop > 0 {
                below.clear();
                for &run in &layer {
                    for other in runs.crossing(run) {
                        if side.hops(marks, other) == Some(hop - 1)
                            && marked[other as usize] != stamp
                        {
                            marked[other as usize] = stamp;
                            below.push(other);
                        }
                    }
                }
                std::mem::swap(&mut layer, &mut below);
                hop -= 1;
            }
        }
        best
    }

    /// Whether a path moving in direction `d` through open cell `cell` stays
    /// on the runs [`RunSearch::fewest_segments`] marked.
    #[inline]
    pub fn on_path(&self, runs: &Runs, d: usize, cell: usize) -> bool {
        self.marked[runs.run(d, cell) as usize] == self.stamp
    }

    fn new_stamp(&mut self) {
        if self.stamp == u32::MAX {
            self.marked.fill(0);
            self.stamp = 0;
        }
        self.stamp += 1;
    }
}

/// The hops of the paths through `run` that both sides reached.
fn hops_through([from, to]: &[Side; 2], marks: &[Marks], run: u32) -> Option<u32> {
    from.hops(marks, run)
        .zip(to.hops(marks, run))
        .map(|(f, t)| f + t)
}

/// Grows `near`'s search by one layer, noting in `meetings` every run it
/// reaches that the other side's search has reached, and keeping the hop
/// counts of the runs it reaches only when `KEEP_HOPS`. `near` is the side
/// whose `seen` bits are `marks[..].seen[NEAR]`: constants both, so the
/// loop over crossings keeps no flags and indexes nothing it must check.
///
/// Before this layer no run was reached by both searches, so every meeting
/// lies on the other side's frontier: a run it reached in an earlier layer
/// was grown, and the `near` frontier run crossing it would already be a
/// meeting. So every meeting lies `near.level + far.level` hops from the
/// ends after the layer.
fn grow<const NEAR: usize, const KEEP_HOPS: bool>(
    runs: &Runs,
    marks: &mut [Marks],
    near: &mut Side,
    meetings: &mut Vec<u32>,
    stop: &Stop,
    work: &mut u32,
) -> Result<(), Interrupted> {
    debug_assert_eq!(near.index, NEAR);
    let far = 1 - NEAR;
    let hop = near.level + 1;
    let (hops, next): (&mut [u32], &mut [u32]) = (&mut near.hops, &mut near.next);
    let frontier: &[u32] = &near.frontier;
    let (ids, crossings_from): (&[u32], &[u32]) = (&runs.ids, &runs.crossings_from);
    let mut grown = 0;
    for (i, &run) in frontier.iter().enumerate() {
        stop.tick(work)?;
        // The frontier's runs lie far apart in memory: fetch the bounds
        // of a run a few places ahead, and the crossings of one nearer.
        if let Some(&ahead) = frontier.get(i + 2 * AHEAD) {
            prefetch_index(crossings_from, ahead as usize);
        }
        if let Some(&ahead) = frontier.get(i + AHEAD) {
            prefetch_index(ids, crossings_from[ahead as usize] as usize);
        }
        // Whether a run is new is a coin toss to the branch predictor, so
        // the loop computes it rather than branching on it.
        for other in crossing(ids, crossings_from, run) {
            let (m, bit) = (&mut marks[other as usize / 64], 1u64 << (other % 64));
            let before = m.seen[NEAR];
            m.seen[NEAR] = before | bit;
            let new = before & bit == 0;
            next[grown] = other;
            grown += usize::from(new & (m.dead_end & bit == 0));
            if KEEP_HOPS && new {
                hops[other as usize] = hop;
            }
            // Reached by both sides and new to this one: rare, so a branch.
            if !before & m.seen[far] & bit != 0 {
                meetings.push(other);
            }
        }
    }
    near.frontier.clear();
    near.frontier.extend_from_slice(&near.next[..grown]);
    near.level = hop;
    Ok(())
}
