//! Clearing a board: a depth-first search over board states for a sequence
//! that removes every tile, or a proof that none exists.
//!
//! - Memo: every state found to lead nowhere is remembered exactly (the set
//!   of occupied cells without gravity, where tiles never move; the whole
//!   board with it), so a state reached by moves in another order is not
//!   searched twice.
//! - Forced moves (no gravity, `match: same`): removing tiles only opens
//!   cells, so a removable pair of a type with exactly two tiles left can be
//!   taken at once: any clearing sequence stays one when that removal is
//!   moved to the front. The search then does not branch.
//! - Dead pairs (same conditions): a type with two tiles left that cannot
//!   connect even when every other tile is gone, or two such types that
//!   cannot connect while the other's tiles stand (each waits for the other,
//!   like the crossed pairs of `["AB", "BA"]`), end the branch.
//! - Order (without gravity): moves of the types with the fewest tiles left
//!   first, then of the types with the fewest removable pairs (the most
//!   constrained first). With gravity that order measured worse than
//!   reading order, which [`clear`] then keeps.

use super::gravity::{Gravity, Removed, remove_pair_undoable};
use super::moves::Explorer;
use crate::{Answer, Board, EMPTY, Interrupted, Match, Point, Query, Rules, Solver, Stop};
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// What the search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Clearing {
    /// A sequence of moves that removes every tile, each pair given by its
    /// cells on the board of its turn.
    Solved(Vec<(Point, Point)>),
    /// The search was exhaustive: no sequence clears the board.
    Impossible,
    /// The budget ran out first, or one state had more than [`MAX_PAIRS`]
    /// removable pairs.
    Unknown,
}

/// The answer and how many distinct board states were searched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub result: Clearing,
    pub states: u64,
}

/// How to search; the defaults are what the service uses.
#[derive(Clone, Copy, Debug)]
pub struct ClearOptions {
    pub gravity: Gravity,
    /// When to give up with [`Clearing::Unknown`].
    pub budget: Option<Instant>,
    /// Forced moves and dead pairs.
    pub pruning: bool,
    /// The most-constrained-first order, rather than reading order.
    pub ordering: bool,
}

impl Default for ClearOptions {
    fn default() -> Self {
        ClearOptions {
            gravity: Gravity::None,
            budget: None,
            pruning: true,
            ordering: true,
        }
    }
}

/// Clears `board` under `rules` with `gravity`, giving up at `budget`.
/// `stop` is the caller's own deadline or cancellation, reported as an
/// error rather than [`Clearing::Unknown`].
pub fn clear(
    board: &Board,
    rules: &Rules,
    gravity: Gravity,
    budget: Option<Instant>,
    stop: &Stop,
) -> Result<Outcome, Interrupted> {
    // The move order measured better without gravity and worse with it
    // (BENCHMARKS.md), so with gravity moves are tried in reading order.
    let options = ClearOptions {
        gravity,
        budget,
        ordering: gravity == Gravity::None,
        ..ClearOptions::default()
    };
    clear_with(board, rules, &options, stop)
}

/// The most bytes the memo of failed states may hold; past it the search
/// goes on without remembering more, still exact.
const MEMO_BYTES: usize = 32 << 20;

/// The most bytes the search path may hold in move lists kept for
/// backtracking; past it a state's list is computed again when the search
/// returns to it.
const PATH_BYTES: usize = 16 << 20;

/// The most removable pairs one state may have (with `match: any` and no
/// turn limit, every two tiles of a region): past it the answer is
/// [`Clearing::Unknown`] rather than a list that grows with the square of
/// the tiles.
pub const MAX_PAIRS: usize = 1 << 20;

/// [`clear`] with every option.
pub fn clear_with(
    board: &Board,
    rules: &Rules,
    options: &ClearOptions,
    stop: &Stop,
) -> Result<Outcome, Interrupted> {
    clear_within(board, rules, options, stop, PATH_BYTES)
}

