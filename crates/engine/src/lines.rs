//! Whether a straight stretch of a row or column is clear, in O(1), with
//! each row and column looked at only when a query first needs it.
//!
//! A row is labelled once: every open cell gets the start of the run of open
//! cells it lies in, so two cells of the row are joined by a clear stretch
//! exactly when their labels match. A two-turn query needs its own two rows
//! and columns and the few rows or columns its shapes could cross, so on a
//! million-cell board a batch of such queries labels a small part of it;
//! the arrays start as untouched zero pages.

use super::grid::Grid;

/// Not labelled yet, or a closed cell.
const UNSET: u32 = 0;

pub(crate) struct Lines {
    width: usize,
    height: usize,
    /// Row-major: 1 + the column where the cell's horizontal run starts.
    across: Vec<u32>,
    /// Column-major: 1 + the row where the cell's vertical run starts.
    down: Vec<u32>,
    row_done: Vec<bool>,
    column_done: Vec<bool>,
}

impl Lines {
    pub fn new(grid: &Grid) -> Self {
        let (width, height) = (grid.width, grid.height);
        Lines {
            width,
            height,
            across: vec![UNSET; width * height],
            down: vec![UNSET; width * height],
            row_done: vec![false; height],
            column_done: vec![false; width],
        }
    }

    fn label_row(&mut self, grid: &Grid, y: usize) {
        let w = self.width;
        let cells = &grid.open[y * w..(y + 1) * w];
        let labels = &mut self.across[y * w..(y + 1) * w];
        let mut start = UNSET;
        for (x, (&open, label)) in cells.iter().zip(labels).enumerate() {
            start = match (open, start) {
                (false, _) => UNSET,
                (true, UNSET) => x as u32 + 1,
                (true, run) => run,
            };
            *label = start;
        }
        self.row_done[y] = true;
    }

    fn label_column(&mut self, grid: &Grid, x: usize) {
        let (w, h) = (self.width, self.height);
        let labels = &mut self.down[x * h..(x + 1) * h];
        let mut start = UNSET;
        for (y, label) in labels.iter_mut().enumerate() {
            start = match (grid.open[y * w + x], start) {
                (false, _) => UNSET,
                (true, UNSET) => y as u32 + 1,
                (true, run) => run,
            };
            *label = start;
        }
        self.column_done[x] = true;
    }

    /// Whether every cell of row `y` from `x1` to `x2` (inclusive, either
    /// order) is open.
    #[inline]
    pub fn row_clear(&mut self, grid: &Grid, y: usize, x1: usize, x2: usize) -> bool {
        if !self.row_done[y] {
            self.label_row(grid, y);
        }
        let label = self.across[y * self.width + x1];
        label != UNSET && label == self.across[y * self.width + x2]
    }

    /// Whether every cell of column `x` from `y1` to `y2` (inclusive, either
    /// order) is open.
    #[inline]
    pub fn col_clear(&mut self, grid: &Grid, x: usize, y1: usize, y2: usize) -> bool {
        if !self.column_done[x] {
            self.label_column(grid, x);
        }
        let label = self.down[x * self.height + y1];
        label != UNSET && label == self.down[x * self.height + y2]
    }

    /// Whether every cell strictly between two cells of one row or column is
    /// open. Neighbours (and a cell with itself) have nothing between them.
    #[inline]
    pub fn between_clear(
        &mut self,
        grid: &Grid,
        (ax, ay): (usize, usize),
        (bx, by): (usize, usize),
    ) -> bool {
        if ay == by {
            let (lo, hi) = if ax <= bx { (ax, bx) } else { (bx, ax) };
            hi - lo <= 1 || self.row_clear(grid, ay, lo + 1, hi - 1)
        } else {
            debug_assert_eq!(ax, bx, "cells must share a row or a column");
            let (lo, hi) = if ay <= by { (ay, by) } else { (by, ay) };
            hi - lo <= 1 || self.col_clear(grid, ax, lo + 1, hi - 1)
        }
    }
}
