//! `/v1/deal`: a new board that can be cleared under the rules sent, with
//! a sequence that clears it and what it is like to play. Most of the
//! route is reading the request: the board's size, the tile types and
//! their copies, and the characters that write them.

use super::settings::Settings;
use crate::board::{BoardEncoding, BoardRows, Tile, WireBoard, WireLayout};
use crate::decode::decode;
use crate::error::{ApiError, ErrorCode, Work, count};
use crate::limits::Limits;
use crate::wire::{Gravity, Move, WireRules, name};
use linkpath_engine::game::{self, DealError, Difficulty};
use linkpath_engine::{Board, EMPTY, Point, Stop};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The tile types of a dealt text board, in order: type `n` is the `n`-th.
const TEXT_TILES: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// The body of `/v1/deal`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DealRequest {
    /// Columns, from 1; with `height`, unless `layout` is sent.
    #[serde(default)]
    #[schema(minimum = 1)]
    pub width: Option<u64>,
    /// Rows, from 1; with `width`, unless `layout` is sent.
    #[serde(default)]
    #[schema(minimum = 1)]
    pub height: Option<u64>,
    /// The shape to deal onto, instead of `width` and `height`: one tile
    /// on every marked cell, none elsewhere. `types` x `copies` must be
    /// the count of marked cells; `copies` is that count over `types` when
    /// absent. With `gravity` tiles may fall off their marked cells from
    /// the first removal; with `settle` no marked cell may float (have an
    /// empty cell between it and the gravity side).
    #[serde(default)]
    #[schema(value_type = Option<WireLayout>, nullable = false)]
    pub layout: Option<WireLayout>,
    /// Tile types, from 1 (at most 62 with text rows).
    #[schema(minimum = 1)]
    pub types: u64,
    /// Tiles of each type, from 1; 4 when absent (on a `layout`, its
    /// marked cells over `types`). Even, unless matching groups pair the
    /// types: then each group's dealt types must hold an even number of
    /// tiles in all (four flowers of one copy each).
    #[serde(default)]
    #[schema(minimum = 1)]
    pub copies: Option<u64>,
    /// The rules the deal must be clearable under; mahjong when absent.
    #[serde(default)]
    pub rules: Option<WireRules>,
    /// Where tiles fall after each removal; none when absent.
    #[serde(default, deserialize_with = "name")]
    pub gravity: Option<Gravity>,
    /// Whether every line settles after each removal, as on the other game
    /// routes; false when absent. When true the tiles are laid on the
    /// gravity side (bottom rows for down, top rows for up, left or right
    /// columns), so the board dealt has no floating tile; otherwise they
    /// fill the bottom rows whatever the gravity. A `layout` is dealt as
    /// drawn, and with settling must have no floating cell.
    #[serde(default)]
    pub settle: Option<bool>,
    /// The same seed deals the same board; 0 when absent.
    #[serde(default)]
    pub seed: Option<u64>,
    /// The form of the dealt board; text when absent.
    #[serde(default, deserialize_with = "name")]
    pub encoding: Option<BoardEncoding>,
    /// How hard the deal is to play; easy when absent.
    #[serde(default, deserialize_with = "name")]
    pub difficulty: Option<DifficultyName>,
    /// The characters to deal as tile types, in order: type `n` is the
    /// `n`-th character (a Unicode scalar value, such as the Mahjong tiles
    /// U+1F000 to U+1F02B); distinct, none of them space, `.` or U+0000
    /// (which text rows read as empty), and at least `types` of them. Text
    /// rows only. `A` to `Z`, `a` to `z`, `0` to `9` when absent.
    #[serde(default)]
    #[schema(min_length = 1)]
    pub alphabet: Option<String>,
    /// Whether the answer has `moves`, a sequence that clears the board (a
    /// game that only deals can leave it out); true when absent.
    #[serde(default)]
    pub include_moves: Option<bool>,
}

/// How hard a deal is to play, by how it picks the partner of each
/// removal (BENCHMARKS.md measures each level).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
#[schema(as = Difficulty)]
pub enum DifficultyName {
    /// Partners at random: many moves open, most random playouts clear it.
    #[default]
    Easy,
    /// The farthest partner at every removal, and of four such deals the
    /// one with the fewest moves open.
    Medium,
    /// Random placements repaired until the solver or a playout clears
    /// them (two tiles' types swapped where play is stuck), the one
    /// random playouts clear least often.
    Hard,
}

