//! The board on the wire: an array of text rows or of number rows, read
//! straight into one flat cell array. This is the one hand-written
//! `Deserialize` of the API, because it is the hot path: a million-cell
//! board is never built as a tree of JSON values, and a ragged row, a bad
//! cell, or a board over the limits is refused the moment the parser
//! reaches it, naming the row or cell (`board[3]`, `board[3][7]`).

use crate::decode::{fail, limits};
use crate::error::{ApiError, ErrorCode, excerpt};
use crate::limits::Limits;
use linkpath_engine::{Board, EMPTY};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{
    ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type,
};

/// How the board came in, so answers that return a board use the same form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum BoardEncoding {
    /// Rows of text, a character a cell.
    #[default]
    Text,
    /// Rows of numbers, a number a cell.
    Numbers,
}

/// A board read from a request, with the form it came in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireBoard {
    pub board: Board,
    pub encoding: BoardEncoding,
}

impl<'de> Deserialize<'de> for WireBoard {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let limits = limits();
        let (board, encoding) = deserializer.deserialize_seq(BoardSeed {
            limits: &limits,
            field: "board",
        })?;
        Ok(WireBoard { board, encoding })
    }
}

impl utoipa::PartialSchema for WireBoard {
    fn schema() -> RefOr<Schema> {
        board_schema()
    }
}

impl utoipa::ToSchema for WireBoard {
    fn name() -> std::borrow::Cow<'static, str> {
        "Board".into()
    }
}

/// The shape a deal fills, as text rows in the board's own form: a cell
/// marked with any tile character takes a tile, space or `.` stays empty.
/// The marks are kept as a board of one type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireLayout {
    pub board: Board,
}

impl WireLayout {
    /// The marked cells, row-major, in reading order.
    pub fn marked(&self) -> Vec<usize> {
        let cells = self.board.cells();
        (0..cells.len()).filter(|&i| cells[i] != EMPTY).collect()
    }

    /// The rows as text, marked cells `#`.
    pub fn rows(&self) -> Vec<String> {
        self.board
            .cells()
            .chunks_exact(self.board.width())
            .map(|row| {
                row.iter()
                    .map(|&c| if c == EMPTY { '.' } else { '#' })
                    .collect()
            })
            .collect()
    }
}

impl<'de> Deserialize<'de> for WireLayout {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let limits = limits();
        let (board, encoding) = deserializer.deserialize_seq(BoardSeed {
            limits: &limits,
            field: "layout",
        })?;
        if encoding != BoardEncoding::Text {
            return Err(fail(
                ApiError::new(
                    ErrorCode::InvalidBoard,
                    "the layout's rows are arrays of numbers, expected text rows: a tile character marks a cell, space or . leaves it empty",
                )
                .at("layout"),
            ));
        }
        Ok(WireLayout { board })
    }
}

impl utoipa::PartialSchema for WireLayout {
    fn schema() -> RefOr<Schema> {
        ArrayBuilder::new()
            .description(Some(
                "The shape a deal fills, row by row from the top, every row as long as the first: a tile character marks a cell that takes a tile, space or `.` leaves it empty (a board's text rows).",
            ))
            .items(
                ObjectBuilder::new()
                    .schema_type(SchemaType::Type(Type::String))
                    .min_length(Some(1)),
            )
            .min_items(Some(1))
            .into()
    }
}

impl utoipa::ToSchema for WireLayout {
    fn name() -> std::borrow::Cow<'static, str> {
        "Layout".into()
    }
}

/// A board in an answer, in the form the request's board came in: text
/// rows (empty cells as `.`) or number rows (empty cells as 0).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum BoardRows {
    Text(Vec<String>),
    Numbers(Vec<Vec<u32>>),
}

