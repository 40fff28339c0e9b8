//! Dealing boards that can be cleared, and shuffling the tiles left.
//!
//! Both are built from a removal sequence found first, with tile types
//! ignored: starting from the cells that will hold tiles, the builder
//! removes any two tiles that the rules would let it join (tiles of every
//! type look alike), letting them fall by the gravity, until none is left.
//! Only then are types given out, one type per removed pair. Removing a
//! pair needs only its path, not its type, so every removal of that
//! sequence is legal on the typed board too: the board can be cleared by
//! construction, and the sequence is the proof. Read backwards, it places
//! pairs on a board (with gravity: inserting them and pushing the tiles
//! above up).
//!
//! The builder picks tiles and partners at random from a seeded generator;
//! when it leaves tiles that no longer connect (rare, and only without the
//! ring around the board) it backtracks to the last choice.

use super::gravity::{Gravity, remove_pair};
use super::moves::Explorer;
use super::rng::SplitMix64;
use crate::solver::{Board, BoardError, EMPTY, Interrupted, Match, Point, Rules, Stop};
use std::collections::{BTreeMap, HashSet};

/// Why a deal cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    #[error("type {kind} has {copies} copies, expected an even number")]
    OddCopies { kind: u32, copies: usize },
    #[error("{tiles} tiles do not fit on {cells} cells")]
    TooMany { tiles: usize, cells: usize },
    #[error(transparent)]
    Board(#[from] BoardError),
    #[error("no removal sequence exists for these cells under these rules")]
    NoSequence,
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
}

/// Why a board cannot be shuffled as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShuffleError {
    #[error("no two tiles are of one type, so no arrangement has a move")]
    NoPairs,
    #[error("no two tile cells can be joined under these rules, so no arrangement has a move")]
    NoPath,
    #[error("type {kind} has {copies} tiles left, an odd number, so the board cannot be cleared")]
    OddCopies { kind: u32, copies: usize },
    #[error("no arrangement of these cells can be cleared under these rules")]
    NoSequence,
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
}

