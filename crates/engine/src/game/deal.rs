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
//!
//! How hard the deal is comes from the partners it picks ([`Difficulty`]):
//! a random partner is usually a near one, so the typed board is full of
//! pairs that can be removed at once; a far partner (by the distance
//! between the two tiles' starting cells) makes a pair that only opens
//! once the tiles between are gone. A hard deal is a random placement
//! instead, repaired where play gets stuck (a swap of two tiles' types
//! that keeps every removal before legal) until it can be cleared.
//! [`stats`] measures the result.

use super::clear::{ClearOptions, Clearing, clear_with};
use super::gravity::{Fall, Gravity, Removed, remove_pair_undoable};
use super::moves::Explorer;
use super::rng::SplitMix64;
use crate::{Board, BoardError, EMPTY, Interrupted, Match, Point, Rules, Stop};
use std::collections::{BTreeMap, HashSet};

/// How a deal picks the partner of each removal, and so how hard it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Difficulty {
    /// Partners at random.
    #[default]
    Easy,
    /// The farthest partner at every removal; of four such deals (the seed
    /// and three drawn from it), the one with the fewest moves open at the
    /// start.
    Medium,
    /// Tiles placed at random and repaired until solvable: [`super::clear`]
    /// asked about the placement within a few states, and while it proves
    /// nothing, two tiles' types swapped where a playout is stuck, by the
    /// swap that opens the fewest moves at the start (up to
    /// [`HARD_CHECKS`] times and [`HARD_WORK`] in all, then every stuck
    /// point repaired along one playout, whose moves are the sequence). Of
    /// [`HARD_CANDIDATES`] such boards, the one with the fewest moves open
    /// plus [`CLEAR_WEIGHT`] for each of its [`HARD_PLAYOUTS`] random
    /// playouts that clears it. When no placement could be played out at
    /// all, a medium deal.
    Hard,
}

impl Difficulty {
    pub const ALL: [Difficulty; 3] = [Difficulty::Easy, Difficulty::Medium, Difficulty::Hard];

