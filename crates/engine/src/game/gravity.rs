//! Removing a pair and letting the tiles fall.

use crate::EMPTY;

/// Where tiles fall after a removal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Gravity {
    /// Tiles stay where they are.
    #[default]
    None,
    /// Each column that lost a tile (every column, with [`Fall::settle`]) is
    /// compacted toward the bottom row.
    Down,
    /// Toward the top row.
    Up,
    /// Each row that lost a tile (every row, with [`Fall::settle`]) is compacted
    /// toward the left column.
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

/// Where tiles fall, and which lines settle after a removal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Fall {
    pub gravity: Gravity,
    /// Every line of the board compacts toward the gravity side after each
    /// removal, not only the lines that lost a tile. The two differ only
    /// on a board with floating tiles (a gap between a tile and the
    /// gravity side), and only at the first removal: a settled board stays
    /// settled.
    pub settle: bool,
}

impl Fall {
    pub fn new(gravity: Gravity, settle: bool) -> Self {
        Fall {
            gravity,
            settle: settle && gravity != Gravity::None,
        }
    }
}

impl From<Gravity> for Fall {
    fn from(gravity: Gravity) -> Self {
        Fall::new(gravity, false)
    }
}

/// A tile that fell: from one cell to another (row-major indices).
pub(crate) type Shift = (usize, usize);

/// Empties cells `a` and `b` (row-major indices of a `width`-wide board)
/// and lets the tiles fall: every tile of a line that lost one (of every
/// line with [`Fall::settle`]) slides toward the gravity side until it
/// rests on another tile or the edge, keeping its order.
pub(crate) fn remove_pair(cells: &mut [u32], width: usize, a: usize, b: usize, fall: Fall) {
    remove_pair_shifts(cells, width, a, b, fall, None);
}

/// [`remove_pair`], pushing onto `shifts` (when given) each tile that fell,
/// in reading order of the cell it left.
pub(crate) fn remove_pair_shifts(
    cells: &mut [u32],
    width: usize,
    a: usize,
    b: usize,
    fall: Fall,
    mut shifts: Option<&mut Vec<Shift>>,
) {
    cells[a] = EMPTY;
    cells[b] = EMPTY;
    let start = shifts.as_ref().map_or(0, |s| s.len());
    if fall.settle {
        for line in every_line(cells.len(), width, fall.gravity) {
            line.compact(cells, shifts.as_deref_mut());
        }
    } else {
        for line in lines(cells.len(), width, a, b, fall.gravity)
            .into_iter()
            .flatten()
        {
            line.compact(cells, shifts.as_deref_mut());
        }
    }
    if let Some(shifts) = shifts {
        shifts[start..].sort_unstable();
    }
}

/// Whether every line rests on the gravity side: no tile floats.
pub(crate) fn settled(cells: &[u32], width: usize, gravity: Gravity) -> bool {
    every_line(cells.len(), width, gravity).all(|line| line.settled(cells))
}

/// [`remove_pair`], keeping what [`Removed::undo`] needs to put the board
/// back: the two tiles, and a copy of each line only when it was not yet
/// settled toward the gravity side. A settled line stays settled, so along
/// one line of play each line is copied at most once and the undo records
/// of a whole search path stay proportional to the board. With
/// [`Fall::settle`] a board with floating tiles is copied whole, once: the
/// removal settles it.
pub(crate) fn remove_pair_undoable(
    cells: &mut [u32],
    width: usize,
    a: usize,
    b: usize,
    fall: Fall,
) -> Removed {
    let tiles = [cells[a], cells[b]];
    if fall.settle && !settled(cells, width, fall.gravity) {
        let board = cells.to_vec();
        remove_pair(cells, width, a, b, fall);
        return Removed {
            cells: [a, b],
            tiles,
            lines: [None, None],
            saved: [None, None],
            board: Some(board),
        };
    }
    // A settled board: settling every line moves only the two lines'.
    let lines = lines(cells.len(), width, a, b, fall.gravity);
    let saved = lines.map(|line| {
        line.filter(|line| !line.settled(cells))
            .map(|line| (0..line.len).map(|i| cells[line.at(i)]).collect())
    });
    remove_pair(cells, width, a, b, fall);
    Removed {
        cells: [a, b],
        tiles,
        lines,
        saved,
        board: None,
    }
}

