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

mod search;

pub(crate) use search::RunSearch;

use rayon::prelude::*;
use std::ops::Range;

use super::grid::Grid;
use super::pages::Pages;

/// No run: a closed cell.
const NONE: u32 = u32::MAX;

/// Side of the square tiles runs are numbered by.
const TILE: usize = 32;

/// The runs of a padded grid, and which runs cross which.
///
/// Two arrays of run ids cover every cell: the vertical run of each cell in
/// row-major order, then the horizontal run of each cell in column-major
/// order. A horizontal run's cells lie side by side in the first, so the
/// runs crossing it are a stretch of that array; a vertical run's cells lie
/// side by side in the second, so the runs crossing it are a stretch of that
/// one. Each stretch ends at a closed cell, whose entry is [`NONE`]. So the
/// same arrays are the graph: a run needs only where its stretch starts.
///
/// Runs are numbered tile by tile (square tiles of [`TILE`] cells a side):
/// runs near each other on the board get near ids, which keeps a search's
/// reads close together in memory.
pub(crate) struct Runs {
    /// `down[cell]` (row-major) then `across[column-major cell]`.
    ids: Pages<u32>,
    /// Where in `ids` the runs crossing run `r` start. Some ids belong to
    /// no run (those between bands, and the provisional ones of
    /// [`Runs::new`]): no run crosses them, so no search reaches them.
    crossings_from: Pages<u32>,
    /// One bit per run of a single cell: it crosses one run only, so a
    /// search reaching it from that run has nowhere further to go.
    dead_end: Vec<u64>,
    width: usize,
    height: usize,
}

impl Runs {
    /// Numbers the runs band by band: each band (whole rows of tiles) on a
    /// thread of its own, when rayon has them and the board is big. Each
    /// band's ids start at a multiple of 64, so bands write apart in every
    /// array, the words of dead-end bits included.
    /// A vertical run reaching into a band from the band above takes a
    /// provisional id there; once all bands are done, its cells below the
    /// boundary get its real id, and the provisional id stays unused.
    ///
    /// `ids` starts zeroed and untouched, and each band writes its own
    /// slots: a page's first write costs (microseconds for a small page,
    /// the zeroing of 2 MiB for a huge one), and the bands pay them side
    /// by side.
    pub fn new(grid: &Grid) -> Self {
        let (w, h) = (grid.width, grid.height);
        let cells = w * h;
        let bands = bands(h, cells);
        let counts: Vec<usize> = bands.par_iter().map(|rows| starts(grid, rows)).collect();
        let mut firsts = Vec::with_capacity(bands.len());
        let mut ends = 0;
        for &count in &counts {
            firsts.push(ends);
            ends = (ends + count).next_multiple_of(64);
        }
        let mut ids = Pages::zeroed(2 * cells);
        let mut crossings_from = Pages::zeroed(ends);
        let mut dead_end = vec![0; ends / 64];
        {
            // Cut every array into the bands' parts.
            let (mut down, across) = ids.split_at_mut(cells);
            let mut columns: Vec<Vec<&mut [u32]>> = bands.iter().map(|_| Vec::new()).collect();
            for mut column in across.chunks_mut(h) {
                for (rows, pieces) in bands.iter().zip(&mut columns) {
                    let (piece, rest) = std::mem::take(&mut column).split_at_mut(rows.len());
                    pieces.push(piece);
                    column = rest;
                }
            }
            let (mut from, mut dead) = (&mut crossings_from[..], &mut dead_end[..]);
            let mut parts = Vec::with_capacity(bands.len());
            for (b, (rows, across)) in bands.iter().zip(columns).enumerate() {
                let first = firsts[b];
                let next = firsts.get(b + 1).copied().unwrap_or(ends);
                let (band_down, rest) = std::mem::take(&mut down).split_at_mut(rows.len() * w);
                down = rest;
                let (band_from, rest) = std::mem::take(&mut from).split_at_mut(next - first);
                from = rest;
                let (band_dead, rest) = std::mem::take(&mut dead).split_at_mut((next - first) / 64);
                dead = rest;
                parts.push(Band {
                    rows: rows.clone(),
                    first,
                    down: band_down,
                    across,
                    crossings_from: band_from,
                    dead_end: band_dead,
                });
            }
            let numbered: Vec<usize> = parts
                .into_par_iter()
                .map(|band| number(grid, band))
                .collect();
            debug_assert_eq!(numbered, counts);
        }
        // Vertical runs reaching into a band take the id they started with,
        // band by band from the top, so a run crossing several bands
        // carries its id all the way down.
        let open = &grid.open;
        for rows in &bands[1..] {
            for x in 1..w - 1 {
                let above = (rows.start - 1) * w + x;
                if !open[above] {
                    continue;
                }
                let mut i = above + w;
                while i < rows.end * w && open[i] {
                    ids[i] = ids[above];
                    i += w;
                }
            }
        }
        let count = firsts.last().zip(counts.last()).map_or(0, |(f, c)| f + c);
        crossings_from.truncate(count);
        dead_end.truncate(count.div_ceil(64));
        Runs {
            ids,
            crossings_from,
            dead_end,
            width: w,
            height: h,
        }
    }