impl From<DifficultyName> for Difficulty {
    fn from(name: DifficultyName) -> Difficulty {
        match name {
            DifficultyName::Easy => Difficulty::Easy,
            DifficultyName::Medium => Difficulty::Medium,
            DifficultyName::Hard => Difficulty::Hard,
        }
    }
}

/// A board that can be cleared, and a sequence that clears it.
#[derive(Debug, Serialize, ToSchema)]
pub struct DealResponse {
    #[schema(value_type = WireBoard)]
    pub board: BoardRows,
    /// A sequence that clears the board; present unless `include_moves`
    /// was false.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub moves: Option<Vec<Move>>,
    pub stats: DealStats,
}

/// What the deal is like to play, measured on the board dealt.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DealStats {
    /// The moves open at the start, counted up to 100,000.
    pub moves_open: usize,
    /// Random playouts made (a uniformly random legal move at each step,
    /// never a shuffle, seeded by `seed`): 32, or 0 on a board of more
    /// than 1,024 tiles.
    pub playouts: u32,
    /// How many of them cleared the board.
    pub playouts_cleared: u32,
}

pub fn deal(body: &[u8], limits: &Limits, stop: &Stop) -> Result<DealResponse, ApiError> {
    let request: DealRequest = decode(body, limits)?;
    let include_moves = request.include_moves.unwrap_or(true);
    let Dealt {
        board,
        encoding,
        sequence,
        stats,
    } = dealt(&request, limits, stop)?;
    Ok(DealResponse {
        board: BoardRows::new(&board, encoding),
        moves: include_moves.then(|| sequence.into_iter().map(Move::bare).collect()),
        stats: DealStats {
            moves_open: stats.moves_open,
            playouts: stats.playouts,
            playouts_cleared: stats.cleared,
        },
    })
}

/// A board dealt, with a sequence that clears it and its measures.
pub(crate) struct Dealt {
    pub board: Board,
    pub encoding: BoardEncoding,
    pub sequence: Vec<(Point, Point)>,
    pub stats: game::DealStats,
}

/// Deals the board `request` asks for: `/v1/deal`, and a new game.
pub(crate) fn dealt(
    request: &DealRequest,
    limits: &Limits,
    stop: &Stop,
) -> Result<Dealt, ApiError> {
    let (width, height, marked) = shape(request, limits)?;
    let copies = match &marked {
        Some(marked) => layout_copies(request, marked.len())?,
        None => copies(request, width, height)?,
    };
    let encoding = request.encoding.unwrap_or_default();
    let kinds = kinds(request, encoding, copies)?;
    let settings = Settings::read(
        encoding,
        request.rules.as_ref(),
        request.gravity,
        request.settle,
        limits,
    )?;
    let seed = request.seed.unwrap_or(0);
    let difficulty = request.difficulty.unwrap_or_default().into();
    // Dealt on the classes; then each class's cells get its types, each
    // type its copies.
    let classes = even_classes(&settings, &kinds, copies)?;
    let deal = game::Deal {
        width,
        height,
        tiles: &classes,
        layout: marked.as_deref(),
        rules: settings.rules,
        fall: settings.fall,
        difficulty,
        seed,
    };
    let (board, sequence, stats) = game::deal_measured(&deal, stop)
        .map_err(|e| deal_refused(e, encoding, marked.is_some()))?;
    let board = if settings.groups.is_trivial() {
        board
    } else {
        let tiles = kinds
            .iter()
            .flat_map(|&(kind, copies)| std::iter::repeat_n(kind, copies));
        settings
            .groups
            .assign(&board, tiles, seed, stop)
            .map_err(Work::Deal.interrupted())?
    };
    Ok(Dealt {
        board,
        encoding,
        sequence,
        stats,
    })
}

