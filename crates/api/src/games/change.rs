//! What the actions that change the board do: judging a move, taking a
//! change back and making it again, shuffling; each on the caller's copy
//! of the game, which [`Game::act`] keeps only once every check passed.

use super::game::{Game, Last, Step, refused};
use super::log::{Change, Link, Log, Logged};
use crate::error::{ApiError, ErrorCode, Work};
use crate::mechanics::{Settings, shuffled};
use crate::wire::{Move, Moved, Point};
use linkpath_engine::game as engine;
use linkpath_engine::{Answer, Board, EMPTY, Query, Solver, Stop};

impl Game {
    /// Removes the pair `from`-`to` if the rules let it go.
    pub(super) fn play_move(
        &mut self,
        step: &mut Step,
        from: Point,
        to: Point,
        play: &Settings,
        stop: &Stop,
    ) -> Result<(), ApiError> {
        let change = self.judge(from, to, play, &mut step.last, stop)?;
        self.make(&change, &step.last.moved);
        (step.logged.from, step.logged.to) = (Some(from), Some(to));
        step.logged.change = Some(change);
        self.push_done(&mut step.logged, step.version);
        Ok(())
    }

    /// Shows the first move `/v1/moves` lists.
    pub(super) fn hint(
        &mut self,
        step: &mut Step,
        play: &Settings,
        stop: &Stop,
    ) -> Result<(), ApiError> {
        let classes = play.classes(&self.board(), Work::Play, stop)?.into_owned();
        let first = engine::moves(&classes, &play.rules, Some(1), stop)
            .map_err(Work::Moves.interrupted())?;
        let Some(hint) = first.first() else {
            return Err(refused(
                "the board has no move to hint, expected a board with a move: shuffle or undo"
                    .into(),
            ));
        };
        step.last.hint = Some(Move::with_path(hint.from, hint.to, &hint.path, true));
        self.assists.hints += 1;
        Ok(())
    }

    /// Takes back the change on top of the changes made.
    pub(super) fn undo(
        &mut self,
        step: &mut Step,
        log: &(impl Log + ?Sized),
        play: &Settings,
        stop: &Stop,
    ) -> Result<(), ApiError> {
        let Some(top) = self.done else {
            return Err(refused(
                "nothing to undo, expected a game with a move or a shuffle made".into(),
            ));
        };
        let (on, change) = stacked(log, top)?;
        step.last.moved = self.unmake(&change);
        if let Change::Move { from, to, .. } = &change {
            (step.last.from, step.last.to) = (Some(*from), Some(*to));
        }
        // The pair is back where it was judged.
        step.last.path = self.path(&change, play, stop)?;
        self.done = on.below;
        step.logged.below = self.undone;
        self.undone = Some(Link {
            at: step.version,
            change: top.change,
        });
        self.assists.undos += 1;
        Ok(())
    }

    /// Makes again the change on top of the changes taken back.
    pub(super) fn redo(
        &mut self,
        step: &mut Step,
        log: &(impl Log + ?Sized),
        play: &Settings,
        stop: &Stop,
    ) -> Result<(), ApiError> {
        let Some(top) = self.undone else {
            return Err(refused("nothing to redo, expected an undo before".into()));
        };
        let (on, change) = stacked(log, top)?;
        let seed = log.entry(top.change).and_then(|made| made.seed);
        // Before the pair goes again, where it was judged.
        step.last.path = self.path(&change, play, stop)?;
        let moved = match &change {
            Change::Move {
                from, to, moved, ..
            } => {
                (step.last.from, step.last.to) = (Some(*from), Some(*to));
                moved.clone()
            }
            Change::Shuffle { moved } => moved.clone(),
            Change::Seeded { .. } => {
                let seed = seed.ok_or_else(|| lost(top.change, "its seed"))?;
                self.shuffle_moves(seed, play, stop)?
            }
        };
        self.make(&change, &moved);
        step.last.moved = moved;
        self.undone = on.below;
        step.logged.below = self.done;
        self.done = Some(Link {
            at: step.version,
            change: top.change,
        });
        Ok(())
    }

    /// Shuffles the tiles left: by `seed` (the game's own when none), or
    /// as `moved` says.
    pub(super) fn shuffle(
        &mut self,
        step: &mut Step,
        seed: Option<u64>,
        moved: Option<&[Moved]>,
        play: &Settings,
        stop: &Stop,
    ) -> Result<(), ApiError> {
        let board = self.board();
        let change = match moved {
            Some(moved) => {
                same_cells(&board, moved)?;
                step.logged.moved = Some(moved.to_vec());
                step.last.moved = moved.to_vec();
                Change::Shuffle {
                    moved: moved.to_vec(),
                }
            }
            None => {
                let seed = seed.unwrap_or_else(|| self.shuffle_seed(step.version));
                step.last.moved = self.shuffle_moves(seed, play, stop)?;
                step.logged.seed = Some(seed);
                Change::Seeded {
                    before: self.cells.clone(),
                }
            }
        };
        self.make(&change, &step.last.moved);
        step.logged.change = Some(change);
        self.push_done(&mut step.logged, step.version);
        self.assists.shuffles += 1;
        Ok(())
    }

