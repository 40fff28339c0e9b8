//! `POST /v1/solve` through the router, no socket: the samples of the
//! puzzles' rules page (docs/rules.md) in JSON form under every preset, both
//! board encodings, `include_path`, custom rules objects, every `reason`.
//!
//! Coordinates on the wire are 0-based `[x, y]`, x the column. The judges'
//! 1-based pairs are converted here, in the test, so a mistake in the
//! conversion shows as a wrong expectation next to its source line.

use crate::support::{config, mahjong_sample, mahjong_sample_results, router, solve};
use serde_json::{Value, json};

/// Posts `request` to a fresh router with the default settings and returns
/// the `results` array of its 200 answer.
async fn results(request: Value) -> Value {
    let app = router(config());
    solve(&app, &request).await.results()
}

/// The result of a query that is not connected.
fn refused(reason: &str) -> Value {
    json!({"connected": false, "reason": reason})
}

/// `board` with numbers turned into text: 0 → '.', n → the digit n.
fn as_text(board: &[Vec<u32>]) -> Vec<String> {
    board
        .iter()
        .map(|row| {
            row.iter()
                .map(|&c| match c {
                    0 => '.',
                    n => char::from_digit(n, 10).expect("a one-digit tile"),
                })
                .collect()
        })
        .collect()
}

/// An HDU 1175 query `x1 y1 x2 y2` (1-based, x = row) as a wire query.
fn hdu_query(x1: i32, y1: i32, x2: i32, y2: i32) -> Value {
    json!({"from": [y1 - 1, x1 - 1], "to": [y2 - 1, x2 - 1]})
}

// ---------------------------------------------------------------- Mahjong

#[tokio::test]
async fn mahjong_sample_answers_4_3_and_no_path() {
    assert_eq!(results(mahjong_sample()).await, mahjong_sample_results());
}

#[tokio::test]
async fn mahjong_sample_in_numbers_answers_the_same_bytes() {
    let app = router(config());
    let text = solve(&app, &mahjong_sample()).await;
    let mut numbers = mahjong_sample();
    numbers["board"] = json!([
        [1, 1, 1, 1, 1],
        [1, 0, 0, 0, 1],
        [1, 1, 1, 0, 1],
        [0, 1, 1, 1, 0]
    ]);
    let numbers = solve(&app, &numbers).await;
    assert_eq!(text.results(), mahjong_sample_results());
    assert_eq!(numbers.body, text.body);
}

#[tokio::test]
async fn rules_default_to_mahjong_and_dots_are_empty() {
    let mut request = mahjong_sample();
    request.as_object_mut().unwrap().remove("rules");
    request["board"] = json!(["XXXXX", "X...X", "XXX.X", ".XXX."]);
    assert_eq!(results(request).await, mahjong_sample_results());
}

#[tokio::test]
async fn tile_faces_do_not_matter_to_mahjong() {
    let mut request = mahjong_sample();
    request["board"] = json!(["ABCDE", "F   G", "HIJ K", " LMN "]);
    assert_eq!(results(request).await, mahjong_sample_results());
}

#[tokio::test]
async fn answers_come_back_as_json_in_query_order() {
    let app = router(config());
    let mut request = mahjong_sample();
    request["queries"] = json!([
        {"from": [1, 2], "to": [2, 3]},
        {"from": [0, 2], "to": [3, 3]},
        {"from": [1, 2], "to": [4, 2]},
        {"from": [0, 2], "to": [3, 3]}
    ]);
    let reply = solve(&app, &request).await;
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let expected = mahjong_sample_results();
    assert_eq!(
        reply.results(),
        json!([expected[2], expected[1], expected[0], expected[1]])
    );
}

#[tokio::test]
async fn no_queries_answer_an_empty_list() {
    let app = router(config());
    let mut request = mahjong_sample();
    request["queries"] = json!([]);
    let reply = solve(&app, &request).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, br#"{"results":[]}"#);
}

#[tokio::test]
async fn include_path_false_omits_the_path_only() {
    let mut request = mahjong_sample();
    request["include_path"] = json!(false);
    assert_eq!(
        results(request).await,
        json!([
            {"connected": true, "segments": 4},
            {"connected": true, "segments": 3},
            refused("no_path")
        ])
    );
    let mut request = mahjong_sample();
    request["include_path"] = json!(true);
    assert_eq!(results(request).await, mahjong_sample_results());
}

