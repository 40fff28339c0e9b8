//! The engine: boards, rules, and the searches that answer queries.
//!
//! Pure Rust with no I/O: the HTTP layer and the judge formats both build a
//! [`Board`], pick [`Rules`], and call [`solve`] (or [`Solver`] for one query
//! at a time).
//!
//! ```
//! use linkpath_engine::{solve, Answer, Board, Point, Preset, Query, Stop};
//! let board = Board::from_rows(&["XXXXX", "X   X", "XXX X", " XXX "]).unwrap();
//! let query = Query::new(Point::new(1, 2), Point::new(4, 2));
//! let answers = solve(&board, &Preset::Mahjong.rules(), &[query], &Stop::never()).unwrap();
//! let Answer::Connected(path) = &answers[0] else { panic!("connected") };
//! assert_eq!(path.segments, 4);
//! assert_eq!(path.corners, [(1, 2), (1, 1), (3, 1), (3, 2), (4, 2)].map(|(x, y)| Point::new(x, y)));
//! ```

mod board;
pub mod game;
mod grid;
mod groups;
mod line;
mod lines;
mod pages;
mod rng;
mod rules;
mod runs;
mod slide;
mod stop;
mod two_turn;

pub use board::{Board, BoardError, EMPTY, MAX_SIDE, Point, tile_of_char};
pub use groups::{Groups, GroupsError};
pub use pages::Pages;
pub use rng::SplitMix64;
pub use rules::{Match, Movement, Preset, Rules, UnknownPreset};
pub use stop::{Interrupted, Stop};

use grid::Grid;
use lines::Lines;
use runs::{RunSearch, Runs};
use slide::Rink;
use std::fmt;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One question: can `from` reach `to`?
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Query {
    pub from: Point,
    pub to: Point,
}

impl Query {
    pub const fn new(from: Point, to: Point) -> Self {
        Query { from, to }
    }
}

/// A path: its segment count (throws for `slide` movement) and its corner
/// points from start to end inclusive (for `slide`: the start, every stop,
/// the goal). The corners are empty when the [`Solver`] was told not to
/// work out paths ([`Solver::without_paths`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    pub segments: u32,
    pub corners: Vec<Point>,
}

/// Why two cells do not connect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Reason {
    /// No path within the rules.
    NoPath,
    /// The rules want tiles of the same type (or group) and these differ.
    TypeMismatch,
    /// A `line` endpoint is an empty cell.
    NotATile,
    /// A `slide` endpoint is a block.
    Blocked,
    /// Both ends are the same cell.
    SameCell,
}

impl Reason {
    /// The name used on the wire and in metrics.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The answer to one query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Connected(Path),
    NotConnected(Reason),
}

impl Answer {
    /// The segment count when connected.
    pub fn segments(&self) -> Option<u32> {
        match self {
            Answer::Connected(path) => Some(path.segments),
            Answer::NotConnected(_) => None,
        }
    }
}

/// Why a batch could not be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    #[error("query {query}: {point} is off the {width} x {height} board")]
    OffBoard {
        query: usize,
        point: Point,
        width: usize,
        height: usize,
    },
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
}

/// Answers every query on `board` under `rules`, in order. Each query sees
/// the board as given. Big batches are spread over the cores
/// ([`Solver::answer_all`]).
pub fn solve(
    board: &Board,
    rules: &Rules,
    queries: &[Query],
    stop: &Stop,
) -> Result<Vec<Answer>, SolveError> {
    for (index, query) in queries.iter().enumerate() {
        for point in [query.from, query.to] {
            if !board.contains(point) {
                return Err(SolveError::OffBoard {
                    query: index,
                    point,
                    width: board.width(),
                    height: board.height(),
                });
            }
        }
    }
    Ok(Solver::new(board, *rules).answer_all(queries, stop)?)
}

/// Answers queries on one board, building what the searches share (padded
/// grid, runs) once, on first need, and keeping each thread's working
/// memory (search space, labels) across its queries.
pub struct Solver<'b> {
    batch: Batch<'b>,
    /// The working memory of [`Solver::answer`]'s calls.
    own: Scratch,
}

/// What every query of a batch reads and no search changes: shared by the
/// threads answering it.
struct Batch<'b> {
    board: &'b Board,
    rules: Rules,
    /// Whether answers carry their corners.
    paths: bool,
    grid: OnceLock<Grid>,
    runs: OnceLock<Runs>,
}

