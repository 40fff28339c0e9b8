//! The classic judge formats through `judge::run`: the docs/rules.md
//! samples, malformed inputs, lenient layouts, and boards beyond the
//! original judges' limits. The built binary on the same inputs is tested
//! at the top of the workspace (`tests/linkpath/cli.rs`).

use crate::support::{MAHJONG_SAMPLE, data};
use linkpath_formats::judge::{Format, JudgeError, run};
use linkpath_testkit::MALFORMED;

fn ok(format: Format, input: &str) -> String {
    match run(format, input.as_bytes()) {
        Ok(output) => output,
        Err(e) => panic!("{} rejected {input:?}: {e}", format.name()),
    }
}

/// The line a malformed input is reported on.
fn error_line(format: Format, input: &str) -> usize {
    match run(format, input.as_bytes()) {
        Ok(output) => panic!("{} accepted {input:?} with {output:?}", format.name()),
        Err(JudgeError { line, .. }) => line,
    }
}

// ---- The docs/rules.md samples ----

#[test]
fn mahjong_sample() {
    assert_eq!(ok(Format::Mahjong, MAHJONG_SAMPLE), "4\n3\n0\n");
}

#[test]
fn poj1101_two_boards() {
    // The second board: "XX." over ".X." (rows shorter than the width).
    let input = format!("{MAHJONG_SAMPLE}3 2\nXX\n X\n1 1 2 1\n1 1 2 2\n1 2 2 2\n0 0 0 0\n0 0\n");
    assert_eq!(
        ok(Format::Poj1101, &input),
        "Board #1:\nPair 1: 4 segments.\nPair 2: 3 segments.\nPair 3: impossible.\n\n\
         Board #2:\nPair 1: 1 segments.\nPair 2: 2 segments.\nPair 3: impossible.\n\n"
    );
}

#[test]
fn poj1101_board_without_pairs_still_prints_its_header() {
    assert_eq!(
        ok(Format::Poj1101, "1 1\nX\n0 0 0 0\n0 0\n"),
        "Board #1:\n\n"
    );
}

#[test]
fn hdu1175_sample_on_one_line() {
    let input = "3 4  1 2 3 4  0 0 0 0  4 3 2 1  4  1 1 3 4  1 1 2 4  1 1 3 3  2 1 2 4  3 4  0 1 4 3  0 2 4 1  0 0 0 0  2  1 1 2 4  1 3 2 3  0 0";
    assert_eq!(ok(Format::Hdu1175, input), "YES\nNO\nNO\nNO\nNO\nYES\n");
}

#[test]
fn poj3009_sample() {
    let input = String::from_utf8(data("poj3009.in")).unwrap();
    assert_eq!(ok(Format::Poj3009, &input), "1\n4\n-1\n4\n10\n-1\n");
}

#[test]
fn format_names() {
    for format in Format::ALL {
        assert_eq!(format.name().parse::<Format>(), Ok(format));
    }
    assert!("POJ1101".parse::<Format>().is_err());
}

#[test]
fn the_library_answers_every_sample_file() {
    for format in Format::ALL {
        let input = data(&format!("{}.in", format.name()));
        let expected = String::from_utf8(data(&format!("{}.out", format.name()))).unwrap();
        assert_eq!(run(format, &input), Ok(expected), "{}", format.name());
    }
}

// ---- Malformed input ----

fn format_named(name: &str) -> Format {
    name.parse().expect("a judge format")
}

#[test]
fn malformed_input_names_its_line() {
    for &(format, input, line) in MALFORMED {
        assert_eq!(
            error_line(format_named(format), input),
            line,
            "{format} {input:?}"
        );
    }
}

#[test]
fn error_messages_say_what_was_expected() {
    let message = |format, input: &str| run(format, input.as_bytes()).unwrap_err().to_string();
    assert_eq!(
        message(Format::Mahjong, "3 2\nXXXX\nXX\n"),
        "line 2: row 1 has 4 cells, expected at most 3"
    );
    assert_eq!(
        message(Format::Mahjong, "3 1\néééé\n"),
        "line 2: row 1 has 4 cells, expected at most 3"
    );
    assert_eq!(
        message(Format::Mahjong, "2 1\nXX\n1 1 3 1\n0 0 0 0\n"),
        "line 3: cell (column 3, row 1) is off the 2 x 1 board, expected columns 1 to 2 and rows 1 to 1"
    );
    assert_eq!(
        message(Format::Poj3009, "3 1\n2 0 0\n0 0\n"),
        "line 1: the board needs exactly one start (2) and one goal (3)"
    );
    assert_eq!(
        message(Format::Hdu1175, "2 2\n1 x\n"),
        "line 2: expected a cell (0 or a tile type), found `x`"
    );
    assert_eq!(
        message(Format::Mahjong, "5 4\nXXXXX\nX   X\n"),
        "line 4: unexpected end of input, expected row 3 of the board"
    );
}

