//! `/metrics` from the first scrape: every series with known labels is there
//! at 0 before any request, the histogram buckets reach past the deadline,
//! and a `/v1/render` request moves exactly its own series.
//!
//! The Prometheus recorder is process-wide, so each test here runs alone in
//! a process of its own and takes its steps in order: any other test could
//! send traffic before the first scrape, or add the series of its own
//! refusals between two.

use crate::support::{
    Reply, alone_in_a_process, call, config, endless_curling, get, mahjong_sample, router, spec,
};
use axum::body::Body;
use axum::http::{Method, Request};
use linkpath_server::Config;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

/// A series: its name and its labels other than `le`.
type Series = (String, BTreeMap<String, String>);

/// A parsed scrape: `# TYPE` of each family, and each sample line's value
/// keyed by series and `le` (empty when none).
#[derive(Debug, PartialEq)]
struct Scrape {
    types: BTreeMap<String, String>,
    samples: BTreeMap<(Series, String), f64>,
    /// The keys of `samples` in the order of the text.
    order: Vec<(Series, String)>,
}

impl Scrape {
    fn value(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        let key = (series(name, labels), String::new());
        *self
            .samples
            .get(&key)
            .unwrap_or_else(|| panic!("no {key:?} in the scrape"))
    }

    fn series(&self) -> BTreeSet<Series> {
        self.samples.keys().map(|(s, _)| s.clone()).collect()
    }

    /// The `le` bounds of one histogram series, in the scrape's order.
    fn buckets(&self, name: &str, labels: &[(&str, &str)]) -> Vec<String> {
        let bucket = series(&format!("{name}_bucket"), labels);
        self.order
            .iter()
            .filter(|(s, _)| *s == bucket)
            .map(|(_, le)| le.clone())
            .collect()
    }
}

fn series(name: &str, labels: &[(&str, &str)]) -> Series {
    (
        name.to_owned(),
        labels
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
    )
}

/// Parses the text exposition format: `# HELP` and `# TYPE` lines, blank
/// lines, and `name{label="value",...} number` samples; anything else fails.
fn parse(text: &str) -> Scrape {
    let mut types = BTreeMap::new();
    let mut samples = BTreeMap::new();
    let mut order = Vec::new();
    for line in text.lines() {
        if line.is_empty() || line.starts_with("# HELP ") {
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').expect("# TYPE name kind");
            assert!(
                types.insert(name.to_owned(), kind.to_owned()).is_none(),
                "{name} typed twice"
            );
            continue;
        }
        let (head, value) = line.rsplit_once(' ').expect("a sample line");
        let value: f64 = value
            .parse()
            .unwrap_or_else(|_| panic!("not a number in {line:?}"));
        let (name, mut labels) = match head.split_once('{') {
            None => (head.to_owned(), BTreeMap::new()),
            Some((name, labels)) => {
                let labels = labels.strip_suffix('}').expect("labels end with }");
                (name.to_owned(), parse_labels(labels))
            }
        };
        assert!(
            name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "a bad name in {line:?}"
        );
        let le = labels.remove("le").unwrap_or_default();
        let key = ((name, labels), le);
        assert!(
            samples.insert(key.clone(), value).is_none(),
            "{key:?} twice"
        );
        order.push(key);
    }
    Scrape {
        types,
        samples,
        order,
    }
}

fn parse_labels(text: &str) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (name, after) = rest.split_once("=\"").expect("label=\"value\"");
        let mut value = String::new();
        let mut chars = after.char_indices();
        let end = loop {
            match chars.next().expect("a closing quote") {
                (_, '\\') => value.push(chars.next().expect("an escaped character").1),
                (i, '"') => break i,
                (_, c) => value.push(c),
            }
        };
        assert!(
            labels.insert(name.to_owned(), value).is_none(),
            "label {name} twice in {text:?}"
        );
        rest = &after[end + 1..];
        rest = rest.strip_prefix(',').unwrap_or(rest);
    }
    labels
}

