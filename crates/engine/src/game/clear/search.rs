//! The search itself: a depth-first walk over board states with an
//! explicit stack, each state's moves listed (pair by pair per type, or by
//! exploring from every tile) and ordered by [`super::prune`], every state
//! that leads nowhere remembered in [`Memo`].

use super::memo::{LineKey, Memo};
use super::{ClearOptions, Halt, MAX_PAIRS};
use crate::game::gravity::{Fall, Gravity, Removed, remove_pair_undoable};
use crate::game::link::Links;
use crate::game::moves::Explorer;
use crate::{Board, EMPTY, Match, Point, Rules, Stop};

pub(super) struct Search<'s, 'a> {
    pub(super) width: usize,
    pub(super) height: usize,
    pub(super) rules: Rules,
    pub(super) options: ClearOptions,
    pub(super) stop: &'s Stop<'a>,
    pub(super) failed: Memo,
    /// Bytes held by the move lists and undo records of the search path.
    pub(super) path_bytes: usize,
    /// The most of those that move lists may add ([`PATH_BYTES`]).
    pub(super) path_budget: usize,
    pub(super) states: u64,
    /// How many types: the cells hold types `1..=kinds`.
    pub(super) kinds: usize,
    /// The memo's key with gravity.
    pub(super) line_key: Option<LineKey>,
    /// The grid that lists moves pair by pair, when [`ClearOptions::links`]
    /// applies.
    pub(super) links: Option<Links>,
    pub(super) work: u32,
    /// The restart round: 0 keeps the plain order, later rounds another.
    pub(super) round: u32,
    /// The most states the round may enter.
    pub(super) limit: Option<u64>,
    pub(super) round_states: u64,
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
    pub(super) fn fall(&self) -> Fall {
        Fall::new(self.options.fall.gravity, self.options.fall.settle)
    }

    fn key(&self, cells: &[u32]) -> Vec<u64> {
        if self.options.fall.gravity == Gravity::None {
            let mut bits = vec![0u64; cells.len().div_ceil(64)];
            for (i, &c) in cells.iter().enumerate() {
                if c != EMPTY {
                    bits[i / 64] |= 1 << (i % 64);
                }
            }
            bits
        } else {
            self.line_key
                .as_ref()
                .expect("a key with gravity")
                .key(cells)
        }
    }

    /// How many tiles of each type are left, by type.
    pub(super) fn left(&self, cells: &[u32]) -> Vec<usize> {
        let mut left = vec![0; self.kinds + 1];
        for &c in cells.iter().filter(|&&c| c != EMPTY) {
            left[c as usize] += 1;
        }
        left
    }

    pub(super) fn same_rules_pruning(&self) -> bool {
        self.options.pruning
            && self.options.fall.gravity == Gravity::None
            && self.rules.matching == Match::Same
    }

    /// A depth-first search with an explicit stack, so its depth (half the
    /// tiles) costs heap, not the thread's stack. Only the current board is
    /// kept; each step down records how to undo itself.
    pub(super) fn run(
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
            let arrival = remove_pair_undoable(cells, self.width, a, b, self.fall());
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
        self.round_states += 1;
        if self.states % 64 == 1 {
            self.stop.check()?;
        }
        if self.options.max_states.is_some_and(|m| self.states > m) {
            return Err(Halt::Budget);
        }
        if self.limit.is_some_and(|l| self.round_states > l) {
            return Err(Halt::Limit);
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
        self.failed.insert(&key);
    }

    /// The moves to try from the state in `cells`, in order; empty when the
    /// state is dead.
    fn moves(&mut self, cells: &[u32]) -> Result<Vec<(u32, u32)>, Halt> {
        let board = Board::new(self.width, self.height, cells.to_vec()).expect("same size");
        let pairs = if self.links.is_some() {
            self.pairs_by_links(cells)?
        } else {
            Explorer::new(&board, self.rules).pairs(Some(MAX_PAIRS + 1), self.stop)?
        };
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

    /// The removable pairs, as [`Explorer::pairs`] lists them, by checking
    /// every two tiles of a type.
    fn pairs_by_links(&mut self, cells: &[u32]) -> Result<Vec<(usize, usize)>, Halt> {
        // The tiles by type (a counting sort), each type's in reading order.
        let mut start = vec![0; self.kinds + 2];
        for &c in cells.iter().filter(|&&c| c != EMPTY) {
            start[c as usize + 1] += 1;
        }
        for k in 1..start.len() {
            start[k] += start[k - 1];
        }
        let mut next = start.clone();
        let mut tiles = vec![0u32; start[self.kinds + 1]];
        for (i, &c) in cells.iter().enumerate().filter(|&(_, &c)| c != EMPTY) {
            tiles[next[c as usize]] = i as u32;
            next[c as usize] += 1;
        }
        let links = self.links.as_mut().expect("links in use");
        // The same bound as the explorer's list.
        links
            .pairs(cells, &tiles, MAX_PAIRS, self.stop, &mut self.work)?
            .ok_or(Halt::Budget)
    }

    pub(super) fn point(&self, index: usize) -> Point {
        Point::new((index % self.width) as i32, (index / self.width) as i32)
    }
}
