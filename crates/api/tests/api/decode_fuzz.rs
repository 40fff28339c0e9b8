//! The request decoder, which reads untrusted bytes, fed arbitrary bytes,
//! token soup, mangled valid bodies and JSON made of the request's own
//! words (`SolveRequest::decode`, the body of `/v1/solve` and
//! `/v1/render`).
//!
//! It may not panic. What it accepts must respect the limits; what it
//! refuses must say so properly: a 400, 413 or 422 error naming the field.

use linkpath_api::{ErrorCode, Limits, SolveRequest};
use linkpath_testkit::mutate::{mutate, mutations};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Small limits, so that mangled inputs reach them.
fn limits() -> Limits {
    Limits {
        max_cells: 64,
        max_side: 16,
        max_queries: 4,
        max_segments: 20,
        max_moves: 4,
        max_render_cells: 64,
        picture: false,
    }
}

/// Valid bodies, in both board forms and every rules form.
fn bodies() -> Vec<Vec<u8>> {
    [
        json!({"board": ["XXXXX", "X   X", "XXX X", " XXX "], "rules": "mahjong",
               "queries": [{"from": [1, 2], "to": [4, 2]}, {"from": [0, 2], "to": [3, 3]}]}),
        json!({"board": [[0, 0, 1], [0, 1, 0]], "rules": "curling",
               "queries": [{"from": [0, 0], "to": [2, 0]}]}),
        json!({"board": ["AB.A", "B..C", "ACBA"], "include_path": false,
               "rules": {"preset": "shisen-sho", "movement": "line", "max_segments": 3,
                         "outside": true, "match": "same"},
               "queries": [{"from": [0, 0], "to": [3, 0]}]}),
        json!({"board": ["中文", "字 "], "rules": {"movement": "slide", "max_segments": null},
               "queries": []}),
    ]
    .iter()
    .map(|v| v.to_string().into_bytes())
    .collect()
}

/// JSON pieces for the token soup and the insertions.
const JSON_TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    " ",
    "null",
    "true",
    "false",
    "0",
    "1",
    "-1",
    "7",
    "4294967295",
    "4294967296",
    "18446744073709551616",
    "-9223372036854775809",
    "1e999",
    "0.5",
    "-0",
    "\"\\ud800\"",
    "\"\\u0000\"",
    "\"\\n\"",
    "\"board\"",
    "\"rules\"",
    "\"queries\"",
    "\"include_path\"",
    "\"from\"",
    "\"to\"",
    "\"preset\"",
    "\"movement\"",
    "\"max_segments\"",
    "\"outside\"",
    "\"match\"",
    "\"mahjong\"",
    "\"curling\"",
    "\"lianliankan\"",
    "\"slide\"",
    "\"line\"",
    "\"same\"",
    "\"any\"",
    "\"XX\"",
    "\"X.\"",
    "\"\"",
    "[0,1]",
    "[[1,2]]",
    "[[]]",
    "{\"a\":1}",
    "\u{1F600}",
    "\u{0}",
    "\u{FEFF}",
];

