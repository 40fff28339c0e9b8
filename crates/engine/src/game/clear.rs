//! Clearing a board: a depth-first search over board states for a sequence
//! that removes every tile, or a proof that none exists.
//!
//! - Memo: every state found to lead nowhere is remembered exactly (the set
//!   of occupied cells without gravity, where tiles never move; with it,
//!   which of each line's starting tiles are left, [`LineKey`]: a bit a
//!   tile, so the memo's fixed room holds eight times the states a copy
//!   of the board would; the keys sit in one array, [`Memo`]), so a state
//!   reached by moves in another order is not searched twice.
//! - Types renumbered `1..=n` at the start, so counts per type are array
//!   slots rather than hash-map entries.
//! - Moves (`match: same`, at most [`MAX_COPIES`] tiles a type): the pairs
//!   of each type checked one by one ([`Links`]), which lists the same
//!   moves as exploring from every tile, faster.
//! - Forced moves (no gravity, `match: same`): removing tiles only opens
//!   cells, so a removable pair of a type with exactly two tiles left can be
//!   taken at once: any clearing sequence stays one when that removal is
//!   moved to the front. The search then does not branch.
//! - Whole types (`match: same`): likewise when every tile left of a type
//!   pairs off into pairs removable now. With gravity only when those
//!   removals move no other tile: the tiles removed have nothing beyond
//!   them on their lines, so every later board holds the other tiles in
//!   the same cells with or without them.
//! - Dead ends (no gravity, `match: same`): the types with two tiles left
//!   cannot all be removed even with every other tile gone (greedily,
//!   which is exact when removals only open cells): the real board only
//!   has more tiles in the way. This covers a pair that cannot connect
//!   alone and crossed pairs like those of `["AB", "BA"]`.
//! - Order (without gravity): moves of the types with the fewest tiles left
//!   first, then of the types with the fewest removable pairs (the most
//!   constrained first). With gravity that order measured worse than
//!   reading order, which [`clear`] then keeps.
//! - Settling ([`Fall::settle`]): the first removal settles every line, and
//!   its undo record copies the board once; a settled board stays settled
//!   and falls the same in both modes, so the rest of the search is the
//!   same.
//! - Restarts (with gravity): rounds whose state limit doubles, each in
//!   another fixed order, keeping the states proved to lead nowhere; the
//!   last round runs to the budget, so answers stay exact.

use super::gravity::{Fall, Gravity, Removed, line_cells, remove_pair, remove_pair_undoable};
use super::link::Links;
use super::moves::Explorer;
use super::pairing::{MAX_COPIES, Pairing, perfect_pairing};
use crate::{Answer, Board, EMPTY, Interrupted, Match, Point, Query, Rules, Solver, Stop};
use std::collections::HashMap;
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
    /// Why the answer needed no search, when it did not.
    pub decided: Option<Decided>,
}

/// An answer read off the tile counts, before any search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decided {
    /// No tiles: the board is cleared already.
    NoTiles,
    /// With `match: same`, `kind` has an odd number of tiles, so one is
    /// always left (the smallest such type).
    OddType { kind: u32, tiles: usize },
    /// With `match: any`, an odd number of tiles, so one is always left.
    OddTiles { tiles: usize },
}

/// How to search; the defaults are what the service uses.
#[derive(Clone, Copy, Debug)]
pub struct ClearOptions {
    /// Where tiles fall, and whether every line settles after each removal.
    pub fall: Fall,
    /// When to give up with [`Clearing::Unknown`].
    pub budget: Option<Instant>,
    /// The most states to search before giving up with
    /// [`Clearing::Unknown`]: a budget that does not depend on the
    /// machine's speed.
    pub max_states: Option<u64>,
    /// Forced moves and dead pairs.
    pub pruning: bool,
    /// The most-constrained-first order, rather than reading order.
    pub ordering: bool,
    /// Without gravity and with `match: same`, search over partners rather
    /// than move orders ([`super::pairing`]). Off: it measured slower to
    /// prove boards impossible (BENCHMARKS.md).
    pub pairing: bool,
    /// With `match: same`, remove at once a type whose tiles pair off
    /// into joinable pairs that move no other tile (without gravity, any).
    pub whole_type: bool,
    /// Without gravity, end a branch when the types with two tiles left
    /// cannot all be removed even with every other tile gone (rather than
    /// checking single pairs and two crossed pairs).
    pub relaxed: bool,
    /// Restart the search with a state limit that doubles each time and
    /// another move order, keeping what was proved.
    pub restarts: bool,
    /// With `match: same`, list a state's moves by checking the pairs of
    /// each type rather than exploring from every tile.
    pub links: bool,
}

