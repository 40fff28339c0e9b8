//! The JSON request and response of the solve family of routes, decoded
//! straight into engine types.
//!
//! The board is read row by row into one flat cell array: a ragged row, a
//! bad cell, or a board over the limits is rejected the moment the parser
//! reaches it, naming the field (`board[3]`, `queries[2].to`). Errors found
//! inside serde callbacks are kept in [`Decoder::failure`], since serde's own
//! error type carries only a message.

use super::error::{ApiError, ErrorCode, excerpt};
use crate::solver::{Answer, Board, EMPTY, Match, Movement, Point, Preset, Query, Rules};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::fmt;

/// Request limits, checked while the body is parsed.
#[derive(Clone, Debug)]
pub struct Limits {
    pub max_cells: usize,
    pub max_side: usize,
    pub max_queries: usize,
    pub max_segments: u32,
    /// Most moves `/v1/moves` lists.
    pub max_moves: usize,
    /// Most cells of a board drawn as a picture.
    pub max_render_cells: usize,
    /// Whether `max_cells` is the picture limit, for the message.
    pub picture: bool,
}

impl Limits {
    /// The limits of a board to draw: no more cells than a picture may have.
    pub fn for_pictures(&self) -> Limits {
        Limits {
            max_cells: self.max_cells.min(self.max_render_cells),
            picture: true,
            ..self.clone()
        }
    }
}

/// How the board came in, so answers that return a board use the same form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardEncoding {
    Text,
    Numbers,
}

/// A decoded `/v1/solve` body.
#[derive(Debug)]
pub struct SolveRequest {
    pub board: Board,
    pub encoding: BoardEncoding,
    pub rules: Rules,
    /// The preset name, or `custom` when fields were overridden: a metrics
    /// label with few values.
    pub rules_label: &'static str,
    pub queries: Vec<Query>,
    pub include_path: bool,
}

/// Decodes a `/v1/solve` body.
pub fn decode_solve(body: &[u8], limits: &Limits) -> Result<SolveRequest, ApiError> {
    let decoder = Decoder {
        limits,
        failure: RefCell::new(None),
        field: RefCell::new(String::new()),
    };
    let mut json = serde_json::Deserializer::from_slice(body);
    let parsed = RequestSeed(&decoder)
        .deserialize(&mut json)
        .and_then(|raw| json.end().map(|()| raw));
    let raw = parsed.map_err(|e| decoder.explain(e))?;
    raw.finish(limits)
}

struct Decoder<'l> {
    limits: &'l Limits,
    /// The structured error behind the last serde error, when we made it.
    failure: RefCell<Option<ApiError>>,
    /// The field being read, for serde's own errors.
    field: RefCell<String>,
}

impl Decoder<'_> {
    fn fail<E: de::Error>(&self, error: ApiError) -> E {
        let message = error.message.clone();
        *self.failure.borrow_mut() = Some(error);
        E::custom(message)
    }

    fn enter(&self, field: impl Into<String>) {
        *self.field.borrow_mut() = field.into();
    }

    /// Turns a serde_json error into an API error: ours if we made it,
    /// 400 for broken JSON, 422 naming the field otherwise.
    fn explain(&self, error: serde_json::Error) -> ApiError {
        if let Some(ours) = self.failure.borrow_mut().take() {
            return ours;
        }
        if error.is_syntax() || error.is_eof() || error.is_io() {
            return ApiError::new(
                ErrorCode::MalformedJson,
                format!("the body is not valid JSON: {error}"),
            );
        }
        let field = self.field.borrow().clone();
        let code = match field.split(['[', '.']).next().unwrap_or("") {
            "board" => ErrorCode::InvalidBoard,
            "rules" => ErrorCode::InvalidRules,
            "queries" | "moves" => ErrorCode::InvalidQuery,
            _ => ErrorCode::InvalidRequest,
        };
        let error = ApiError::new(code, strip_position(&error.to_string()));
        if field.is_empty() {
            error
        } else {
            error.at(field)
        }
    }
}

/// serde_json appends " at line L column C"; a field path says more.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

