//! The board: a rectangle of cells, each empty or holding a tile of some type.

use std::fmt;

use super::pages::Pages;

/// A cell position. `x` is the column, `y` the row, `(0, 0)` the top-left
/// cell. Path points may lie on the ring around the board, so coordinates are
/// signed: `x == -1` or `x == width` (likewise `y`) is outside.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

impl Point {
    pub const fn new(x: i32, y: i32) -> Self {
        Point { x, y }
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

/// The type of an empty cell in [`Board::cells`]; any other value is a tile.
pub const EMPTY: u32 = 0;

/// A `width × height` board stored row by row.
///
/// A cell is [`EMPTY`] (0) or a tile whose type is the cell's value. For
/// `slide` movement every tile is a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    width: usize,
    height: usize,
    cells: Pages<u32>,
}

/// Why a board cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    #[error("the board has no cells, expected at least one row and one column")]
    Empty,
    #[error("row {row} has {found} cells, expected {expected}")]
    Ragged {
        row: usize,
        found: usize,
        expected: usize,
    },
    #[error("{found} cells given for a {width} x {height} board, expected {}", width * height)]
    CellCount {
        width: usize,
        height: usize,
        found: usize,
    },
    #[error("the board is {width} x {height}, too large for coordinates (at most {max} per side)")]
    TooWide {
        width: usize,
        height: usize,
        max: usize,
    },
}

/// The longest side a board may have: path points on the outside ring need
/// `side + 1` to fit in an `i32`, and the padded grid needs a few more.
pub const MAX_SIDE: usize = (i32::MAX / 4) as usize;

impl Board {
    /// A board from its cells, row by row.
    pub fn new(width: usize, height: usize, cells: Vec<u32>) -> Result<Self, BoardError> {
        Board::with_cells(width, height, cells.into())
    }

    /// [`Board::new`] on cells that may lie on huge pages.
    pub fn with_cells(width: usize, height: usize, cells: Pages<u32>) -> Result<Self, BoardError> {
        if width == 0 || height == 0 {
            return Err(BoardError::Empty);
        }
        if width > MAX_SIDE || height > MAX_SIDE {
            return Err(BoardError::TooWide {
                width,
                height,
                max: MAX_SIDE,
            });
        }
        if width.checked_mul(height) != Some(cells.len()) {
            return Err(BoardError::CellCount {
                width,
                height,
                found: cells.len(),
            });
        }
        Ok(Board {
            width,
            height,
            cells,
        })
    }

    /// A board from text rows: `' '` and `'.'` are empty, any other
    /// character is a tile whose type is its code point.
    ///
    /// ```
    /// use linkpath_engine::{Board, Point};
    /// let board = Board::from_rows(&["AB.", "..A"]).unwrap();
    /// assert_eq!((board.width(), board.height()), (3, 2));
    /// assert_eq!(board.get(Point::new(2, 1)), Some(u32::from('A')));
    /// assert_eq!(board.get(Point::new(2, 0)), Some(0));
    /// ```
    pub fn from_rows<S: AsRef<str>>(rows: &[S]) -> Result<Self, BoardError> {
        let width = rows.first().map_or(0, |row| row.as_ref().chars().count());
        let mut cells = Vec::with_capacity(width * rows.len());
        for (index, row) in rows.iter().enumerate() {
            let before = cells.len();
            cells.extend(row.as_ref().chars().map(tile_of_char));
            let found = cells.len() - before;
            if found != width {
                return Err(BoardError::Ragged {
                    row: index,
                    found,
                    expected: width,
                });
            }
        }
        Board::new(width, rows.len(), cells)
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// The cells row by row: `cells()[y * width + x]`.
    pub fn cells(&self) -> &[u32] {
        &self.cells
    }

    /// Gives the cells back, row by row.
    pub fn into_cells(self) -> Vec<u32> {
        self.cells.into_vec()
    }

    /// Whether `p` lies on the board (not on the ring around it).
    pub fn contains(&self, p: Point) -> bool {
        p.x >= 0 && p.y >= 0 && (p.x as usize) < self.width && (p.y as usize) < self.height
    }

    /// The cell at `p`, or `None` off the board.
    pub fn get(&self, p: Point) -> Option<u32> {
        self.contains(p)
            .then(|| self.cells[p.y as usize * self.width + p.x as usize])
    }

    /// Sets the cell at `p`; `p` must be on the board.
    pub fn set(&mut self, p: Point, cell: u32) {
        assert!(self.contains(p), "{p} is off the board");
        self.cells[p.y as usize * self.width + p.x as usize] = cell;
    }

    /// How many cells hold a tile.
    pub fn tile_count(&self) -> usize {
        self.cells.iter().filter(|&&c| c != EMPTY).count()
    }
}

/// The tile a text cell stands for: `' '` and `'.'` are empty.
pub fn tile_of_char(c: char) -> u32 {
    match c {
        ' ' | '.' => EMPTY,
        other => u32::from(other),
    }
}
