//! `linkpath serve` as a process: it answers the request in flight and
//! exits 0 on SIGTERM (turning `/readyz` 503 during the grace, cutting off
//! what outlasts the drain), logs plain text without colour codes, says
//! whether jemalloc's background purge runs and where its store file is,
//! and answers deals, shuffles, moves and clears of big boards in bounded
//! memory without overflowing a worker's stack. The tests assert what
//! happened and in which order; a duration is compared only where a
//! grace, drain or deadline makes it a lower bound. The figures are
//! printed with `--nocapture`.

use crate::support::{
    LIMIT, Process, Reaper, bounded, connect, curling, exchange, free_addr, get_bytes, linkpath,
    mahjong_sample, mahjong_sample_results, parse, read_to_end, request_bytes, run, solve_bytes,
};
use linkpath_testkit::{finish, is_uuid, paired_board, start_slow_solve};
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn linkpath_serve_answers_the_request_in_flight_and_exits_0_on_sigterm() {
    let addr = free_addr();
    let mut server = Reaper(
        linkpath()
            .args(["serve", "--listen", &addr.to_string()])
            .args(["--shutdown-grace-ms", "200", "--workers", "2"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("linkpath serve starts"),
    );
    // Up when its health check answers (the CLI's own probe agrees).
    bounded("the server to come up", async {
        loop {
            if let Ok(mut stream) = TcpStream::connect(addr).await {
                let _ = stream
                    .write_all(&request_bytes("GET", "/healthz", &[], b""))
                    .await;
                let mut bytes = Vec::new();
                if stream.read_to_end(&mut bytes).await.is_ok()
                    && bytes.starts_with(b"HTTP/1.1 200")
                {
                    return;
                }
            }
            assert!(
                matches!(server.0.try_wait(), Ok(None)),
                "linkpath serve exited early"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    let mut probe = linkpath();
    probe.args(["healthcheck", "--url", &format!("http://{addr}/healthz")]);
    let probe = tokio::task::spawn_blocking(move || run(probe, b""))
        .await
        .unwrap();
    assert!(probe.status.success(), "{probe:?}");

    let (in_flight, rest) = start_slow_solve(addr).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let pid = server.0.id().to_string();
    let mut kill = Command::new("kill");
    kill.args(["-TERM", &pid]);
    assert!(run(kill, b"").status.success());
    tokio::time::sleep(Duration::from_millis(100)).await;
    let reply = finish(in_flight, &rest).await;
    assert_eq!(reply.results(), mahjong_sample_results());

    let status = bounded("linkpath serve to exit", async {
        loop {
            if let Some(status) = server.0.try_wait().unwrap() {
                return status;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert_eq!(status.code(), Some(0), "{status:?}");
}

#[test]
fn linkpath_serve_says_it_serves_with_the_background_purge_on() {
    use std::io::BufRead;
    // jemalloc's background threads give big requests' memory back; the
    // start-up line says whether they run, so an operator can tell.
    let mut server = Reaper(
        linkpath()
            .args(["serve", "--listen", "127.0.0.1:0", "--log-format", "json"])
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("linkpath serve starts"),
    );
    let stderr = std::io::BufReader::new(server.0.stderr.take().unwrap());
    // The first event, written once the port is bound.
    let line = stderr.lines().next().expect("a log line").unwrap();
    let event: serde_json::Value = serde_json::from_str(&line).expect("a JSON log line");
    assert_eq!(event["message"], "linkpath serving", "{line}");
    assert_eq!(
        event["background_purge"],
        !cfg!(target_env = "msvc"),
        "{line}"
    );
}

/// With the default store, games are kept in `linkpath-games.redb` in the
/// folder the server starts in; the start-up line names that file by its
/// absolute path, so an operator can tell where they are; and the
/// archive file beside it.
#[test]
fn linkpath_serve_names_its_store_file_by_its_absolute_path() {
    use std::io::BufRead;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("default-store");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a folder to start in");
    // The folder as the kernel names it (no symbolic links), as the server
    // sees its working folder.
    let dir = std::fs::canonicalize(&dir).expect("the folder's absolute path");
    let mut server = Reaper(
        linkpath()
            .args(["serve", "--listen", "127.0.0.1:0", "--log-format", "json"])
            .env("RUST_LOG", "info")
            .env_remove("LINKPATH_STORE")
            .current_dir(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("linkpath serve starts"),
    );
    let stderr = std::io::BufReader::new(server.0.stderr.take().unwrap());
    // Up to the line written once the port is bound.
    let serving = stderr
        .lines()
        .map(|line| line.expect("a log line"))
        .find(|line| {
            let event: Value = serde_json::from_str(line).expect("a JSON log line");
            event["message"] == "linkpath serving"
        })
        .expect("the start-up line");
    let event: Value = serde_json::from_str(&serving).unwrap();
    let file = dir.join("linkpath-games.redb");
    assert_eq!(
        event["store"],
        format!("file:{}", file.display()),
        "{serving}"
    );
    // The archive follows the store: a file beside it.
    let archive = dir.join("linkpath-games-archive.redb");
    assert_eq!(
        event["archive"],
        format!("file:{}", archive.display()),
        "{serving}"
    );
    assert!(file.is_file(), "{} was not made", file.display());
    assert!(archive.is_file(), "{} was not made", archive.display());
}

/// A build without the span export says once, at start, that the OTLP
/// endpoint set is not used (`tests/otel.rs` tests the export itself).
#[cfg(not(feature = "otel"))]
#[test]
fn an_otlp_endpoint_in_a_build_without_the_export_gets_one_warning() {
    use std::io::BufRead;
    let mut server = Reaper(
        linkpath()
            .args(["serve", "--listen", "127.0.0.1:0", "--log-format", "json"])
            .env("RUST_LOG", "info")
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("linkpath serve starts"),
    );
    let stderr = std::io::BufReader::new(server.0.stderr.take().unwrap());
    // Up to the line written once the port is bound.
    let mut warnings = Vec::new();
    for line in stderr.lines() {
        let line = line.expect("a log line");
        let event: Value = serde_json::from_str(&line).expect("a JSON log line");
        if event["message"] == "linkpath serving" {
            break;
        }
        if event["level"] == "WARN" {
            warnings.push(event["message"].as_str().unwrap_or_default().to_owned());
        }
    }
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("OTEL_EXPORTER_OTLP_ENDPOINT") && warnings[0].contains("`otel`"),
        "{warnings:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_text_log_in_a_file_has_no_colour_codes_and_only_fit_request_ids() {
    let server = Process::serve("text-log", &[]).await;
    let (addr, log) = (server.addr, server.log.clone());
    let started = Instant::now();
    let huge = "z".repeat(60_000);
    let mut echoed = Vec::new();
    for id in ["given-id-1", huge.as_str()] {
        let reply = exchange(
            addr,
            &request_bytes("GET", "/healthz", &[("X-Request-Id", id)], b""),
        )
        .await;
        echoed.push(reply.header("x-request-id").expect("an id").to_owned());
    }
    assert_eq!(echoed[0], "given-id-1");
    assert!(is_uuid(&echoed[1]), "{}", echoed[1]);
    // Each request's line is written as it is answered.
    let text = loop {
        let text = std::fs::read_to_string(&log).expect("reading the log");
        if text.matches("request").count() >= 3 || started.elapsed() > LIMIT {
            break text;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    drop(server);
    assert!(!text.contains('\u{1b}'), "colour codes in {text}");
    for id in &echoed {
        assert!(
            text.contains(&format!("request_id=\"{id}\"")),
            "{id} in {text}"
        );
    }
    assert!(!text.contains("zzzz"), "the unfit id was logged");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_lines_carry_the_trace_and_a_level_by_outcome() {
    let server = Process::serve("trace-log", &["--log-format", "json"]).await;
    let (addr, log) = (server.addr, server.log.clone());
    let traced = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let requests = [
        (
            "given-ok",
            request_bytes(
                "GET",
                "/healthz",
                &[("X-Request-Id", "given-ok"), ("traceparent", traced)],
                b"",
            ),
        ),
        (
            "given-422",
            request_bytes(
                "POST",
                "/v1/solve",
                &[
                    ("X-Request-Id", "given-422"),
                    ("traceparent", traced),
                    ("Content-Type", "application/json"),
                ],
                br#"{"board": ["AB"]}"#,
            ),
        ),
        (
            "given-501",
            request_bytes(
                "POST",
                "/v1/solve",
                &[
                    ("X-Request-Id", "given-501"),
                    ("traceparent", traced),
                    ("Transfer-Encoding", "gzip, chunked"),
                ],
                b"0\r\n\r\n",
            ),
        ),
        // Not a valid trace context (an all-zero trace id): no ids logged.
        (
            "given-untraced",
            request_bytes(
                "GET",
                "/healthz",
                &[
                    ("X-Request-Id", "given-untraced"),
                    (
                        "traceparent",
                        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                    ),
                ],
                b"",
            ),
        ),
    ];
    let mut statuses = Vec::new();
    for (_, bytes) in &requests {
        statuses.push(exchange(addr, bytes).await.status);
    }
    assert_eq!(statuses, [200, 422, 501, 200]);
    let lines: Vec<Value> = bounded("the four request lines", async {
        loop {
            let text = std::fs::read_to_string(&log).expect("reading the log");
            let lines: Vec<Value> = text
                .lines()
                .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                .filter(|event| event["message"] == "request")
                .collect();
            if lines.len() >= requests.len() {
                return lines;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    let line = |id: &str| {
        lines
            .iter()
            .find(|event| event["request_id"] == id)
            .unwrap_or_else(|| panic!("no line for {id} in {lines:?}"))
    };
    for (id, level, code) in [
        ("given-ok", "INFO", None),
        ("given-422", "WARN", Some("invalid_query")),
        ("given-501", "ERROR", Some("not_implemented")),
    ] {
        let event = line(id);
        assert_eq!(event["level"], level, "{event}");
        assert_eq!(event["error_code"].as_str(), code, "{event}");
        assert_eq!(
            event["span"]["trace_id"], "4bf92f3577b34da6a3ce929d0e0e4736",
            "{event}"
        );
        assert_eq!(event["span"]["span_id"], "00f067aa0ba902b7", "{event}");
        assert_eq!(event["span"]["request_id"], id, "{event}");
    }
    let untraced = line("given-untraced");
    assert_eq!(untraced["span"].get("trace_id"), None, "{untraced}");
    assert_eq!(untraced["span"].get("span_id"), None, "{untraced}");
}

// ------------------------------------------------------------ SIGTERM

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_turns_readyz_503_finishes_accepted_requests_and_exits_0() {
    // The grace only has to outlast the few requests sent during it: a
    // connection accepted and answered proves it had not ended.
    let mut server = Process::serve(
        "sigterm",
        &[
            "--shutdown-grace-ms",
            "3000",
            "--drain-timeout-ms",
            "60000",
            "--solve-timeout-ms",
            "60000",
        ],
    )
    .await;
    let addr = server.addr;

    // In flight at SIGTERM: a solve of 20 throws, about a second here (at
    // 17 it took 70 ms, and was at times over before it was seen)...
    let solving = tokio::spawn(async move {
        let reply = exchange(addr, &solve_bytes(&curling(Some(20)), &[])).await;
        (reply, Instant::now())
    });
    let started = Instant::now();
    while server.solves_in_flight().await < 1.0 {
        assert!(started.elapsed() < LIMIT, "the solve did not start");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    // ...and a request whose client is still sending the body.
    let (sample, expected) = (
        mahjong_sample(),
        json!({"results": mahjong_sample_results()}),
    );
    let slow = solve_bytes(&sample, &[]);
    let half = slow.len() - 20;
    let mut sending = connect(addr).await;
    sending.write_all(&slow[..half]).await.expect("a part");

    let terminated = Instant::now();
    server.terminate();
    let mut readyz = None;
    while readyz.is_none() {
        let reply = exchange(addr, &get_bytes("/readyz")).await;
        if reply.status == 503 {
            assert_eq!(reply.json(), json!({"status": "shutting_down"}));
            readyz = Some(terminated.elapsed());
        } else {
            assert_eq!(reply.status, 200);
            assert!(terminated.elapsed() < LIMIT, "/readyz never turned 503");
        }
    }
    // Within the grace, new connections are still served.
    let during = exchange(addr, &solve_bytes(&sample, &[])).await;
    assert_eq!((during.status, during.json()), (200, expected.clone()));

    // After it, they are refused.
    let refused = loop {
        match TcpStream::connect(addr).await {
            // Refused, or reset when the handshake raced the close.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::ConnectionReset
                ) =>
            {
                break terminated.elapsed();
            }
            Err(e) => panic!("connecting: {e}"),
            Ok(mut stream) => {
                // A connection the server took is answered 503, except one
                // that raced the end of the grace: reset with the listener,
                // or closed unread with the idle connections.
                let _ = stream.write_all(&get_bytes("/readyz")).await;
                let mut answer = Vec::new();
                let read = bounded("reading", stream.read_to_end(&mut answer)).await;
                if read.is_ok() && !answer.is_empty() {
                    assert_eq!(parse(&answer).status, 503);
                }
                assert!(terminated.elapsed() < LIMIT, "still accepting");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    };

    // The accepted requests get their real answers.
    sending.write_all(&slow[half..]).await.expect("the rest");
    let late = parse(&read_to_end(&mut sending).await);
    assert_eq!((late.status, late.json()), (200, expected));
    let (solved, solved_at) = bounded("the in-flight solve", solving)
        .await
        .expect("no panic");
    assert_eq!(
        (solved.status, solved.json()),
        (
            200,
            json!({"results": [{"connected": false, "reason": "no_path"}]})
        )
    );
    let code = server.exit_code().await;
    let exited = terminated.elapsed();
    let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1e3);
    println!(
        "SIGTERM: /readyz 503 after {}, new connections refused after {} (grace 3000 ms), \
         the in-flight solve answered 200 at {}, exit {code:?} after {}",
        ms(readyz.expect("set")),
        ms(refused),
        ms(solved_at.saturating_duration_since(terminated)),
        ms(exited),
    );
    assert_eq!(code, Some(0));
    // Timed from before SIGTERM: not refused before the grace ended.
    assert!(refused >= Duration::from_millis(3000), "{refused:?}");
    assert!(solved_at > terminated, "the solve finished before SIGTERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_exits_0_when_the_drain_timeout_passes_with_a_solve_still_running() {
    let mut server = Process::serve(
        "drain",
        &[
            "--shutdown-grace-ms",
            "100",
            "--drain-timeout-ms",
            "300",
            // An hour: only the drain timeout can end the process within
            // the tests' limit.
            "--solve-timeout-ms",
            "3600000",
        ],
    )
    .await;
    let addr = server.addr;
    let solving = tokio::spawn(async move {
        let mut stream = connect(addr).await;
        stream
            .write_all(&solve_bytes(&curling(None), &[]))
            .await
            .expect("sending");
        read_to_end(&mut stream).await
    });
    let started = Instant::now();
    while server.solves_in_flight().await < 1.0 {
        assert!(started.elapsed() < LIMIT, "the solve did not start");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let terminated = Instant::now();
    server.terminate();
    let code = server.exit_code().await;
    let exited = terminated.elapsed();
    // The unfinished request is cut off without an answer.
    let answer = bounded("the cut-off solve", solving)
        .await
        .expect("no panic");
    println!(
        "SIGTERM with an hour's solve running: exit {code:?} after {:.1} ms (grace 100 + drain 300 ms)",
        exited.as_secs_f64() * 1e3
    );
    assert_eq!(String::from_utf8_lossy(&answer), "");
    assert_eq!(code, Some(0));
    // Timed from before SIGTERM: not before the grace and the drain.
    assert!(exited >= Duration::from_millis(400), "{exited:?}");
}

// ------------------------------------------------- big requests in bounded memory

/// The memory a request may take on a million-cell board, peak included.
const BOARD_MIB: u64 = 256;

/// How many cells of each value a numeric board holds.
fn counts(board: &Value) -> std::collections::BTreeMap<u64, usize> {
    let mut counts = std::collections::BTreeMap::new();
    for row in board.as_array().expect("rows") {
        for cell in row.as_array().expect("a numeric row") {
            *counts.entry(cell.as_u64().expect("a cell")).or_default() += 1;
        }
    }
    counts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deals_and_shuffles_of_ten_thousand_cells_are_answered_and_the_server_keeps_serving() {
    // 10,000 tiles: the builder's depth once overflowed a worker's stack
    // from about 6,400 tiles on, and the process died.
    let server = Process::serve("deal-10k", &["--solve-timeout-ms", "60000"]).await;
    let dealt = server
        .post(
            "/v1/deal",
            &json!({"width": 100, "height": 100, "types": 2500, "copies": 4,
                    "encoding": "numbers", "rules": "shisen-sho"}),
        )
        .await;
    assert_eq!(
        dealt.status,
        200,
        "{:?}",
        String::from_utf8_lossy(&dealt.body)
    );
    let dealt = dealt.json();
    let expected: std::collections::BTreeMap<u64, usize> = (1..=2500).map(|t| (t, 4)).collect();
    assert_eq!(counts(&dealt["board"]), expected);
    assert_eq!(dealt["moves"].as_array().expect("moves").len(), 5000);

    let shuffled = server
        .post(
            "/v1/shuffle",
            &json!({"board": dealt["board"], "rules": "shisen-sho", "solvable": true, "seed": 9}),
        )
        .await;
    assert_eq!(shuffled.status, 200);
    let shuffled = shuffled.json();
    assert_eq!(counts(&shuffled["board"]), expected);
    assert_ne!(shuffled["board"], dealt["board"]);
    assert_eq!(shuffled["moves"].as_array().expect("moves").len(), 5000);

    let health = exchange(server.addr, &get_bytes("/healthz")).await;
    assert_eq!(health.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn million_cell_game_requests_are_answered_or_refused_naming_the_limit_in_bounded_memory() {
    let server = Process::serve("game-1m", &["--solve-timeout-ms", "60000"]).await;
    let dealt = server
        .post(
            "/v1/deal",
            &json!({"width": 1000, "height": 1000, "types": 16, "rules": "shisen-sho", "seed": 3}),
        )
        .await;
    assert_eq!(dealt.status, 200);
    let dealt = dealt.json();
    let rows = dealt["board"].as_array().expect("rows");
    assert_eq!(rows.len(), 1000);
    let tiles: usize = rows
        .iter()
        .map(|r| {
            r.as_str()
                .expect("a text row")
                .bytes()
                .filter(|&b| b != b'.')
                .count()
        })
        .sum();
    assert_eq!(tiles, 64);
    assert_eq!(dealt["moves"].as_array().expect("moves").len(), 32);

    let shuffled = server
        .post(
            "/v1/shuffle",
            &json!({"board": dealt["board"], "rules": "shisen-sho", "solvable": true}),
        )
        .await;
    assert_eq!(shuffled.status, 200);
    assert_eq!(
        shuffled.json()["moves"].as_array().expect("moves").len(),
        32
    );

    // Mahjong's moves grow with the square of the tiles: the list stops at
    // the server's limit and says so.
    let board = paired_board(1000, 1000, 600_000, 62, 0x9E37_79B9_7F4A_7C15);
    let moves = server
        .post(
            "/v1/moves",
            &json!({"board": board, "rules": "mahjong", "include_path": false}),
        )
        .await;
    assert_eq!(moves.status, 200);
    let moves = moves.json();
    assert_eq!(moves["moves"].as_array().expect("moves").len(), 10_000);
    assert_eq!(
        (&moves["truncated"], &moves["stuck"], &moves["cleared"]),
        (&json!(true), &json!(false), &json!(false))
    );
    let cleared = server
        .post("/v1/clear", &json!({"board": board, "rules": "mahjong"}))
        .await;
    assert_eq!(cleared.status, 200);
    assert_eq!(cleared.json()["outcome"], json!("unknown"));

    let peak = server.peak_rss_mib();
    assert!(peak < BOARD_MIB, "peak RSS {peak} MiB");

    let small = Process::serve("deal-cells", &["--max-cells", "500000"]).await;
    let refused = small
        .post(
            "/v1/deal",
            &json!({"width": 1000, "height": 1000, "types": 16}),
        )
        .await;
    let (message, field) = refused.error(413, "too_large");
    assert_eq!(
        (message.as_str(), field.as_deref()),
        (
            "the board would have 1000000 cells, over the limit of 500000",
            Some("width")
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn game_searches_stop_at_the_deadline_and_free_their_slot_at_once() {
    let server = Process::serve(
        "game-deadline",
        &["--workers", "1", "--solve-timeout-ms", "1000"],
    )
    .await;
    let (sample, expected) = (
        mahjong_sample(),
        json!({"results": mahjong_sample_results()}),
    );
    let big_deal = json!({"width": 1000, "height": 1000, "types": 62, "rules": "shisen-sho"});
    let big_board = paired_board(1000, 1000, 600_000, 62, 0x9E37_79B9_7F4A_7C15);
    let heavy = [
        ("/v1/deal", big_deal, "the deal did not finish"),
        (
            "/v1/moves",
            json!({"board": big_board, "rules": "shisen-sho"}),
            "the move list did not finish",
        ),
    ];
    for (path, body, said) in &heavy {
        let reply = server.post(path, body).await;
        let answered = Instant::now();
        if reply.status == 200 {
            continue; // finished within the deadline on a fast machine
        }
        let (message, _) = reply.error(504, "deadline_exceeded");
        assert!(message.starts_with(said), "{message}");
        // The search stopped with its answer, and its slot (the only one)
        // is free. A release build frees it within 5 ms (RELIABILITY.md);
        // this unoptimised one may still be leaving a step that does not
        // poll, such as preparing a solver over the whole board.
        let next = loop {
            let next = exchange(server.addr, &solve_bytes(&sample, &[])).await;
            if next.status != 503 || answered.elapsed() > LIMIT {
                break next;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        };
        assert_eq!(
            (next.status, next.json()),
            (200, expected.clone()),
            "after {path}"
        );
    }
    let peak = server.peak_rss_mib();
    assert!(peak < BOARD_MIB, "peak RSS {peak} MiB");
}