/// The request as parsed, before the checks that need all of it.
#[derive(Default)]
struct RawRequest {
    board: Option<(Board, BoardEncoding)>,
    rules: Option<(Rules, &'static str)>,
    queries: Option<Vec<[i64; 4]>>,
    include_path: Option<bool>,
}

impl RawRequest {
    fn finish(self, limits: &Limits) -> Result<SolveRequest, ApiError> {
        let Some((board, encoding)) = self.board else {
            return Err(ApiError::new(
                ErrorCode::InvalidBoard,
                "the board is missing, expected an array of rows",
            )
            .at("board"));
        };
        let (rules, rules_label) = self.rules.unwrap_or((Preset::Mahjong.rules(), "mahjong"));
        check_max_segments(&rules, limits)?;
        check_throws(&board, &rules)?;
        let Some(raw_queries) = self.queries else {
            return Err(ApiError::new(
                ErrorCode::InvalidQuery,
                "the queries are missing, expected an array of {\"from\": [x, y], \"to\": [x, y]}",
            )
            .at("queries"));
        };
        let mut queries = Vec::with_capacity(raw_queries.len());
        for (i, [fx, fy, tx, ty]) in raw_queries.into_iter().enumerate() {
            let from = on_board(&board, fx, fy).map_err(|e| e.at(format!("queries[{i}].from")))?;
            let to = on_board(&board, tx, ty).map_err(|e| e.at(format!("queries[{i}].to")))?;
            queries.push(Query::new(from, to));
        }
        Ok(SolveRequest {
            board,
            encoding,
            rules,
            rules_label,
            queries,
            include_path: self.include_path.unwrap_or(true),
        })
    }
}

fn check_max_segments(rules: &Rules, limits: &Limits) -> Result<(), ApiError> {
    match rules.max_segments {
        Some(max) if max > limits.max_segments => Err(ApiError::new(
            ErrorCode::InvalidRules,
            format!(
                "max_segments is {max}, over this server's limit of {}",
                limits.max_segments
            ),
        )
        .at("rules.max_segments")),
        _ => Ok(()),
    }
}

/// The most throws a slide search may look ahead. It holds a stack frame
/// per throw on a 2 MiB worker stack (about 3,000 frames overflow it and
/// abort the process), and every throw but the last breaks a block, so a
/// long rink without a throw limit could need one per block.
pub const MAX_THROWS: u32 = 1000;

fn check_throws(board: &Board, rules: &Rules) -> Result<(), ApiError> {
    if rules.movement != Movement::Slide {
        return Ok(());
    }
    let blocks = board.tile_count() as u64;
    let deepest = rules
        .max_segments
        .map_or(blocks + 1, |m| u64::from(m).min(blocks + 1));
    if deepest <= u64::from(MAX_THROWS) {
        return Ok(());
    }
    Err(ApiError::new(
        ErrorCode::InvalidRules,
        format!(
            "slide rules allow {deepest} throws on this board of {blocks} blocks, over the limit of {MAX_THROWS}: set max_segments to at most {MAX_THROWS}"
        ),
    )
    .at("rules.max_segments"))
}

/// The error for a request without `board`.
pub fn missing_board() -> ApiError {
    ApiError::new(
        ErrorCode::InvalidBoard,
        "the board is missing, expected an array of rows",
    )
    .at("board")
}

/// Reads the `board` of another route's request with the checks, limits and
/// field-precise errors of `/v1/solve`.
pub fn decode_board(
    value: serde_json::Value,
    limits: &Limits,
) -> Result<(Board, BoardEncoding), ApiError> {
    with_decoder(limits, "board", |decoder| {
        BoardSeed(decoder).deserialize(value)
    })
}

/// Reads the `rules` of another route's request as `/v1/solve` does; with
/// the metrics label.
pub fn decode_rules(
    value: serde_json::Value,
    limits: &Limits,
) -> Result<(Rules, &'static str), ApiError> {
    let (rules, label) = with_decoder(limits, "rules", |decoder| {
        RulesSeed(decoder).deserialize(value)
    })?;
    check_max_segments(&rules, limits)?;
    Ok((rules, label))
}

/// A point `[x, y]` on `board`, read as a query point is; errors name
/// `field`.
pub fn decode_point(
    value: serde_json::Value,
    board: &Board,
    limits: &Limits,
    field: &str,
) -> Result<Point, ApiError> {
    let (x, y) = with_decoder(limits, field, |decoder| {
        PointSeed(decoder, field).deserialize(value)
    })?;
    on_board(board, x, y).map_err(|e| e.at(field))
}

fn with_decoder<T>(
    limits: &Limits,
    field: &str,
    read: impl FnOnce(&Decoder) -> Result<T, serde_json::Error>,
) -> Result<T, ApiError> {
    let decoder = Decoder {
        limits,
        failure: RefCell::new(None),
        field: RefCell::new(field.to_owned()),
    };
    read(&decoder).map_err(|e| decoder.explain(e))
}

fn on_board(board: &Board, x: i64, y: i64) -> Result<Point, ApiError> {
    let (w, h) = (board.width() as i64, board.height() as i64);
    if (0..w).contains(&x) && (0..h).contains(&y) {
        Ok(Point::new(x as i32, y as i32))
    } else {
        Err(ApiError::new(
            ErrorCode::InvalidQuery,
            format!(
                "[{x}, {y}] is off the {w} x {h} board, expected x from 0 to {} and y from 0 to {}",
                w - 1,
                h - 1
            ),
        ))
    }
}

struct RequestSeed<'d, 'l>(&'d Decoder<'l>);

impl<'de> DeserializeSeed<'de> for RequestSeed<'_, '_> {
    type Value = RawRequest;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<RawRequest, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RequestSeed<'_, '_> {
    type Value = RawRequest;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object with board, rules, queries and include_path")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawRequest, A::Error> {
        let decoder = self.0;
        let mut raw = RawRequest::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            decoder.enter(key.as_ref());
            let duplicate = match key.as_ref() {
                "board" => raw
                    .board
                    .replace(map.next_value_seed(BoardSeed(decoder))?)
                    .is_some(),
                "rules" => raw
                    .rules
                    .replace(map.next_value_seed(RulesSeed(decoder))?)
                    .is_some(),
                "queries" => raw
                    .queries
                    .replace(map.next_value_seed(QueriesSeed(decoder))?)
                    .is_some(),
                "include_path" => raw.include_path.replace(map.next_value()?).is_some(),
                other => {
                    return Err(decoder.fail(
                        ApiError::new(
                            ErrorCode::InvalidRequest,
                            format!(
                                "unknown field `{}`, expected board, rules, queries or include_path",
                                excerpt(other)
                            ),
                        )
                        .at(other),
                    ));
                }
            };
            if duplicate {
                return Err(decoder.fail(
                    ApiError::new(ErrorCode::InvalidRequest, format!("`{key}` is given twice"))
                        .at(key.as_ref()),
                ));
            }
        }
        decoder.enter("");
        Ok(raw)
    }
}

