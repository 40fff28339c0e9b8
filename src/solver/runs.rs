//! Maximal straight runs of open cells, and the search over them.
//!
//! Every open cell lies in one horizontal and one vertical run: the longest
//! stretch of open cells through it along its row or column. Two cells of a
//! row are joined by a clear stretch exactly when they share a horizontal
//! run, which makes the two-turn shape checks O(1) with no prefix sums.
//!
//! A path's segments lie in runs, one run each, and consecutive segments lie
//! in crossing runs. So the fewest segments between two tiles is one more
//! than the fewest hops between their runs in the graph whose nodes are runs
//! and whose edges are crossings. That graph is several times smaller than
//! the (cell, direction) states, and a breadth-first search over it needs no
//! lengths; [`RunSearch`] runs it, then marks the runs that lie on some
//! path with the fewest segments, so the search for the shortest such path
//! only looks at those.

use super::grid::Grid;
use super::stop::{Interrupted, Stop};

/// No run: a closed cell.
const NONE: u32 = u32::MAX;

/// The horizontal and vertical run of every padded cell.
pub(crate) struct Runs {
    width: usize,
    /// Horizontal run id per padded cell, [`NONE`] when closed.
    across: Vec<u32>,
    /// Vertical run id per padded cell, [`NONE`] when closed.
    down: Vec<u32>,
    /// First cell and length of each horizontal run.
    across_spans: Vec<(u32, u32)>,
    /// First cell and length of each vertical run (its cells are `width`
    /// apart).
    down_spans: Vec<(u32, u32)>,
}

impl Runs {
    pub fn new(grid: &Grid) -> Self {
        let (w, h) = (grid.width, grid.height);
        let mut across = vec![NONE; w * h];
        let mut down = vec![NONE; w * h];
        let mut across_spans: Vec<(u32, u32)> = Vec::new();
        let mut down_spans: Vec<(u32, u32)> = Vec::new();
        // One pass in memory order: a horizontal run continues from the
        // cell on the left, a vertical one from the cell above. The closed
        // outer ring means an open cell always has both.
        for y in 1..h - 1 {
            let mut current = NONE;
            for x in 1..w - 1 {
                let i = y * w + x;
                if !grid.open[i] {
                    current = NONE;
                    continue;
                }
                if current == NONE {
                    current = across_spans.len() as u32;
                    across_spans.push((i as u32, 0));
                }
                across_spans[current as usize].1 += 1;
                across[i] = current;
                let mut column = down[i - w];
                if column == NONE {
                    column = down_spans.len() as u32;
                    down_spans.push((i as u32, 0));
                }
                down_spans[column as usize].1 += 1;
                down[i] = column;
            }
        }
        Runs {
            width: w,
            across,
            down,
            across_spans,
            down_spans,
        }
    }

    /// Whether every cell of row `y` from `x1` to `x2` (inclusive, either
    /// order) is open.
    #[inline]
    pub fn row_clear(&self, y: usize, x1: usize, x2: usize) -> bool {
        let run = self.across[y * self.width + x1];
        run != NONE && run == self.across[y * self.width + x2]
    }

    /// Whether every cell of column `x` from `y1` to `y2` (inclusive, either
    /// order) is open.
    #[inline]
    pub fn col_clear(&self, x: usize, y1: usize, y2: usize) -> bool {
        let run = self.down[y1 * self.width + x];
        run != NONE && run == self.down[y2 * self.width + x]
    }

    /// Whether every cell strictly between two cells of one row or column is
    /// open. Neighbours (and a cell with itself) have nothing between them.
    #[inline]
    pub fn between_clear(&self, (ax, ay): (usize, usize), (bx, by): (usize, usize)) -> bool {
        if ay == by {
            let (lo, hi) = if ax <= bx { (ax, bx) } else { (bx, ax) };
            hi - lo <= 1 || self.row_clear(ay, lo + 1, hi - 1)
        } else {
            debug_assert_eq!(ax, bx, "cells must share a row or a column");
            let (lo, hi) = if ay <= by { (ay, by) } else { (by, ay) };
            hi - lo <= 1 || self.col_clear(ax, lo + 1, hi - 1)
        }
    }

    /// Node ids of the run graph: horizontal runs first, then vertical.
    fn nodes(&self) -> usize {
        self.across_spans.len() + self.down_spans.len()
    }

    /// The node of the run a path moving in direction `d` (0 right, 1 down,
    /// 2 left, 3 up) uses through open cell `cell`.
    #[inline]
    fn node(&self, d: usize, cell: usize) -> u32 {
        if d % 2 == 0 {
            self.across[cell]
        } else {
            self.across_spans.len() as u32 + self.down[cell]
        }
    }

    /// Calls `visit` with every run crossing run `node`.
    #[inline]
    fn crossings(&self, node: u32, mut visit: impl FnMut(u32)) {
        let horizontal = self.across_spans.len() as u32;
        if node < horizontal {
            let (start, len) = self.across_spans[node as usize];
            let cells = &self.down[start as usize..(start + len) as usize];
            for &column in cells {
                visit(horizontal + column);
            }
        } else {
            let (start, len) = self.down_spans[(node - horizontal) as usize];
            for k in 0..len as usize {
                visit(self.across[start as usize + k * self.width]);
            }
        }
    }

    /// The runs a path from or to tile `tile` starts or ends in: the runs
    /// of its open neighbours, along the direction towards each.
    fn ends(&self, grid: &Grid, tile: usize) -> impl Iterator<Item = u32> {
        let steps = grid.steps();
        (0..4).filter_map(move |d| {
            let n = tile.wrapping_add_signed(steps[d]);
            grid.open[n].then(|| self.node(d, n))
        })
    }
}

