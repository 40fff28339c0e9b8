//! Every pair of tiles that can be removed now, found by exploring once from
//! each tile instead of asking about every pair.
//!
//! With a turn limit, the exploration from a tile is a breadth-first search
//! by layers of segments over cells ([`super::layers`]): a ray that ends on
//! a tile reaches that tile. Without a limit, two tiles connect
//! exactly when they are neighbours or both touch one region of open cells,
//! so one flood fill serves every tile.

use super::layers::Layers;
use crate::grid::Grid;
use crate::{Board, EMPTY, Interrupted, Match, Rules, Stop};
use std::borrow::Cow;

const UNSET: u32 = u32::MAX;

/// Explores from tiles of one board state.
pub(crate) struct Explorer<'b> {
    board: Cow<'b, Board>,
    rules: Rules,
    grid: Grid,
    /// Board index + 1 of the tile in each padded cell, 0 for none.
    tile: Vec<u32>,
    layers: Layers,
    marked: Vec<bool>,
    /// Without a turn limit: region label per padded cell, and the board
    /// indices of the tiles touching each region.
    regions: Option<(Vec<u32>, Vec<Vec<usize>>)>,
}

impl<'b> Explorer<'b> {
    /// `rules` must have `line` movement.
    pub fn new(board: &'b Board, rules: Rules) -> Self {
        Self::over(Cow::Borrowed(board), rules)
    }

    /// An explorer that keeps its own board, to outlive the caller's cells.
    pub fn owned(board: Board, rules: Rules) -> Explorer<'static> {
        Explorer::over(Cow::Owned(board), rules)
    }

    fn over(board: Cow<'b, Board>, rules: Rules) -> Self {
        let grid = Grid::new(&board, rules.outside);
        let mut tile = vec![0; grid.open.len()];
        let w = board.width();
        for (i, &cell) in board.cells().iter().enumerate() {
            if cell != EMPTY {
                let p = crate::Point::new((i % w) as i32, (i / w) as i32);
                tile[grid.index(p)] = i as u32 + 1;
            }
        }
        let cells = grid.open.len();
        Explorer {
            board,
            rules,
            layers: Layers::new(grid.width),
            grid,
            tile,
            marked: vec![false; cells],
            regions: None,
        }
    }

    fn padded(&self, index: usize) -> usize {
        let w = self.board.width();
        self.grid
            .index(crate::Point::new((index % w) as i32, (index / w) as i32))
    }

    /// The board indices of the tiles that tile `a` (a board index) can
    /// reach under the rules' turn limit, whatever their type, in no
    /// particular order.
    pub fn reach(
        &mut self,
        a: usize,
        stop: &Stop,
        work: &mut u32,
    ) -> Result<Vec<usize>, Interrupted> {
        match self.rules.max_segments {
            Some(max) => self.reach_layers(a, max, stop, work),
            None => self.reach_regions(a, stop, work),
        }
    }

    fn reach_layers(
        &mut self,
        a: usize,
        max: u32,
        stop: &Stop,
        work: &mut u32,
    ) -> Result<Vec<usize>, Interrupted> {
        let start = self.padded(a);
        let (tile, marked) = (&self.tile, &mut self.marked);
        let mut hits = Vec::new();
        let result = self
            .layers
            .explore(&self.grid.open, start, max, stop, work, |n| {
                if tile[n] != 0 && n != start && !marked[n] {
                    marked[n] = true;
                    hits.push(n);
                }
                false
            });
        let hits = hits
            .into_iter()
            .map(|n| {
                self.marked[n] = false;
                self.tile[n] as usize - 1
            })
            .collect();
        result.map(|_| hits)
    }

    fn reach_regions(
        &mut self,
        a: usize,
        stop: &Stop,
        work: &mut u32,
    ) -> Result<Vec<usize>, Interrupted> {
        if self.regions.is_none() {
            self.regions = Some(self.label_regions(stop, work)?);
        }
        let start = self.padded(a);
        let (label, touching) = self.regions.as_ref().expect("just built");
        let mut hits = Vec::new();
        for step in self.grid.steps() {
            let n = start.wrapping_add_signed(step);
            if self.tile[n] != 0 {
                hits.push(self.tile[n] as usize - 1);
            } else if label[n] != UNSET {
                let region = &touching[label[n] as usize];
                hits.extend(region.iter().copied().filter(|&t| t != a));
                // One region may touch most tiles of a big board.
                *work += region.len() as u32;
                stop.tick(work)?;
            }
        }
        hits.sort_unstable();
        hits.dedup();
        Ok(hits)
    }

    fn label_regions(
        &self,
        stop: &Stop,
        work: &mut u32,
    ) -> Result<(Vec<u32>, Vec<Vec<usize>>), Interrupted> {
        let open = &self.grid.open;
        let steps = self.grid.steps();
        let mut label = vec![UNSET; open.len()];
        let mut touching: Vec<Vec<usize>> = Vec::new();
        let mut stack = Vec::new();
        for first in 0..open.len() {
            stop.tick(work)?;
            if !open[first] || label[first] != UNSET {
                continue;
            }
            let region = touching.len() as u32;
            let mut tiles = Vec::new();
            label[first] = region;
            stack.push(first);
            while let Some(cell) = stack.pop() {
                stop.tick(work)?;
                for step in steps {
                    let n = cell.wrapping_add_signed(step);
                    if open[n] {
                        if label[n] == UNSET {
                            label[n] = region;
                            stack.push(n);
                        }
                    } else if self.tile[n] != 0 {
                        tiles.push(self.tile[n] as usize - 1);
                    }
                }
            }
            tiles.sort_unstable();
            tiles.dedup();
            touching.push(tiles);
        }
        Ok((label, touching))
    }

    /// The removable pairs `(a, b)` of board indices, `a < b`, in
    /// lexicographic order; at most `limit`.
    pub fn pairs(
        &mut self,
        limit: Option<usize>,
        stop: &Stop,
    ) -> Result<Vec<(usize, usize)>, Interrupted> {
        // A borrowed board is a reference copied; an owned one is copied
        // whole, once per call.
        let board = self.board.clone();
        let cells = board.cells();
        // With `match: same` the last tile of a type (in reading order) has
        // no partner after it: no need to explore from it.
        let mut later = vec![self.rules.matching == Match::Any; cells.len()];
        if self.rules.matching == Match::Same {
            let mut seen = std::collections::HashSet::new();
            for (i, &c) in cells.iter().enumerate().rev() {
                later[i] = !seen.insert(c);
            }
        }
        let mut pairs = Vec::new();
        let mut work = 0;
        for a in 0..cells.len() {
            if cells[a] == EMPTY || !later[a] {
                continue;
            }
            if limit.is_some_and(|l| pairs.len() >= l) {
                break;
            }
            let mut hits = self.reach(a, stop, &mut work)?;
            hits.retain(|&b| b > a && (self.rules.matching == Match::Any || cells[b] == cells[a]));
            hits.sort_unstable();
            for b in hits {
                if limit.is_some_and(|l| pairs.len() >= l) {
                    break;
                }
                pairs.push((a, b));
            }
        }
        Ok(pairs)
    }
}

/// The removable pairs of `board` (board indices, `a < b`, in lexicographic
/// order), at most `limit`. `rules` must have `line` movement.
pub(crate) fn pairs(
    board: &Board,
    rules: Rules,
    limit: Option<usize>,
    stop: &Stop,
) -> Result<Vec<(usize, usize)>, Interrupted> {
    Explorer::new(board, rules).pairs(limit, stop)
}
