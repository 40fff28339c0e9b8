//! Whether two tiles can be joined now, asked pair by pair on a board whose
//! tiles come and go: an open-cell grid kept up to date by the caller.
//!
//! Up to three segments a path has one of two shapes: along the row, the
//! column, the row again, or along the column, the row, the column again
//! (each part possibly of length zero). So a pair is checked by walking
//! the open runs beside its two tiles and the lines between them, in time
//! linear in the board's sides. More segments (or no limit) take the
//! breadth-first search by layers of segments ([`super::layers`]) that
//! [`super::moves`] explores with.

use super::layers::Layers;
use crate::{EMPTY, Interrupted, Rules, Stop};

/// Cells of padding on each side: the ring around the board (open when the
/// rules let paths leave the board) and a closed ring beyond it.
const PAD: usize = 2;

pub(crate) struct Links {
    max_segments: Option<u32>,
    /// Board width, padded width.
    width: usize,
    padded: usize,
    open: Vec<bool>,
    layers: Layers,
}

impl Links {
    /// The grid of a `width`-wide board holding `cells`.
    pub fn new(width: usize, cells: &[u32], rules: &Rules) -> Self {
        let height = cells.len() / width;
        let padded = width + 2 * PAD;
        let size = padded * (height + 2 * PAD);
        let mut links = Links {
            max_segments: rules.max_segments,
            width,
            padded,
            open: vec![false; size],
            layers: Layers::new(padded),
        };
        let rows = height + 2 * PAD;
        for y in 1..rows - 1 {
            for x in 1..padded - 1 {
                links.open[y * padded + x] = rules.outside;
            }
        }
        links.reset(cells);
        links
    }

    /// Sets every board cell from `cells` (same size as at [`Links::new`]);
    /// the ring around the board never changes.
    pub fn reset(&mut self, cells: &[u32]) {
        for (i, &c) in cells.iter().enumerate() {
            let at = self.at(i);
            self.open[at] = c == EMPTY;
        }
    }

    /// Marks board cell `index` open (emptied) or closed (a tile).
    pub fn set_open(&mut self, index: usize, open: bool) {
        let at = self.at(index);
        self.open[at] = open;
    }

    /// Whether a path can leave board cell `index`: a cell beside it is
    /// open. Two tiles that are not neighbours are joined only when both
    /// can.
    pub fn can_leave(&self, index: usize) -> bool {
        let at = self.at(index);
        let w = self.padded;
        self.open[at - 1] || self.open[at + 1] || self.open[at - w] || self.open[at + w]
    }

    fn at(&self, index: usize) -> usize {
        (index / self.width + PAD) * self.padded + index % self.width + PAD
    }

    /// Whether the tiles at board cells `a` and `b` (two different tiles)
    /// can be joined under the rules' turn limit, whatever their types.
    pub fn connected(&mut self, a: usize, b: usize) -> bool {
        let (p, q) = (self.at(a), self.at(b));
        match self.max_segments {
            Some(0) => false,
            Some(max @ 1..=3) => self.shapes(p, q, max),
            max => self.search(p, q, max.unwrap_or(u32::MAX)),
        }
    }

    /// The pairs of tiles of one type in `cells` that can be joined now,
    /// in lexicographic order: `tiles` holds every tile of `cells` (board
    /// indices) by type, each type's in reading order. `None` once more
    /// than `most` are found.
    pub fn pairs(
        &mut self,
        cells: &[u32],
        tiles: &[u32],
        most: usize,
        stop: &Stop,
        work: &mut u32,
    ) -> Result<Option<Vec<(usize, usize)>>, Interrupted> {
        self.reset(cells);
        let width = self.width;
        let neighbours =
            |a: usize, b: usize| b - a == width || (b - a == 1 && !b.is_multiple_of(width));
        let mut pairs = Vec::new();
        for kind in tiles.chunk_by(|&a, &b| cells[a as usize] == cells[b as usize]) {
            for (i, &a) in kind.iter().enumerate() {
                let a = a as usize;
                let leaves = self.can_leave(a);
                for &b in &kind[i + 1..] {
                    stop.tick(work)?;
                    // Most tiles of a full board are shut in: a cheap test
                    // before the paths.
                    let b = b as usize;
                    let possible = leaves && self.can_leave(b) || neighbours(a, b);
                    if possible && self.connected(a, b) {
                        pairs.push((a, b));
                        if pairs.len() > most {
                            return Ok(None);
                        }
                    }
                }
            }
        }
        pairs.sort_unstable();
        Ok(Some(pairs))
    }

    /// Whether every pair of `pairs` can be removed, one after another,
    /// on this grid: tried greedily, each pair that can be joined opening
    /// its two cells, which is exact because removals only open cells.
    pub fn clears_greedily(
        &mut self,
        mut pairs: Vec<(usize, usize)>,
        stop: &Stop,
        work: &mut u32,
    ) -> Result<bool, Interrupted> {
        loop {
            let before = pairs.len();
            let mut i = 0;
            while i < pairs.len() {
                stop.tick(work)?;
                let (a, b) = pairs[i];
                if self.connected(a, b) {
                    self.set_open(a, true);
                    self.set_open(b, true);
                    pairs.swap_remove(i);
                } else {
                    i += 1;
                }
            }
            if pairs.is_empty() {
                return Ok(true);
            }
            if pairs.len() == before {
                return Ok(false);
            }
        }
    }

