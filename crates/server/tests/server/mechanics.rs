//! The game routes through the router, no socket (their examples of
//! openapi.yaml are checked with every route's, in `openapi`): `/v1/moves` agrees with `/v1/solve` asked
//! about every pair, the sequences of `/v1/deal`, `/v1/clear` and
//! `/v1/shuffle` replay through `/v1/play` to an empty board with and
//! without gravity, and the errors name their field.

use crate::support::{self, Rng, config, router};
use axum::Router;
use axum::http::StatusCode;
use serde_json::{Value, json};

async fn post(router: &Router, path: &str, body: &Value) -> (StatusCode, Value) {
    let reply = support::post(router, path, body).await;
    let status = StatusCode::from_u16(reply.status).expect("a status");
    (status, reply.json())
}

/// Posts and expects 200.
async fn ok(router: &Router, path: &str, body: &Value) -> Value {
    let (status, value) = post(router, path, body).await;
    assert_eq!(status, StatusCode::OK, "{path} {body}: {value}");
    value
}

#[tokio::test]
async fn moves_agree_with_solve_asked_about_every_pair() {
    let router = router(config());
    let mut rng = Rng::new(3);
    let mut pairs_seen = 0;
    for round in 0..30 {
        let (w, h) = (2 + rng.below(7), 1 + rng.below(6));
        let fill = 30 + rng.below(60);
        let board = random_board(&mut rng, w, h, fill);
        let tiles: Vec<[usize; 2]> = (0..h)
            .flat_map(|y| (0..w).map(move |x| [x, y]))
            .filter(|&[x, y]| board[y].as_bytes()[x] != b'.')
            .collect();
        let mut queries = Vec::new();
        for (i, a) in tiles.iter().enumerate() {
            for b in &tiles[i + 1..] {
                queries.push(json!({"from": a, "to": b}));
            }
        }
        for rules in [
            json!("shisen-sho"),
            json!("lianliankan"),
            json!("mahjong"),
            json!({"preset": "lianliankan", "max_segments": 5}),
        ] {
            let solved = ok(
                &router,
                "/v1/solve",
                &json!({"board": board, "rules": rules, "queries": queries}),
            )
            .await;
            let expected: Vec<Value> = queries
                .iter()
                .zip(solved["results"].as_array().expect("results"))
                .filter(|(_, r)| r["connected"] == json!(true))
                .map(|(q, r)| {
                    json!({"from": q["from"], "to": q["to"], "segments": r["segments"], "path": r["path"]})
                })
                .collect();
            let moves = ok(
                &router,
                "/v1/moves",
                &json!({"board": board, "rules": rules}),
            )
            .await;
            assert_eq!(
                moves["moves"],
                json!(expected),
                "round {round} {rules} {board:?}"
            );
            assert_eq!(
                moves["stuck"],
                json!(expected.is_empty() && !tiles.is_empty())
            );
            pairs_seen += expected.len();
        }
    }
    assert!(pairs_seen > 200, "only {pairs_seen}");
}

/// Plays `moves` on `board` and asserts it ends empty.
async fn assert_replays(
    router: &Router,
    board: &Value,
    rules: &Value,
    gravity: &str,
    moves: &Value,
) {
    let played = ok(
        router,
        "/v1/play",
        &json!({"board": board, "rules": rules, "gravity": gravity, "moves": moves, "include_path": false}),
    )
    .await;
    assert_eq!(
        played.get("stopped_at"),
        None,
        "{board} {gravity}: {played}"
    );
    assert_eq!(played["cleared"], json!(true), "{played}");
    assert_eq!(played["stuck"], json!(false));
    assert_eq!(
        played["steps"].as_array().map(Vec::len),
        moves.as_array().map(Vec::len)
    );
    for row in played["board"].as_array().expect("rows") {
        assert!(
            row.as_str().expect("text").chars().all(|c| c == '.'),
            "{played}"
        );
    }
}

#[tokio::test]
async fn deals_and_clearing_sequences_replay_to_an_empty_board() {
    let router = router(config());
    for gravity in ["none", "down"] {
        for rules in [json!("shisen-sho"), json!("lianliankan")] {
            for seed in 0..12 {
                let request = json!({"width": 8, "height": 5, "types": 10, "copies": 4,
                                     "rules": rules, "gravity": gravity, "seed": seed});
                let dealt = ok(&router, "/v1/deal", &request).await;
                assert_eq!(
                    ok(&router, "/v1/deal", &request).await,
                    dealt,
                    "deterministic"
                );
                assert_replays(&router, &dealt["board"], &rules, gravity, &dealt["moves"]).await;
                let cleared = ok(
                    &router,
                    "/v1/clear",
                    &json!({"board": dealt["board"], "rules": rules, "gravity": gravity}),
                )
                .await;
                assert_eq!(
                    cleared["outcome"],
                    json!("solvable"),
                    "{gravity} {rules} {seed}: {cleared}"
                );
                assert_replays(&router, &dealt["board"], &rules, gravity, &cleared["moves"]).await;
                let shuffled = ok(
                    &router,
                    "/v1/shuffle",
                    &json!({"board": dealt["board"], "rules": rules, "gravity": gravity,
                            "seed": seed, "solvable": true}),
                )
                .await;
                assert_replays(
                    &router,
                    &shuffled["board"],
                    &rules,
                    gravity,
                    &shuffled["moves"],
                )
                .await;
            }
        }
    }
}