    /// The name used on the wire.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// A board and a sequence that clears it.
type Dealt = (Board, Vec<(Point, Point)>);

/// A deal and its stats.
type Measured = (Board, Vec<(Point, Point)>, DealStats);

/// How many deals [`Difficulty::Medium`] builds to keep the hardest.
const MEDIUM_CANDIDATES: u64 = 4;

/// How many random placements a [`Difficulty::Hard`] deal repairs and
/// compares on a board of up to 144 tiles; on a bigger one fewer, in
/// proportion (at least one), as each costs work in proportion to its
/// tiles.
pub const HARD_CANDIDATES: u64 = 8;

/// How many times a hard deal asks [`super::clear`] about one placement
/// (each time within twice its tiles in states), repairing it once
/// between two.
pub const HARD_CHECKS: usize = 8;

/// The most states times tiles that [`super::clear`] may search over all
/// of a hard deal's placements (12,000 states of an 18 x 8 board): a budget
/// in work, not time, so the deal is the same on every machine, and a
/// state of a bigger board costs more.
pub const HARD_WORK: u64 = 12_000 * 144;

/// The random playouts a hard deal compares its placements by, drawn
/// apart from those of [`stats`] so that the stats measure the deal
/// chosen afresh.
pub const HARD_PLAYOUTS: u32 = 16;

/// Where play is stuck, a hard deal's repair explores from this many
/// tiles that have a partner (those beside an open cell first) for pairs
/// that can be joined whatever their types ...
const REPAIR_SOURCES: usize = 8;

/// ... and weighs the swaps of this many of those pairs, drawn at random.
/// Every pair of the board (about 300 on 18 x 8 Shisen-Sho) gave deals as
/// hard, and took 3.5 times as long on 80 x 50: exploring from every tile
/// at every stuck point grows with the square of the board.
const REPAIR_PAIRS: usize = 32;

/// How many moves open one of [`HARD_PLAYOUTS`] that clears a placement
/// weighs when a hard deal compares them. With four, Shisen-Sho deals with
/// gravity down kept 3% of random playouts clearing them (median, 18 x 8),
/// against 0% to 3% for random solvable boards; with eight, 0%.
pub const CLEAR_WEIGHT: u64 = 8;

/// Mixed into the seed for [`HARD_PLAYOUTS`].
const SEARCH_PLAYOUTS_SEED: u64 = 0x5EA2_C4D1_7B3F_0A95;

/// A seed drawn from `seed` for the `k`-th candidate (`k > 0`).
fn candidate_seed(seed: u64, k: u64) -> u64 {
    SplitMix64::new(seed ^ k.wrapping_mul(0xA076_1D64_78BD_642F)).next_u64()
}

/// Why a deal cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    #[error("type {kind} has {}, expected an even number", count(*copies, "copy", "copies"))]
    OddCopies { kind: u32, copies: usize },
    #[error("{} do not fit on {}", count(*tiles, "tile", "tiles"), count(*cells, "cell", "cells"))]
    TooMany { tiles: usize, cells: usize },
    #[error(transparent)]
    Board(#[from] BoardError),
    #[error("no removal sequence exists for these cells under these rules")]
    NoSequence,
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
}

/// "1 tile", "3 tiles".
fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

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

/// Deals a `width × height` board holding `copies` tiles of each `(type,
/// copies)` (even counts), with one sequence of moves that clears it under
/// `rules` and `fall`. Tiles fill the board from the bottom row up; the
/// cells of a partly filled top row are chosen by the seed. With
/// [`Fall::settle`] they fill it from the gravity side instead (the bottom
/// row for down, the top row for up, the left or right column), so the
/// board dealt has no floating tile.
pub fn deal(
    width: usize,
    height: usize,
    tiles: &[(u32, usize)],
    rules: &Rules,
    gravity: impl Into<Fall>,
    seed: u64,
    stop: &Stop,
) -> Result<(Board, Vec<(Point, Point)>), DealError> {
    deal_with(
        width,
        height,
        tiles,
        rules,
        gravity,
        Difficulty::Easy,
        seed,
        stop,
    )
}

/// [`deal`] at a [`Difficulty`]; [`Difficulty::Easy`] is [`deal`].
#[expect(clippy::too_many_arguments, reason = "the fields of a deal request")]
pub fn deal_with(
    width: usize,
    height: usize,
    tiles: &[(u32, usize)],
    rules: &Rules,
    gravity: impl Into<Fall>,
    difficulty: Difficulty,
    seed: u64,
    stop: &Stop,
) -> Result<(Board, Vec<(Point, Point)>), DealError> {
    deal_measured(width, height, tiles, rules, gravity, difficulty, seed, stop)
        .map(|(board, moves, _)| (board, moves))
}

/// [`deal_with`], and the deal's [`stats`] (drawn from the same seed).
#[expect(clippy::too_many_arguments, reason = "the fields of a deal request")]
pub fn deal_measured(
    width: usize,
    height: usize,
    tiles: &[(u32, usize)],
    rules: &Rules,
    gravity: impl Into<Fall>,
    difficulty: Difficulty,
    seed: u64,
    stop: &Stop,
) -> Result<Measured, DealError> {
    let gravity = gravity.into();
    if difficulty == Difficulty::Hard {
        if let Some(dealt) = deal_placed(width, height, tiles, rules, gravity, seed, stop)? {
            return Ok(dealt);
        }
    }
    let (board, moves) = match difficulty {
        Difficulty::Easy => {
            deal_once(width, height, tiles, rules, gravity, difficulty, seed, stop)?
        }
        _ => deal_medium(width, height, tiles, rules, gravity, seed, stop)?,
    };
    let measured = stats(&board, rules, gravity, seed, stop)?;
    Ok((board, moves, measured))
}

/// The layout of a deal's tiles: the bottom rows full, the cells of a
/// partly filled top row drawn from `rng`; in reading order. With
/// [`Fall::settle`] the same layout turned to stand on the gravity side.
fn layout(
    width: usize,
    height: usize,
    total: usize,
    fall: Fall,
    rng: &mut SplitMix64,
) -> Vec<usize> {
    let side = if fall.settle {
        fall.gravity
    } else {
        Gravity::Down
    };
    // Left and right: laid on the board turned a quarter, rows for columns.
    let (w, h) = match side {
        Gravity::Left | Gravity::Right => (height, width),
        _ => (width, height),
    };
    let full_rows = total / w;
    let mut occupied: Vec<usize> = ((h - full_rows) * w..w * h).collect();
    if total % w != 0 {
        let row = h - full_rows - 1;
        let mut top: Vec<usize> = (row * w..(row + 1) * w).collect();
        rng.shuffle(&mut top);
        occupied.extend(&top[..total % w]);
    }
    let mut occupied: Vec<usize> = occupied
        .into_iter()
        .map(|i| {
            let (x, y) = (i % w, i / w);
            let (x, y) = match side {
                Gravity::Up => (x, h - 1 - y),
                // The bottom row of the turned board is the right column.
                Gravity::Right => (y, x),
                Gravity::Left => (h - 1 - y, x),
                Gravity::Down | Gravity::None => (x, y),
            };
            y * width + x
        })
        .collect();
    occupied.sort_unstable();
    occupied
}

/// A [`Difficulty::Hard`] deal, or `None` when every placement left tiles
/// that no two could be joined.
fn deal_placed(
    width: usize,
    height: usize,
    tiles: &[(u32, usize)],
    rules: &Rules,
    gravity: Fall,
    seed: u64,
    stop: &Stop,
) -> Result<Option<Measured>, DealError> {
    let mut kinds = Vec::new();
    for &(kind, copies) in tiles {
        if copies % 2 != 0 {
            return Err(DealError::OddCopies { kind, copies });
        }
        kinds.extend(std::iter::repeat_n(kind, copies));
    }
    let cells = width * height;
    if kinds.len() > cells {
        return Err(DealError::TooMany {
            tiles: kinds.len(),
            cells,
        });
    }
    let tiles = kinds.len().max(1) as u64;
    let candidates = (HARD_CANDIDATES * 144 / tiles).clamp(1, HARD_CANDIDATES);
    let most_states = HARD_WORK / tiles;
    let mut states = 0;
    // Smaller is harder.
    let mut best: Option<(u64, Dealt)> = None;
    for k in 0..candidates {
        let mut rng = SplitMix64::new(if k == 0 {
            seed
        } else {
            candidate_seed(seed, k)
        });
        let occupied = layout(width, height, kinds.len(), gravity, &mut rng);
        rng.shuffle(&mut kinds);
        let mut cells = vec![EMPTY; width * height];
        for (&i, &kind) in occupied.iter().zip(&kinds) {
            cells[i] = kind;
        }
        let mut dealt = None;
        for _ in 0..HARD_CHECKS {
            if states >= most_states {
                break;
            }
            let board = Board::new(width, height, cells.clone())?;
            let options = ClearOptions {
                gravity: gravity.gravity,
                settle: gravity.settle,
                max_states: Some((2 * tiles).min(most_states - states)),
                ordering: gravity.gravity == Gravity::None,
                ..ClearOptions::default()
            };
            let outcome = clear_with(&board, rules, &options, stop)?;
            states += outcome.states;
            if let Clearing::Solved(sequence) = outcome.result {
                dealt = Some((board, sequence));
                break;
            }
            match repair(&mut cells, width, rules, gravity, Some(1), &mut rng, stop)? {
                Repair::Cleared(sequence) => {
                    dealt = Some((Board::new(width, height, cells.clone())?, sequence));
                    break;
                }
                Repair::Swapped => {}
                Repair::Stuck => break,
            }
        }
        let dealt = match dealt {
            Some(dealt) => dealt,
            None => match repair(&mut cells, width, rules, gravity, None, &mut rng, stop)? {
                Repair::Cleared(sequence) => (Board::new(width, height, cells)?, sequence),
                Repair::Swapped | Repair::Stuck => continue,
            },
        };
        if candidates == 1 {
            // Nothing to compare it with: its playouts would be wasted (on
            // 100 x 100, two thirds of the deal).
            best = Some((0, dealt));
            break;
        }
        let open = super::moves::pairs(&dealt.0, *rules, Some(MOVES_OPEN_LIMIT), stop)?.len();
        let cleared = playouts(
            &dealt.0,
            rules,
            gravity,
            seed ^ SEARCH_PLAYOUTS_SEED,
            HARD_PLAYOUTS,
            stop,
        )?;
        let hardness = CLEAR_WEIGHT * u64::from(cleared) + open as u64;
        if best.as_ref().is_none_or(|(b, _)| hardness < *b) {
            best = Some((hardness, dealt));
        }
    }
    let Some((_, (board, moves))) = best else {
        return Ok(None);
    };
    let measured = stats(&board, rules, gravity, seed, stop)?;
    Ok(Some((board, moves, measured)))
}

/// Plays `cells` out from the start: a pair that clears a type's last
/// tiles, or whose type's other two tiles join too, when there is one,
/// else a random move. Where no move is left, it picks two tiles left that
/// can be joined (whatever their types) and swaps the type of the second
/// with that of another tile of the first's type: of the swaps for
/// [`REPAIR_PAIRS`] such pairs drawn at random from those of
/// [`REPAIR_SOURCES`] tiles, one that opens the fewest moves on the board
/// as dealt. The removals so far involve neither tile, so they stay
/// legal. The tiles keep their cells: `cells` is the board as dealt, with
/// the swaps, and stops after `most_repairs` swaps.
fn repair(
    cells: &mut [u32],
    width: usize,
    rules: &Rules,
    gravity: Fall,
    most_repairs: Option<usize>,
    rng: &mut SplitMix64,
    stop: &Stop,
) -> Result<Repair, Interrupted> {
    let height = cells.len() / width;
    let any = Rules {
        matching: Match::Any,
        ..*rules
    };
    let start = Board::new(width, height, cells.to_vec()).expect("same size");
    let mut lister = MoveLister::new(&start, rules);
    let start_open = Joinable::new(&start, any, stop)?;
    // Each tile is named by its starting cell + 1, so gravity carries names.
    let mut names: Vec<u32> = (0..cells.len())
        .map(|i| {
            if cells[i] == EMPTY {
                EMPTY
            } else {
                i as u32 + 1
            }
        })
        .collect();
    let mut view = vec![EMPTY; cells.len()];
    let mut sequence = Vec::new();
    let mut repairs = 0;
    let mut work = 0;
    let point = |i: usize| Point::new((i % width) as i32, (i / width) as i32);
    loop {
        let mut left: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, &name) in names.iter().enumerate() {
            stop.tick(&mut work)?;
            view[i] = if name == EMPTY {
                EMPTY
            } else {
                cells[name as usize - 1]
            };
            if view[i] != EMPTY {
                left.entry(view[i]).or_default().push(i);
            }
        }
        if left.is_empty() {
            return Ok(Repair::Cleared(sequence));
        }
        let pairs = lister.list(&view, stop)?;
        let (a, b) = if pairs.is_empty() {
            let board = Board::new(width, height, view.clone()).expect("same size");
            let mut joinable = joinable_pairs(&board, any, rng, stop)?;
            if joinable.is_empty() {
                return Ok(Repair::Stuck);
            }
            // Of the swaps for a few such pairs, one that opens the fewest
            // moves at the start: a stuck point early in play is nearly
            // the starting board, so a swap at random mostly makes two
            // touching tiles one type.
            let mut fewest = i64::MAX;
            let mut swaps: Vec<(usize, usize, usize)> = Vec::new();
            for &(p, q) in rng.sample(&mut joinable, REPAIR_PAIRS) {
                for (x, y) in [(p, q), (q, p)] {
                    for &z in left[&view[x]].iter().filter(|&&z| z != x) {
                        stop.tick(&mut work)?;
                        let (u, v) = (names[y] as usize - 1, names[z] as usize - 1);
                        let before = start_open.around(cells, u) + start_open.around(cells, v);
                        cells.swap(u, v);
                        let after = start_open.around(cells, u) + start_open.around(cells, v);
                        cells.swap(u, v);
                        let opened = after as i64 - before as i64;
                        if opened < fewest {
                            fewest = opened;
                            swaps.clear();
                        }
                        if opened == fewest {
                            swaps.push((x, y, z));
                        }
                    }
                }
            }
            let (x, y, z) = swaps[rng.below(swaps.len())];
            cells.swap(names[y] as usize - 1, names[z] as usize - 1);
            let (x, y) = (x.min(y), x.max(y));
            repairs += 1;
            if most_repairs.is_some_and(|most| repairs >= most) {
                return Ok(Repair::Swapped);
            }
            (x, y)
        } else {
            // Safe without gravity: removing them never blocks a path.
            let safe: Vec<(usize, usize)> = pairs
                .iter()
                .copied()
                .filter(|&(a, b)| {
                    let same = &left[&view[a]];
                    match same.len() {
                        2 => true,
                        4 => {
                            let mut rest = same.iter().copied().filter(|&i| i != a && i != b);
                            let (c, d) = (rest.next().expect("four"), rest.next().expect("four"));
                            pairs.binary_search(&(c.min(d), c.max(d))).is_ok()
                        }
                        _ => false,
                    }
                })
                .collect();
            if safe.is_empty() {
                pairs[rng.below(pairs.len())]
            } else {
                safe[rng.below(safe.len())]
            }
        };
        sequence.push((point(a), point(b)));
        super::gravity::remove_pair(&mut names, width, a, b, gravity);
    }
}

