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

use super::grid::Grid;
use super::stop::{Interrupted, Stop};

/// No run: a closed cell.
const NONE: u32 = u32::MAX;

/// The horizontal and vertical run of every padded cell.
///
/// Runs are numbered together, horizontal and vertical alike, in the order
/// of their first cell in memory; runs near each other on the board then get
/// near ids, which keeps the search's reads close together.
pub(crate) struct Runs {
    /// Horizontal run per padded cell, [`NONE`] when closed.
    across: Vec<u32>,
    /// Vertical run per padded cell, [`NONE`] when closed.
    down: Vec<u32>,
    /// How many runs there are.
    count: usize,
}

impl Runs {
    pub fn new(grid: &Grid) -> Self {
        let (w, h) = (grid.width, grid.height);
        // Written once each, in memory order, with no clearing pass first.
        let mut across = Vec::with_capacity(w * h);
        let mut down: Vec<u32> = Vec::with_capacity(w * h);
        let mut count = 0u32;
        // A horizontal run continues from the cell on the left, a vertical
        // one from the cell above.
        for (i, &open) in grid.open.iter().enumerate() {
            if !open {
                across.push(NONE);
                down.push(NONE);
                continue;
            }
            // The closed outer ring means an open cell has a cell on its
            // left and above.
            let mut row = across[i - 1];
            if row == NONE {
                row = count;
                count += 1;
            }
            across.push(row);
            let mut column = down[i - w];
            if column == NONE {
                column = count;
                count += 1;
            }
            down.push(column);
        }
        Runs {
            across,
            down,
            count: count as usize,
        }
    }