/// Each difficulty, with and without gravity: the exact board and stats
/// of one request, a sequence that replays, and no `difficulty` is easy.
#[tokio::test]
async fn deals_at_each_difficulty_answer_their_board_and_stats() {
    let router = router(config());
    let stats = |open: u64, cleared: u64| json!({"moves_open": open, "playouts": 32, "playouts_cleared": cleared});
    let cases = [
        (
            "easy",
            "none",
            ["FADACE", "CAAFFB", "BBECCB", "DFDEDE"],
            stats(12, 32),
        ),
        (
            "easy",
            "down",
            ["BCDFFB", "DCCFED", "DEBBEE", "AACFAA"],
            stats(15, 32),
        ),
        (
            "medium",
            "none",
            ["EAFFCA", "CFDDED", "AAEFBC", "BBECDB"],
            stats(8, 30),
        ),
        (
            "medium",
            "down",
            ["DFEBCD", "BECADE", "AFBFAB", "FECDAC"],
            stats(3, 29),
        ),
        (
            "hard",
            "none",
            ["CECAAD", "CCEDBA", "AEBDBF", "BEFFFD"],
            stats(11, 28),
        ),
        (
            "hard",
            "down",
            ["FBADAC", "DCBCEA", "FBAEFF", "DDBECE"],
            stats(7, 17),
        ),
    ];
    let rules = json!("shisen-sho");
    for (difficulty, gravity, board, stats) in cases {
        let request = json!({"width": 6, "height": 4, "types": 6, "rules": rules,
                             "gravity": gravity, "seed": 42, "difficulty": difficulty});
        let dealt = ok(&router, "/v1/deal", &request).await;
        assert_eq!(dealt["board"], json!(board), "{difficulty} {gravity}");
        assert_eq!(dealt["stats"], stats, "{difficulty} {gravity}");
        assert_replays(&router, &dealt["board"], &rules, gravity, &dealt["moves"]).await;
        if difficulty == "easy" {
            let mut plain = request.clone();
            plain
                .as_object_mut()
                .expect("an object")
                .remove("difficulty");
            assert_eq!(ok(&router, "/v1/deal", &plain).await, dealt);
        }
    }
}

#[tokio::test]
async fn deals_in_numbers_have_the_asked_tiles() {
    let router = router(config());
    let dealt = ok(
        &router,
        "/v1/deal",
        &json!({"width": 18, "height": 8, "types": 36, "rules": "shisen-sho", "seed": 1, "encoding": "numbers"}),
    )
    .await;
    let mut counts = [0; 37];
    for row in dealt["board"].as_array().expect("rows") {
        for cell in row.as_array().expect("numbers") {
            counts[cell.as_u64().expect("a number") as usize] += 1;
        }
    }
    assert_eq!(counts[0], 0);
    assert!(counts[1..].iter().all(|&n| n == 4), "{counts:?}");
    let other_seed = ok(
        &router,
        "/v1/deal",
        &json!({"width": 18, "height": 8, "types": 36, "rules": "shisen-sho", "seed": 2, "encoding": "numbers"}),
    )
    .await;
    assert_ne!(other_seed["board"], dealt["board"]);
}

#[tokio::test]
async fn a_hint_is_the_first_move_and_an_empty_board_is_cleared() {
    let router = router(config());
    let board = json!(["AB.A", "B..C", "ACBA"]);
    let all = ok(
        &router,
        "/v1/moves",
        &json!({"board": board, "rules": "lianliankan"}),
    )
    .await;
    let hint = ok(
        &router,
        "/v1/moves",
        &json!({"board": board, "rules": "lianliankan", "limit": 1}),
    )
    .await;
    assert_eq!(hint["moves"], json!([all["moves"][0]]));
    let empty = ok(&router, "/v1/moves", &json!({"board": [".."]})).await;
    assert_eq!(
        empty,
        json!({"moves": [], "stuck": false, "cleared": true, "truncated": false})
    );
    let cleared = ok(&router, "/v1/clear", &json!({"board": [".."]})).await;
    assert_eq!(
        without_elapsed(cleared),
        json!({"outcome": "solvable", "moves": [], "states": 0, "reason": "no_tiles", "budget_ms": 1000})
    );
}

