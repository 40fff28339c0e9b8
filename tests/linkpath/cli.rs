//! The built `linkpath` binary on the command line: `linkpath judge` on the
//! sample files, redirected and piped input, malformed and hostile input
//! with exit code 2, and `linkpath render` drawing what `/v1/render` draws.

use crate::support::run;
use linkpath_api::{Limits, render_body};
use linkpath_engine::Stop;
use linkpath_testkit::MALFORMED;
use serde_json::json;
use std::path::Path;
use std::process::{Command, Stdio};

fn linkpath() -> Command {
    Command::new(env!("CARGO_BIN_EXE_linkpath"))
}

/// Runs `linkpath judge FORMAT` with `input` on stdin: exit code, stdout,
/// stderr.
fn judge_binary(format: &str, input: &[u8]) -> (i32, String, String) {
    let mut judge = linkpath();
    judge.args(["judge", format]);
    let out = run(judge, input);
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

// ---- linkpath judge ----

#[test]
fn binary_answers_every_sample_file() {
    // The samples of docs/rules.md, and boards beyond the original judges'
    // limits: Mahjong on 100 x 100 (the original allows 75 x 75), Curling
    // on 30 x 30 (20 x 20).
    for sample in [
        "mahjong",
        "poj1101",
        "hdu1175",
        "poj3009",
        "mahjong-100x100",
        "poj3009-30x30",
    ] {
        let format = sample.split('-').next().unwrap();
        let input = data(&format!("{sample}.in"));
        let expected = String::from_utf8(data(&format!("{sample}.out"))).unwrap();
        let (code, stdout, stderr) = judge_binary(format, &input);
        assert_eq!((code, stderr.as_str()), (0, ""), "{sample}");
        assert_eq!(stdout, expected, "{sample}");
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
            let out = linkpath()
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
    let out = linkpath()
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

#[test]
fn a_control_character_in_a_board_is_refused_with_exit_code_2() {
    // The Mahjong sample with a tab for a space: read as a tile, it blocked
    // the first pair's path, and the judge printed 0 instead of 4.
    let input = String::from_utf8(data("mahjong.in"))
        .unwrap()
        .replacen("X   X", "X\t  X", 1);
    assert_eq!(
        judge_binary("mahjong", input.as_bytes()),
        (
            2,
            String::new(),
            "linkpath judge mahjong: line 3: row 2 has U+0009, a control character, at column 2, expected a tile character, or a space for empty\n".to_owned()
        )
    );
    // A request's text rows likewise, to `linkpath solve` and `render`.
    let request = json!({"board": ["X\tX", "XXX"], "queries": [{"from": [0, 0], "to": [2, 0]}]});
    for command in ["solve", "render"] {
        let mut invocation = linkpath();
        invocation.args([command, "-"]);
        let out = run(invocation, request.to_string().as_bytes());
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            format!(
                "linkpath {command}: invalid_board: row 0 has U+0009, a control character, at column 1, expected a tile character, or space or . for empty (at board[0][1])\n"
            )
        );
    }
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
}

// ---- linkpath render ----

#[test]
fn the_command_line_draws_what_the_route_draws() {
    let sample = json!({
        "board": ["XXXXX", "X   X", "XXX X", " XXX "],
        "rules": "mahjong",
        "queries": [{"from": [1, 2], "to": [4, 2]}, {"from": [0, 2], "to": [3, 3]}]
    })
    .to_string();
    let file = std::env::temp_dir().join(format!("linkpath-render-{}.json", std::process::id()));
    std::fs::write(&file, &sample).unwrap();
    let output = linkpath()
        .arg("render")
        .arg(&file)
        .output()
        .expect("linkpath runs");
    std::fs::remove_file(&file).ok();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let route = render_body(sample.as_bytes(), &Limits::default(), &Stop::never()).unwrap();
    assert_eq!(String::from_utf8(output.stdout).unwrap(), route);

    let output = linkpath()
        .args(["render", "/nonexistent/board.json"])
        .output()
        .expect("linkpath runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
}