    /// The run a path moving in direction `d` (0 right, 1 down, 2 left,
    /// 3 up) uses through open cell `cell`.
    #[inline]
    fn run(&self, d: usize, cell: usize) -> u32 {
        if d % 2 == 0 {
            self.across[cell]
        } else {
            self.down[cell]
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
}

/// The graph of runs: which runs cross which. Only searches with more than
/// two turns need it, so it is built apart from [`Runs`].
struct Crossings {
    /// The runs crossing run `r` are `crossing[offsets[r]..offsets[r + 1]]`.
    offsets: Vec<u32>,
    crossing: Vec<u32>,
}

impl Crossings {
    fn new(runs: &Runs) -> Self {
        let mut offsets = vec![0u32; runs.count + 1];
        for (&row, &column) in runs.across.iter().zip(&runs.down) {
            if row != NONE {
                offsets[row as usize + 1] += 1;
                offsets[column as usize + 1] += 1;
            }
        }
        for r in 0..runs.count {
            offsets[r + 1] += offsets[r];
        }
        // A cell is where its two runs cross. Memory order visits each
        // horizontal run left to right and each vertical run top to bottom,
        // so every run's crossings come out in order along it.
        let mut cursor = offsets[..runs.count].to_vec();
        let mut crossing = vec![0u32; offsets[runs.count] as usize];
        for (&row, &column) in runs.across.iter().zip(&runs.down) {
            if row != NONE {
                crossing[cursor[row as usize] as usize] = column;
                cursor[row as usize] += 1;
                crossing[cursor[column as usize] as usize] = row;
                cursor[column as usize] += 1;
            }
        }
        Crossings { offsets, crossing }
    }

    /// The runs crossing run `run`.
    #[inline]
    fn of(&self, run: u32) -> &[u32] {
        let r = run as usize;
        &self.crossing[self.offsets[r] as usize..self.offsets[r + 1] as usize]
    }
}

/// One side of the bidirectional search: the runs it reached, their hop
/// counts from its end, and its current frontier.
struct Side {
    /// One bit per run, set once reached in the current query (52 KB for a
    /// million-cell board, cleared per query).
    seen: Vec<u64>,
    /// Hop count from this side's end, meaningful where `seen`.
    hops: Vec<u32>,
    frontier: Vec<u32>,
    next: Vec<u32>,
    /// Hop count of the frontier.
    level: u32,
}

impl Side {
    fn new(runs: usize) -> Self {
        Side {
            seen: vec![0; runs.div_ceil(64)],
            hops: vec![0; runs],
            frontier: Vec::new(),
            next: Vec::new(),
            level: 0,
        }
    }

    /// Starts from the runs at one end of the path, at hop 0.
    fn start(&mut self, ends: impl Iterator<Item = u32>) {
        self.seen.fill(0);
        self.frontier.clear();
        self.level = 0;
        for run in ends {
            if self.hops(run).is_none() {
                self.reach(run, 0);
                self.frontier.push(run);
            }
        }
    }

    #[inline]
    fn reach(&mut self, run: u32, hops: u32) {
        self.seen[run as usize / 64] |= 1 << (run % 64);
        self.hops[run as usize] = hops;
    }

    #[inline]
    fn hops(&self, run: u32) -> Option<u32> {
        let seen = self.seen[run as usize / 64] & (1 << (run % 64)) != 0;
        seen.then(|| self.hops[run as usize])
    }
}

/// The breadth-first search over runs, from both ends at once, with its
/// memory reused across the queries of a batch.
pub(crate) struct RunSearch {
    crossings: Crossings,
    /// From the start tile, and from the end tile.
    sides: [Side; 2],
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
        let count = runs.count;
        RunSearch {
            crossings: Crossings::new(runs),
            sides: [Side::new(count), Side::new(count)],
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
        let [from, to] = &mut self.sides;
        from.start(runs.ends(grid, a));
        to.start(runs.ends(grid, b));
        self.meetings.clear();
        self.meetings.extend(
            to.frontier
                .iter()
                .copied()
                .filter(|&r| from.hops(r) == Some(0)),
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
                &self.crossings,
                near,
                far,
                &mut self.meetings,
                stop,
                &mut work,
            ) {
                break Err(e);
            }
        };
        match found {
            Ok(true) if mark => Ok(Some(self.mark() + 1)),
            Ok(true) => Ok(Some(self.fewest_hops() + 1)),
            Ok(false) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The fewest hops of a path through one of the meetings.
    fn fewest_hops(&self) -> u32 {
        let through = |&run: &u32| hops_through(&self.sides, run);
        self.meetings.iter().filter_map(through).min().unwrap_or(0)
    }

    /// Marks every run on a path with the fewest hops: from the meeting
    /// runs of that many hops, back towards each end through runs one hop
    /// nearer to it. Returns that fewest number of hops.
    fn mark(&mut self) -> u32 {
        let stamp = self.stamp;
        let best = self.fewest_hops();
        let RunSearch {
            crossings,
            sides,
            meetings,
            marked,
            ..
        } = self;
        meetings.retain(|&r| hops_through(sides, r) == Some(best));
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
            let mut hop = side.hops(meetings[0]).unwrap_or(0);
            while hop > 0 {
                below.clear();
                for &run in &layer {
                    for &other in crossings.of(run) {
                        if side.hops(other) == Some(hop - 1) && marked[other as usize] != stamp {
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
fn hops_through([from, to]: &[Side; 2], run: u32) -> Option<u32> {
    from.hops(run).zip(to.hops(run)).map(|(f, t)| f + t)
}

/// Grows `near`'s search by one layer, noting in `meetings` every run it
/// reaches that `far`'s search has reached.
fn grow(
    crossings: &Crossings,
    near: &mut Side,
    far: &Side,
    meetings: &mut Vec<u32>,
    stop: &Stop,
    work: &mut u32,
) -> Result<(), Interrupted> {
    let Side {
        seen,
        hops,
        frontier,
        next,
        level,
    } = near;
    let hop = *level + 1;
    next.clear();
    for &run in frontier.iter() {
        stop.tick(work)?;
        for &other in crossings.of(run) {
            let (word, bit) = (other as usize / 64, 1u64 << (other % 64));
            if seen[word] & bit == 0 {
                seen[word] |= bit;
                hops[other as usize] = hop;
                next.push(other);
                if far.seen[word] & bit != 0 {
                    meetings.push(other);
                }
            }
        }
    }
    std::mem::swap(frontier, next);
    *level += 1;
    Ok(())
}
