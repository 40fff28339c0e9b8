//! Removing a pair and letting the tiles fall.

use crate::EMPTY;

/// Where tiles fall after a removal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
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
        self.into()
    }
}

/// Empties cells `a` and `b` (row-major indices of a `width`-wide board)
/// and lets the tiles of the lines that lost one fall: every tile of such a
/// column (or row) slides toward the gravity side until it rests on another
/// tile or the edge, keeping its order.
pub(crate) fn remove_pair(cells: &mut [u32], width: usize, a: usize, b: usize, gravity: Gravity) {
    cells[a] = EMPTY;
    cells[b] = EMPTY;
    for line in lines(cells.len(), width, a, b, gravity)
        .into_iter()
        .flatten()
    {
        line.compact(cells);
    }
}

/// [`remove_pair`], keeping what [`Removed::undo`] needs to put the board
/// back: the two tiles, and a copy of each line only when it was not yet
/// settled toward the gravity side. A settled line stays settled, so along
/// one line of play each line is copied at most once and the undo records
/// of a whole search path stay proportional to the board.
pub(crate) fn remove_pair_undoable(
    cells: &mut [u32],
    width: usize,
    a: usize,
    b: usize,
    gravity: Gravity,
) -> Removed {
    let tiles = [cells[a], cells[b]];
    let lines = lines(cells.len(), width, a, b, gravity);
    let saved = lines.map(|line| {
        line.filter(|line| !line.settled(cells))
            .map(|line| (0..line.len).map(|i| cells[line.at(i)]).collect())
    });
    remove_pair(cells, width, a, b, gravity);
    Removed {
        cells: [a, b],
        tiles,
        lines,
        saved,
    }
}

/// One removal, with what it takes to undo it.
pub(crate) struct Removed {
    cells: [usize; 2],
    tiles: [u32; 2],
    lines: [Option<Line>; 2],
    /// The whole line before the removal, for lines that were not settled.
    saved: [Option<Vec<u32>>; 2],
}

impl Removed {
    /// The bytes this record holds beyond its own size.
    pub fn heap_bytes(&self) -> usize {
        self.saved.iter().flatten().map(|s| s.len() * 4).sum()
    }

    /// Puts `cells` back as they were before the removal.
    pub fn undo(self, cells: &mut [u32]) {
        for (line, saved) in self.lines.iter().zip(&self.saved) {
            let Some(line) = line else { continue };
            match saved {
                Some(saved) => {
                    for (i, &tile) in saved.iter().enumerate() {
                        cells[line.at(i)] = tile;
                    }
                }
                None => line.reinsert(cells, self.cells, self.tiles),
            }
        }
        // Without gravity (and for lines that took neither cell) the two
        // cells are all that changed.
        if self.lines.iter().all(Option::is_none) {
            cells[self.cells[0]] = self.tiles[0];
            cells[self.cells[1]] = self.tiles[1];
        }
    }
}

/// The lines that removing `a` and `b` compacts: none without gravity, one
/// when both lie on the same line.
fn lines(cells: usize, width: usize, a: usize, b: usize, gravity: Gravity) -> [Option<Line>; 2] {
    let height = cells / width;
    let (first, second) = match gravity {
        Gravity::None => return [None, None],
        Gravity::Down | Gravity::Up => {
            let column = |x: usize| Line {
                start: x,
                stride: width,
                len: height,
                to_end: gravity == Gravity::Down,
            };
            (column(a % width), column(b % width))
        }
        Gravity::Left | Gravity::Right => {
            let row = |y: usize| Line {
                start: y * width,
                stride: 1,
                len: width,
                to_end: gravity == Gravity::Right,
            };
            (row(a / width), row(b / width))
        }
    };
    let second = (second.start != first.start).then_some(second);
    [Some(first), second]
}

/// The `len` cells `start, start + stride, …`, read from the side the tiles
/// fall toward (its end when `to_end`).
#[derive(Clone, Copy, Debug)]
struct Line {
    start: usize,
    stride: usize,
    len: usize,
    to_end: bool,
}

impl Line {
    /// The cell at position `i` counted from the gravity side.
    fn at(&self, i: usize) -> usize {
        self.start + self.stride * if self.to_end { self.len - 1 - i } else { i }
    }

    /// The position of `cell` counted from the gravity side, if on the line.
    fn position(&self, cell: usize) -> Option<usize> {
        (0..self.len).find(|&i| self.at(i) == cell)
    }

    /// Whether every tile rests on the gravity side: no gap below a tile.
    fn settled(&self, cells: &[u32]) -> bool {
        let tiles = (0..self.len)
            .take_while(|&i| cells[self.at(i)] != EMPTY)
            .count();
        (tiles..self.len).all(|i| cells[self.at(i)] == EMPTY)
    }

    /// Compacts the line toward the gravity side, keeping the tiles' order.
    fn compact(&self, cells: &mut [u32]) {
        let mut write = 0;
        for read in 0..self.len {
            let tile = cells[self.at(read)];
            if tile != EMPTY {
                cells[self.at(write)] = tile;
                write += 1;
            }
        }
        for i in write..self.len {
            cells[self.at(i)] = EMPTY;
        }
    }

    /// Undoes the removal of `removed` (cells, with their tiles) from this
    /// line when it was settled before: the tiles that fell go back up and
    /// the removed ones return to their places.
    fn reinsert(&self, cells: &mut [u32], removed: [usize; 2], tiles: [u32; 2]) {
        let mut back: Vec<(usize, u32)> = removed
            .iter()
            .zip(tiles)
            .filter_map(|(&cell, tile)| self.position(cell).map(|i| (i, tile)))
            .collect();
        back.sort_unstable();
        let mut line: Vec<u32> = (0..self.len)
            .map(|i| cells[self.at(i)])
            .take_while(|&c| c != EMPTY)
            .collect();
        for (i, tile) in back {
            line.insert(i, tile);
        }
        for i in 0..self.len {
            cells[self.at(i)] = line.get(i).copied().unwrap_or(EMPTY);
        }
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

    /// Every removal on every small board, settled or with floating tiles,
    /// undone, gives the board back.
    #[test]
    fn undo_restores_every_removal() {
        let mut seed = 7u64;
        for _ in 0..2000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (w, h) = (1 + (seed >> 33) as usize % 4, 1 + (seed >> 40) as usize % 4);
            let cells: Vec<u32> = (0..w * h)
                .map(|i| ((seed >> (i % 60)) & 3) as u32)
                .collect();
            let tiles: Vec<usize> = (0..cells.len()).filter(|&i| cells[i] != EMPTY).collect();
            for gravity in Gravity::ALL {
                for &a in &tiles {
                    for &b in tiles.iter().filter(|&&b| b != a) {
                        let mut played = cells.clone();
                        let removed = remove_pair_undoable(&mut played, w, a, b, gravity);
                        let mut plain = cells.clone();
                        remove_pair(&mut plain, w, a, b, gravity);
                        assert_eq!(played, plain);
                        removed.undo(&mut played);
                        assert_eq!(played, cells, "{w} x {h} {gravity:?} {a} {b}");
                    }
                }
            }
        }
    }
}