/// Pairs of tiles of `board` that can be joined whatever their types
/// (`any` matches any two): those of [`REPAIR_SOURCES`] tiles drawn at
/// random that have a partner, each pair once, in the order found; none
/// only when no two tiles can be joined. Exploring from a few tiles
/// rather than all keeps a repair in proportion to the board, not to its
/// square.
fn joinable_pairs(
    board: &Board,
    any: Rules,
    rng: &mut SplitMix64,
    stop: &Stop,
) -> Result<Vec<(usize, usize)>, Interrupted> {
    let (width, height) = (board.width(), board.height());
    let cells = board.cells();
    // A tile with an open cell beside it can reach far; one shut in joins
    // only its neighbours, which touch on the board as dealt too. So the
    // tiles that can leave come first, each group in random order.
    let open = |x: i64, y: i64| {
        if x < 0 || y < 0 || x >= width as i64 || y >= height as i64 {
            any.outside
        } else {
            cells[y as usize * width + x as usize] == EMPTY
        }
    };
    let leaves = |i: usize| {
        let (x, y) = ((i % width) as i64, (i / width) as i64);
        open(x - 1, y) || open(x + 1, y) || open(x, y - 1) || open(x, y + 1)
    };
    let (mut tiles, mut shut): (Vec<usize>, Vec<usize>) = (0..cells.len())
        .filter(|&i| cells[i] != EMPTY)
        .partition(|&i| leaves(i));
    rng.shuffle(&mut tiles);
    rng.shuffle(&mut shut);
    tiles.extend(shut);
    let mut explorer = Explorer::new(board, any);
    let mut explored = vec![false; board.cells().len()];
    let mut pairs = Vec::new();
    let mut sources = 0;
    let mut work = 0;
    for a in tiles {
        if sources == REPAIR_SOURCES {
            break;
        }
        explored[a] = true;
        let mut partners = explorer.reach(a, stop, &mut work)?;
        if partners.is_empty() {
            continue;
        }
        sources += 1;
        partners.sort_unstable();
        pairs.extend(
            partners
                .into_iter()
                .filter(|&b| !explored[b])
                .map(|b| (a.min(b), a.max(b))),
        );
    }
    Ok(pairs)
}

