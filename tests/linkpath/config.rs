//! Settings that make no sense stop `linkpath serve` at start: exit code 2
//! and one line on stderr naming the flag, its environment variable and
//! what was expected, before anything listens.

use crate::support::{Process, http_get, linkpath, run};
use serde_json::json;

/// How a setting is given: on the command line or in the environment.
enum Given {
    Flags(&'static [&'static str]),
    Env(&'static [(&'static str, &'static str)]),
}

/// Each setting refused, and the whole of what stderr says.
const REFUSED: &[(Given, &str)] = &[
    (
        Given::Env(&[("LINKPATH_API_KEYS", ",")]),
        "--api-keys (LINKPATH_API_KEYS): an API key is empty: expected keys of visible ASCII, separated by commas",
    ),
    (
        Given::Env(&[("LINKPATH_API_KEYS", " ")]),
        "--api-keys (LINKPATH_API_KEYS): an API key is empty: expected keys of visible ASCII, separated by commas",
    ),
    (
        Given::Flags(&["--api-keys", "alpha-key,,beta-key"]),
        "--api-keys (LINKPATH_API_KEYS): an API key is empty: expected keys of visible ASCII, separated by commas",
    ),
    (
        Given::Env(&[("LINKPATH_API_KEYS", "alpha-key,beta key")]),
        "--api-keys (LINKPATH_API_KEYS): an API key has a character other than visible ASCII (! to ~)",
    ),
    (
        Given::Env(&[("LINKPATH_WORKERS", "0")]),
        "--workers (LINKPATH_WORKERS) is \"0\": expected at least 1",
    ),
    (
        Given::Flags(&["--workers", "many"]),
        "--workers (LINKPATH_WORKERS) is \"many\": expected a whole number of at least 1 (invalid digit found in string)",
    ),
    (
        Given::Env(&[("LINKPATH_MAX_BODY_BYTES", "0")]),
        "--max-body-bytes (LINKPATH_MAX_BODY_BYTES) is \"0\": expected at least 1",
    ),
    (
        Given::Flags(&["--max-cells", "0"]),
        "--max-cells (LINKPATH_MAX_CELLS) is \"0\": expected at least 1",
    ),
    (
        Given::Flags(&["--max-side", "0"]),
        "--max-side (LINKPATH_MAX_SIDE) is \"0\": expected at least 1",
    ),
    (
        Given::Flags(&["--max-queries", "0"]),
        "--max-queries (LINKPATH_MAX_QUERIES) is \"0\": expected at least 1",
    ),
    (
        Given::Flags(&["--max-segments", "0"]),
        "--max-segments (LINKPATH_MAX_SEGMENTS) is \"0\": expected at least 1",
    ),
    (
        Given::Flags(&["--solve-timeout-ms", "0"]),
        "--solve-timeout-ms (LINKPATH_SOLVE_TIMEOUT_MS) is \"0\": expected at least 1",
    ),
    (
        Given::Flags(&["--header-timeout-ms", "0"]),
        "--header-timeout-ms (LINKPATH_HEADER_TIMEOUT_MS) is \"0\": expected at least 1",
    ),
    (
        Given::Flags(&["--body-timeout-ms", "0"]),
        "--body-timeout-ms (LINKPATH_BODY_TIMEOUT_MS) is \"0\": expected at least 1",
    ),
    (
        Given::Env(&[("LINKPATH_MAX_CONNECTIONS", "0")]),
        "--max-connections (LINKPATH_MAX_CONNECTIONS) is \"0\": expected at least 1",
    ),
    (
        Given::Flags(&["--max-connections", "99999999999999999999"]),
        "--max-connections (LINKPATH_MAX_CONNECTIONS) is \"99999999999999999999\": expected a whole number of at least 1 (number too large to fit in target type)",
    ),
    (
        Given::Flags(&["--max-moves", "0"]),
        "--max-moves (LINKPATH_MAX_MOVES) is \"0\": expected at least 1",
    ),
    (
        Given::Flags(&["--max-render-cells", "0"]),
        "--max-render-cells (LINKPATH_MAX_RENDER_CELLS) is \"0\": expected at least 1",
    ),
    (
        Given::Env(&[
            ("LINKPATH_RATE_LIMIT_BURST", "0"),
            ("LINKPATH_RATE_LIMIT_PER_SECOND", "5"),
        ]),
        "--rate-limit-burst (LINKPATH_RATE_LIMIT_BURST) is \"0\": expected at least 1",
    ),
    (
        Given::Env(&[("LINKPATH_RATE_LIMIT_BURST", "40")]),
        "--rate-limit-burst (LINKPATH_RATE_LIMIT_BURST) is set without a rate: expected --rate-limit-per-second (LINKPATH_RATE_LIMIT_PER_SECOND) above 0, or no burst",
    ),
    (
        Given::Flags(&["--rate-limit-burst", "40", "--rate-limit-per-second", "0"]),
        "--rate-limit-burst (LINKPATH_RATE_LIMIT_BURST) is set without a rate: expected --rate-limit-per-second (LINKPATH_RATE_LIMIT_PER_SECOND) above 0, or no burst",
    ),
    (
        Given::Env(&[("LINKPATH_TRUSTED_PROXIES", "10.0.0.0/8,10.0.0.0/33")]),
        "--trusted-proxies (LINKPATH_TRUSTED_PROXIES) is \"10.0.0.0/33\": expected a CIDR such as 10.0.0.0/8 or fd00::/8, or an IP address",
    ),
    (
        Given::Flags(&["--trusted-proxies", "nginx"]),
        "--trusted-proxies (LINKPATH_TRUSTED_PROXIES) is \"nginx\": expected a CIDR such as 10.0.0.0/8 or fd00::/8, or an IP address",
    ),
    (
        Given::Env(&[
            (
                "LINKPATH_PLAYER_JWT_SECRET",
                "a studio secret of 31 bytes, no",
            ),
            ("LINKPATH_PLAYER_JWT_ISSUER", "https://login.studio.example"),
            ("LINKPATH_PLAYER_JWT_AUDIENCE", "linkpath"),
        ]),
        "--player-jwt-secret (LINKPATH_PLAYER_JWT_SECRET) is too short: expected at least 32 bytes",
    ),
    (
        Given::Flags(&[
            "--player-jwt-secret",
            "a studio secret of at least 32 bytes",
            "--player-jwt-issuer",
            "https://login.studio.example",
        ]),
        "--player-jwt-audience (LINKPATH_PLAYER_JWT_AUDIENCE) is not set: expected the audience (aud) of the studio's tokens, required with --player-jwt-key or --player-jwt-secret",
    ),
    (
        Given::Flags(&[
            "--player-jwt-key",
            "crates/server/tests/data/jwt/rsa-private.pem",
            "--player-jwt-issuer",
            "https://login.studio.example",
            "--player-jwt-audience",
            "linkpath",
        ]),
        "--player-jwt-key (LINKPATH_PLAYER_JWT_KEY) is crates/server/tests/data/jwt/rsa-private.pem: expected a public key, found a private one: give linkpath the public half (openssl pkey -pubout)",
    ),
    (
        Given::Flags(&["--log-format", "xml"]),
        "--log-format (LINKPATH_LOG_FORMAT) is \"xml\": expected one of text, json",
    ),
    (
        Given::Env(&[("LINKPATH_CORS_ORIGINS", "game.example")]),
        "--cors-origins (LINKPATH_CORS_ORIGINS) is \"game.example\": expected an origin, scheme://host[:port], or *",
    ),
    (
        Given::Env(&[("LINKPATH_MEMORY_BUDGET_BYTES", "0")]),
        "--memory-budget-bytes (LINKPATH_MEMORY_BUDGET_BYTES) is \"0\": expected at least 1",
    ),
    (
        Given::Flags(&[
            "--memory-budget-bytes",
            "1000000",
            "--max-body-bytes",
            "600000",
        ]),
        "--memory-budget-bytes (LINKPATH_MEMORY_BUDGET_BYTES) is 1000000: expected at least 1200000, twice --max-body-bytes (LINKPATH_MAX_BODY_BYTES), so that the largest body fits",
    ),
    (
        Given::Env(&[("LINKPATH_LISTEN_BACKLOG", "0")]),
        "--listen-backlog (LINKPATH_LISTEN_BACKLOG) is \"0\": expected at least 1",
    ),
    (
        Given::Flags(&["--admin-max-connections", "0"]),
        "--admin-max-connections (LINKPATH_ADMIN_MAX_CONNECTIONS) is \"0\": expected at least 1",
    ),
    (
        Given::Flags(&[
            "--listen",
            "127.0.0.1:18080",
            "--admin-listen",
            "127.0.0.1:18080",
        ]),
        "--admin-listen (LINKPATH_ADMIN_LISTEN) is 127.0.0.1:18080: expected an address other than --listen (LINKPATH_LISTEN)",
    ),
    (
        Given::Flags(&["--max-connections", "64"]),
        "--max-streams (LINKPATH_MAX_STREAMS) is 1000 with --max-connections (LINKPATH_MAX_CONNECTIONS) 64: expected at most 48 (or --max-connections at least 1016), so that 16 connections are always left to requests that are not event streams",
    ),
    (
        Given::Env(&[
            ("LINKPATH_MAX_CONNECTIONS", "64"),
            ("LINKPATH_MAX_STREAMS", "64"),
        ]),
        "--max-streams (LINKPATH_MAX_STREAMS) is 64 with --max-connections (LINKPATH_MAX_CONNECTIONS) 64: expected at most 48 (or --max-connections at least 80), so that 16 connections are always left to requests that are not event streams",
    ),
    (
        Given::Flags(&["--max-connections", "16", "--max-streams", "1"]),
        "--max-streams (LINKPATH_MAX_STREAMS) is 1 with --max-connections (LINKPATH_MAX_CONNECTIONS) 16: expected --max-connections at least 17, so that 16 connections are always left to requests that are not event streams",
    ),
    (
        Given::Flags(&["--admin-listen", "9090"]),
        "--admin-listen (LINKPATH_ADMIN_LISTEN) is \"9090\": expected an IP address and port, such as 127.0.0.1:8080 or [::]:8080",
    ),
    (
        Given::Flags(&["--listen", "localhost"]),
        "--listen (LINKPATH_LISTEN) is \"localhost\": expected an IP address and port, such as 127.0.0.1:8080 or [::]:8080",
    ),
];

