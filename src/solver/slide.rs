//! Curling 2.0 (POJ 3009): the stone slides until it hits a block, which
//! breaks, and stops on the cell before it; a stone that leaves the board is
//! lost; a stone that passes over the goal stops there.
//!
//! Every throw that does not end the game breaks one block, so no search
//! needs more throws than there are blocks, plus one. The search is one
//! depth-first pass in the order of directions; once it reaches the goal it
//! keeps that sequence and looks only for shorter ones, so of the shortest
//! sequences the first in that order wins. It looks ahead at the last two
//! throws without sliding: with one throw left the stone must see the goal
//! down a clear row or column; with two left, only the throws towards the
//! goal's row or column can help.
//!
//! The rink is padded with a ring of "out" cells and slides step through
//! flat indices, so a throw is a tight loop with no bounds checks.

use super::board::{Board, EMPTY, Point};
use super::stop::{Interrupted, Stop};

/// What a padded rink cell holds.
const VACANT: u8 = 0;
const BLOCK: u8 = 1;
/// The ring around the board: a stone that gets there is lost.
const OUT: u8 = 2;

/// The four throws as (dx, dy).
const STEPS: [(i32, i32); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];

pub(crate) struct Rink {
    /// Padded width: the board's plus the ring on both sides.
    width: usize,
    cells: Vec<u8>,
    blocks: usize,
}

/// Where the stone rests: its padded index and board coordinates.
#[derive(Clone, Copy)]
struct Spot {
    index: usize,
    x: i32,
    y: i32,
}

struct Search<'a, 's> {
    cells: &'a mut [u8],
    width: usize,
    goal: Spot,
    stops: Vec<Spot>,
    /// Throws allowed: fewer than the best sequence found so far.
    limit: u32,
    /// The stops of the best sequence found so far.
    best: Option<Vec<Spot>>,
    stop: &'a Stop<'s>,
    work: u32,
}

enum Throw {
    /// A block stands right beside the stone: it cannot be thrown that way.
    Blocked,
    Goal,
    Lost,
    /// Stopped after sliding `cells` cells, on the cell before the block at
    /// padded index `block`.
    Stopped {
        cells: usize,
        block: usize,
    },
}

impl Rink {
    pub fn new(board: &Board) -> Self {
        let width = board.width() + 2;
        let mut cells = vec![OUT; width * (board.height() + 2)];
        let mut blocks = 0;
        for (y, row) in board.cells().chunks_exact(board.width()).enumerate() {
            let start = (y + 1) * width + 1;
            for (slot, &cell) in cells[start..start + board.width()].iter_mut().zip(row) {
                *slot = if cell == EMPTY { VACANT } else { BLOCK };
                blocks += usize::from(cell != EMPTY);
            }
        }
        Rink {
            width,
            cells,
            blocks,
        }
    }

    fn spot(&self, p: Point) -> Spot {
        Spot {
            index: (p.y as usize + 1) * self.width + p.x as usize + 1,
            x: p.x,
            y: p.y,
        }
    }

    /// The fewest throws from `start` to `goal`, at most `max_throws`, with
    /// the stone's stops from start to goal inclusive. The rink is left as it
    /// was.
    pub fn shortest(
        &mut self,
        start: Point,
        goal: Point,
        max_throws: Option<u32>,
        stop: &Stop,
    ) -> Result<Option<(u32, Vec<Point>)>, Interrupted> {
        let bound = (self.blocks as u64 + 1).min(max_throws.map_or(u64::MAX, u64::from)) as u32;
        let (start, goal) = (self.spot(start), self.spot(goal));
        let mut search = Search {
            width: self.width,
            cells: &mut self.cells,
            goal,
            stops: vec![start],
            limit: bound,
            best: None,
            stop,
            work: 0,
        };
        search.throw_from(start, 0)?;
        Ok(search.best.map(|stops| {
            let throws = stops.len() as u32 - 1;
            (throws, stops.iter().map(|s| Point::new(s.x, s.y)).collect())
        }))
    }
}

impl Search<'_, '_> {
    /// Searches every sequence from `at` (after `thrown` throws) that could
    /// beat the best found so far, in order of directions, so the first
    /// sequence found of each length is the first in that order.
    fn throw_from(&mut self, at: Spot, thrown: u32) -> Result<(), Interrupted> {
        let aligned = at.x == self.goal.x || at.y == self.goal.y;
        match self.limit.saturating_sub(thrown) {
            0 => return Ok(()),
            // The last throw must fly straight over the goal.
            1 => {
                if aligned && self.clear_to_goal(at) {
                    self.found();
                }
                return Ok(());
            }
            _ => {}
        }
        self.stop.tick(&mut self.work)?;
        for (dx, dy) in STEPS {
            let left = self.limit.saturating_sub(thrown);
            if left == 0 {
                break; // a sequence this short was just found
            }
            // With two throws left, only a throw towards the goal's row or
            // column can help. Off both, the first throw must stop on the
            // goal's column (thrown across towards it) or on its row; on the
            // goal's row, a throw across leaves it for good and a throw away
            // leaves the blocks in between (and with none in between, the
            // throw towards the goal wins in one).
            if left == 2 {
                let towards = if dx != 0 {
                    (self.goal.x - at.x).signum() == dx
                } else {
                    (self.goal.y - at.y).signum() == dy
                };
                if !towards {
                    continue;
                }
            }
            let step = dy as isize * self.width as isize + dx as isize;
            match self.slide(at.index, step) {
                Throw::Blocked | Throw::Lost => {}
                Throw::Goal => self.found(),
                Throw::Stopped { cells, block } => {
                    let rest = Spot {
                        index: at.index.wrapping_add_signed(step * cells as isize),
                        x: at.x + dx * cells as i32,
                        y: at.y + dy * cells as i32,
                    };
                    self.cells[block] = VACANT;
                    self.stops.push(rest);
                    let searched = self.throw_from(rest, thrown + 1);
                    self.stops.pop();
                    self.cells[block] = BLOCK;
                    searched?;
                }
            }
        }
        Ok(())
    }

    /// Keeps the current stops plus the goal as the best sequence; only
    /// shorter ones are searched from now on.
    fn found(&mut self) {
        let mut stops = self.stops.clone();
        stops.push(self.goal);
        self.limit = stops.len() as u32 - 2;
        self.best = Some(stops);
    }

    /// Whether no block stands between `at` and the goal, which share a row
    /// or a column.
    fn clear_to_goal(&self, at: Spot) -> bool {
        let step = if at.y == self.goal.y {
            (self.goal.x - at.x).signum() as isize
        } else {
            (self.goal.y - at.y).signum() as isize * self.width as isize
        };
        let mut pos = at.index.wrapping_add_signed(step);
        while pos != self.goal.index {
            if self.cells[pos] == BLOCK {
                return false;
            }
            pos = pos.wrapping_add_signed(step);
        }
        true
    }

    /// Throws the stone from padded index `at` by `step` per cell.
    #[inline]
    fn slide(&self, at: usize, step: isize) -> Throw {
        let mut pos = at;
        let mut cells = 0;
        loop {
            let next = pos.wrapping_add_signed(step);
            if next == self.goal.index {
                return Throw::Goal;
            }
            match self.cells[next] {
                VACANT => {
                    pos = next;
                    cells += 1;
                }
                BLOCK if cells == 0 => return Throw::Blocked,
                BLOCK => return Throw::Stopped { cells, block: next },
                _ => return Throw::Lost,
            }
        }
    }
}
