//! The board as `line` movement sees it: a padded grid of open and closed
//! cells, shared by every query of a batch.
//!
//! Two rings surround the board. The inner ring is open when the rules let a
//! path leave the board, closed otherwise; the outer ring is always closed, so
//! the search loops never need a bounds check.

use super::board::{Board, EMPTY, Point};

/// How far the board is shifted inside the padded grid.
const PAD: usize = 2;

pub(crate) struct Grid {
    /// Padded width and height.
    pub width: usize,
    pub height: usize,
    /// Whether a path may pass through each padded cell.
    pub open: Vec<bool>,
}

impl Grid {
    pub fn new(board: &Board, outside: bool) -> Self {
        let width = board.width() + 2 * PAD;
        let height = board.height() + 2 * PAD;
        let mut open = vec![false; width * height];
        let ring = outside;
        for y in 1..height - 1 {
            let row = &mut open[y * width..(y + 1) * width];
            row[1..width - 1].fill(ring);
        }
        for (y, cells) in board.cells().chunks_exact(board.width()).enumerate() {
            let start = (y + PAD) * width + PAD;
            for (slot, &cell) in open[start..start + board.width()].iter_mut().zip(cells) {
                *slot = cell == EMPTY;
            }
        }
        Grid {
            width,
            height,
            open,
        }
    }

    /// The padded index of a board point (which may lie on the inner ring).
    pub fn index(&self, p: Point) -> usize {
        let x = (p.x + PAD as i32) as usize;
        let y = (p.y + PAD as i32) as usize;
        y * self.width + x
    }

    /// The board point of a padded index.
    pub fn point(&self, index: usize) -> Point {
        let x = (index % self.width) as i32 - PAD as i32;
        let y = (index / self.width) as i32 - PAD as i32;
        Point::new(x, y)
    }

    /// Index steps for the four directions: right, down, left, up.
    pub fn steps(&self) -> [isize; 4] {
        let w = self.width as isize;
        [1, w, -1, -w]
    }
}

/// Counts of closed cells along each row and column, so that whether a
/// straight stretch is clear costs O(1).
pub(crate) struct ClosedCounts {
    /// `rows[y * (width + 1) + x]`: closed cells in row `y` left of `x`.
    rows: Vec<u32>,
    /// `cols[x * (height + 1) + y]`: closed cells in column `x` above `y`.
    cols: Vec<u32>,
    width: usize,
    height: usize,
}

impl ClosedCounts {
    pub fn new(grid: &Grid) -> Self {
        let (w, h) = (grid.width, grid.height);
        let mut rows = vec![0u32; (w + 1) * h];
        let mut cols = vec![0u32; (h + 1) * w];
        for y in 0..h {
            let line = &grid.open[y * w..(y + 1) * w];
            let counts = &mut rows[y * (w + 1)..(y + 1) * (w + 1)];
            let mut sum = 0;
            for (x, &open) in line.iter().enumerate() {
                sum += u32::from(!open);
                counts[x + 1] = sum;
            }
        }
        // Column sums walk the grid row by row, keeping one running sum per
        // column, which reads memory in order.
        let mut sums = vec![0u32; w];
        for y in 0..h {
            let line = &grid.open[y * w..(y + 1) * w];
            for (x, &open) in line.iter().enumerate() {
                sums[x] += u32::from(!open);
                cols[x * (h + 1) + y + 1] = sums[x];
            }
        }
        ClosedCounts {
            rows,
            cols,
            width: w,
            height: h,
        }
    }

    /// Whether every cell of row `y` from `x1` to `x2` (inclusive, either
    /// order) is open. An empty stretch (`x1 > x2` after ordering) is clear.
    #[inline]
    pub fn row_clear(&self, y: usize, x1: usize, x2: usize) -> bool {
        let (lo, hi) = if x1 <= x2 { (x1, x2) } else { (x2, x1) };
        let base = y * (self.width + 1);
        self.rows[base + hi + 1] == self.rows[base + lo]
    }

    /// Whether every cell of column `x` from `y1` to `y2` (inclusive, either
    /// order) is open.
    #[inline]
    pub fn col_clear(&self, x: usize, y1: usize, y2: usize) -> bool {
        let (lo, hi) = if y1 <= y2 { (y1, y2) } else { (y2, y1) };
        let base = x * (self.height + 1);
        self.cols[base + hi + 1] == self.cols[base + lo]
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
}

/// Connected regions of open cells, so a query whose ends touch no common
/// region is answered without a search.
pub(crate) struct Regions {
    /// Region id per padded cell; `u32::MAX` for closed cells.
    label: Vec<u32>,
}

impl Regions {
    pub fn new(grid: &Grid) -> Self {
        let mut label = vec![u32::MAX; grid.open.len()];
        let steps = grid.steps();
        let mut stack = Vec::new();
        let mut next = 0u32;
        for start in 0..grid.open.len() {
            if !grid.open[start] || label[start] != u32::MAX {
                continue;
            }
            label[start] = next;
            stack.push(start);
            while let Some(cell) = stack.pop() {
                for step in steps {
                    // Open cells never touch the outer closed ring's edge, so
                    // a step from one stays inside the grid.
                    let n = cell.wrapping_add_signed(step);
                    if grid.open[n] && label[n] == u32::MAX {
                        label[n] = next;
                        stack.push(n);
                    }
                }
            }
            next += 1;
        }
        Regions { label }
    }

    /// Whether some open neighbour of `a` and some open neighbour of `b` lie
    /// in one region.
    pub fn may_connect(&self, grid: &Grid, a: usize, b: usize) -> bool {
        let steps = grid.steps();
        let around = |cell: usize| steps.map(|s| self.label[cell.wrapping_add_signed(s)]);
        let (near_a, near_b) = (around(a), around(b));
        near_a.iter().any(|&r| r != u32::MAX && near_b.contains(&r))
    }
}