    /// Puts the change `logged` makes at `version` on top of the changes
    /// made; a new change leaves nothing to redo.
    fn push_done(&mut self, logged: &mut Logged, version: u64) {
        logged.below = self.done;
        self.done = Some(Link {
            at: version,
            change: version,
        });
        self.undone = None;
    }

    /// The moves of the shuffle `seed` makes of the board now.
    fn shuffle_moves(
        &self,
        seed: u64,
        play: &Settings,
        stop: &Stop,
    ) -> Result<Vec<Moved>, ApiError> {
        let board = self.board();
        let (shuffled, _) =
            shuffled(&board, play, seed, true, Work::Shuffle, stop).map_err(unclearable)?;
        Ok(Moved::list(&engine::relocation(&board, &shuffled)))
    }

    /// Judges the move `from`-`to` on the board now, as `/v1/play` would,
    /// without changing it: the change it makes, its path in `last`.
    fn judge(
        &self,
        from: Point,
        to: Point,
        play: &Settings,
        last: &mut Last,
        stop: &Stop,
    ) -> Result<Change, ApiError> {
        let board = self.board();
        let (Ok(a), Ok(b)) = (from.on(&board), to.on(&board)) else {
            return Err(illegal(
                "off_board",
                format!(
                    "the move [{}, {}] to [{}, {}] leaves the {} x {} board",
                    from.0,
                    from.1,
                    to.0,
                    to.1,
                    board.width(),
                    board.height()
                ),
            ));
        };
        let classes = play.classes(&board, Work::Play, stop)?;
        let path = match connect(&classes, a, b, play, stop)? {
            Answer::Connected(path) => path,
            Answer::NotConnected(reason) => {
                return Err(illegal(
                    reason.name(),
                    format!(
                        "the tiles at [{}, {}] and [{}, {}] cannot be removed: {}",
                        from.0,
                        from.1,
                        to.0,
                        to.1,
                        reason.name()
                    ),
                ));
            }
        };
        // The pair removed on the class board, where the tiles fall alike.
        let played = engine::play(&classes, &play.rules, play.fall, &[(a, b)], stop)
            .map_err(Work::Play.interrupted())?;
        let moved = Moved::list(played.moved.first().map_or(&[][..], Vec::as_slice));
        let cells = board.cells();
        let w = board.width();
        let tiles = [
            cells[a.y as usize * w + a.x as usize],
            cells[b.y as usize * w + b.x as usize],
        ];
        last.from = Some(from);
        last.to = Some(to);
        last.path = Some(corners(&path));
        last.moved = moved.clone();
        Ok(Change::Move {
            from,
            to,
            tiles,
            moved,
        })
    }

    /// The path of a move's pair on the board now, where it was judged
    /// (an undo has put the pair back, a redo has not removed it yet): on
    /// the same board the solver answers the same path, so it is found
    /// again rather than stored with every move.
    fn path(
        &self,
        change: &Change,
        play: &Settings,
        stop: &Stop,
    ) -> Result<Option<Vec<Point>>, ApiError> {
        let Change::Move { from, to, .. } = change else {
            return Ok(None);
        };
        let board = self.board();
        let (Ok(a), Ok(b)) = (from.on(&board), to.on(&board)) else {
            return Ok(None);
        };
        let classes = play.classes(&board, Work::Play, stop)?;
        Ok(match connect(&classes, a, b, play, stop)? {
            Answer::Connected(path) => Some(corners(&path)),
            Answer::NotConnected(_) => None,
        })
    }

    /// Makes `change` on the board: a move's pair goes, then every tile
    /// of `moved` moves at once.
    fn make(&mut self, change: &Change, moved: &[Moved]) {
        let w = self.settings.width;
        if let Change::Move { from, to, .. } = change {
            self.cells[index(*from, w)] = EMPTY;
            self.cells[index(*to, w)] = EMPTY;
        }
        relocate(&mut self.cells, w, moved, true);
    }

    /// Takes `change` back; the tiles' moves that did, all at once.
    fn unmake(&mut self, change: &Change) -> Vec<Moved> {
        let w = self.settings.width;
        let back = |moved: &[Moved]| -> Vec<Moved> {
            moved
                .iter()
                .map(|m| Moved {
                    from: m.to,
                    to: m.from,
                })
                .collect()
        };
        match change {
            Change::Move {
                from,
                to,
                tiles,
                moved,
            } => {
                relocate(&mut self.cells, w, moved, false);
                self.cells[index(*from, w)] = tiles[0];
                self.cells[index(*to, w)] = tiles[1];
                back(moved)
            }
            Change::Shuffle { moved } => {
                relocate(&mut self.cells, w, moved, false);
                back(moved)
            }
            Change::Seeded { before } => {
                let now = self.board();
                let was = Board::new(now.width(), now.height(), before.clone())
                    .expect("a stored game's size");
                self.cells.clone_from(before);
                Moved::list(&engine::relocation(&now, &was))
            }
        }
    }
}

