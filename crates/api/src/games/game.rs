//! A game as the store keeps it, and the actions that change it. Every
//! action either changes the game and adds one to its version, or is
//! refused with the game untouched: each works on the caller's copy only
//! once every check has passed.

use super::log::{ActionKind, Link, Log, Logged};
use super::score::score;
use super::settings::GameSettings;
use crate::error::{ApiError, ErrorCode, Work};
use crate::limits::Limits;
use crate::mechanics::Settings;
use crate::wire::Gravity;
use crate::wire::{Move, Moved, Point};
use linkpath_engine::game as engine;
use linkpath_engine::{Board, EMPTY, Stop};
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
    /// A game of a match whose race ended before it was cleared: another
    /// player cleared first, the others left, or the time limit passed.
    /// The match's result places it.
    RaceOver,
}

impl Status {
    pub fn finished(self) -> bool {
        matches!(
            self,
            Status::Won | Status::OutOfTime | Status::Resigned | Status::RaceOver
        )
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
            Status::RaceOver => "race_over",
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

/// Why a game is not ranked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unranked {
    /// A hint, an undo or a shuffle was used.
    Assists,
    /// Its moves came faster than the server's floor on the median time
    /// between moves (`LINKPATH_MIN_MOVE_GAP_MS`): faster than a person.
    TooFast,
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
    /// The race of the game's match ended: made by the server, never asked
    /// by a client, so that a game stops when its match does.
    EndRace,
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
            Action::EndRace => ActionKind::RaceOver,
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
    pub(super) fn of(action: ActionKind, version: u64) -> Last {
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

/// What an action makes as it goes: the version, the game's `last` and
/// its log entry.
pub(super) struct Step {
    pub version: u64,
    pub last: Last,
    pub logged: Logged,
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
    /// The name the creator gave the game, shown with it.
    #[serde(default)]
    pub player: Option<String>,
    /// The id of the player who created the game: only they may act on
    /// it, and only their win is entered on a leaderboard. None for a
    /// game created without a player's token, which anyone with its id
    /// may play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// The leaderboard of the game's deal; none on a board sent.
    #[serde(default)]
    pub leaderboard: Option<String>,
    /// The median time between the moves of a win played faster than the
    /// server's floor, which keeps it off the leaderboard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub too_fast_ms: Option<u64>,
    /// The match the game is a seat's race in: its shuffles are made from
    /// the deal's seed and the shuffle's number, so that every seat who
    /// shuffles the same board at the same point gets the same board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    /// Whether hints and undo are refused, as the game's match says.
    #[serde(default, skip_serializing_if = "is_false")]
    pub assists_refused: bool,
    /// In a match, the play time when the last pair was removed: races
    /// with as many tiles cleared place by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_pair_ms: Option<u64>,
    /// In a match, the pairs removed in a row, each within
    /// [`COMBO_WINDOW_MS`] of play after the one before: 1 after a longer
    /// wait, 0 before the first pair and after an undo. Shown, never
    /// scored.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub combo: u32,
}

/// How soon after a pair the next one extends a combo, in play time.
pub const COMBO_WINDOW_MS: u64 = 3_000;

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
            owner: None,
            too_fast_ms: None,
            leaderboard: None,
            match_id: None,
            assists_refused: false,
            last_pair_ms: None,
            combo: 0,
        };
        let play = game.play(limits)?;
        game.settle(&play, now_ms, limits, stop)?;
        game.rescore(now_ms);
        Ok((game, created))
    }

    /// Whether a win of this game is entered on its leaderboard.
    pub fn ranked(&self) -> bool {
        self.unranked().is_none()
    }

    /// Why a win of this game is not entered: an assist was used, or the
    /// moves came faster than a person plays.
    pub fn unranked(&self) -> Option<Unranked> {
        if self.assists.any() {
            Some(Unranked::Assists)
        } else if self.too_fast_ms.is_some() {
            Some(Unranked::TooFast)
        } else {
            None
        }
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
        // A game's time never goes back: an action timed before the change
        // ahead of it (read by a request that waited its turn, or by a
        // replica whose clock is behind) counts as made with it, so the
        // log, and the replay made from it, stay in time order.
        let now_ms = now_ms.max(self.updated_at_ms);
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
            Action::Pause | Action::Resume | Action::Resign | Action::EndRace => {}
            _ if paused => {
                return Err(refused(
                    "the game is paused, expected `resume` first (or `resign`)".into(),
                ));
            }
            _ => {}
        }
        // A race runs on the match's clock: one player cannot stop it.
        if self.match_id.is_some() && matches!(action, Action::Pause | Action::Resume) {
            return Err(refused(format!(
                "a game of a match is not paused: the others race on; `resign` to leave the race (a {} applies to games of no match)",
                action.kind().name()
            )));
        }
        if self.assists_refused && matches!(action, Action::Hint | Action::Undo | Action::Redo) {
            return Err(refused(format!(
                "the match allows no assists: {} is off in its games (shuffles are allowed)",
                action.kind().name()
            )));
        }
        let play = self.play(limits)?;
        let mut next = self.clone();
        next.version += 1;
        let version = next.version;
        let mut step = Step {
            version,
            last: Last::of(action.kind(), version),
            logged: Logged::new(action.kind(), now_ms, next.clock.given_back_ms),
        };
        match action {
            Action::Move { from, to } => {
                next.play_move(&mut step, *from, *to, &play, stop)?;
                if next.match_id.is_some() {
                    let at = next.clock.at(now_ms);
                    next.combo = match next.last_pair_ms {
                        Some(last) if at.saturating_sub(last) <= COMBO_WINDOW_MS => {
                            next.combo.saturating_add(1)
                        }
                        _ => 1,
                    };
                    next.last_pair_ms = Some(at);
                }
            }
            Action::Hint => next.hint(&mut step, &play, stop)?,
            Action::Undo => {
                next.undo(&mut step, log, &play, stop)?;
                next.combo = 0;
            }
            Action::Redo => next.redo(&mut step, log, &play, stop)?,
            Action::Shuffle { seed, moved } => {
                next.shuffle(&mut step, *seed, moved.as_deref(), &play, stop)?;
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
            Action::EndRace => {
                next.clock.stop(now_ms);
                next.status = Status::RaceOver;
            }
        }
        let Step { last, logged, .. } = step;
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

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero<N: Default + PartialEq>(n: &N) -> bool {
    *n == N::default()
}

pub(super) fn refused(message: String) -> ApiError {
    ApiError::new(ErrorCode::ActionRefused, message)
}