impl BoardRows {
    pub fn new(board: &Board, encoding: BoardEncoding) -> Self {
        let rows = board.cells().chunks_exact(board.width());
        match encoding {
            BoardEncoding::Text => BoardRows::Text(
                rows.map(|row| {
                    row.iter()
                        .map(|&c| match c {
                            EMPTY => '.',
                            tile => char::from_u32(tile).unwrap_or('?'),
                        })
                        .collect()
                })
                .collect(),
            ),
            BoardEncoding::Numbers => BoardRows::Numbers(rows.map(<[u32]>::to_vec).collect()),
        }
    }
}

/// A tile type as the client writes it: its character on a text board,
/// its number on a numeric one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Tile {
    /// The character of a text board's cells.
    Text(String),
    /// The number of a numeric board's cells.
    Number(u32),
}

impl Tile {
    /// Tile type `kind` of a board that came in as `encoding`.
    pub fn new(kind: u32, encoding: BoardEncoding) -> Self {
        match encoding {
            BoardEncoding::Text => Tile::Text(char::from_u32(kind).unwrap_or('?').to_string()),
            BoardEncoding::Numbers => Tile::Number(kind),
        }
    }
}

/// As a message names it: `"B"` (quoted, as JSON writes it) or `66`.
impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Tile::Text(c) => write!(f, "{c:?}"),
            Tile::Number(n) => write!(f, "{n}"),
        }
    }
}

impl utoipa::PartialSchema for BoardRows {
    fn schema() -> RefOr<Schema> {
        board_schema()
    }
}

impl utoipa::ToSchema for BoardRows {
    fn name() -> std::borrow::Cow<'static, str> {
        "Board".into()
    }
}

/// `Board`: one of two typed arrays, each branch with its `type`, so that
/// client generators make a union of `string[]` and `number[][]`.
fn board_schema() -> RefOr<Schema> {
    let text = ArrayBuilder::new()
        .title(Some("TextRows"))
        .description(Some(
            "Rows of text: one character a cell; space or `.` is empty, a control character (a tab, say) is refused, any other character is a tile of that type.",
        ))
        .items(
            ObjectBuilder::new()
                .schema_type(SchemaType::Type(Type::String))
                .min_length(Some(1)),
        )
        .min_items(Some(1));
    let numbers = ArrayBuilder::new()
        .title(Some("NumberRows"))
        .description(Some(
            "Rows of numbers: one number a cell; 0 is empty, any other is a tile of that type.",
        ))
        .items(
            ArrayBuilder::new().min_items(Some(1)).items(
                ObjectBuilder::new()
                    .schema_type(SchemaType::Type(Type::Integer))
                    .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                        utoipa::openapi::KnownFormat::Int64,
                    )))
                    .minimum(Some(0))
                    .maximum(Some(u32::MAX)),
            ),
        )
        .min_items(Some(1));
    OneOfBuilder::new()
        .description(Some(
            "The board, row by row from the top; every row as long as the first. Text rows or number rows, not both.",
        ))
        .item(text)
        .item(numbers)
        .into()
}

/// Reads `board` (or another field of rows, such as `layout`, named in
/// errors): an array of text rows or of number rows, into flat cells.
struct BoardSeed<'l> {
    limits: &'l Limits,
    field: &'static str,
}

impl<'de> DeserializeSeed<'de> for BoardSeed<'_> {
    type Value = (Board, BoardEncoding);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for BoardSeed<'_> {
    type Value = (Board, BoardEncoding);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of rows: strings, or arrays of non-negative integers")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let field = self.field;
        let mut rows = Rows {
            limits: self.limits,
            field,
            cells: Vec::new(),
            width: None,
            height: 0,
            encoding: None,
        };
        loop {
            if seq.next_element_seed(RowSeed(&mut rows))?.is_none() {
                break;
            }
            rows.height += 1;
        }
        let width = rows.width.unwrap_or(0);
        if rows.height == 0 || width == 0 {
            return Err(fail(
                ApiError::new(
                    ErrorCode::InvalidBoard,
                    format!("the {field} is empty, expected at least one row and one column"),
                )
                .at(field),
            ));
        }
        let board = Board::new(width, rows.height, rows.cells)
            .map_err(|e| fail(ApiError::new(ErrorCode::InvalidBoard, e.to_string()).at(field)))?;
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
struct Rows<'l> {
    limits: &'l Limits,
    field: &'static str,
    cells: Vec<u32>,
    width: Option<usize>,
    height: usize,
    encoding: Option<BoardEncoding>,
}

