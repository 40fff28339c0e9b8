//! Curling 2.0 (POJ 3009): the stone slides until it hits a block, which
//! breaks, and stops on the cell before it; a stone that leaves the board is
//! lost; a stone that passes over the goal stops there.
//!
//! Every throw that does not end the game breaks one block, so no search
//! needs more throws than there are blocks, plus one. The search is one
//! depth-first pass in the order of directions; once it reaches the goal it
//! keeps that sequence and looks only for shorter ones, so of the shortest
//! sequences the first in that order wins. The last throws are worked out
//! apart: with one or two left, the finish is read off the blocks without
//! throwing (the stone must see the goal down a clear row or column, or stop
//! on such a line first); with three left, each throw and then that.
//!
//! The rink is kept as bit rows and bit columns of blocks, so a throw is a
//! search for the next set bit along its row or column: a word or two per
//! throw on the judge's 20 × 20 rinks, whatever the distance slid, and
//! breaking a block clears one bit in each. A rink whose rows and columns
//! each fit in one word (up to 64 × 64) is searched by code compiled for
//! that case (`NARROW`), which reads a line's word without working out
//! where its words start.

use super::board::{Board, EMPTY, Point};
use super::stop::{Interrupted, Stop};

/// The four throws as (dx, dy).
const STEPS: [(i32, i32); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];

/// Blocks as bits: row `y` is `rows[y * row_words..][..row_words]`, bit `x`
/// set when a block stands at (x, y); columns the same way round.
pub(crate) struct Rink {
    width: usize,
    height: usize,
    row_words: usize,
    column_words: usize,
    rows: Vec<u64>,
    columns: Vec<u64>,
    blocks: usize,
}

/// Where the stone rests.
#[derive(Clone, Copy)]
struct Spot {
    x: usize,
    y: usize,
}

struct Search<'a, 's, const NARROW: bool> {
    rink: &'a mut Rink,
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
    /// Stopped at `rest`, beside the block at `block`.
    Stopped {
        rest: Spot,
        block: Spot,
    },
}

impl Rink {
    pub fn new(board: &Board) -> Self {
        let (width, height) = (board.width(), board.height());
        let (row_words, column_words) = (width.div_ceil(64), height.div_ceil(64));
        let mut rink = Rink {
            width,
            height,
            row_words,
            column_words,
            rows: vec![0; height * row_words],
            columns: vec![0; width * column_words],
            blocks: 0,
        };
        for (i, &cell) in board.cells().iter().enumerate() {
            if cell != EMPTY {
                // The general indexing, right for narrow rinks too.
                rink.toggle::<false>(Spot {
                    x: i % width,
                    y: i / width,
                });
                rink.blocks += 1;
            }
        }
        rink
    }

    /// Puts a block at `at`, or takes it away.
    #[inline]
    fn toggle<const NARROW: bool>(&mut self, at: Spot) {
        let (row_word, column_word) = if NARROW {
            (at.y, at.x)
        } else {
            (
                at.y * self.row_words + at.x / 64,
                at.x * self.column_words + at.y / 64,
            )
        };
        self.rows[row_word] ^= 1 << (at.x % 64);
        self.columns[column_word] ^= 1 << (at.y % 64);
    }

    /// Whether a block stands at (`x`, `y`); off the rink, none does.
    #[inline]
    fn is_block<const NARROW: bool>(&self, x: usize, y: usize) -> bool {
        x < self.width && y < self.height && self.row::<NARROW>(y)[x / 64] & (1 << (x % 64)) != 0
    }

    #[inline]
    fn row<const NARROW: bool>(&self, y: usize) -> &[u64] {
        if NARROW {
            return std::slice::from_ref(&self.rows[y]);
        }
        &self.rows[y * self.row_words..][..self.row_words]
    }

    #[inline]
    fn column<const NARROW: bool>(&self, x: usize) -> &[u64] {
        if NARROW {
            return std::slice::from_ref(&self.columns[x]);
        }
        &self.columns[x * self.column_words..][..self.column_words]
    }

    /// The nearest block from the stone at `at` thrown by (`dx`, `dy`), as
    /// its position along that row or column; `None` when the throw meets
    /// no block before the edge.
    #[inline(always)]
    fn next_block<const NARROW: bool>(&self, at: Spot, (dx, dy): (i32, i32)) -> Option<usize> {
        match (dx, dy) {
            (1, _) => first_at_or_after(self.row::<NARROW>(at.y), at.x + 1),
            (-1, _) => last_before(self.row::<NARROW>(at.y), at.x),
            (_, 1) => first_at_or_after(self.column::<NARROW>(at.x), at.y + 1),
            _ => last_before(self.column::<NARROW>(at.x), at.y),
        }
    }