#[tokio::test]
async fn errors_name_their_field() {
    let router = router(config());
    let cases = [
        (
            "/v1/moves",
            json!({"board": [[1, 0]], "rules": "curling"}),
            "invalid_rules",
            Some("rules"),
        ),
        (
            "/v1/moves",
            json!({"rules": "mahjong"}),
            "invalid_board",
            Some("board"),
        ),
        (
            "/v1/moves",
            json!({"board": ["AB", "A"]}),
            "invalid_board",
            Some("board[1]"),
        ),
        (
            "/v1/moves",
            json!({"board": ["AB"], "limit": 0}),
            "invalid_request",
            Some("limit"),
        ),
        (
            "/v1/moves",
            json!({"board": ["AB"], "hint": true}),
            "invalid_request",
            Some("hint"),
        ),
        (
            "/v1/moves",
            json!({"board": ["AB"], "rules": {"preset": "shisen-sho", "max_segments": 0}}),
            "invalid_rules",
            Some("rules.max_segments"),
        ),
        (
            "/v1/moves",
            json!({"board": ["AB"], "from": [2, 0]}),
            "invalid_query",
            Some("from"),
        ),
        (
            "/v1/moves",
            json!({"board": ["A.A"], "from": [1, 0]}),
            "invalid_query",
            Some("from"),
        ),
        (
            "/v1/moves",
            json!({"board": ["AB"], "from": [0]}),
            "invalid_request",
            Some("from"),
        ),
        (
            "/v1/play",
            json!({"board": ["AB"]}),
            "invalid_query",
            Some("moves"),
        ),
        (
            "/v1/play",
            json!({"board": ["AB"], "moves": [{"from": [0, 0], "to": [2, 0]}]}),
            "invalid_query",
            Some("moves[0].to"),
        ),
        (
            "/v1/play",
            json!({"board": ["AB"], "moves": [{"from": [0, 0]}]}),
            "invalid_query",
            Some("moves[0].to"),
        ),
        (
            "/v1/play",
            json!({"board": ["AB"], "moves": [{"from": [0, 0], "to": [1]}]}),
            "invalid_query",
            Some("moves[0].to"),
        ),
        (
            "/v1/play",
            json!({"board": ["AB"], "moves": [], "gravity": "sideways"}),
            "invalid_request",
            Some("gravity"),
        ),
        (
            "/v1/clear",
            json!({"board": ["AB"], "budget_ms": 0}),
            "invalid_request",
            Some("budget_ms"),
        ),
        (
            "/v1/deal",
            json!({"width": 2, "height": 2, "types": 3}),
            "invalid_request",
            Some("types"),
        ),
        (
            "/v1/deal",
            json!({"width": 2, "height": 2, "types": 1, "copies": 3}),
            "invalid_request",
            Some("copies"),
        ),
        (
            "/v1/deal",
            json!({"height": 2, "types": 1}),
            "invalid_request",
            Some("width"),
        ),
        (
            "/v1/deal",
            json!({"width": 20, "height": 20, "types": 63, "copies": 2}),
            "invalid_request",
            Some("types"),
        ),
        (
            "/v1/deal",
            json!({"width": 100000, "height": 1, "types": 1}),
            "too_large",
            Some("width"),
        ),
        (
            "/v1/deal",
            json!({"width": 2, "height": 2, "types": 1, "difficulty": "extreme"}),
            "invalid_request",
            Some("difficulty"),
        ),
        (
            "/v1/shuffle",
            json!({"board": ["AB", "CD"], "rules": "lianliankan"}),
            "invalid_request",
            Some("board"),
        ),
        (
            "/v1/shuffle",
            json!({"board": ["AB", "BA", "C."], "solvable": true}),
            "invalid_request",
            Some("board"),
        ),
    ];
    // `null` for an optional field is the field left out.
    let (status, answer) = post(
        &router,
        "/v1/play",
        &json!({"board": ["AB"], "moves": [], "include_path": null}),
    )
    .await;
    assert_eq!(
        (status.as_u16(), answer),
        (
            200,
            json!({"board": ["AB"], "steps": [], "cleared": false, "stuck": false, "moves_open": 1})
        )
    );
    for (path, body, code, field) in cases {
        let (status, answer) = post(&router, path, &body).await;
        let expected_status = if code == "too_large" { 413 } else { 422 };
        assert_eq!(status.as_u16(), expected_status, "{path} {body}: {answer}");
        assert_eq!(
            answer["error"]["code"],
            json!(code),
            "{path} {body}: {answer}"
        );
        assert_eq!(
            answer["error"].get("field").and_then(Value::as_str),
            field,
            "{path} {body}: {answer}"
        );
    }
    let reply = support::call(&router, support::post_request("/v1/moves", "{")).await;
    assert_eq!(reply.status, 400);
}