/// The board's width and height, and the marked cells of a layout: from
/// `layout` (read within the limits), or from `width` and `height`.
fn shape(
    request: &DealRequest,
    limits: &Limits,
) -> Result<(usize, usize, Option<Vec<usize>>), ApiError> {
    let sent = [("width", request.width), ("height", request.height)];
    if let Some(layout) = &request.layout {
        if let Some((field, _)) = sent.iter().find(|(_, v)| v.is_some()) {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                format!("`{field}` and `layout` were both sent, expected `layout` alone (its rows give the size) or `width` and `height`"),
            )
            .at(*field));
        }
        let board = &layout.board;
        return Ok((board.width(), board.height(), Some(layout.marked())));
    }
    if let Some((field, _)) = sent.iter().find(|(_, v)| v.is_none()) {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("`{field}` is missing, expected `width` and `height`, or a `layout`"),
        )
        .at(*field));
    }
    let (width, height) = size(
        request.width.unwrap_or_default(),
        request.height.unwrap_or_default(),
        limits,
    )?;
    Ok((width, height, None))
}

/// The board's width and height, each within the server's limit on a
/// side, and their cells within its limit on cells.
fn size(width: u64, height: u64, limits: &Limits) -> Result<(usize, usize), ApiError> {
    let width = dimension(width, "width", limits)?;
    let height = dimension(height, "height", limits)?;
    let cells = width * height;
    if cells > limits.max_cells {
        return Err(ApiError::new(
            ErrorCode::TooLarge,
            format!(
                "the board would have {cells} cells, over the limit of {}",
                limits.max_cells
            ),
        )
        .at("width"));
    }
    Ok((width, height))
}

fn dimension(value: u64, name: &str, limits: &Limits) -> Result<usize, ApiError> {
    if value == 0 {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("`{name}` is 0, expected an integer of at least 1"),
        )
        .at(name));
    }
    let value = usize::try_from(value).unwrap_or(usize::MAX);
    if value > limits.max_side {
        return Err(ApiError::new(
            ErrorCode::TooLarge,
            format!("`{name}` is {value}, over the limit of {}", limits.max_side),
        )
        .at(name));
    }
    Ok(value)
}

/// The copies of each type: even unless groups were sent (they are then
/// checked class by class), and with `types` of them no more tiles than
/// the board has cells.
fn copies(request: &DealRequest, width: usize, height: usize) -> Result<u64, ApiError> {
    let types = request.types;
    if types == 0 {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            "`types` is 0, expected the number of tile types, at least 1",
        )
        .at("types"));
    }
    let copies = request.copies.unwrap_or(4);
    let grouped = request.rules.as_ref().is_some_and(|r| r.groups.is_some());
    if copies == 0 || (!copies.is_multiple_of(2) && !grouped) {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("`copies` is {copies}, expected an even integer of at least 2"),
        )
        .at("copies"));
    }
    let cells = width * height;
    let tiles = types.saturating_mul(copies);
    if tiles > cells as u64 {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "{types} types x {copies} copies are {tiles} tiles, more than the {width} x {height} board's {cells} cells"
            ),
        )
        .at("types"));
    }
    Ok(copies)
}