// ----------------------------------------------- Lianliankan (HDU 1175)

/// The two cases of the HDU 1175 sample: `3 4 / 1 2 3 4 / 0 0 0 0 /
/// 4 3 2 1` and `3 4 / 0 1 4 3 / 0 2 4 1 / 0 0 0 0`.
fn hdu_boards() -> [Vec<Vec<u32>>; 2] {
    [
        vec![vec![1, 2, 3, 4], vec![0, 0, 0, 0], vec![4, 3, 2, 1]],
        vec![vec![0, 1, 4, 3], vec![0, 2, 4, 1], vec![0, 0, 0, 0]],
    ]
}

/// The sample's queries, per case.
fn hdu_queries() -> [Value; 2] {
    [
        json!([
            hdu_query(1, 1, 3, 4),
            hdu_query(1, 1, 2, 4),
            hdu_query(1, 1, 3, 3),
            hdu_query(2, 1, 2, 4)
        ]),
        json!([hdu_query(1, 1, 2, 4), hdu_query(1, 3, 2, 3)]),
    ]
}

/// The exact answers to the HDU 1175 sample. Worked by hand: query 1 joins
/// the two 1s through the empty middle row (3 segments, the only shape with
/// two turns); 2 and 4 touch an empty cell; 3 asks a 1 and a 2; 5 starts on
/// an empty cell; 6 joins two 4s that touch. With the ring open (Shisen-Sho)
/// nothing changes: every ring path between the two 1s needs 4 segments.
fn hdu_expected() -> [Value; 2] {
    [
        json!([
            {"connected": true, "segments": 3, "path": [[0, 0], [0, 1], [3, 1], [3, 2]]},
            refused("not_a_tile"),
            refused("type_mismatch"),
            refused("not_a_tile")
        ]),
        json!([
            refused("not_a_tile"),
            {"connected": true, "segments": 1, "path": [[2, 0], [2, 1]]}
        ]),
    ]
}

fn yes_no(results: &Value) -> Vec<&'static str> {
    results
        .as_array()
        .expect("an array")
        .iter()
        .map(|r| if r["connected"] == true { "YES" } else { "NO" })
        .collect()
}

async fn hdu_sample(rules: &str, text: bool) -> Vec<Value> {
    let mut all = Vec::new();
    for (board, queries) in hdu_boards().into_iter().zip(hdu_queries()) {
        let board = if text {
            json!(as_text(&board))
        } else {
            json!(board)
        };
        all.push(results(json!({"board": board, "rules": rules, "queries": queries})).await);
    }
    all
}

#[tokio::test]
async fn hdu1175_sample_as_lianliankan_answers_yes_no_no_no_no_yes() {
    let answers = hdu_sample("lianliankan", false).await;
    assert_eq!(answers, hdu_expected());
    let words: Vec<_> = answers.iter().flat_map(yes_no).collect();
    assert_eq!(words.join(" "), "YES NO NO NO NO YES");
}

#[tokio::test]
async fn hdu1175_sample_as_shisen_sho_answers_the_same() {
    let answers = hdu_sample("shisen-sho", false).await;
    assert_eq!(answers, hdu_expected());
}

#[tokio::test]
async fn hdu1175_sample_as_text_rows_answers_the_same() {
    assert_eq!(hdu_sample("lianliankan", true).await, hdu_expected());
    assert_eq!(hdu_sample("shisen-sho", true).await, hdu_expected());
}

/// `1 2 1 / 3 3 3`: the two 1s and the outer 3s are joined only over the
/// ring, which Shisen-Sho allows and Lianliankan does not.
fn ring_request(rules: Value) -> Value {
    json!({
        "board": [[1, 2, 1], [3, 3, 3]],
        "rules": rules,
        "queries": [
            {"from": [0, 0], "to": [2, 0]},
            {"from": [0, 1], "to": [2, 1]},
            {"from": [0, 1], "to": [1, 1]},
            {"from": [0, 0], "to": [1, 0]}
        ]
    })
}

