//! Every error answer of the service through the router, no socket: its
//! status, its `code`, a message that names what was wrong, and the exact
//! `field`. Then the two that depend on time (503 with one busy worker, 504
//! past a short deadline), and a property: no request, however mangled, is
//! ever answered 500.

use crate::support::{
    Reply, bounded, call, config, endless_curling, get, hold_the_slot_by, mahjong_sample,
    mahjong_sample_results, post_request, router, router_slot_free, solve, solve_request,
};
use axum::body::Body;
use axum::http::Request;
use linkpath_server::Config;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// Posts the raw `body` as JSON to a router with the default settings.
async fn post(body: &str) -> Reply {
    call(&router(config()), solve_request(body.to_owned())).await
}

/// The mahjong sample with `key` set to `value`.
fn sample_with(key: &str, value: Value) -> Value {
    let mut request = mahjong_sample();
    request[key] = value;
    request
}

/// Posts `request`, asserts a 422 with `code` at `field`, returns the message.
async fn unprocessable(request: Value, code: &str, field: &str) -> String {
    let reply = solve(&router(config()), &request).await;
    let (message, found) = reply.error(422, code);
    assert_eq!(found.as_deref(), Some(field), "{message}");
    message
}

/// Asserts `message` contains every one of `parts`.
fn names(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(
            message.contains(part),
            "message {message:?} does not name {part:?}"
        );
    }
}

// ---------------------------------------------------------- 400, 415

#[tokio::test]
async fn broken_json_is_400_malformed_json() {
    for body in [
        "{",
        "",
        "{\"board\": [\"XX\",]}",
        "not json",
        "{\"board\": [\"X\"]} trailing",
    ] {
        let reply = post(body).await;
        let (message, field) = reply.error(400, "malformed_json");
        names(&message, &["not valid JSON"]);
        assert_eq!(field, None, "{body:?}");
    }
}

