//! `POST /v1/games`: a game dealt as `/v1/deal` deals it, or on a board
//! sent, with an optional time limit.

use super::game::Game;
use super::log::Logged;
use super::ranking::board_of;
use super::settings::GameSettings;
use crate::board::{WireBoard, WireLayout};
use crate::decode::decode;
use crate::error::{ApiError, ErrorCode};
use crate::limits::Limits;
use crate::mechanics::{DealRequest, DifficultyName, Settings, dealt};
use crate::wire::{Gravity, HeldRules, WireRules, name};
use linkpath_engine::{Board, Stop};
use serde::Deserialize;
use utoipa::ToSchema;

/// The body of `POST /v1/games`: the fields of `/v1/deal` (`width`,
/// `height` and `types` at least), or a `board` to play on, and the
/// settings of the game.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateGame {
    /// The board to play on; the game is dealt when absent.
    #[serde(default)]
    #[schema(value_type = Option<WireBoard>, nullable = false)]
    pub board: Option<WireBoard>,
    /// Columns of the board dealt, from 1.
    #[serde(default)]
    #[schema(minimum = 1)]
    pub width: Option<u64>,
    /// Rows of the board dealt, from 1.
    #[serde(default)]
    #[schema(minimum = 1)]
    pub height: Option<u64>,
    /// The shape dealt onto, as `/v1/deal` takes it, instead of `width`
    /// and `height`.
    #[serde(default)]
    #[schema(value_type = Option<WireLayout>, nullable = false)]
    pub layout: Option<WireLayout>,
    /// Tile types dealt, from 1.
    #[serde(default)]
    #[schema(minimum = 1)]
    pub types: Option<u64>,
    /// Tiles of each type dealt; 4 when absent.
    #[serde(default)]
    #[schema(minimum = 1)]
    pub copies: Option<u64>,
    #[serde(default, deserialize_with = "name")]
    pub difficulty: Option<DifficultyName>,
    /// The same seed deals the same board; 0 when absent.
    #[serde(default)]
    pub seed: Option<u64>,
    /// The characters dealt as tile types, as `/v1/deal` takes them.
    #[serde(default)]
    pub alphabet: Option<String>,
    /// The form of the board dealt; text when absent.
    #[serde(default, deserialize_with = "name")]
    pub encoding: Option<crate::board::BoardEncoding>,
    /// The rules; mahjong when absent. Slide (curling) has no game.
    #[serde(default)]
    #[schema(value_type = Option<WireRules>)]
    pub rules: Option<HeldRules>,
    /// Where tiles fall after each removal; none when absent.
    #[serde(default, deserialize_with = "name")]
    pub gravity: Option<Gravity>,
    /// Whether every line settles after each removal; false when absent.
    #[serde(default)]
    pub settle: Option<bool>,
    /// Play time allowed, in milliseconds, from 1; none when absent.
    #[serde(default)]
    #[schema(minimum = 1)]
    pub time_limit_ms: Option<u64>,
    /// A name shown with the game: 1 to 32 letters, digits, spaces, `-`,
    /// `_` or `.`. It enters no leaderboard: a win is entered under the
    /// signed-in player who created the game (docs/players.md).
    #[serde(default)]
    #[schema(min_length = 1, max_length = 32, deprecated)]
    pub player: Option<String>,
}

/// The fields that deal, named for the error when a board is sent too.
const DEAL_FIELDS: [&str; 8] = [
    "width",
    "height",
    "layout",
    "types",
    "copies",
    "difficulty",
    "seed",
    "alphabet",
];

/// A new game with id `id` from the body of `POST /v1/games`, its clock
/// started at `now_ms`, on the leaderboard of its deal, the player
/// `owner`'s if one created it; with the first entry of its log.
pub fn create(
    body: &[u8],
    id: String,
    owner: Option<String>,
    now_ms: u64,
    limits: &Limits,
    stop: &Stop,
) -> Result<(Game, Logged), ApiError> {
    let (player, board, settings) = read(body, limits, stop)?;
    let (mut game, created) = Game::new(id, settings, &board, now_ms, limits, stop)?;
    game.leaderboard = board_of(&game.settings);
    game.player = player;
    game.owner = owner;
    Ok((game, created))
}