async fn scrape(router: &axum::Router) -> Scrape {
    let reply = call(router, get("/metrics")).await;
    assert_eq!(
        (reply.status, reply.header("content-type")),
        (200, Some("text/plain; version=0.0.4; charset=utf-8"))
    );
    parse(&reply.text())
}

async fn render(router: &axum::Router, body: &serde_json::Value) -> Reply {
    let request = Request::post("/v1/render")
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .expect("a valid request");
    call(router, request).await
}

/// Every `(method, path)` of openapi.yaml, which another test holds to be
/// exactly the router's routes.
fn documented_routes() -> Vec<(String, String)> {
    let paths = spec()["paths"].as_object().expect("openapi.yaml has paths");
    let mut routes = Vec::new();
    for (path, item) in paths {
        let operations = item
            .as_object()
            .unwrap_or_else(|| panic!("{path:?} is not a mapping"));
        for method in operations.keys() {
            routes.push((method.to_ascii_uppercase(), path.clone()));
        }
    }
    routes
}

const RULES: [&str; 5] = ["mahjong", "shisen-sho", "lianliankan", "curling", "custom"];
const QUERY_OUTCOMES: [&str; 6] = [
    "connected",
    "no_path",
    "type_mismatch",
    "not_a_tile",
    "blocked",
    "same_cell",
];
const REJECTION_REASONS: [&str; 6] = [
    "too_large",
    "overloaded",
    "unauthorized",
    "rate_limited",
    "request_timeout",
    "not_implemented",
];
const GAME_OUTCOMES: [(&str, &[&str]); 6] = [
    ("/v1/moves", &["open", "stuck", "cleared", "deadline"]),
    (
        "/v1/play",
        &["open", "stuck", "cleared", "stopped", "deadline"],
    ),
    (
        "/v1/clear",
        &["solvable", "unsolvable", "unknown", "deadline"],
    ),
    ("/v1/deal", &["dealt", "deadline"]),
    ("/v1/shuffle", &["shuffled", "deadline"]),
    ("/v1/render", &["drawn", "deadline"]),
];
/// What an API route answers itself (401 and 429 are answered before
/// routing, 404 by the fallback).
const API_STATUSES: [&str; 9] = [
    "200", "400", "408", "413", "415", "422", "500", "503", "504",
];
const BUCKETS: [&str; 18] = [
    "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1",
    "0.25", "0.5", "1", "2.5", "5", "10", "30", "+Inf",
];

/// The series of one histogram family: bucket, sum and count.
fn histogram(name: &str, labels: &[(&str, &str)]) -> [Series; 3] {
    ["bucket", "sum", "count"].map(|part| series(&format!("{name}_{part}"), labels))
}