#[tokio::test]
async fn shisen_sho_uses_the_ring_and_lianliankan_does_not() {
    let adjacent = json!({"connected": true, "segments": 1, "path": [[0, 1], [1, 1]]});
    assert_eq!(
        results(ring_request(json!("lianliankan"))).await,
        json!([
            refused("no_path"),
            refused("no_path"),
            adjacent,
            refused("type_mismatch")
        ])
    );
    let over_the_ring = json!([
        {"connected": true, "segments": 3, "path": [[0, 0], [0, -1], [2, -1], [2, 0]]},
        {"connected": true, "segments": 3, "path": [[0, 1], [0, 2], [2, 2], [2, 1]]},
        adjacent,
        refused("type_mismatch")
    ]);
    assert_eq!(
        results(ring_request(json!("shisen-sho"))).await,
        over_the_ring
    );
    // Lianliankan with the ring opened is Shisen-Sho.
    assert_eq!(
        results(ring_request(
            json!({"preset": "lianliankan", "outside": true})
        ))
        .await,
        over_the_ring
    );
}

#[tokio::test]
async fn two_turns_at_most_for_shisen_sho_any_for_mahjong() {
    // The mahjong sample's 4-segment pair, with both ends the same type.
    let request = |rules: &str| {
        json!({
            "board": ["AAAAA", "A   A", "AAA A", " AAA "],
            "rules": rules,
            "queries": [{"from": [1, 2], "to": [4, 2]}, {"from": [0, 2], "to": [3, 3]}]
        })
    };
    let three = json!({"connected": true, "segments": 3, "path": [[0, 2], [0, 4], [3, 4], [3, 3]]});
    assert_eq!(
        results(request("shisen-sho")).await,
        json!([refused("no_path"), three])
    );
    assert_eq!(
        results(request("lianliankan")).await,
        json!([refused("no_path"), refused("no_path")])
    );
    assert_eq!(
        results(request("mahjong")).await,
        json!([mahjong_sample_results()[0], three])
    );
}

// --------------------------------------------------- Curling (POJ 3009)

/// A POJ 3009 dataset: codes 0 vacant, 1 block, 2 start, 3 goal, as a
/// request: the board with start and goal vacant, one query start → goal.
fn curling_request(rows: &[&[u32]], rules: Value) -> Value {
    let mut start = None;
    let mut goal = None;
    let board: Vec<Vec<u32>> = rows
        .iter()
        .enumerate()
        .map(|(y, row)| {
            row.iter()
                .enumerate()
                .map(|(x, &code)| match code {
                    2 => {
                        start = Some([x, y]);
                        0
                    }
                    3 => {
                        goal = Some([x, y]);
                        0
                    }
                    other => other,
                })
                .collect()
        })
        .collect();
    json!({
        "board": board,
        "rules": rules,
        "queries": [{"from": start.expect("a start"), "to": goal.expect("a goal")}]
    })
}

/// The six datasets of the POJ 3009 sample.
fn curling_datasets() -> [Vec<&'static [u32]>; 6] {
    [
        vec![&[3, 2]],
        vec![
            &[1, 0, 0, 2, 1, 0],
            &[1, 1, 0, 0, 0, 0],
            &[0, 0, 0, 0, 0, 3],
            &[0, 0, 0, 0, 0, 0],
            &[1, 0, 0, 0, 0, 1],
            &[0, 1, 1, 1, 1, 1],
        ],
        vec![&[1, 1, 2, 1, 1, 3]],
        vec![&[1, 0, 2, 1, 1, 3]],
        vec![&[2, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3]],
        vec![&[2, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3]],
    ]
}

/// Plays `stops` on `board` with POJ 3009 physics, written independently of
/// the engine, and panics unless each throw ends exactly at the next stop
/// and the last reaches `goal`.
fn check_throws(board: &Value, stops: &[[i64; 2]], goal: [i64; 2]) {
    let mut blocks: Vec<Vec<bool>> = board
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            row.as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_u64() != Some(0))
                .collect()
        })
        .collect();
    let (h, w) = (blocks.len() as i64, blocks[0].len() as i64);
    for (i, pair) in stops.windows(2).enumerate() {
        let ([x0, y0], [x1, y1]) = (pair[0], pair[1]);
        assert!(
            (x0 == x1) != (y0 == y1),
            "throw {i}: {:?} -> {:?} is not one straight throw",
            pair[0],
            pair[1]
        );
        let (dx, dy) = ((x1 - x0).signum(), (y1 - y0).signum());
        let (mut x, mut y) = (x0, y0);
        let mut moved = false;
        loop {
            let (nx, ny) = (x + dx, y + dy);
            assert!(
                (0..w).contains(&nx) && (0..h).contains(&ny),
                "throw {i} from {:?} leaves the board",
                pair[0]
            );
            if blocks[ny as usize][nx as usize] {
                assert!(moved, "throw {i} from {:?} is into a block", pair[0]);
                assert_eq!([x, y], pair[1], "throw {i} stops elsewhere");
                blocks[ny as usize][nx as usize] = false;
                break;
            }
            (x, y, moved) = (nx, ny, true);
            if [x, y] == goal {
                assert_eq!(pair[1], goal, "throw {i} passes the goal");
                assert_eq!(i, stops.len() - 2, "the goal ends the game");
                break;
            }
        }
    }
    assert_eq!(stops.last(), Some(&goal), "the stops end at the goal");
}