/// The body of `POST /v1/games` read: the player, the board to play and
/// the settings to keep.
pub(crate) fn read(
    body: &[u8],
    limits: &Limits,
    stop: &Stop,
) -> Result<(Option<String>, Board, GameSettings), ApiError> {
    let request: CreateGame = decode(body, limits)?;
    let player = match &request.player {
        Some(player) => Some(crate::players::read_name(player, "player")?),
        None => None,
    };
    if request.time_limit_ms == Some(0) {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            "`time_limit_ms` is 0, expected at least 1 (or no field for no limit)",
        )
        .at("time_limit_ms"));
    }
    let (board, settings) = match request.board {
        Some(board) => {
            let given = [
                request.width.is_some(),
                request.height.is_some(),
                request.layout.is_some(),
                request.types.is_some(),
                request.copies.is_some(),
                request.difficulty.is_some(),
                request.seed.is_some(),
                request.alphabet.is_some(),
            ];
            if let Some(i) = given.iter().position(|&g| g) {
                let field = DEAL_FIELDS[i];
                return Err(ApiError::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "`{field}` deals a board and `board` was sent, expected one or the other"
                    ),
                )
                .at(field));
            }
            if request.encoding.is_some_and(|e| e != board.encoding) {
                return Err(ApiError::new(
                    ErrorCode::InvalidRequest,
                    "`encoding` differs from the form of `board`, expected no `encoding` with a board (its rows say it)",
                )
                .at("encoding"));
            }
            let encoding = board.encoding;
            let (board, _) = Settings::with_board(
                board,
                request.rules.as_ref().map(HeldRules::wire),
                request.gravity,
                request.settle,
                limits,
            )?;
            let settings = GameSettings {
                width: board.width(),
                height: board.height(),
                encoding,
                layout: None,
                types: None,
                copies: None,
                difficulty: None,
                seed: None,
                alphabet: None,
                rules: request.rules,
                gravity: request.gravity.unwrap_or_default(),
                settle: request.settle.unwrap_or(false),
                time_limit_ms: request.time_limit_ms,
            };
            (board, settings)
        }
        None => {
            let sized = request.layout.is_some();
            let missing = [
                ("width", request.width.is_some() || sized),
                ("height", request.height.is_some() || sized),
                ("types", request.types.is_some()),
            ]
            .into_iter()
            .find(|&(_, given)| !given);
            if let Some((field, _)) = missing {
                return Err(ApiError::new(
                    ErrorCode::InvalidRequest,
                    format!("`{field}` is missing, expected `board` or the fields that deal one: `width`, `height` (or a `layout`) and `types`"),
                )
                .at(field));
            }
            let deal = DealRequest {
                width: request.width,
                height: request.height,
                layout: request.layout,
                types: request.types.unwrap_or_default(),
                copies: request.copies,
                rules: request.rules.as_ref().map(|rules| rules.wire().clone()),
                gravity: request.gravity,
                settle: request.settle,
                seed: request.seed,
                encoding: request.encoding,
                difficulty: request.difficulty,
                alphabet: request.alphabet.clone(),
                include_moves: Some(false),
            };
            let board = dealt(&deal, limits, stop)?.board;
            let settings = GameSettings {
                width: board.width(),
                height: board.height(),
                encoding: request.encoding.unwrap_or_default(),
                layout: deal.layout.as_ref().map(WireLayout::rows),
                types: request.types,
                copies: request.copies,
                difficulty: request.difficulty,
                seed: request.seed,
                alphabet: request.alphabet.clone(),
                rules: request.rules,
                gravity: request.gravity.unwrap_or_default(),
                settle: request.settle.unwrap_or(false),
                time_limit_ms: request.time_limit_ms,
            };
            (board, settings)
        }
    };
    Ok((player, board, settings))
}