/// Every series the first scrape must hold, each at 0.
fn expected_series() -> BTreeSet<Series> {
    let mut expected = BTreeSet::new();
    let routes = documented_routes();
    assert_eq!(routes.len(), 51, "{routes:?}");
    for (method, route) in &routes {
        let mut statuses: Vec<&str> = match (method.as_str(), route.as_str()) {
            ("POST", _) => API_STATUSES.to_vec(),
            ("GET", "/readyz") => vec!["200", "503"],
            ("GET", "/v1/daily/{date}") => vec!["200", "413", "422", "503", "504"],
            ("GET", "/v1/leaderboards/{name}") => vec!["200", "422", "503"],
            ("GET", "/v1/leaderboards/{name}/games/export" | "/v1/days/{date}/games/export") => {
                vec!["200", "403", "422", "429", "503"]
            }
            ("PATCH", _) => API_STATUSES.to_vec(),
            ("DELETE", _) => vec!["200"],
            ("GET", _) => vec!["200"],
            other => panic!("an unexpected route {other:?}"),
        };
        if route.starts_with("/v1/players") {
            statuses.extend(["401", "503"]);
            match (method.as_str(), route.as_str()) {
                ("POST", _) => statuses.push("201"),
                ("DELETE", _) => statuses.push("204"),
                ("GET", "/v1/players/{id}/games") => statuses.extend(["403", "422"]),
                ("GET", "/v1/players/{id}/games/export") => statuses.extend(["403", "422", "429"]),
                _ => {}
            }
            statuses.sort_unstable();
            statuses.dedup();
        }
        if route.starts_with("/v1/matches") {
            statuses.extend(["401", "403", "404", "409", "503"]);
            if route == "/v1/matches" {
                statuses.push("201");
            }
            if route == "/v1/matches/seek" {
                statuses.extend(["201", "204"]);
            }
            statuses.sort_unstable();
            statuses.dedup();
        }
        if route.starts_with("/v1/games") {
            statuses.extend(["404", "409", "412", "503"]);
            if route == "/v1/games" {
                statuses.push("201");
            }
        }
        for status in statuses {
            expected.insert(series(
                "linkpath_http_requests_total",
                &[("route", route), ("method", method), ("status", status)],
            ));
        }
        expected.extend(histogram(
            "linkpath_http_request_duration_seconds",
            &[("route", route)],
        ));
    }
    for rules in RULES {
        for outcome in QUERY_OUTCOMES {
            expected.insert(series(
                "linkpath_queries_total",
                &[("rules", rules), ("outcome", outcome)],
            ));
        }
        expected.extend(histogram(
            "linkpath_solve_duration_seconds",
            &[("rules", rules)],
        ));
    }
    for (route, outcomes) in GAME_OUTCOMES {
        for outcome in outcomes {
            expected.extend(histogram(
                "linkpath_game_duration_seconds",
                &[("route", route), ("outcome", outcome)],
            ));
        }
    }
    for reason in REJECTION_REASONS {
        expected.insert(series("linkpath_rejected_total", &[("reason", reason)]));
    }
    expected.insert(series("linkpath_panics_total", &[]));
    expected.insert(series("linkpath_solves_in_flight", &[]));
    expected.insert(series("linkpath_memory_budget_bytes", &[]));
    expected.insert(series("linkpath_memory_held_bytes", &[]));
    for reason in ["too_slow", "room"] {
        expected.insert(series(
            "linkpath_connections_cut_total",
            &[("reason", reason)],
        ));
    }
    expected.insert(series("linkpath_games_created_total", &[]));
    for status in ["won", "out_of_time", "resigned", "race_over"] {
        expected.insert(series(
            "linkpath_games_finished_total",
            &[("status", status)],
        ));
    }
    for action in [
        "move",
        "hint",
        "undo",
        "redo",
        "shuffle",
        "pause",
        "resume",
        "resign",
        "out_of_time",
        "race_over",
    ] {
        for outcome in [
            "applied", "illegal", "refused", "finished", "stale", "deadline",
        ] {
            expected.insert(series(
                "linkpath_game_actions_total",
                &[("action", action), ("outcome", outcome)],
            ));
        }
    }
    for operation in ["read", "write"] {
        expected.extend(histogram(
            "linkpath_store_duration_seconds",
            &[("operation", operation)],
        ));
    }
    expected.insert(series("linkpath_store_errors_total", &[]));
    expected.insert(series("linkpath_store_reopens_total", &[]));
    expected.insert(series("linkpath_games_stored", &[]));
    expected.insert(series("linkpath_game_streams_open", &[]));
    for via in ["token", "studio"] {
        expected.insert(series("linkpath_players_signed_up_total", &[("via", via)]));
    }
    for reason in [
        "unknown_token",
        "jwt",
        "service_route",
        "not_your_game",
        "quota",
        "sign_up",
        "sign_up_rate",
        "guessing",
    ] {
        expected.insert(series(
            "linkpath_player_refusals_total",
            &[("reason", reason)],
        ));
    }
    expected.insert(series("linkpath_players_stored", &[]));
    for state in ["open", "countdown", "playing", "finished"] {
        expected.insert(series("linkpath_matches_total", &[("state", state)]));
    }
    expected.insert(series("linkpath_matches_stored", &[]));
    expected.insert(series("linkpath_seeks_waiting", &[]));
    expected.insert(series("linkpath_archive_lag_seconds", &[]));
    expected.insert(series("linkpath_archive_pending", &[]));
    expected.insert(series("linkpath_archive_unreadable", &[]));
    for outcome in ["written", "failed"] {
        expected.insert(series(
            "linkpath_archive_writes_total",
            &[("outcome", outcome)],
        ));
    }
    expected.insert(series("linkpath_archived_games", &[]));
    for outcome in ["seated", "timed_out"] {
        expected.extend(histogram("linkpath_seek_seconds", &[("outcome", outcome)]));
    }
    expected.insert(series(
        "linkpath_build_info",
        &[
            ("version", env!("CARGO_PKG_VERSION")),
            ("commit", &commit()),
        ],
    ));
    for (name, _) in PROCESS_SERIES {
        expected.insert(series(name, &[]));
    }
    expected
}