fn stops(result: &Value) -> Vec<[i64; 2]> {
    serde_json::from_value(result["path"].clone()).expect("a path of points")
}

#[tokio::test]
async fn poj3009_sample_answers_1_4_none_4_10_none() {
    let mut throws = Vec::new();
    for dataset in curling_datasets() {
        let request = curling_request(&dataset, json!("curling"));
        let result = results(request.clone()).await[0].clone();
        match result["connected"].as_bool() {
            Some(true) => {
                let path = stops(&result);
                assert_eq!(result["segments"], json!(path.len() - 1), "{result}");
                let goal = serde_json::from_value(request["queries"][0]["to"].clone()).unwrap();
                check_throws(&request["board"], &path, goal);
                throws.push(result["segments"].as_i64().unwrap());
            }
            _ => {
                assert_eq!(result, refused("no_path"));
                throws.push(-1);
            }
        }
    }
    assert_eq!(throws, [1, 4, -1, 4, 10, -1]);
}

#[tokio::test]
async fn poj3009_first_two_datasets_stop_where_the_physics_says() {
    let [first, second, ..] = curling_datasets();
    // One throw to the left, straight onto the goal.
    assert_eq!(
        results(curling_request(&first, json!("curling"))).await,
        json!([{"connected": true, "segments": 1, "path": [[1, 0], [0, 0]]}])
    );
    let request = curling_request(&second, json!("curling"));
    let result = results(request.clone()).await[0].clone();
    assert_eq!(result["segments"], 4);
    let path = stops(&result);
    assert_eq!(path.len(), 5, "start, three stops, goal: {result}");
    assert_eq!(path[0], [3, 0]);
    check_throws(&request["board"], &path, [5, 2]);
}

#[tokio::test]
async fn poj3009_sample_as_text_rows_answers_the_same() {
    let app = router(config());
    for dataset in curling_datasets() {
        let numbers = curling_request(&dataset, json!("curling"));
        let mut text = numbers.clone();
        text["board"] = json!(
            numbers["board"]
                .as_array()
                .unwrap()
                .iter()
                .map(|row| row
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| if c == 0 { '.' } else { '#' })
                    .collect::<String>())
                .collect::<Vec<_>>()
        );
        let (a, b) = (solve(&app, &numbers).await, solve(&app, &text).await);
        assert_eq!((a.status, b.status), (200, 200));
        assert_eq!(a.body, b.body, "{text}");
    }
}

#[tokio::test]
async fn a_curling_query_leaves_the_rink_as_it_was() {
    // Dataset 2 asked three times: the blocks broken by one search are back
    // for the next.
    let [_, second, ..] = curling_datasets();
    let mut request = curling_request(&second, json!("curling"));
    let query = request["queries"][0].clone();
    request["queries"] = json!([query, {"from": [3, 0], "to": [2, 3]}, query]);
    request["include_path"] = json!(false);
    let answers = results(request).await;
    assert_eq!(answers[0], json!({"connected": true, "segments": 4}));
    assert_eq!(answers[2], answers[0]);
}

#[tokio::test]
async fn curling_throw_limit_is_a_rules_field() {
    let [_, second, .., sixth] = curling_datasets();
    // Eleven throws are one too many for the preset, fine without a limit.
    let request = curling_request(&sixth, json!({"preset": "curling", "max_segments": null}));
    let result = results(request).await[0].clone();
    assert_eq!(result["segments"], 11, "{result}");
    let path = stops(&result);
    let expected: Vec<[i64; 2]> = (0..=10).map(|x| [x, 0]).chain([[12, 0]]).collect();
    assert_eq!(path, expected);
    // Four throws needed, three allowed.
    let request = curling_request(&second, json!({"preset": "curling", "max_segments": 3}));
    assert_eq!(results(request).await, json!([refused("no_path")]));
    // `slide` movement on its own: no limit, and the ring is closed.
    let request = curling_request(&second, json!({"movement": "slide"}));
    assert_eq!(results(request).await[0]["segments"], 4);
}

