//! The decoder's errors, each with its exact body: the code, the message
//! and the field path (`board[3]`, `queries[2].to`, `rules.max_segments`).
//! Board errors, off-board points and the rules' own checks have messages
//! of their own; fields that serde derive reads have serde's wording.

use crate::support::body;
use linkpath_api::{Limits, SolveRequest};

/// The status and error body `request` is refused with, under the
/// server's defaults.
fn refusal(request: &str) -> (u16, String) {
    match SolveRequest::decode(request.as_bytes(), &Limits::default()) {
        Ok(decoded) => panic!("{request} was accepted: {decoded:?}"),
        Err(e) => (e.status(), body(&e)),
    }
}

fn check(cases: &[(&str, u16, &str)]) {
    for &(request, status, expected) in cases {
        assert_eq!(refusal(request), (status, expected.to_owned()), "{request}");
    }
}

/// Three queries, the last one as given.
fn third_query(query: &str) -> String {
    format!(
        r#"{{"board": ["XX"], "queries": [{{"from": [0, 0], "to": [1, 0]}}, {{"from": [1, 0], "to": [0, 0]}}, {query}]}}"#
    )
}

#[test]
fn board_errors_name_the_row_or_cell() {
    check(&[
        (
            r#"{"board": ["XX", "XX", "XX", "X"], "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_board","message":"row 3 has 1 cell, expected 2","field":"board[3]"}}"#,
        ),
        (
            r#"{"board": ["XX", "XX", "XX", ""], "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_board","message":"row 3 is empty, expected at least one cell","field":"board[3]"}}"#,
        ),
        (
            r#"{"board": ["XX", "XX", "XX", [1, 2]], "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_board","message":"row 3 is an array of numbers, expected a string like row 0","field":"board[3]"}}"#,
        ),
        (
            r#"{"board": [[1, 2], [1, 2], [1, 2], [1, 2, 3]], "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_board","message":"row 3 has more than 2 cells, expected 2","field":"board[3]"}}"#,
        ),
        (
            r#"{"board": [[1, 2], [1, 2], [1, 2], [1, -2]], "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_board","message":"-2 is not a cell, expected 0 (empty) or a tile type from 1 to 4294967295","field":"board[3][1]"}}"#,
        ),
        (
            r#"{"board": ["XX", "XX", "XX", 7], "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_board","message":"invalid type: integer `7`, expected a row: a string, or an array of non-negative integers","field":"board[3]"}}"#,
        ),
        (
            r#"{"board": [], "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_board","message":"the board is empty, expected at least one row and one column","field":"board"}}"#,
        ),
        (
            r#"{"board": "XX", "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_board","message":"invalid type: string \"XX\", expected an array of rows: strings, or arrays of non-negative integers","field":"board"}}"#,
        ),
        (
            r#"{"queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_board","message":"missing field `board`","field":"board"}}"#,
        ),
    ]);
}