/// The process series, each without labels, and their types.
const PROCESS_SERIES: [(&str, &str); 8] = [
    ("process_cpu_seconds_total", "counter"),
    ("process_max_fds", "gauge"),
    ("process_open_fds", "gauge"),
    ("process_resident_memory_bytes", "gauge"),
    ("process_start_time_seconds", "gauge"),
    ("process_threads", "gauge"),
    ("process_virtual_memory_bytes", "gauge"),
    ("process_virtual_memory_max_bytes", "gauge"),
];

/// The commit the build script finds, found the same way: `LINKPATH_COMMIT`,
/// else git's short hash of HEAD, else `unknown`.
fn commit() -> String {
    if let Ok(commit) = std::env::var("LINKPATH_COMMIT")
        && !commit.trim().is_empty()
    {
        return commit.trim().to_owned();
    }
    std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Whether a series is read from the process (CPU, memory, ...), whose
/// values move on their own between scrapes.
fn of_the_process(name: &str) -> bool {
    name.starts_with("process_")
}

/// The series whose samples differ between two scrapes, by family (a
/// histogram's `_bucket`, `_sum` and `_count` as one).
fn moved(before: &Scrape, after: &Scrape) -> BTreeSet<Series> {
    assert_eq!(before.series(), after.series(), "the set of series changed");
    after
        .samples
        .iter()
        .filter(|(((name, _), _), _)| !of_the_process(name))
        .filter(|(key, value)| before.samples[*key] != **value)
        .map(|(((name, labels), _), _)| {
            let family = ["_bucket", "_sum", "_count"]
                .iter()
                .find_map(|s| name.strip_suffix(s))
                .unwrap_or(name);
            (family.to_owned(), labels.clone())
        })
        .collect()
}

/// The recorder is the process's, and every other test of this binary
/// moves it: this one runs alone, in a process of its own.
#[test]
fn every_series_is_at_zero_from_the_first_scrape_and_render_moves_its_own() {
    if alone_in_a_process(
        "metrics::every_series_is_at_zero_from_the_first_scrape_and_render_moves_its_own",
    ) {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime")
            .block_on(first_scrapes());
    }
}

/// The memory budget the first scrapes are made with.
const BUDGET: usize = 64 << 20;

async fn first_scrapes() {
    let router = router(Config {
        memory_budget_bytes: Some(BUDGET),
        ..config()
    });

    // The first scrape: before any request, this one included, is counted.
    let first = scrape(&router).await;
    let expected = expected_series();
    assert_eq!(first.series(), expected);
    // The budget is a setting, not a count.
    assert_eq!(
        first.value("linkpath_memory_budget_bytes", &[]),
        BUDGET as f64
    );
    // The build is always 1.
    assert_eq!(
        first.value(
            "linkpath_build_info",
            &[
                ("version", env!("CARGO_PKG_VERSION")),
                ("commit", &commit())
            ]
        ),
        1.0
    );
    let nonzero: Vec<_> = first
        .samples
        .iter()
        .filter(|(((name, _), _), v)| {
            **v != 0.0
                && !of_the_process(name)
                && !["linkpath_memory_budget_bytes", "linkpath_build_info"].contains(&name.as_str())
        })
        .collect();
    assert!(nonzero.is_empty(), "not 0 at the first scrape: {nonzero:?}");
    // The process has been running, holds memory and files, and started
    // within the last day.
    for name in [
        "process_max_fds",
        "process_open_fds",
        "process_resident_memory_bytes",
        "process_threads",
        "process_virtual_memory_bytes",
    ] {
        assert!(first.value(name, &[]) > 0.0, "{name} is 0");
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs_f64();
    let started = first.value("process_start_time_seconds", &[]);
    assert!(
        started <= now && started > now - 86_400.0,
        "started at {started}, now {now}"
    );
    assert_eq!(
        first.types,
        [
            ("linkpath_archive_lag_seconds", "gauge"),
            ("linkpath_archive_pending", "gauge"),
            ("linkpath_archive_unreadable", "gauge"),
            ("linkpath_archive_writes_total", "counter"),
            ("linkpath_archived_games", "gauge"),
            ("linkpath_build_info", "gauge"),
            ("linkpath_connections_cut_total", "counter"),
            ("linkpath_game_actions_total", "counter"),
            ("linkpath_game_duration_seconds", "histogram"),
            ("linkpath_game_streams_open", "gauge"),
            ("linkpath_games_created_total", "counter"),
            ("linkpath_games_finished_total", "counter"),
            ("linkpath_games_stored", "gauge"),
            ("linkpath_http_request_duration_seconds", "histogram"),
            ("linkpath_http_requests_total", "counter"),
            ("linkpath_matches_stored", "gauge"),
            ("linkpath_matches_total", "counter"),
            ("linkpath_memory_budget_bytes", "gauge"),
            ("linkpath_memory_held_bytes", "gauge"),
            ("linkpath_panics_total", "counter"),
            ("linkpath_player_refusals_total", "counter"),
            ("linkpath_players_signed_up_total", "counter"),
            ("linkpath_players_stored", "gauge"),
            ("linkpath_queries_total", "counter"),
            ("linkpath_rejected_total", "counter"),
            ("linkpath_seek_seconds", "histogram"),
            ("linkpath_seeks_waiting", "gauge"),
            ("linkpath_solve_duration_seconds", "histogram"),
            ("linkpath_solves_in_flight", "gauge"),
            ("linkpath_store_duration_seconds", "histogram"),
            ("linkpath_store_errors_total", "counter"),
            ("linkpath_store_reopens_total", "counter"),
        ]
        .into_iter()
        .chain(PROCESS_SERIES)
        .map(|(n, t)| (n.to_owned(), t.to_owned()))
        .collect()
    );
    for (name, labels) in [
        (
            "linkpath_game_duration_seconds",
            &[("route", "/v1/render"), ("outcome", "drawn")][..],
        ),
        ("linkpath_solve_duration_seconds", &[("rules", "mahjong")]),
        (
            "linkpath_http_request_duration_seconds",
            &[("route", "/v1/solve")],
        ),
    ] {
        assert_eq!(first.buckets(name, labels), BUCKETS, "{name}");
    }

    // One picture: its route's request series, its outcome, and the first
    // scrape's own request move; nothing else does.
    let drawing = std::time::Instant::now();
    let drawn = render(&router, &mahjong_sample()).await;
    let drawing = drawing.elapsed();
    assert_eq!(
        (drawn.status, drawn.header("content-type")),
        (200, Some("image/svg+xml"))
    );
    let second = scrape(&router).await;
    assert_eq!(
        moved(&first, &second),
        [
            series(
                "linkpath_game_duration_seconds",
                &[("route", "/v1/render"), ("outcome", "drawn")]
            ),
            series(
                "linkpath_http_request_duration_seconds",
                &[("route", "/metrics")]
            ),
            series(
                "linkpath_http_request_duration_seconds",
                &[("route", "/v1/render")]
            ),
            series(
                "linkpath_http_requests_total",
                &[("route", "/metrics"), ("method", "GET"), ("status", "200")]
            ),
            series(
                "linkpath_http_requests_total",
                &[
                    ("route", "/v1/render"),
                    ("method", "POST"),
                    ("status", "200")
                ]
            ),
        ]
        .into()
    );
    for (name, labels) in [
        (
            "linkpath_game_duration_seconds_count",
            &[("route", "/v1/render"), ("outcome", "drawn")][..],
        ),
        (
            "linkpath_http_request_duration_seconds_count",
            &[("route", "/v1/render")],
        ),
        (
            "linkpath_http_requests_total",
            &[
                ("route", "/v1/render"),
                ("method", "POST"),
                ("status", "200"),
            ],
        ),
    ] {
        assert_eq!(second.value(name, labels), 1.0, "{name} {labels:?}");
    }
    let drawn_seconds = second.value(
        "linkpath_game_duration_seconds_sum",
        &[("route", "/v1/render"), ("outcome", "drawn")],
    );
    // In seconds, and no more than the request took as the test saw it.
    assert!(
        drawn_seconds > 0.0 && drawn_seconds <= drawing.as_secs_f64(),
        "{drawn_seconds} s recorded, {drawing:?} seen"
    );

    // A refused picture ran no solve: only its request is counted.
    let refused = render(&router, &json!({"board": 5, "queries": []})).await;
    refused.error(422, "invalid_board");
    let third = scrape(&router).await;
    assert_eq!(
        moved(&second, &third),
        [
            series(
                "linkpath_http_request_duration_seconds",
                &[("route", "/metrics")]
            ),
            series(
                "linkpath_http_request_duration_seconds",
                &[("route", "/v1/render")]
            ),
            series(
                "linkpath_http_requests_total",
                &[("route", "/metrics"), ("method", "GET"), ("status", "200")]
            ),
            series(
                "linkpath_http_requests_total",
                &[
                    ("route", "/v1/render"),
                    ("method", "POST"),
                    ("status", "422")
                ]
            ),
        ]
        .into()
    );

    // A picture past its deadline is a `deadline` outcome.
    let mut hurried = config();
    hurried.request.solve_timeout_ms = 50;
    let hurried = crate::support::router(hurried);
    let waiting = std::time::Instant::now();
    let late = render(&hurried, &endless_curling()).await;
    let waiting = waiting.elapsed();
    late.error(504, "deadline_exceeded");
    let fourth = scrape(&router).await;
    let deadline = [("route", "/v1/render"), ("outcome", "deadline")];
    assert_eq!(
        fourth.value("linkpath_game_duration_seconds_count", &deadline),
        1.0
    );
    assert_eq!(
        fourth.value(
            "linkpath_http_requests_total",
            &[
                ("route", "/v1/render"),
                ("method", "POST"),
                ("status", "504")
            ]
        ),
        1.0
    );
    let late_seconds = fourth.value("linkpath_game_duration_seconds_sum", &deadline);
    // In seconds: at least the deadline, at most what the test saw.
    assert!(
        late_seconds >= 0.05 && late_seconds <= waiting.as_secs_f64(),
        "{late_seconds} s recorded, {waiting:?} seen"
    );
    assert_eq!(fourth.series(), expected);
}

/// How many distinct made-up values of each kind the cardinality test sends.
const MADE_UP: usize = 10_000;

/// Whatever methods, paths and header values clients make up, the set of
/// series stays the same: labels take only the service's own values.
#[test]
fn made_up_methods_paths_and_headers_add_no_series() {
    if alone_in_a_process("metrics::made_up_methods_paths_and_headers_add_no_series") {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime")
            .block_on(made_up_values());
    }
}

/// The requests of one kind, the `i`th of them different from every other.
#[derive(Clone, Copy, Debug)]
enum MadeUp {
    /// A method nobody defined, on an API route: 405.
    Method,
    /// A path no route has: 404.
    Path,
    /// A request id of the client's on a probe: 200.
    RequestId,
    /// A content type other than JSON on a solve: 415.
    ContentType,
    /// A wrong API key on a solve, with keys required: 401.
    ApiKey,
}

impl MadeUp {
    const ALL: [MadeUp; 5] = [
        MadeUp::Method,
        MadeUp::Path,
        MadeUp::RequestId,
        MadeUp::ContentType,
        MadeUp::ApiKey,
    ];

    fn request(self, i: usize) -> Request<Body> {
        let request = match self {
            MadeUp::Method => Request::builder()
                .method(Method::from_bytes(format!("MADE-UP-{i}").as_bytes()).expect("a token"))
                .uri("/v1/solve"),
            MadeUp::Path => Request::get(format!("/nowhere/{i}")),
            MadeUp::RequestId => Request::get("/healthz").header("x-request-id", format!("id-{i}")),
            MadeUp::ContentType => Request::post("/v1/solve")
                .header("content-type", format!("application/x-made-up-{i}")),
            MadeUp::ApiKey => Request::post("/v1/solve")
                .header("content-type", "application/json")
                .header("authorization", format!("Bearer made-up-{i}")),
        };
        request.body(Body::from("{}")).expect("a valid request")
    }

    /// The status every request of this kind gets.
    fn status(self) -> u16 {
        match self {
            MadeUp::Method => 405,
            MadeUp::Path => 404,
            MadeUp::RequestId => 200,
            MadeUp::ContentType => 415,
            MadeUp::ApiKey => 401,
        }
    }

    /// The labels of the request counter this kind moves.
    fn counted_as(self) -> [(&'static str, &'static str); 3] {
        let (route, method, status) = match self {
            MadeUp::Method => ("/v1/solve", "_OTHER", "405"),
            MadeUp::Path => ("unmatched", "GET", "404"),
            MadeUp::RequestId => ("/healthz", "GET", "200"),
            MadeUp::ContentType => ("/v1/solve", "POST", "415"),
            MadeUp::ApiKey => ("unmatched", "POST", "401"),
        };
        [("route", route), ("method", method), ("status", status)]
    }
}

async fn made_up_values() {
    let open = router(config());
    let mut keyed = config();
    keyed.api_keys = vec!["the-one-key".into()];
    keyed.rate_limit_per_second = 1;
    keyed.rate_limit_burst = Some(1);
    let keyed = router(keyed);
    let router_for = |kind: MadeUp| match kind {
        MadeUp::ApiKey => &keyed,
        _ => &open,
    };

    // One request of each kind first: the `unmatched` route's series
    // appear with the first refusal of each method label and status.
    for kind in MadeUp::ALL {
        let reply = call(router_for(kind), kind.request(MADE_UP)).await;
        assert_eq!(reply.status, kind.status(), "{kind:?}: {}", reply.text());
    }
    // A 60 KB method is counted as any other, and quoted by a short piece.
    let long = "M".repeat(60 * 1024);
    let request = Request::builder()
        .method(Method::from_bytes(long.as_bytes()).expect("a token"))
        .uri("/v1/solve")
        .body(Body::empty())
        .expect("a valid request");
    let (message, _) = call(&open, request).await.error(405, "method_not_allowed");
    assert_eq!(
        message,
        format!("{}… is not allowed on /v1/solve", &long[..100])
    );

    let before = scrape(&open).await;
    for kind in MadeUp::ALL {
        for i in 0..MADE_UP {
            let reply = call(router_for(kind), kind.request(i)).await;
            assert_eq!(
                reply.status,
                kind.status(),
                "{kind:?} {i}: {}",
                reply.text()
            );
        }
    }
    let after = scrape(&open).await;

    assert_eq!(after.series(), before.series(), "the set of series changed");
    assert_eq!(after.samples.len(), before.samples.len());
    for kind in MadeUp::ALL {
        let labels = kind.counted_as();
        assert_eq!(
            after.value("linkpath_http_requests_total", &labels)
                - before.value("linkpath_http_requests_total", &labels),
            MADE_UP as f64,
            "{kind:?}"
        );
    }
    let unauthorized = [("reason", "unauthorized")];
    assert_eq!(
        after.value("linkpath_rejected_total", &unauthorized)
            - before.value("linkpath_rejected_total", &unauthorized),
        MADE_UP as f64
    );
    let methods: BTreeSet<String> = after
        .series()
        .into_iter()
        .filter_map(|(_, labels)| labels.get("method").cloned())
        .collect();
    assert_eq!(
        methods,
        ["DELETE", "GET", "PATCH", "POST", "_OTHER"]
            .map(String::from)
            .into()
    );
}