/// One thread's working memory, reused across its queries.
#[derive(Default)]
struct Scratch {
    lines: Option<Lines>,
    run_search: Option<RunSearch>,
    cells: Option<line::Scratch>,
    rink: Option<Rink>,
}

/// A batch worth spreading over threads: more than one query, each of which
/// may search the board (not just check shapes), on a board whose searches
/// cost more than handing queries to another thread.
fn worth_threads(board: &Board, rules: &Rules, queries: usize) -> bool {
    !rules.needs_no_search() && queries > 1 && board.width() * board.height() * queries >= 1 << 14
}

impl<'b> Solver<'b> {
    pub fn new(board: &'b Board, rules: Rules) -> Self {
        Solver {
            batch: Batch {
                board,
                rules,
                paths: true,
                grid: OnceLock::new(),
                runs: OnceLock::new(),
            },
            own: Scratch::default(),
        }
    }

    /// Answers segment counts only, with no corners: for callers that print
    /// counts (the judge formats) or were asked for no paths. A search with
    /// more than two turns then skips finding the shortest path among those
    /// with the fewest segments.
    pub fn without_paths(mut self) -> Self {
        self.batch.paths = false;
        self
    }

    pub fn rules(&self) -> &Rules {
        &self.batch.rules
    }

    /// Answers one query. Both points must be on the board.
    ///
    /// # Panics
    /// When a point is off the board; [`solve`] checks that first.
    pub fn answer(&mut self, query: Query, stop: &Stop) -> Result<Answer, Interrupted> {
        self.batch.answer(&mut self.own, query, stop)
    }

    /// Answers every query, in order, as [`Solver::answer`] would one by
    /// one. A batch whose queries search a big board is spread over rayon's
    /// threads (one per core unless `RAYON_NUM_THREADS` says otherwise):
    /// the calling thread settles what the rules and the shape checks can,
    /// then each thread takes the next query that needs a search, so a slow
    /// query does not hold up the rest; concurrent batches share those
    /// threads. The first interruption stops every thread.
    ///
    /// # Panics
    /// When a point is off the board; [`solve`] checks that first.
    pub fn answer_all(
        &mut self,
        queries: &[Query],
        stop: &Stop,
    ) -> Result<Vec<Answer>, Interrupted> {
        let threads = rayon::current_num_threads().min(queries.len());
        let batch = &self.batch;
        if threads < 2 || !worth_threads(batch.board, &batch.rules, queries.len()) {
            let own = &mut self.own;
            return queries
                .iter()
                .map(|&q| batch.answer(own, q, stop))
                .collect();
        }
        // The shape checks are quick: every query takes them here, once,
        // and the threads only search.
        let own = &mut self.own;
        let answers: Vec<OnceLock<Answer>> = queries
            .iter()
            .map(|&q| {
                batch
                    .settle(own, q)
                    .map_or_else(OnceLock::new, OnceLock::from)
            })
            .collect();
        let searches: Vec<usize> = (0..queries.len())
            .filter(|&i| answers[i].get().is_none())
            .collect();
        if batch.rules.movement == Movement::Line && !searches.is_empty() {
            // The run graph is built on every thread, which threads waiting
            // for it inside the batch could not lend: build it first.
            batch.runs();
        }
        let next = AtomicUsize::new(0);
        let failed = OnceLock::new();
        rayon::scope(|scope| {
            for _ in 0..threads.min(searches.len()) {
                scope.spawn(|_| {
                    let mut scratch = Scratch::default();
                    while failed.get().is_none() {
                        let at = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&i) = searches.get(at) else { break };
                        match batch.search(&mut scratch, queries[i], stop) {
                            Ok(answer) => {
                                let _ = answers[i].set(answer);
                            }
                            Err(e) => {
                                let _ = failed.set(e);
                            }
                        }
                    }
                });
            }
        });
        if let Some(&e) = failed.get() {
            return Err(e);
        }
        Ok(answers
            .into_iter()
            .map(|a| a.into_inner().expect("every query was answered"))
            .collect())
    }
}