/// [`clear_with`], keeping move lists along the path up to `path_budget`
/// bytes.
fn clear_within(
    board: &Board,
    rules: &Rules,
    options: &ClearOptions,
    stop: &Stop,
    path_budget: usize,
) -> Result<Outcome, Interrupted> {
    let mut types: Vec<u32> = board
        .cells()
        .iter()
        .copied()
        .filter(|&c| c != EMPTY)
        .collect();
    let tiles = types.len();
    types.sort_unstable();
    // Tiles go in pairs: an odd count (of a type, or of all tiles when any
    // two match) always leaves one behind.
    let odd = match rules.matching {
        Match::Same => types.chunk_by(|a, b| a == b).any(|run| run.len() % 2 != 0),
        Match::Any => types.len() % 2 != 0,
    };
    if odd {
        return Ok(Outcome {
            result: Clearing::Impossible,
            states: 0,
        });
    }
    types.dedup();
    // The budget is a deadline of its own inside the caller's: every loop
    // of the search polls it, not only the step between two states.
    let budgeted = options.budget.map_or(*stop, |b| stop.sooner(b));
    let mut search = Search {
        width: board.width(),
        height: board.height(),
        rules: *rules,
        options: *options,
        stop: &budgeted,
        failed: HashSet::new(),
        memo_bytes: 0,
        path_bytes: 0,
        path_budget,
        states: 0,
        narrow: types.len() < 256,
        dense: types
            .iter()
            .enumerate()
            .map(|(i, &t)| (t, i as u32 + 1))
            .collect(),
    };
    let mut sequence = Vec::new();
    let mut cells = board.cells().to_vec();
    let out_of_budget = || options.budget.is_some_and(|b| Instant::now() >= b);
    let result = match search.run(&mut cells, tiles, &mut sequence) {
        Ok(true) => Clearing::Solved(sequence),
        Ok(false) => Clearing::Impossible,
        Err(Halt::Budget) => Clearing::Unknown,
        Err(Halt::Stop(Interrupted::Deadline)) if out_of_budget() => Clearing::Unknown,
        Err(Halt::Stop(e)) => return Err(e),
    };
    Ok(Outcome {
        result,
        states: search.states,
    })
}

enum Halt {
    Budget,
    Stop(Interrupted),
}

impl From<Interrupted> for Halt {
    fn from(e: Interrupted) -> Self {
        Halt::Stop(e)
    }
}

struct Search<'s, 'a> {
    width: usize,
    height: usize,
    rules: Rules,
    options: ClearOptions,
    stop: &'s Stop<'a>,
    failed: HashSet<Vec<u8>>,
    /// Bytes held by the keys of `failed`.
    memo_bytes: usize,
    /// Bytes held by the move lists and undo records of the search path.
    path_bytes: usize,
    /// The most of those that move lists may add ([`PATH_BYTES`]).
    path_budget: usize,
    states: u64,
    /// Whether every type fits a byte in the memo key.
    narrow: bool,
    dense: HashMap<u32, u32>,
}

/// A state on the search path.
struct Frame {
    /// The moves to try here, in order; `None` once dropped, to be computed
    /// again.
    moves: Option<Vec<(u32, u32)>>,
    /// Whether the path had room to keep `moves` past the first try.
    keep: bool,
    /// The next move to try.
    next: usize,
    /// The move that led here from the state below, to undo on the way back.
    arrival: Option<Removed>,
}

impl Frame {
    fn bytes(&self) -> usize {
        let moves = self.moves.as_ref().filter(|_| self.keep);
        moves.map_or(0, |m| m.len() * 8) + self.arrival.as_ref().map_or(0, Removed::heap_bytes)
    }
}

impl Search<'_, '_> {
    fn key(&self, cells: &[u32]) -> Vec<u8> {
        if self.options.gravity == Gravity::None {
            let mut bits = vec![0u8; cells.len().div_ceil(8)];
            for (i, &c) in cells.iter().enumerate() {
                if c != EMPTY {
                    bits[i / 8] |= 1 << (i % 8);
                }
            }
            bits
        } else if self.narrow {
            cells
                .iter()
                .map(|c| self.dense.get(c).map_or(0, |&d| d as u8))
                .collect()
        } else {
            cells.iter().flat_map(|c| c.to_le_bytes()).collect()
        }
    }

