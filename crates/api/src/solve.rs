//! `POST /v1/solve`: a batch of queries on one board, and the answers.

use crate::board::{BoardEncoding, WireBoard};
use crate::decode::decode;
use crate::encode::encode;
use crate::error::{ApiError, ErrorCode, Work};
use crate::limits::Limits;
use crate::wire::{Point, Query, WireRules, within};
use linkpath_engine::{Answer, Board, Groups, Movement, Rules, Solver, Stop};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa::openapi::schema::{
    AdditionalProperties, ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type,
};
use utoipa::openapi::{Ref, RefOr};

/// The most throws a slide search may look ahead. It holds a stack frame
/// per throw on a 2 MiB worker stack (about 3,000 frames overflow it and
/// abort the process), and every throw but the last breaks a block, so a
/// long rink without a throw limit could need one per block.
pub(crate) const MAX_THROWS: u32 = 1000;

/// The body of `/v1/solve` and `/v1/render`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = SolveRequest)]
pub struct SolveBody {
    #[schema(value_type = WireBoard)]
    pub board: WireBoard,
    /// The rules; mahjong when absent.
    #[serde(default)]
    pub rules: Option<WireRules>,
    /// The pairs to connect, at most the server's limit (10,000 by
    /// default).
    pub queries: Vec<Query>,
    /// Whether answers list each path's corner points; true when absent.
    #[serde(default)]
    pub include_path: Option<bool>,
}

/// A checked `/v1/solve` request, ready for the engine.
#[derive(Debug)]
pub struct SolveRequest {
    pub board: Board,
    pub encoding: BoardEncoding,
    pub rules: Rules,
    /// The matching groups: queries are answered on the class board.
    pub groups: Groups,
    /// The preset name, or `custom`: a metrics label with few values.
    pub rules_label: &'static str,
    pub queries: Vec<linkpath_engine::Query>,
    pub include_path: bool,
}

impl SolveRequest {
    /// Decodes and checks a `/v1/solve` body.
    pub fn decode(body: &[u8], limits: &Limits) -> Result<SolveRequest, ApiError> {
        let SolveBody {
            board: WireBoard { board, encoding },
            rules,
            queries,
            include_path,
        } = decode(body, limits)?;
        let rules = rules.unwrap_or_default();
        let rules_label = rules.label;
        let groups = rules.groups(encoding)?;
        let rules = rules.within(limits)?;
        check_throws(&board, &rules)?;
        within(&queries, limits, "queries")?;
        let queries = queries
            .iter()
            .enumerate()
            .map(|(i, q)| {
                let (from, to) = q.on(&board, &format!("queries[{i}]"))?;
                Ok(linkpath_engine::Query::new(from, to))
            })
            .collect::<Result<_, ApiError>>()?;
        Ok(SolveRequest {
            board,
            encoding,
            rules,
            groups,
            rules_label,
            queries,
            include_path: include_path.unwrap_or(true),
        })
    }

    /// Whether the answers need no unbounded search: a caller may then
    /// answer on the spot rather than on a worker pool.
    pub fn is_quick(&self) -> bool {
        self.rules.needs_no_search()
    }

    /// The answers, with the engine's own types.
    pub fn answers(&self, stop: &Stop) -> Result<Vec<Answer>, ApiError> {
        let classes = self
            .groups
            .classes(&self.board, stop)
            .map_err(Work::Solve.interrupted())?;
        let mut solver = Solver::new(&classes, self.rules);
        if !self.include_path {
            solver = solver.without_paths();
        }
        solver
            .answer_all(&self.queries, stop)
            .map_err(Work::Solve.interrupted())
    }
}

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

/// The `/v1/solve` answer: one result per query, in order.
#[derive(Debug, Serialize, ToSchema)]
pub struct SolveResponse {
    pub results: Vec<QueryResult>,
}