/// Every route that takes a JSON body, and the rest of a body for it
/// after its `rules`.
const JSON_ROUTES: [(&str, &str); 7] = [
    ("/v1/solve", r#", "board": ["XX"], "queries": []}"#),
    ("/v1/render", r#", "board": ["XX"], "queries": []}"#),
    ("/v1/moves", r#", "board": ["XX"]}"#),
    ("/v1/play", r#", "board": ["XX"], "moves": []}"#),
    ("/v1/clear", r#", "board": ["XX"]}"#),
    ("/v1/deal", r#", "width": 2, "height": 2, "types": 1}"#),
    ("/v1/shuffle", r#", "board": ["XX"]}"#),
];

#[tokio::test]
async fn what_json_forbids_in_a_string_or_number_is_400_on_every_route() {
    let app = router(config());
    let cases: [(&[u8], &str); 4] = [
        (
            br#"{"rules": "\ud800""#,
            r"\ud800 is half of a UTF-16 surrogate pair, expected both halves at line 1 column 12",
        ),
        (
            br#"{"rules": "\uDC00""#,
            r"\uDC00 is half of a UTF-16 surrogate pair, expected both halves at line 1 column 12",
        ),
        (
            b"{\"rules\": \"mah\xffjong\"",
            "byte 0xFF is not UTF-8 at line 1 column 15",
        ),
        (
            br#"{"rules": {"max_segments": 1e400}"#,
            "the number 1e400 is out of range at line 1 column 28",
        ),
    ];
    for (route, rest) in JSON_ROUTES {
        for (start, what) in cases {
            let body = [start, rest.as_bytes()].concat();
            let reply = call(&app, post_request(route, body)).await;
            let (message, field) = reply.error(400, "malformed_json");
            assert_eq!(
                (message, field),
                (format!("the body is not valid JSON: {what}"), None),
                "{route} {}",
                String::from_utf8_lossy(start)
            );
        }
    }
}

#[tokio::test]
async fn a_control_character_in_a_text_row_is_422_on_every_board_route() {
    let app = router(config());
    // Every route that takes a board: all but `/v1/deal`.
    for (route, rest) in JSON_ROUTES
        .into_iter()
        .filter(|&(route, _)| route != "/v1/deal")
    {
        let body =
            format!(r#"{{"rules": "mahjong"{rest}"#).replace(r#"["XX"]"#, r#"["XX", "X\tX"]"#);
        let reply = call(&app, post_request(route, body)).await;
        let (message, field) = reply.error(422, "invalid_board");
        assert_eq!(
            (message.as_str(), field.as_deref()),
            (
                "row 1 has U+0009, a control character, at column 1, expected a tile character, or space or . for empty",
                Some("board[1][1]")
            ),
            "{route}"
        );
    }
    // Nor does a deal lay one.
    let reply = call(
        &app,
        post_request(
            "/v1/deal",
            r#"{"width": 2, "height": 2, "types": 1, "alphabet": "\t"}"#,
        ),
    )
    .await;
    let (message, field) = reply.error(422, "invalid_request");
    assert_eq!(
        (message.as_str(), field.as_deref()),
        (
            r#"`alphabet` has "\t" at 0, a control character, expected tile characters"#,
            Some("alphabet")
        )
    );
}

#[tokio::test]
async fn missing_or_other_content_type_is_415() {
    let app = router(config());
    let body = mahjong_sample().to_string();
    let without = Request::post("/v1/solve")
        .body(Body::from(body.clone()))
        .unwrap();
    let (message, field) = call(&app, without)
        .await
        .error(415, "unsupported_media_type");
    assert_eq!(message, "no Content-Type, expected application/json");
    assert_eq!(field, None);
    for other in ["text/plain", "application/x-www-form-urlencoded", "json"] {
        let request = Request::post("/v1/solve")
            .header("content-type", other)
            .body(Body::from(body.clone()))
            .unwrap();
        let (message, _) = call(&app, request)
            .await
            .error(415, "unsupported_media_type");
        names(&message, &[other, "expected application/json"]);
    }
    // Parameters, case and a +json suffix are all JSON.
    for json_type in [
        "application/json; charset=utf-8",
        "Application/JSON",
        "application/vnd.linkpath+json",
    ] {
        let request = Request::post("/v1/solve")
            .header("content-type", json_type)
            .body(Body::from(body.clone()))
            .unwrap();
        assert_eq!(
            call(&app, request).await.results(),
            mahjong_sample_results(),
            "{json_type}"
        );
    }
}

// ---------------------------------------------------------------- 413

fn small_body_limit(max: usize) -> Config {
    let mut config = config();
    config.request.max_body_bytes = max;
    config
}

#[tokio::test]
async fn body_over_the_limit_by_content_length_is_413() {
    let app = router(small_body_limit(100));
    let request = Request::post("/v1/solve")
        .header("content-type", "application/json")
        .header("content-length", "1000")
        .body(Body::from(vec![b' '; 1000]))
        .unwrap();
    let (message, field) = call(&app, request).await.error(413, "too_large");
    assert_eq!(
        message,
        "the body is 1000 bytes, over the limit of 100 bytes"
    );
    assert_eq!(field, None);
}

#[tokio::test]
async fn body_over_the_limit_while_streaming_is_413() {
    let app = router(small_body_limit(100));
    // A stream body has no length up front: the limit is found while reading.
    let stream = Body::from(vec![b' '; 1000]).into_data_stream();
    let request = Request::post("/v1/solve")
        .header("content-type", "application/json")
        .body(Body::from_stream(stream))
        .unwrap();
    let (message, field) = call(&app, request).await.error(413, "too_large");
    assert_eq!(
        message,
        "the body is more than 100 bytes, over the limit of 100 bytes"
    );
    assert_eq!(field, None);
}

#[tokio::test]
async fn body_exactly_at_the_limit_is_solved() {
    let body = mahjong_sample().to_string();
    let at = router(small_body_limit(body.len()));
    assert_eq!(
        call(&at, solve_request(body.clone())).await.results(),
        mahjong_sample_results()
    );
    let under = router(small_body_limit(body.len() - 1));
    let (message, _) = call(&under, solve_request(body.clone()))
        .await
        .error(413, "too_large");
    names(&message, &[&format!("limit of {} bytes", body.len() - 1)]);
}

#[tokio::test]
async fn too_many_cells_is_413_at_the_row_that_passes_the_limit() {
    let mut config = config();
    config.request.max_cells = 12;
    let app = router(config.clone());
    // 5 × 4 = 20 cells: rows 0 and 1 make 10, row 2 makes 15.
    let (message, field) = solve(&app, &mahjong_sample()).await.error(413, "too_large");
    assert_eq!(field.as_deref(), Some("board[2]"));
    names(&message, &["more than 12 cells"]);
    // The same in numbers.
    let numbers = sample_with(
        "board",
        json!([[1u32; 5], [1u32; 5], [1u32; 5], [0u32; 5]].to_vec()),
    );
    let (_, field) = solve(&app, &numbers).await.error(413, "too_large");
    assert_eq!(field.as_deref(), Some("board[2]"));
    // Exactly at the limit is fine.
    config.request.max_cells = 20;
    assert_eq!(
        solve(&router(config), &mahjong_sample()).await.results(),
        mahjong_sample_results()
    );
}

#[tokio::test]
async fn a_side_over_the_limit_is_413() {
    let mut config = config();
    config.request.max_side = 4;
    let app = router(config);
    // Five cells wide.
    let (message, field) = solve(&app, &mahjong_sample()).await.error(413, "too_large");
    assert_eq!(field.as_deref(), Some("board[0]"));
    names(&message, &["5 cells wide", "limit of 4"]);
    let (message, field) = solve(&app, &sample_with("board", json!([[1, 1, 1, 1, 1]])))
        .await
        .error(413, "too_large");
    assert_eq!(field.as_deref(), Some("board[0]"));
    names(&message, &["more than 4 cells wide"]);
    // Five rows.
    let tall = json!({"board": ["X", "X", "X", "X", "X"], "queries": []});
    let (message, field) = solve(&app, &tall).await.error(413, "too_large");
    assert_eq!(field.as_deref(), Some("board[4]"));
    names(&message, &["more than 4 rows"]);
}

#[tokio::test]
async fn too_many_queries_is_413() {
    let mut config = config();
    config.request.max_queries = 2;
    let app = router(config);
    let (message, field) = solve(&app, &mahjong_sample()).await.error(413, "too_large");
    assert_eq!(field.as_deref(), Some("queries"));
    names(&message, &["more than 2 queries"]);
    let mut two = mahjong_sample();
    two["queries"].as_array_mut().unwrap().pop();
    assert_eq!(
        solve(&app, &two).await.results(),
        json!([mahjong_sample_results()[0], mahjong_sample_results()[1]])
    );
}

// ------------------------------------------------- 422 invalid_board

#[tokio::test]
async fn a_ragged_text_row_names_its_row() {
    let message = unprocessable(
        sample_with("board", json!(["XXXXX", "X  X", "XXX X", " XXX "])),
        "invalid_board",
        "board[1]",
    )
    .await;
    assert_eq!(message, "row 1 has 4 cells, expected 5");
    let message = unprocessable(
        sample_with("board", json!(["XXXXX", "X   X", "XXX XX"])),
        "invalid_board",
        "board[2]",
    )
    .await;
    assert_eq!(message, "row 2 has 6 cells, expected 5");
}

#[tokio::test]
async fn a_ragged_number_row_names_its_row() {
    let message = unprocessable(
        sample_with("board", json!([[1, 1, 1, 1, 1], [1, 0, 0, 1]])),
        "invalid_board",
        "board[1]",
    )
    .await;
    assert_eq!(message, "row 1 has 4 cells, expected 5");
    let message = unprocessable(
        sample_with("board", json!([[1, 1], [1, 0, 0]])),
        "invalid_board",
        "board[1]",
    )
    .await;
    names(&message, &["row 1", "expected 2"]);
}

#[tokio::test]
async fn a_bad_cell_names_its_row_and_column() {
    for (cell, shown) in [
        (json!(-1), "-1"),
        (json!(1.5), "1.5"),
        (json!("X"), "\"X\""),
        (json!(null), "null"),
        (json!(4_294_967_296_u64), "4294967296"),
    ] {
        let board = json!([[1, 1, 1], [1, 0, cell]]);
        let message =
            unprocessable(sample_with("board", board), "invalid_board", "board[1][2]").await;
        names(&message, &[shown, "not a cell"]);
    }
}

#[tokio::test]
async fn other_board_mistakes_name_the_board() {
    let message = unprocessable(sample_with("board", json!([])), "invalid_board", "board").await;
    names(&message, &["empty"]);
    let message = unprocessable(
        sample_with("board", json!(["XX", ""])),
        "invalid_board",
        "board[1]",
    )
    .await;
    names(&message, &["row 1", "empty"]);
    let message = unprocessable(
        sample_with("board", json!(["XX", [1, 1]])),
        "invalid_board",
        "board[1]",
    )
    .await;
    names(&message, &["row 1", "like row 0"]);
    unprocessable(sample_with("board", json!("XX")), "invalid_board", "board").await;
    unprocessable(
        sample_with("board", json!(["XX", 7])),
        "invalid_board",
        "board[1]",
    )
    .await;
    let mut missing = mahjong_sample();
    missing.as_object_mut().unwrap().remove("board");
    let message = unprocessable(missing, "invalid_board", "board").await;
    names(&message, &["missing"]);
}

// ------------------------------------------------- 422 invalid_rules

#[tokio::test]
async fn an_unknown_preset_names_the_preset() {
    let message = unprocessable(
        sample_with("rules", json!("chess")),
        "invalid_rules",
        "rules",
    )
    .await;
    names(
        &message,
        &["`chess`", "mahjong", "shisen-sho", "lianliankan", "curling"],
    );
    let message = unprocessable(
        sample_with("rules", json!({"preset": "chess"})),
        "invalid_rules",
        "rules.preset",
    )
    .await;
    names(&message, &["`chess`"]);
}

#[tokio::test]
async fn a_bad_rules_field_is_named() {
    for (rules, field, named) in [
        (json!({"max_segments": 0}), "rules.max_segments", "0"),
        (
            json!({"movement": "slide", "outside": true}),
            "rules.outside",
            "outside",
        ),
        (json!({"colour": "red"}), "rules.colour", "colour"),
        (json!({"movement": "fly"}), "rules.movement", "fly"),
        (json!({"match": "some"}), "rules.match", "some"),
        (json!({"max_segments": -1}), "rules.max_segments", "-1"),
        (json!({"outside": "yes"}), "rules.outside", "yes"),
    ] {
        let message = unprocessable(sample_with("rules", rules), "invalid_rules", field).await;
        names(&message, &[named]);
    }
    unprocessable(sample_with("rules", json!(3)), "invalid_rules", "rules").await;
    let twice =
        r#"{"board": ["XX"], "rules": {"preset": "mahjong", "preset": "curling"}, "queries": []}"#;
    let (message, field) = post(twice).await.error(422, "invalid_rules");
    assert_eq!(field.as_deref(), Some("rules.preset"));
    names(&message, &["duplicate field"]);
}

#[tokio::test]
async fn max_segments_over_the_server_limit_is_422() {
    let mut config = config();
    config.request.max_segments = 50;
    let request = sample_with("rules", json!({"max_segments": 51}));
    let reply = solve(&router(config.clone()), &request).await;
    let (message, field) = reply.error(422, "invalid_rules");
    assert_eq!(field.as_deref(), Some("rules.max_segments"));
    names(&message, &["51", "50"]);
    let at = sample_with("rules", json!({"max_segments": 50}));
    assert_eq!(
        solve(&router(config), &at).await.results(),
        mahjong_sample_results()
    );
}

// ------------------------------------------------- 422 invalid_query

#[tokio::test]
async fn a_point_off_the_board_names_the_query_and_end() {
    let mut request = mahjong_sample();
    request["queries"][2]["to"] = json!([5, 0]);
    let message = unprocessable(request, "invalid_query", "queries[2].to").await;
    names(&message, &["[5, 0]", "5 x 4"]);
    let mut request = mahjong_sample();
    request["queries"][0]["from"] = json!([0, -1]);
    let message = unprocessable(request, "invalid_query", "queries[0].from").await;
    names(&message, &["[0, -1]"]);
    let mut request = mahjong_sample();
    request["queries"][1]["to"] = json!([0, 4]);
    unprocessable(request, "invalid_query", "queries[1].to").await;
    let mut request = mahjong_sample();
    request["queries"][1]["to"] = json!([i64::MAX, i64::MIN]);
    unprocessable(request, "invalid_query", "queries[1].to").await;
}

#[tokio::test]
async fn a_malformed_query_names_its_place() {
    for (query, field) in [
        (json!({"from": [1, 2]}), "queries[0].to"),
        (json!({"to": [1, 2]}), "queries[0].from"),
        (json!({"from": [1, 2], "to": [1]}), "queries[0].to"),
        (json!({"from": [1, 2, 3], "to": [1, 2]}), "queries[0].from"),
        (json!({"from": [1.5, 2], "to": [1, 2]}), "queries[0].from"),
        (json!({"from": "a1", "to": [1, 2]}), "queries[0].from"),
        (
            json!({"from": [1, 2], "to": [1, 2], "via": [0, 0]}),
            "queries[0].via",
        ),
    ] {
        unprocessable(
            sample_with("queries", json!([query])),
            "invalid_query",
            field,
        )
        .await;
    }
    unprocessable(
        sample_with("queries", json!({})),
        "invalid_query",
        "queries",
    )
    .await;
    let mut missing = mahjong_sample();
    missing.as_object_mut().unwrap().remove("queries");
    let message = unprocessable(missing, "invalid_query", "queries").await;
    names(&message, &["missing"]);
}

#[tokio::test]
async fn a_request_or_a_query_given_as_an_array_is_refused() {
    unprocessable(
        sample_with("queries", json!([[[1, 2], [4, 2]]])),
        "invalid_query",
        "queries[0]",
    )
    .await;
    let reply = call(
        &router(config()),
        crate::support::post_request("/v1/clear", json!(["AB"]).to_string()),
    )
    .await;
    let (_, field) = reply.error(422, "invalid_request");
    assert_eq!(field, None);
}

#[tokio::test]
async fn a_query_end_given_twice_is_refused() {
    // `board` or a rules field given twice is refused; a query end is not.
    let body = r#"{"board": ["XX"], "queries": [{"from": [0, 0], "to": [1, 0], "from": [1, 0]}]}"#;
    let (message, field) = post(body).await.error(422, "invalid_query");
    assert_eq!(field.as_deref(), Some("queries[0].from"));
    names(&message, &["duplicate field"]);
}

// ----------------------------------------------- 422 invalid_request

#[tokio::test]
async fn an_unknown_top_level_field_is_invalid_request() {
    let message = unprocessable(
        sample_with("colour", json!("red")),
        "invalid_request",
        "colour",
    )
    .await;
    names(&message, &["unknown field", "colour"]);
}

#[tokio::test]
async fn other_request_mistakes_are_invalid_request() {
    unprocessable(
        sample_with("include_path", json!("yes")),
        "invalid_request",
        "include_path",
    )
    .await;
    let twice = r#"{"board": ["XX"], "board": ["XX"], "queries": []}"#;
    let (message, field) = post(twice).await.error(422, "invalid_request");
    assert_eq!(field.as_deref(), Some("board"));
    names(&message, &["duplicate field"]);
    for not_an_object in ["[]", "null", "42", "\"board\""] {
        let (_, field) = post(not_an_object).await.error(422, "invalid_request");
        assert_eq!(field, None, "{not_an_object}");
    }
}

// ----------------------------------------------------------- 404, 405

/// Every route with a path parameter, as the file documents them, its
/// parameter `{name}`.
const PATH_ROUTES: [(&str, &str); 23] = [
    ("GET", "/v1/daily/{date}"),
    ("GET", "/v1/days/{date}/games/export"),
    ("GET", "/v1/games/{id}"),
    ("GET", "/v1/games/{id}/events"),
    ("POST", "/v1/games/{id}/hint"),
    ("POST", "/v1/games/{id}/moves"),
    ("POST", "/v1/games/{id}/pause"),
    ("POST", "/v1/games/{id}/redo"),
    ("GET", "/v1/games/{id}/replay"),
    ("POST", "/v1/games/{id}/resign"),
    ("POST", "/v1/games/{id}/resume"),
    ("POST", "/v1/games/{id}/shuffle"),
    ("POST", "/v1/games/{id}/undo"),
    ("GET", "/v1/leaderboards/{name}"),
    ("GET", "/v1/leaderboards/{name}/games/export"),
    ("GET", "/v1/matches/{id}"),
    ("GET", "/v1/matches/{id}/events"),
    ("POST", "/v1/matches/{id}/join"),
    ("POST", "/v1/matches/{id}/leave"),
    ("POST", "/v1/matches/{id}/rematch"),
    ("POST", "/v1/matches/{id}/start"),
    ("GET", "/v1/players/{id}/games"),
    ("GET", "/v1/players/{id}/games/export"),
];

#[test]
fn the_path_routes_are_every_documented_route_with_a_parameter() {
    let mut documented: Vec<(String, String)> = crate::support::spec()["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .filter(|(path, _)| path.contains('{'))
        .flat_map(|(path, item)| {
            item.as_object()
                .expect("a path item")
                .keys()
                .map(move |method| (method.to_ascii_uppercase(), path.clone()))
        })
        .collect();
    documented.sort_by(|a, b| a.1.cmp(&b.1));
    let listed: Vec<(String, String)> = PATH_ROUTES
        .iter()
        .map(|(method, path)| (method.to_string(), path.to_string()))
        .collect();
    assert_eq!(documented, listed);
}

/// A path parameter whose percent-encoding decodes to bytes that are not
/// UTF-8 is the JSON error on every route, never axum's plain-text 400.
#[tokio::test]
async fn a_path_parameter_that_is_not_utf8_is_a_json_422_on_every_route() {
    let app = router(config());
    for (method, template) in PATH_ROUTES {
        let (start, rest) = template.split_once('{').expect("a parameter");
        let (name, end) = rest.split_once('}').expect("a parameter");
        for not_utf8 in ["%ff", "%c3%28", "a%80b"] {
            let path = format!("{start}{not_utf8}{end}");
            let request = Request::builder()
                .method(method)
                .uri(&path)
                .header("content-type", "application/json")
                .body(Body::from("{}"))
                .unwrap();
            let reply = call(&app, request).await;
            assert_eq!(
                (reply.status, reply.header("content-type"), reply.json()),
                (
                    422,
                    Some("application/json"),
                    json!({"error": {
                        "code": "invalid_request",
                        "message": format!("`{name}` in the path is not UTF-8 once percent-decoded, expected percent-encoded UTF-8 text"),
                        "field": name
                    }})
                ),
                "{method} {path}"
            );
        }
    }
}

#[tokio::test]
async fn an_unknown_path_is_404() {
    let app = router(config());
    for path in ["/index.html", "/v1/solver", "/v2/solve", "/healthz/x"] {
        let (message, field) = call(&app, get(path)).await.error(404, "not_found");
        names(&message, &[path]);
        assert_eq!(field, None);
    }
}

#[tokio::test]
async fn a_wrong_method_is_405() {
    let app = router(config());
    let (message, field) = call(&app, get("/v1/solve"))
        .await
        .error(405, "method_not_allowed");
    names(&message, &["GET", "/v1/solve"]);
    assert_eq!(field, None);
    for (method, path) in [
        ("PUT", "/v1/solve"),
        ("DELETE", "/v1/solve"),
        ("POST", "/healthz"),
    ] {
        let request = Request::builder()
            .method(method)
            .uri(path)
            .header("content-type", "application/json")
            .body(Body::from("{}"))
            .unwrap();
        let (message, _) = call(&app, request).await.error(405, "method_not_allowed");
        names(&message, &[method, path]);
    }
}

#[tokio::test]
async fn a_405_says_which_methods_are_allowed() {
    // RFC 9110 §15.5.6: a 405 answer carries Allow.
    let app = router(config());
    let reply = call(&app, get("/v1/solve")).await;
    assert_eq!(reply.status, 405);
    assert_eq!(reply.header("allow"), Some("POST"));
}

#[tokio::test]
async fn every_answer_echoes_a_request_id() {
    let app = router(config());
    let with_id = |mut request: Request<Body>, id: &str| {
        request
            .headers_mut()
            .insert("x-request-id", id.parse().unwrap());
        request
    };
    for (request, status) in [
        (get("/nowhere"), 404),
        (get("/v1/solve"), 405),
        (solve_request("{"), 400),
        (Request::post("/v1/solve").body(Body::empty()).unwrap(), 415),
        (solve_request(mahjong_sample().to_string()), 200),
        (get("/healthz"), 200),
    ] {
        let reply = call(&app, with_id(request, "given-id-42")).await;
        assert_eq!(reply.status, status);
        assert_eq!(reply.header("x-request-id"), Some("given-id-42"));
    }
    let first = call(&app, get("/nowhere")).await;
    let second = call(&app, get("/nowhere")).await;
    let (a, b) = (first.header("x-request-id"), second.header("x-request-id"));
    assert!(a.is_some_and(|id| id.len() >= 16), "{a:?}");
    assert_ne!(a, b, "each request gets its own id");
}

// ---------------------------------------------------------- 503, 504

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_second_request_gets_503_while_the_only_worker_is_busy() {
    let mut config = config();
    config.workers = Some(1);
    config.request.solve_timeout_ms = 4000;
    let app = router(config);
    let send = || {
        let app = app.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            (solve(&app, &endless_curling()).await, started.elapsed())
        })
    };
    let busy = hold_the_slot_by(|| router_slot_free(&app), send).await;
    let shed = solve(&app, &mahjong_sample()).await;
    let (message, field) = shed.error(503, "overloaded");
    names(&message, &["1 solver slots are busy"]);
    assert_eq!(field, None);
    assert_eq!(shed.header("retry-after"), Some("1"));
    // The health routes are never shed.
    assert_eq!(call(&app, get("/healthz")).await.status, 200);
    // The 503 and the health answer came while the first request held the
    // slot: at once, not queued behind it.
    assert!(
        !busy.is_finished(),
        "the first request still holds the slot"
    );
    // The first request ends at its deadline and frees the slot.
    let (first, elapsed) = bounded("the busy request", busy).await.unwrap();
    first.error(504, "deadline_exceeded");
    // Timed from before the request: not before its deadline.
    assert!(elapsed >= Duration::from_millis(4000), "{elapsed:?}");
    assert_eq!(
        solve(&app, &mahjong_sample()).await.results(),
        mahjong_sample_results()
    );
}

/// A line search that takes seconds: a 300-wide serpentine corridor, the
/// ring closed, asked end to end (299 segments) 2,000 times.
fn serpentine_mahjong() -> Value {
    let (w, h) = (300, 301);
    let rows: Vec<String> = (0..h)
        .map(|y| {
            let gap = if (y / 2) % 2 == 0 { w - 1 } else { 0 };
            (0..w)
                .map(|x| if y % 2 == 0 || x == gap { ' ' } else { 'X' })
                .collect()
        })
        .collect();
    let query = json!({"from": [1, 1], "to": [1, h - 2]});
    json!({
        "board": rows,
        "rules": {"outside": false},
        "queries": vec![query; 2000],
        "include_path": false
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_solve_past_its_deadline_is_504_and_the_next_succeeds() {
    let mut config = config();
    config.workers = Some(1);
    config.request.solve_timeout_ms = 50;
    let app = router(config);
    for (name, heavy) in [("slide", endless_curling()), ("line", serpentine_mahjong())] {
        let started = Instant::now();
        let reply = solve(&app, &heavy).await;
        let took = started.elapsed();
        let (message, field) = reply.error(504, "deadline_exceeded");
        names(&message, &["deadline"]);
        assert_eq!(field, None);
        // Timed from before the request: not before its deadline.
        assert!(took >= Duration::from_millis(50), "{name}: {took:?}");
        // The search stops at its deadline and frees the one slot; on a
        // busy machine the 504 may arrive a moment before it does.
        let next = bounded("the slot freed", async {
            loop {
                let reply = solve(&app, &mahjong_sample()).await;
                if reply.status != 503 {
                    return reply;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await;
        assert_eq!(next.results(), mahjong_sample_results(), "{name}");
    }
}

/// A hard deal of 10,000 cells takes seconds: past a 50 ms deadline it is
/// a 504 that names the deal and what to ask instead, and the slot is free
/// for the next request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deal_past_its_deadline_is_504_naming_the_deal() {
    let hard = json!({
        "width": 100, "height": 100, "types": 2500, "rules": "shisen-sho",
        "encoding": "numbers", "difficulty": "hard", "include_moves": false
    });
    let small = json!({"width": 4, "height": 2, "types": 2, "rules": "shisen-sho"});
    deal_stops_at_its_deadline(&hard, &small).await;
}

/// A hard deal onto a layout of 9,000 marked cells (100 x 100, a column
/// of holes every ten) polls the same deadline: a 504 naming the deal,
/// and the slot free for the next request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deal_onto_a_layout_past_its_deadline_is_504() {
    let row: String = (0..100)
        .map(|x| if x % 10 == 5 { '.' } else { '#' })
        .collect();
    let hard = json!({
        "layout": vec![row; 100], "types": 2250, "rules": "shisen-sho",
        "encoding": "numbers", "difficulty": "hard", "include_moves": false
    });
    let small = json!({"layout": ["#..#", "####"], "types": 3, "rules": "shisen-sho"});
    deal_stops_at_its_deadline(&hard, &small).await;
}

/// `hard`, with one solver slot and a 50 ms deadline, is a 504 naming the
/// deal; the deal stopped there, so the slot is free for `small` at once.
async fn deal_stops_at_its_deadline(hard: &Value, small: &Value) {
    let mut config = config();
    config.workers = Some(1);
    config.request.solve_timeout_ms = 50;
    let app = router(config);
    let reply = crate::support::post(&app, "/v1/deal", hard).await;
    let (message, field) = reply.error(504, "deadline_exceeded");
    assert_eq!(
        message,
        "the deal did not finish within the server's deadline; ask a smaller board or an easier difficulty"
    );
    assert_eq!(field, None);
    let next = crate::support::post(&app, "/v1/deal", small).await;
    assert_eq!(next.status, 200);
}

// ------------------------------------------------------------- no 500

mod never_500 {
    use super::*;
    use proptest::prelude::*;

    /// A cell of a number row: mostly right, sometimes not a cell.
    fn cell() -> impl Strategy<Value = Value> {
        prop_oneof![
            300 => (0u32..3).prop_map(|n| json!(n)),
            1 => Just(json!(-1)),
            1 => Just(json!(1.5)),
            1 => Just(json!("1")),
            1 => Just(json!(null)),
            1 => Just(json!(u64::MAX)),
        ]
    }

    /// Mostly a rectangular board of 3..6 × 3..6 cells in either encoding;
    /// sometimes ragged, empty or not a board at all.
    fn board() -> impl Strategy<Value = Value> {
        let rectangle = (3usize..7, 3usize..7).prop_flat_map(|(w, h)| {
            prop_oneof![
                prop::collection::vec(
                    prop::string::string_regex(&format!("[ .XA1]{{{w}}}")).unwrap(),
                    h
                )
                .prop_map(|rows| json!(rows)),
                prop::collection::vec(prop::collection::vec(cell(), w), h)
                    .prop_map(|rows| json!(rows)),
            ]
        });
        prop_oneof![
            30 => rectangle,
            1 => prop::collection::vec("[ .XA1]{0,5}", 0..5).prop_map(|rows| json!(rows)),
            1 => prop::collection::vec(prop::collection::vec(cell(), 0..5), 0..5)
                .prop_map(|rows| json!(rows)),
            1 => Just(json!("XX")),
            1 => Just(json!([["X"], "X"])),
        ]
    }

    fn rules() -> impl Strategy<Value = Value> {
        let preset = prop_oneof![
            4 => Just("mahjong"),
            4 => Just("shisen-sho"),
            4 => Just("lianliankan"),
            4 => Just("curling"),
            1 => Just("chess"),
        ];
        let field = prop_oneof![
            Just(("movement", json!("line"))),
            Just(("movement", json!("slide"))),
            Just(("movement", json!("line"))),
            Just(("movement", json!(7))),
            Just(("max_segments", json!(null))),
            Just(("max_segments", json!(0))),
            Just(("max_segments", json!(3))),
            Just(("max_segments", json!(-3))),
            Just(("outside", json!(true))),
            Just(("outside", json!(false))),
            Just(("match", json!("same"))),
            Just(("match", json!("any"))),
            Just(("colour", json!("red"))),
        ];
        prop_oneof![
            4 => preset.clone().prop_map(|p| json!(p)),
            4 => (prop::option::of(preset), prop::collection::vec(field, 0..4)).prop_map(
                |(preset, fields)| {
                    let mut object = serde_json::Map::new();
                    if let Some(p) = preset {
                        object.insert("preset".into(), json!(p));
                    }
                    for (k, v) in fields {
                        object.insert(k.into(), v);
                    }
                    Value::Object(object)
                }
            ),
            1 => Just(json!(null)),
        ]
    }

    fn point() -> impl Strategy<Value = Value> {
        prop_oneof![
            30 => (0i64..3, 0i64..3).prop_map(|(x, y)| json!([x, y])),
            3 => (-1i64..7, -1i64..7).prop_map(|(x, y)| json!([x, y])),
            1 => Just(json!([1])),
            1 => Just(json!("a")),
            1 => Just(json!([i64::MIN, 0])),
        ]
    }

    fn query() -> impl Strategy<Value = Value> {
        prop_oneof![
            30 => (point(), point()).prop_map(|(f, t)| json!({"from": f, "to": t})),
            1 => point().prop_map(|f| json!({"from": f})),
            1 => Just(json!([0, 0])),
        ]
    }

    fn request() -> impl Strategy<Value = Value> {
        (
            prop::option::weighted(0.97, board()),
            prop::option::weighted(0.9, rules()),
            prop::option::weighted(0.97, prop::collection::vec(query(), 0..4)),
            prop::option::of(prop_oneof![
                Just(json!(true)),
                Just(json!(false)),
                Just(json!(1))
            ]),
            prop::bool::weighted(0.05),
        )
            .prop_map(|(board, rules, queries, include_path, extra)| {
                let mut object = serde_json::Map::new();
                for (key, value) in [
                    ("board", board),
                    ("rules", rules),
                    ("queries", queries.map(Value::from)),
                    ("include_path", include_path),
                ] {
                    if let Some(value) = value {
                        object.insert(key.into(), value);
                    }
                }
                if extra {
                    object.insert("extra".into(), json!(1));
                }
                Value::Object(object)
            })
    }

    /// The statuses a solve may answer, by code.
    fn status_of(code: &str) -> u16 {
        match code {
            "malformed_json" => 400,
            "too_large" => 413,
            "invalid_board" | "invalid_rules" | "invalid_query" | "invalid_request" => 422,
            "overloaded" => 503,
            "deadline_exceeded" => 504,
            other => panic!("unexpected code {other}"),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        #[test]
        fn no_request_is_answered_500(request in request(), cut in 0usize..200) {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let mut config = config();
            config.request.solve_timeout_ms = 100;
            let app = router(config);
            let text = request.to_string();
            // Sometimes the body is cut short too.
            let body = if cut < 5 { text[..text.len() * cut / 5].to_owned() } else { text };
            let reply = runtime.block_on(call(&app, solve_request(body.clone())));
            if reply.status == 200 {
                let queries = request["queries"].as_array().map_or(0, Vec::len);
                prop_assert_eq!(reply.json()["results"].as_array().map(Vec::len), Some(queries));
            } else {
                let json = reply.json();
                let code = json["error"]["code"].as_str().unwrap_or("none").to_owned();
                prop_assert_eq!(reply.status, status_of(&code), "{} -> {}", body, json);
            }
        }
    }
}