/// One removal, with what it takes to undo it.
pub(crate) struct Removed {
    cells: [usize; 2],
    tiles: [u32; 2],
    lines: [Option<Line>; 2],
    /// The whole line before the removal, for lines that were not settled.
    saved: [Option<Vec<u32>>; 2],
    /// The whole board before a removal that settled it.
    board: Option<Vec<u32>>,
}

impl Removed {
    /// The bytes this record holds beyond its own size.
    pub fn heap_bytes(&self) -> usize {
        let board = self.board.as_ref().map_or(0, |b| b.len() * 4);
        board
            + self
                .saved
                .iter()
                .flatten()
                .map(|s| s.len() * 4)
                .sum::<usize>()
    }

    /// Puts `cells` back as they were before the removal.
    pub fn undo(self, cells: &mut [u32]) {
        if let Some(board) = self.board {
            cells.copy_from_slice(&board);
            return;
        }
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

/// The cells of every column (down, up) or row (left, right) of a board of
/// `cells` cells, each read from the side its tiles fall toward; none
/// without gravity.
pub(crate) fn line_cells(cells: usize, width: usize, gravity: Gravity) -> Vec<Vec<usize>> {
    every_line(cells, width, gravity)
        .map(|line| (0..line.len).map(|i| line.at(i)).collect())
        .collect()
}

/// Every column (down, up) or row (left, right) of the board; none without
/// gravity.
fn every_line(cells: usize, width: usize, gravity: Gravity) -> impl Iterator<Item = Line> {
    let count = match gravity {
        Gravity::None => 0,
        Gravity::Down | Gravity::Up => width,
        Gravity::Left | Gravity::Right => cells / width,
    };
    (0..count).map(move |k| line(cells, width, gravity, k))
}

/// Column `k` (down, up) or row `k` (left, right); gravity is not none.
fn line(cells: usize, width: usize, gravity: Gravity, k: usize) -> Line {
    match gravity {
        Gravity::Down | Gravity::Up | Gravity::None => Line {
            start: k,
            stride: width,
            len: cells / width,
            to_end: gravity == Gravity::Down,
        },
        Gravity::Left | Gravity::Right => Line {
            start: k * width,
            stride: 1,
            len: width,
            to_end: gravity == Gravity::Right,
        },
    }
}

/// The lines that removing `a` and `b` compacts: none without gravity, one
/// when both lie on the same line.
fn lines(cells: usize, width: usize, a: usize, b: usize, gravity: Gravity) -> [Option<Line>; 2] {
    let (first, second) = match gravity {
        Gravity::None => return [None, None],
        Gravity::Down | Gravity::Up => (a % width, b % width),
        Gravity::Left | Gravity::Right => (a / width, b / width),
    };
    let second = (second != first).then(|| line(cells, width, gravity, second));
    [Some(line(cells, width, gravity, first)), second]
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

    /// Compacts the line toward the gravity side, keeping the tiles' order;
    /// each tile that moved is pushed onto `shifts` when given.
    fn compact(&self, cells: &mut [u32], mut shifts: Option<&mut Vec<Shift>>) {
        let mut write = 0;
        for read in 0..self.len {
            let tile = cells[self.at(read)];
            if tile != EMPTY {
                if write != read {
                    cells[self.at(write)] = tile;
                    if let Some(shifts) = shifts.as_deref_mut() {
                        shifts.push((self.at(read), self.at(write)));
                    }
                }
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
        remove_pair(&mut cells, 2, 2, 3, Gravity::Down.into());
        assert_eq!(cells, [0, 0, 1, 0, 3, 5]);
        let mut cells = vec![1, 2, 3, 4];
        remove_pair(&mut cells, 4, 0, 2, Gravity::Right.into());
        assert_eq!(cells, [0, 0, 2, 4]);
    }

    /// Every removal on every small board, settled or with floating tiles,
    /// undone, gives the board back.
    #[test]
    fn undo_restores_every_removal() {
        every_removal(7, |cells, w, a, b, fall| {
            let mut played = cells.to_vec();
            let removed = remove_pair_undoable(&mut played, w, a, b, fall);
            let mut plain = cells.to_vec();
            remove_pair(&mut plain, w, a, b, fall);
            assert_eq!(played, plain);
            removed.undo(&mut played);
            assert_eq!(played, cells, "{w} wide {fall:?} {a} {b}");
        });
    }

    /// Calls `check(cells, width, a, b, fall)` for every removal of two
    /// tiles on 2,000 small boards drawn from `seed` (settled or with
    /// floating tiles), under every gravity, settling or not.
    fn every_removal(mut seed: u64, mut check: impl FnMut(&[u32], usize, usize, usize, Fall)) {
        for _ in 0..2000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (w, h) = (1 + (seed >> 33) as usize % 4, 1 + (seed >> 40) as usize % 4);
            let cells: Vec<u32> = (0..w * h)
                .map(|i| ((seed >> (i % 60)) & 3) as u32)
                .collect();
            let tiles: Vec<usize> = (0..cells.len()).filter(|&i| cells[i] != EMPTY).collect();
            for fall in every_fall() {
                for &a in &tiles {
                    for &b in tiles.iter().filter(|&&b| b != a) {
                        check(&cells, w, a, b, fall);
                    }
                }
            }
        }
    }

    fn every_fall() -> impl Iterator<Item = Fall> {
        Gravity::ALL
            .into_iter()
            .flat_map(|g| [Fall::new(g, false), Fall::new(g, true)])
    }

    #[test]
    fn settling_moves_every_floating_tile() {
        // 3 x 3: a 1 floats over an empty cell in column 2.
        // 2 . 1
        // 3 . .
        // 3 2 .
        let cells = vec![2, 0, 1, 3, 0, 0, 3, 2, 0];
        let mut plain = cells.clone();
        remove_pair(&mut plain, 3, 0, 7, Gravity::Down.into());
        assert_eq!(plain, [0, 0, 1, 3, 0, 0, 3, 0, 0]);
        let mut settled = cells.clone();
        let mut shifts = Vec::new();
        let fall = Fall::new(Gravity::Down, true);
        remove_pair_shifts(&mut settled, 3, 0, 7, fall, Some(&mut shifts));
        assert_eq!(settled, [0, 0, 0, 3, 0, 0, 3, 0, 1]);
        assert_eq!(shifts, [(2, 8)]);
        // Without gravity nothing settles.
        assert_eq!(Fall::new(Gravity::None, true), Fall::from(Gravity::None));
    }

    /// The shifts reported, replayed on the board with the pair removed,
    /// give the board after the fall; they are in reading order of the
    /// cell left.
    #[test]
    fn shifts_replay_the_fall() {
        every_removal(11, |cells, w, a, b, fall| {
            let mut after = cells.to_vec();
            let mut shifts = Vec::new();
            remove_pair_shifts(&mut after, w, a, b, fall, Some(&mut shifts));
            let mut replayed = cells.to_vec();
            replayed[a] = EMPTY;
            replayed[b] = EMPTY;
            let lifted: Vec<u32> = shifts.iter().map(|&(f, _)| replayed[f]).collect();
            for &(from, _) in &shifts {
                replayed[from] = EMPTY;
            }
            for (&(_, to), tile) in shifts.iter().zip(lifted) {
                assert_eq!(replayed[to], EMPTY);
                replayed[to] = tile;
            }
            assert_eq!(replayed, after, "{w} wide {fall:?} {a} {b}");
            assert!(shifts.is_sorted());
            assert!(shifts.iter().all(|&(f, t)| f != t && cells[f] != EMPTY));
        });
    }

    /// Along a line of play with settling, only the first removal from a
    /// board with floating tiles copies it; the board is settled after it,
    /// so no later record holds anything.
    #[test]
    fn a_settling_line_of_play_copies_the_board_once() {
        // 3 x 3, column 2's 1 floats; every tile removed, in reading order.
        let mut cells = vec![2, 0, 1, 3, 0, 0, 3, 2, 4];
        let fall = Fall::new(Gravity::Down, true);
        let mut bytes = Vec::new();
        while let Some(a) = (0..9).find(|&i| cells[i] != EMPTY) {
            let b = (a + 1..9)
                .find(|&i| cells[i] != EMPTY)
                .expect("tiles go in pairs");
            bytes.push(remove_pair_undoable(&mut cells, 3, a, b, fall).heap_bytes());
            assert!(settled(&cells, 3, Gravity::Down), "{cells:?}");
        }
        assert_eq!(bytes, [36, 0, 0]);
    }
}