impl SolveResponse {
    pub fn new(answers: &[Answer], include_path: bool) -> Self {
        SolveResponse {
            results: answers
                .iter()
                .map(|a| QueryResult::new(a, include_path))
                .collect(),
        }
    }
}

/// Why two cells do not connect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// No path within the rules.
    NoPath,
    /// The rules want tiles of the same type (or group) and these differ.
    TypeMismatch,
    /// A `line` endpoint is an empty cell.
    NotATile,
    /// A `slide` endpoint is a block.
    Blocked,
    /// Both ends are the same cell.
    SameCell,
}

impl From<linkpath_engine::Reason> for Reason {
    fn from(reason: linkpath_engine::Reason) -> Reason {
        use linkpath_engine::Reason as R;
        match reason {
            R::NoPath => Reason::NoPath,
            R::TypeMismatch => Reason::TypeMismatch,
            R::NotATile => Reason::NotATile,
            R::Blocked => Reason::Blocked,
            R::SameCell => Reason::SameCell,
        }
    }
}

/// One query's answer: connected with the fewest segments (and the path's
/// corners when asked), or not connected with the reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct QueryResult {
    pub connected: bool,
    /// Fewest straight segments; present when connected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segments: Option<u32>,
    /// The corner points from `from` to `to`; present when connected and
    /// `include_path` is true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<Point>>,
    /// Why not; present when not connected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
}

impl utoipa::PartialSchema for QueryResult {
    /// A union told apart by `connected`, so generated clients narrow on it.
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .item(Ref::from_schema_name("Connected"))
            .item(Ref::from_schema_name("NotConnected"))
            .into()
    }
}

impl ToSchema for QueryResult {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        let connected = |value: bool| {
            ObjectBuilder::new()
                .schema_type(SchemaType::Type(Type::Boolean))
                .enum_values(Some([value]))
        };
        let points = ArrayBuilder::new()
            .items(Ref::from_schema_name("Point"))
            .min_items(Some(2))
            .description(Some(
                "The corner points from `from` to `to` (start, every turn, end); absent when `include_path` is false.",
            ));
        schemas.push((
            "Connected".into(),
            ObjectBuilder::new()
                .description(Some("The two cells connect."))
                .property("connected", connected(true))
                .property(
                    "segments",
                    ObjectBuilder::new()
                        .schema_type(SchemaType::Type(Type::Integer))
                        .minimum(Some(1))
                        .description(Some("The fewest straight segments (throws, for slide).")),
                )
                .property("path", points)
                .required("connected")
                .required("segments")
                .additional_properties(Some(AdditionalProperties::FreeForm(false)))
                .into(),
        ));
        schemas.push((
            "NotConnected".into(),
            ObjectBuilder::new()
                .description(Some(
                    "The two cells do not connect: that is an answer, not an error.",
                ))
                .property("connected", connected(false))
                .property("reason", Ref::from_schema_name("Reason"))
                .required("connected")
                .required("reason")
                .additional_properties(Some(AdditionalProperties::FreeForm(false)))
                .into(),
        ));
        schemas.push(("Reason".into(), <Reason as utoipa::PartialSchema>::schema()));
    }
}

impl QueryResult {
    pub fn new(answer: &Answer, include_path: bool) -> Self {
        match answer {
            Answer::Connected(path) => QueryResult {
                connected: true,
                segments: Some(path.segments),
                path: include_path.then(|| path.corners.iter().copied().map(Point::from).collect()),
                reason: None,
            },
            Answer::NotConnected(reason) => QueryResult {
                connected: false,
                segments: None,
                path: None,
                reason: Some((*reason).into()),
            },
        }
    }
}

/// Decodes and answers one body, as the server does: for `linkpath solve`.
pub fn solve_body(body: &[u8], limits: &Limits, stop: &Stop) -> Result<Vec<u8>, ApiError> {
    let request = SolveRequest::decode(body, limits)?;
    let answers = request.answers(stop)?;
    encode(&SolveResponse::new(&answers, request.include_path))
}
