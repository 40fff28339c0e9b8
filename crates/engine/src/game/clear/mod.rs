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

mod memo;
mod prune;
mod search;

use super::gravity::{Fall, Gravity};
use super::link::Links;
use super::pairing::{MAX_COPIES, Pairing};
use crate::{Board, EMPTY, Interrupted, Match, Point, Rules, Stop};
use memo::{LineKey, Memo};
use search::Search;
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
        Match::Any => (!tiles.is_multiple_of(2)).then_some(Decided::OddTiles { tiles }),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Preset;
    use crate::rng::SplitMix64;

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
