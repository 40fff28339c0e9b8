//! The two parsers that read untrusted bytes, fed arbitrary bytes, token
//! soup and mangled valid inputs: `http::wire::decode_solve` (the body of
//! `/v1/solve`) and `judge::run` (the judges' text formats).
//!
//! Neither may panic. What they accept must respect the limits; what they
//! refuse must say so properly: the decoder with a 400, 413 or 422 error,
//! a judge with the number of a line the input has.

use linkpath::http::ErrorCode;
use linkpath::http::wire::{Limits, decode_solve};
use linkpath::judge::{self, Format};
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

/// A mutation of a valid input: the mutated byte strings stay close to
/// what the parser expects, so they get past its first checks.
#[derive(Clone, Debug)]
enum Mutation {
    /// Overwrites a byte.
    Set(usize, u8),
    /// Drops up to n bytes.
    Delete(usize, usize),
    /// Inserts one of the tokens.
    Insert(usize, usize),
    /// Repeats up to n bytes in place.
    Duplicate(usize, usize),
    /// Cuts the input short.
    Truncate(usize),
}

fn mutations(tokens: usize) -> impl Strategy<Value = Vec<Mutation>> {
    let one = prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Set(i, b)),
        (any::<usize>(), 1usize..8).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<usize>(), 0..tokens).prop_map(|(i, t)| Mutation::Insert(i, t)),
        (any::<usize>(), 1usize..40).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ];
    prop::collection::vec(one, 1..5)
}

fn mutate(mut input: Vec<u8>, mutations: &[Mutation], tokens: &[&str]) -> Vec<u8> {
    for mutation in mutations {
        let at = |i: usize| i % (input.len() + 1);
        match *mutation {
            Mutation::Set(i, b) => {
                if !input.is_empty() {
                    let i = i % input.len();
                    input[i] = b;
                }
            }
            Mutation::Delete(i, n) => {
                let i = at(i);
                input.drain(i..(i + n).min(input.len()));
            }
            Mutation::Insert(i, t) => {
                let i = at(i);
                input.splice(i..i, tokens[t].bytes());
            }
            Mutation::Duplicate(i, n) => {
                let i = at(i);
                let end = (i + n).min(input.len());
                let piece = input[i..end].to_vec();
                input.splice(end..end, piece);
            }
            Mutation::Truncate(i) => input.truncate(at(i)),
        }
    }
    input
}

// ------------------------------------------------------------ decode_solve

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
    match decode_solve(body, &limits) {
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
                matches!(e.status().as_u16(), 400 | 413 | 422),
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
        if let Err(e) = decode_solve(value.to_string().as_bytes(), &limits()) {
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
        let e = decode_solve(body.as_bytes(), &limits()).expect_err("not a cell");
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
        for value in ["7", "null", "true", "[\"line\"]", "{}"] {
            let body =
                format!(r#"{{"board": ["XX"], "rules": {{"{field}": {value}}}, "queries": []}}"#);
            let e = decode_solve(body.as_bytes(), &limits()).expect_err("not a name");
            assert_eq!(
                (e.code, e.field.as_deref()),
                (
                    ErrorCode::InvalidRules,
                    Some(format!("rules.{field}").as_str())
                ),
                "{body}: {e}"
            );
        }
    }
    // A string that is not a name is refused the same way, naming it.
    let body = r#"{"board": ["XX"], "rules": {"movement": "fly"}, "queries": []}"#;
    let e = decode_solve(body.as_bytes(), &limits()).expect_err("not a name");
    assert_eq!(
        (e.code, e.message.as_str(), e.field.as_deref()),
        (
            ErrorCode::InvalidRules,
            "unknown movement \"fly\", expected line or slide",
            Some("rules.movement")
        )
    );
}

// ------------------------------------------------------------ judge::run

/// Each format's sample input (tests/data) and its expected output.
fn samples() -> [(Format, &'static [u8], &'static str); 4] {
    [
        (
            Format::Mahjong,
            include_bytes!("data/mahjong.in"),
            include_str!("data/mahjong.out"),
        ),
        (
            Format::Poj1101,
            include_bytes!("data/poj1101.in"),
            include_str!("data/poj1101.out"),
        ),
        (
            Format::Hdu1175,
            include_bytes!("data/hdu1175.in"),
            include_str!("data/hdu1175.out"),
        ),
        (
            Format::Poj3009,
            include_bytes!("data/poj3009.in"),
            include_str!("data/poj3009.out"),
        ),
    ]
}

/// Pieces of judge input. Numbers stay small: the formats take boards "of
/// any size memory allows", and `536870911 8` over eight empty lines is a
/// 17 GB board that a fuzz run on a shared machine must not build.
const JUDGE_TOKENS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "12",
    "-1",
    "999",
    "2147483647",
    "99999999999999999999",
    " ",
    "\t",
    "\n",
    "\r\n",
    "\n\n",
    "X",
    "XXXXX",
    " XX ",
    "0 0",
    "0 0 0 0",
    "1 1 2 1",
    "中",
    "\u{0}",
    "\u{FEFF}",
    "\u{FFFD}",
];

/// No number above 9999 that a judge would take as a size: see
/// [`JUDGE_TOKENS`]. Ten digits or more without a leading zero are over
/// every size limit and refused as such.
fn small_numbers(input: &[u8]) -> bool {
    input
        .split(|b| !b.is_ascii_digit())
        .all(|run| run.len() <= 4 || (run.len() >= 10 && run[0] != b'0'))
}

/// Runs every format on `input`: no panic, and an error names a line the
/// input has.
fn check_judged(input: &[u8]) -> Result<(), TestCaseError> {
    let lines = input.iter().filter(|&&b| b == b'\n').count() + 1;
    for format in Format::ALL {
        if let Err(e) = judge::run(format, input) {
            prop_assert!(
                (1..=lines).contains(&e.line),
                "{}: line {} of {lines}: {}",
                format.name(),
                e.line,
                e.message
            );
            prop_assert!(!e.message.is_empty());
        }
    }
    Ok(())
}

#[test]
fn the_judge_seeds_answer_their_samples() {
    for (format, input, output) in samples() {
        assert_eq!(
            judge::run(format, input).as_deref(),
            Ok(output),
            "{}",
            format.name()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 5_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic_a_judge(
        input in prop::collection::vec(any::<u8>(), 0..512).prop_filter("small numbers", |i| small_numbers(i)),
    ) {
        check_judged(&input)?;
    }

    #[test]
    fn judge_token_soup_never_panics_a_judge(
        input in prop::collection::vec(prop::sample::select(JUDGE_TOKENS), 0..80)
            .prop_map(|t| t.concat().into_bytes())
            .prop_filter("small numbers", |i| small_numbers(i)),
    ) {
        check_judged(&input)?;
    }

    #[test]
    fn mangled_judge_samples_never_panic_a_judge(
        input in (0..4usize, mutations(JUDGE_TOKENS.len()))
            .prop_map(|(s, m)| mutate(samples()[s].1.to_vec(), &m, JUDGE_TOKENS))
            .prop_filter("small numbers", |i| small_numbers(i)),
    ) {
        check_judged(&input)?;
    }
}