#[tokio::test]
async fn a_play_stops_at_each_illegal_reason() {
    let router = router(config());
    let board = json!(["AB.A", "B..C", "ACBA"]);
    for (from, to, reason) in [
        ([0, 0], [0, 0], "same_cell"),
        ([0, 0], [2, 0], "not_a_tile"),
        ([0, 0], [1, 0], "type_mismatch"),
        ([0, 2], [3, 2], "no_path"),
    ] {
        let played = ok(
            &router,
            "/v1/play",
            &json!({"board": board, "rules": "lianliankan",
                    "moves": [{"from": [3, 1], "to": [1, 2]}, {"from": from, "to": to}]}),
        )
        .await;
        assert_eq!(
            played["stopped_at"],
            json!({"index": 1, "from": from, "to": to, "reason": reason})
        );
        assert_eq!(played["board"], json!(["AB.A", "B...", "A.BA"]));
    }
    // Numbers come back as numbers.
    let played = ok(
        &router,
        "/v1/play",
        &json!({"board": [[1, 1], [2, 0]], "moves": [{"from": [0, 0], "to": [1, 0]}], "rules": "lianliankan"}),
    )
    .await;
    assert_eq!(played["board"], json!([[0, 0], [2, 0]]));
    assert_eq!(played["stuck"], json!(true));
}

/// A random text board of `w` x `h` cells, tiles `A` to `D`.
fn random_board(rng: &mut Rng, w: usize, h: usize, fill: usize) -> Vec<String> {
    (0..h)
        .map(|_| {
            (0..w)
                .map(|_| {
                    if rng.below(100) < fill {
                        (b'A' + rng.below(4) as u8) as char
                    } else {
                        '.'
                    }
                })
                .collect()
        })
        .collect()
}

#[tokio::test]
async fn moves_of_one_tile_are_the_full_list_filtered_by_the_tile() {
    let router = router(config());
    let mut rng = Rng::new(11);
    let mut partners_seen = 0;
    for round in 0..25 {
        let (w, h) = (2 + rng.below(7), 1 + rng.below(6));
        let fill = 30 + rng.below(60);
        let board = random_board(&mut rng, w, h, fill);
        let tiles: Vec<Value> = (0..h)
            .flat_map(|y| (0..w).map(move |x| [x, y]))
            .filter(|&[x, y]| board[y].as_bytes()[x] != b'.')
            .map(|p| json!(p))
            .collect();
        for rules in [
            json!("mahjong"),
            json!("shisen-sho"),
            json!("lianliankan"),
            json!({"preset": "lianliankan", "max_segments": 5}),
            json!({"preset": "shisen-sho", "match": "any"}),
        ] {
            let all = ok(
                &router,
                "/v1/moves",
                &json!({"board": board, "rules": rules}),
            )
            .await;
            for tile in &tiles {
                // The full list's moves of this tile, each turned to start
                // from it: (partner, segments).
                let mut expected: Vec<(Value, Value)> = all["moves"]
                    .as_array()
                    .expect("moves")
                    .iter()
                    .filter_map(|m| {
                        if &m["from"] == tile {
                            Some((m["to"].clone(), m["segments"].clone()))
                        } else if &m["to"] == tile {
                            Some((m["from"].clone(), m["segments"].clone()))
                        } else {
                            None
                        }
                    })
                    .collect();
                // Reading order: by row, then column.
                expected.sort_by_key(|(p, _)| (p[1].as_u64(), p[0].as_u64()));
                let mine = ok(
                    &router,
                    "/v1/moves",
                    &json!({"board": board, "rules": rules, "from": tile}),
                )
                .await;
                let got: Vec<(Value, Value)> = mine["moves"]
                    .as_array()
                    .expect("moves")
                    .iter()
                    .map(|m| {
                        assert_eq!(&m["from"], tile, "{m}");
                        (m["to"].clone(), m["segments"].clone())
                    })
                    .collect();
                assert_eq!(got, expected, "round {round} {rules} {board:?} {tile}");
                assert_eq!(mine["stuck"], all["stuck"]);
                assert_eq!(mine["cleared"], json!(false));
                assert_eq!(mine["truncated"], json!(false));
                let queries: Vec<Value> = expected
                    .iter()
                    .map(|(p, _)| json!({"from": tile, "to": p}))
                    .collect();
                let solved = ok(
                    &router,
                    "/v1/solve",
                    &json!({"board": board, "rules": rules, "queries": queries}),
                )
                .await;
                for (m, r) in mine["moves"]
                    .as_array()
                    .expect("moves")
                    .iter()
                    .zip(solved["results"].as_array().expect("results"))
                {
                    assert_eq!(m["path"], r["path"], "{board:?} {rules} {m}");
                }
                partners_seen += expected.len();
            }
        }
    }
    assert!(partners_seen > 1000, "only {partners_seen}");
}

