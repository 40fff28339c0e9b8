//! A game's replay: the board dealt, the settings and every action with
//! its time; and checking a replay again, action by action, with the same
//! judge and clock as the game itself, so that a backend can audit a game
//! a client kept.
//!
//! A replay sent back keeps its rules a JSON value until the rest of it is
//! checked, then reads them as a game's creation does, so that their
//! mistakes come in the same order and are named at `rules` as there.
//! This is the one place rules are read from a value: no held game's
//! action comes through it.

use super::game::{Action, Assists, Game, GameLimits, Status};
use super::log::{ActionKind, Logged};
use super::settings::GameSettings;
use crate::board::{BoardEncoding, BoardRows, WireBoard};
use crate::decode::decode;
use crate::error::{ApiError, ErrorCode};
use crate::limits::Limits;
use crate::mechanics::DifficultyName;
use crate::wire::{Gravity, HeldRules, Moved, Point};
use linkpath_engine::Stop;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One action of a replay, `after_ms` after the game was created: on the
/// server's clock, less the server's downtime given back to the game by
/// then (docs/games.md, "The server's downtime").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplayAction {
    pub action: ActionKind,
    pub after_ms: u64,
    /// A move's first tile; none (or `null`) for other actions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Point>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Point>,
    /// The seed a shuffle was made from, in decimal digits (a 64-bit
    /// number, past what a JSON number keeps exact in JavaScript): the
    /// shuffle is made again from it. None (or `null`) for other actions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^[0-9]{1,20}$", example = "12094767318514349312")]
    pub seed: Option<String>,
    /// A shuffle given as its tiles' moves, each moved at once, instead of
    /// its seed; none (or `null`) for other actions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved: Option<Vec<Moved>>,
}

/// `GET /v1/games/{id}/replay`, and the body of `POST /v1/replays`.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Replay {
    pub settings: GameSettings,
    /// The board dealt.
    #[schema(value_type = WireBoard)]
    pub board: BoardRows,
    /// Every action, in order; the game's creation is not one.
    pub actions: Vec<ReplayAction>,
}

/// The most bytes one action of a replay the server writes takes: a move
/// or a shuffle by its seed with every number at its widest
/// (`tests/api/games.rs` checks each kind).
pub const ACTION_BYTES: u64 = 96;

/// The most bytes of a cell in a replay's board: ten digits and a comma
/// (the numbers form), a character of up to four bytes (the text form).
pub const CELL_BYTES: u64 = 17;

/// The most bytes of a replay's settings, less its layout (a character a
/// cell): the rules and the numbers of a game.
pub const SETTINGS_BYTES: u64 = 4096;

impl Replay {
    /// The most bytes the replay the server writes of a game of `cells`
    /// cells and `actions` actions takes: what `POST /v1/replays` must
    /// take to check any game again. (A game kept before shuffles were
    /// kept by their seed replays them as their tiles' moves, which takes
    /// more.)
    pub fn largest(cells: u64, actions: u64) -> u64 {
        SETTINGS_BYTES + cells * (CELL_BYTES + 4) + actions * ACTION_BYTES
    }
}

/// A replay as sent.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplayRequest {
    settings: SentSettings,
    board: WireBoard,
    actions: Vec<ReplayAction>,
}

/// A replay's [`GameSettings`] as sent, its rules not read yet.
#[derive(Debug, Deserialize)]
struct SentSettings {
    width: usize,
    height: usize,
    encoding: BoardEncoding,
    #[serde(default)]
    layout: Option<Vec<String>>,
    #[serde(default)]
    types: Option<u64>,
    #[serde(default)]
    copies: Option<u64>,
    #[serde(default)]
    difficulty: Option<DifficultyName>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    alphabet: Option<String>,
    #[serde(default)]
    rules: Option<serde_json::Value>,
    gravity: Gravity,
    settle: bool,
    #[serde(default)]
    time_limit_ms: Option<u64>,
}

/// `rules` alone, read as every route reads it.
#[derive(Deserialize)]
struct RulesOnly {
    #[serde(default)]
    rules: Option<HeldRules>,
}