// ------------------------------------------------------- Custom rules

#[tokio::test]
async fn mahjong_with_at_most_two_segments() {
    let mut request = mahjong_sample();
    request["rules"] = json!({"preset": "mahjong", "max_segments": 2});
    request["queries"]
        .as_array_mut()
        .unwrap()
        .push(json!({"from": [0, 1], "to": [1, 0]}));
    assert_eq!(
        results(request).await,
        json!([
            refused("no_path"),
            refused("no_path"),
            refused("no_path"),
            {"connected": true, "segments": 2, "path": [[0, 1], [1, 1], [1, 0]]}
        ])
    );
}

#[tokio::test]
async fn mahjong_segment_limits_are_inclusive() {
    let expected = mahjong_sample_results();
    for (max, first, second) in [
        (3, refused("no_path"), expected[1].clone()),
        (4, expected[0].clone(), expected[1].clone()),
        (1000, expected[0].clone(), expected[1].clone()),
    ] {
        let mut request = mahjong_sample();
        request["rules"] = json!({"preset": "mahjong", "max_segments": max});
        assert_eq!(
            results(request).await,
            json!([first, second, refused("no_path")]),
            "max_segments {max}"
        );
    }
}

#[tokio::test]
async fn mahjong_inside_the_board_only() {
    let mut request = mahjong_sample();
    request["rules"] = json!({"outside": false});
    // Without the ring the second pair has no way round.
    assert_eq!(
        results(request).await,
        json!([
            mahjong_sample_results()[0],
            refused("no_path"),
            refused("no_path")
        ])
    );
}

#[tokio::test]
async fn line_movement_with_same_type_matching() {
    let request = json!({
        "board": ["A.A", "BBB"],
        "rules": {"movement": "line", "match": "same"},
        "queries": [
            {"from": [0, 0], "to": [2, 0]},
            {"from": [0, 0], "to": [0, 1]},
            {"from": [0, 1], "to": [2, 1]},
            {"from": [0, 1], "to": [1, 1]}
        ]
    });
    assert_eq!(
        results(request.clone()).await,
        json!([
            {"connected": true, "segments": 1, "path": [[0, 0], [2, 0]]},
            refused("type_mismatch"),
            {"connected": true, "segments": 3, "path": [[0, 1], [0, 2], [2, 2], [2, 1]]},
            {"connected": true, "segments": 1, "path": [[0, 1], [1, 1]]}
        ])
    );
    // The same board with `match: any` joins the A and the B below it.
    let mut any = request;
    any["rules"]["match"] = json!("any");
    assert_eq!(
        results(any).await[1],
        json!({"connected": true, "segments": 1, "path": [[0, 0], [0, 1]]})
    );
}

// ------------------------------------------------------------ Reasons

#[tokio::test]
async fn every_reason_comes_back_by_name() {
    let line = json!({
        "board": ["AB.", "A.B"],
        "rules": "shisen-sho",
        "queries": [
            {"from": [0, 0], "to": [1, 0]},
            {"from": [2, 0], "to": [0, 0]},
            {"from": [1, 0], "to": [1, 0]},
            {"from": [0, 0], "to": [0, 1]}
        ]
    });
    assert_eq!(
        results(line).await,
        json!([
            refused("type_mismatch"),
            refused("not_a_tile"),
            refused("same_cell"),
            {"connected": true, "segments": 1, "path": [[0, 0], [0, 1]]}
        ])
    );
    let slide = json!({
        "board": [[0, 1, 0], [0, 0, 0]],
        "rules": "curling",
        "queries": [
            {"from": [0, 0], "to": [1, 0]},
            {"from": [1, 0], "to": [0, 0]},
            {"from": [2, 1], "to": [2, 1]},
            {"from": [0, 0], "to": [2, 0]},
            {"from": [0, 1], "to": [2, 1]}
        ]
    });
    assert_eq!(
        results(slide).await,
        json!([
            refused("blocked"),
            refused("blocked"),
            refused("same_cell"),
            // From [0, 0] the block is right beside the stone and every
            // other throw leaves the rink.
            refused("no_path"),
            {"connected": true, "segments": 1, "path": [[0, 1], [2, 1]]}
        ])
    );
}