/// Reading order sorts by row, then column: `[x, y]` sorted as `(y, x)`.
#[tokio::test]
async fn moves_of_one_tile_list_partners_in_reading_order_within_limits() {
    let board = json!(["A.A", "...", "AA."]);
    let full = json!([
        {"from": [2, 0], "to": [0, 0], "segments": 1, "path": [[2, 0], [0, 0]]},
        {"from": [2, 0], "to": [0, 2], "segments": 3, "path": [[2, 0], [2, 1], [0, 1], [0, 2]]},
        {"from": [2, 0], "to": [1, 2], "segments": 2, "path": [[2, 0], [1, 0], [1, 2]]}
    ]);
    let router = router(config());
    let all = ok(
        &router,
        "/v1/moves",
        &json!({"board": board, "from": [2, 0]}),
    )
    .await;
    assert_eq!(
        all,
        json!({"moves": full, "stuck": false, "cleared": false, "truncated": false})
    );
    let one = ok(
        &router,
        "/v1/moves",
        &json!({"board": board, "from": [2, 0], "limit": 1, "include_path": false}),
    )
    .await;
    assert_eq!(
        one,
        json!({"moves": [{"from": [2, 0], "to": [0, 0], "segments": 1}],
               "stuck": false, "cleared": false, "truncated": false})
    );
    let capped = router_with_max_moves(2);
    let cut = ok(
        &capped,
        "/v1/moves",
        &json!({"board": board, "from": [2, 0]}),
    )
    .await;
    assert_eq!(cut["moves"], json!(full.as_array().expect("moves")[..2]));
    assert_eq!(cut["truncated"], json!(true));
    // A tile without partners on a board with moves is not stuck.
    let lone = ok(
        &router,
        "/v1/moves",
        &json!({"board": ["AAB"], "rules": "shisen-sho", "from": [2, 0]}),
    )
    .await;
    assert_eq!(
        lone,
        json!({"moves": [], "stuck": false, "cleared": false, "truncated": false})
    );
    let stuck = ok(
        &router,
        "/v1/moves",
        &json!({"board": ["AB", "BA"], "rules": "lianliankan", "from": [0, 0]}),
    )
    .await;
    assert_eq!(
        stuck,
        json!({"moves": [], "stuck": true, "cleared": false, "truncated": false})
    );
}

fn router_with_max_moves(max_moves: usize) -> Router {
    router(linkpath_server::Config {
        max_moves,
        ..config()
    })
}

/// A `/v1/clear` answer without `elapsed_ms`, which varies between runs:
/// checked here to be a time within the default 10 s timeout.
fn without_elapsed(mut answer: Value) -> Value {
    let elapsed = answer
        .as_object_mut()
        .and_then(|a| a.remove("elapsed_ms"))
        .and_then(|e| e.as_u64());
    assert!(elapsed.is_some_and(|e| e <= 10_000), "{answer}");
    answer
}

#[tokio::test]
async fn clear_answers_say_why_they_needed_no_search() {
    // The budget is the solve timeout less a second: the default's.
    let mut config = config();
    config.request.solve_timeout_ms = 10_000;
    let router = router(config);
    let clear = async |body: Value| without_elapsed(ok(&router, "/v1/clear", &body).await);
    assert_eq!(
        clear(json!({"board": ["ABA", "BB."], "rules": "shisen-sho"})).await,
        json!({"outcome": "unsolvable", "states": 0, "reason": "odd_type", "tile": "B",
               "count": 3, "budget_ms": 1000})
    );
    // The first odd type in character order, however the board lists them.
    assert_eq!(
        clear(json!({"board": ["DCCA", "B..."], "rules": "lianliankan"})).await,
        json!({"outcome": "unsolvable", "states": 0, "reason": "odd_type", "tile": "A",
               "count": 1, "budget_ms": 1000})
    );
    assert_eq!(
        clear(json!({"board": ["🀀🀁🀀"], "rules": "shisen-sho"})).await,
        json!({"outcome": "unsolvable", "states": 0, "reason": "odd_type", "tile": "🀁",
               "count": 1, "budget_ms": 1000})
    );
    assert_eq!(
        clear(json!({"board": [[66, 7, 66], [66, 7, 0]], "rules": "shisen-sho"})).await,
        json!({"outcome": "unsolvable", "states": 0, "reason": "odd_type", "tile": 66,
               "count": 3, "budget_ms": 1000})
    );
    assert_eq!(
        clear(json!({"board": ["ABC"], "rules": "mahjong"})).await,
        json!({"outcome": "unsolvable", "states": 0, "reason": "odd_tiles", "count": 3,
               "budget_ms": 1000})
    );
    assert_eq!(
        clear(json!({"board": [[0, 0]], "budget_ms": 50})).await,
        json!({"outcome": "solvable", "moves": [], "states": 0, "reason": "no_tiles",
               "budget_ms": 50})
    );
    // A searched answer has no reason; a budget past 90% of the 10 s
    // timeout is cut to it.
    assert_eq!(
        clear(json!({"board": ["AB", "BA"], "rules": "lianliankan", "budget_ms": 10_000})).await,
        json!({"outcome": "unsolvable", "states": 1, "budget_ms": 9000})
    );
}