#[test]
fn a_control_character_in_a_row_is_refused_naming_its_row_and_column() {
    let message = |input: &str| {
        run(Format::Mahjong, input.as_bytes())
            .unwrap_err()
            .to_string()
    };
    // The sample with a tab for a space: read as a tile, it blocked the
    // first pair's path (0, not 4).
    let tabbed = MAHJONG_SAMPLE.replacen("X   X", "X\t  X", 1);
    assert_eq!(
        message(&tabbed),
        "line 3: row 2 has U+0009, a control character, at column 2, expected a tile character, or a space for empty"
    );
    assert_eq!(
        message("3 1\néé\u{1b}\n0 0 0 0\n"),
        "line 2: row 1 has U+001B, a control character, at column 3, expected a tile character, or a space for empty"
    );
    // A line's carriage return is its line break, and other invisible
    // characters are tiles as any character is: the pair goes round.
    let input = "3 1\nX\u{a0}X\r\n1 1 3 1\n0 0 0 0\n";
    assert_eq!(run(Format::Mahjong, input.as_bytes()).unwrap(), "3\n");
}

#[test]
fn a_row_is_counted_in_characters_not_bytes() {
    // Each tile is two bytes: the row fits its three columns.
    let input = "3 2\né é\n é \n1 1 3 1\n1 1 2 2\n0 0 0 0\n";
    assert_eq!(run(Format::Mahjong, input.as_bytes()).unwrap(), "1\n2\n");
}

// ---- Lenient layouts ----

#[test]
fn mahjong_rows_shorter_than_the_width() {
    // The sample with its last row's trailing space dropped.
    let input = MAHJONG_SAMPLE.replace(" XXX \n", " XXX\n");
    assert_eq!(ok(Format::Mahjong, &input), "4\n3\n0\n");
    // Rows of every shorter length: "X" is "X..", "" is "...".
    let input = "3 3\nX\n\nX X\n1 1 1 3\n1 1 3 3\n3 3 1 1\n0 0 0 0\n";
    assert_eq!(ok(Format::Mahjong, input), "1\n2\n2\n");
}

#[test]
fn mahjong_empty_row_is_a_row_of_empty_cells() {
    let input = "3 3\nXXX\n\nXXX\n2 1 2 3\n1 1 3 3\n2 1 3 1\n0 0 0 0\n";
    assert_eq!(ok(Format::Mahjong, input), "1\n3\n1\n");
    // An empty last row.
    let input = "2 2\nXX\n\n1 1 2 1\n0 0 0 0\n";
    assert_eq!(ok(Format::Mahjong, input), "1\n");
}

#[test]
fn mahjong_with_crlf_and_scattered_numbers() {
    let input = MAHJONG_SAMPLE
        .replace('\n', "\r\n")
        .replace("2 3 5 3\r\n1 3 4 4", "  2\t3\r\n\r\n 5   3 1\r\n3 4 4");
    assert_eq!(ok(Format::Mahjong, &input), "4\n3\n0\n");
    let input = "5 4   \n".to_owned() + &MAHJONG_SAMPLE[4..];
    assert_eq!(ok(Format::Mahjong, &input), "4\n3\n0\n");
}

#[test]
fn mahjong_input_may_end_without_its_terminator() {
    assert_eq!(ok(Format::Mahjong, "2 1\nXX\n1 1 2 1\n"), "1\n");
    assert_eq!(
        ok(Format::Poj1101, "2 1\nXX\n1 1 2 1\n0 0 0 0\n"),
        "Board #1:\nPair 1: 1 segments.\n\n"
    );
}

#[test]
fn hdu1175_with_tabs_and_crlf() {
    let input = "3\t4\r\n1 2 3 4\r\n0\t0 0 0\r\n\r\n4 3 2 1\r\n4\r\n1 1 3 4\r\n1 1\n2 4\r\n1 1 3 3\t2 1 2 4\r\n0 0\r\n";
    assert_eq!(ok(Format::Hdu1175, input), "YES\nNO\nNO\nNO\n");
}

#[test]
fn hdu1175_refuses_empty_cells_and_the_same_cell() {
    // Both empty, one empty, the same tile twice, different types.
    let input = "2 3\n1 0 0\n2 0 1\n4\n1 2 1 3\n1 1 1 2\n1 1 1 1\n1 1 2 1\n0 0\n";
    assert_eq!(ok(Format::Hdu1175, input), "NO\nNO\nNO\nNO\n");
    // The same board, now a pair that does connect: (1,1) to (2,3).
    let input = "2 3\n1 0 0\n2 0 1\n1\n1 1 2 3\n0 0\n";
    assert_eq!(ok(Format::Hdu1175, input), "YES\n");
}