/// Reads `board`: an array of text rows or of number rows, into flat cells.
struct BoardSeed<'d, 'l>(&'d Decoder<'l>);

impl<'de> DeserializeSeed<'de> for BoardSeed<'_, '_> {
    type Value = (Board, BoardEncoding);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for BoardSeed<'_, '_> {
    type Value = (Board, BoardEncoding);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of rows: strings, or arrays of non-negative integers")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let decoder = self.0;
        let mut rows = Rows {
            decoder,
            cells: Vec::new(),
            width: None,
            height: 0,
            encoding: None,
        };
        loop {
            decoder.enter(format!("board[{}]", rows.height));
            if seq.next_element_seed(RowSeed(&mut rows))?.is_none() {
                break;
            }
            rows.height += 1;
        }
        decoder.enter("board");
        let width = rows.width.unwrap_or(0);
        if rows.height == 0 || width == 0 {
            return Err(decoder.fail(
                ApiError::new(
                    ErrorCode::InvalidBoard,
                    "the board is empty, expected at least one row and one column",
                )
                .at("board"),
            ));
        }
        let board = Board::new(width, rows.height, rows.cells).map_err(|e| {
            decoder.fail(ApiError::new(ErrorCode::InvalidBoard, e.to_string()).at("board"))
        })?;
        Ok((board, rows.encoding.unwrap_or(BoardEncoding::Text)))
    }
}

/// "1 cell", "5 cells".
fn cells(n: usize) -> String {
    if n == 1 {
        "1 cell".into()
    } else {
        format!("{n} cells")
    }
}

