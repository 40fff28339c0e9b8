//! A game as the store keeps it, and the actions that change it. Every
//! action either changes the game and adds one to its version, or is
//! refused with the game untouched: each works on the caller's copy only
//! once every check has passed.

use super::log::{ActionKind, Change, Link, Log, Logged};
use super::score::score;
use super::settings::GameSettings;
use crate::error::{ApiError, ErrorCode, Work};
use crate::game::{Settings, shuffled};
use crate::limits::Limits;
use crate::wire::Gravity;
use crate::wire::{Move, Moved, Point};
use linkpath_engine::game as engine;
use linkpath_engine::{Answer, Board, EMPTY, Query, Solver, Stop};
use serde::{Deserialize, Serialize};
use std::ops::Range;
use utoipa::ToSchema;

/// Where a game stands. `stuck` has tiles left and no move; a shuffle or
/// an undo plays on. `won`, `out_of_time` and `resigned` are finished:
/// no action applies to them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = GameStatus)]
pub enum Status {
    Playing,
    Paused,
    Stuck,
    Won,
    OutOfTime,
    Resigned,
}

impl Status {
    pub fn finished(self) -> bool {
        matches!(self, Status::Won | Status::OutOfTime | Status::Resigned)
    }

    /// The wire name, also a metrics label.
    pub fn name(self) -> &'static str {
        match self {
            Status::Playing => "playing",
            Status::Paused => "paused",
            Status::Stuck => "stuck",
            Status::Won => "won",
            Status::OutOfTime => "out_of_time",
            Status::Resigned => "resigned",
        }
    }
}

/// The help a player took; any of it makes the game unranked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Assists {
    pub hints: u32,
    pub undos: u32,
    pub shuffles: u32,
}

impl Assists {
    pub fn any(&self) -> bool {
        self.hints + self.undos + self.shuffles > 0
    }
}

/// The server's clock of a game: the play time before `since_ms`, and
/// when the clock last started if it runs (paused and finished games
/// keep it stopped); and the server's downtime its running clock skipped
/// so far ([`Game::give_back`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    pub elapsed_ms: u64,
    pub since_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub given_back_ms: u64,
}

impl Clock {
    /// Play time at `now_ms`.
    pub fn at(&self, now_ms: u64) -> u64 {
        self.elapsed_ms + self.since_ms.map_or(0, |s| now_ms.saturating_sub(s))
    }

    fn stop(&mut self, now_ms: u64) {
        self.elapsed_ms = self.at(now_ms);
        self.since_ms = None;
    }

    fn start(&mut self, now_ms: u64) {
        self.since_ms = Some(now_ms);
    }
}

/// An action on a game, as a client asks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    Move {
        from: Point,
        to: Point,
    },
    Hint,
    Undo,
    Redo,
    /// A clearable shuffle, made from the game's own seed; a replay gives
    /// the seed it was made from, or the tiles as they moved.
    Shuffle {
        seed: Option<u64>,
        moved: Option<Vec<Moved>>,
    },
    Pause,
    Resume,
    Resign,
}

/// The body of `POST /v1/games/{id}/moves`: two tiles to remove.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    pub from: Point,
    pub to: Point,
}

impl Action {
    /// The move a body of `POST /v1/games/{id}/moves` asks for.
    pub fn read_move(body: &[u8], limits: &Limits) -> Result<Action, ApiError> {
        let request: MoveRequest = crate::decode::decode(body, limits)?;
        Ok(Action::Move {
            from: request.from,
            to: request.to,
        })
    }

    pub fn kind(&self) -> ActionKind {
        match self {
            Action::Move { .. } => ActionKind::Move,
            Action::Hint => ActionKind::Hint,
            Action::Undo => ActionKind::Undo,
            Action::Redo => ActionKind::Redo,
            Action::Shuffle { .. } => ActionKind::Shuffle,
            Action::Pause => ActionKind::Pause,
            Action::Resume => ActionKind::Resume,
            Action::Resign => ActionKind::Resign,
        }
    }
}

/// The last change of a game, so that a client animates it from one
/// answer: the pair a move removed (or an undo put back) with its path,
/// the tiles that moved, the move a hint gives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Last {
    pub action: ActionKind,
    /// The version it made.
    pub version: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub from: Option<Point>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub to: Option<Point>,
    /// The corner points of the move's path, from `from` to `to`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub path: Option<Vec<Point>>,
    /// The tiles that moved, all at once: those that fell after a move
    /// (or rose back on undo), or a shuffle's.
    #[serde(default)]
    pub moved: Vec<Moved>,
    /// The move a hint gives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub hint: Option<Move>,
}

