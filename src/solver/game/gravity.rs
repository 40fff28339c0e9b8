//! Removing a pair and letting the tiles fall.

use crate::solver::EMPTY;

/// Where tiles fall after a removal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Gravity {
    /// Tiles stay where they are.
    #[default]
    None,
    /// Each column that lost a tile is compacted toward the bottom row.
    Down,
    /// Toward the top row.
    Up,
    /// Each row that lost a tile is compacted toward the left column.
    Left,
    /// Toward the right column.
    Right,
}

impl Gravity {
    pub const ALL: [Gravity; 5] = [
        Gravity::None,
        Gravity::Down,
        Gravity::Up,
        Gravity::Left,
        Gravity::Right,
    ];

    /// The name used on the wire.
    pub fn name(self) -> &'static str {
        match self {
            Gravity::None => "none",
            Gravity::Down => "down",
            Gravity::Up => "up",
            Gravity::Left => "left",
            Gravity::Right => "right",
        }
    }
}

/// Empties cells `a` and `b` (row-major indices of a `width`-wide board)
/// and lets the tiles of the lines that lost one fall: every tile of such a
/// column (or row) slides toward the gravity side until it rests on another
/// tile or the edge, keeping its order.
pub(crate) fn remove_pair(cells: &mut [u32], width: usize, a: usize, b: usize, gravity: Gravity) {
    cells[a] = EMPTY;
    cells[b] = EMPTY;
    let height = cells.len() / width;
    match gravity {
        Gravity::None => {}
        Gravity::Down | Gravity::Up => {
            let (xa, xb) = (a % width, b % width);
            compact(cells, xa, width, height, gravity == Gravity::Down);
            if xb != xa {
                compact(cells, xb, width, height, gravity == Gravity::Down);
            }
        }
        Gravity::Left | Gravity::Right => {
            let (ya, yb) = (a / width, b / width);
            compact(cells, ya * width, 1, width, gravity == Gravity::Right);
            if yb != ya {
                compact(cells, yb * width, 1, width, gravity == Gravity::Right);
            }
        }
    }
}

/// Compacts the `len` cells `start, start + stride, …` toward their end
/// (`to_end`) or their start.
fn compact(cells: &mut [u32], start: usize, stride: usize, len: usize, to_end: bool) {
    let at = |i: usize| start + stride * if to_end { len - 1 - i } else { i };
    let mut write = 0;
    for read in 0..len {
        let tile = cells[at(read)];
        if tile != EMPTY {
            cells[at(write)] = tile;
            write += 1;
        }
    }
    for i in write..len {
        cells[at(i)] = EMPTY;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_above_fall_into_the_gap() {
        // 2 x 3, column 0 holds 1 over 2 over 3; remove the 2 and the 4.
        let mut cells = vec![1, 0, 2, 4, 3, 5];
        remove_pair(&mut cells, 2, 2, 3, Gravity::Down);
        assert_eq!(cells, [0, 0, 1, 0, 3, 5]);
        let mut cells = vec![1, 2, 3, 4];
        remove_pair(&mut cells, 4, 0, 2, Gravity::Right);
        assert_eq!(cells, [0, 0, 2, 4]);
    }
}
