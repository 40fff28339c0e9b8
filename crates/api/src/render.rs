//! `POST /v1/render`: the body of `/v1/solve`, answered with an SVG picture
//! of the board and each query's path.

use crate::board::BoardEncoding;
use crate::error::{ApiError, ErrorCode, Work, count};
use crate::limits::Limits;
use crate::solve::SolveRequest;
use linkpath_engine::{Answer, Solver, Stop};
use linkpath_formats::svg::{self, Labels};

/// The media type of the picture.
pub const SVG: &str = "image/svg+xml";

/// Draws a decoded request, if it draws no more than `max_drawn` cells,
/// queries and path segments ([`svg::drawn`]). Paths are drawn whatever
/// `include_path` says: they are the point of the picture. The tiles drawn
/// are the board's own, whatever groups they match by.
pub(crate) fn picture(
    request: &SolveRequest,
    max_drawn: usize,
    stop: &Stop,
) -> Result<String, ApiError> {
    // Refused before the search when the queries alone are too many.
    let (cells, queries) = (request.board.cells().len(), request.queries.len());
    let least = cells + queries * svg::LEAST_A_QUERY;
    if least > max_drawn {
        return Err(too_much(
            format!(
                "{} and {} of a segment or more, at least {least}",
                count(cells, "cell", "cells"),
                count(queries, "query", "queries")
            ),
            max_drawn,
        ));
    }
    let classes = request
        .groups
        .classes(&request.board, stop)
        .map_err(Work::Render.interrupted())?;
    let answers = Solver::new(&classes, request.rules)
        .answer_all(&request.queries, stop)
        .map_err(Work::Render.interrupted())?;
    let drawn = svg::drawn(&request.board, &answers);
    if drawn > max_drawn {
        let segments: usize = answers
            .iter()
            .filter_map(Answer::segments)
            .map(|s| s as usize)
            .sum();
        let marks = drawn - cells - queries - segments;
        return Err(too_much(
            format!(
                "{}, {}, {} and {}, {drawn}",
                count(cells, "cell", "cells"),
                count(queries, "query", "queries"),
                count(segments, "path segment", "path segments"),
                count(marks, "end mark", "end marks")
            ),
            max_drawn,
        ));
    }
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

/// The 413 of a picture that would draw `what`, ending with how many in
/// all.
fn too_much(what: String, max_drawn: usize) -> ApiError {
    ApiError::new(
        ErrorCode::TooLarge,
        format!(
            "the picture would draw {what} in all, over the limit of {max_drawn} (LINKPATH_MAX_RENDER_CELLS)"
        ),
    )
    .at("queries")
}

/// Decodes and draws one body, as the server does: for `linkpath render`.
pub fn render_body(body: &[u8], limits: &Limits, stop: &Stop) -> Result<String, ApiError> {
    let request = SolveRequest::decode(body, &limits.for_pictures())?;
    picture(&request, limits.max_render_cells, stop)
}