/// For each cell of a board, the cells whose tiles it can be joined with
/// whatever their types: the moves a board can have, as the cells stand.
/// Cell `c`'s are `with[first[c]..first[c + 1]]`.
struct Joinable {
    first: Vec<u32>,
    with: Vec<u32>,
}

impl Joinable {
    fn new(board: &Board, any: Rules, stop: &Stop) -> Result<Self, Interrupted> {
        let pairs = super::moves::pairs(board, any, Some(MOVES_OPEN_LIMIT), stop)?;
        let mut first = vec![0u32; board.cells().len() + 1];
        for &(a, b) in &pairs {
            first[a + 1] += 1;
            first[b + 1] += 1;
        }
        for c in 1..first.len() {
            first[c] += first[c - 1];
        }
        let mut next = first.clone();
        let mut with = vec![0u32; 2 * pairs.len()];
        for (a, b) in pairs {
            for (from, to) in [(a, b), (b, a)] {
                with[next[from] as usize] = to as u32;
                next[from] += 1;
            }
        }
        Ok(Joinable { first, with })
    }

    /// The moves open with the tile at `cell` when the cells hold `cells`.
    fn around(&self, cells: &[u32], cell: usize) -> usize {
        let (from, to) = (self.first[cell] as usize, self.first[cell + 1] as usize);
        self.with[from..to]
            .iter()
            .filter(|&&c| cells[c as usize] == cells[cell])
            .count()
    }
}

/// How a [`repair`] ended.
enum Repair {
    /// The tiles all removed, by these moves.
    Cleared(Vec<(Point, Point)>),
    /// As many swaps made as asked.
    Swapped,
    /// Stuck with tiles left of which no two can be joined.
    Stuck,
}

/// How many of `count` random playouts, drawn from `seed`, clear `board`
/// (the playouts of [`stats`]).
fn playouts(
    board: &Board,
    rules: &Rules,
    gravity: Fall,
    seed: u64,
    count: u32,
    stop: &Stop,
) -> Result<u32, Interrupted> {
    let tiles = board.tile_count();
    let mut cleared = 0;
    let mut moves = MoveLister::new(board, rules);
    for k in 0..u64::from(count) {
        let mut rng = SplitMix64::new(seed ^ k.wrapping_mul(0xE703_7ED1_A0B4_28DB));
        let mut cells = board.cells().to_vec();
        let mut left = tiles;
        loop {
            stop.check()?;
            let pairs = moves.list(&cells, stop)?;
            if pairs.is_empty() {
                break;
            }
            let (a, b) = pairs[rng.below(pairs.len())];
            super::gravity::remove_pair(&mut cells, board.width(), a, b, gravity);
            left -= 2;
        }
        if left == 0 {
            cleared += 1;
        }
    }
    Ok(cleared)
}