    /// The four throws from `at`, in the order of [`STEPS`]. Written out
    /// over the constant steps, not thrown in a loop, so that the compiler
    /// folds each step into its own copy of the throw; `STEPS.map` did so
    /// only while the engine and its callers were one crate (in its own
    /// crate it left an out-of-line closure call per throw, 1.3× the
    /// curling judge's time).
    #[inline(always)]
    fn throws<const NARROW: bool>(&self, at: Spot, goal: Spot) -> [Throw; 4] {
        [
            self.throw::<NARROW>(at, STEPS[0], goal),
            self.throw::<NARROW>(at, STEPS[1], goal),
            self.throw::<NARROW>(at, STEPS[2], goal),
            self.throw::<NARROW>(at, STEPS[3], goal),
        ]
    }

    /// Throws the stone from `at` by (`dx`, `dy`); `goal` is where it stops
    /// if it passes over.
    #[inline(always)]
    fn throw<const NARROW: bool>(&self, at: Spot, step: (i32, i32), goal: Spot) -> Throw {
        let block = self.next_block::<NARROW>(at, step);
        // Positions along the line of the throw: the stone's, the goal's
        // when it lies on that line ahead, and the block's.
        let (along, goal_along) = if step.0 != 0 {
            (at.x, (goal.y == at.y).then_some(goal.x))
        } else {
            (at.y, (goal.x == at.x).then_some(goal.y))
        };
        let ahead = |p: usize| {
            if step.0 + step.1 > 0 {
                p > along
            } else {
                p < along
            }
        };
        let before_block =
            |p: usize| block.is_none_or(|b| if step.0 + step.1 > 0 { p < b } else { p > b });
        if goal_along.is_some_and(|g| ahead(g) && before_block(g)) {
            return Throw::Goal;
        }
        let Some(b) = block else {
            return Throw::Lost;
        };
        if b.abs_diff(along) == 1 {
            return Throw::Blocked;
        }
        let rest_along = b.wrapping_add_signed(-(step.0 + step.1) as isize);
        if step.0 != 0 {
            Throw::Stopped {
                rest: Spot {
                    x: rest_along,
                    y: at.y,
                },
                block: Spot { x: b, y: at.y },
            }
        } else {
            Throw::Stopped {
                rest: Spot {
                    x: at.x,
                    y: rest_along,
                },
                block: Spot { x: at.x, y: b },
            }
        }
    }

    /// Whether no block stands between `at` and `goal`, which share a row
    /// or a column.
    #[inline]
    fn clear_between<const NARROW: bool>(&self, at: Spot, goal: Spot) -> bool {
        let (line, from, to) = if at.y == goal.y {
            (self.row::<NARROW>(at.y), at.x.min(goal.x), at.x.max(goal.x))
        } else {
            (
                self.column::<NARROW>(at.x),
                at.y.min(goal.y),
                at.y.max(goal.y),
            )
        };
        first_at_or_after(line, from + 1).is_none_or(|b| b >= to)
    }