#[tokio::test]
async fn max_states_ends_the_search_at_the_same_state_every_time() {
    let router = router(config());
    // Cleared in 20 states with gravity: 19 is one short.
    let board = json!(["BBFIBJDHED", "HICEEGAHDF", "JGJCFGAFBH", "GJCCDAAEII"]);
    let request = |max_states: u64| {
        json!({"board": board, "rules": "lianliankan", "gravity": "down",
               "max_states": max_states, "budget_ms": 9000})
    };
    let short = without_elapsed(ok(&router, "/v1/clear", &request(19)).await);
    assert_eq!(
        short,
        json!({"outcome": "unknown", "states": 19, "budget_ms": 9000})
    );
    for _ in 0..3 {
        assert_eq!(
            without_elapsed(ok(&router, "/v1/clear", &request(19)).await),
            short
        );
    }
    let enough = without_elapsed(ok(&router, "/v1/clear", &request(20)).await);
    assert_eq!(enough["outcome"], json!("solvable"));
    assert_eq!(enough["states"], json!(20));
    assert_replays(
        &router,
        &board,
        &json!("lianliankan"),
        "down",
        &enough["moves"],
    )
    .await;
    let (status, refused) = post(&router, "/v1/clear", &request(0)).await;
    assert_eq!(
        (status, refused),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            json!({"error": {"code": "invalid_request",
                             "message": "`max_states` is 0, expected at least 1",
                             "field": "max_states"}})
        )
    );
}

#[tokio::test]
async fn shuffle_errors_name_tiles_as_written() {
    let router = router(config());
    for (board, message) in [
        (
            json!(["AB", "BA", "C."]),
            "type \"C\" has 1 tile left, an odd number, so the board cannot be cleared",
        ),
        (
            json!(["🀀🀀", "🀁🀁", "🀁."]),
            "type \"🀁\" has 3 tiles left, an odd number, so the board cannot be cleared",
        ),
        (
            json!([[1, 2], [2, 1], [3, 3], [3, 0]]),
            "type 3 has 3 tiles left, an odd number, so the board cannot be cleared",
        ),
    ] {
        let (status, refused) = post(
            &router,
            "/v1/shuffle",
            &json!({"board": board, "rules": "shisen-sho", "solvable": true}),
        )
        .await;
        assert_eq!(
            (status, refused),
            (
                StatusCode::UNPROCESSABLE_ENTITY,
                json!({"error": {"code": "invalid_request", "message": message, "field": "board"}})
            ),
            "{board}"
        );
    }
}

#[tokio::test]
async fn a_deal_of_mahjong_tiles_reads_back_and_replays() {
    let router = router(config());
    // The 34 tile faces of a Mahjong set, U+1F000 to U+1F021.
    let alphabet: String = (0x1F000..=0x1F021)
        .map(|c| char::from_u32(c).expect("a character"))
        .collect();
    let rules = json!("shisen-sho");
    let dealt = ok(
        &router,
        "/v1/deal",
        &json!({"width": 12, "height": 6, "types": 18, "rules": rules, "seed": 5,
                "alphabet": alphabet}),
    )
    .await;
    let rows: Vec<&str> = dealt["board"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r.as_str().expect("text"))
        .collect();
    let mut counts = std::collections::BTreeMap::new();
    for row in &rows {
        assert_eq!(row.chars().count(), 12, "{row}");
        for c in row.chars() {
            *counts.entry(c).or_insert(0) += 1;
        }
    }
    let first: Vec<char> = alphabet.chars().take(18).collect();
    assert_eq!(counts.keys().copied().collect::<Vec<_>>(), first);
    assert!(counts.values().all(|&n| n == 4), "{counts:?}");
    // Read back: the rows come back as sent, and each move of the
    // sequence joins two tiles of one type as /v1/solve sees them.
    let echoed = ok(
        &router,
        "/v1/play",
        &json!({"board": dealt["board"], "rules": rules, "moves": []}),
    )
    .await;
    assert_eq!(echoed["board"], dealt["board"]);
    let first_move = &dealt["moves"][0];
    let solved = ok(
        &router,
        "/v1/solve",
        &json!({"board": dealt["board"], "rules": rules,
                "queries": [first_move, {"from": first_move["from"], "to": first_move["from"]}]}),
    )
    .await;
    assert_eq!(solved["results"][0]["connected"], json!(true), "{solved}");
    assert_eq!(
        solved["results"][1],
        json!({"connected": false, "reason": "same_cell"})
    );
    assert_replays(&router, &dealt["board"], &rules, "none", &dealt["moves"]).await;
    let other = alphabet.replace('\u{1F000}', "\u{1F02B}");
    let renamed = ok(
        &router,
        "/v1/deal",
        &json!({"width": 12, "height": 6, "types": 18, "rules": rules, "seed": 5,
                "alphabet": other}),
    )
    .await;
    assert_eq!(
        renamed["board"],
        json!(
            rows.iter()
                .map(|r| r.replace('\u{1F000}', "\u{1F02B}"))
                .collect::<Vec<_>>()
        ),
        "the same deal under other names"
    );
}