    fn same_rules_pruning(&self) -> bool {
        self.options.pruning
            && self.options.gravity == Gravity::None
            && self.rules.matching == Match::Same
    }

    /// A depth-first search with an explicit stack, so its depth (half the
    /// tiles) costs heap, not the thread's stack. Only the current board is
    /// kept; each step down records how to undo itself.
    fn run(
        &mut self,
        cells: &mut [u32],
        mut tiles: usize,
        sequence: &mut Vec<(Point, Point)>,
    ) -> Result<bool, Halt> {
        if tiles == 0 {
            return Ok(true);
        }
        let mut path = vec![self.enter(cells, None)?];
        while let Some(frame) = path.last_mut() {
            let next = match &frame.moves {
                Some(moves) => moves.get(frame.next).copied(),
                None => self.moves(cells)?.get(frame.next).copied(),
            };
            frame.next += 1;
            if !frame.keep {
                frame.moves = None;
            }
            let Some((a, b)) = next else {
                let frame = path.pop().expect("the last frame");
                self.path_bytes -= frame.bytes();
                self.remember(cells);
                if let Some(arrival) = frame.arrival {
                    arrival.undo(cells);
                    sequence.pop();
                    tiles += 2;
                }
                continue;
            };
            let (a, b) = (a as usize, b as usize);
            let arrival = remove_pair_undoable(cells, self.width, a, b, self.options.gravity);
            sequence.push((self.point(a), self.point(b)));
            tiles -= 2;
            if tiles == 0 {
                return Ok(true);
            }
            if self.failed.contains(&self.key(cells)) {
                arrival.undo(cells);
                sequence.pop();
                tiles += 2;
                continue;
            }
            let frame = self.enter(cells, Some(arrival))?;
            path.push(frame);
        }
        Ok(false)
    }

    /// A new state on the path: counted, the deadline and budget polled,
    /// its moves listed.
    fn enter(&mut self, cells: &[u32], arrival: Option<Removed>) -> Result<Frame, Halt> {
        self.states += 1;
        if self.states % 64 == 1 {
            self.stop.check()?;
        }
        let moves = self.moves(cells)?;
        let mut frame = Frame {
            moves: Some(moves),
            keep: true,
            next: 0,
            arrival,
        };
        if self.path_bytes + frame.bytes() > self.path_budget {
            frame.keep = false;
        }
        self.path_bytes += frame.bytes();
        Ok(frame)
    }

    /// Remembers the state in `cells` as one that leads nowhere, while the
    /// memo has room.
    fn remember(&mut self, cells: &[u32]) {
        let key = self.key(cells);
        // A set entry costs about its key and a pointer-sized slot twice.
        let bytes = key.len() + 48;
        if self.memo_bytes + bytes <= MEMO_BYTES {
            self.memo_bytes += bytes;
            self.failed.insert(key);
        }
    }

    /// The moves to try from the state in `cells`, in order; empty when the
    /// state is dead.
    fn moves(&self, cells: &[u32]) -> Result<Vec<(u32, u32)>, Halt> {
        let board = Board::new(self.width, self.height, cells.to_vec()).expect("same size");
        let mut explorer = Explorer::new(&board, self.rules);
        let pairs = explorer.pairs(Some(MAX_PAIRS + 1), self.stop)?;
        drop(explorer);
        if pairs.len() > MAX_PAIRS {
            return Err(Halt::Budget);
        }
        let ordered = if pairs.is_empty() {
            Vec::new()
        } else {
            self.order(&board, pairs)?
        };
        Ok(ordered
            .into_iter()
            .map(|(a, b)| (a as u32, b as u32))
            .collect())
    }

    fn point(&self, index: usize) -> Point {
        Point::new((index % self.width) as i32, (index / self.width) as i32)
    }