/// The board read so far.
struct Rows<'d, 'l> {
    decoder: &'d Decoder<'l>,
    cells: Vec<u32>,
    width: Option<usize>,
    height: usize,
    encoding: Option<BoardEncoding>,
}

impl Rows<'_, '_> {
    fn error(&self, code: ErrorCode, message: String) -> ApiError {
        ApiError::new(code, message).at(format!("board[{}]", self.height))
    }

    /// Checks a row's encoding against the first row's.
    fn encoding<E: de::Error>(&mut self, encoding: BoardEncoding) -> Result<(), E> {
        match self.encoding {
            None => {
                self.encoding = Some(encoding);
                Ok(())
            }
            Some(first) if first == encoding => Ok(()),
            Some(first) => {
                let name = |e| match e {
                    BoardEncoding::Text => "a string",
                    BoardEncoding::Numbers => "an array of numbers",
                };
                let message = format!(
                    "row {} is {}, expected {} like row 0",
                    self.height,
                    name(encoding),
                    name(first)
                );
                Err(self
                    .decoder
                    .fail(self.error(ErrorCode::InvalidBoard, message)))
            }
        }
    }

    /// Checks a finished row's length and the running totals against the
    /// first row and the limits.
    fn close_row<E: de::Error>(&mut self, found: usize) -> Result<(), E> {
        let limits = self.decoder.limits;
        let failure = match self.width {
            _ if found == 0 => Some(self.error(
                ErrorCode::InvalidBoard,
                format!("row {} is empty, expected at least one cell", self.height),
            )),
            Some(expected) if found != expected => Some(self.error(
                ErrorCode::InvalidBoard,
                format!(
                    "row {} has {}, expected {expected}",
                    self.height,
                    cells(found)
                ),
            )),
            _ if found > limits.max_side => Some(self.error(
                ErrorCode::TooLarge,
                format!(
                    "the board is {found} cells wide, over the limit of {}",
                    limits.max_side
                ),
            )),
            _ if self.height + 1 > limits.max_side => Some(self.error(
                ErrorCode::TooLarge,
                format!(
                    "the board has more than {} rows, over the limit",
                    limits.max_side
                ),
            )),
            _ => None,
        };
        if let Some(error) = failure {
            return Err(self.decoder.fail(error));
        }
        self.width = Some(found);
        self.check_cells()
    }

    /// A numeric row found longer than `most` cells before its end.
    fn overlong<E: de::Error>(&self, most: usize) -> E {
        let error = match self.width {
            Some(expected) => self.error(
                ErrorCode::InvalidBoard,
                format!(
                    "row {} has more than {expected} cells, expected {expected}",
                    self.height
                ),
            ),
            None => self.error(
                ErrorCode::TooLarge,
                format!("the board is more than {most} cells wide, over the limit"),
            ),
        };
        self.decoder.fail(error)
    }

    fn check_cells<E: de::Error>(&self) -> Result<(), E> {
        let max = self.decoder.limits.max_cells;
        if self.cells.len() > max {
            return Err(self.decoder.fail(self.error(
                ErrorCode::TooLarge,
                if self.decoder.limits.picture {
                    format!(
                        "the board has more than {max} cells, over the limit for a picture (LINKPATH_MAX_RENDER_CELLS)"
                    )
                } else {
                    format!("the board has more than {max} cells, over the limit")
                },
            )));
        }
        Ok(())
    }
}

struct RowSeed<'r, 'd, 'l>(&'r mut Rows<'d, 'l>);

