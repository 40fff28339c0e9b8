//! `POST /v1/render` and `linkpath render`: the picture parses as XML, its
//! polylines are exactly the paths `/v1/solve` answers, text is escaped, and
//! large boards are scaled.

use axum::body::{Body, Bytes};
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use linkpath::http::{AppState, Config, app};
use linkpath::render::CELL;
use serde_json::{Value, json};
use tower::ServiceExt;

struct Answer {
    status: StatusCode,
    content_type: String,
    body: Bytes,
}

async fn post(path: &str, body: &Value) -> Answer {
    let request = Request::post(path)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .expect("a valid request");
    let response = app(AppState::new(Config::default()))
        .oneshot(request)
        .await
        .expect("infallible");
    let (parts, body) = response.into_parts();
    Answer {
        status: parts.status,
        content_type: parts
            .headers
            .get(header::CONTENT_TYPE)
            .map(|v| v.to_str().expect("ASCII").to_owned())
            .unwrap_or_default(),
        body: body.collect().await.expect("the body").to_bytes(),
    }
}

async fn render(body: &Value) -> String {
    let answer = post("/v1/render", body).await;
    assert_eq!(
        answer.status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&answer.body)
    );
    assert_eq!(answer.content_type, "image/svg+xml");
    String::from_utf8(answer.body.to_vec()).expect("UTF-8")
}

fn sample() -> Value {
    json!({
        "board": ["XXXXX", "X   X", "XXX X", " XXX "],
        "rules": "mahjong",
        "queries": [{"from": [1, 2], "to": [4, 2]}, {"from": [0, 2], "to": [3, 3]}]
    })
}

/// A pixel coordinate back to the cell coordinate it is the centre of.
fn cell(pixel: f64) -> i32 {
    let cell = pixel / CELL - 1.5;
    assert_eq!(cell, cell.round(), "{pixel} is not a cell centre");
    cell as i32
}

/// The points of a `points` attribute, as cells.
fn points(attribute: &str) -> Vec<[i32; 2]> {
    attribute
        .split_whitespace()
        .map(|pair| {
            let (x, y) = pair.split_once(',').expect("x,y");
            [
                cell(x.parse().expect("a number")),
                cell(y.parse().expect("a number")),
            ]
        })
        .collect()
}

fn has_class(node: &roxmltree::Node, class: &str) -> bool {
    node.attribute("class")
        .is_some_and(|c| c.split(' ').any(|c| c == class))
}

fn with_class<'a, 'i>(
    doc: &'a roxmltree::Document<'i>,
    class: &'a str,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> + 'a {
    doc.descendants().filter(move |n| has_class(n, class))
}

/// One query as drawn: its polyline's points and the segment count written,
/// or the reason it does not connect.
type Drawn = Result<(Vec<[i32; 2]>, String), String>;

fn drawn(svg: &str) -> Vec<Drawn> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    with_class(&doc, "query")
        .map(|group| {
            if let Some(reason) = group.attribute("data-reason") {
                let shown = group
                    .descendants()
                    .find(|n| has_class(n, "reason"))
                    .and_then(|n| n.text())
                    .expect("the reason is written");
                assert_eq!(shown, reason);
                return Err(reason.to_owned());
            }
            let line = group
                .children()
                .find(|n| n.has_tag_name("polyline"))
                .expect("a polyline");
            let segments = group
                .descendants()
                .find(|n| has_class(n, "segments"))
                .and_then(|n| n.text())
                .expect("the segment count is written");
            Ok((
                points(line.attribute("points").expect("points")),
                segments.to_owned(),
            ))
        })
        .collect()
}

#[tokio::test]
async fn the_rules_md_sample_is_drawn_with_the_exact_paths() {
    let svg = render(&sample()).await;
    assert_eq!(
        drawn(&svg),
        [
            Ok((vec![[1, 2], [1, 1], [3, 1], [3, 2], [4, 2]], "4".to_owned())),
            Ok((vec![[0, 2], [0, 4], [3, 4], [3, 3]], "3".to_owned())),
        ]
    );
    // The same paths /v1/solve answers.
    let solved: Value = serde_json::from_slice(&post("/v1/solve", &sample()).await.body).unwrap();
    for (i, result) in solved["results"].as_array().unwrap().iter().enumerate() {
        let Ok((path, segments)) = &drawn(&svg)[i] else {
            panic!("query {i} connects")
        };
        assert_eq!(json!(path), result["path"]);
        assert_eq!(segments, &result["segments"].to_string());
    }
    let doc = roxmltree::Document::parse(&svg).unwrap();
    assert_eq!(with_class(&doc, "tile").count(), 14);
    assert_eq!(with_class(&doc, "empty").count(), 6);
    assert_eq!(
        with_class(&doc, "ring").count(),
        1,
        "mahjong paths may leave the board"
    );
    let legend: Vec<_> = with_class(&doc, "legend")
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(
        legend,
        [
            "query 0: [1, 2] to [4, 2], 4 segments",
            "query 1: [0, 2] to [3, 3], 3 segments"
        ]
    );
}

#[tokio::test]
async fn queries_that_do_not_connect_are_marked_with_their_reason() {
    let svg = render(&json!({
        "board": ["X X", "XYX"],
        "rules": "lianliankan",
        "queries": [
            {"from": [0, 0], "to": [0, 0]},
            {"from": [0, 0], "to": [1, 0]},
            {"from": [0, 0], "to": [1, 1]},
            {"from": [0, 0], "to": [2, 0]}
        ],
        "include_path": false
    }))
    .await;
    assert_eq!(
        drawn(&svg),
        [
            Err("same_cell".to_owned()),
            Err("not_a_tile".to_owned()),
            Err("type_mismatch".to_owned()),
            Ok((vec![[0, 0], [2, 0]], "1".to_owned())),
        ]
    );
    let doc = roxmltree::Document::parse(&svg).unwrap();
    assert_eq!(
        with_class(&doc, "ring").count(),
        0,
        "lianliankan stays inside"
    );
}