impl SentSettings {
    /// The game's settings, the rules read as a body of their own and all
    /// checked as a game's are.
    fn read(self, limits: &Limits) -> Result<GameSettings, ApiError> {
        let rules = match &self.rules {
            Some(rules) => {
                let body = serde_json::json!({ "rules": rules }).to_string();
                decode::<RulesOnly>(body.as_bytes(), limits)?.rules
            }
            None => None,
        };
        let settings = GameSettings {
            width: self.width,
            height: self.height,
            encoding: self.encoding,
            layout: self.layout,
            types: self.types,
            copies: self.copies,
            difficulty: self.difficulty,
            seed: self.seed,
            alphabet: self.alphabet,
            rules,
            gravity: self.gravity,
            settle: self.settle,
            time_limit_ms: self.time_limit_ms,
        };
        settings.read(limits)?;
        Ok(settings)
    }
}

impl Replay {
    /// The replay of `game` from its whole `log`, entry 0 its creation;
    /// `None` if the log does not start with the board dealt.
    pub fn of(game: &Game, log: &[Logged]) -> Option<Replay> {
        let dealt = log.first()?.dealt.clone()?;
        let dealt =
            linkpath_engine::Board::new(game.settings.width, game.settings.height, dealt).ok()?;
        Some(Replay {
            settings: game.settings.clone(),
            board: BoardRows::new(&dealt, game.settings.encoding),
            actions: log
                .iter()
                .filter(|l| l.action != ActionKind::Create)
                .map(|l| action_of(l, game.created_at_ms))
                .collect(),
        })
    }
}

fn form(encoding: crate::board::BoardEncoding) -> &'static str {
    match encoding {
        crate::board::BoardEncoding::Text => "text",
        crate::board::BoardEncoding::Numbers => "numbers",
    }
}

/// `logged` in the replay, its time on the game's clock: the server's
/// downtime given back by then is left out, as the game's clock left it.
fn action_of(logged: &Logged, created_at_ms: u64) -> ReplayAction {
    ReplayAction {
        action: logged.action,
        after_ms: logged
            .at_ms
            .saturating_sub(created_at_ms)
            .saturating_sub(logged.given_back_ms),
        from: logged.from,
        to: logged.to,
        seed: logged.seed.map(|seed| seed.to_string()),
        moved: logged.moved.clone(),
    }
}

/// A replay's seed: 1 to 20 decimal digits of a 64-bit number.
fn read_seed(text: &str) -> Option<u64> {
    let digits = !text.is_empty() && text.len() <= 20 && text.bytes().all(|b| b.is_ascii_digit());
    digits.then(|| text.parse().ok()).flatten()
}

/// What a replay comes to: the game after its last action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct ReplayCheck {
    pub status: Status,
    pub version: u64,
    pub score: u64,
    /// Play time at the last action.
    pub elapsed_ms: u64,
    pub tiles_left: usize,
    pub moves_open: usize,
    pub assists: Assists,
    pub ranked: bool,
    #[schema(value_type = WireBoard)]
    pub board: BoardRows,
}

