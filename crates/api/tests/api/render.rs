//! `/v1/render`'s work (`render::render_body`): the picture of a body is
//! the one the formats draw from the engine's answers, with the paths
//! `/v1/solve` answers, and its errors are those of `/v1/solve`.

use crate::support::body;
use linkpath_api::{Limits, render_body, solve_body};
use linkpath_engine::{Answer, Board, Point, Preset, Query, Rules, Stop, solve};
use linkpath_formats::svg::{self, Labels};
use serde_json::{Value, json};

fn sample() -> Value {
    json!({
        "board": ["XXXXX", "X   X", "XXX X", " XXX "],
        "rules": "mahjong",
        "queries": [{"from": [1, 2], "to": [4, 2]}, {"from": [0, 2], "to": [3, 3]}]
    })
}

fn render(body: &Value) -> String {
    let body = body.to_string();
    render_body(body.as_bytes(), &Limits::default(), &Stop::never()).expect("a picture")
}

/// What the formats draw for `queries` on `board`, answered by the engine.
fn drawn(board: &Board, labels: Labels, rules: Rules, queries: &[Query]) -> String {
    let answers = solve(board, &rules, queries, &Stop::never()).unwrap();
    svg::svg(board, labels, &rules, queries, &answers)
}

fn query(from: (i32, i32), to: (i32, i32)) -> Query {
    Query::new(Point::new(from.0, from.1), Point::new(to.0, to.1))
}

#[test]
fn the_picture_draws_the_paths_solve_answers() {
    let board = Board::from_rows(&["XXXXX", "X   X", "XXX X", " XXX "]).unwrap();
    let rules = Preset::Mahjong.rules();
    let queries = [query((1, 2), (4, 2)), query((0, 2), (3, 3))];
    assert_eq!(
        render(&sample()),
        drawn(&board, Labels::Chars, rules, &queries)
    );
    // Paths are drawn whatever `include_path` says.
    let mut without = sample();
    without["include_path"] = json!(false);
    assert_eq!(render(&without), render(&sample()));

    let sample = sample().to_string();
    let solved = solve_body(sample.as_bytes(), &Limits::default(), &Stop::never()).unwrap();
    let solved: Value = serde_json::from_slice(&solved).unwrap();
    let answers = solve(&board, &rules, &queries, &Stop::never()).unwrap();
    for (i, answer) in answers.iter().enumerate() {
        let Answer::Connected(path) = answer else {
            panic!("query {i} connects")
        };
        let corners: Vec<[i32; 2]> = path.corners.iter().map(|p| [p.x, p.y]).collect();
        assert_eq!(solved["results"][i]["path"], json!(corners));
        assert_eq!(solved["results"][i]["segments"], json!(path.segments));
    }
}

#[test]
fn with_groups_the_picture_draws_the_real_tiles_and_the_grouped_answers() {
    let picture = render(&json!({
        "board": ["1.5", "6.2"],
        "rules": {"preset": "shisen-sho", "match": {"groups": ["1234", "5678"]}},
        "queries": [{"from": [0, 0], "to": [2, 1]}, {"from": [0, 0], "to": [0, 1]}]
    }));
    // The answers on the class board: each tile its group's first type.
    let board = Board::from_rows(&["1.5", "6.2"]).unwrap();
    let classes = Board::from_rows(&["1.5", "5.1"]).unwrap();
    let rules = Preset::ShisenSho.rules();
    let queries = [query((0, 0), (2, 1)), query((0, 0), (0, 1))];
    let answers = solve(&classes, &rules, &queries, &Stop::never()).unwrap();
    assert_eq!(answers[0].segments(), Some(3));
    assert_eq!(
        picture,
        svg::svg(&board, Labels::Chars, &rules, &queries, &answers)
    );
}

#[test]
fn number_boards_are_labelled_with_their_numbers() {
    let picture = render(&json!({
        "board": [[0, 0, 1], [0, 1, 4294967295_u32]],
        "rules": "curling",
        "queries": [{"from": [0, 0], "to": [0, 1]}]
    }));
    let board = Board::new(3, 2, vec![0, 0, 1, 0, 1, u32::MAX]).unwrap();
    let queries = [query((0, 0), (0, 1))];
    let rules = Preset::Curling.rules();
    assert_eq!(picture, drawn(&board, Labels::Numbers, rules, &queries));
}

#[test]
fn errors_are_those_of_solve() {
    for request in [
        json!({"board": ["XX", "X"], "queries": []}),
        json!({"board": ["XX"], "queries": [{"from": [0, 0], "to": [2, 0]}]}),
        json!({"board": ["XX"], "rules": "go", "queries": []}),
    ] {
        let text = request.to_string();
        let limits = Limits::default();
        let rendered = render_body(text.as_bytes(), &limits, &Stop::never()).unwrap_err();
        let solved = solve_body(text.as_bytes(), &limits, &Stop::never()).unwrap_err();
        assert_eq!(rendered.status(), 422, "{request}");
        assert_eq!(body(&rendered), body(&solved), "{request}");
    }
}

#[test]
fn queries_count_in_the_picture_limit_with_their_segments() {
    let refusal = |request: &Value| {
        let text = request.to_string();
        let e = render_body(text.as_bytes(), &Limits::default(), &Stop::never()).unwrap_err();
        (e.status(), body(&e))
    };
    // 128 x 127 cells and 2,000 queries: refused before the search.
    let queries: Vec<Value> = (0..2000)
        .map(|i| json!({"from": [i % 128, 0], "to": [i % 128, 1]}))
        .collect();
    assert_eq!(
        refusal(&json!({"board": vec!["X".repeat(128); 127], "queries": queries})),
        (
            413,
            r#"{"error":{"code":"too_large","message":"the picture would draw 16256 cells and 2000 queries of a segment or more, at least 20256 in all, over the limit of 16384 (LINKPATH_MAX_RENDER_CELLS)","field":"queries"}}"#.to_owned()
        )
    );
    // 2 x 8190 cells and two queries fit if each path is one segment; one
    // goes round the ring in three.
    let board = vec!["AB"; 8190];
    let round = json!({"from": [0, 0], "to": [0, 8189]});
    let beside = json!({"from": [1, 0], "to": [1, 1]});
    assert_eq!(
        refusal(&json!({"board": board, "rules": "shisen-sho", "queries": [round, beside]})),
        (
            413,
            r#"{"error":{"code":"too_large","message":"the picture would draw 16380 cells, 2 queries, 4 path segments and 0 end marks, 16386 in all, over the limit of 16384 (LINKPATH_MAX_RENDER_CELLS)","field":"queries"}}"#.to_owned()
        )
    );
    let below = json!({"from": [0, 0], "to": [0, 1]});
    let picture =
        render(&json!({"board": board, "rules": "shisen-sho", "queries": [below, beside]}));
    assert_eq!(picture.matches(r#"<g class="query connected""#).count(), 2);
    // A query that does not connect counts its two end marks.
    let apart = json!({"from": [0, 0], "to": [1, 0]});
    assert_eq!(
        refusal(&json!({"board": board, "rules": "shisen-sho", "queries": [apart, beside]})),
        (
            413,
            r#"{"error":{"code":"too_large","message":"the picture would draw 16380 cells, 2 queries, 1 path segment and 2 end marks, 16385 in all, over the limit of 16384 (LINKPATH_MAX_RENDER_CELLS)","field":"queries"}}"#.to_owned()
        )
    );
}