    /// The two shapes of paths of at most three segments.
    fn shapes(&self, p: usize, q: usize, max: u32) -> bool {
        let w = self.padded;
        let (x1, y1, x2, y2) = (p % w, p / w, q % w, q / w);
        let open = |x: usize, y: usize| self.open[y * w + x];
        if y1 != y2 {
            let (lo1, hi1) = self.run(x1, y1, true);
            let (lo2, hi2) = self.run(x2, y2, true);
            let (top, bottom) = (y1.min(y2), y1.max(y2));
            for x in lo1.max(lo2)..=hi1.min(hi2) {
                let segments = u32::from(x != x1) + 1 + u32::from(x != x2);
                if segments <= max && (top + 1..bottom).all(|y| open(x, y)) {
                    return true;
                }
            }
        }
        if x1 != x2 {
            let (lo1, hi1) = self.run(x1, y1, false);
            let (lo2, hi2) = self.run(x2, y2, false);
            let (left, right) = (x1.min(x2), x1.max(x2));
            for y in lo1.max(lo2)..=hi1.min(hi2) {
                let segments = u32::from(y != y1) + 1 + u32::from(y != y2);
                if segments <= max && (left + 1..right).all(|x| open(x, y)) {
                    return true;
                }
            }
        }
        false
    }

    /// The open run through `(x, y)` along its row (`horizontal`) or its
    /// column, `(x, y)` itself included whatever it holds: the lowest and
    /// highest coordinate.
    fn run(&self, x: usize, y: usize, horizontal: bool) -> (usize, usize) {
        let w = self.padded;
        let (start, step) = if horizontal { (x, 1) } else { (y, w) };
        let cell = y * w + x;
        let (mut lo, mut hi) = (start, start);
        while self.open[cell - (start - lo + 1) * step] {
            lo -= 1;
        }
        while self.open[cell + (hi - start + 1) * step] {
            hi += 1;
        }
        (lo, hi)
    }

    /// Layers of segments from `p` ([`Layers`]) until a ray ends on `q`.
    fn search(&mut self, p: usize, q: usize, max: u32) -> bool {
        let mut work = 0;
        let found = self
            .layers
            .explore(&self.open, p, max, &Stop::never(), &mut work, |n| n == q);
        found.expect("never stopped")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;
    use crate::{Board, Match, Movement, Point, Preset, Query, Solver, Stop};

    /// Every pair of tiles of small random boards, under rules with one to
    /// six segments or none: joined exactly when the solver connects them,
    /// and, unless neighbours, only when a path can leave both.
    #[test]
    fn pairs_are_joined_exactly_when_the_solver_connects_them() {
        let mut rng = SplitMix64::new(5);
        let mut rule_sets: Vec<Rules> = [Preset::ShisenSho, Preset::Lianliankan, Preset::Mahjong]
            .map(Preset::rules)
            .to_vec();
        for max_segments in [Some(1), Some(2), Some(4), Some(6)] {
            for outside in [false, true] {
                rule_sets.push(Rules {
                    movement: Movement::Line,
                    max_segments,
                    outside,
                    matching: Match::Any,
                });
            }
        }
        let (mut joined, mut apart) = (0, 0);
        for _ in 0..300 {
            let (w, h) = (1 + rng.below(7), 1 + rng.below(6));
            let fill = 20 + rng.below(70);
            let cells = rng.occupancy(w * h, fill);
            let board = Board::new(w, h, cells.clone()).unwrap();
            let tiles: Vec<usize> = (0..w * h).filter(|&i| cells[i] != EMPTY).collect();
            let point = |i: usize| Point::new((i % w) as i32, (i / w) as i32);
            for rules in &rule_sets {
                let any = Rules {
                    matching: Match::Any,
                    ..*rules
                };
                let mut links = Links::new(w, &cells, &any);
                let mut solver = Solver::new(&board, any);
                for (k, &a) in tiles.iter().enumerate() {
                    for &b in &tiles[k + 1..] {
                        let expected = solver
                            .answer(Query::new(point(a), point(b)), &Stop::never())
                            .unwrap()
                            .segments()
                            .is_some();
                        assert_eq!(links.connected(a, b), expected, "{board:?} {any:?} {a} {b}");
                        assert_eq!(links.connected(b, a), expected);
                        let neighbours = (a % w).abs_diff(b % w) + (a / w).abs_diff(b / w) == 1;
                        if expected && !neighbours {
                            assert!(
                                links.can_leave(a) && links.can_leave(b),
                                "{board:?} {a} {b}"
                            );
                        }
                        if expected {
                            joined += 1;
                        } else {
                            apart += 1;
                        }
                    }
                }
            }
        }
        assert!(joined > 10_000 && apart > 10_000, "{joined} / {apart}");
    }
}