impl Batch<'_> {
    fn answer(
        &self,
        scratch: &mut Scratch,
        query: Query,
        stop: &Stop,
    ) -> Result<Answer, Interrupted> {
        match self.settle(scratch, query) {
            Some(answer) => Ok(answer),
            None => self.search(scratch, query, stop),
        }
    }

    /// The answer when it needs no search: a query that breaks the rules,
    /// or a `line` query that connects with at most three segments or may
    /// not use more. `None` when only a search can tell.
    fn settle(&self, scratch: &mut Scratch, query: Query) -> Option<Answer> {
        let (from, to) = (query.from, query.to);
        let (a, b) = match (self.board.get(from), self.board.get(to)) {
            (Some(a), Some(b)) => (a, b),
            _ => panic!("query {from} -> {to} leaves the board"),
        };
        if from == to {
            return Some(Answer::NotConnected(Reason::SameCell));
        }
        match self.rules.movement {
            Movement::Line => {
                if a == EMPTY || b == EMPTY {
                    return Some(Answer::NotConnected(Reason::NotATile));
                }
                if self.rules.matching == Match::Same && a != b {
                    return Some(Answer::NotConnected(Reason::TypeMismatch));
                }
                let grid = self.grid();
                let (a, b) = (grid.index(from), grid.index(to));
                let lines = scratch.lines.get_or_insert_with(|| Lines::new(grid));
                let max = self.max_segments();
                if let Some(shape) = two_turn::shortest(grid, lines, a, b, max.min(3)) {
                    let corners = shape
                        .corners
                        .iter()
                        .filter(|_| self.paths)
                        .map(|&(x, y)| grid.point(y * grid.width + x))
                        .collect();
                    return Some(Answer::Connected(Path {
                        segments: shape.segments,
                        corners,
                    }));
                }
                (max <= 3).then_some(Answer::NotConnected(Reason::NoPath))
            }
            Movement::Slide => {
                if a != EMPTY || b != EMPTY {
                    return Some(Answer::NotConnected(Reason::Blocked));
                }
                None
            }
        }
    }

    /// Answers a query [`Batch::settle`] could not.
    fn search(
        &self,
        scratch: &mut Scratch,
        query: Query,
        stop: &Stop,
    ) -> Result<Answer, Interrupted> {
        let (from, to) = (query.from, query.to);
        match self.rules.movement {
            Movement::Line => self.line(scratch, from, to, stop),
            Movement::Slide => {
                let rink = scratch.rink.get_or_insert_with(|| Rink::new(self.board));
                Ok(
                    match rink.shortest(from, to, self.rules.max_segments, stop)? {
                        Some((segments, mut corners)) => {
                            if !self.paths {
                                corners = Vec::new();
                            }
                            Answer::Connected(Path { segments, corners })
                        }
                        None => Answer::NotConnected(Reason::NoPath),
                    },
                )
            }
        }
    }

    fn max_segments(&self) -> u32 {
        self.rules.max_segments.unwrap_or(u32::MAX)
    }

    fn grid(&self) -> &Grid {
        self.grid
            .get_or_init(|| Grid::new(self.board, self.rules.outside))
    }

    fn runs(&self) -> &Runs {
        self.runs.get_or_init(|| Runs::new(self.grid()))
    }

    /// A `line` query with more than three segments: the fewest come from
    /// the search over runs, the shortest such path from the cell search
    /// kept to the runs on such paths.
    fn line(
        &self,
        scratch: &mut Scratch,
        from: Point,
        to: Point,
        stop: &Stop,
    ) -> Result<Answer, Interrupted> {
        let max = self.max_segments();
        let grid = self.grid();
        let (a, b) = (grid.index(from), grid.index(to));
        let runs = self.runs();
        let run_search = scratch
            .run_search
            .get_or_insert_with(|| RunSearch::new(runs));
        let found = run_search.fewest_segments(runs, grid, (a, b), max, self.paths, stop)?;
        let Some(segments) = found else {
            return Ok(Answer::NotConnected(Reason::NoPath));
        };
        if !self.paths {
            let corners = Vec::new();
            return Ok(Answer::Connected(Path { segments, corners }));
        }
        let cells = scratch
            .cells
            .get_or_insert_with(|| line::Scratch::new(grid));
        let run_search = &*run_search;
        let admit = |d, cell| run_search.on_path(runs, d, cell);
        let mut found = line::shortest(grid, cells, (a, b), segments, stop, admit)?;
        if found.is_none() {
            // The marked runs always hold such a path; should that ever
            // fail, the search over every state still answers right.
            debug_assert!(false, "no path on the marked runs for {from} -> {to}");
            found = line::shortest(grid, cells, (a, b), max, stop, |_, _| true)?;
        }
        let Some((segments, cells)) = found else {
            return Ok(Answer::NotConnected(Reason::NoPath));
        };
        Ok(Answer::Connected(Path {
            segments,
            corners: cells.into_iter().map(|i| grid.point(i)).collect(),
        }))
    }
}
