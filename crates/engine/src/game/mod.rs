//! Game features over the engine: the moves a player can make now, playing
//! a sequence of moves with gravity, clearing a board, dealing boards that
//! can be cleared, and shuffling a stuck board.
//!
//! Everything here is deterministic: the same input (seed included) gives
//! the same output on every platform. All functions need `line` movement.
//!
//! ```
//! use linkpath_engine::game::{self, Gravity};
//! use linkpath_engine::{Board, Preset, Stop};
//! let board = Board::from_rows(&["AB", "BA"]).unwrap();
//! let rules = Preset::Lianliankan.rules();
//! // Each pair blocks the other: no move, and no way to clear the board.
//! assert!(game::moves(&board, &rules, None, &Stop::never()).unwrap().is_empty());
//! let outcome = game::clear(&board, &rules, Gravity::None, None, &Stop::never()).unwrap();
//! assert_eq!(outcome.result, game::Clearing::Impossible);
//! ```

mod clear;
mod deal;
mod gravity;
mod layers;
mod link;
mod moves;
mod pairing;
mod shuffle;

pub use clear::{ClearOptions, Clearing, Decided, Outcome, clear, clear_with};
pub use deal::{
    Deal, DealError, DealStats, Difficulty, MOVES_OPEN_LIMIT, PLAYOUT_TILES, PLAYOUTS, deal,
    deal_measured, deal_with, stats,
};
pub use gravity::{Fall, Gravity};
pub use shuffle::{ShuffleError, relocation, shuffle, shuffle_solvable};

use super::{
    Answer, Board, EMPTY, Interrupted, Match, Path, Point, Query, Reason, Rules, Solver, Stop,
};
use gravity::remove_pair_shifts;

/// One removal: two tiles and the path that joins them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    pub from: Point,
    pub to: Point,
    /// The fewest segments and, among those, the shortest path: what
    /// [`Solver::answer`] gives for this pair.
    pub path: Path,
}

fn point(board: &Board, index: usize) -> Point {
    let w = board.width();
    Point::new((index % w) as i32, (index / w) as i32)
}

/// Every pair of tiles that can be removed now, at most `limit`, ordered by
/// the first tile then the second in reading order (row by row), the first
/// before the second. With `match: any` that is every connected pair.
pub fn moves(
    board: &Board,
    rules: &Rules,
    limit: Option<usize>,
    stop: &Stop,
) -> Result<Vec<Move>, Interrupted> {
    let pairs = moves::pairs(board, *rules, limit, stop)?;
    with_paths(board, rules, pairs, stop)
}

/// The moves of `pairs` (board indices the explorer found joined), each
/// with the path [`Solver::answer`] gives from the first to the second.
fn with_paths(
    board: &Board,
    rules: &Rules,
    pairs: Vec<(usize, usize)>,
    stop: &Stop,
) -> Result<Vec<Move>, Interrupted> {
    let mut solver = Solver::new(board, *rules);
    let mut found = Vec::with_capacity(pairs.len());
    for (a, b) in pairs {
        let (from, to) = (point(board, a), point(board, b));
        match solver.answer(Query::new(from, to), stop)? {
            Answer::Connected(path) => found.push(Move { from, to, path }),
            Answer::NotConnected(reason) => {
                debug_assert!(false, "{from} -> {to} explored as connected: {reason}");
            }
        }
    }
    Ok(found)
}

/// The moves of the tile at `from`: its partners (tiles it can be removed
/// with now) in reading order, at most `limit`, each path from `from` to
/// the partner as [`Solver::answer`] gives it. `from` must be a tile on the
/// board; one exploration from it finds the partners, so this costs a small
/// part of [`moves`] on a large board.
pub fn moves_from(
    board: &Board,
    rules: &Rules,
    from: Point,
    limit: Option<usize>,
    stop: &Stop,
) -> Result<Vec<Move>, Interrupted> {
    let w = board.width();
    let a = from.y as usize * w + from.x as usize;
    let cells = board.cells();
    debug_assert!(cells[a] != EMPTY, "{from} is not a tile");
    let mut work = 0;
    let mut partners = moves::Explorer::new(board, *rules).reach(a, stop, &mut work)?;
    partners.retain(|&b| rules.matching == Match::Any || cells[b] == cells[a]);
    partners.sort_unstable();
    partners.truncate(limit.unwrap_or(usize::MAX));
    let pairs = partners.into_iter().map(|b| (a, b)).collect();
    with_paths(board, rules, pairs, stop)
}