#[tokio::test]
async fn a_deal_without_moves_is_the_same_deal() {
    let router = router(config());
    let request = json!({"width": 6, "height": 4, "types": 6, "rules": "shisen-sho",
                         "gravity": "down", "seed": 42});
    let mut full = ok(&router, "/v1/deal", &request).await;
    let mut bare = request.clone();
    bare["include_moves"] = json!(false);
    let without = ok(&router, "/v1/deal", &bare).await;
    bare["include_moves"] = json!(true);
    assert_eq!(ok(&router, "/v1/deal", &bare).await, full);
    assert!(full["moves"].is_array());
    full.as_object_mut().expect("an object").remove("moves");
    assert_eq!(without, full);
    // The default alphabet is the first characters of A-Z, a-z, 0-9.
    let mut named = request.clone();
    named["alphabet"] = json!("ABCDEF");
    assert_eq!(
        ok(&router, "/v1/deal", &named).await["board"],
        full["board"]
    );
}

/// One settings object goes to every route: `/v1/moves` takes `gravity`
/// and `settle` and answers as without them; `/v1/play`'s `moves_open`
/// and `hint` are what `/v1/moves` answers about the final board.
#[tokio::test]
async fn play_answers_the_final_boards_moves_as_moves_does() {
    let router = router(config());
    let mut rng = Rng::new(8);
    let mut hints = 0;
    for _ in 0..40 {
        let (w, h) = (2 + rng.below(5), 2 + rng.below(4));
        let fill = 40 + rng.below(60);
        let board = random_board(&mut rng, w, h, fill);
        let settings = json!({"rules": "shisen-sho", "gravity": "down", "settle": true});
        let mut request = json!({"board": board, "limit": 1});
        request
            .as_object_mut()
            .unwrap()
            .extend(settings.as_object().unwrap().clone());
        let first = ok(&router, "/v1/moves", &request).await;
        let plain = ok(
            &router,
            "/v1/moves",
            &json!({"board": board, "rules": "shisen-sho", "limit": 1}),
        )
        .await;
        assert_eq!(first, plain);
        let Some(step) = first["moves"].get(0) else {
            continue;
        };
        let mut request = json!({"board": board, "hint": true,
                                 "moves": [{"from": step["from"], "to": step["to"]}]});
        request
            .as_object_mut()
            .unwrap()
            .extend(settings.as_object().unwrap().clone());
        let played = ok(&router, "/v1/play", &request).await;
        let after = json!({"board": played["board"], "rules": "shisen-sho"});
        let all = ok(&router, "/v1/moves", &after).await;
        let count = all["moves"].as_array().unwrap().len();
        assert_eq!(played["moves_open"], json!(count), "{played}");
        assert_eq!(played.get("hint"), all["moves"].get(0), "{played}");
        hints += usize::from(played.get("hint").is_some());
    }
    assert_eq!(hints, 33);
}

/// With `settle`, the clearing sequences of `/v1/clear` and of a solvable
/// `/v1/shuffle` replay through `/v1/play` with `settle`, on boards with
/// floating tiles; a shuffle's `moved`, applied to the board sent, gives
/// the board answered.
#[tokio::test]
async fn settling_sequences_replay_and_shuffles_say_where_tiles_went() {
    let router = router(config());
    let mut rng = Rng::new(21);
    let (mut cleared, mut moved) = (0, 0);
    for round in 0..30 {
        let (w, h) = (2 + rng.below(4), 2 + rng.below(4));
        let board = random_board(&mut rng, w, h, 60);
        for gravity in ["down", "up", "left", "right"] {
            let base =
                json!({"board": board, "rules": "mahjong", "gravity": gravity, "settle": true});
            let clear = ok(&router, "/v1/clear", &base).await;
            if let Some(moves) = clear.get("moves") {
                let mut request = base.clone();
                request["moves"] = moves.clone();
                let played = ok(&router, "/v1/play", &request).await;
                assert_eq!(played["cleared"], json!(true), "{round} {gravity} {played}");
                cleared += 1;
            }
            let mut request = base.clone();
            request["rules"] = json!("lianliankan");
            request["seed"] = json!(round);
            for solvable in [false, true] {
                request["solvable"] = json!(solvable);
                let (status, shuffled) = post(&router, "/v1/shuffle", &request).await;
                if status != StatusCode::OK {
                    continue;
                }
                let mut cells: Vec<Vec<u8>> = board.iter().map(|r| r.as_bytes().to_vec()).collect();
                let at = |p: &Value| {
                    (
                        p[0].as_u64().unwrap() as usize,
                        p[1].as_u64().unwrap() as usize,
                    )
                };
                let list = shuffled["moved"].as_array().unwrap();
                let lifted: Vec<u8> = list
                    .iter()
                    .map(|m| {
                        let (x, y) = at(&m["from"]);
                        board[y].as_bytes()[x]
                    })
                    .collect();
                for (m, tile) in list.iter().zip(lifted) {
                    let (x, y) = at(&m["to"]);
                    cells[y][x] = tile;
                }
                let got: Vec<String> = cells
                    .into_iter()
                    .map(|r| String::from_utf8(r).unwrap())
                    .collect();
                assert_eq!(json!(got), shuffled["board"], "{round} {gravity}");
                moved += list.len();
                if let Some(moves) = shuffled.get("moves") {
                    let mut play = base.clone();
                    play["board"] = shuffled["board"].clone();
                    play["rules"] = json!("lianliankan");
                    play["moves"] = moves.clone();
                    let played = ok(&router, "/v1/play", &play).await;
                    assert_eq!(played["cleared"], json!(true), "{round} {gravity} {played}");
                }
            }
        }
    }
    assert_eq!((cleared, moved), (68, 674));
}