#[test]
fn poj3009_with_any_whitespace() {
    let input = "6\n1\n1 1\t2 1 1 3\n6 1 1 0 2 1 1 3\r\n\n2 1 3 2 0 0";
    assert_eq!(ok(Format::Poj3009, input), "-1\n4\n1\n");
}

// ---- Beyond the original limits ----

/// A 100 x 100 Mahjong board (the original allows 75 x 75): all tiles but
/// row 50, which is empty.
#[test]
fn mahjong_board_of_100_by_100() {
    let mut input = String::from("100 100\n");
    for y in 1..=100 {
        if y != 50 {
            input.push_str(&"X".repeat(100));
        }
        input.push('\n');
    }
    let pairs = [
        "1 1 100 1",     // round the top: 3
        "1 49 100 51",   // along the empty row: 3
        "50 49 50 51",   // straight across it: 1
        "50 49 51 51",   // 3
        "50 30 50 70",   // walled in: 0
        "1 30 100 70",   // left side to right side: 5
        "30 1 70 100",   // top to bottom: 5
        "1 50 2 49",     // an empty cell: 0
        "100 100 1 100", // round the bottom: 3
    ];
    for pair in pairs {
        input.push_str(pair);
        input.push('\n');
    }
    input.push_str("0 0 0 0\n");
    assert_eq!(ok(Format::Mahjong, &input), "3\n3\n1\n3\n0\n5\n5\n0\n3\n");
    // The binary is run on the same board from the file.
    assert_eq!(input.as_bytes(), data("mahjong-100x100.in"));
}

/// 30 x 30 Curling rinks (the original allows 20 x 20).
#[test]
fn curling_rinks_of_30_by_30() {
    let rink = |codes: &dyn Fn(usize, usize) -> u8| {
        let mut text = String::from("30 30\n");
        for y in 0..30 {
            let row: Vec<String> = (0..30).map(|x| codes(x, y).to_string()).collect();
            text.push_str(&row.join(" "));
            text.push('\n');
        }
        text
    };
    let mut input = String::new();
    // The goal at the far end of the start's row: 1.
    input += &rink(&|x, y| match (x, y) {
        (0, 0) => 2,
        (29, 0) => 3,
        _ => 0,
    });
    // The sample's nine blocks in a row, on a large empty rink: 10.
    input += &rink(&|x, y| match (x, y) {
        (0, 0) => 2,
        (2..=10, 0) => 1,
        (11, 0) => 3,
        _ => 0,
    });
    // No blocks and the goal off the start's lines: -1.
    input += &rink(&|x, y| match (x, y) {
        (0, 0) => 2,
        (29, 29) => 3,
        _ => 0,
    });
    // Down to a block at the bottom, then right to the goal: 2.
    input += &rink(&|x, y| match (x, y) {
        (0, 0) => 2,
        (0, 29) => 1,
        (29, 28) => 3,
        _ => 0,
    });
    input += "0 0\n";
    assert_eq!(ok(Format::Poj3009, &input), "1\n10\n-1\n2\n");
    // The binary is run on the same rinks from the file.
    assert_eq!(input.as_bytes(), data("poj3009-30x30.in"));
}

/// A Lianliankan board of 300 x 400 (rows x columns).
#[test]
fn lianliankan_board_of_300_by_400() {
    let (n, m) = (300, 400);
    let mut input = format!("{n} {m}\n");
    for row in 1..=n {
        let cells: Vec<&str> = (1..=m)
            .map(|column| match (row, column) {
                (1, 1) | (300, 400) => "7",
                (1, 400) => "8",
                (150, _) => "0",
                _ if row == 1 || row == 300 => "0",
                _ if column == 1 || column == 400 => "0",
                _ => "9",
            })
            .collect();
        input.push_str(&cells.join(" "));
        input.push('\n');
    }
    // (1,1) -> (300,400): down the first column, along the last row: 2
    // segments. (1,1) -> (1,400): types differ. Interior (2,2) -> (299,399):
    // both 9, down to row 150 is blocked by 9s: no. (149,2) -> (151,3):
    // through the empty row 150: yes.
    input.push_str("4\n1 1 300 400\n1 1 1 400\n2 2 299 399\n149 2 151 3\n0 0\n");
    assert_eq!(ok(Format::Hdu1175, &input), "YES\nNO\nNO\nYES\n");
}

#[test]
fn a_board_too_large_for_memory_is_an_error_not_a_crash() {
    // 10^10 cells of four bytes: no machine this runs on has 40 GB to give.
    // The binary, whose allocator reserves address space all the same, is
    // tested on the same board at the top of the workspace.
    assert_eq!(
        run(Format::Poj3009, b"100000 100000\n0 0 0\n"),
        Err(JudgeError {
            line: 1,
            message: "a 100000 x 100000 board does not fit in memory".into()
        })
    );
}
