//! The classic judge formats: the docs/rules.md samples through
//! `linkpath::judge::run` and through the built binary, malformed inputs,
//! lenient layouts, and boards beyond the original judges' limits.

use linkpath::judge::{Format, JudgeError, run};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const MAHJONG_SAMPLE: &str =
    "5 4\nXXXXX\nX   X\nXXX X\n XXX \n2 3 5 3\n1 3 4 4\n2 3 3 4\n0 0 0 0\n";

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

/// Runs `linkpath judge FORMAT` with `input` on stdin: exit code, stdout,
/// stderr.
fn judge_binary(format: &str, input: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_linkpath"))
        .args(["judge", format])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin.write_all(input).expect("the binary reads its input");
    drop(stdin);
    let out = child.wait_with_output().expect("the binary ends");
    (
        out.status.code().expect("exited, not killed by a signal"),
        String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    )
}

fn data(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

// ---- The docs/rules.md samples through the library ----

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

// ---- The built binary on the sample files ----

#[test]
fn binary_answers_every_sample_file() {
    for format in ["mahjong", "poj1101", "hdu1175", "poj3009"] {
        let input = data(&format!("{format}.in"));
        let expected = String::from_utf8(data(&format!("{format}.out"))).unwrap();
        let (code, stdout, stderr) = judge_binary(format, &input);
        assert_eq!((code, stderr.as_str()), (0, ""), "{format}");
        assert_eq!(stdout, expected, "{format}");
    }
}

#[test]
fn binary_reads_a_redirected_file_from_where_it_stands_and_an_empty_stdin() {
    // `judge < FILE` reads through the file itself (its size known up
    // front), a pipe through `Stdin`: the answers must not depend on it,
    // nor on a file handed over part-read (the judge reads from there on).
    for format in ["mahjong", "hdu1175"] {
        let expected = String::from_utf8(data(&format!("{format}.out"))).unwrap();
        let path =
            std::env::temp_dir().join(format!("linkpath-judge-{format}-{}.in", std::process::id()));
        const PREFIX: &[u8] = b"a line the judge never sees\n";
        std::fs::write(&path, [PREFIX, &data(&format!("{format}.in"))].concat()).unwrap();
        let run_from = |offset: u64| {
            let mut stdin = std::fs::File::open(&path).expect("the input file opens");
            std::io::Seek::seek(&mut stdin, std::io::SeekFrom::Start(offset)).unwrap();
            let out = Command::new(env!("CARGO_BIN_EXE_linkpath"))
                .args(["judge", format])
                .stdin(stdin)
                .output()
                .expect("the binary runs");
            (out.status.code(), String::from_utf8(out.stdout).unwrap())
        };
        assert_eq!(
            run_from(PREFIX.len() as u64),
            (Some(0), expected),
            "{format}"
        );
        // From the start, the prefix stands where the board header should.
        assert_eq!(run_from(0), (Some(2), String::new()), "{format}");
        std::fs::remove_file(&path).unwrap();
    }
    // /dev/null: an empty judge input, answered with nothing.
    let out = Command::new(env!("CARGO_BIN_EXE_linkpath"))
        .args(["judge", "poj3009"])
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    assert_eq!(
        (out.status.code(), out.stdout.as_slice()),
        (Some(0), &b""[..])
    );
}

#[test]
fn binary_and_library_agree_on_the_sample_files() {
    for format in Format::ALL {
        let input = data(&format!("{}.in", format.name()));
        let expected = String::from_utf8(data(&format!("{}.out", format.name()))).unwrap();
        assert_eq!(run(format, &input), Ok(expected), "{}", format.name());
    }
}

// ---- Malformed input ----

/// Each malformed input, its format and the line the error must name.
const MALFORMED: &[(&str, &str, usize)] = &[
    // A row longer than the width.
    ("mahjong", "3 2\nXXXX\nXX\n1 1 2 1\n0 0 0 0\n", 2),
    (
        "poj1101",
        "3 2\nXXX\nXX\n1 1 2 1\n0 0 0 0\n2 2\nXX\nXXX\n0 0 0 0\n0 0\n",
        8,
    ),
    // A token that is not a number.
    ("mahjong", "2 1\nXX\n1 a 2 1\n0 0 0 0\n", 3),
    ("mahjong", "2 1\nXX\n1 1 2 1x\n0 0 0 0\n", 3),
    ("mahjong", "five 4\n", 1),
    ("hdu1175", "2 2\n1 x\n1 1\n1\n1 1 2 2\n0 0\n", 2),
    ("poj3009", "3 1\n2 0 3\n2 1\n2 three\n0 0\n", 4),
    // A square code out of range.
    ("poj3009", "3 1\n2 4 3\n0 0\n", 2),
    // A board without a goal, or with two starts.
    ("poj3009", "3 1\n2 0 0\n0 0\n", 1),
    ("poj3009", "1 1\n0 0\n", 1),
    ("poj3009", "3 1\n2 2 3\n0 0\n", 2),
    // A pair off the board (coordinates are 1-based).
    ("mahjong", "2 1\nXX\n1 1 3 1\n0 0 0 0\n", 3),
    ("mahjong", "2 1\nXX\n0 1 2 1\n0 0 0 0\n", 3),
    ("poj1101", "2 1\nXX\n1 1 2 2\n0 0 0 0\n0 0\n", 3),
    ("hdu1175", "1 2\n1 1\n1\n1 1 1 3\n0 0\n", 4),
    ("hdu1175", "1 2\n1 1\n1\n1 1 2 1\n0 0\n", 4),
    // A board with no rows or no columns.
    ("mahjong", "0 3\n", 1),
    ("hdu1175", "2 0\n", 1),
    // Truncated input.
    ("mahjong", "5 4\nXXXXX\nX   X\n", 4),
    ("mahjong", "3 2\nXXX\n", 3),
    ("mahjong", "3 2\nXXX", 2),
    ("mahjong", "2 1\nXX\n1 1 2", 3),
    ("poj1101", "2 1\nXX\n1 1 2 1\n0 0 0 0\n2 1\n", 6),
    ("hdu1175", "2 2\n1 0\n", 3),
    ("hdu1175", "2 2\n1 0\n0 1\n2\n1 1 2 2\n", 6),
    ("poj3009", "3 2\n2 0 3\n", 3),
    // Negative sizes, and text after the single Mahjong board.
    ("poj3009", "-3 1\n2 0 3\n0 0\n", 1),
    ("mahjong", "2 1\nXX\n1 1 2 1\n0 0 0 0\n5\n", 5),
];

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
fn binary_rejects_malformed_input_with_exit_code_2() {
    for &(format, input, line) in MALFORMED {
        let (code, stdout, stderr) = judge_binary(format, input.as_bytes());
        let context = format!("{format} {input:?}: stderr {stderr:?}");
        assert_eq!(code, 2, "{context}");
        assert_eq!(stdout, "", "{context}");
        assert_eq!(stderr.lines().count(), 1, "{context}");
        assert!(stderr.ends_with('\n'), "{context}");
        assert!(stderr.contains(&format!("line {line}: ")), "{context}");
        assert!(!stderr.contains("panicked"), "{context}");
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
fn a_row_is_counted_in_characters_not_bytes() {
    // Each tile is two bytes: the row fits its three columns.
    let input = "3 2\né é\n é \n1 1 3 1\n1 1 2 2\n0 0 0 0\n";
    assert_eq!(run(Format::Mahjong, input.as_bytes()).unwrap(), "1\n2\n");
}

#[test]
fn binary_survives_binary_garbage() {
    let (code, stdout, stderr) = judge_binary("mahjong", b"2 1\n\xff\xfe\n0 0 0 0\n");
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(
        stderr.contains("line 2: row 1 of the board is not valid UTF-8"),
        "{stderr:?}"
    );
    let (code, _, stderr) = judge_binary("hdu1175", b"\x00\x01");
    assert_eq!(code, 2);
    assert!(
        stderr.contains("line 1: expected the row count n"),
        "{stderr:?}"
    );
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
    let (code, stdout, _) = judge_binary("mahjong", input.as_bytes());
    assert_eq!((code, stdout.as_str()), (0, "3\n3\n1\n3\n0\n5\n5\n0\n3\n"));
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
    let (code, stdout, _) = judge_binary("poj3009", input.as_bytes());
    assert_eq!((code, stdout.as_str()), (0, "1\n10\n-1\n2\n"));
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
    // The binary's allocator would reserve the address space all the same
    // (jemalloc maps with MAP_NORESERVE): the judge must ask the kernel.
    let (code, stdout, stderr) = judge_binary("mahjong", b"100000 100000\n\n\n");
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(
        stderr,
        "linkpath judge mahjong: line 1: a 100000 x 100000 board does not fit in memory\n"
    );
    assert_eq!(
        run(Format::Poj3009, b"100000 100000\n0 0 0\n"),
        Err(JudgeError {
            line: 1,
            message: "a 100000 x 100000 board does not fit in memory".into()
        })
    );
}