/// Every tile that falls is listed, so the tiles that fall over a whole
/// `/v1/play` are bounded by the limit on a board's cells: 413 past it.
#[tokio::test]
async fn the_tiles_that_fall_in_a_play_are_bounded_by_the_cell_limit() {
    let mut config = config();
    config.request.max_cells = 12;
    let router = router(config);
    let bottom = json!({"from": [0, 5], "to": [1, 5]});
    let board = json!(["AA", "BB", "CC", "DD", "EE", "FF"]);
    let request = |moves: Value| json!({"board": board, "rules": "lianliankan", "gravity": "down", "moves": moves});
    // The first removal drops 10 tiles, the second 8 more.
    let played = ok(&router, "/v1/play", &request(json!([bottom]))).await;
    assert_eq!(
        played["steps"][0]["moved"].as_array().map(Vec::len),
        Some(10)
    );
    let (status, answer) = post(&router, "/v1/play", &request(json!([bottom, bottom]))).await;
    assert_eq!(
        (status.as_u16(), answer),
        (
            413,
            json!({"error": {
                "code": "too_large",
                "message": "the moves make more than 12 tiles fall in all, over the limit of the answer; send fewer moves",
                "field": "moves"
            }})
        )
    );
}

/// Deals onto layouts with holes, islands, a ring, a one-cell-wide
/// corridor and a checkerboard, at every difficulty, with and without
/// gravity: every tile on a marked cell and every marked cell holding
/// one, each type its copies, and the moves replay through `/v1/play` to
/// an empty board.
#[tokio::test]
async fn deals_onto_layouts_fill_the_marked_cells_and_replay() {
    let router = router(config());
    let layouts = [
        json!(["########", "#..##..#", "########"]),
        json!(["##..##..##", "##..##..##"]),
        json!(["#####", "#...#", "#...#", "#####"]),
        json!(["######", ".....#", "######", "#.....", "######"]),
        json!(["#.#.#.", ".#.#.#", "#.#.#.", ".#.#.#"]),
    ];
    for layout in layouts {
        let rows: Vec<&str> = layout
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| r.as_str().expect("text"))
            .collect();
        let cells = rows.concat().chars().filter(|&c| c == '#').count();
        for difficulty in ["easy", "medium", "hard"] {
            for gravity in ["none", "down", "left"] {
                let rules = json!("shisen-sho");
                let request = json!({"layout": layout, "types": cells / 2, "rules": rules,
                                     "gravity": gravity, "difficulty": difficulty, "seed": 4});
                let dealt = ok(&router, "/v1/deal", &request).await;
                assert_eq!(ok(&router, "/v1/deal", &request).await, dealt);
                let board: Vec<&str> = dealt["board"]
                    .as_array()
                    .expect("rows")
                    .iter()
                    .map(|r| r.as_str().expect("text"))
                    .collect();
                let marks = |rows: &[&str]| -> Vec<bool> {
                    rows.concat().chars().map(|c| c != '.').collect()
                };
                assert_eq!(
                    marks(&board),
                    marks(&rows),
                    "{layout} {difficulty} {gravity}"
                );
                let mut counts = std::collections::BTreeMap::new();
                for c in board.concat().chars().filter(|&c| c != '.') {
                    *counts.entry(c).or_insert(0) += 1;
                }
                assert!(counts.values().all(|&n| n == 2), "{counts:?}");
                assert_eq!(counts.len(), cells / 2);
                assert_replays(&router, &dealt["board"], &rules, gravity, &dealt["moves"]).await;
            }
        }
    }
}
