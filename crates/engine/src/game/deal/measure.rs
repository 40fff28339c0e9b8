//! What a deal is like to play: the moves open at the start, and how many
//! random playouts clear the board. The playouts list each state's moves
//! with [`MoveLister`], which a hard deal's repair shares.

use crate::game::gravity::{Fall, remove_pair};
use crate::game::link::Links;
use crate::game::moves;
use crate::rng::SplitMix64;
use crate::{Board, EMPTY, Interrupted, Match, Rules, Stop};

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

/// Measures `board` under `rules` and `fall`: the moves open at the start, and how many of [`PLAYOUTS`] random playouts, drawn from `seed`,
/// clear it. A playout takes, until none is left, a move drawn uniformly
/// from every move open, and never shuffles.
pub fn stats(
    board: &Board,
    rules: &Rules,
    fall: impl Into<Fall>,
    seed: u64,
    stop: &Stop,
) -> Result<DealStats, Interrupted> {
    let fall = fall.into();
    let moves_open = moves::pairs(board, *rules, Some(MOVES_OPEN_LIMIT), stop)?.len();
    let playouts = if board.tile_count() <= PLAYOUT_TILES {
        PLAYOUTS
    } else {
        0
    };
    let cleared = self::playouts(board, rules, fall, seed, playouts, stop)?;
    Ok(DealStats {
        moves_open,
        playouts,
        cleared,
    })
}

/// Lists the moves of a board state: pair by pair when only tiles of one
/// type match, by exploring from every tile otherwise.
pub(super) struct MoveLister {
    width: usize,
    height: usize,
    rules: Rules,
    links: Option<Links>,
    /// Scratch: the tiles of a state by type.
    tiles: Vec<u32>,
    work: u32,
}

impl MoveLister {
    pub(super) fn new(board: &Board, rules: &Rules) -> Self {
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
            .then(|| Links::new(board.width(), board.cells(), rules));
        MoveLister {
            width: board.width(),
            height: board.height(),
            rules: *rules,
            links,
            tiles: Vec::new(),
            work: 0,
        }
    }

    pub(super) fn list(
        &mut self,
        cells: &[u32],
        stop: &Stop,
    ) -> Result<Vec<(usize, usize)>, Interrupted> {
        let Some(links) = self.links.as_mut() else {
            let board = Board::new(self.width, self.height, cells.to_vec()).expect("same size");
            return moves::pairs(&board, self.rules, Some(MOVES_OPEN_LIMIT), stop);
        };
        // The tiles of each type in reading order.
        self.tiles.clear();
        self.tiles
            .extend((0..cells.len() as u32).filter(|&i| cells[i as usize] != EMPTY));
        self.tiles.sort_unstable_by_key(|&i| (cells[i as usize], i));
        let pairs = links.pairs(cells, &self.tiles, usize::MAX, stop, &mut self.work)?;
        Ok(pairs.expect("no bound on the pairs"))
    }
}

/// How many of `count` random playouts, drawn from `seed`, clear `board`
/// (the playouts of [`stats`]).
pub(super) fn playouts(
    board: &Board,
    rules: &Rules,
    fall: Fall,
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
            remove_pair(&mut cells, board.width(), a, b, fall);
            left -= 2;
        }
        if left == 0 {
            cleared += 1;
        }
    }
    Ok(cleared)
}