#[tokio::test]
async fn tile_text_is_escaped() {
    let svg = render(&json!({
        "board": ["<&\"'\u{1}>", "]]>é.."],
        "queries": [{"from": [0, 0], "to": [5, 0]}]
    }))
    .await;
    let doc = roxmltree::Document::parse(&svg).expect("well-formed despite the tile text");
    let labels: Vec<_> = with_class(&doc, "tile")
        .map(|tile| {
            tile.children()
                .find(|n| n.has_tag_name("text"))
                .and_then(|n| n.text())
                .expect("a label")
        })
        .collect();
    assert_eq!(
        labels,
        ["<", "&", "\"", "'", "U+0001", ">", "]", "]", ">", "é"]
    );
}

#[tokio::test]
async fn number_boards_show_their_numbers() {
    let svg = render(&json!({
        "board": [[0, 0, 1], [0, 1, 4294967295_u32]],
        "rules": "curling",
        "queries": [{"from": [0, 0], "to": [0, 1]}]
    }))
    .await;
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let labels: Vec<_> = with_class(&doc, "tile")
        .filter_map(|tile| tile.descendants().find(|n| n.has_tag_name("text"))?.text())
        .collect();
    assert_eq!(labels, ["1", "1", "4294967295"]);
    assert_eq!(drawn(&svg), [Ok((vec![[0, 0], [0, 1]], "1".to_owned()))]);
}

#[tokio::test]
async fn small_boards_are_full_size_and_large_ones_scaled() {
    let small =
        render(&json!({"board": ["AB", "BA"], "queries": [{"from": [0, 0], "to": [1, 1]}]})).await;
    let doc = roxmltree::Document::parse(&small).unwrap();
    let root = doc.root_element();
    // 2 cells and a margin each side, widened for the legend's line, and
    // that line of half a cell: drawn at full size.
    assert_eq!(root.attribute("viewBox"), Some("0 0 341.92 180"));
    assert_eq!(root.attribute("width"), Some("342"));
    assert_eq!(root.attribute("height"), Some("180"));
    assert_eq!(
        drawn(&small),
        [Ok((
            vec![[0, 0], [-1, 0], [-1, 2], [1, 2], [1, 1]],
            "4".to_owned()
        ))]
    );

    let mut rows = vec!["X".repeat(100); 100];
    rows[50] = format!("X{}X", ".".repeat(98));
    let large = render(&json!({
        "board": rows,
        "queries": [{"from": [0, 50], "to": [99, 50]}, {"from": [0, 0], "to": [99, 99]}]
    }))
    .await;
    let doc = roxmltree::Document::parse(&large).unwrap();
    let root = doc.root_element();
    assert_eq!(root.attribute("viewBox"), Some("0 0 4080 4120"));
    assert_eq!(root.attribute("width"), Some("951"));
    assert_eq!(root.attribute("height"), Some("960"));
    assert_eq!(
        drawn(&large),
        [
            Ok((vec![[0, 50], [99, 50]], "1".to_owned())),
            Ok((
                vec![[0, 0], [-1, 0], [-1, 100], [99, 100], [99, 99]],
                "4".to_owned()
            )),
        ]
    );
    // Strokes are in cell units, so they shrink with the cells, never
    // below an eighth of one.
    for line in doc.descendants().filter(|n| n.has_tag_name("polyline")) {
        let width: f64 = line.attribute("stroke-width").unwrap().parse().unwrap();
        assert!(width >= CELL / 10.0, "{width}");
    }
}

#[tokio::test]
async fn errors_are_those_of_solve() {
    for body in [
        json!({"board": ["XX", "X"], "queries": []}),
        json!({"board": ["XX"], "queries": [{"from": [0, 0], "to": [2, 0]}]}),
        json!({"board": ["XX"], "rules": "go", "queries": []}),
    ] {
        let rendered = post("/v1/render", &body).await;
        let solved = post("/v1/solve", &body).await;
        assert_eq!(rendered.status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(rendered.content_type, "application/json");
        assert_eq!(rendered.body, solved.body, "{body}");
    }
}

#[tokio::test]
async fn the_command_line_draws_what_the_route_draws() {
    let file = std::env::temp_dir().join(format!("linkpath-render-{}.json", std::process::id()));
    std::fs::write(&file, sample().to_string()).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_linkpath"))
        .arg("render")
        .arg(&file)
        .output()
        .expect("linkpath runs");
    std::fs::remove_file(&file).ok();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        render(&sample()).await
    );

    let output = std::process::Command::new(env!("CARGO_BIN_EXE_linkpath"))
        .args(["render", "/nonexistent/board.json"])
        .output()
        .expect("linkpath runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
}

#[tokio::test]
async fn the_readme_picture_is_current() {
    let root = env!("CARGO_MANIFEST_DIR");
    let request = std::fs::read_to_string(format!("{root}/docs/render.json")).unwrap();
    let picture = std::fs::read_to_string(format!("{root}/docs/render.svg")).unwrap();
    let request: Value = serde_json::from_str(&request).unwrap();
    assert_eq!(
        render(&request).await,
        picture,
        "regenerate: cargo run --release -- render docs/render.json > docs/render.svg"
    );
}