    fn count(&self) -> usize {
        self.crossings_from.len()
    }

    /// The run a path moving in direction `d` (0 right, 1 down, 2 left,
    /// 3 up) uses through open cell `cell`.
    #[inline]
    fn run(&self, d: usize, cell: usize) -> u32 {
        if d.is_multiple_of(2) {
            let (y, x) = (cell / self.width, cell % self.width);
            self.ids[self.width * self.height + x * self.height + y]
        } else {
            self.ids[cell]
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

    /// The runs crossing run `run`.
    #[inline]
    fn crossing(&self, run: u32) -> impl Iterator<Item = u32> + '_ {
        crossing(&self.ids, &self.crossings_from, run)
    }
}

/// The runs crossing run `run`, from [`Runs::ids`] and
/// [`Runs::crossings_from`] taken as slices once, out of a hot loop.
#[inline]
fn crossing<'a>(
    ids: &'a [u32],
    crossings_from: &[u32],
    run: u32,
) -> impl Iterator<Item = u32> + 'a {
    let from = crossings_from[run as usize] as usize;
    ids[from..].iter().copied().take_while(|&r| r != NONE)
}

/// The rows each band numbers: whole rows of tiles, as many bands as
/// rayon has threads on a board of a million cells, fewer on smaller
/// boards (one below 131 072 padded cells), covering every row.
fn bands(h: usize, cells: usize) -> Vec<Range<usize>> {
    let tile_rows = h.div_ceil(TILE);
    let n = rayon::current_num_threads()
        .min(cells >> 16)
        .clamp(1, tile_rows);
    let row = |b: usize| (b * tile_rows / n * TILE).min(h);
    (0..n).map(|b| row(b)..row(b + 1)).collect()
}

/// How many runs [`number`] numbers in the band of `rows`: those starting
/// in it, and the vertical runs reaching into it from above.
fn starts(grid: &Grid, rows: &Range<usize>) -> usize {
    let (w, h) = (grid.width, grid.height);
    let open = &grid.open;
    let mut count = 0;
    for y in rows.start.max(1)..rows.end.min(h - 1) {
        let row = &open[y * w + 1..(y + 1) * w - 1];
        let left = &open[y * w..(y + 1) * w - 2];
        let across = row.iter().zip(left).filter(|&(&here, &left)| here && !left);
        count += across.count();
        count += if y == rows.start {
            row.iter().filter(|&&here| here).count()
        } else {
            let above = &open[(y - 1) * w + 1..y * w - 1];
            let down = row
                .iter()
                .zip(above)
                .filter(|&(&here, &above)| here && !above);
            down.count()
        };
    }
    count
}

/// One band's share of the arrays [`Runs::new`] fills.
struct Band<'a> {
    rows: Range<usize>,
    /// The band's first id, a multiple of 64.
    first: usize,
    /// Its rows of the row-major half of [`Runs::ids`].
    down: &'a mut [u32],
    /// Its rows of each column of the column-major half.
    across: Vec<&'a mut [u32]>,
    /// Its ids' entries of [`Runs::crossings_from`] and the dead-end bits.
    crossings_from: &'a mut [u32],
    dead_end: &'a mut [u64],
}

