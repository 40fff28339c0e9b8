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