/// Deals a `width × height` board holding `copies` tiles of each `(type,
/// copies)` (even counts), with one sequence of moves that clears it under
/// `rules` and `gravity`. Tiles fill the board from the bottom row up; the
/// cells of a partly filled top row are chosen by the seed.
pub fn deal(
    width: usize,
    height: usize,
    tiles: &[(u32, usize)],
    rules: &Rules,
    gravity: Gravity,
    seed: u64,
    stop: &Stop,
) -> Result<(Board, Vec<(Point, Point)>), DealError> {
    let mut slots = Vec::new();
    for &(kind, copies) in tiles {
        if copies % 2 != 0 {
            return Err(DealError::OddCopies { kind, copies });
        }
        slots.extend(std::iter::repeat_n(kind, copies / 2));
    }
    let total = slots.len() * 2;
    let cells = width * height;
    if total > cells {
        return Err(DealError::TooMany {
            tiles: total,
            cells,
        });
    }
    let empty = Board::new(width, height, vec![EMPTY; cells])?;
    let mut rng = SplitMix64::new(seed);
    let full_rows = total / width;
    let mut occupied: Vec<usize> = ((height - full_rows) * width..cells).collect();
    if total % width != 0 {
        let row = height - full_rows - 1;
        let mut top: Vec<usize> = (row * width..(row + 1) * width).collect();
        rng.shuffle(&mut top);
        occupied.extend(&top[..total % width]);
    }
    occupied.sort_unstable();
    let sequence = removal_sequence(&empty, &occupied, rules, gravity, &mut rng, stop)?
        .ok_or(DealError::NoSequence)?;
    rng.shuffle(&mut slots);
    let board = typed(&empty, &sequence, &slots);
    Ok((
        board,
        sequence.into_iter().map(|r| (r.from, r.to)).collect(),
    ))
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
    if !super::moves::pairs(&shuffled, *rules, Some(1), stop)?.is_empty() {
        return Ok(shuffled);
    }
    // No move by chance: put two tiles of one type on two cells that join.
    let Some(&(a, b)) = super::moves::pairs(board, any, Some(1), stop)?.first() else {
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
/// board can be cleared under `rules` and `gravity`, with one clearing
/// sequence.
pub fn shuffle_solvable(
    board: &Board,
    rules: &Rules,
    gravity: Gravity,
    seed: u64,
    stop: &Stop,
) -> Result<(Board, Vec<(Point, Point)>), ShuffleError> {
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
    let mut rng = SplitMix64::new(seed);
    let empty =
        Board::new(board.width(), board.height(), vec![EMPTY; cells.len()]).expect("same size");
    let sequence = match removal_sequence(&empty, &occupied, rules, gravity, &mut rng, stop) {
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

/// One removal of the untyped sequence: the cells at its turn, and the
/// starting cells of the two tiles.
struct Removal {
    from: Point,
    to: Point,
    origins: [usize; 2],
}

/// The board whose tiles at the origins of removal `k` have type
/// `slots[k]`.
fn typed(empty: &Board, sequence: &[Removal], slots: &[u32]) -> Board {
    let mut cells = empty.cells().to_vec();
    for (removal, &kind) in sequence.iter().zip(slots) {
        for origin in removal.origins {
            cells[origin] = kind;
        }
    }
    Board::new(empty.width(), empty.height(), cells).expect("same size")
}

/// A sequence that removes every tile of `occupied` (each tile its own
/// type, all joinable), or `None` when there is none.
fn removal_sequence(
    empty: &Board,
    occupied: &[usize],
    rules: &Rules,
    gravity: Gravity,
    rng: &mut SplitMix64,
    stop: &Stop,
) -> Result<Option<Vec<Removal>>, Interrupted> {
    let any = Rules {
        matching: Match::Any,
        ..*rules
    };
    // Each tile is named by its starting cell + 1, so gravity carries names.
    let mut cells = vec![EMPTY; empty.cells().len()];
    for &i in occupied {
        cells[i] = i as u32 + 1;
    }
    let mut builder = Builder {
        width: empty.width(),
        height: empty.height(),
        rules: any,
        gravity,
        stop,
        sequence: Vec::new(),
        work: 0,
        failed: HashSet::new(),
    };
    Ok(builder.remove_all(cells, rng)?.then_some(builder.sequence))
}

struct Builder<'s, 'a> {
    width: usize,
    height: usize,
    rules: Rules,
    gravity: Gravity,
    stop: &'s Stop<'a>,
    sequence: Vec<Removal>,
    work: u32,
    /// Sets of occupied cells known to lead nowhere: tiles all look alike,
    /// so the set is the whole state.
    failed: HashSet<Vec<u64>>,
}

impl Builder<'_, '_> {
    fn remove_all(&mut self, cells: Vec<u32>, rng: &mut SplitMix64) -> Result<bool, Interrupted> {
        let mut tiles: Vec<usize> = (0..cells.len()).filter(|&i| cells[i] != EMPTY).collect();
        if tiles.is_empty() {
            return Ok(true);
        }
        let mut key = vec![0u64; cells.len().div_ceil(64)];
        for &t in &tiles {
            key[t / 64] |= 1 << (t % 64);
        }
        if self.failed.contains(&key) {
            return Ok(false);
        }
        self.stop.check()?;
        rng.shuffle(&mut tiles);
        let board = Board::new(self.width, self.height, cells).expect("same size");
        let mut explorer = Explorer::new(&board, self.rules);
        for a in tiles {
            let mut partners = explorer.reach(a, self.stop, &mut self.work)?;
            partners.sort_unstable();
            rng.shuffle(&mut partners);
            for b in partners {
                let mut next = board.cells().to_vec();
                let origins = [next[a] as usize - 1, next[b] as usize - 1];
                remove_pair(&mut next, self.width, a, b, self.gravity);
                let point = |i: usize| Point::new((i % self.width) as i32, (i / self.width) as i32);
                self.sequence.push(Removal {
                    from: point(a),
                    to: point(b),
                    origins,
                });
                if self.remove_all(next, rng)? {
                    return Ok(true);
                }
                self.sequence.pop();
            }
        }
        self.failed.insert(key);
        Ok(false)
    }
}
