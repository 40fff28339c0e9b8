//! The breadth-first search over the runs of [`Runs`], from both ends of a
//! query at once: the fewest segments between two tiles, and which runs
//! lie on some path with that many, for the search of the shortest path.

use prefetch_index::prefetch_index;

use super::{Runs, crossing};
use crate::grid::Grid;
use crate::stop::{Interrupted, Stop};

/// How many runs ahead of its growth a frontier run's crossings are fetched.
const AHEAD: usize = 8;

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
/// meeting. So every meeting lies `near.level` plus the other side's level
/// hops from the ends after the layer.
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