impl ClearOptions {
    /// The service's options for `fall`. The move order measured better
    /// without gravity and worse with it (BENCHMARKS.md), so with gravity
    /// moves are tried in reading order.
    pub fn for_fall(fall: impl Into<Fall>) -> Self {
        let fall = fall.into();
        ClearOptions {
            fall,
            ordering: fall.gravity == Gravity::None,
            ..ClearOptions::default()
        }
    }
}

impl Default for ClearOptions {
    fn default() -> Self {
        ClearOptions {
            fall: Fall::default(),
            budget: None,
            max_states: None,
            pruning: true,
            ordering: true,
            pairing: false,
            whole_type: true,
            relaxed: true,
            restarts: true,
            links: true,
        }
    }
}

/// Clears `board` under `rules` with `fall` (a [`Gravity`] alone does not
/// settle), giving up at `budget`. `stop` is the caller's own deadline or
/// cancellation, reported as an error rather than [`Clearing::Unknown`].
pub fn clear(
    board: &Board,
    rules: &Rules,
    fall: impl Into<Fall>,
    budget: Option<Instant>,
    stop: &Stop,
) -> Result<Outcome, Interrupted> {
    let options = ClearOptions {
        budget,
        ..ClearOptions::for_fall(fall)
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
        Match::Same => types
            .chunk_by(|a, b| a == b)
            .find(|run| run.len() % 2 != 0)
            .map(|run| Decided::OddType {
                kind: run[0],
                tiles: run.len(),
            }),
        Match::Any => (tiles % 2 != 0).then_some(Decided::OddTiles { tiles }),
    };
    if let Some(decided) = odd {
        return Ok(Outcome {
            result: Clearing::Impossible,
            states: 0,
            decided: Some(decided),
        });
    }
    if tiles == 0 {
        return Ok(Outcome {
            result: Clearing::Solved(Vec::new()),
            states: 0,
            decided: Some(Decided::NoTiles),
        });
    }
    let most_copies = types.chunk_by(|a, b| a == b).map(<[u32]>::len).max();
    types.dedup();
    // The budget is a deadline of its own inside the caller's: every loop
    // of the search polls it, not only the step between two states.
    let budgeted = options.budget.map_or(*stop, |b| stop.sooner(b));
    let out_of_budget = || options.budget.is_some_and(|b| Instant::now() >= b);
    if options.pairing
        && options.fall.gravity == Gravity::None
        && rules.matching == Match::Same
        && most_copies.unwrap_or(0) <= MAX_COPIES
    {
        let mut pairing = Pairing::new(board.width(), board.cells(), rules, &budgeted);
        let w = board.width();
        let point = |i: usize| Point::new((i % w) as i32, (i / w) as i32);
        let result = match pairing.run() {
            Ok(Some(sequence)) => Clearing::Solved(
                sequence
                    .into_iter()
                    .map(|(a, b)| (point(a), point(b)))
                    .collect(),
            ),
            Ok(None) => Clearing::Impossible,
            Err(Interrupted::Deadline) if out_of_budget() => Clearing::Unknown,
            Err(e) => return Err(e),
        };
        return Ok(Outcome {
            result,
            states: pairing.states,
            decided: None,
        });
    }
    // Types renumbered 1, 2, … so that counts per type are array slots; the
    // search only compares types, and answers with cells.
    let dense: Vec<u32> = board
        .cells()
        .iter()
        .map(|&c| match types.binary_search(&c) {
            Ok(i) if c != EMPTY => i as u32 + 1,
            _ => EMPTY,
        })
        .collect();
    let board = &Board::new(board.width(), board.height(), dense).expect("same size");
    let mut search = Search {
        width: board.width(),
        height: board.height(),
        rules: *rules,
        options: *options,
        stop: &budgeted,
        failed: Memo::default(),
        path_bytes: 0,
        path_budget,
        states: 0,
        kinds: types.len(),
        line_key: (options.fall.gravity != Gravity::None)
            .then(|| LineKey::new(board.cells(), board.width(), options.fall.gravity)),
        links: (options.links
            && rules.matching == Match::Same
            && most_copies.unwrap_or(0) <= MAX_COPIES)
            .then(|| Links::new(board.width(), board.cells(), rules)),
        work: 0,
        round: 0,
        limit: None,
        round_states: 0,
    };
    let mut sequence = Vec::new();
    let mut cells = board.cells().to_vec();
    let restarts = options.restarts && options.fall.gravity != Gravity::None;
    let found = loop {
        search.limit = restarts.then(|| RESTART_STATES << search.round.min(40));
        search.round_states = 0;
        search.path_bytes = 0;
        sequence.clear();
        cells.copy_from_slice(board.cells());
        match search.run(&mut cells, tiles, &mut sequence) {
            Err(Halt::Limit) => search.round += 1,
            other => break other,
        }
    };
    let result = match found {
        Ok(true) => Clearing::Solved(sequence),
        Ok(false) => Clearing::Impossible,
        Err(Halt::Budget) => Clearing::Unknown,
        Err(Halt::Limit) => unreachable!("a round's limit starts the next round"),
        Err(Halt::Stop(Interrupted::Deadline)) if out_of_budget() => Clearing::Unknown,
        Err(Halt::Stop(e)) => return Err(e),
    };
    Ok(Outcome {
        result,
        states: search.states,
        decided: None,
    })
}