/// Numbers the runs of one band, filling in its slots of the run-id
/// arrays, where each run's crossings start and which runs are dead ends.
/// Returns how many runs it numbered.
///
/// Tile by tile, each tile a row at a time: a horizontal run continues
/// from the cell on its left and a vertical one from the cell above, both
/// already numbered (same tile, or the tile to the left or above), except
/// in the band's first row, where every vertical run starts as far as the
/// band knows. The closed outer ring means an open cell has a cell on
/// every side. The open cells of a row of a tile (up to 32 cells), and
/// where its runs start and end, are words of bits ([`OpenBits`]): whether
/// a cell is open is a coin toss to the branch predictor, so the loop over
/// cells selects rather than branches, and only the runs that start are
/// visited one by one. The horizontal runs starting in a row of a tile
/// take the next ids, then the vertical ones.
fn number(grid: &Grid, band: Band) -> usize {
    let (w, h) = (grid.width, grid.height);
    let cells = w * h;
    let Band {
        rows,
        first,
        down,
        mut across,
        crossings_from,
        dead_end,
    } = band;
    let top = rows.start;
    // The outer ring, read as the cells before the first ones numbered.
    for y in rows.clone() {
        // Every cell of the first and last rows, the two ends of the others.
        let step = if y == 0 || y == h - 1 { 1 } else { w - 1 };
        for x in (0..w).step_by(step) {
            down[(y - top) * w + x] = NONE;
            across[x][y - top] = NONE;
        }
    }
    // The band's rows and the row below it (the band's first row reads no
    // row above: every vertical run starts there as far as it knows).
    let open = OpenBits::new(grid, top..(rows.end + 1).min(h));
    let none_row = vec![NONE; w];
    let mut numbered = Numbered {
        count: 0,
        bits: 0,
        crossings_from,
        dead_end,
    };
    // A tile's horizontal-run ids, column by column, copied out once the
    // tile is done: written straight into the column-major half, the cells
    // of a row of the tile would land a column (kilobytes) apart.
    let mut tile = [[NONE; TILE]; TILE];
    for tile_top in rows.clone().step_by(TILE) {
        let ys = tile_top.max(1)..(tile_top + TILE).min(rows.end).min(h - 1);
        for left in (0..w).step_by(TILE) {
            let x0 = left.max(1);
            let n = (left + TILE).min(w - 1).saturating_sub(x0);
            if n == 0 {
                continue;
            }
            for y in ys.clone() {
                let band_y = y - top;
                let here = open.get(y, x0, n);
                let right = open.get(y, x0 + 1, n);
                let left_of = open.get(y, x0 - 1, n);
                let above = if y == top { 0 } else { open.get(y - 1, x0, n) };
                let below = open.get(y + 1, x0, n);
                let across_starts = here & !left_of;
                let down_starts = here & !above;
                let first_across = (first + numbered.count) as u32;
                let first_down = first_across + across_starts.count_ones();
                // Ids, cell by cell.
                let (done, rest) = down.split_at_mut(band_y * w);
                let above_ids = match band_y {
                    0 => &none_row[x0..x0 + n],
                    _ => &done[(band_y - 1) * w + x0..][..n],
                };
                let ids = &mut rest[x0..x0 + n];
                let (mut next_across, mut next_down) = (first_across, first_down);
                let mut row = across[x0 - 1][band_y];
                let column = tile.iter_mut().zip(ids.iter_mut().zip(above_ids));
                for (k, (slots, (id, &above_id))) in column.enumerate() {
                    let is_open = here >> k & 1 != 0;
                    let starts = across_starts >> k & 1 != 0;
                    row = if starts { next_across } else { row };
                    next_across += u32::from(starts);
                    row = if is_open { row } else { NONE };
                    slots[y - ys.start] = row;
                    let starts = down_starts >> k & 1 != 0;
                    let run = if starts { next_down } else { above_id };
                    next_down += u32::from(starts);
                    *id = if is_open { run } else { NONE };
                }
                // Where each new run's crossings start, and whether it is a
                // dead end (one cell: closed after it).
                let row_start = y * w + x0;
                let mut starts = across_starts;
                while starts != 0 {
                    let k = starts.trailing_zeros() as usize;
                    numbered.push(row_start + k, right >> k & 1 == 0);
                    starts &= starts - 1;
                }
                let mut starts = down_starts;
                while starts != 0 {
                    let k = starts.trailing_zeros() as usize;
                    numbered.push(cells + (x0 + k) * h + y, below >> k & 1 == 0);
                    starts &= starts - 1;
                }
            }
            let band_ys = ys.start - top..ys.end - top;
            for (k, column) in tile[..n].iter().enumerate() {
                across[x0 + k][band_ys.clone()].copy_from_slice(&column[..band_ys.len()]);
            }
        }
    }
    numbered.finish()
}

/// The runs [`number`] has numbered so far in its band.
struct Numbered<'a> {
    count: usize,
    /// The dead-end bits of the 64 ids from `count / 64 * 64`, gathered
    /// in a register and stored whole.
    bits: u64,
    crossings_from: &'a mut [u32],
    dead_end: &'a mut [u64],
}

