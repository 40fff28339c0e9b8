//! `POST /v1/render`: the body of `/v1/solve`, answered with an SVG picture
//! of the board and each query's path.

use crate::board::BoardEncoding;
use crate::error::{ApiError, Work};
use crate::limits::Limits;
use crate::solve::SolveRequest;
use linkpath_engine::{Solver, Stop};
use linkpath_formats::svg::{self, Labels};

/// The media type of the picture.
pub const SVG: &str = "image/svg+xml";

/// Draws a decoded request. Paths are drawn whatever `include_path` says:
/// they are the point of the picture. The tiles drawn are the board's own,
/// whatever groups they match by.
pub fn picture(request: &SolveRequest, stop: &Stop) -> Result<String, ApiError> {
    let classes = request
        .groups
        .classes(&request.board, stop)
        .map_err(Work::Render.interrupted())?;
    let answers = Solver::new(&classes, request.rules)
        .answer_all(&request.queries, stop)
        .map_err(Work::Render.interrupted())?;
    let labels = match request.encoding {
        BoardEncoding::Text => Labels::Chars,
        BoardEncoding::Numbers => Labels::Numbers,
    };
    Ok(svg::svg(
        &request.board,
        labels,
        &request.rules,
        &request.queries,
        &answers,
    ))
}

/// Decodes and draws one body, as the server does: for `linkpath render`.
pub fn render_body(body: &[u8], limits: &Limits, stop: &Stop) -> Result<String, ApiError> {
    let request = SolveRequest::decode(body, &limits.for_pictures())?;
    picture(&request, stop)
}