/// Whether the tiles at `a` and `b` connect on `classes` by the game's
/// rules, and by which path.
fn connect(
    classes: &Board,
    a: linkpath_engine::Point,
    b: linkpath_engine::Point,
    play: &Settings,
    stop: &Stop,
) -> Result<Answer, ApiError> {
    Solver::new(classes, play.rules)
        .answer(Query::new(a, b), stop)
        .map_err(Work::Play.interrupted())
}

/// A path's corner points, from its first tile to its last.
fn corners(path: &linkpath_engine::Path) -> Vec<Point> {
    path.corners.iter().copied().map(Point::from).collect()
}

/// The wire point's cell index; the point was checked on the board when
/// the change was judged.
fn index(point: Point, width: usize) -> usize {
    point.1 as usize * width + point.0 as usize
}

/// Moves every listed tile at once (`forward`), or back.
fn relocate(cells: &mut [u32], width: usize, moved: &[Moved], forward: bool) {
    let ends = |m: &Moved| {
        let (a, b) = (index(m.from, width), index(m.to, width));
        if forward { (a, b) } else { (b, a) }
    };
    let carried: Vec<(usize, u32)> = moved
        .iter()
        .map(|m| {
            let (a, b) = ends(m);
            (b, cells[a])
        })
        .collect();
    for m in moved {
        cells[ends(m).0] = EMPTY;
    }
    for (b, tile) in carried {
        cells[b] = tile;
    }
}

/// Checks that `moved` shuffles `board`: tiles moved onto cells that held
/// tiles, each cell left filled again, none twice.
fn same_cells(board: &Board, moved: &[Moved]) -> Result<(), ApiError> {
    let cells = board.cells();
    let w = board.width();
    let mut left = std::collections::HashSet::with_capacity(moved.len());
    let mut filled = std::collections::HashSet::with_capacity(moved.len());
    for m in moved {
        for p in [m.from, m.to] {
            let on = p.on(board).is_ok();
            if !on || cells[index(p, w)] == EMPTY {
                return Err(refused(format!(
                    "the shuffle moves [{}, {}], which is not a tile, expected tiles moved onto tiles' cells",
                    p.0, p.1
                )));
            }
        }
        if !left.insert(m.from) || !filled.insert(m.to) {
            return Err(refused(
                "the shuffle moves a tile from or onto one cell twice".into(),
            ));
        }
    }
    if left != filled {
        return Err(refused(
            "the shuffle leaves a cell empty, expected every cell it empties filled again".into(),
        ));
    }
    Ok(())
}

impl Game {
    /// The seed of a shuffle made at `version`: the game's id and the
    /// version, so that a game shuffles differently each time (and the
    /// same way in a replay, which logs the seed); in a match, the deal's
    /// seed and how many shuffles came before, so that equal boards
    /// shuffle equally in every seat's game.
    fn shuffle_seed(&self, version: u64) -> u64 {
        match &self.match_id {
            Some(_) => {
                let seed = self.settings.seed.unwrap_or(0).to_le_bytes();
                fnv1a(
                    seed.iter()
                        .copied()
                        .chain(self.assists.shuffles.to_le_bytes()),
                )
            }
            None => fnv1a(self.id.bytes().chain(version.to_le_bytes())),
        }
    }
}

/// FNV-1a: stable across builds, unlike the standard library's hasher.
fn fnv1a(bytes: impl Iterator<Item = u8>) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// A shuffle's refusal in a game: tiles that no arrangement can clear are
/// the game's state, not a mistake in the request (a 422 on
/// `/v1/shuffle`).
fn unclearable(error: ApiError) -> ApiError {
    if error.status() != 422 {
        return error;
    }
    refused(format!(
        "the tiles left cannot be shuffled into a board that can be cleared ({}): undo, or resign",
        error.message
    ))
}

/// The entry at the top of a stack, and the change it puts there.
fn stacked(log: &(impl Log + ?Sized), top: Link) -> Result<(Logged, Change), ApiError> {
    let on = log.entry(top.at).ok_or_else(|| lost(top.at, "the entry"))?;
    let change = log
        .entry(top.change)
        .and_then(|made| made.change.clone())
        .ok_or_else(|| lost(top.change, "its change"))?;
    Ok((on.clone(), change))
}

/// A log that lacks what the game points to: the store lost it.
fn lost(version: u64, what: &str) -> ApiError {
    ApiError::new(
        ErrorCode::StoreUnavailable,
        format!("the game's log lacks {what} at version {version}; read the game again"),
    )
    .retry_after(1)
}

fn illegal(reason: &'static str, message: String) -> ApiError {
    ApiError::new(ErrorCode::IllegalMove, message).reason(reason)
}