impl Numbered<'_> {
    /// Numbers the next run: its crossings start at `crossings` in
    /// [`Runs::ids`], and it is a dead end when `dead`.
    #[inline]
    fn push(&mut self, crossings: usize, dead: bool) {
        self.crossings_from[self.count] = crossings as u32;
        self.bits |= u64::from(dead) << (self.count % 64);
        self.count += 1;
        if self.count.is_multiple_of(64) {
            self.dead_end[self.count / 64 - 1] = self.bits;
            self.bits = 0;
        }
    }

    /// Stores the last dead-end bits; returns how many runs there are.
    fn finish(self) -> usize {
        if !self.count.is_multiple_of(64) {
            self.dead_end[self.count / 64] = self.bits;
        }
        self.count
    }
}

/// Some rows of a padded grid's open cells as bits, 64 cells a word, so
/// the cells of a row of a tile are read as one word.
struct OpenBits {
    words: Vec<u64>,
    /// Words per row: the row's cells and one word more, so that reading
    /// from any cell of the row stays inside the row.
    stride: usize,
    first_row: usize,
}

impl OpenBits {
    fn new(grid: &Grid, rows: Range<usize>) -> Self {
        let w = grid.width;
        let stride = w.div_ceil(64) + 1;
        let mut words = vec![0; rows.len() * stride];
        for (y, row_words) in rows.clone().zip(words.chunks_exact_mut(stride)) {
            let row = &grid.open[y * w..(y + 1) * w];
            for (word, cells) in row_words.iter_mut().zip(row.chunks(64)) {
                *word = pack(cells);
            }
        }
        OpenBits {
            words,
            stride,
            first_row: rows.start,
        }
    }

    /// Bit `k` tells whether cell `x + k` of row `y` is open, for `k` below
    /// `n` (at most 32, and `x + n` at most the width).
    #[inline]
    fn get(&self, y: usize, x: usize, n: usize) -> u32 {
        debug_assert!(n <= 32 && x + n <= (self.stride - 1) * 64);
        let at = (y - self.first_row) * self.stride + x / 64;
        let shift = x % 64;
        // Shifted in two steps, so that a shift of 0 does not shift by 64.
        let bits = (self.words[at] >> shift) | (self.words[at + 1] << 1 << (63 - shift));
        (bits & ((1u64 << n) - 1)) as u32
    }
}