/// How many moves [`moves`] would list, counting up to `limit`; cheaper,
/// as no path is drawn.
pub fn moves_open(
    board: &Board,
    rules: &Rules,
    limit: usize,
    stop: &Stop,
) -> Result<usize, Interrupted> {
    Ok(moves::pairs(board, *rules, Some(limit), stop)?.len())
}

/// Whether `board` has no tile left.
pub fn cleared(board: &Board) -> bool {
    board.cells().iter().all(|&c| c == EMPTY)
}

/// Whether tiles are left but none can be removed.
pub fn stuck(board: &Board, rules: &Rules, stop: &Stop) -> Result<bool, Interrupted> {
    Ok(!cleared(board) && moves::pairs(board, *rules, Some(1), stop)?.is_empty())
}

/// A sequence of moves played on a board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The board after the last legal move.
    pub board: Board,
    /// The path of each move applied, in order.
    pub steps: Vec<Path>,
    /// For each move applied, the tiles that fell after its pair was
    /// removed, as (from, to), in reading order of `from`.
    pub moved: Vec<Vec<(Point, Point)>>,
    /// The index of the move that could not be made, and why; the moves
    /// after it were not tried.
    pub stopped: Option<(usize, Reason)>,
}

/// Plays `moves` in order on `board`: each must join two tiles as
/// [`Solver::answer`] would on the board of its turn; the pair is removed,
/// then the tiles fall by `fall` (a [`Gravity`] alone does not settle).
/// Points must be on the board.
pub fn play(
    board: &Board,
    rules: &Rules,
    fall: impl Into<Fall>,
    moves: &[(Point, Point)],
    stop: &Stop,
) -> Result<Played, Interrupted> {
    let played = play_within(board, rules, fall, moves, usize::MAX, stop)?;
    Ok(played.expect("no bound on the tiles that fall"))
}

/// [`play`], `None` once more than `max_moved` tiles have fallen over all
/// the moves: each move may make a whole line fall, so the list of
/// [`Played::moved`] can grow with the moves times the board's side.
pub fn play_within(
    board: &Board,
    rules: &Rules,
    fall: impl Into<Fall>,
    moves: &[(Point, Point)],
    max_moved: usize,
    stop: &Stop,
) -> Result<Option<Played>, Interrupted> {
    let fall = fall.into();
    let mut fallen = 0usize;
    let mut board = board.clone();
    let mut steps = Vec::with_capacity(moves.len());
    let mut moved = Vec::with_capacity(moves.len());
    let mut shifts = Vec::new();
    for (i, &(from, to)) in moves.iter().enumerate() {
        // Each move prepares a solver over the whole board: poll between.
        stop.check()?;
        let answer = Solver::new(&board, *rules).answer(Query::new(from, to), stop)?;
        match answer {
            Answer::Connected(path) => {
                steps.push(path);
                let (w, h) = (board.width(), board.height());
                let mut cells = board.into_cells();
                shifts.clear();
                remove_pair_shifts(
                    &mut cells,
                    w,
                    from.y as usize * w + from.x as usize,
                    to.y as usize * w + to.x as usize,
                    fall,
                    Some(&mut shifts),
                );
                board = Board::new(w, h, cells).expect("same size");
                fallen = fallen.saturating_add(shifts.len());
                if fallen > max_moved {
                    return Ok(None);
                }
                let fell = shifts
                    .iter()
                    .map(|&(a, b)| (point(&board, a), point(&board, b)));
                moved.push(fell.collect());
            }
            Answer::NotConnected(reason) => {
                return Ok(Some(Played {
                    board,
                    steps,
                    moved,
                    stopped: Some((i, reason)),
                }));
            }
        }
    }
    Ok(Some(Played {
        board,
        steps,
        moved,
        stopped: None,
    }))
}