#[test]
fn query_errors_name_the_query_and_its_end() {
    let cases = [
        (
            third_query(r#"{"from": [0, 0], "to": [2, 0]}"#),
            r#"{"error":{"code":"invalid_query","message":"[2, 0] is off the 2 x 1 board, expected x from 0 to 1 and y from 0 to 0","field":"queries[2].to"}}"#,
        ),
        (
            third_query(r#"{"from": [-1, 0], "to": [1, 0]}"#),
            r#"{"error":{"code":"invalid_query","message":"[-1, 0] is off the 2 x 1 board, expected x from 0 to 1 and y from 0 to 0","field":"queries[2].from"}}"#,
        ),
        (
            third_query(r#"{"from": [0, 0], "to": [1]}"#),
            r#"{"error":{"code":"invalid_query","message":"the point has one number, expected a point [x, y] of two integers","field":"queries[2].to"}}"#,
        ),
        (
            third_query(r#"{"from": [0, 0], "to": "a"}"#),
            r#"{"error":{"code":"invalid_query","message":"invalid type: string \"a\", expected a sequence","field":"queries[2].to"}}"#,
        ),
        (
            third_query(r#"{"from": [0, 0], "to": [1, 0.5]}"#),
            r#"{"error":{"code":"invalid_query","message":"0.5 is not an integer, expected a point [x, y] of two integers","field":"queries[2].to"}}"#,
        ),
        (
            third_query(r#"{"from": [0, 0]}"#),
            r#"{"error":{"code":"invalid_query","message":"missing field `to`","field":"queries[2].to"}}"#,
        ),
        (
            third_query(r#"{"from": [0, 0], "to": [1, 0], "via": [0, 1]}"#),
            r#"{"error":{"code":"invalid_query","message":"unknown field `via`, expected `from` or `to`","field":"queries[2].via"}}"#,
        ),
        (
            third_query(r#"{"from": [0, 0], "to": [1, 0], "from": [1, 0]}"#),
            r#"{"error":{"code":"invalid_query","message":"duplicate field `from`","field":"queries[2].from"}}"#,
        ),
        (
            r#"{"board": ["XX"]}"#.to_owned(),
            r#"{"error":{"code":"invalid_query","message":"missing field `queries`","field":"queries"}}"#,
        ),
    ];
    for (request, expected) in cases {
        assert_eq!(refusal(&request), (422, expected.to_owned()), "{request}");
    }
}

#[test]
fn rules_errors_name_the_rules_field() {
    check(&[
        (
            r#"{"board": ["XX"], "rules": {"max_segments": 0}, "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_rules","message":"max_segments is 0, expected at least 1 or null for no limit","field":"rules.max_segments"}}"#,
        ),
        (
            r#"{"board": ["XX"], "rules": {"max_segments": 100001}, "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_rules","message":"max_segments is 100001, over this server's limit of 100000","field":"rules.max_segments"}}"#,
        ),
        (
            r#"{"board": ["XX"], "rules": {"max_segments": "3"}, "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_rules","message":"invalid type: string \"3\", expected u32","field":"rules.max_segments"}}"#,
        ),
        (
            r#"{"board": ["XX"], "rules": {"max_segments": -1}, "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_rules","message":"invalid value: integer `-1`, expected u32","field":"rules.max_segments"}}"#,
        ),
        (
            r#"{"board": ["XX"], "rules": {"movement": "fly"}, "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_rules","message":"unknown variant `fly`, expected `line` or `slide`","field":"rules.movement"}}"#,
        ),
        (
            r#"{"board": ["XX"], "rules": {"match": 7}, "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_rules","message":"invalid type: integer `7`, expected \"any\", \"same\" or an object {\"groups\": [...]}","field":"rules.match"}}"#,
        ),
        (
            r#"{"board": ["XX"], "rules": {"preset": 7}, "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_rules","message":"invalid type: integer `7`, expected a string","field":"rules.preset"}}"#,
        ),
        (
            r#"{"board": ["XX"], "rules": {"movement": "slide", "outside": true}, "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_rules","message":"outside is true with slide movement, expected false: a sliding stone that leaves the board is lost","field":"rules.outside"}}"#,
        ),
        (
            r#"{"board": ["XX"], "rules": {"speed": 1}, "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_rules","message":"unknown field `speed`, expected one of `preset`, `movement`, `max_segments`, `outside`, `match`","field":"rules.speed"}}"#,
        ),
        (
            r#"{"board": ["XX"], "rules": {"preset": "mahjong", "preset": "curling"}, "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_rules","message":"duplicate field `preset`","field":"rules.preset"}}"#,
        ),
        (
            r#"{"board": ["XX"], "rules": "go", "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_rules","message":"unknown variant `go`, expected one of `mahjong`, `shisen-sho`, `lianliankan`, `curling`","field":"rules"}}"#,
        ),
        (
            r#"{"board": ["XX"], "rules": 7, "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_rules","message":"invalid type: integer `7`, expected a preset name or an object {preset, movement, max_segments, outside, match}","field":"rules"}}"#,
        ),
    ]);
    // A rink of 1001 blocks with no throw limit: deeper than the stack.
    let rink = format!(
        r#"{{"board": ["{}"], "rules": {{"movement": "slide", "max_segments": null}}, "queries": []}}"#,
        "X".repeat(1001)
    );
    assert_eq!(
        refusal(&rink),
        (
            422,
            r#"{"error":{"code":"invalid_rules","message":"slide rules allow 1002 throws on this board of 1001 blocks, over the limit of 1000: set max_segments to at most 1000","field":"rules.max_segments"}}"#.to_owned()
        )
    );
}

#[test]
fn other_mistakes_are_invalid_request_or_malformed_json() {
    check(&[
        (
            r#"{"board": ["XX"], "queries": [], "extra": 1}"#,
            422,
            r#"{"error":{"code":"invalid_request","message":"unknown field `extra`, expected one of `board`, `rules`, `queries`, `include_path`","field":"extra"}}"#,
        ),
        (
            r#"{"board": ["XX"], "queries": [], "include_path": 1}"#,
            422,
            r#"{"error":{"code":"invalid_request","message":"invalid type: integer `1`, expected a boolean","field":"include_path"}}"#,
        ),
        (
            r#"{"board": ["XX"], "board": ["XX"], "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_request","message":"duplicate field `board`","field":"board"}}"#,
        ),
        (
            r#"{"board": ["XX"], "queries": []"#,
            400,
            r#"{"error":{"code":"malformed_json","message":"the body is not valid JSON: EOF while parsing an object at line 1 column 31"}}"#,
        ),
        (
            r#"{"board": ["XX"], "queries": []} x"#,
            400,
            r#"{"error":{"code":"malformed_json","message":"the body is not valid JSON: trailing characters at line 1 column 34"}}"#,
        ),
    ]);
}

#[test]
fn null_is_an_absent_field_and_a_null_max_segments_no_limit() {
    let decode = |request: &str| SolveRequest::decode(request.as_bytes(), &Limits::default());
    let request = decode(
        r#"{"board": ["XX"], "rules": {"movement": null, "match": null}, "queries": [], "include_path": null}"#,
    )
    .unwrap();
    assert_eq!(
        (request.rules, request.include_path),
        (linkpath_engine::Preset::Mahjong.rules(), true)
    );
    let request = decode(
        r#"{"board": ["XX"], "rules": {"preset": "shisen-sho", "max_segments": null}, "queries": []}"#,
    )
    .unwrap();
    assert_eq!(request.rules.max_segments, None);
}

/// The status and error body `request`'s bytes are refused with.
fn refusal_of_bytes(request: &[u8]) -> (u16, String) {
    match SolveRequest::decode(request, &Limits::default()) {
        Ok(decoded) => panic!("{request:?} was accepted: {decoded:?}"),
        Err(e) => (e.status(), body(&e)),
    }
}

#[test]
fn what_serde_json_refuses_inside_a_string_or_number_is_400_naming_it_and_where() {
    check(&[
        (
            r#"{"board": ["\ud800"], "queries": []}"#,
            400,
            r#"{"error":{"code":"malformed_json","message":"the body is not valid JSON: \\ud800 is half of a UTF-16 surrogate pair, expected both halves at line 1 column 13"}}"#,
        ),
        (
            r#"{"board": ["X\uDC00"], "queries": []}"#,
            400,
            r#"{"error":{"code":"malformed_json","message":"the body is not valid JSON: \\uDC00 is half of a UTF-16 surrogate pair, expected both halves at line 1 column 14"}}"#,
        ),
        (
            r#"{"board": ["\ud800\u0041"], "queries": []}"#,
            400,
            r#"{"error":{"code":"malformed_json","message":"the body is not valid JSON: \\ud800 is half of a UTF-16 surrogate pair, expected both halves at line 1 column 13"}}"#,
        ),
        (
            "{\"board\": [\"XX\"],\n \"rules\": {\"max_segments\": 1e400}, \"queries\": []}",
            400,
            r#"{"error":{"code":"malformed_json","message":"the body is not valid JSON: the number 1e400 is out of range at line 2 column 28"}}"#,
        ),
        (
            &format!(
                r#"{{"board": ["XX"], "queries": [{{"from": [1{}, 0], "to": [0, 0]}}]}}"#,
                "0".repeat(400)
            ),
            400,
            r#"{"error":{"code":"malformed_json","message":"the body is not valid JSON: the number 100000000000000000000000… is out of range at line 1 column 41"}}"#,
        ),
        // Found past a mistake the decode stopped at: the body is not JSON
        // whatever else is wrong with it.
        (
            r#"{"board": 7, "queries": [], "rules": "\udfff"}"#,
            400,
            r#"{"error":{"code":"malformed_json","message":"the body is not valid JSON: \\udfff is half of a UTF-16 surrogate pair, expected both halves at line 1 column 39"}}"#,
        ),
        (
            r#"["\ud800"]"#,
            400,
            r#"{"error":{"code":"malformed_json","message":"the body is not valid JSON: \\ud800 is half of a UTF-16 surrogate pair, expected both halves at line 1 column 3"}}"#,
        ),
        // The earlier of a mistake of structure and one of a token.
        (
            r#"{"board" ["XX"], "rules": {"max_segments": 1e999}}"#,
            400,
            r#"{"error":{"code":"malformed_json","message":"the body is not valid JSON: expected `:` at line 1 column 10"}}"#,
        ),
        (
            r#"{"board": ["\udc00"] "queries": []}"#,
            400,
            r#"{"error":{"code":"malformed_json","message":"the body is not valid JSON: \\udc00 is half of a UTF-16 surrogate pair, expected both halves at line 1 column 13"}}"#,
        ),
    ]);
    let over = format!(
        r#"{{"board": ["{}"], "queries": [], "rules": "\ud800"}}"#,
        "X".repeat(2000)
    );
    let limits = Limits {
        max_cells: 1000,
        ..Limits::default()
    };
    let refused = SolveRequest::decode(over.as_bytes(), &limits).unwrap_err();
    assert_eq!(
        body(&refused),
        r#"{"error":{"code":"malformed_json","message":"the body is not valid JSON: \\ud800 is half of a UTF-16 surrogate pair, expected both halves at line 1 column 2042"}}"#
    );
    for (request, expected) in [
        (
            &b"{\"board\": [\"X\xffX\"], \"queries\": []}"[..],
            r#"{"error":{"code":"malformed_json","message":"the body is not valid JSON: byte 0xFF is not UTF-8 at line 1 column 14"}}"#,
        ),
        (
            b"{\"board\": [\"XX\"], \n\"queries\": [\xc3]}",
            r#"{"error":{"code":"malformed_json","message":"the body is not valid JSON: byte 0xC3 is not UTF-8 at line 2 column 13"}}"#,
        ),
    ] {
        assert_eq!(refusal_of_bytes(request), (400, expected.to_owned()));
    }
    // Both halves of a pair, and numbers as small as they come, are JSON.
    let decode = |request: &str| SolveRequest::decode(request.as_bytes(), &Limits::default());
    let request = decode(r#"{"board": ["\ud83d\ude00\uD83D\uDE00"], "queries": [{"from": [1e-400, 0], "to": [1, 0]}]}"#).unwrap();
    assert_eq!(request.board.cells(), [0x1F600, 0x1F600]);
    assert_eq!(request.queries[0].from, linkpath_engine::Point::new(0, 0));
}

#[test]
fn a_control_character_in_a_text_row_is_refused_naming_its_row_and_column() {
    check(&[
        (
            r#"{"board": ["XXX", "X\tX"], "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_board","message":"row 1 has U+0009, a control character, at column 1, expected a tile character, or space or . for empty","field":"board[1][1]"}}"#,
        ),
        (
            r#"{"board": ["A\u0000A"], "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_board","message":"row 0 has U+0000, a control character, at column 1, expected a tile character, or space or . for empty","field":"board[0][1]"}}"#,
        ),
        (
            r#"{"board": ["AA\u007f"], "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_board","message":"row 0 has U+007F, a control character, at column 2, expected a tile character, or space or . for empty","field":"board[0][2]"}}"#,
        ),
        // Columns count characters, not bytes.
        (
            r#"{"board": ["éé\u0085"], "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_board","message":"row 0 has U+0085, a control character, at column 2, expected a tile character, or space or . for empty","field":"board[0][2]"}}"#,
        ),
        (
            r#"{"board": ["X.X"], "rules": {"match": {"groups": ["XY", "\n"]}}, "queries": []}"#,
            422,
            r#"{"error":{"code":"invalid_rules","message":"\"\\n\" is a control character, expected tile characters","field":"rules.match.groups[1]"}}"#,
        ),
    ]);
    // Other invisible characters that are no control character are tiles,
    // as any character is.
    let request = SolveRequest::decode(
        "{\"board\": [\"\u{a0}\u{3000}\"], \"queries\": []}".as_bytes(),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(request.board.cells(), [0xA0, 0x3000]);
}