/// Up to 64 cells as bits, the first cell in the lowest bit.
fn pack(cells: &[bool]) -> u64 {
    let mut word = 0;
    for (i, eight) in cells.chunks(8).enumerate() {
        let mut bytes = [0u8; 8];
        for (byte, &cell) in bytes.iter_mut().zip(eight) {
            *byte = u8::from(cell);
        }
        // Each byte is 0 or 1: the product gathers byte j's bit at bit
        // 56 + j, with no carries in between.
        let bits = u64::from_le_bytes(bytes).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        word |= bits << (8 * i);
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::rng::SplitMix64;

    #[test]
    fn pack_puts_the_first_cell_in_the_lowest_bit() {
        assert_eq!(pack(&[]), 0);
        assert_eq!(pack(&[true]), 1);
        assert_eq!(pack(&[false, true, true]), 0b110);
        let mut cells = [false; 64];
        cells[9] = true;
        cells[63] = true;
        assert_eq!(pack(&cells), 1 << 9 | 1 << 63);
        assert_eq!(pack(&[true; 64]), u64::MAX);
    }

    /// Checks the whole run graph against the cells: every open cell's two
    /// ids name the maximal runs through it (no id shared by two runs),
    /// closed cells have none, each run's crossings start at its first
    /// cell, and the dead-end bit is set exactly on runs of one cell.
    fn check_runs(grid: &Grid, runs: &Runs, what: &str) {
        use std::collections::HashMap;
        let (w, h) = (grid.width, grid.height);
        let cells = w * h;
        // id -> where its crossings should start (its first cell's slot).
        let mut first_slot: HashMap<u32, usize> = HashMap::new();
        let mut length: HashMap<u32, usize> = HashMap::new();
        for y in 0..h {
            for x in 0..w {
                let cell = y * w + x;
                if !grid.open[cell] {
                    assert_eq!(runs.ids[cell], NONE, "{what}: closed ({x}, {y}) down");
                    assert_eq!(
                        runs.ids[cells + x * h + y],
                        NONE,
                        "{what}: closed ({x}, {y})"
                    );
                    continue;
                }
                // Across: the run starts at the first open cell of the stretch.
                let mut start = x;
                while grid.open[y * w + start - 1] {
                    start -= 1;
                }
                let id = runs.run(0, cell);
                let slot = y * w + start;
                assert_eq!(
                    *first_slot.entry(id).or_insert(slot),
                    slot,
                    "{what}: ({x}, {y}) across"
                );
                *length.entry(id).or_default() += 1;
                let mut start = y;
                while grid.open[(start - 1) * w + x] {
                    start -= 1;
                }
                let id = runs.run(1, cell);
                let slot = cells + x * h + start;
                assert_eq!(
                    *first_slot.entry(id).or_insert(slot),
                    slot,
                    "{what}: ({x}, {y}) down"
                );
                *length.entry(id).or_default() += 1;
            }
        }
        for (&id, &slot) in &first_slot {
            assert_eq!(
                runs.crossings_from[id as usize] as usize, slot,
                "{what}: run {id}"
            );
            let dead = runs.dead_end[id as usize / 64] >> (id % 64) & 1 != 0;
            assert_eq!(
                dead,
                length[&id] == 1,
                "{what}: run {id} of {} cells",
                length[&id]
            );
        }
    }

    /// A board of `width` x `height` whose cells are tiles with probability
    /// `density` percent.
    fn board(width: usize, height: usize, density: u64, seed: u64) -> Board {
        let mut rng = SplitMix64::new(seed);
        let cells = (0..width * height)
            .map(|_| u32::from(rng.below(100) < density as usize))
            .collect();
        Board::new(width, height, cells).unwrap()
    }

    /// Boards whose padded sides sit on either side of a tile or a word
    /// (33 and 65 wide: a last tile of no cells; 34 and 66: of one cell),
    /// each density from empty to full, the ring open and closed.
    #[test]
    fn runs_are_the_maximal_stretches_of_open_cells() {
        let sides = [1, 2, 5, 27, 28, 29, 30, 31, 60, 61, 62, 93, 125];
        for (i, &width) in sides.iter().enumerate() {
            let height = sides[(i * 5 + 3) % sides.len()];
            for density in [0, 15, 50, 90, 100] {
                let board = board(width, height, density, (i * 7) as u64 + density);
                for outside in [true, false] {
                    let grid = Grid::new(&board, outside);
                    let what = format!("{width} x {height}, {density}%, outside {outside}");
                    check_runs(&grid, &Runs::new(&grid), &what);
                }
            }
        }
    }

    /// Boards of two or more bands (131 072 padded cells and more) on 2, 3
    /// and 4 threads: runs crossing band edges, a last band of the closed
    /// bottom row alone (4000 x 29: 33 rows padded), bands with no run at
    /// all (the top half all tiles, the ring closed), vertical runs through
    /// every band (an empty board).
    #[test]
    fn runs_numbered_in_bands_are_the_maximal_stretches() {
        let half = (0..61 * 2100)
            .map(|i| u32::from(i < 61 * 1050 || i % 7 == 0))
            .collect();
        let boards = [
            ("61 x 2100, 15%", board(61, 2100, 15, 1), true),
            ("61 x 2100, 50%", board(61, 2100, 50, 2), true),
            ("61 x 2100, 90%", board(61, 2100, 90, 3), false),
            ("4000 x 29, 40%", board(4000, 29, 40, 4), true),
            ("29 x 4600, empty", board(29, 4600, 0, 5), true),
            (
                "61 x 2100, top half tiles",
                Board::new(61, 2100, half).unwrap(),
                false,
            ),
        ];
        for threads in [2, 3, 4] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for (name, board, outside) in &boards {
                let grid = Grid::new(board, *outside);
                let runs = pool.install(|| Runs::new(&grid));
                check_runs(&grid, &runs, &format!("{name}, {threads} threads"));
            }
        }
    }

    /// A board 150 cells wide (three words a padded row), open where
    /// `(x * 7 + y * 3) % 5 != 0`: every read of 1 to 32 cells from every
    /// column, across word boundaries, matches the cells themselves.
    #[test]
    fn open_bits_read_the_cells_they_cover() {
        let (width, height) = (150, 4);
        let cells = (0..width * height)
            .map(|i| u32::from((i % width * 7 + i / width * 3) % 5 == 0))
            .collect();
        let board = Board::new(width, height, cells).unwrap();
        let grid = Grid::new(&board, true);
        let bits = OpenBits::new(&grid, 1..grid.height);
        for y in 1..grid.height {
            for n in 1..=32 {
                for x in 0..=grid.width - n {
                    let want = (0..n)
                        .filter(|&k| grid.open[y * grid.width + x + k])
                        .fold(0u32, |word, k| word | 1 << k);
                    assert_eq!(bits.get(y, x, n), want, "row {y}, cells {x}..{}", x + n);
                }
            }
        }
    }
}