impl Last {
    fn of(action: ActionKind, version: u64) -> Last {
        Last {
            action,
            version,
            from: None,
            to: None,
            path: None,
            moved: Vec::new(),
            hint: None,
        }
    }
}

/// What a server allows one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameLimits {
    /// Most actions a game keeps; past them every action is refused, so a
    /// game's history, and what its store holds, stay bounded.
    pub max_actions: usize,
    /// Most bytes a game's log holds, as [`Logged::bytes`] counts them; an action whose entry would pass it is refused.
    pub max_log_bytes: u64,
}

/// A game as the store keeps it: what an action reads and writes, its
/// history left in its log ([`Logged`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Game {
    pub id: String,
    pub version: u64,
    pub status: Status,
    pub settings: GameSettings,
    /// The board now, cell by cell in reading order.
    pub cells: Vec<u32>,
    /// The tiles dealt, of which the score counts those removed.
    pub dealt_tiles: usize,
    /// The top of the changes made, that undo takes back.
    pub done: Option<Link>,
    /// The top of the changes taken back, that redo makes again.
    pub undone: Option<Link>,
    /// The bytes of the log's entries, as [`Logged::bytes`] counts them.
    pub log_bytes: u64,
    pub clock: Clock,
    pub assists: Assists,
    pub score: u64,
    pub tiles_left: usize,
    pub moves_open: usize,
    pub created_at_ms: u64,
    pub updated_at_ms: u64,
    pub last: Option<Last>,
    /// The name a win is entered under.
    #[serde(default)]
    pub player: Option<String>,
    /// The leaderboard of the game's deal; none on a board sent.
    #[serde(default)]
    pub leaderboard: Option<String>,
}

impl Game {
    /// A new game on `board`, its clock started at `now_ms`, with the
    /// first entry of its log.
    pub(super) fn new(
        id: String,
        settings: GameSettings,
        board: &Board,
        now_ms: u64,
        limits: &Limits,
        stop: &Stop,
    ) -> Result<(Game, Logged), ApiError> {
        let cells = board.cells().to_vec();
        let created = Logged {
            dealt: Some(cells.clone()),
            ..Logged::new(ActionKind::Create, now_ms, 0)
        };
        let mut game = Game {
            id,
            version: 0,
            status: Status::Playing,
            settings,
            dealt_tiles: cells.iter().filter(|&&c| c != EMPTY).count(),
            cells,
            done: None,
            undone: None,
            log_bytes: created.bytes(),
            clock: Clock {
                elapsed_ms: 0,
                since_ms: Some(now_ms),
                given_back_ms: 0,
            },
            assists: Assists::default(),
            score: 0,
            tiles_left: 0,
            moves_open: 0,
            created_at_ms: now_ms,
            updated_at_ms: now_ms,
            last: Some(Last::of(ActionKind::Create, 0)),
            player: None,
            leaderboard: None,
        };
        let play = game.play(limits)?;
        game.settle(&play, now_ms, limits, stop)?;
        game.rescore(now_ms);
        Ok((game, created))
    }

    pub fn ranked(&self) -> bool {
        !self.assists.any()
    }

    pub fn board(&self) -> Board {
        let s = &self.settings;
        Board::new(s.width, s.height, self.cells.clone()).expect("a stored game's size")
    }

    /// How this game is played, read again from its settings.
    pub(super) fn play(&self, limits: &Limits) -> Result<Settings, ApiError> {
        self.settings.read(limits)
    }

    /// Whether the time limit has passed by `now_ms` on a running clock:
    /// the game then changes to `out_of_time`, at the moment it passed.
    pub fn due(&self, now_ms: u64) -> Option<u64> {
        let limit = self.settings.time_limit_ms?;
        let since = self.clock.since_ms?;
        if self.status.finished() || self.clock.at(now_ms) < limit {
            return None;
        }
        Some(since + limit.saturating_sub(self.clock.elapsed_ms))
    }

    /// Gives the server's downtime back to the game: its running clock
    /// skips each of `outages` (times when no server served, oldest
    /// first) up to `now_ms`, as if paused through it, so that neither its
    /// play time nor its time limit counts it. A limit that passed before
    /// an outage ended the game then, and the clock stays as it ran up to
    /// it. Not a change: the version stays, and the next change stores
    /// the clock so moved; done again, it skips nothing more.
    pub fn give_back(&mut self, outages: &[Range<u64>], now_ms: u64) {
        if self.status.finished() {
            return;
        }
        for outage in outages {
            let Some(since) = self.clock.since_ms else {
                return;
            };
            let (from, to) = (outage.start.max(since), outage.end.min(now_ms));
            if to <= from {
                continue;
            }
            let ran = self.clock.elapsed_ms + (from - since);
            if self
                .settings
                .time_limit_ms
                .is_some_and(|limit| ran >= limit)
            {
                return;
            }
            self.clock.elapsed_ms = ran;
            self.clock.since_ms = Some(to);
            self.clock.given_back_ms += to - from;
        }
    }

