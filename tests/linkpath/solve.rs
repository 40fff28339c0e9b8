//! `linkpath solve` prints exactly what the server answers for the same
//! request, from a file or from stdin, with the exit code of its status.

use crate::support::{data, linkpath, run};

#[test]
fn linkpath_solve_prints_exactly_the_server_answer() {
    for (request, code) in [
        ("mahjong_sample", 0),
        ("poj3009_dataset2", 0),
        ("ragged_board", 2),
    ] {
        let mut command = linkpath();
        command.arg("solve").arg(data(&format!("{request}.json")));
        let output = run(command, b"");
        let expected = std::fs::read_to_string(data(&format!("{request}.out"))).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            expected,
            "{request}: stderr {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(output.status.code(), Some(code), "{request}");
    }
}

#[test]
fn linkpath_solve_reads_stdin() {
    let mut command = linkpath();
    command.args(["solve", "-"]);
    let output = run(
        command,
        &std::fs::read(data("mahjong_sample.json")).unwrap(),
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        std::fs::read_to_string(data("mahjong_sample.out")).unwrap()
    );
    assert!(output.status.success());
}
