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

use super::grid::Grid;
use super::stop::{Interrupted, Stop};

/// No run: a closed cell.
const NONE: u32 = u32::MAX;

/// How many runs ahead of its growth a frontier run's crossings are fetched.
const AHEAD: usize = 16;

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
    ids: Vec<u32>,
    /// Where in `ids` the runs crossing run `r` start.
    crossings_from: Vec<u32>,
    /// One bit per run of a single cell: it crosses one run only, so a
    /// search reaching it from that run has nowhere further to go.
    dead_end: Vec<u64>,
    width: usize,
    height: usize,
}

impl Runs {
    pub fn new(grid: &Grid) -> Self {
        let (w, h) = (grid.width, grid.height);
        let cells = w * h;
        let open = &grid.open;
        let mut ids = vec![NONE; 2 * cells];
        // Room for the most runs there can be (two per open cell), so a
        // run's slots are written whether or not a run starts: the next
        // start overwrites them. Pages never reached are never touched.
        let mut crossings_from = vec![0u32; 2 * cells];
        let mut dead_end = vec![0u64; (2 * cells).div_ceil(64)];
        let mut count = 0;
        // Tile by tile, each tile row by row: a horizontal run continues
        // from the cell on its left and a vertical one from the cell above,
        // both already numbered (same tile, or the tile to the left or
        // above). The closed outer ring means an open cell has a cell on
        // every side. Whether a cell is open, or starts a run, is a coin
        // toss to the branch predictor: the loop computes rather than
        // branches.
        for top in (0..h).step_by(TILE) {
            for left in (0..w).step_by(TILE) {
                for y in top.max(1)..(top + TILE).min(h - 1) {
                    for x in left.max(1)..(left + TILE).min(w - 1) {
                        let i = y * w + x;
                        let t = cells + x * h + y;
                        let here = open[i];
                        let row = ids[t - h];
                        let starts = here & (row == NONE);
                        crossings_from[count] = i as u32;
                        dead_end[count / 64] |= u64::from(starts & !open[i + 1]) << (count % 64);
                        ids[t] = match (here, starts) {
                            (false, _) => NONE,
                            (true, true) => count as u32,
                            (true, false) => row,
                        };
                        count += usize::from(starts);
                        let column = ids[i - w];
                        let starts = here & (column == NONE);
                        crossings_from[count] = t as u32;
                        dead_end[count / 64] |= u64::from(starts & !open[i + w]) << (count % 64);
                        ids[i] = match (here, starts) {
                            (false, _) => NONE,
                            (true, true) => count as u32,
                            (true, false) => column,
                        };
                        count += usize::from(starts);
                    }
                }
            }
        }
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
        let from = self.crossings_from[run as usize] as usize;
        self.ids[from..].iter().copied().take_while(|&r| r != NONE)
    }
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
            let (near, far) = if from.frontier.len() <= to.frontier.len() {
                (&mut *from, &*to)
            } else {
                (&mut *to, &*from)
            };
            if let Err(e) = grow(
                runs,
                marks,
                near,
                far,
                &mut self.meetings,
                mark,
                stop,
                &mut work,
            ) {
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
/// reaches that `far`'s search has reached, and keeping the hop counts of
/// the runs it reaches only when `keep_hops`.
///
/// Before this layer no run was reached by both searches, so every meeting
/// lies on `far`'s frontier: a run `far` reached in an earlier layer was
/// grown, and the `near` frontier run crossing it would already be a
/// meeting. So every meeting lies `near.level + far.level` hops from the
/// ends after the layer.
#[allow(clippy::too_many_arguments)]
fn grow(
    runs: &Runs,
    marks: &mut [Marks],
    near: &mut Side,
    far: &Side,
    meetings: &mut Vec<u32>,
    keep_hops: bool,
    stop: &Stop,
    work: &mut u32,
) -> Result<(), Interrupted> {
    let Side {
        index,
        hops,
        frontier,
        next,
        level,
    } = near;
    let hop = *level + 1;
    let mut grown = 0;
    for (i, &run) in frontier.iter().enumerate() {
        stop.tick(work)?;
        // The frontier's runs lie far apart in memory: fetch the bounds
        // of a run a few places ahead, and the crossings of one nearer.
        if let Some(&ahead) = frontier.get(i + 2 * AHEAD) {
            prefetch_index(&runs.crossings_from, ahead as usize);
        }
        if let Some(&ahead) = frontier.get(i + AHEAD) {
            prefetch_index(&runs.ids, runs.crossings_from[ahead as usize] as usize);
        }
        // Whether a run is new is a coin toss to the branch predictor, so
        // the loop computes it rather than branching on it.
        for other in runs.crossing(run) {
            let (m, bit) = (&mut marks[other as usize / 64], 1u64 << (other % 64));
            let before = m.seen[*index];
            m.seen[*index] = before | bit;
            let new = before & bit == 0;
            next[grown] = other;
            grown += usize::from(new & (m.dead_end & bit == 0));
            if keep_hops && new {
                hops[other as usize] = hop;
            }
            // Reached by both sides and new to this one: rare, so a branch.
            if !before & m.seen[far.index] & bit != 0 {
                meetings.push(other);
            }
        }
    }
    frontier.clear();
    frontier.extend_from_slice(&next[..grown]);
    *level += 1;
    Ok(())
}