/// A [`Difficulty::Medium`] deal.
fn deal_medium(
    width: usize,
    height: usize,
    tiles: &[(u32, usize)],
    rules: &Rules,
    gravity: Fall,
    seed: u64,
    stop: &Stop,
) -> Result<(Board, Vec<(Point, Point)>), DealError> {
    let mut best: Option<(usize, Dealt)> = None;
    for k in 0..MEDIUM_CANDIDATES {
        let candidate_seed = if k == 0 {
            seed
        } else {
            candidate_seed(seed, k)
        };
        let dealt = deal_once(
            width,
            height,
            tiles,
            rules,
            gravity,
            Difficulty::Medium,
            candidate_seed,
            stop,
        )?;
        let open = super::moves::pairs(&dealt.0, *rules, Some(MOVES_OPEN_LIMIT), stop)?.len();
        if best.as_ref().is_none_or(|(fewest, _)| open < *fewest) {
            best = Some((open, dealt));
        }
    }
    Ok(best.expect("at least one candidate").1)
}

#[expect(clippy::too_many_arguments, reason = "the fields of a deal request")]
fn deal_once(
    width: usize,
    height: usize,
    tiles: &[(u32, usize)],
    rules: &Rules,
    gravity: Fall,
    difficulty: Difficulty,
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
    let occupied = layout(width, height, total, gravity, &mut rng);
    let sequence = removal_sequence(
        &empty, &occupied, rules, gravity, difficulty, &mut rng, stop,
    )?
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
/// board can be cleared under `rules` and `gravity` (a [`Fall`]: with
/// [`Fall::settle`] the sequence settles every line at each removal), with
/// one clearing sequence.
pub fn shuffle_solvable(
    board: &Board,
    rules: &Rules,
    gravity: impl Into<Fall>,
    seed: u64,
    stop: &Stop,
) -> Result<(Board, Vec<(Point, Point)>), ShuffleError> {
    let gravity = gravity.into();
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
    if occupied.len() % 2 != 0 {
        return Err(ShuffleError::OddTiles {
            tiles: occupied.len(),
        });
    }
    let mut rng = SplitMix64::new(seed);
    let empty =
        Board::new(board.width(), board.height(), vec![EMPTY; cells.len()]).expect("same size");
    let sequence = match removal_sequence(
        &empty,
        &occupied,
        rules,
        gravity,
        Difficulty::Easy,
        &mut rng,
        stop,
    ) {
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
    gravity: Fall,
    difficulty: Difficulty,
    rng: &mut SplitMix64,
    stop: &Stop,
) -> Result<Option<Vec<Removal>>, Interrupted> {
    removal_sequence_within(
        empty, occupied, rules, gravity, difficulty, rng, stop, PATH_BYTES,
    )
}

/// [`removal_sequence`], keeping lists along the path up to `path_budget`
/// bytes.
#[expect(clippy::too_many_arguments, reason = "the builder's settings")]
fn removal_sequence_within(
    empty: &Board,
    occupied: &[usize],
    rules: &Rules,
    gravity: Fall,
    difficulty: Difficulty,
    rng: &mut SplitMix64,
    stop: &Stop,
    path_budget: usize,
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
        difficulty,
        stop,
        sequence: Vec::new(),
        work: 0,
        failed: HashSet::new(),
        memo_bytes: 0,
        path_bytes: 0,
        path_budget,
    };
    Ok(builder.remove_all(cells, rng)?.then_some(builder.sequence))
}

/// The most bytes the memo of failed cell sets may hold; past it the
/// builder goes on without remembering more.
const MEMO_BYTES: usize = 16 << 20;

/// The most bytes the lists kept along the builder's path may hold; past
/// it a state's lists are drawn again, from the same generator state, when
/// the builder comes back to it.
const PATH_BYTES: usize = 16 << 20;

struct Builder<'s, 'a> {
    width: usize,
    height: usize,
    rules: Rules,
    gravity: Fall,
    difficulty: Difficulty,
    stop: &'s Stop<'a>,
    sequence: Vec<Removal>,
    work: u32,
    /// Sets of occupied cells known to lead nowhere: tiles all look alike,
    /// so the set is the whole state.
    failed: HashSet<Vec<u64>>,
    memo_bytes: usize,
    path_bytes: usize,
    /// The most bytes the path's lists may take ([`PATH_BYTES`]).
    path_budget: usize,
}

/// One state on the builder's path.
struct Step {
    /// The tiles in the order they are tried, unless the path had no room
    /// to keep them, and the generator as it was before drawing that order.
    tiles: Option<Vec<u32>>,
    tiles_rng: SplitMix64,
    /// How many tiles were tried before the one being tried.
    tried: usize,
    /// The tile being tried, once its partners are drawn.
    current: Option<u32>,
    /// Its partners in the order they are tried, and the generator as it
    /// was before drawing them.
    partners: Partners,
    partners_rng: SplitMix64,
    /// The next partner to try.
    next: usize,
    /// The removal that led here, to undo on the way back.
    arrival: Option<Removed>,
}

/// The partners of the tile being tried: kept, or drawn again from the
/// saved generator when the path has no room for them.
enum Partners {
    Kept(Vec<u32>),
    Dropped,
}

impl Step {
    fn bytes(&self) -> usize {
        let list = |l: Option<&Vec<u32>>| l.map_or(0, |l| l.len() * 4);
        let partners = match &self.partners {
            Partners::Kept(p) => Some(p),
            Partners::Dropped => None,
        };
        list(self.tiles.as_ref())
            + list(partners)
            + self.arrival.as_ref().map_or(0, Removed::heap_bytes)
    }
}

impl Builder<'_, '_> {
    /// A depth-first search with an explicit stack (its depth is half the
    /// tiles), drawing from `rng` in the same order as the recursion it
    /// replaces: a state's tile order on entry, each tile's partner order
    /// when that tile is first tried.
    fn remove_all(
        &mut self,
        mut cells: Vec<u32>,
        rng: &mut SplitMix64,
    ) -> Result<bool, Interrupted> {
        let first = match self.enter(&cells, rng, None)? {
            Entry::Step(step) => step,
            Entry::Cleared => return Ok(true),
            Entry::Known(_) => return Ok(false),
        };
        let mut path = vec![first];
        // The explorer of the state on top of the path, built when needed.
        let mut explorer: Option<Explorer<'static>> = None;
        while let Some(step) = path.last_mut() {
            let (a, b) = match step.current {
                Some(a) => {
                    let b = match &step.partners {
                        Partners::Kept(partners) => partners.get(step.next).copied(),
                        Partners::Dropped => {
                            let mut again = step.partners_rng.clone();
                            self.partners(&mut explorer, &cells, a as usize, &mut again)?
                                .get(step.next)
                                .copied()
                        }
                    };
                    (a as usize, b)
                }
                None => {
                    let tile = match &step.tiles {
                        Some(tiles) => tiles.get(step.tried).copied(),
                        None => self
                            .tiles(&cells, step.tiles_rng.clone())
                            .get(step.tried)
                            .copied(),
                    };
                    let Some(a) = tile else {
                        let step = path.pop().expect("the last step");
                        self.path_bytes -= step.bytes();
                        self.remember(&cells);
                        explorer = None;
                        if let Some(arrival) = step.arrival {
                            arrival.undo(&mut cells);
                            self.sequence.pop();
                        }
                        continue;
                    };
                    step.partners_rng = rng.clone();
                    let partners = self.partners(&mut explorer, &cells, a as usize, rng)?;
                    let b = partners.first().copied();
                    let bytes = partners.len() * 4;
                    step.partners = if self.path_bytes + bytes <= self.path_budget {
                        self.path_bytes += bytes;
                        Partners::Kept(partners)
                    } else {
                        Partners::Dropped
                    };
                    step.current = Some(a);
                    step.next = 0;
                    (a as usize, b)
                }
            };
            let Some(b) = b else {
                // Every partner of this tile failed: the next tile.
                if let Partners::Kept(partners) = &step.partners {
                    self.path_bytes -= partners.len() * 4;
                }
                step.partners = Partners::Dropped;
                step.current = None;
                step.tried += 1;
                continue;
            };
            step.next += 1;
            let b = b as usize;
            let origins = [cells[a] as usize - 1, cells[b] as usize - 1];
            let arrival = remove_pair_undoable(&mut cells, self.width, a, b, self.gravity);
            let point = |i: usize| Point::new((i % self.width) as i32, (i / self.width) as i32);
            self.sequence.push(Removal {
                from: point(a),
                to: point(b),
                origins,
            });
            explorer = None;
            match self.enter(&cells, rng, Some(arrival))? {
                Entry::Step(step) => path.push(step),
                Entry::Cleared => return Ok(true),
                Entry::Known(arrival) => {
                    // Known to lead nowhere: back to the state below.
                    arrival.expect("given above").undo(&mut cells);
                    self.sequence.pop();
                }
            }
        }
        Ok(false)
    }

    /// A new state: cleared, known to fail, or a step whose tile order is
    /// drawn now.
    fn enter(
        &mut self,
        cells: &[u32],
        rng: &mut SplitMix64,
        arrival: Option<Removed>,
    ) -> Result<Entry, Interrupted> {
        let tiles_rng = rng.clone();
        let mut tiles: Vec<u32> = (0..cells.len() as u32)
            .filter(|&i| cells[i as usize] != EMPTY)
            .collect();
        if tiles.is_empty() {
            return Ok(Entry::Cleared);
        }
        if self.failed.contains(&self.key(cells)) {
            return Ok(Entry::Known(arrival));
        }
        self.stop.check()?;
        rng.shuffle(&mut tiles);
        let mut step = Step {
            tiles: Some(tiles),
            tiles_rng,
            tried: 0,
            current: None,
            partners: Partners::Dropped,
            partners_rng: rng.clone(),
            next: 0,
            arrival,
        };
        if self.path_bytes + step.bytes() > self.path_budget {
            step.tiles = None;
        }
        self.path_bytes += step.bytes();
        Ok(Entry::Step(step))
    }

    /// The tiles of `cells` in the order `rng` draws.
    fn tiles(&self, cells: &[u32], mut rng: SplitMix64) -> Vec<u32> {
        let mut tiles: Vec<u32> = (0..cells.len() as u32)
            .filter(|&i| cells[i as usize] != EMPTY)
            .collect();
        rng.shuffle(&mut tiles);
        tiles
    }

    /// The tiles that tile `a` can be joined to, in the order `rng` draws.
    fn partners(
        &mut self,
        explorer: &mut Option<Explorer<'static>>,
        cells: &[u32],
        a: usize,
        rng: &mut SplitMix64,
    ) -> Result<Vec<u32>, Interrupted> {
        let explorer = explorer.get_or_insert_with(|| {
            let board = Board::new(self.width, self.height, cells.to_vec()).expect("same size");
            Explorer::owned(board, self.rules)
        });
        let mut partners = explorer.reach(a, self.stop, &mut self.work)?;
        partners.sort_unstable();
        rng.shuffle(&mut partners);
        if self.difficulty != Difficulty::Easy {
            // The distance between the starting cells, which the tiles'
            // names carry; stable, so the shuffle breaks ties.
            let w = self.width;
            let origin = |i: usize| {
                let o = cells[i] as usize - 1;
                ((o % w) as isize, (o / w) as isize)
            };
            let (ax, ay) = origin(a);
            partners.sort_by_key(|&b| {
                let (bx, by) = origin(b);
                std::cmp::Reverse((ax - bx).abs() + (ay - by).abs())
            });
        }
        Ok(partners.into_iter().map(|b| b as u32).collect())
    }

    fn key(&self, cells: &[u32]) -> Vec<u64> {
        let mut key = vec![0u64; cells.len().div_ceil(64)];
        for (t, _) in cells.iter().enumerate().filter(|&(_, &c)| c != EMPTY) {
            key[t / 64] |= 1 << (t % 64);
        }
        key
    }

    /// Remembers the cells of `cells` as a set that leads nowhere, while
    /// the memo has room.
    fn remember(&mut self, cells: &[u32]) {
        let key = self.key(cells);
        let bytes = key.len() * 8 + 48;
        if self.memo_bytes + bytes <= MEMO_BYTES {
            self.memo_bytes += bytes;
            self.failed.insert(key);
        }
    }
}

/// What a deal is like to play: measured on the board as dealt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DealStats {
    /// The moves open at the start, counted up to [`MOVES_OPEN_LIMIT`].
    pub moves_open: usize,
    /// How many random playouts were made: [`PLAYOUTS`], or none on a
    /// board of more than [`PLAYOUT_TILES`] tiles.
    pub playouts: u32,
    /// How many of them cleared the board.
    pub cleared: u32,
}

