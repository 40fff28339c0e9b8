//! Games held by the server: a board dealt once, then changed only by the
//! actions the server judges (a move, a hint, undo and redo, a shuffle,
//! pause and resume, resigning), each counted in the game's version, with
//! its clock, score and assists. Everything here is pure: the caller
//! passes the time and keeps the game (see `linkpath-server`'s store).
//!
//! - `create`: a game dealt as `/v1/deal` deals, or on a board sent;
//! - `game`: the game as stored, and the actions on it;
//! - `change`: what the actions that change the board do;
//! - `log`: the game's history, one entry an action;
//! - `stored`: the game and its log in the store's bytes, every format;
//! - `settings`: the settings a game was created with;
//! - `view`: the game as answered;
//! - `replay`: a game's actions, and checking them again;
//! - `archived`: a finished game as the archive keeps it;
//! - `export`: archived games as NDJSON lines, and the exports' queries;
//! - `score`: the one scoring rule;
//! - `pace`: how fast a game was played, against a floor for ranking;
//! - `ranking`: leaderboards, and the entry a win earns;
//! - `listing`: a player's games, a page at a time;
//! - `query`: a route's query string, a parameter at a time;
//! - `daily`: the deal everyone gets on a day.

mod archived;
mod change;
pub(crate) mod create;
mod daily;
mod export;
mod game;
mod listing;
mod log;
mod pace;
mod query;
mod ranking;
pub mod replay;
mod score;
mod settings;
pub mod stored;
mod view;

/// The wire types a game's actions and answers use.
pub use crate::wire::{Gravity, Move, Moved, Point, PresetName};
pub use archived::{ArchivedRecord, ArchivedResult, archived_game};
pub use create::{CreateGame, create};
pub use daily::{DailyDeal, DailyGame, daily};
pub use export::{
    DAY_EXPORT, ExportParam, ExportedGame, LEADERBOARD_EXPORT, PLAYER_EXPORT, export_line,
    read_export_day, read_export_query,
};
pub use game::{Action, Assists, Clock, Game, GameLimits, Last, MoveRequest, Status, Unranked};
pub use listing::{
    GameSummary, GamesQuery, MAX_GAMES, Place, PlayerGames, SourcePage, games_cursor, merge,
    read_games_query,
};
pub use log::{ActionKind, Change, Link, Log, Logged};
pub use pace::median_move_gap_ms;
pub use ranking::{
    BoardFrom, BoardQuery, Earned, Leaderboard, LeaderboardEntry, Listed, leaderboard, read_board,
    read_board_query,
};
pub use replay::{Replay, ReplayAction, ReplayCheck, check_replay};
pub use score::score;
pub use settings::GameSettings;
pub use view::{GameView, rfc3339};