impl<'de> DeserializeSeed<'de> for RowSeed<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RowSeed<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a row: a string, or an array of non-negative integers")
    }

    fn visit_str<E: de::Error>(self, row: &str) -> Result<(), E> {
        let rows = self.0;
        rows.encoding(BoardEncoding::Text)?;
        let before = rows.cells.len();
        // U+0000 would be read as tile type 0, which is the empty cell: only
        // space and `.` are empty.
        if let Some(column) = row.chars().position(|c| c == '\0') {
            return Err(rows.decoder.fail(
                ApiError::new(
                    ErrorCode::InvalidBoard,
                    "U+0000 is not a cell, expected a tile character, or space or . for empty",
                )
                .at(format!("board[{}][{column}]", rows.height)),
            ));
        }
        if row.is_ascii() {
            rows.cells.extend(row.bytes().map(|b| match b {
                b' ' | b'.' => EMPTY,
                tile => u32::from(tile),
            }));
        } else {
            rows.cells
                .extend(row.chars().map(crate::solver::tile_of_char));
        }
        let found = rows.cells.len() - before;
        rows.close_row(found)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let rows = self.0;
        rows.encoding(BoardEncoding::Numbers)?;
        let before = rows.cells.len();
        // A row longer than the first, or than the limit, is refused before
        // it is read to its end.
        let most = rows.width.unwrap_or(rows.decoder.limits.max_side);
        while let Some(cell) = seq.next_element::<Cell>()? {
            let column = rows.cells.len() - before;
            match cell {
                Cell::Tile(tile) if column < most => rows.cells.push(tile),
                Cell::Tile(_) => return Err(rows.overlong(most)),
                Cell::Bad(what) => {
                    return Err(rows.decoder.fail(
                        ApiError::new(
                            ErrorCode::InvalidBoard,
                            format!("{what} is not a cell, expected 0 (empty) or a tile type from 1 to {}", u32::MAX),
                        )
                        .at(format!("board[{}][{column}]", rows.height)),
                    ));
                }
            }
        }
        let found = rows.cells.len() - before;
        rows.close_row(found)
    }
}

/// One number of a numeric row; anything else is kept to be reported with
/// its place.
enum Cell {
    Tile(u32),
    Bad(String),
}

impl<'de> Deserialize<'de> for Cell {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(CellVisitor)
    }
}

struct CellVisitor;

