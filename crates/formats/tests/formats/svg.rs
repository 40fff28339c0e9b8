//! SVG pictures (`svg::svg`): the picture parses as XML, its polylines are
//! exactly the paths the engine answers, text is escaped, and large boards
//! are scaled.

use linkpath_engine::{Board, Point, Preset, Query, Rules, Stop, solve};
use linkpath_formats::svg::{self, CELL, Labels};

/// The picture of `queries` on `board`, each answered by the engine.
fn draw(board: &Board, labels: Labels, rules: Rules, queries: &[([i32; 2], [i32; 2])]) -> String {
    let queries: Vec<Query> = queries
        .iter()
        .map(|&([fx, fy], [tx, ty])| Query::new(Point::new(fx, fy), Point::new(tx, ty)))
        .collect();
    let answers = solve(board, &rules, &queries, &Stop::never()).expect("on the board");
    svg::svg(board, labels, &rules, &queries, &answers)
}

fn rows(rows: &[&str]) -> Board {
    Board::from_rows(rows).expect("a valid board")
}

fn sample() -> Board {
    rows(&["XXXXX", "X   X", "XXX X", " XXX "])
}

const SAMPLE_QUERIES: [([i32; 2], [i32; 2]); 2] = [([1, 2], [4, 2]), ([0, 2], [3, 3])];

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