    /// The moves to try, in order; empty when the state is dead.
    fn order(
        &self,
        board: &Board,
        mut pairs: Vec<(usize, usize)>,
    ) -> Result<Vec<(usize, usize)>, Halt> {
        let cells = board.cells();
        let mut left: HashMap<u32, usize> = HashMap::new();
        for &c in cells.iter().filter(|&&c| c != EMPTY) {
            *left.entry(c).or_default() += 1;
        }
        if self.same_rules_pruning() {
            if let Some(&forced) = pairs.iter().find(|&&(a, _)| left[&cells[a]] == 2) {
                return Ok(vec![forced]);
            }
            if self.dead(board, &left)? {
                return Ok(Vec::new());
            }
        }
        if self.options.ordering {
            let mut open: HashMap<u32, usize> = HashMap::new();
            for &(a, _) in &pairs {
                *open.entry(cells[a]).or_default() += 1;
            }
            // Stable: reading order breaks ties.
            pairs.sort_by_key(|&(a, _)| (left[&cells[a]], open[&cells[a]]));
        }
        Ok(pairs)
    }

    /// Whether some type with two tiles left can never be removed (see the
    /// module docs). Only called without gravity, where tiles never move.
    fn dead(&self, board: &Board, left: &HashMap<u32, usize>) -> Result<bool, Interrupted> {
        let cells = board.cells();
        let mut two: HashMap<u32, Vec<usize>> = HashMap::new();
        for (i, &c) in cells.iter().enumerate() {
            if c != EMPTY && left[&c] == 2 {
                two.entry(c).or_default().push(i);
            }
        }
        let mut blocked: Vec<[usize; 2]> = Vec::new();
        let mut solver = Solver::new(board, self.rules);
        let mut kinds: Vec<_> = two.into_values().collect();
        kinds.sort_unstable();
        for tiles in kinds {
            let [a, b] = [tiles[0], tiles[1]];
            let connected = solver
                .answer(Query::new(self.point(a), self.point(b)), self.stop)?
                .segments()
                .is_some();
            if !connected {
                blocked.push([a, b]);
            }
        }
        // Bounded work per state: the pairwise check is quadratic.
        blocked.truncate(12);
        let alone = |tiles: &[usize]| -> Result<bool, Interrupted> {
            let mut only = vec![EMPTY; cells.len()];
            for &t in tiles {
                only[t] = cells[t];
            }
            let only = Board::new(self.width, self.height, only).expect("same size");
            let mut solver = Solver::new(&only, self.rules);
            let answer = solver.answer(
                Query::new(self.point(tiles[0]), self.point(tiles[1])),
                self.stop,
            )?;
            Ok(matches!(answer, Answer::Connected(_)))
        };
        for p in &blocked {
            if !alone(p)? {
                return Ok(true);
            }
        }
        for (i, p) in blocked.iter().enumerate() {
            for q in &blocked[i + 1..] {
                let both = [p[0], p[1], q[0], q[1]];
                if !alone(&both)? && !alone(&[q[0], q[1], p[0], p[1]])? {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Preset;
    use crate::game::rng::SplitMix64;

    /// Move lists computed again, when the path keeps none, give the same
    /// search: the same answer and the same number of states.
    #[test]
    fn a_path_that_keeps_no_move_list_searches_the_same() {
        let mut rng = SplitMix64::new(11);
        for _ in 0..300 {
            let (w, h) = (2 + rng.below(5), 2 + rng.below(4));
            let mut cells: Vec<u32> = (0..w * h).map(|i| (i / 2 % 4) as u32 + 1).collect();
            for c in cells.iter_mut().filter(|_| rng.below(4) == 0) {
                *c = EMPTY;
            }
            rng.shuffle(&mut cells);
            let board = Board::new(w, h, cells).unwrap();
            for preset in [Preset::ShisenSho, Preset::Lianliankan, Preset::Mahjong] {
                for gravity in [Gravity::None, Gravity::Down] {
                    let options = ClearOptions {
                        gravity,
                        ..ClearOptions::default()
                    };
                    let rules = preset.rules();
                    let kept = clear_within(&board, &rules, &options, &Stop::never(), PATH_BYTES);
                    let again = clear_within(&board, &rules, &options, &Stop::never(), 0);
                    assert_eq!(kept, again, "{board:?} {preset:?} {gravity:?}");
                }
            }
        }
    }
}