impl Rows<'_> {
    fn error(&self, code: ErrorCode, message: String) -> ApiError {
        ApiError::new(code, message).at(format!("{}[{}]", self.field, self.height))
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
                Err(fail(self.error(ErrorCode::InvalidBoard, message)))
            }
        }
    }

    /// Checks a finished row's length and the running totals against the
    /// first row and the limits.
    fn close_row<E: de::Error>(&mut self, found: usize) -> Result<(), E> {
        let limits = self.limits;
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
                    "the {} is {found} cells wide, over the limit of {}",
                    self.field, limits.max_side
                ),
            )),
            _ if self.height + 1 > limits.max_side => Some(self.error(
                ErrorCode::TooLarge,
                format!(
                    "the {} has more than {} rows, over the limit",
                    self.field, limits.max_side
                ),
            )),
            _ => None,
        };
        if let Some(error) = failure {
            return Err(fail(error));
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
                format!(
                    "the {} is more than {most} cells wide, over the limit",
                    self.field
                ),
            ),
        };
        fail(error)
    }

    fn check_cells<E: de::Error>(&self) -> Result<(), E> {
        let max = self.limits.max_cells;
        if self.cells.len() > max {
            return Err(fail(self.error(
                ErrorCode::TooLarge,
                if self.limits.picture {
                    format!(
                        "the {} has more than {max} cells, over the limit for a picture (LINKPATH_MAX_RENDER_CELLS)",
                        self.field
                    )
                } else {
                    format!(
                        "the {} has more than {max} cells, over the limit",
                        self.field
                    )
                },
            )));
        }
        Ok(())
    }
}

struct RowSeed<'r, 'l>(&'r mut Rows<'l>);

impl<'de> DeserializeSeed<'de> for RowSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RowSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a row: a string, or an array of non-negative integers")
    }

    fn visit_str<E: de::Error>(self, row: &str) -> Result<(), E> {
        let rows = self.0;
        rows.encoding(BoardEncoding::Text)?;
        let before = rows.cells.len();
        // A control character is no tile anyone can see: a tab in a row
        // would be a tile type of its own, and U+0000 tile type 0, which is
        // the empty cell.
        let control = if row.is_ascii() {
            row.bytes().position(|b| b.is_ascii_control())
        } else {
            row.chars().position(char::is_control)
        };
        if let Some(column) = control {
            let c = row.chars().nth(column).expect("the column is in the row");
            return Err(fail(
                ApiError::new(
                    ErrorCode::InvalidBoard,
                    format!(
                        "row {} has U+{:04X}, a control character, at column {column}, expected a tile character, or space or . for empty",
                        rows.height,
                        u32::from(c)
                    ),
                )
                .at(format!("{}[{}][{column}]", rows.field, rows.height)),
            ));
        }
        if row.is_ascii() {
            rows.cells.extend(row.bytes().map(|b| match b {
                b' ' | b'.' => EMPTY,
                tile => u32::from(tile),
            }));
        } else {
            rows.cells
                .extend(row.chars().map(linkpath_engine::tile_of_char));
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
        let most = rows.width.unwrap_or(rows.limits.max_side);
        while let Some(cell) = seq.next_element::<Cell>()? {
            let column = rows.cells.len() - before;
            match cell {
                Cell::Tile(tile) if column < most => rows.cells.push(tile),
                Cell::Tile(_) => return Err(rows.overlong(most)),
                Cell::Bad(what) => {
                    return Err(fail(
                        ApiError::new(
                            ErrorCode::InvalidBoard,
                            format!("{what} is not a cell, expected 0 (empty) or a tile type from 1 to {}", u32::MAX),
                        )
                        .at(format!("{}[{}][{column}]", rows.field, rows.height)),
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