#[test]
fn the_rules_md_sample_is_drawn_with_the_exact_paths() {
    let rules = Preset::Mahjong.rules();
    let svg = draw(&sample(), Labels::Chars, rules, &SAMPLE_QUERIES);
    assert_eq!(
        drawn(&svg),
        [
            Ok((vec![[1, 2], [1, 1], [3, 1], [3, 2], [4, 2]], "4".to_owned())),
            Ok((vec![[0, 2], [0, 4], [3, 4], [3, 3]], "3".to_owned())),
        ]
    );
    // The same paths the engine answers.
    let queries: Vec<Query> = SAMPLE_QUERIES
        .iter()
        .map(|&([fx, fy], [tx, ty])| Query::new(Point::new(fx, fy), Point::new(tx, ty)))
        .collect();
    let answers = solve(&sample(), &rules, &queries, &Stop::never()).unwrap();
    for (i, answer) in answers.iter().enumerate() {
        let (Ok((path, segments)), linkpath_engine::Answer::Connected(solved)) =
            (&drawn(&svg)[i], answer)
        else {
            panic!("query {i} connects")
        };
        let corners: Vec<[i32; 2]> = solved.corners.iter().map(|p| [p.x, p.y]).collect();
        assert_eq!(path, &corners);
        assert_eq!(segments, &solved.segments.to_string());
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

#[test]
fn queries_that_do_not_connect_are_marked_with_their_reason() {
    let svg = draw(
        &rows(&["X X", "XYX"]),
        Labels::Chars,
        Preset::Lianliankan.rules(),
        &[
            ([0, 0], [0, 0]),
            ([0, 0], [1, 0]),
            ([0, 0], [1, 1]),
            ([0, 0], [2, 0]),
        ],
    );
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

#[test]
fn tile_text_is_escaped() {
    let svg = draw(
        &rows(&["<&\"'\u{1}>", "]]>é.."]),
        Labels::Chars,
        Preset::Mahjong.rules(),
        &[([0, 0], [5, 0])],
    );
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

#[test]
fn number_boards_show_their_numbers() {
    let board = Board::new(3, 2, vec![0, 0, 1, 0, 1, u32::MAX]).unwrap();
    let svg = draw(
        &board,
        Labels::Numbers,
        Preset::Curling.rules(),
        &[([0, 0], [0, 1])],
    );
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let labels: Vec<_> = with_class(&doc, "tile")
        .filter_map(|tile| tile.descendants().find(|n| n.has_tag_name("text"))?.text())
        .collect();
    assert_eq!(labels, ["1", "1", "4294967295"]);
    assert_eq!(drawn(&svg), [Ok((vec![[0, 0], [0, 1]], "1".to_owned()))]);
}

#[test]
fn small_boards_are_full_size_and_large_ones_scaled() {
    let mahjong = Preset::Mahjong.rules();
    let small = draw(
        &rows(&["AB", "BA"]),
        Labels::Chars,
        mahjong,
        &[([0, 0], [1, 1])],
    );
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

    let mut large = vec!["X".repeat(100); 100];
    large[50] = format!("X{}X", ".".repeat(98));
    let large = Board::from_rows(&large).unwrap();
    let large = draw(
        &large,
        Labels::Chars,
        mahjong,
        &[([0, 50], [99, 50]), ([0, 0], [99, 99])],
    );
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

/// Whether `svg` is within the bound [`svg::drawn`] documents for what it
/// draws.
fn within_bound(svg: &str, drawn: usize) -> bool {
    svg.len() <= svg::MAX_BYTES_BESIDES + svg::MAX_BYTES_EACH * drawn
}

#[test]
fn a_picture_at_the_default_limit_is_within_its_documented_bytes() {
    // Cells: the most digits for coordinates (3 x 5461) and for labels
    // (ten-digit numbers). The last tile's element is the largest there is.
    let (w, h) = (3, 5461);
    let cells: Vec<u32> = (0..w * h).map(|i| u32::MAX - i as u32).collect();
    let board = Board::new(w, h, cells).unwrap();
    let rules = Preset::ShisenSho.rules();
    let picture = svg::svg(&board, Labels::Numbers, &rules, &[], &[]);
    assert_eq!(svg::drawn(&board, &[]), 16_383);
    assert!(within_bound(&picture, 16_383), "{} bytes", picture.len());
    let largest = picture
        .lines()
        .filter(|line| line.starts_with(r#"<g class="tile">"#))
        .map(|line| line.len() + 1)
        .max();
    assert_eq!(largest, Some(svg::MAX_BYTES_EACH));

    // Queries: as many as fit beside 15,000 such cells, with the longest
    // coordinates and query numbers, a full legend, and the ring. Fifty
    // pairs do not connect (two tiles of other types), the rest are
    // neighbours of one type.
    let (w, h) = (3, 5000);
    let cells: Vec<u32> = (0..w * h)
        .map(|i| match i % w {
            2 => u32::MAX - i as u32,
            _ => u32::MAX - (i - i % w) as u32,
        })
        .collect();
    let board = Board::new(w, h, cells).unwrap();
    let far = |y: usize, x: i32| Point::new(x, (h - 1 - y) as i32);
    let mut queries: Vec<Query> = (0..50).map(|y| Query::new(far(y, 2), far(y, 1))).collect();
    queries.extend((0..617).map(|y| Query::new(far(y, 0), far(y, 1))));
    let answers = solve(&board, &rules, &queries, &Stop::never()).unwrap();
    assert_eq!(
        answers.iter().filter(|a| a.segments() == Some(1)).count(),
        617
    );
    let picture = svg::svg(&board, Labels::Numbers, &rules, &queries, &answers);
    assert_eq!(svg::drawn(&board, &answers), 16_384);
    assert!(within_bound(&picture, 16_384), "{} bytes", picture.len());
    assert_eq!(picture.matches(r#"<text class="legend""#).count(), 51);
}

#[test]
fn a_path_counts_its_segments() {
    // Two pairs round the ring, three segments each; one pair of the same
    // cell, which does not connect; nine cells.
    let board = rows(&["AXA", "XXX", "BXB"]);
    let queries = [([0, 0], [2, 0]), ([0, 2], [2, 2]), ([1, 1], [1, 1])];
    let rules = Preset::ShisenSho.rules();
    let queries: Vec<Query> = queries
        .iter()
        .map(|&([fx, fy], [tx, ty])| Query::new(Point::new(fx, fy), Point::new(tx, ty)))
        .collect();
    let answers = solve(&board, &rules, &queries, &Stop::never()).unwrap();
    let segments: Vec<_> = answers.iter().map(|a| a.segments()).collect();
    assert_eq!(segments, [Some(3), Some(3), None]);
    assert_eq!(svg::drawn(&board, &answers), 9 + (1 + 3) + (1 + 3) + 3);
}