impl<'de> Visitor<'de> for CellVisitor {
    type Value = Cell;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a non-negative integer")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Cell, E> {
        Ok(u32::try_from(v).map_or_else(|_| Cell::Bad(v.to_string()), Cell::Tile))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Cell, E> {
        Ok(u32::try_from(v).map_or_else(|_| Cell::Bad(v.to_string()), Cell::Tile))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Cell, E> {
        // JSON's `-0` is an integer to a person; serde_json reads it as a
        // float.
        if v == 0.0 && v.is_sign_negative() {
            return Ok(Cell::Tile(EMPTY));
        }
        Ok(Cell::Bad(v.to_string()))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cell, E> {
        Ok(Cell::Bad(format!("{:?}", excerpt(v))))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Cell, E> {
        Ok(Cell::Bad(v.to_string()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Cell, E> {
        Ok(Cell::Bad("null".into()))
    }

    // Read to its end, so the parser stands after it when the error is
    // reported.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Cell, A::Error> {
        while seq.next_element::<de::IgnoredAny>()?.is_some() {}
        Ok(Cell::Bad("an array".into()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Cell, A::Error> {
        while map
            .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
            .is_some()
        {}
        Ok(Cell::Bad("an object".into()))
    }
}

/// `rules`: a preset name, or an object whose fields override a preset.
struct RulesSeed<'d, 'l>(&'d Decoder<'l>);

/// The fields of a rules object; `max_segments` tells `null` (no limit,
/// `Some(None)`) from absent (`None`).
#[derive(Default)]
struct RulesObject {
    preset: Option<String>,
    movement: Option<Movement>,
    max_segments: Option<Option<u32>>,
    outside: Option<bool>,
    matching: Option<Match>,
}

impl<'de> DeserializeSeed<'de> for RulesSeed<'_, '_> {
    type Value = (Rules, &'static str);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl RulesSeed<'_, '_> {
    fn unknown<E: de::Error>(&self, field: &str, what: &str, name: &str, expected: &str) -> E {
        self.0.fail(
            ApiError::new(
                ErrorCode::InvalidRules,
                format!("unknown {what} {:?}, expected {expected}", excerpt(name)),
            )
            .at(field),
        )
    }

    fn preset<E: de::Error>(&self, name: &str, field: &str) -> Result<Preset, E> {
        name.parse::<Preset>().map_err(|_| {
            self.0.fail(
                ApiError::new(
                    ErrorCode::InvalidRules,
                    format!(
                        "unknown preset {:?}, expected one of mahjong, shisen-sho, lianliankan, curling",
                        excerpt(name)
                    ),
                )
                .at(field),
            )
        })
    }
}

impl<'de> Visitor<'de> for RulesSeed<'_, '_> {
    type Value = (Rules, &'static str);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a preset name or an object {preset, movement, max_segments, outside, match}")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Self::Value, E> {
        let preset = self.preset(name, "rules")?;
        Ok((preset.rules(), preset.name()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut object = RulesObject::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let field = format!("rules.{key}");
            self.0.enter(field.as_str());
            let duplicate = match key.as_ref() {
                "preset" => object.preset.replace(map.next_value()?).is_some(),
                "movement" => {
                    // Read as a string and matched here: serde_json calls a
                    // non-string enum value a syntax error, which would be 400.
                    let name: String = map.next_value()?;
                    let movement = match name.as_str() {
                        "line" => Movement::Line,
                        "slide" => Movement::Slide,
                        _ => return Err(self.unknown(&field, "movement", &name, "line or slide")),
                    };
                    object.movement.replace(movement).is_some()
                }
                "max_segments" => object.max_segments.replace(map.next_value()?).is_some(),
                "outside" => object.outside.replace(map.next_value()?).is_some(),
                "match" => {
                    let name: String = map.next_value()?;
                    let matching = match name.as_str() {
                        "any" => Match::Any,
                        "same" => Match::Same,
                        _ => return Err(self.unknown(&field, "match", &name, "any or same")),
                    };
                    object.matching.replace(matching).is_some()
                }
                other => {
                    return Err(self.0.fail(
                        ApiError::new(
                            ErrorCode::InvalidRules,
                            format!(
                                "unknown field `{}`, expected preset, movement, max_segments, outside or match",
                                excerpt(other)
                            ),
                        )
                        .at(field),
                    ));
                }
            };
            if duplicate {
                return Err(self.0.fail(
                    ApiError::new(ErrorCode::InvalidRules, format!("`{key}` is given twice"))
                        .at(field),
                ));
            }
        }
        self.0.enter("rules");
        let preset = match &object.preset {
            Some(name) => self.preset(name, "rules.preset")?,
            None => Preset::Mahjong,
        };
        let mut rules = preset.rules();
        let overridden = object.movement.is_some()
            || object.max_segments.is_some()
            || object.outside.is_some()
            || object.matching.is_some();
        if let Some(movement) = object.movement {
            rules.movement = movement;
            if rules.movement == Movement::Slide && object.outside.is_none() {
                rules.outside = false;
            }
        }
        if let Some(max) = object.max_segments {
            if max == Some(0) {
                return Err(self.0.fail(
                    ApiError::new(
                        ErrorCode::InvalidRules,
                        "max_segments is 0, expected at least 1 or null for no limit",
                    )
                    .at("rules.max_segments"),
                ));
            }
            rules.max_segments = max;
        }
        if let Some(outside) = object.outside {
            if outside && rules.movement == Movement::Slide {
                return Err(self.0.fail(
                    ApiError::new(
                        ErrorCode::InvalidRules,
                        "outside is true with slide movement, expected false: a sliding stone that leaves the board is lost",
                    )
                    .at("rules.outside"),
                ));
            }
            rules.outside = outside;
        }
        if let Some(matching) = object.matching {
            rules.matching = matching;
        }
        Ok((rules, if overridden { "custom" } else { preset.name() }))
    }
}

/// `queries`: an array of `{"from": [x, y], "to": [x, y]}`.
struct QueriesSeed<'d, 'l>(&'d Decoder<'l>);

impl<'de> DeserializeSeed<'de> for QueriesSeed<'_, '_> {
    type Value = Vec<[i64; 4]>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for QueriesSeed<'_, '_> {
    type Value = Vec<[i64; 4]>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of {\"from\": [x, y], \"to\": [x, y]}")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let decoder = self.0;
        let max = decoder.limits.max_queries;
        let mut queries = Vec::new();
        loop {
            let index = queries.len();
            decoder.enter(format!("queries[{index}]"));
            let Some(query) = seq.next_element_seed(QuerySeed(decoder, index))? else {
                break;
            };
            if index >= max {
                return Err(decoder.fail(
                    ApiError::new(
                        ErrorCode::TooLarge,
                        format!("more than {max} queries, over the limit"),
                    )
                    .at("queries"),
                ));
            }
            queries.push(query);
        }
        Ok(queries)
    }
}

struct QuerySeed<'d, 'l>(&'d Decoder<'l>, usize);

impl<'de> DeserializeSeed<'de> for QuerySeed<'_, '_> {
    type Value = [i64; 4];

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for QuerySeed<'_, '_> {
    type Value = [i64; 4];

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object {\"from\": [x, y], \"to\": [x, y]}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (decoder, index) = (self.0, self.1);
        let (mut from, mut to) = (None, None);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let slot = match key.as_ref() {
                "from" => &mut from,
                "to" => &mut to,
                other => {
                    return Err(decoder.fail(
                        ApiError::new(
                            ErrorCode::InvalidQuery,
                            format!("unknown field `{}`, expected from and to", excerpt(other)),
                        )
                        .at(format!("queries[{index}].{other}")),
                    ));
                }
            };
            let field = format!("queries[{index}].{key}");
            decoder.enter(field.as_str());
            if slot.is_some() {
                return Err(decoder.fail(
                    ApiError::new(ErrorCode::InvalidQuery, format!("`{key}` is given twice"))
                        .at(field),
                ));
            }
            *slot = Some(map.next_value_seed(PointSeed(decoder, &field))?);
        }
        let missing = |name: &str| {
            decoder.fail(
                ApiError::new(
                    ErrorCode::InvalidQuery,
                    format!("`{name}` is missing, expected a point [x, y]"),
                )
                .at(format!("queries[{index}].{name}")),
            )
        };
        let (fx, fy) = from.ok_or_else(|| missing("from"))?;
        let (tx, ty) = to.ok_or_else(|| missing("to"))?;
        Ok([fx, fy, tx, ty])
    }
}

/// A point `[x, y]`: exactly two integers.
struct PointSeed<'d, 'l, 'f>(&'d Decoder<'l>, &'f str);

impl<'de> DeserializeSeed<'de> for PointSeed<'_, '_, '_> {
    type Value = (i64, i64);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for PointSeed<'_, '_, '_> {
    type Value = (i64, i64);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a point [x, y] of two integers")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let wrong = |found: String| {
            self.0.fail(
                ApiError::new(
                    ErrorCode::InvalidQuery,
                    format!("{found}, expected a point [x, y] of two integers"),
                )
                .at(self.1),
            )
        };
        let x = seq.next_element::<Coordinate>()?.map(|c| c.0);
        let y = seq.next_element::<Coordinate>()?.map(|c| c.0);
        match (x, y) {
            (Some(x), Some(y)) => match seq.next_element::<de::IgnoredAny>()? {
                None => Ok((x, y)),
                Some(_) => Err(wrong("the point has more than two numbers".into())),
            },
            (None, _) => Err(wrong("the point is empty".into())),
            (Some(_), None) => Err(wrong("the point has one number".into())),
        }
    }
}

/// One number of a point: an integer, `-0` included (serde_json reads it as
/// a float).
struct Coordinate(i64);

impl<'de> Deserialize<'de> for Coordinate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Integer;
        impl Visitor<'_> for Integer {
            type Value = Coordinate;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("i64")
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Coordinate, E> {
                Ok(Coordinate(v))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Coordinate, E> {
                i64::try_from(v)
                    .map(Coordinate)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }

            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Coordinate, E> {
                if v == 0.0 && v.is_sign_negative() {
                    Ok(Coordinate(0))
                } else {
                    Err(E::invalid_type(de::Unexpected::Float(v), &self))
                }
            }
        }
        deserializer.deserialize_any(Integer)
    }
}

/// The `/v1/solve` response.
#[derive(Serialize)]
pub struct SolveResponse {
    pub results: Vec<QueryResult>,
}

/// One query's answer on the wire.
#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct QueryResult {
    pub connected: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segments: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<[i32; 2]>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
}

impl QueryResult {
    pub fn new(answer: &Answer, include_path: bool) -> Self {
        match answer {
            Answer::Connected(path) => QueryResult {
                connected: true,
                segments: Some(path.segments),
                path: include_path.then(|| path.corners.iter().map(|p| [p.x, p.y]).collect()),
                reason: None,
            },
            Answer::NotConnected(reason) => QueryResult {
                connected: false,
                segments: None,
                path: None,
                reason: Some(reason.name()),
            },
        }
    }
}
