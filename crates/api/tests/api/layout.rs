//! `/v1/deal` onto a layout: the tiles lie exactly on the marked cells,
//! each type with its copies, the moves replay through `/v1/play` to an
//! empty board, and a layout that cannot be filled is refused naming its
//! count and what would fit.

use linkpath_api::Limits;
use linkpath_api::mechanics;
use linkpath_engine::Stop;
use serde_json::{Value, json};
use std::collections::BTreeMap;

const HOLES: [&str; 4] = ["######", "#.##.#", "#.##.#", "######"];
const RING: [&str; 4] = ["#####", "#...#", "#...#", "#####"];
const CORRIDOR: [&str; 5] = ["######", ".....#", "######", "#.....", "######"];
const CHECKERBOARD: [&str; 4] = ["#.#.#.", ".#.#.#", "#.#.#.", ".#.#.#"];
const ISLANDS: [&str; 3] = ["##...##", "##...##", "##...##"];

fn deal(body: &Value) -> Result<Value, (String, Option<String>)> {
    let body = serde_json::to_vec(body).expect("json");
    mechanics::deal(&body, &Limits::default(), &Stop::never())
        .map(|answer| serde_json::to_value(answer).expect("json"))
        .map_err(|e| (e.message, e.field))
}

/// The cells of text rows that are not empty.
fn marks(rows: &[String]) -> Vec<bool> {
    rows.iter()
        .flat_map(|row| row.chars().map(|c| c != '.' && c != ' '))
        .collect()
}

#[test]
fn deals_fill_the_marked_cells_and_replay_through_play() {
    let layouts: [(&str, &[&str]); 5] = [
        ("holes", &HOLES),
        ("ring", &RING),
        ("corridor", &CORRIDOR),
        ("checkerboard", &CHECKERBOARD),
        ("islands", &ISLANDS),
    ];
    for (name, layout) in layouts {
        let layout: Vec<String> = layout.iter().map(|r| r.to_string()).collect();
        let cells = marks(&layout).iter().filter(|&&m| m).count();
        for difficulty in ["easy", "medium", "hard"] {
            for (gravity, settle) in [("none", false), ("down", false), ("right", false)] {
                for rules in ["shisen-sho", "lianliankan", "mahjong"] {
                    let case = format!("{name} {difficulty} {gravity} {rules}");
                    let body = json!({
                        "layout": layout, "types": cells / 2, "rules": rules,
                        "gravity": gravity, "settle": settle, "difficulty": difficulty,
                        "seed": 5, "alphabet": "🀀🀁🀂🀃🀄🀅🀆🀇🀈🀉🀊🀋🀌🀍🀎",
                    });
                    let answer = deal(&body).unwrap_or_else(|e| panic!("{case}: {e:?}"));
                    assert_eq!(deal(&body).unwrap(), answer, "{case}: the same deal");
                    let board: Vec<String> =
                        serde_json::from_value(answer["board"].clone()).unwrap();
                    assert_eq!(marks(&board), marks(&layout), "{case}: {board:?}");
                    let mut counts = BTreeMap::new();
                    for c in board.concat().chars().filter(|&c| c != '.') {
                        *counts.entry(c).or_insert(0) += 1;
                    }
                    let want: BTreeMap<char, usize> = "🀀🀁🀂🀃🀄🀅🀆🀇🀈🀉🀊🀋🀌🀍🀎"
                        .chars()
                        .take(cells / 2)
                        .map(|c| (c, 2))
                        .collect();
                    assert_eq!(counts, want, "{case}");
                    let play = json!({
                        "board": board, "rules": rules, "gravity": gravity, "settle": settle,
                        "moves": answer["moves"], "include_path": false,
                    });
                    let played = mechanics::play(
                        &serde_json::to_vec(&play).unwrap(),
                        &Limits::default(),
                        &Stop::never(),
                    )
                    .unwrap_or_else(|e| panic!("{case}: {e:?}"));
                    assert!(played.cleared, "{case}: {:?}", played.stopped_at);
                }
            }
        }
    }
}