/// The most moves [`DealStats::moves_open`] counts (with `match: any` a
/// big board has a number of moves that grows with the square of its
/// tiles).
pub const MOVES_OPEN_LIMIT: usize = 100_000;

/// The random playouts of [`stats`].
pub const PLAYOUTS: u32 = 32;

/// The most tiles a board may have for [`stats`] to play it out.
pub const PLAYOUT_TILES: usize = 1024;

/// Measures `board` under `rules` and `gravity` (a [`Fall`]): the moves open at the
/// start, and how many of [`PLAYOUTS`] random playouts, drawn from `seed`,
/// clear it. A playout takes, until none is left, a move drawn uniformly
/// from every move open, and never shuffles.
pub fn stats(
    board: &Board,
    rules: &Rules,
    gravity: impl Into<Fall>,
    seed: u64,
    stop: &Stop,
) -> Result<DealStats, Interrupted> {
    let gravity = gravity.into();
    let moves_open = super::moves::pairs(board, *rules, Some(MOVES_OPEN_LIMIT), stop)?.len();
    let playouts = if board.tile_count() <= PLAYOUT_TILES {
        PLAYOUTS
    } else {
        0
    };
    let cleared = self::playouts(board, rules, gravity, seed, playouts, stop)?;
    Ok(DealStats {
        moves_open,
        playouts,
        cleared,
    })
}