/// The breadth-first search over runs, with state reused across the queries
/// of a batch: hop counts are stored offset by a per-query base, so a query
/// never clears a board-sized array.
pub(crate) struct RunSearch {
    /// Connected component per run, so runs that cannot meet are known at
    /// once.
    component: Vec<u32>,
    /// `reached[node] - base` is the node's hop count when `>= base`.
    reached: Vec<u32>,
    base: u32,
    /// `marked[node] == base`: the run lies on a path with the fewest
    /// segments of the current query.
    marked: Vec<u32>,
    /// The base of the query whose paths are marked; [`NONE`] when none.
    marked_base: u32,
    frontier: Vec<u32>,
    next: Vec<u32>,
}

impl RunSearch {
    pub fn new(runs: &Runs) -> Self {
        let nodes = runs.nodes();
        let mut component = vec![NONE; nodes];
        let mut stack = Vec::new();
        let mut label = 0;
        for start in 0..nodes as u32 {
            if component[start as usize] != NONE {
                continue;
            }
            component[start as usize] = label;
            stack.push(start);
            while let Some(node) = stack.pop() {
                runs.crossings(node, |other| {
                    if component[other as usize] == NONE {
                        component[other as usize] = label;
                        stack.push(other);
                    }
                });
            }
            label += 1;
        }
        RunSearch {
            component,
            reached: vec![0; nodes],
            base: 1,
            marked: vec![0; nodes],
            marked_base: NONE,
            frontier: Vec::new(),
            next: Vec::new(),
        }
    }

    /// The fewest segments of a path from tile `a` to tile `b`, at most
    /// `max_segments`, leaving the runs on such paths marked for
    /// [`RunSearch::on_path`]; `None` when there is no such path. Tiles
    /// that are neighbours (a path with no run) are the caller's to catch.
    pub fn fewest_segments(
        &mut self,
        runs: &Runs,
        grid: &Grid,
        (a, b): (usize, usize),
        max_segments: u32,
        stop: &Stop,
    ) -> Result<Option<u32>, Interrupted> {
        self.start_query();
        let targets: Vec<u32> = runs.ends(grid, b).collect();
        let component = &self.component;
        let meets = |node: u32| {
            let c = component[node as usize];
            targets.iter().any(|&t| component[t as usize] == c)
        };
        if max_segments == 0 || !runs.ends(grid, a).any(meets) {
            return Ok(None);
        }

        let base = self.base;
        let mut frontier = std::mem::take(&mut self.frontier);
        let mut next = std::mem::take(&mut self.next);
        frontier.clear();
        for node in runs.ends(grid, a) {
            if self.reached[node as usize] < base {
                self.reached[node as usize] = base;
                frontier.push(node);
            }
        }
        let mut work = 0;
        let mut hops = 0;
        let found = loop {
            if targets.iter().any(|&t| self.reached[t as usize] >= base) {
                break Ok(Some(hops));
            }
            if frontier.is_empty() || hops + 1 >= max_segments {
                break Ok(None);
            }
            next.clear();
            let reached = &mut self.reached;
            let mut interrupted = None;
            for &node in &frontier {
                if let Err(e) = stop.tick(&mut work) {
                    interrupted = Some(e);
                    break;
                }
                runs.crossings(node, |other| {
                    if reached[other as usize] < base {
                        reached[other as usize] = base + hops + 1;
                        next.push(other);
                    }
                });
            }
            if let Some(e) = interrupted {
                break Err(e);
            }
            hops += 1;
            std::mem::swap(&mut frontier, &mut next);
        };
        if let Ok(Some(hops)) = found {
            self.mark_back(runs, &targets, hops, &mut frontier, &mut next);
        }
        // The next query's base lies past every hop count written here.
        self.base = base + hops + 2;
        self.frontier = frontier;
        self.next = next;
        found.map(|hops| hops.map(|h| h + 1))
    }

    /// Marks every run on a shortest path, walking back from the targets
    /// reached at `hops` through runs one hop closer to the start.
    fn mark_back(
        &mut self,
        runs: &Runs,
        targets: &[u32],
        hops: u32,
        layer: &mut Vec<u32>,
        below: &mut Vec<u32>,
    ) {
        let base = self.base;
        self.marked_base = base;
        layer.clear();
        for &t in targets {
            if self.reached[t as usize] == base + hops && self.marked[t as usize] != base {
                self.marked[t as usize] = base;
                layer.push(t);
            }
        }
        for hop in (1..=hops).rev() {
            below.clear();
            for &node in layer.iter() {
                runs.crossings(node, |other| {
                    let o = other as usize;
                    if self.reached[o] == base + hop - 1 && self.marked[o] != base {
                        self.marked[o] = base;
                        below.push(other);
                    }
                });
            }
            std::mem::swap(layer, below);
        }
    }

    /// Whether a path moving in direction `d` through open cell `cell` stays
    /// on the runs [`RunSearch::fewest_segments`] marked.
    #[inline]
    pub fn on_path(&self, runs: &Runs, d: usize, cell: usize) -> bool {
        self.marked[runs.node(d, cell) as usize] == self.marked_base
    }

    fn start_query(&mut self) {
        self.marked_base = NONE;
        // Hop counts never exceed the number of runs; start afresh before
        // the offsets could wrap.
        if self.base > u32::MAX - self.reached.len() as u32 - 2 {
            self.reached.fill(0);
            self.marked.fill(0);
            self.base = 1;
        }
    }
}