/// Copies derived from the cells, number rows, and matching groups: the
/// four winds of one copy each, in one group.
#[test]
fn copies_are_derived_and_groups_and_numbers_deal_onto_a_layout() {
    let answer = deal(&json!({"layout": HOLES, "types": 5, "encoding": "numbers"})).unwrap();
    let board: Vec<Vec<u32>> = serde_json::from_value(answer["board"].clone()).unwrap();
    let mut counts = BTreeMap::new();
    for &c in board.concat().iter().filter(|&&c| c != 0) {
        *counts.entry(c).or_insert(0) += 1;
    }
    assert_eq!(counts, (1..=5).map(|k| (k, 4)).collect());
    let answer = deal(&json!({
        "layout": ["#.#", "#.#"], "types": 4, "copies": 1,
        "rules": {"preset": "shisen-sho", "match": {"groups": ["ABCD"]}},
    }))
    .unwrap();
    assert_eq!(answer["board"].as_array().unwrap().len(), 2);
    let rows: Vec<String> = serde_json::from_value(answer["board"].clone()).unwrap();
    let mut letters: Vec<char> = rows.concat().chars().filter(|&c| c != '.').collect();
    letters.sort_unstable();
    assert_eq!(letters, ['A', 'B', 'C', 'D']);
}

#[test]
fn a_layout_that_cannot_be_filled_is_refused_naming_what_would_fit() {
    let refused = |body: Value| deal(&body).expect_err("refused");
    let at = |field: &str, message: &str| (message.to_owned(), Some(field.to_owned()));
    let odd: Vec<String> = (0..5).map(|_| "#######".to_string()).collect();
    assert_eq!(
        refused(json!({"layout": odd, "types": 4})),
        at(
            "layout",
            "the layout has 35 marked cells; tiles are removed in pairs, so a deal needs an even count (34 or 36)"
        )
    );
    assert_eq!(
        refused(json!({"layout": ["#.."], "types": 1})),
        at(
            "layout",
            "the layout has 1 marked cell; tiles are removed in pairs, so a deal needs an even count (2)"
        )
    );
    assert_eq!(
        refused(json!({"layout": ["...", " . "], "types": 1})),
        at(
            "layout",
            "the layout has no marked cell, expected an even count of at least 2 (a tile character marks a cell, space or . leaves it empty)"
        )
    );
    assert_eq!(
        refused(json!({"layout": RING, "types": 8})),
        at(
            "types",
            "the layout has 14 marked cells, room for 7 pairs; 8 types need at least 16 cells, expected at most 7 types"
        )
    );
    assert_eq!(
        refused(json!({"layout": HOLES, "types": 3})),
        at(
            "types",
            "the layout has 20 marked cells, which 3 types cannot share in even copies, expected a `types` that divides its 10 pairs (2 or 5), or `copies`"
        )
    );
    assert_eq!(
        refused(json!({"layout": HOLES, "types": 4, "copies": 4})),
        at(
            "copies",
            "4 types x 4 copies are 16 tiles and the layout has 20 marked cells, expected one tile a cell: 5 types of 4 copies, or no `copies` to share the cells among the types"
        )
    );
    assert_eq!(
        refused(json!({"layout": HOLES, "width": 6, "types": 5})),
        at(
            "width",
            "`width` and `layout` were both sent, expected `layout` alone (its rows give the size) or `width` and `height`"
        )
    );
    assert_eq!(
        refused(json!({"height": 6, "types": 5})),
        at(
            "width",
            "`width` is missing, expected `width` and `height`, or a `layout`"
        )
    );
    assert_eq!(
        refused(json!({"layout": RING, "types": 7, "gravity": "down", "settle": true})),
        at(
            "layout",
            "the layout's cell (1, 0) floats: with `settle` every tile falls down at the first removal, expected a layout whose marked cells each rest on a marked cell or the edge on that side, or `settle`: false"
        )
    );
    assert_eq!(
        refused(json!({"layout": ["#..", "..#"], "types": 1, "rules": {"max_segments": 1}})),
        at(
            "layout",
            "no removal sequence clears the layout's marked cells under these rules, expected a layout whose tiles can all be joined"
        )
    );
    assert_eq!(
        refused(json!({"layout": ["##", "#"], "types": 1})),
        at("layout[1]", "row 1 has 1 cell, expected 2")
    );
    assert_eq!(
        refused(json!({"layout": [[1, 0], [0, 1]], "types": 1})),
        at(
            "layout",
            "the layout's rows are arrays of numbers, expected text rows: a tile character marks a cell, space or . leaves it empty"
        )
    );
}

/// The layout is read within the limit on cells, as a board is.
#[test]
fn a_layout_over_the_limits_is_refused() {
    let limits = Limits {
        max_cells: 12,
        ..Limits::default()
    };
    let body = json!({"layout": ["####", "####", "####", "####"], "types": 4});
    let e = mechanics::deal(&serde_json::to_vec(&body).unwrap(), &limits, &Stop::never())
        .expect_err("refused");
    assert_eq!(
        (e.message.as_str(), e.field.as_deref()),
        (
            "the layout has more than 12 cells, over the limit",
            Some("layout[3]")
        )
    );
    assert_eq!(e.code.status(), 413);
}
