//! Shuffling the tiles left on a board: onto the cells they occupy, so
//! that a move exists ([`shuffle`]) or so that the board can be cleared
//! ([`shuffle_solvable`], built like a deal from a removal sequence found
//! first), and where each tile went ([`relocation`]).

use super::deal::{Difficulty, Untyped, count, removal_sequence, typed};
use super::gravity::Fall;
use super::moves;
use crate::rng::SplitMix64;
use crate::{Board, EMPTY, Interrupted, Match, Point, Rules, Stop};
use std::collections::BTreeMap;

/// Why a board cannot be shuffled as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShuffleError {
    #[error("no two tiles are of one type, so no arrangement has a move")]
    NoPairs,
    #[error("no two tile cells can be joined under these rules, so no arrangement has a move")]
    NoPath,
    #[error("type {kind} has {} left, an odd number, so the board cannot be cleared", count(*copies, "tile", "tiles"))]
    OddCopies { kind: u32, copies: usize },
    #[error("the board has {}, an odd number, so it cannot be cleared", count(*tiles, "tile", "tiles"))]
    OddTiles { tiles: usize },
    #[error("no arrangement of these cells can be cleared under these rules")]
    NoSequence,
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
}

/// Rearranges the tiles of `board` on the cells they occupy so that at least
/// one move exists.
pub fn shuffle(
    board: &Board,
    rules: &Rules,
    seed: u64,
    stop: &Stop,
) -> Result<Board, ShuffleError> {
    let cells = board.cells();
    let occupied: Vec<usize> = (0..cells.len()).filter(|&i| cells[i] != EMPTY).collect();
    let mut kinds: Vec<u32> = occupied.iter().map(|&i| cells[i]).collect();
    let mut rng = SplitMix64::new(seed);
    rng.shuffle(&mut kinds);
    let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
    for &k in &kinds {
        *counts.entry(k).or_default() += 1;
    }
    let any = Rules {
        matching: Match::Any,
        ..*rules
    };
    let pairable: Vec<u32> = counts
        .iter()
        .filter(|&(_, &n)| n >= 2)
        .map(|(&k, _)| k)
        .collect();
    if rules.matching == Match::Same && pairable.is_empty() {
        return Err(ShuffleError::NoPairs);
    }
    let mut out = vec![EMPTY; cells.len()];
    for (&i, &k) in occupied.iter().zip(&kinds) {
        out[i] = k;
    }
    let shuffled = Board::new(board.width(), board.height(), out).expect("same size");
    if !moves::pairs(&shuffled, *rules, Some(1), stop)?.is_empty() {
        return Ok(shuffled);
    }
    // No move by chance: put two tiles of one type on two cells that join.
    let Some(&(a, b)) = moves::pairs(board, any, Some(1), stop)?.first() else {
        return Err(ShuffleError::NoPath);
    };
    let kind = pairable[rng.below(pairable.len())];
    let mut out = shuffled.into_cells();
    let first = occupied
        .iter()
        .copied()
        .find(|&i| out[i] == kind)
        .expect("a pairable type");
    out.swap(a, first);
    let second = occupied
        .iter()
        .copied()
        .find(|&i| i != a && out[i] == kind)
        .expect("two tiles of the type");
    out.swap(b, second);
    Ok(Board::new(board.width(), board.height(), out).expect("same size"))
}

/// Rearranges the tiles of `board` on the cells they occupy so that the
/// board can be cleared under `rules` and `fall` (with [`Fall::settle`]
/// the sequence settles every line at each removal), with
/// one clearing sequence.
pub fn shuffle_solvable(
    board: &Board,
    rules: &Rules,
    fall: impl Into<Fall>,
    seed: u64,
    stop: &Stop,
) -> Result<(Board, Vec<(Point, Point)>), ShuffleError> {
    let fall = fall.into();
    let cells = board.cells();
    let occupied: Vec<usize> = (0..cells.len()).filter(|&i| cells[i] != EMPTY).collect();
    let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
    for &i in &occupied {
        *counts.entry(cells[i]).or_default() += 1;
    }
    let mut slots = Vec::new();
    for (&kind, &copies) in &counts {
        if copies % 2 != 0 && rules.matching == Match::Same {
            return Err(ShuffleError::OddCopies { kind, copies });
        }
        slots.extend(std::iter::repeat_n(kind, copies / 2));
    }
    // Said at once: the builder would try every order of removals first.
    if !occupied.len().is_multiple_of(2) {
        return Err(ShuffleError::OddTiles {
            tiles: occupied.len(),
        });
    }
    let mut rng = SplitMix64::new(seed);
    let empty =
        Board::new(board.width(), board.height(), vec![EMPTY; cells.len()]).expect("same size");
    let untyped = Untyped {
        empty: &empty,
        occupied: &occupied,
        rules,
        fall,
        difficulty: Difficulty::Easy,
    };
    let sequence = match removal_sequence(&untyped, &mut rng, stop) {
        Ok(Some(sequence)) => sequence,
        Ok(None) => return Err(ShuffleError::NoSequence),
        Err(e) => return Err(e.into()),
    };
    if rules.matching == Match::Any {
        // Any two tiles pair up: keep the board's own tiles, in a seeded order.
        let mut kinds: Vec<u32> = occupied.iter().map(|&i| cells[i]).collect();
        rng.shuffle(&mut kinds);
        let mut out = vec![EMPTY; cells.len()];
        for (&i, &k) in occupied.iter().zip(&kinds) {
            out[i] = k;
        }
        let board = Board::new(board.width(), board.height(), out).expect("same size");
        return Ok((
            board,
            sequence.into_iter().map(|r| (r.from, r.to)).collect(),
        ));
    }
    rng.shuffle(&mut slots);
    let board = typed(&empty, &sequence, &slots);
    Ok((
        board,
        sequence.into_iter().map(|r| (r.from, r.to)).collect(),
    ))
}

/// Where each tile of `before` went on `after`, a rearrangement of the
/// same tiles: per type, the cells of `before` holding it (in reading
/// order) matched to the cells of `after` holding it (in reading order),
/// leaving out the tiles that stayed. As (from, to), in reading order of
/// `from`; moving every listed tile at once turns `before` into `after`.
pub fn relocation(before: &Board, after: &Board) -> Vec<(Point, Point)> {
    let by_type = |board: &Board| {
        let mut cells: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, &c) in board
            .cells()
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c != EMPTY)
        {
            cells.entry(c).or_default().push(i);
        }
        cells
    };
    let (from, to) = (by_type(before), by_type(after));
    debug_assert_eq!(
        from.iter().map(|(k, v)| (*k, v.len())).collect::<Vec<_>>(),
        to.iter().map(|(k, v)| (*k, v.len())).collect::<Vec<_>>(),
        "the same tiles"
    );
    let mut moved: Vec<(usize, usize)> = from
        .iter()
        .filter_map(|(kind, cells)| Some(cells.iter().zip(to.get(kind)?)))
        .flatten()
        .filter(|&(a, b)| a != b)
        .map(|(&a, &b)| (a, b))
        .collect();
    moved.sort_unstable();
    let w = before.width();
    let point = |i: usize| Point::new((i % w) as i32, (i / w) as i32);
    moved
        .into_iter()
        .map(|(a, b)| (point(a), point(b)))
        .collect()
}
