//! Curling 2.0 (POJ 3009): the stone slides until it hits a block, which
//! breaks, and stops on the cell before it; a stone that leaves the board is
//! lost; a stone that passes over the goal stops there.
//!
//! Every throw that does not end the game breaks one block, so no search
//! needs more throws than there are blocks, plus one. The search deepens the
//! throw limit one at a time (so the first sequence found is the shortest)
//! and cuts a branch when the stone is off the goal's row and column with
//! only one throw left.

use super::board::{Board, EMPTY, Point};
use super::stop::{Interrupted, Stop};

const STEPS: [(i32, i32); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];

pub(crate) struct Rink {
    width: i32,
    height: i32,
    block: Vec<bool>,
    blocks: usize,
}

struct Search<'a, 's> {
    rink: &'a mut Rink,
    goal: Point,
    stops: Vec<Point>,
    stop: &'a Stop<'s>,
    work: u32,
}

enum Throw {
    Goal,
    Lost,
    /// Stopped at the point, having broken the block at the index.
    Stopped(Point, usize),
}

impl Rink {
    pub fn new(board: &Board) -> Self {
        let block: Vec<bool> = board.cells().iter().map(|&c| c != EMPTY).collect();
        let blocks = block.iter().filter(|&&b| b).count();
        Rink {
            width: board.width() as i32,
            height: board.height() as i32,
            block,
            blocks,
        }
    }

    fn index(&self, p: Point) -> Option<usize> {
        (p.x >= 0 && p.y >= 0 && p.x < self.width && p.y < self.height)
            .then(|| (p.y * self.width + p.x) as usize)
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
        let mut search = Search {
            rink: self,
            goal,
            stops: vec![start],
            stop,
            work: 0,
        };
        for limit in 1..=bound {
            if search.throw_from(start, limit)? {
                return Ok(Some((limit, std::mem::take(&mut search.stops))));
            }
        }
        Ok(None)
    }
}

impl Search<'_, '_> {
    /// Whether the goal is reached from `at` in at most `left` throws; on
    /// success `stops` holds the stops.
    fn throw_from(&mut self, at: Point, left: u32) -> Result<bool, Interrupted> {
        if left == 0 {
            return Ok(false);
        }
        if left == 1 && at.x != self.goal.x && at.y != self.goal.y {
            return Ok(false);
        }
        self.stop.tick(&mut self.work)?;
        for (dx, dy) in STEPS {
            match self.slide(at, dx, dy) {
                None | Some(Throw::Lost) => {}
                Some(Throw::Goal) => {
                    self.stops.push(self.goal);
                    return Ok(true);
                }
                Some(Throw::Stopped(rest, broken)) => {
                    self.rink.block[broken] = false;
                    self.stops.push(rest);
                    let reached = self.throw_from(rest, left - 1);
                    self.rink.block[broken] = true;
                    match reached {
                        Ok(true) => return Ok(true),
                        Ok(false) => {
                            self.stops.pop();
                        }
                        Err(e) => return Err(e),
                    }
                }
            }
        }
        Ok(false)
    }

    /// Throws the stone from `at`; `None` when a block stands right beside
    /// it in that direction.
    fn slide(&self, at: Point, dx: i32, dy: i32) -> Option<Throw> {
        let mut pos = at;
        loop {
            let next = Point::new(pos.x + dx, pos.y + dy);
            let Some(i) = self.rink.index(next) else {
                return Some(Throw::Lost);
            };
            if self.rink.block[i] {
                return (pos != at).then_some(Throw::Stopped(pos, i));
            }
            if next == self.goal {
                return Some(Throw::Goal);
            }
            pos = next;
        }
    }
}