/// The copies of each type on a layout of `cells` marked cells: `types` x
/// `copies` tiles are exactly one a cell, `copies` derived when absent.
/// An odd count, more types than pairs of cells, or no cell cannot be
/// filled; the message names the count and what would fit.
fn layout_copies(request: &DealRequest, cells: usize) -> Result<u64, ApiError> {
    let types = request.types;
    let refused = |field: &str, message: String| {
        Err(ApiError::new(ErrorCode::InvalidRequest, message).at(field))
    };
    if types == 0 {
        return refused(
            "types",
            "`types` is 0, expected the number of tile types, at least 1".into(),
        );
    }
    if cells == 0 {
        return refused(
            "layout",
            "the layout has no marked cell, expected an even count of at least 2 (a tile character marks a cell, space or . leaves it empty)".into(),
        );
    }
    let n = cells as u64;
    if !n.is_multiple_of(2) {
        let fits = if n == 1 {
            "2".to_string()
        } else {
            format!("{} or {}", n - 1, n + 1)
        };
        return refused(
            "layout",
            format!(
                "the layout has {}; tiles are removed in pairs, so a deal needs an even count ({fits})",
                count(cells, "marked cell", "marked cells")
            ),
        );
    }
    let pairs = n / 2;
    let grouped = request.rules.as_ref().is_some_and(|r| r.groups.is_some());
    // Groups may pair types of one copy each: then a type a cell.
    let most_types = if grouped { n } else { pairs };
    if types > most_types {
        return refused(
            "types",
            format!(
                "the layout has {n} marked cells, room for {}; {types} types need at least {} cells, expected at most {most_types} types",
                count(pairs as usize, "pair", "pairs"),
                types.saturating_mul(if grouped { 1 } else { 2 }),
            ),
        );
    }
    let Some(copies) = request.copies else {
        if n.is_multiple_of(types) && (grouped || (n / types).is_multiple_of(2)) {
            return Ok(n / types);
        }
        let (below, above) = divisors_around(pairs, types);
        let fits = match above {
            Some(above) => format!("{below} or {above}"),
            None => below.to_string(),
        };
        return refused(
            "types",
            format!(
                "the layout has {n} marked cells, which {types} types cannot share in even copies, expected a `types` that divides its {pairs} pairs ({fits}), or `copies`"
            ),
        );
    };
    if copies == 0 || (copies % 2 != 0 && !grouped) {
        return refused(
            "copies",
            format!("`copies` is {copies}, expected an even integer of at least 2"),
        );
    }
    let tiles = types.saturating_mul(copies);
    if tiles != n {
        let mut fits = Vec::new();
        if n.is_multiple_of(copies) {
            fits.push(format!("{} types of {copies} copies", n / copies));
        }
        if n.is_multiple_of(types) && (grouped || (n / types).is_multiple_of(2)) {
            fits.push(format!("{types} types of {} copies", n / types));
        }
        fits.push("no `copies` to share the cells among the types".into());
        return refused(
            "copies",
            format!(
                "{types} types x {copies} copies are {tiles} tiles and the layout has {n} marked cells, expected one tile a cell: {}",
                fits.join(", or ")
            ),
        );
    }
    Ok(copies)
}

/// The divisors of `n` nearest `d`: the largest below it (1 at least) and
/// the smallest above it, if any.
fn divisors_around(n: u64, d: u64) -> (u64, Option<u64>) {
    let (mut below, mut above) = (1, None::<u64>);
    let mut k = 1;
    // Up to the square root: each divisor found gives its partner.
    while k * k <= n {
        if n.is_multiple_of(k) {
            for divisor in [k, n / k] {
                if divisor < d {
                    below = below.max(divisor);
                } else if divisor > d {
                    above = Some(above.map_or(divisor, |a| a.min(divisor)));
                }
            }
        }
        k += 1;
    }
    (below, above)
}

/// The tile types to deal, as `encoding` writes them (the characters of
/// the alphabet on text rows, 1 to `types` on number rows), each with its
/// copies.
fn kinds(
    request: &DealRequest,
    encoding: BoardEncoding,
    copies: u64,
) -> Result<Vec<(u32, usize)>, ApiError> {
    let types = request.types;
    let alphabet = match (&request.alphabet, encoding) {
        (Some(_), BoardEncoding::Numbers) => {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                "`alphabet` is for text rows, expected no `alphabet` with \"encoding\": \"numbers\" (tile types are then 1 to `types`)",
            )
            .at("alphabet"));
        }
        (Some(alphabet), BoardEncoding::Text) => tile_characters(alphabet)?,
        (None, _) => TEXT_TILES.chars().collect(),
    };
    if encoding == BoardEncoding::Text && types > alphabet.len() as u64 {
        let message = match request.alphabet {
            Some(_) => format!(
                "{types} types are more than the {} characters of `alphabet`, expected at most {}",
                alphabet.len(),
                alphabet.len()
            ),
            None => format!(
                "{types} types do not fit text rows (at most {}), use \"encoding\": \"numbers\" or a longer `alphabet`",
                TEXT_TILES.len()
            ),
        };
        return Err(ApiError::new(ErrorCode::InvalidRequest, message).at("types"));
    }
    Ok((0..types as usize)
        .map(|i| {
            let kind = match encoding {
                BoardEncoding::Text => u32::from(alphabet[i]),
                BoardEncoding::Numbers => i as u32 + 1,
            };
            (kind, copies as usize)
        })
        .collect())
}