    /// The best finish from `at` in at most two throws, in the order of
    /// [`STEPS`]: `Some(None)` straight to the goal, `Some(Some(via))` by a
    /// stop at `via` on the goal's row or column in clear view of it.
    ///
    /// On the goal's line, only the throw along it towards the goal can
    /// help: it reaches the goal when nothing stands between, or stops
    /// before the one block between (which breaks) when there is exactly
    /// one and it is not right beside the stone. Off both lines, a throw
    /// towards the goal's column must stop on it, so its first block is the
    /// cell just beyond; likewise towards the goal's row.
    fn two_throws<const NARROW: bool>(&self, at: Spot, goal: Spot) -> Option<Option<Spot>> {
        let (dx, dy) = (
            (goal.x as i32 - at.x as i32).signum(),
            (goal.y as i32 - at.y as i32).signum(),
        );
        // Cells on the line of a throw by `step` from `at`, by position.
        let on_line = |step: (i32, i32), p: usize| {
            if step.0 != 0 {
                Spot { x: p, y: at.y }
            } else {
                Spot { x: at.x, y: p }
            }
        };
        if dx == 0 || dy == 0 {
            let step = (dx, dy);
            let (from, to) = if dx != 0 {
                (at.x, goal.x)
            } else {
                (at.y, goal.y)
            };
            let between = |b: usize| if to > from { b < to } else { b > to };
            return match self.next_block::<NARROW>(at, step).filter(|&b| between(b)) {
                None => Some(None),
                Some(b) if b.abs_diff(from) == 1 => None,
                Some(b)
                    if self
                        .next_block::<NARROW>(on_line(step, b), step)
                        .is_some_and(between) =>
                {
                    None
                }
                Some(b) => Some(Some(on_line(
                    step,
                    b.wrapping_add_signed(-(dx + dy) as isize),
                ))),
            };
        }
        let across = (on_line((dx, 0), goal.x), (dx, 0));
        let down = (on_line((0, dy), goal.y), (0, dy));
        // In the order of STEPS: right, down, left, up.
        let (first, second) = if dx > 0 || dy < 0 {
            (across, down)
        } else {
            (down, across)
        };
        if self.lands::<NARROW>(at, first.1, first.0, goal) {
            Some(Some(first.0))
        } else if self.lands::<NARROW>(at, second.1, second.0, goal) {
            Some(Some(second.0))
        } else {
            None
        }
    }

    /// Whether a throw from `at` by `step` stops at `via` on the goal's line
    /// (its first block is the cell just beyond) in clear view of the goal.
    #[inline(always)]
    fn lands<const NARROW: bool>(&self, at: Spot, step: (i32, i32), via: Spot, goal: Spot) -> bool {
        let beyond = if step.0 != 0 {
            via.x.wrapping_add_signed(step.0 as isize)
        } else {
            via.y.wrapping_add_signed(step.1 as isize)
        };
        self.next_block::<NARROW>(at, step) == Some(beyond)
            && self.clear_between::<NARROW>(via, goal)
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
        let spot = |p: Point| Spot {
            x: p.x as usize,
            y: p.y as usize,
        };
        let (start, goal) = (spot(start), spot(goal));
        debug_assert!(start.x < self.width && start.y < self.height);
        let best = if self.row_words == 1 && self.column_words == 1 {
            Search::<true>::new(self, start, goal, bound, stop).run()?
        } else {
            Search::<false>::new(self, start, goal, bound, stop).run()?
        };
        Ok(best.map(|stops| {
            let throws = stops.len() as u32 - 1;
            let point = |s: &Spot| Point::new(s.x as i32, s.y as i32);
            (throws, stops.iter().map(point).collect())
        }))
    }
}

/// The first set bit at position `from` or after, if any.
#[inline]
fn first_at_or_after(words: &[u64], from: usize) -> Option<usize> {
    if let [word] = words {
        let word = word & (!0u64).checked_shl(from as u32).unwrap_or(0);
        return (word != 0).then(|| word.trailing_zeros() as usize);
    }
    let mut w = from / 64;
    let mut word = *words.get(w)? & (!0u64 << (from % 64));
    loop {
        if word != 0 {
            return Some(w * 64 + word.trailing_zeros() as usize);
        }
        w += 1;
        word = *words.get(w)?;
    }
}

/// The last set bit before position `to`, if any.
#[inline]
fn last_before(words: &[u64], to: usize) -> Option<usize> {
    if to == 0 {
        return None;
    }
    let last = to - 1;
    if let [word] = words {
        let word = word & (!0u64 >> (63 - last));
        return (word != 0).then(|| 63 - word.leading_zeros() as usize);
    }
    let mut w = last / 64;
    let mut word = words[w] & (!0u64 >> (63 - last % 64));
    loop {
        if word != 0 {
            return Some(w * 64 + 63 - word.leading_zeros() as usize);
        }
        w = w.checked_sub(1)?;
        word = words[w];
    }
}

impl<'a, 's, const NARROW: bool> Search<'a, 's, NARROW> {
    fn new(rink: &'a mut Rink, start: Spot, goal: Spot, limit: u32, stop: &'a Stop<'s>) -> Self {
        Search {
            rink,
            goal,
            stops: vec![start],
            limit,
            best: None,
            stop,
            work: 0,
        }
    }

    /// The stops of the best sequence, start and goal included.
    fn run(mut self) -> Result<Option<Vec<Spot>>, Interrupted> {
        let start = self.stops[0];
        self.throw_from(start, 0)?;
        Ok(self.best)
    }