/// The states of the first round when the search restarts; each round
/// doubles it.
const RESTART_STATES: u64 = 1000;

enum Halt {
    Budget,
    /// The round's state limit: start the next round.
    Limit,
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
    failed: Memo,
    /// Bytes held by the move lists and undo records of the search path.
    path_bytes: usize,
    /// The most of those that move lists may add ([`PATH_BYTES`]).
    path_budget: usize,
    states: u64,
    /// How many types: the cells hold types `1..=kinds`.
    kinds: usize,
    /// The memo's key with gravity.
    line_key: Option<LineKey>,
    /// The grid that lists moves pair by pair, when [`ClearOptions::links`]
    /// applies.
    links: Option<Links>,
    work: u32,
    /// The restart round: 0 keeps the plain order, later rounds another.
    round: u32,
    /// The most states the round may enter.
    limit: Option<u64>,
    round_states: u64,
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
    fn fall(&self) -> Fall {
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
    fn left(&self, cells: &[u32]) -> Vec<usize> {
        let mut left = vec![0; self.kinds + 1];
        for &c in cells.iter().filter(|&&c| c != EMPTY) {
            left[c as usize] += 1;
        }
        left
    }

    fn same_rules_pruning(&self) -> bool {
        self.options.pruning
            && self.options.fall.gravity == Gravity::None
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
        links.reset(cells);
        let mut pairs = Vec::new();
        let width = self.width;
        let neighbours = |a: usize, b: usize| {
            let (lo, hi) = (a.min(b), a.max(b));
            hi - lo == width || (hi - lo == 1 && hi % width != 0)
        };
        for kind in start.windows(2).map(|w| &tiles[w[0]..w[1]]) {
            for (i, &a) in kind.iter().enumerate() {
                let leaves = links.can_leave(a as usize);
                for &b in &kind[i + 1..] {
                    self.stop.tick(&mut self.work)?;
                    // Most tiles of a full board are shut in: a cheap test
                    // before the paths.
                    let (a, b) = (a as usize, b as usize);
                    let possible = leaves && links.can_leave(b) || neighbours(a, b);
                    if possible && links.connected(a, b) {
                        pairs.push((a, b));
                        // The same bound as the explorer's list.
                        if pairs.len() > MAX_PAIRS {
                            return Err(Halt::Budget);
                        }
                    }
                }
            }
        }
        pairs.sort_unstable();
        Ok(pairs)
    }

    /// Whether the types with two tiles left cannot all be removed even
    /// with every other tile gone: without gravity the real board only has
    /// more tiles in the way, so no order clears it. Tried greedily, which
    /// is exact when removals only open cells.
    fn relaxed_dead(&self, cells: &[u32], left: &[usize]) -> Result<bool, Interrupted> {
        let only: Vec<u32> = cells
            .iter()
            .map(|&c| {
                if c != EMPTY && left[c as usize] == 2 {
                    c
                } else {
                    EMPTY
                }
            })
            .collect();
        let mut by_type: HashMap<u32, Vec<usize>> = HashMap::new();
        for (i, &c) in only.iter().enumerate().filter(|&(_, &c)| c != EMPTY) {
            by_type.entry(c).or_default().push(i);
        }
        let mut pairs: Vec<Vec<usize>> = by_type.into_values().collect();
        let mut links = Links::new(self.width, &only, &self.rules);
        let mut work = 0;
        loop {
            let before = pairs.len();
            let mut i = 0;
            while i < pairs.len() {
                self.stop.tick(&mut work)?;
                let (a, b) = (pairs[i][0], pairs[i][1]);
                if links.connected(a, b) {
                    links.set_open(a, true);
                    links.set_open(b, true);
                    pairs.swap_remove(i);
                } else {
                    i += 1;
                }
            }
            if pairs.is_empty() {
                return Ok(false);
            }
            if pairs.len() == before {
                return Ok(true);
            }
        }
    }

    /// The first removal of a type whose tiles all pair off
    /// into joinable pairs (from `pairs`) that can be removed, in some
    /// order, without moving any other tile. Taking them first is safe:
    /// those tiles have nothing beyond them on their lines, so they never
    /// move the others, with or without them; in a clearing sequence their
    /// moves can be dropped and done first, every later board then holds
    /// the same tiles in the same cells, fewer of them.
    fn settled_pair(
        &self,
        cells: &[u32],
        left: &[usize],
        pairs: &[(usize, usize)],
    ) -> Option<(usize, usize)> {
        let mut by_type: HashMap<u32, Vec<(usize, usize)>> = HashMap::new();
        for &(a, b) in pairs {
            by_type.entry(cells[a]).or_default().push((a, b));
        }
        let mut kinds: Vec<_> = by_type.into_iter().collect();
        kinds.sort_unstable();
        for (kind, joinable) in kinds {
            let n = left[kind as usize];
            if n > 8 {
                continue;
            }
            let tiles: Vec<usize> = (0..cells.len()).filter(|&i| cells[i] == kind).collect();
            let Some(matching) = perfect_matching(&tiles, &joinable) else {
                continue;
            };
            let (width, fall) = (self.width, self.fall());
            let moves_nothing = |board: &[u32], a: usize, b: usize| {
                let mut after = board.to_vec();
                remove_pair(&mut after, width, a, b, fall);
                let mut expected = board.to_vec();
                expected[a] = EMPTY;
                expected[b] = EMPTY;
                after == expected
            };
            let mut board = cells.to_vec();
            let mut remaining = matching;
            let mut first = None;
            while let Some(k) = remaining
                .iter()
                .position(|&(a, b)| moves_nothing(&board, a, b))
            {
                let (a, b) = remaining.swap_remove(k);
                first.get_or_insert((a, b));
                board[a] = EMPTY;
                board[b] = EMPTY;
            }
            if remaining.is_empty() {
                return first;
            }
        }
        None
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
        let left = self.left(cells);
        if self.same_rules_pruning() {
            if let Some(&forced) = pairs.iter().find(|&&(a, _)| left[cells[a] as usize] == 2) {
                return Ok(vec![forced]);
            }
            let dead = if self.options.relaxed {
                self.relaxed_dead(cells, &left)?
            } else {
                self.dead(board, &left)?
            };
            if dead {
                return Ok(Vec::new());
            }
        }
        if self.options.whole_type && self.rules.matching == Match::Same {
            if let Some(first) = self.settled_pair(cells, &left, &pairs) {
                return Ok(vec![first]);
            }
        }
        if self.round > 0 {
            // Another order each round, the same for every visit.
            let round = u64::from(self.round);
            pairs.sort_by_key(|&(a, b)| mix(round << 48 ^ (a as u64) << 24 ^ b as u64));
            return Ok(pairs);
        }
        if self.options.ordering {
            let mut open = vec![0; self.kinds + 1];
            for &(a, _) in &pairs {
                open[cells[a] as usize] += 1;
            }
            // Stable: reading order breaks ties.
            pairs.sort_by_key(|&(a, _)| (left[cells[a] as usize], open[cells[a] as usize]));
        }
        Ok(pairs)
    }

    /// Whether some type with two tiles left can never be removed (see the
    /// module docs). Only called without gravity, where tiles never move.
    fn dead(&self, board: &Board, left: &[usize]) -> Result<bool, Interrupted> {
        let cells = board.cells();
        let mut two: HashMap<u32, Vec<usize>> = HashMap::new();
        for (i, &c) in cells.iter().enumerate() {
            if c != EMPTY && left[c as usize] == 2 {
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

/// The memo's key with gravity: which of each line's starting tiles are
/// left. A line's tiles never leave it and keep their order, so they are a
/// subsequence of its starting tiles, and the earliest way to pick that
/// subsequence names it exactly. Where they sit follows: a line that lost
/// a tile was compacted toward the gravity side by that removal (with
/// settling, every line is at the first removal), and one that lost none
/// holds its tiles where they started (or settled, for every state after
/// the first removal alike). So two states with the same key are the same
/// board, in an eighth of the bytes of the cells.
struct LineKey {
    /// Each line's cells from the gravity side, and the types of the tiles
    /// it started with, in that order.
    lines: Vec<(Vec<usize>, Vec<u32>)>,
    tiles: usize,
}

impl LineKey {
    fn new(cells: &[u32], width: usize, gravity: Gravity) -> Self {
        let lines: Vec<(Vec<usize>, Vec<u32>)> = line_cells(cells.len(), width, gravity)
            .into_iter()
            .map(|line| {
                let start = line
                    .iter()
                    .map(|&i| cells[i])
                    .filter(|&c| c != EMPTY)
                    .collect();
                (line, start)
            })
            .collect();
        let tiles = lines.iter().map(|(_, start)| start.len()).sum();
        LineKey { lines, tiles }
    }

    fn key(&self, cells: &[u32]) -> Vec<u64> {
        let mut bits = vec![0u64; self.tiles.div_ceil(64)];
        let mut offset = 0;
        for (line, start) in &self.lines {
            let mut j = 0;
            for &c in line.iter().map(|&i| &cells[i]).filter(|&&c| c != EMPTY) {
                while start[j] != c {
                    j += 1;
                }
                bits[(offset + j) / 64] |= 1 << ((offset + j) % 64);
                j += 1;
            }
            offset += start.len();
        }
        bits
    }
}

/// A set of keys of one length, each in one array with the others and
/// found through a table of their indices (open addressing, at most half
/// full): about the key's bytes and 8 to 16 more a state, with no
/// allocation each, rather than a hash set's boxed keys. It stops growing
/// at [`MEMO_BYTES`].
#[derive(Default)]
struct Memo {
    /// The words of every key, one after another.
    keys: Vec<u64>,
    /// 0 for an empty slot, else 1 + the key's number.
    slots: Vec<u32>,
    len: usize,
}

impl Memo {
    fn hash(key: &[u64]) -> u64 {
        key.iter().fold(key.len() as u64, |h, &w| mix(h ^ w))
    }

    /// The slot holding `key`, or the empty slot where it would go.
    fn slot(&self, key: &[u64]) -> usize {
        let mask = self.slots.len() - 1;
        let words = key.len();
        let mut at = Self::hash(key) as usize & mask;
        loop {
            match self.slots[at] {
                0 => return at,
                k => {
                    let k = (k - 1) as usize;
                    if self.keys[k * words..(k + 1) * words] == *key {
                        return at;
                    }
                }
            }
            at = (at + 1) & mask;
        }
    }

    fn contains(&self, key: &[u64]) -> bool {
        !self.slots.is_empty() && self.slots[self.slot(key)] != 0
    }

    /// Adds `key` (every key of one length) while the memo has room.
    fn insert(&mut self, key: &[u64]) {
        if self.contains(key) {
            return;
        }
        let words = key.len();
        if 2 * (self.len + 1) > self.slots.len() {
            let size = (self.slots.len() * 2).max(1024);
            if size * 4 + self.keys.capacity() * 8 > MEMO_BYTES {
                return;
            }
            self.slots = vec![0; size];
            for k in 0..self.len {
                let at = self.slot(&self.keys[k * words..(k + 1) * words]);
                self.slots[at] = k as u32 + 1;
            }
        }
        if self.keys.len() + words > self.keys.capacity() {
            // Grown by halves, up to the bound.
            let room = (MEMO_BYTES - self.slots.len() * 4) / 8;
            let more = (self.keys.capacity() / 2)
                .max(words * 1024)
                .min(room.saturating_sub(self.keys.len()));
            if more < words {
                return;
            }
            self.keys.reserve_exact(more);
        }
        let at = self.slot(key);
        self.keys.extend_from_slice(key);
        self.len += 1;
        self.slots[at] = self.len as u32;
    }
}

/// A way to pair off every tile of `tiles` (at most 32) using only
/// `joinable` pairs.
fn perfect_matching(tiles: &[usize], joinable: &[(usize, usize)]) -> Option<Vec<(usize, usize)>> {
    let n = tiles.len();
    if n > 32 || n % 2 != 0 {
        return None;
    }
    let index = |t: usize| tiles.iter().position(|&x| x == t);
    let mut adjacent = vec![0u64; n];
    for &(a, b) in joinable {
        if let (Some(i), Some(j)) = (index(a), index(b)) {
            adjacent[i] |= 1 << j;
            adjacent[j] |= 1 << i;
        }
    }
    perfect_pairing(&adjacent).map(|pairs| {
        pairs
            .into_iter()
            .map(|(i, j)| (tiles[i], tiles[j]))
            .collect()
    })
}

/// SplitMix64's finaliser: a well-spread hash of `x`.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Preset;
    use crate::game::rng::SplitMix64;

    /// The gravity key names boards exactly: along random lines of play on
    /// small boards with floating tiles and few types (so a line often
    /// holds equal tiles), every key reached after a removal belongs to one
    /// board and every board to one key.
    #[test]
    fn the_gravity_key_tells_every_board_apart() {
        let mut rng = SplitMix64::new(23);
        let (mut boards, mut merged) = (0, 0);
        for _ in 0..400 {
            let (w, h) = (1 + rng.below(4), 1 + rng.below(5));
            let start: Vec<u32> = (0..w * h).map(|_| rng.below(4) as u32).collect();
            for gravity in [Gravity::Down, Gravity::Up, Gravity::Left, Gravity::Right] {
                for settle in [false, true] {
                    let fall = Fall::new(gravity, settle);
                    let line_key = LineKey::new(&start, w, gravity);
                    let mut by_key: HashMap<Vec<u64>, Vec<u32>> = HashMap::new();
                    let mut by_board: HashMap<Vec<u32>, Vec<u64>> = HashMap::new();
                    for _ in 0..20 {
                        let mut cells = start.clone();
                        loop {
                            let tiles: Vec<usize> =
                                (0..cells.len()).filter(|&i| cells[i] != EMPTY).collect();
                            if tiles.len() < 2 {
                                break;
                            }
                            let a = tiles[rng.below(tiles.len())];
                            let b = *tiles
                                .iter()
                                .find(|&&b| b != a && rng.below(2) == 0)
                                .unwrap_or(tiles.iter().find(|&&b| b != a).expect("two tiles"));
                            remove_pair(&mut cells, w, a, b, fall);
                            let key = line_key.key(&cells);
                            boards += 1;
                            if by_key.contains_key(&key) {
                                merged += 1;
                            }
                            assert_eq!(by_key.entry(key.clone()).or_insert(cells.clone()), &cells);
                            assert_eq!(by_board.entry(cells.clone()).or_insert(key.clone()), &key);
                        }
                    }
                }
            }
        }
        assert!(merged > 1000 && boards > merged, "{merged} of {boards}");
    }

    /// The memo holds exactly the keys put in it, through every growth of
    /// its table: keys that differ in one bit are told apart.
    #[test]
    fn the_memo_holds_exactly_what_it_was_given() {
        let mut rng = SplitMix64::new(31);
        let mut memo = Memo::default();
        let mut given = std::collections::HashSet::new();
        for _ in 0..20_000 {
            let key = [rng.below(8) as u64, 1 << rng.below(64), rng.below(8) as u64];
            if rng.below(2) == 0 {
                memo.insert(&key);
                given.insert(key);
            }
            assert_eq!(memo.contains(&key), given.contains(&key), "{key:?}");
        }
        assert_eq!(memo.len, given.len());
        assert!(given.len() > 3000, "{}", given.len());
    }

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
                        fall: gravity.into(),
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