/// Plays the replay of `body` again and answers where it ends; the first
/// action the game would have refused is a 422 naming it, and `stop`
/// passing is a 504 (`deadline_exceeded`).
pub fn check_replay(
    body: &[u8],
    game_limits: &GameLimits,
    limits: &Limits,
    stop: &Stop,
) -> Result<ReplayCheck, ApiError> {
    let request: ReplayRequest = decode(body, limits)?;
    let board = request.board.board;
    let s = &request.settings;
    if (s.width, s.height) != (board.width(), board.height())
        || s.encoding != request.board.encoding
    {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "`board` is {} x {} {}, expected the {} x {} {} board of `settings`",
                board.width(),
                board.height(),
                form(request.board.encoding),
                s.width,
                s.height,
                form(s.encoding)
            ),
        )
        .at("board"));
    }
    // The shape a game was dealt onto has the board's size.
    if let Some(layout) = &s.layout
        && (layout.len() != s.height || layout.iter().any(|row| row.chars().count() != s.width))
    {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "`settings.layout` is not a {} x {} shape, expected the rows of the layout the game was dealt onto, as many and as long as the board's",
                s.width, s.height
            ),
        )
        .at("settings.layout"));
    }
    if request.actions.len() >= game_limits.max_actions {
        return Err(ApiError::new(
            ErrorCode::TooLarge,
            format!(
                "the replay has {} actions, over this server's limit of {} for one game",
                request.actions.len(),
                game_limits.max_actions - 1
            ),
        )
        .at("actions"));
    }
    // Every seed is checked first, whatever its action, as the schema says.
    let seeds = request
        .actions
        .iter()
        .enumerate()
        .map(|(i, step)| match &step.seed {
            Some(seed) => read_seed(seed).map(Some).ok_or_else(|| {
                ApiError::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "`seed` is {:?}, expected the decimal digits of a 64-bit number",
                        crate::excerpt(seed)
                    ),
                )
                .at(format!("actions[{i}].seed"))
            }),
            None => Ok(None),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let settings = request.settings.read(limits)?;
    let (mut game, created) = Game::new("replay".into(), settings, &board, 0, limits, stop)?;
    let mut log = vec![created];
    let mut now = 0;
    for (i, step) in request.actions.iter().enumerate() {
        let field = format!("actions[{i}]");
        let wrong =
            |message: String| ApiError::new(ErrorCode::InvalidRequest, message).at(field.clone());
        if step.after_ms < now {
            return Err(wrong(format!(
                "`after_ms` is {}, before the action ahead of it at {now}, expected the actions in time order",
                step.after_ms
            )));
        }
        now = step.after_ms;
        let ran_out = match game.expire(now) {
            Some(logged) => {
                log.push(logged);
                true
            }
            None => false,
        };
        if step.action == ActionKind::OutOfTime {
            if !ran_out || game.updated_at_ms != now {
                return Err(wrong(format!(
                    "the time limit did not pass at {now}, expected `out_of_time` when it passes"
                )));
            }
            continue;
        }
        if ran_out {
            return Err(wrong(format!(
                "the time limit passed at {}, before this action, expected `out_of_time` there",
                game.updated_at_ms
            )));
        }
        let seed = seeds[i];
        let action = match (step.action, step.from, step.to) {
            (ActionKind::Move, Some(from), Some(to)) => Action::Move { from, to },
            (ActionKind::Move, _, _) => {
                return Err(wrong("a move without `from` and `to`".into()));
            }
            (ActionKind::Hint, ..) => Action::Hint,
            (ActionKind::Undo, ..) => Action::Undo,
            (ActionKind::Redo, ..) => Action::Redo,
            (ActionKind::Shuffle, ..) => match (seed, &step.moved) {
                (Some(seed), None) => Action::Shuffle {
                    seed: Some(seed),
                    moved: None,
                },
                (None, Some(moved)) => Action::Shuffle {
                    seed: None,
                    moved: Some(moved.clone()),
                },
                _ => {
                    return Err(wrong(
                        "a shuffle needs its `seed` or its `moved`, expected one of them".into(),
                    ));
                }
            },
            (ActionKind::Pause, ..) => Action::Pause,
            (ActionKind::Resume, ..) => Action::Resume,
            (ActionKind::Resign, ..) => Action::Resign,
            // The race's end is the match's to tell: a replay shows where
            // it stopped the game.
            (ActionKind::RaceOver, ..) => Action::EndRace,
            (ActionKind::Create | ActionKind::OutOfTime, ..) => {
                return Err(wrong(format!(
                    "`{}` is not an action a player makes, expected move, hint, undo, redo, shuffle, pause, resume, resign, race_over or out_of_time",
                    step.action.name()
                )));
            }
        };
        let logged = game
            .act(&action, now, log.as_slice(), game_limits, limits, stop)
            .map_err(|e| match e.code {
                // The server ran out of time, not the replay out of
                // rules: a 504 as on every route, never a forged action.
                ErrorCode::DeadlineExceeded => e,
                code => ApiError::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "the game refuses this action ({}): {}",
                        code.as_str(),
                        e.message
                    ),
                )
                .at(field.clone()),
            })?;
        log.push(logged);
    }
    Ok(ReplayCheck {
        status: game.status,
        version: game.version,
        score: game.score,
        elapsed_ms: game.clock.at(now),
        tiles_left: game.tiles_left,
        moves_open: game.moves_open,
        assists: game.assists,
        ranked: game.ranked(),
        board: BoardRows::new(&game.board(), game.settings.encoding),
    })
}
