//! Dealing boards that can be cleared: the public entry, what a deal asks
//! for ([`Deal`]), and the easy and medium deals.
//!
//! A deal is built from a removal sequence found first ([`build`]), with tile types
//! ignored: starting from the cells that will hold tiles (a layout's
//! marked cells, or the bottom rows: [`layout`]), the builder
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
//! that keeps every removal before legal) until it can be cleared
//! ([`repair`]). [`stats`] measures the result ([`measure`]). The solvable
//! shuffle ([`super::shuffle_solvable`]) uses the same builder.

mod build;
mod layout;
mod measure;
mod repair;

pub(super) use build::{Untyped, removal_sequence, typed};
pub use measure::{DealStats, MOVES_OPEN_LIMIT, PLAYOUT_TILES, PLAYOUTS, stats};

use super::gravity::{Fall, Gravity};
use super::moves;
use crate::rng::SplitMix64;
use crate::{Board, BoardError, EMPTY, Interrupted, Point, Rules, Stop};
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
    /// [`HARD_CHECKS`](repair::HARD_CHECKS) times and
    /// [`HARD_WORK`](repair::HARD_WORK) in all, then every stuck point
    /// repaired along one playout, whose moves are the sequence). Of
    /// [`HARD_CANDIDATES`](repair::HARD_CANDIDATES) such boards, the one
    /// with the fewest moves open plus [`CLEAR_WEIGHT`](repair::CLEAR_WEIGHT)
    /// for each of its [`HARD_PLAYOUTS`](repair::HARD_PLAYOUTS) random
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
    #[error("{} do not fill the layout's {}, expected one tile on each", count(*tiles, "tile", "tiles"), count(*cells, "marked cell", "marked cells"))]
    LayoutCount { tiles: usize, cells: usize },
    #[error("the layout's cells are not distinct cells of the board in reading order")]
    LayoutCells,
    #[error("the layout's cell {cell} floats: settling lets every tile fall {} at the first removal, expected a layout that stands on that side, or no settling", gravity.name())]
    Floating { cell: Point, gravity: Gravity },
    #[error(transparent)]
    Board(#[from] BoardError),
    #[error("no removal sequence exists for these cells under these rules")]
    NoSequence,
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
}

/// "1 tile", "3 tiles".
pub(super) fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// What to deal: a `width × height` board holding `copies` tiles of each
/// `(type, copies)` of `tiles` (even counts), with one sequence of moves
/// that clears it under `rules` and `fall`, partners picked as
/// `difficulty` asks, every draw from `seed`.
#[derive(Clone, Copy, Debug)]
pub struct Deal<'t> {
    pub width: usize,
    pub height: usize,
    pub tiles: &'t [(u32, usize)],
    /// The cells that take the tiles (row-major indices, in reading order),
    /// one tile on each: as many as the tiles. With [`Fall::settle`] none
    /// may float (have an unmarked cell between it and the gravity side).
    /// When `None`, the bottom rows, as [`deal`] says.
    pub layout: Option<&'t [usize]>,
    pub rules: Rules,
    pub fall: Fall,
    pub difficulty: Difficulty,
    pub seed: u64,
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
    fall: impl Into<Fall>,
    seed: u64,
    stop: &Stop,
) -> Result<(Board, Vec<(Point, Point)>), DealError> {
    let deal = Deal {
        width,
        height,
        tiles,
        layout: None,
        rules: *rules,
        fall: fall.into(),
        difficulty: Difficulty::Easy,
        seed,
    };
    deal_with(&deal, stop)
}

/// [`deal`] at a [`Difficulty`]; [`Difficulty::Easy`] is [`deal`].
pub fn deal_with(deal: &Deal, stop: &Stop) -> Result<(Board, Vec<(Point, Point)>), DealError> {
    deal_measured(deal, stop).map(|(board, moves, _)| (board, moves))
}

/// [`deal_with`], and the deal's [`stats`] (drawn from the same seed).
pub fn deal_measured(deal: &Deal, stop: &Stop) -> Result<Measured, DealError> {
    if deal.difficulty == Difficulty::Hard
        && let Some(dealt) = repair::deal_placed(deal, stop)?
    {
        return Ok(dealt);
    }
    let (board, moves) = match deal.difficulty {
        Difficulty::Easy => deal_once(deal, stop)?,
        _ => deal_medium(deal, stop)?,
    };
    let measured = stats(&board, &deal.rules, deal.fall, deal.seed, stop)?;
    Ok((board, moves, measured))
}

/// A [`Difficulty::Medium`] deal.
fn deal_medium(deal: &Deal, stop: &Stop) -> Result<Dealt, DealError> {
    let mut best: Option<(usize, Dealt)> = None;
    for k in 0..MEDIUM_CANDIDATES {
        let candidate = Deal {
            difficulty: Difficulty::Medium,
            seed: if k == 0 {
                deal.seed
            } else {
                candidate_seed(deal.seed, k)
            },
            ..*deal
        };
        let dealt = deal_once(&candidate, stop)?;
        let open = moves::pairs(&dealt.0, deal.rules, Some(MOVES_OPEN_LIMIT), stop)?.len();
        if best.as_ref().is_none_or(|(fewest, _)| open < *fewest) {
            best = Some((open, dealt));
        }
    }
    Ok(best.expect("at least one candidate").1)
}

/// One deal built from a removal sequence, partners picked as
/// `deal.difficulty` asks.
fn deal_once(deal: &Deal, stop: &Stop) -> Result<Dealt, DealError> {
    let Deal { width, height, .. } = *deal;
    let mut slots = Vec::new();
    for &(kind, copies) in deal.tiles {
        if copies % 2 != 0 {
            return Err(DealError::OddCopies { kind, copies });
        }
        slots.extend(std::iter::repeat_n(kind, copies / 2));
    }
    let total = slots.len() * 2;
    let mut rng = SplitMix64::new(deal.seed);
    let occupied = layout::cells(width, height, deal.layout, total, deal.fall, &mut rng, stop)?;
    let empty = Board::new(width, height, vec![EMPTY; width * height])?;
    let untyped = Untyped {
        empty: &empty,
        occupied: &occupied,
        rules: &deal.rules,
        fall: deal.fall,
        difficulty: deal.difficulty,
    };
    let sequence = removal_sequence(&untyped, &mut rng, stop)?.ok_or(DealError::NoSequence)?;
    rng.shuffle(&mut slots);
    let board = typed(&empty, &sequence, &slots);
    Ok((
        board,
        sequence.into_iter().map(|r| (r.from, r.to)).collect(),
    ))
}