/// Checks what the decoder made of `body`: an accepted request within the
/// limits, or a body error with the status of its code.
fn check_decoded(body: &[u8]) -> Result<(), TestCaseError> {
    let limits = limits();
    match SolveRequest::decode(body, &limits) {
        Ok(request) => {
            let (w, h) = (request.board.width(), request.board.height());
            prop_assert!(w >= 1 && h >= 1);
            prop_assert!(w <= limits.max_side && h <= limits.max_side, "{w} x {h}");
            prop_assert!(w * h <= limits.max_cells, "{w} x {h}");
            prop_assert!(request.queries.len() <= limits.max_queries);
            prop_assert!(
                request
                    .rules
                    .max_segments
                    .is_none_or(|m| (1..=limits.max_segments).contains(&m)),
                "{:?}",
                request.rules
            );
        }
        Err(e) => {
            prop_assert!(
                matches!(e.status(), 400 | 413 | 422),
                "{e} answered {}",
                e.status()
            );
            prop_assert!(!e.message.is_empty());
            // `field` names the place at fault; it is empty only when that
            // place is an unknown top-level field named "".
            prop_assert!(
                e.field.as_ref().is_none_or(|f| !f.is_empty())
                    || e.message.starts_with("unknown field ``"),
                "{e}"
            );
            prop_assert_eq!(e.retry_after, None);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic_the_decoder(body in prop::collection::vec(any::<u8>(), 0..1024)) {
        check_decoded(&body)?;
    }

    #[test]
    fn json_token_soup_never_panics_the_decoder(
        tokens in prop::collection::vec(prop::sample::select(JSON_TOKENS), 0..60),
    ) {
        check_decoded(tokens.concat().as_bytes())?;
    }

    #[test]
    fn mangled_valid_bodies_never_panic_the_decoder(
        seed in 0..bodies().len(),
        mutations in mutations(JSON_TOKENS.len()),
    ) {
        check_decoded(&mutate(bodies()[seed].clone(), &mutations, JSON_TOKENS))?;
    }
}

const WORDS: &[&str] = &["XX", " X", "", "mahjong", "curling", "slide", "same"];
const KEYS: &[&str] = &[
    "board",
    "rules",
    "queries",
    "include_path",
    "from",
    "to",
    "preset",
    "max_segments",
    "movement",
    "match",
    "outside",
    "x",
];

/// Any JSON value made of the request's own vocabulary, nested a little.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(Value::from),
        (-2i64..5).prop_map(Value::from),
        Just(json!(u64::MAX)),
        Just(json!(0.5)),
        prop::sample::select(WORDS).prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 40, 4, |inner| {
        let key = prop::sample::select(KEYS);
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(key, inner, 0..4).prop_map(|m| {
                Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, failure_persistence: None, ..ProptestConfig::default() })]

    /// 400 `malformed_json` is for bytes that are not JSON; valid JSON that
    /// is not a valid request is 413 or 422, naming the field.
    #[test]
    fn valid_json_is_never_called_malformed(value in json_value()) {
        check_decoded(value.to_string().as_bytes())?;
        if let Err(e) = SolveRequest::decode(value.to_string().as_bytes(), &limits()) {
            prop_assert_ne!(e.code, ErrorCode::MalformedJson, "{} for {}", e, value);
        }
    }
}

#[test]
fn a_non_empty_array_or_object_as_a_cell_is_an_invalid_board() {
    for (cell, what) in [
        ("[]", "an array"),
        ("[2]", "an array"),
        ("{\"a\": 1}", "an object"),
    ] {
        let body = format!(r#"{{"board": [[1, {cell}]], "queries": []}}"#);
        let e = SolveRequest::decode(body.as_bytes(), &limits()).expect_err("not a cell");
        assert_eq!(
            (e.code, e.message.as_str(), e.field.as_deref()),
            (
                ErrorCode::InvalidBoard,
                format!(
                    "{what} is not a cell, expected 0 (empty) or a tile type from 1 to 4294967295"
                )
                .as_str(),
                Some("board[0][1]")
            ),
            "{body}"
        );
    }
}

#[test]
fn a_movement_or_match_that_is_not_a_string_is_invalid_rules() {
    for field in ["movement", "match"] {
        for value in ["7", "true", "[\"line\"]", "{}"] {
            let body =
                format!(r#"{{"board": ["XX"], "rules": {{"{field}": {value}}}, "queries": []}}"#);
            let e = SolveRequest::decode(body.as_bytes(), &limits()).expect_err("not a name");
            // An object for `match` is read as its groups.
            let at = match (field, value) {
                ("match", "{}") => "rules.match.groups".to_owned(),
                _ => format!("rules.{field}"),
            };
            assert_eq!(
                (e.code, e.field.as_deref()),
                (ErrorCode::InvalidRules, Some(at.as_str())),
                "{body}: {e}"
            );
        }
    }
    // `null` is the field left out.
    for field in ["movement", "match"] {
        let body = format!(r#"{{"board": ["XX"], "rules": {{"{field}": null}}, "queries": []}}"#);
        let request = SolveRequest::decode(body.as_bytes(), &limits()).expect("null is absent");
        assert_eq!(
            request.rules,
            linkpath_engine::Preset::Mahjong.rules(),
            "{body}"
        );
    }
    // A string that is not a name is refused the same way, naming it.
    let body = r#"{"board": ["XX"], "rules": {"movement": "fly"}, "queries": []}"#;
    let e = SolveRequest::decode(body.as_bytes(), &limits()).expect_err("not a name");
    assert_eq!(
        (e.code, e.message.as_str(), e.field.as_deref()),
        (
            ErrorCode::InvalidRules,
            "unknown variant `fly`, expected `line` or `slide`",
            Some("rules.movement")
        )
    );
}