/// The matching classes of `kinds`, each with its tiles. An odd `copies`
/// deals when groups pair the types: each class needs an even number of
/// tiles.
fn even_classes(
    settings: &Settings,
    kinds: &[(u32, usize)],
    copies: u64,
) -> Result<Vec<(u32, usize)>, ApiError> {
    let classes = settings.groups.class_counts(kinds);
    let Some(&(class, tiles)) = classes.iter().find(|&&(_, n)| n % 2 != 0) else {
        return Ok(classes);
    };
    let tile = Tile::new(class, settings.encoding);
    let message = if settings.groups.is_grouped(class) {
        format!(
            "`copies` is {copies} and the group of {tile} has {} in all, an odd number, expected an even `copies` or groups of an even number of the dealt types",
            count(tiles, "tile", "tiles")
        )
    } else {
        format!(
            "`copies` is {copies} and type {tile} is in no group, expected an even `copies` or every dealt type in a group"
        )
    };
    Err(ApiError::new(ErrorCode::InvalidRequest, message).at("copies"))
}

/// The characters of `alphabet`, each a tile type: distinct, none read as
/// an empty cell.
fn tile_characters(alphabet: &str) -> Result<Vec<char>, ApiError> {
    let refused =
        |message: String| ApiError::new(ErrorCode::InvalidRequest, message).at("alphabet");
    let characters: Vec<char> = alphabet.chars().collect();
    if characters.is_empty() {
        return Err(refused(
            "`alphabet` is empty, expected the characters of the tile types".into(),
        ));
    }
    let mut first = std::collections::HashMap::with_capacity(characters.len());
    for (i, &c) in characters.iter().enumerate() {
        let written = Tile::Text(c.to_string());
        if linkpath_engine::tile_of_char(c) == EMPTY {
            return Err(refused(format!(
                "`alphabet` has {written} at {i}, which text rows read as an empty cell, expected tile characters"
            )));
        }
        if c.is_control() {
            return Err(refused(format!(
                "`alphabet` has {written} at {i}, a control character, expected tile characters"
            )));
        }
        if let Some(earlier) = first.insert(c, i) {
            return Err(refused(format!(
                "`alphabet` has {written} at {earlier} and {i}, expected distinct characters"
            )));
        }
    }
    Ok(characters)
}

/// The error of a deal the engine refused, naming tiles as `encoding`
/// writes them, and the layout when the deal was onto one.
fn deal_refused(e: DealError, encoding: BoardEncoding, layout: bool) -> ApiError {
    match e {
        DealError::Floating { cell, gravity } => ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "the layout's cell {cell} floats: with `settle` every tile falls {} at the first removal, expected a layout whose marked cells each rest on a marked cell or the edge on that side, or `settle`: false",
                gravity.name()
            ),
        )
        .at("layout"),
        DealError::NoSequence if layout => ApiError::new(
            ErrorCode::InvalidRequest,
            "no removal sequence clears the layout's marked cells under these rules, expected a layout whose tiles can all be joined",
        )
        .at("layout"),
        e @ (DealError::LayoutCount { .. } | DealError::LayoutCells) => {
            ApiError::new(ErrorCode::InvalidRequest, e.to_string()).at("layout")
        }
        DealError::Interrupted(e) => Work::Deal.stopped(e),
        // `copies` is checked above; kept for a message that names the tile.
        DealError::OddCopies { kind, copies } => ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "type {} has {}, expected an even number",
                Tile::new(kind, encoding),
                count(copies, "copy", "copies")
            ),
        )
        .at("copies"),
        other => ApiError::new(ErrorCode::InvalidRequest, other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deal_errors_name_tiles_as_written() {
        let odd = |kind, copies| DealError::OddCopies { kind, copies };
        let message = |e, encoding| {
            let e = deal_refused(e, encoding, false);
            assert_eq!(e.field.as_deref(), Some("copies"));
            e.message
        };
        assert_eq!(
            message(odd(u32::from('B'), 1), BoardEncoding::Text),
            "type \"B\" has 1 copy, expected an even number"
        );
        assert_eq!(
            message(odd(0x1F000, 3), BoardEncoding::Text),
            "type \"\u{1F000}\" has 3 copies, expected an even number"
        );
        assert_eq!(
            message(odd(66, 3), BoardEncoding::Numbers),
            "type 66 has 3 copies, expected an even number"
        );
    }
}