    /// Searches every sequence from `at` (after `thrown` throws) that could
    /// beat the best found so far, in order of directions, so the first
    /// sequence found of each length is the first in that order.
    fn throw_from(&mut self, at: Spot, thrown: u32) -> Result<(), Interrupted> {
        match self.limit.saturating_sub(thrown) {
            0 => return Ok(()),
            1 => {
                self.finish_in_one(at);
                return Ok(());
            }
            2 => {
                self.finish_in_two(at);
                return Ok(());
            }
            3 => {
                self.finish_in_three(at);
                return Ok(());
            }
            _ => {}
        }
        self.stop.tick(&mut self.work)?;
        for throw in self.rink.throws::<NARROW>(at, self.goal) {
            let left = self.limit.saturating_sub(thrown);
            if left == 0 {
                break; // a sequence this short was just found
            }
            if let Throw::Stopped { rest, block } = throw {
                self.rink.toggle::<NARROW>(block);
                self.stops.push(rest);
                let searched = self.throw_from(rest, thrown + 1);
                self.stops.pop();
                self.rink.toggle::<NARROW>(block);
                searched?;
            } else if let Throw::Goal = throw {
                self.found();
            }
        }
        Ok(())
    }

    /// The last throw must fly straight over the goal.
    fn finish_in_one(&mut self, at: Spot) {
        let goal = self.goal;
        if (at.x == goal.x || at.y == goal.y) && self.rink.clear_between::<NARROW>(at, goal) {
            self.found();
        }
    }

    /// Two throws left: straight to the goal, or onto the goal's row or
    /// column in clear view of it and then to the goal.
    fn finish_in_two(&mut self, at: Spot) {
        if let Some(via) = self.rink.two_throws::<NARROW>(at, self.goal) {
            self.finish_in_two_via(via);
        }
    }

    /// Keeps a finish from the last stop: straight to the goal (`None`), or
    /// through a stop at `via`.
    fn finish_in_two_via(&mut self, via: Option<Spot>) {
        if let Some(via) = via {
            self.stops.push(via);
            self.found();
            self.stops.pop();
        } else {
            self.found();
        }
    }

    /// Three throws left: each throw in turn, then the last two from where
    /// it stops, read off the bits. Of the finishes, the fewest throws win,
    /// the first in the order of throws among equals, as the general
    /// search would find them; the stone's stops are kept only for it.
    fn finish_in_three(&mut self, at: Spot) {
        let goal = self.goal;
        // Throws of the best finish, and the stops after `at` it takes.
        let mut best: Option<(u32, Spot, Option<Spot>)> = None;
        for throw in self.rink.throws::<NARROW>(at, goal) {
            if let Throw::Stopped { rest, block } = throw {
                // Unless neither of the two throws left can help (the block
                // just broken lies beside `rest`, off the cells this looks at).
                if self.may_finish_in_two_from(rest) {
                    self.rink.toggle::<NARROW>(block);
                    let finish = self.rink.two_throws::<NARROW>(rest, goal);
                    self.rink.toggle::<NARROW>(block);
                    if let Some(via) = finish {
                        let throws = if via.is_some() { 3 } else { 2 };
                        if best.is_none_or(|(fewest, ..)| throws < fewest) {
                            best = Some((throws, rest, via));
                        }
                    }
                }
            } else if let Throw::Goal = throw {
                self.found();
                return;
            }
        }
        if let Some((_, rest, via)) = best {
            self.stops.push(rest);
            self.finish_in_two_via(via);
            self.stops.pop();
        }
    }

    /// Whether two throws from `at` may reach the goal, by a cheap test:
    /// on the goal's row or column, or with a block just beyond the goal's
    /// column in `at`'s row or just beyond its row in `at`'s column, which
    /// [`Rink::two_throws`] needs off both lines.
    fn may_finish_in_two_from(&self, at: Spot) -> bool {
        let goal = self.goal;
        let beyond =
            |from: usize, to: usize| to.wrapping_add_signed((to as isize - from as isize).signum());
        at.x == goal.x
            || at.y == goal.y
            || self.rink.is_block::<NARROW>(beyond(at.x, goal.x), at.y)
            || self.rink.is_block::<NARROW>(at.x, beyond(at.y, goal.y))
    }

    /// Keeps the current stops plus the goal as the best sequence; only
    /// shorter ones are searched from now on.
    fn found(&mut self) {
        let mut stops = self.stops.clone();
        stops.push(self.goal);
        self.limit = stops.len() as u32 - 2;
        self.best = Some(stops);
    }
}
