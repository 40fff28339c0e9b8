//! The types every route shares on the wire: points, queries and moves,
//! gravity, and the rules (`rules.rs`). Derived with serde, so a name on
//! the wire is written once, here; the engine's own types carry no serde.

mod rules;

pub(crate) use rules::name;
pub use rules::{HeldRules, PresetName, WireRules};

use crate::error::{ApiError, ErrorCode};
use crate::limits::Limits;
use linkpath_engine::game::Gravity as EngineGravity;
use linkpath_engine::{Board, Path};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, SchemaType, Type};

/// A cell `[x, y]`: `x` counts columns from the left, `y` rows from the
/// top, both from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "Vec<serde_json::Number>")]
pub struct Point(pub i64, pub i64);

/// Read as a list of any length so that a point of three numbers is a
/// clear 422, not serde_json's "trailing characters"; `-0`, which
/// serde_json reads as a float, is 0.
impl TryFrom<Vec<serde_json::Number>> for Point {
    type Error = String;

    fn try_from(numbers: Vec<serde_json::Number>) -> Result<Point, String> {
        let integer = |n: &serde_json::Number| {
            n.as_i64()
                .or_else(|| (n.as_f64() == Some(0.0)).then_some(0))
                .ok_or_else(|| {
                    format!("{n} is not an integer, expected a point [x, y] of two integers")
                })
        };
        match numbers.as_slice() {
            [x, y] => Ok(Point(integer(x)?, integer(y)?)),
            [] => Err("the point is empty, expected a point [x, y] of two integers".into()),
            [_] => Err("the point has one number, expected a point [x, y] of two integers".into()),
            _ => Err(
                "the point has more than two numbers, expected a point [x, y] of two integers"
                    .into(),
            ),
        }
    }
}

impl Point {
    /// The cell on `board`, or a 422 naming where it lies.
    pub fn on(self, board: &Board) -> Result<linkpath_engine::Point, ApiError> {
        let Point(x, y) = self;
        let (w, h) = (board.width() as i64, board.height() as i64);
        if (0..w).contains(&x) && (0..h).contains(&y) {
            Ok(linkpath_engine::Point::new(x as i32, y as i32))
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
}

impl From<linkpath_engine::Point> for Point {
    fn from(p: linkpath_engine::Point) -> Self {
        Point(i64::from(p.x), i64::from(p.y))
    }
}

impl utoipa::PartialSchema for Point {
    /// A two-item tuple, so generators type it `[number, number]`. utoipa
    /// adds `items: {}`, which some generators read as a third item: the
    /// server's document drops it (`linkpath_server`'s openapi.rs).
    fn schema() -> RefOr<Schema> {
        let integer = || ObjectBuilder::new().schema_type(SchemaType::Type(Type::Integer));
        ArrayBuilder::new()
            .description(Some(
                "A cell [x, y]: x counts columns from the left, y rows from the top, both from 0.",
            ))
            .prefix_items([integer(), integer()])
            .min_items(Some(2))
            .max_items(Some(2))
            .into()
    }
}

impl ToSchema for Point {}

/// Two cells to connect, or a pair to remove.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, remote = "Self")]
pub struct Query {
    pub from: Point,
    pub to: Point,
}

impl<'de> Deserialize<'de> for Query {
    /// The derived reader, given objects only: serde derive would also
    /// read `[from, to]`, which the contract does not allow.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = Query;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object {\"from\": [x, y], \"to\": [x, y]}")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Query, A::Error> {
                Query::deserialize(de::value::MapAccessDeserializer::new(map))
            }
        }
        deserializer.deserialize_map(Object)
    }
}

impl Query {
    /// Both cells on `board`; errors name `{field}.from` or `{field}.to`.
    pub fn on(
        self,
        board: &Board,
        field: &str,
    ) -> Result<(linkpath_engine::Point, linkpath_engine::Point), ApiError> {
        let from = self
            .from
            .on(board)
            .map_err(|e| e.at(format!("{field}.from")))?;
        let to = self.to.on(board).map_err(|e| e.at(format!("{field}.to")))?;
        Ok((from, to))
    }
}

/// A list of queries or moves within the limit on their number.
pub(crate) fn within(list: &[Query], limits: &Limits, field: &str) -> Result<(), ApiError> {
    if list.len() > limits.max_queries {
        return Err(ApiError::new(
            ErrorCode::TooLarge,
            format!("more than {} {field}, over the limit", limits.max_queries),
        )
        .at(field));
    }
    Ok(())
}

/// A move on the wire: the pair, and how it connects when that was asked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Move {
    pub from: Point,
    pub to: Point,
    /// Straight segments of the path.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub segments: Option<u32>,
    /// The path's corner points, from `from` to `to`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub path: Option<Vec<Point>>,
}

impl Move {
    pub fn with_path(
        from: linkpath_engine::Point,
        to: linkpath_engine::Point,
        path: &Path,
        include_path: bool,
    ) -> Self {
        Move {
            from: from.into(),
            to: to.into(),
            segments: Some(path.segments),
            path: include_path.then(|| path.corners.iter().copied().map(Point::from).collect()),
        }
    }

    pub fn bare((from, to): (linkpath_engine::Point, linkpath_engine::Point)) -> Self {
        Move {
            from: from.into(),
            to: to.into(),
            segments: None,
            path: None,
        }
    }
}

/// A tile that moved: gravity after a removal, or a shuffle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Moved {
    /// The cell it left.
    pub from: Point,
    /// The cell it moved to.
    pub to: Point,
}

impl Moved {
    /// The list of engine moves, in the engine's order.
    pub fn list(moves: &[(linkpath_engine::Point, linkpath_engine::Point)]) -> Vec<Moved> {
        moves
            .iter()
            .map(|&(from, to)| Moved {
                from: from.into(),
                to: to.into(),
            })
            .collect()
    }
}

/// A move played: the pair, how it connected, and the tiles that fell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct Step {
    pub from: Point,
    pub to: Point,
    /// Straight segments of the path.
    pub segments: u32,
    /// The path's corner points, from `from` to `to`; present unless
    /// `include_path` is false.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub path: Option<Vec<Point>>,
    /// The tiles that moved under gravity once the pair was removed, in
    /// reading order of `from` (row by row, then column); empty when none
    /// did. Removing the pair, then moving every listed tile at once,
    /// gives the board of the next step.
    pub moved: Vec<Moved>,
}

/// Where tiles fall after a pair is removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Gravity {
    /// Tiles stay where they are.
    #[default]
    None,
    /// Each column that lost a tile (every column, with `settle`) is
    /// compacted toward the bottom row.
    Down,
    /// Toward the top row.
    Up,
    /// Each row that lost a tile (every row, with `settle`) is compacted
    /// toward the left column.
    Left,
    /// Toward the right column.
    Right,
}

impl From<Gravity> for EngineGravity {
    fn from(gravity: Gravity) -> EngineGravity {
        match gravity {
            Gravity::None => EngineGravity::None,
            Gravity::Down => EngineGravity::Down,
            Gravity::Up => EngineGravity::Up,
            Gravity::Left => EngineGravity::Left,
            Gravity::Right => EngineGravity::Right,
        }
    }
}