/// Lists the moves of a board state: pair by pair when only tiles of one
/// type match, by exploring from every tile otherwise.
struct MoveLister {
    width: usize,
    height: usize,
    rules: Rules,
    links: Option<super::link::Links>,
    /// Scratch: the tiles of a state by type.
    tiles: Vec<(u32, usize, bool)>,
    work: u32,
}

impl MoveLister {
    fn new(board: &Board, rules: &Rules) -> Self {
        let mut kinds: Vec<u32> = board
            .cells()
            .iter()
            .copied()
            .filter(|&c| c != EMPTY)
            .collect();
        kinds.sort_unstable();
        // Pair by pair costs the square of a type's tiles.
        let few = kinds.chunk_by(|a, b| a == b).all(|run| run.len() <= 16);
        let links = (rules.matching == Match::Same && few)
            .then(|| super::link::Links::new(board.width(), board.cells(), rules));
        MoveLister {
            width: board.width(),
            height: board.height(),
            rules: *rules,
            links,
            tiles: Vec::new(),
            work: 0,
        }
    }

    fn list(&mut self, cells: &[u32], stop: &Stop) -> Result<Vec<(usize, usize)>, Interrupted> {
        let Some(links) = self.links.as_mut() else {
            let board = Board::new(self.width, self.height, cells.to_vec()).expect("same size");
            return super::moves::pairs(&board, self.rules, Some(MOVES_OPEN_LIMIT), stop);
        };
        links.reset(cells);
        // The tiles of each type in reading order, each with whether a
        // path can leave it: two tiles that are not neighbours are joined
        // only when both can.
        self.tiles.clear();
        self.tiles.extend(
            (0..cells.len())
                .filter(|&i| cells[i] != EMPTY)
                .map(|i| (cells[i], i, links.can_leave(i))),
        );
        self.tiles.sort_unstable_by_key(|&(kind, i, _)| (kind, i));
        let width = self.width;
        let neighbours = |a: usize, b: usize| b - a == width || (b - a == 1 && b % width != 0);
        let mut pairs = Vec::new();
        for kind in self.tiles.chunk_by(|a, b| a.0 == b.0) {
            for (i, &(_, a, a_leaves)) in kind.iter().enumerate() {
                for &(_, b, b_leaves) in &kind[i + 1..] {
                    stop.tick(&mut self.work)?;
                    if ((a_leaves && b_leaves) || neighbours(a, b)) && links.connected(a, b) {
                        pairs.push((a, b));
                    }
                }
            }
        }
        pairs.sort_unstable();
        Ok(pairs)
    }
}