#[test]
fn a_setting_that_makes_no_sense_stops_the_server_at_start() {
    for (given, message) in REFUSED {
        for serve in [&["serve"][..], &[]] {
            let mut command = linkpath();
            // Any free port, in case the server started after all: then
            // `run` fails on its time limit rather than on a port in use.
            command.args(serve).env("LINKPATH_LISTEN", "127.0.0.1:0");
            match given {
                Given::Flags(flags) => command.args(*flags),
                Given::Env(vars) => command.envs(vars.iter().copied()),
            };
            let output = run(command, b"");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(
                (
                    output.status.code(),
                    stderr.as_ref(),
                    output.stdout.as_slice()
                ),
                (Some(2), format!("linkpath: {message}\n").as_str(), &b""[..]),
                "{serve:?} {message}"
            );
        }
    }
}

/// Event streams up to `--max-connections` less 16 are accepted: the
/// server starts and answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_that_leave_16_connections_to_other_requests_are_accepted() {
    let server = Process::serve(
        "streams-at-their-most",
        &[
            "--store",
            "memory",
            "--max-connections",
            "64",
            "--max-streams",
            "48",
        ],
    )
    .await;
    let probe = http_get(server.addr, "/healthz").await;
    assert_eq!((probe.status, probe.json()), (200, json!({"status": "ok"})));
}

/// A key is never quoted back, whatever is wrong with the list.
#[test]
fn a_refused_api_key_list_is_not_quoted() {
    let mut command = linkpath();
    command.env("LINKPATH_API_KEYS", "secret-one,secret two");
    let output = run(command, b"");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("secret"), "{stderr}");
}

/// The command line's own size limits are held to the same rules.
#[test]
fn solve_and_render_refuse_a_zero_limit_too() {
    for (command, flag, variable) in [
        ("solve", "--max-body-bytes", "LINKPATH_MAX_BODY_BYTES"),
        ("render", "--max-cells", "LINKPATH_MAX_CELLS"),
        ("render", "--max-render-cells", "LINKPATH_MAX_RENDER_CELLS"),
    ] {
        let mut refused = linkpath();
        refused.args([command, flag, "0"]);
        let output = run(refused, b"{}");
        assert_eq!(
            (
                output.status.code(),
                String::from_utf8_lossy(&output.stderr).as_ref()
            ),
            (
                Some(2),
                format!("linkpath: {flag} ({variable}) is \"0\": expected at least 1\n").as_str()
            ),
            "{command} {flag}"
        );
    }
}