    /// Ends the game as out of time if its limit has passed by `now_ms`;
    /// the entry of its log if it did. The end of a game is logged past
    /// any bound of the log: it is the last entry.
    pub fn expire(&mut self, now_ms: u64) -> Option<Logged> {
        let at = self.due(now_ms)?;
        self.clock.stop(at);
        self.status = Status::OutOfTime;
        self.version += 1;
        self.updated_at_ms = at;
        self.last = Some(Last::of(ActionKind::OutOfTime, self.version));
        let logged = Logged::new(ActionKind::OutOfTime, at, self.clock.given_back_ms);
        self.log_bytes += logged.bytes();
        // The play time is the limit now.
        self.rescore(at);
        Some(logged)
    }

    /// The versions of the log entries `action` reads: the top of the
    /// stack undo or redo takes from.
    pub fn needs(&self, action: &Action) -> Vec<u64> {
        let top = match action {
            Action::Undo => self.done,
            Action::Redo => self.undone,
            _ => None,
        };
        let mut versions: Vec<u64> = top.iter().flat_map(|l| [l.at, l.change]).collect();
        versions.dedup();
        versions
    }

    /// Applies `action` at `now_ms`, or refuses it and leaves the game as
    /// it was; the entry it adds to the log. `log` holds at least the
    /// entries [`Game::needs`] names. The caller ends a game out of time
    /// first ([`Game::expire`]).
    pub fn act(
        &mut self,
        action: &Action,
        now_ms: u64,
        log: &(impl Log + ?Sized),
        game_limits: &GameLimits,
        limits: &Limits,
        stop: &Stop,
    ) -> Result<Logged, ApiError> {
        if self.status.finished() {
            return Err(ApiError::new(
                ErrorCode::GameOver,
                format!(
                    "the game is {}, expected a game in play: nothing applies to a finished game",
                    self.status.name()
                ),
            ));
        }
        // One entry a version, the creation's first.
        let actions = self.version + 1;
        if actions >= game_limits.max_actions as u64 {
            return Err(refused(format!(
                "the game has made {actions} actions, this server's limit for one game; start a new game"
            )));
        }
        let paused = self.status == Status::Paused;
        match action {
            Action::Pause | Action::Resume | Action::Resign => {}
            _ if paused => {
                return Err(refused(
                    "the game is paused, expected `resume` first (or `resign`)".into(),
                ));
            }
            _ => {}
        }
        let play = self.play(limits)?;
        let mut next = self.clone();
        next.version += 1;
        let version = next.version;
        let mut last = Last::of(action.kind(), version);
        let mut logged = Logged::new(action.kind(), now_ms, next.clock.given_back_ms);
        match action {
            Action::Move { from, to } => {
                let change = next.judge(*from, *to, &play, &mut last, stop)?;
                next.make(&change, &last.moved);
                (logged.from, logged.to) = (Some(*from), Some(*to));
                logged.change = Some(change);
                next.push_done(&mut logged, version);
            }
            Action::Hint => {
                let classes = play.classes(&next.board(), Work::Play, stop)?.into_owned();
                let first = engine::moves(&classes, &play.rules, Some(1), stop)
                    .map_err(Work::Moves.interrupted())?;
                let Some(hint) = first.first() else {
                    return Err(refused(
                        "the board has no move to hint, expected a board with a move: shuffle or undo".into(),
                    ));
                };
                last.hint = Some(Move::with_path(hint.from, hint.to, &hint.path, true));
                next.assists.hints += 1;
            }
            Action::Undo => {
                let Some(top) = next.done else {
                    return Err(refused(
                        "nothing to undo, expected a game with a move or a shuffle made".into(),
                    ));
                };
                let (on, change) = stacked(log, top)?;
                last.moved = next.unmake(&change);
                if let Change::Move { from, to, .. } = &change {
                    (last.from, last.to) = (Some(*from), Some(*to));
                }
                // The pair is back where it was judged.
                last.path = next.path(&change, &play, stop)?;
                next.done = on.below;
                logged.below = next.undone;
                next.undone = Some(Link {
                    at: version,
                    change: top.change,
                });
                next.assists.undos += 1;
            }
            Action::Redo => {
                let Some(top) = next.undone else {
                    return Err(refused("nothing to redo, expected an undo before".into()));
                };
                let (on, change) = stacked(log, top)?;
                let seed = log.entry(top.change).and_then(|made| made.seed);
                // Before the pair goes again, where it was judged.
                last.path = next.path(&change, &play, stop)?;
                let moved = match &change {
                    Change::Move {
                        from, to, moved, ..
                    } => {
                        (last.from, last.to) = (Some(*from), Some(*to));
                        moved.clone()
                    }
                    Change::Shuffle { moved } => moved.clone(),
                    Change::Seeded { .. } => {
                        let seed = seed.ok_or_else(|| lost(top.change, "its seed"))?;
                        next.shuffle_moves(seed, &play, stop)?
                    }
                };
                next.make(&change, &moved);
                last.moved = moved;
                next.undone = on.below;
                logged.below = next.done;
                next.done = Some(Link {
                    at: version,
                    change: top.change,
                });
            }
            Action::Shuffle { seed, moved } => {
                let board = next.board();
                let change = match moved {
                    Some(moved) => {
                        same_cells(&board, moved)?;
                        logged.moved = Some(moved.clone());
                        last.moved = moved.clone();
                        Change::Shuffle {
                            moved: moved.clone(),
                        }
                    }
                    None => {
                        let seed = seed.unwrap_or_else(|| shuffle_seed(&next.id, version));
                        last.moved = next.shuffle_moves(seed, &play, stop)?;
                        logged.seed = Some(seed);
                        Change::Seeded {
                            before: next.cells.clone(),
                        }
                    }
                };
                next.make(&change, &last.moved);
                logged.change = Some(change);
                next.push_done(&mut logged, version);
                next.assists.shuffles += 1;
            }
            Action::Pause => {
                if paused {
                    return Err(refused("the game is already paused".into()));
                }
                next.clock.stop(now_ms);
                next.status = Status::Paused;
            }
            Action::Resume => {
                if !paused {
                    return Err(refused(format!(
                        "the game is {}, expected a paused game to resume",
                        self.status.name()
                    )));
                }
                next.clock.start(now_ms);
                // As it was paused: a stuck game is stuck again.
                next.status = if next.moves_open == 0 {
                    Status::Stuck
                } else {
                    Status::Playing
                };
            }
            Action::Resign => {
                next.clock.stop(now_ms);
                next.status = Status::Resigned;
            }
        }
        let bytes = logged.bytes();
        if next.log_bytes + bytes > game_limits.max_log_bytes {
            return Err(refused(format!(
                "the game's log holds {} bytes and this action's entry {bytes} more, past this server's limit of {} for one game; start a new game",
                self.log_bytes, game_limits.max_log_bytes
            )));
        }
        next.log_bytes += bytes;
        next.last = Some(last);
        next.updated_at_ms = now_ms;
        if matches!(
            action,
            Action::Move { .. } | Action::Undo | Action::Redo | Action::Shuffle { .. }
        ) {
            next.settle(&play, now_ms, limits, stop)?;
        }
        next.rescore(now_ms);
        *self = next;
        Ok(logged)
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

    /// After the board changed: tiles left, moves open, the status, and
    /// the clock stopped on a win.
    fn settle(
        &mut self,
        play: &Settings,
        now_ms: u64,
        limits: &Limits,
        stop: &Stop,
    ) -> Result<(), ApiError> {
        let board = self.board();
        self.tiles_left = self.cells.iter().filter(|&&c| c != EMPTY).count();
        let classes = play.classes(&board, Work::Moves, stop)?;
        self.moves_open = engine::moves_open(&classes, &play.rules, limits.max_moves, stop)
            .map_err(Work::Moves.interrupted())?;
        self.status = if self.tiles_left == 0 {
            self.clock.stop(now_ms);
            Status::Won
        } else if self.moves_open == 0 {
            Status::Stuck
        } else {
            Status::Playing
        };
        Ok(())
    }

    /// The one score rule, applied after every change: the tiles removed
    /// by then in the play time at `now_ms`.
    fn rescore(&mut self, now_ms: u64) {
        let removed = self.dealt_tiles - self.tiles_left;
        let gravity = self.settings.gravity != Gravity::None;
        self.score = score(removed, self.clock.at(now_ms), gravity);
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

fn is_zero(n: &u64) -> bool {
    *n == 0
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

/// A shuffle's seed: the game's own and its version, so that a game
/// shuffles differently each time and the same way in a replay.
fn shuffle_seed(id: &str, version: u64) -> u64 {
    // FNV-1a: stable across builds, unlike the standard library's hasher.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in id.bytes().chain(version.to_le_bytes()) {
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

fn refused(message: String) -> ApiError {
    ApiError::new(ErrorCode::ActionRefused, message)
}

fn illegal(reason: &'static str, message: String) -> ApiError {
    ApiError::new(ErrorCode::IllegalMove, message).reason(reason)
}