/// What entering a state found.
enum Entry {
    Step(Step),
    Cleared,
    /// Known to lead nowhere; the removal that led there, to undo.
    Known(Option<Removed>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Preset;

    /// The moves of a Lianliankan repair of `cells` (`width` wide) that
    /// clears them, drawn from `seed`.
    fn cleared_by_repair(cells: &mut [u32], width: usize, seed: u64) -> Vec<(Point, Point)> {
        let rules = Preset::Lianliankan.rules();
        let mut rng = SplitMix64::new(seed);
        let repaired = repair(
            cells,
            width,
            &rules,
            Gravity::None.into(),
            None,
            &mut rng,
            &Stop::never(),
        );
        match repaired {
            Ok(Repair::Cleared(moves)) => moves,
            _ => panic!("not cleared: {cells:?}"),
        }
    }

    /// A crossed square under Lianliankan has no move: the repair swaps the
    /// types of two tiles so that two that touch match, and clears it.
    #[test]
    fn a_stuck_board_is_repaired_by_one_swap_and_cleared() {
        let rules = Preset::Lianliankan.rules();
        let (a, b) = (1, 2);
        let mut rng = SplitMix64::new(0);
        let mut once = vec![a, b, b, a];
        let swapped = repair(
            &mut once,
            2,
            &rules,
            Gravity::None.into(),
            Some(1),
            &mut rng,
            &Stop::never(),
        );
        assert!(matches!(swapped, Ok(Repair::Swapped)));
        let mut cells = vec![a, b, b, a];
        let moves = cleared_by_repair(&mut cells, 2, 0);
        assert_eq!(cells, once);
        assert_eq!(cells, vec![b, a, b, a]);
        let point = |x, y| Point::new(x, y);
        assert_eq!(
            moves,
            vec![(point(1, 0), point(1, 1)), (point(0, 0), point(0, 1))]
        );
    }

    /// A row `a b a b` under Lianliankan has no move. Making the first
    /// two one type (`a a b b`) would open two moves at the start; the
    /// repair takes a swap that opens one, whatever its generator draws.
    #[test]
    fn a_repair_opens_the_fewest_moves_at_the_start() {
        let (a, b) = (1, 2);
        let mut seen = HashSet::new();
        for seed in 0..32 {
            let mut cells = vec![a, b, a, b];
            let moves = cleared_by_repair(&mut cells, 4, seed);
            assert!(cells == [a, b, b, a] || cells == [b, a, a, b], "{cells:?}");
            let point = |x| Point::new(x, 0);
            assert_eq!(moves, vec![(point(1), point(2)), (point(0), point(3))]);
            seen.insert(cells);
        }
        assert_eq!(seen.len(), 2, "both swaps that open one move are drawn");
    }

    /// On small random boards under every preset, the pairs a repair
    /// weighs are joinable pairs of the board, each once, and there are
    /// none only when the board has none.
    #[test]
    fn a_repair_weighs_joinable_pairs_and_finds_one_when_there_is_one() {
        let mut rng = SplitMix64::new(11);
        let (mut found, mut none) = (0, 0);
        for _ in 0..600 {
            let (w, h) = (1 + rng.below(6), 1 + rng.below(5));
            let fill = 10 + rng.below(80);
            let board = Board::new(w, h, rng.occupancy(w * h, fill)).unwrap();
            // One straight segment leaves many tiles without a partner.
            let straight = Rules {
                max_segments: Some(1),
                outside: false,
                ..Preset::Lianliankan.rules()
            };
            let rule_sets = [Preset::ShisenSho, Preset::Lianliankan, Preset::Mahjong]
                .map(Preset::rules)
                .into_iter()
                .chain([straight]);
            for rules in rule_sets {
                let any = Rules {
                    matching: Match::Any,
                    ..rules
                };
                let all = super::super::moves::pairs(&board, any, None, &Stop::never()).unwrap();
                let weighed = joinable_pairs(&board, any, &mut rng, &Stop::never()).unwrap();
                let distinct: HashSet<_> = weighed.iter().copied().collect();
                assert_eq!(distinct.len(), weighed.len(), "{board:?}");
                assert!(weighed.iter().all(|p| all.contains(p)), "{board:?}");
                assert_eq!(weighed.is_empty(), all.is_empty(), "{board:?} {rules:?}");
                if weighed.is_empty() {
                    none += 1;
                } else {
                    found += 1;
                }
            }
        }
        assert!(found > 1000 && none > 50, "{found} / {none}");
    }

    /// Lists drawn again from the saved generator, when the path keeps
    /// none, give the same removals: the same deals for the same seeds.
    #[test]
    fn a_path_that_keeps_no_list_builds_the_same_sequence() {
        let mut rng = SplitMix64::new(3);
        for seed in 0..300 {
            let (w, h) = (2 + rng.below(6), 2 + rng.below(5));
            let empty = Board::new(w, h, vec![EMPTY; w * h]).unwrap();
            let mut occupied: Vec<usize> = (0..w * h).filter(|_| rng.below(5) != 0).collect();
            occupied.truncate(occupied.len() / 2 * 2);
            for preset in [Preset::ShisenSho, Preset::Lianliankan, Preset::Mahjong] {
                let falls = [
                    Gravity::None.into(),
                    Gravity::Down.into(),
                    Gravity::Left.into(),
                    Fall::new(Gravity::Up, true),
                ];
                for gravity in falls {
                    let rules = preset.rules();
                    let build = |budget| {
                        let mut draws = SplitMix64::new(seed);
                        removal_sequence_within(
                            &empty,
                            &occupied,
                            &rules,
                            gravity,
                            Difficulty::Medium,
                            &mut draws,
                            &Stop::never(),
                            budget,
                        )
                        .unwrap()
                        .map(|s| {
                            s.iter()
                                .map(|r| (r.from, r.to, r.origins))
                                .collect::<Vec<_>>()
                        })
                    };
                    assert_eq!(
                        build(PATH_BYTES),
                        build(0),
                        "{w} x {h} {occupied:?} {preset:?} {gravity:?}"
                    );
                }
            }
        }
    }
}
