//! The Prometheus series of the service: their names, every value their
//! labels can take, and the recorder that serves them at `/metrics`.
//!
//! Every series whose labels are known in advance is registered at 0 when
//! the recorder is installed, so alert rules see it from the first scrape: a
//! `rate()` over a series that does not exist yet is no data, not 0, and an
//! alert on it can neither fire nor resolve.
//!
//! | series | labels |
//! |---|---|
//! | `linkpath_http_requests_total` (counter) | `route` (an entry of [`ROUTES`] or `unmatched`), `method` ([`method_label`]), `status` |
//! | `linkpath_http_request_duration_seconds` (histogram) | `route` |
//! | `linkpath_queries_total` (counter, `/v1/solve`) | `rules` ([`rules_labels`]), `outcome` ([`query_outcomes`]) |
//! | `linkpath_solve_duration_seconds` (histogram, `/v1/solve`) | `rules` |
//! | `linkpath_game_duration_seconds` (histogram, the game routes and `/v1/render`) | `route`, `outcome` ([`GAME_OUTCOMES`]) |
//! | `linkpath_solves_in_flight` (gauge) | none |
//! | `linkpath_rejected_total` (counter) | `reason` ([`REJECTIONS`]) |
//! | `linkpath_panics_total` (counter) | none |
//! | `linkpath_memory_budget_bytes`, `linkpath_memory_held_bytes` (gauges) | none |
//! | `linkpath_connections_cut_total` (counter) | `reason` ([`CUTS`]) |
//! | `linkpath_players_signed_up_total` (counter) | `via` ([`SIGN_UPS`]) |
//! | `linkpath_player_refusals_total` (counter) | `reason` ([`PLAYER_REFUSALS`]) |
//! | `linkpath_players_stored` (gauge) | none |
//! | `linkpath_matches_total` (counter) | `state` ([`MATCH_STATES`]): matches this process moved into it |
//! | `linkpath_matches_stored` (gauge) | none |
//! | `linkpath_seeks_waiting` (gauge, this process's) | none |
//! | `linkpath_seek_seconds` (histogram, from a seek to its answer) | `outcome` ([`SEEK_OUTCOMES`]) |
//! | `linkpath_archive_lag_seconds`, `linkpath_archive_pending`, `linkpath_archived_games` (gauges) | none |
//! | `linkpath_archive_unreadable` (gauge, this process's: marked games passed over, at most 900) | none |
//! | `linkpath_archive_writes_total` (counter) | `outcome` (`written`, `failed`) |
//! | `linkpath_build_info` (gauge, always 1) | `version`, `commit` (fixed when built) |
//! | `process_cpu_seconds_total` (counter), `process_open_fds`, `process_max_fds`, `process_virtual_memory_bytes`, `process_virtual_memory_max_bytes`, `process_resident_memory_bytes`, `process_start_time_seconds`, `process_threads` (gauges) | none |
//!
//! The `process_*` series are named as every Prometheus client library
//! names them, and read from `/proc` as each scrape is rendered (on the
//! systems metrics-process knows; elsewhere there are none). CPU time is in
//! whole seconds: the crate keeps the counter an integer.
//!
//! At 0 from the start: `linkpath_http_requests_total` for every route of
//! [`ROUTES`] with its method and each status it answers itself
//! ([`route_statuses`]), and every other series with every label value
//! listed here. Refusals made before routing (401, 404, 429, ...) are
//! counted under `route="unmatched"`, and a 405 under its route and the
//! method refused, each from the first one.
//!
//! No label takes a value the client chose: `route` is the route's pattern,
//! never the path; `method` is one of the nine standard methods or `_OTHER`
//! (OpenTelemetry's HTTP semantic conventions); `status` is what the
//! service answered; the others are the service's own names. However many
//! methods, paths or header values clients make up, the series a scrape can
//! hold are the ones above plus, for the refusals, at most one per route,
//! method label and status.
//!
//! `linkpath_game_duration_seconds` has no `rules` label: a game request's
//! rules are known only once its body is decoded on the solver pool, which
//! may be the very step that ran out of time, so a 504 could not be labelled;
//! and its 21 route-outcome pairs × 5 rules × 20 lines would be 2,100
//! lines per scrape. Its `_count` is the number of requests by route and outcome.

use linkpath_api::{ApiError, ErrorCode};
use linkpath_engine::{Preset, Reason};
use metrics::{Histogram, histogram};
use metrics::{Unit, counter, describe_counter, describe_gauge, describe_histogram, gauge};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::time::{Duration, Instant};

pub(crate) const HTTP_REQUESTS: &str = "linkpath_http_requests_total";
pub(crate) const HTTP_REQUEST_DURATION: &str = "linkpath_http_request_duration_seconds";
pub(crate) const QUERIES: &str = "linkpath_queries_total";
pub(crate) const SOLVE_DURATION: &str = "linkpath_solve_duration_seconds";
pub(crate) const GAME_DURATION: &str = "linkpath_game_duration_seconds";
pub(crate) const SOLVES_IN_FLIGHT: &str = "linkpath_solves_in_flight";
pub(crate) const REJECTED: &str = "linkpath_rejected_total";
pub(crate) const PANICS: &str = "linkpath_panics_total";
pub(crate) const MEMORY_BUDGET: &str = "linkpath_memory_budget_bytes";
pub(crate) const MEMORY_HELD: &str = "linkpath_memory_held_bytes";
pub(crate) const CONNECTIONS_CUT: &str = "linkpath_connections_cut_total";
pub(crate) const GAMES_CREATED: &str = "linkpath_games_created_total";
pub(crate) const GAMES_FINISHED: &str = "linkpath_games_finished_total";
pub(crate) const GAME_ACTIONS: &str = "linkpath_game_actions_total";
pub(crate) const STORE_DURATION: &str = "linkpath_store_duration_seconds";
pub(crate) const STORE_ERRORS: &str = "linkpath_store_errors_total";
pub(crate) const GAMES_STORED: &str = "linkpath_games_stored";
pub(crate) const STORE_REOPENS: &str = "linkpath_store_reopens_total";
pub(crate) const GAME_STREAMS: &str = "linkpath_game_streams_open";
pub(crate) const PLAYERS_SIGNED_UP: &str = "linkpath_players_signed_up_total";
pub(crate) const PLAYER_REFUSED: &str = "linkpath_player_refusals_total";
pub(crate) const PLAYERS_STORED: &str = "linkpath_players_stored";
pub(crate) const MATCHES: &str = "linkpath_matches_total";
pub(crate) const MATCHES_STORED: &str = "linkpath_matches_stored";

/// The states a match moves into, for `linkpath_matches_total`: made
/// (`open`), full or started (`countdown`), racing (`playing`), over
/// (`finished`). Summed over the replicas, its rates are the matches
/// flowing through each state.
pub(crate) const MATCH_STATES: [&str; 4] = ["open", "countdown", "playing", "finished"];
pub(crate) const SEEKS_WAITING: &str = "linkpath_seeks_waiting";
pub(crate) const SEEK_DURATION: &str = "linkpath_seek_seconds";
pub(crate) const BUILD_INFO: &str = "linkpath_build_info";

/// The commit the binary was built from (see build.rs), or `unknown`.
pub(crate) const COMMIT: &str = env!("LINKPATH_COMMIT");

static PROCESS: std::sync::LazyLock<metrics_process::Collector> =
    std::sync::LazyLock::new(metrics_process::Collector::default);

/// How a game ends, for `linkpath_games_finished_total`.
pub(crate) const FINISHES: [&str; 4] = ["won", "out_of_time", "resigned", "race_over"];

/// What became of an action on a game, for `linkpath_game_actions_total`:
/// applied, an illegal move, refused as it stands (paused, nothing to
/// undo, ...), on a finished game, a stale `If-Match`, or past the
/// deadline.
pub(crate) const ACTION_OUTCOMES: [&str; 6] = [
    "applied", "illegal", "refused", "finished", "stale", "deadline",
];

/// How a player came to be, for `linkpath_players_signed_up_total`: a
/// sign-up that got a token, or a studio's JWT seen the first time.
pub(crate) const SIGN_UPS: [&str; 2] = ["token", "studio"];

/// How a seek ended: seated in a match, or answered 204 (no partner in
/// its wait, replaced by a newer seek, the server stopping).
pub(crate) const SEEK_OUTCOMES: [&str; 2] = ["seated", "timed_out"];

/// Why a request naming a player was refused, for
/// `linkpath_player_refusals_total`: a token unknown (never made,
/// replaced or erased), a studio's JWT refused, a player's token on a
/// service's route, another player's game, the games one player may hold,
/// a sign-up without the key it needs, too many sign-ups or unknown
/// tokens from one address.
pub(crate) const PLAYER_REFUSALS: [&str; 8] = [
    "unknown_token",
    "jwt",
    "service_route",
    "not_your_game",
    "quota",
    "sign_up",
    "sign_up_rate",
    "guessing",
];

/// The store's operations, for `linkpath_store_duration_seconds`.
pub(crate) const STORE_OPERATIONS: [&str; 2] = ["read", "write"];

/// Why a connection was closed in the middle of a request: it sent under
/// the minimum rate over a period (`too_slow`), or under that rate when a
/// new client needed room at the cap (`room`).
pub(crate) const CUTS: [&str; 2] = ["too_slow", "room"];

/// The upper bounds of every `_seconds` histogram's buckets. They reach past
/// the default 10 s deadline so work that overruns it lands in a bucket of
/// its own instead of only in `+Inf`.
pub(crate) const BUCKETS: [f64; 17] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0, 30.0,
];

/// Every route of the router, as `(method, path)`: the `route` and
/// `method` labels of the request series.
pub(crate) const ROUTES: [(&str, &str); 51] = [
    ("POST", "/v1/solve"),
    ("POST", "/v1/render"),
    ("POST", "/v1/moves"),
    ("POST", "/v1/play"),
    ("POST", "/v1/clear"),
    ("POST", "/v1/deal"),
    ("POST", "/v1/shuffle"),
    ("POST", "/v1/games"),
    ("GET", "/v1/games/{id}"),
    ("POST", "/v1/games/{id}/moves"),
    ("POST", "/v1/games/{id}/hint"),
    ("POST", "/v1/games/{id}/undo"),
    ("POST", "/v1/games/{id}/redo"),
    ("POST", "/v1/games/{id}/shuffle"),
    ("POST", "/v1/games/{id}/pause"),
    ("POST", "/v1/games/{id}/resume"),
    ("POST", "/v1/games/{id}/resign"),
    ("GET", "/v1/games/{id}/events"),
    ("GET", "/v1/games/{id}/replay"),
    ("POST", "/v1/replays"),
    ("GET", "/v1/daily/{date}"),
    ("GET", "/v1/leaderboards/{name}"),
    ("GET", "/v1/leaderboards/{name}/games/export"),
    ("GET", "/v1/days/{date}/games/export"),
    ("POST", "/v1/matches"),
    ("GET", "/v1/matches/{id}"),
    ("POST", "/v1/matches/{id}/join"),
    ("POST", "/v1/matches/{id}/leave"),
    ("POST", "/v1/matches/{id}/start"),
    ("POST", "/v1/matches/{id}/rematch"),
    ("GET", "/v1/matches/{id}/events"),
    ("POST", "/v1/matches/seek"),
    ("POST", "/v1/players"),
    ("GET", "/v1/players/me"),
    ("PATCH", "/v1/players/me"),
    ("DELETE", "/v1/players/me"),
    ("POST", "/v1/players/me/token"),
    ("GET", "/v1/players/{id}/games"),
    ("GET", "/v1/players/{id}/games/export"),
    ("GET", "/"),
    ("GET", "/playground/app.js"),
    ("GET", "/playground/player.js"),
    ("GET", "/playground/board.js"),
    ("GET", "/playground/tiles.js"),
    ("GET", "/playground/game.js"),
    ("GET", "/playground/style.css"),
    ("GET", "/playground/layouts.json"),
    ("GET", "/healthz"),
    ("GET", "/readyz"),
    ("GET", "/metrics"),
    ("GET", "/openapi.yaml"),
];

/// The methods the `method` label names as they are; any other is
/// [`OTHER_METHOD`].
pub(crate) const METHODS: [&str; 9] = [
    "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
];

/// The `method` label of a request whose method is not one of [`METHODS`].
pub(crate) const OTHER_METHOD: &str = "_OTHER";

/// The `method` label of a request: its method when standard, else
/// [`OTHER_METHOD`], so a client inventing methods cannot add series.
/// Methods are case-sensitive (RFC 9110 section 9.1): `get` is `_OTHER`.
pub(crate) fn method_label(method: &str) -> &'static str {
    METHODS
        .into_iter()
        .find(|m| *m == method)
        .unwrap_or(OTHER_METHOD)
}

/// The `route` label of an answer: the entry of [`ROUTES`] it was routed
/// to, or `unmatched`. Taken from the list rather than the router so that
/// the label's values are fixed here.
pub(crate) fn route_label(matched: Option<&str>) -> &'static str {
    let Some(matched) = matched else {
        return UNMATCHED;
    };
    let route = ROUTES.iter().find(|(_, path)| *path == matched);
    debug_assert!(route.is_some(), "the route {matched} is not in ROUTES");
    route.map_or(UNMATCHED, |(_, path)| path)
}

/// The `route` label of a request no route answered (401, 404, 405, 429,
/// ...).
pub(crate) const UNMATCHED: &str = "unmatched";

/// The `outcome` of a 504 on a game route or `/v1/render`.
pub(crate) const DEADLINE: &str = "deadline";

/// Each game route and `/v1/render` with the outcomes it records. For the
/// board routes: `open` (moves are left), `stuck` (tiles but no move) or
/// `cleared`; `/v1/play` also `stopped` when a listed move was refused.
pub(crate) const GAME_OUTCOMES: [(&str, &[&str]); 6] = [
    ("/v1/moves", &["open", "stuck", "cleared", DEADLINE]),
    (
        "/v1/play",
        &["open", "stuck", "cleared", "stopped", DEADLINE],
    ),
    (
        "/v1/clear",
        &["solvable", "unsolvable", "unknown", DEADLINE],
    ),
    ("/v1/deal", &["dealt", DEADLINE]),
    ("/v1/shuffle", &["shuffled", DEADLINE]),
    ("/v1/render", &["drawn", DEADLINE]),
];

/// The codes of requests refused before any solving, counted in
/// `linkpath_rejected_total` by `reason`.
pub(crate) const REJECTIONS: [ErrorCode; 6] = [
    ErrorCode::TooLarge,
    ErrorCode::Overloaded,
    ErrorCode::Unauthorized,
    ErrorCode::RateLimited,
    ErrorCode::RequestTimeout,
    ErrorCode::NotImplemented,
];

/// Why a query is not connected, for `linkpath_queries_total`.
const REASONS: [Reason; 5] = [
    Reason::NoPath,
    Reason::TypeMismatch,
    Reason::NotATile,
    Reason::Blocked,
    Reason::SameCell,
];

// No wildcard: when the solver gains a reason this stops compiling until
// REASONS lists it, so its series is not missing from the first scrape.
const _: () = match REASONS[0] {
    Reason::NoPath
    | Reason::TypeMismatch
    | Reason::NotATile
    | Reason::Blocked
    | Reason::SameCell => {}
};

/// The `rules` label values: each preset's name, and `custom` for rules
/// that change a preset (as the request decoder labels them).
pub(crate) fn rules_labels() -> impl Iterator<Item = &'static str> {
    Preset::ALL.into_iter().map(Preset::name).chain(["custom"])
}

/// The `outcome` label values of `linkpath_queries_total`: `connected`, or
/// the reason a query is not.
pub(crate) fn query_outcomes() -> impl Iterator<Item = &'static str> {
    ["connected"]
        .into_iter()
        .chain(REASONS.into_iter().map(Reason::name))
}

/// The errors a route's handler or body reader answers. The others come
/// from layers outside the router (401, 429, 501) or its fallback (404),
/// so their requests carry the `unmatched` route; a 405 carries its route
/// and the method refused, so it is counted from the first one.
const ROUTE_ERRORS: [ErrorCode; 11] = [
    ErrorCode::MalformedJson,
    ErrorCode::RequestTimeout,
    ErrorCode::TooLarge,
    ErrorCode::UnsupportedMediaType,
    ErrorCode::InvalidBoard,
    ErrorCode::InvalidRules,
    ErrorCode::InvalidQuery,
    ErrorCode::InvalidRequest,
    ErrorCode::Internal,
    ErrorCode::Overloaded,
    ErrorCode::DeadlineExceeded,
];

/// The errors the game routes answer besides those of any route (a game
/// that is not there, a move refused, a stale version, the store).
const GAME_ERRORS: [ErrorCode; 4] = [
    ErrorCode::GameNotFound,
    ErrorCode::IllegalMove,
    ErrorCode::VersionMismatch,
    ErrorCode::StoreUnavailable,
];

/// The statuses a route answers itself: a page or probe only 200 (readiness
/// also 503 while shutting down); an API route 200 and each status of
/// [`ROUTE_ERRORS`].
pub(crate) fn route_statuses(method: &str, route: &str) -> Vec<u16> {
    let mut statuses = vec![200];
    if method == "POST" || method == "PATCH" {
        statuses.extend(ROUTE_ERRORS.map(|code| code.status()));
    } else if route == "/readyz" {
        statuses.push(503);
    } else if route == "/v1/daily/{date}" {
        // A deal: a board over the limits, refused settings, no solver
        // slot, past the deadline.
        statuses.extend([413, 422, 503, 504]);
    } else if route == "/v1/leaderboards/{name}" {
        statuses.extend([422, 503]);
    } else if route == "/v1/leaderboards/{name}/games/export"
        || route == "/v1/days/{date}/games/export"
    {
        // An export: games private here, a bad name, date or query, one
        // of the caller's streaming already, the archive away.
        statuses.extend([403, 422, 429, 503]);
    }
    if route.starts_with("/v1/players") {
        // A token unknown, the store; a new player or token is 201, an
        // erase 204, a list's query 422.
        statuses.extend([401, 503]);
        match (method, route) {
            ("POST", _) => statuses.push(201),
            ("DELETE", _) => statuses.push(204),
            ("GET", "/v1/players/{id}/games") => statuses.extend([403, 422]),
            // An export: also one of the caller's streaming already.
            ("GET", "/v1/players/{id}/games/export") => statuses.extend([403, 422, 429]),
            _ => {}
        }
    }
    if route.starts_with("/v1/matches") {
        // A token unknown or absent, not invited, no such match, refused,
        // the store; a new match is 201.
        statuses.extend([401, 403, 404, 409, 503]);
        if route == "/v1/matches" {
            statuses.push(201);
        }
        if route == "/v1/matches/seek" {
            // Seated, or no partner within the wait.
            statuses.extend([201, 204]);
        }
    }
    if route.starts_with("/v1/games") {
        statuses.extend(GAME_ERRORS.map(|code| code.status()));
        if route == "/v1/games" {
            statuses.push(201);
        }
    }
    statuses.sort_unstable();
    statuses.dedup();
    statuses
}

/// Installs the process-wide recorder, describes every series and
/// registers the known ones at 0. Call once per process: the caller keeps
/// the handle.
pub(crate) fn install() -> PrometheusHandle {
    let recorder = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &BUCKETS)
        .expect("the bucket list is not empty")
        .build_recorder();
    let handle = recorder.handle();
    if metrics::set_global_recorder(recorder).is_err() {
        tracing::warn!("a metrics recorder was already installed; /metrics stays empty");
    }
    describe();
    register_zeros();
    handle
}

fn describe() {
    describe_counter!(
        HTTP_REQUESTS,
        "HTTP requests answered, by route, method and status"
    );
    describe_histogram!(
        HTTP_REQUEST_DURATION,
        Unit::Seconds,
        "Time to answer an HTTP request, by route"
    );
    describe_counter!(
        QUERIES,
        "Queries answered by /v1/solve, by rules and outcome"
    );
    describe_histogram!(
        SOLVE_DURATION,
        Unit::Seconds,
        "Time to answer the queries of one /v1/solve request, by rules"
    );
    describe_histogram!(
        GAME_DURATION,
        Unit::Seconds,
        "Time from a game or /v1/render request's solver slot to its answer, by route and outcome"
    );
    describe_gauge!(SOLVES_IN_FLIGHT, "Solves running on the blocking pool");
    describe_counter!(REJECTED, "Requests refused before solving, by reason");
    describe_counter!(PANICS, "Solves that panicked (a bug)");
    describe_gauge!(
        MEMORY_BUDGET,
        Unit::Bytes,
        "What request bodies and unwritten answers may hold at once"
    );
    describe_gauge!(
        MEMORY_HELD,
        Unit::Bytes,
        "What request bodies and unwritten answers hold now"
    );
    describe_counter!(
        CONNECTIONS_CUT,
        "Connections closed in the middle of a request for sending it too slowly, by reason"
    );
    describe_counter!(GAMES_CREATED, "Games created");
    describe_counter!(GAMES_FINISHED, "Games finished, by status");
    describe_counter!(GAME_ACTIONS, "Actions on games, by action and outcome");
    describe_histogram!(
        STORE_DURATION,
        Unit::Seconds,
        "Time of one read or write of the game store, by operation"
    );
    describe_counter!(
        STORE_ERRORS,
        "Game store calls that failed or timed out (answered 503)"
    );
    describe_counter!(
        STORE_REOPENS,
        "Times the store file was closed and opened again after a failure (an I/O error, or a panic of redb's on a damaged page)"
    );
    describe_gauge!(
        GAMES_STORED,
        "Games in the store, as last counted (every 30 s)"
    );
    describe_gauge!(GAME_STREAMS, "Game event streams open");
    describe_counter!(PLAYERS_SIGNED_UP, "Players made, by how they signed up");
    describe_counter!(
        PLAYER_REFUSED,
        "Requests refused for who sent them (tokens, players, ownership), by reason"
    );
    describe_gauge!(
        PLAYERS_STORED,
        "Players in the store, as last counted (every 30 s)"
    );
    describe_counter!(MATCHES, "Matches this process moved into each state");
    describe_gauge!(
        MATCHES_STORED,
        "Matches in the store, as last counted (every 30 s)"
    );
    describe_gauge!(SEEKS_WAITING, "Seeks waiting for partners in this process");
    describe_histogram!(
        SEEK_DURATION,
        Unit::Seconds,
        "Time from a seek to its answer, by outcome: seated, the time to seat"
    );
    describe_gauge!(
        BUILD_INFO,
        "Always 1: the version and commit of the running binary"
    );
    crate::archive::metrics::describe();
    PROCESS.describe();
}

fn register_zeros() {
    for (method, route) in ROUTES {
        // Registering a histogram renders its buckets at 0.
        let _: Histogram = histogram!(HTTP_REQUEST_DURATION, "route" => route);
        for status in route_statuses(method, route) {
            counter!(HTTP_REQUESTS, "route" => route, "method" => method, "status" => status.to_string())
                .increment(0);
        }
    }
    for rules in rules_labels() {
        let _: Histogram = histogram!(SOLVE_DURATION, "rules" => rules);
        for outcome in query_outcomes() {
            counter!(QUERIES, "rules" => rules, "outcome" => outcome).increment(0);
        }
    }
    for (route, outcomes) in GAME_OUTCOMES {
        for &outcome in outcomes {
            let _: Histogram = histogram!(GAME_DURATION, "route" => route, "outcome" => outcome);
        }
    }
    gauge!(SOLVES_IN_FLIGHT).set(0.0);
    for code in REJECTIONS {
        counter!(REJECTED, "reason" => code.as_str()).increment(0);
    }
    counter!(PANICS).increment(0);
    gauge!(MEMORY_BUDGET).set(0.0);
    gauge!(MEMORY_HELD).set(0.0);
    for reason in CUTS {
        counter!(CONNECTIONS_CUT, "reason" => reason).increment(0);
    }
    counter!(GAMES_CREATED).increment(0);
    for status in FINISHES {
        counter!(GAMES_FINISHED, "status" => status).increment(0);
    }
    for action in linkpath_api::games::ActionKind::all() {
        if matches!(action, linkpath_api::games::ActionKind::Create) {
            continue;
        }
        for outcome in ACTION_OUTCOMES {
            counter!(GAME_ACTIONS, "action" => action.name(), "outcome" => outcome).increment(0);
        }
    }
    for operation in STORE_OPERATIONS {
        let _: Histogram = histogram!(STORE_DURATION, "operation" => operation);
    }
    counter!(STORE_ERRORS).increment(0);
    counter!(STORE_REOPENS).increment(0);
    gauge!(GAMES_STORED).set(0.0);
    gauge!(GAME_STREAMS).set(0.0);
    for via in SIGN_UPS {
        counter!(PLAYERS_SIGNED_UP, "via" => via).increment(0);
    }
    for reason in PLAYER_REFUSALS {
        counter!(PLAYER_REFUSED, "reason" => reason).increment(0);
    }
    gauge!(PLAYERS_STORED).set(0.0);
    for state in MATCH_STATES {
        counter!(MATCHES, "state" => state).increment(0);
    }
    gauge!(MATCHES_STORED).set(0.0);
    gauge!(SEEKS_WAITING).set(0.0);
    for outcome in SEEK_OUTCOMES {
        let _: Histogram = histogram!(SEEK_DURATION, "outcome" => outcome);
    }
    crate::archive::metrics::register_zeros();
    gauge!(BUILD_INFO, "version" => env!("CARGO_PKG_VERSION"), "commit" => COMMIT).set(1.0);
    // Read now as well as at each scrape, so the first scrape has them.
    record_process();
}

/// Reads the process series afresh, as each scrape is rendered.
pub(crate) fn record_process() {
    PROCESS.collect();
}

pub(crate) fn record_game_created() {
    counter!(GAMES_CREATED).increment(1);
}

/// `status` is one of [`FINISHES`].
pub(crate) fn record_game_finished(status: &'static str) {
    counter!(GAMES_FINISHED, "status" => status).increment(1);
}

/// `action` is an action's name, `outcome` one of [`ACTION_OUTCOMES`].
pub(crate) fn record_game_action(action: &'static str, outcome: &'static str) {
    counter!(GAME_ACTIONS, "action" => action, "outcome" => outcome).increment(1);
}

/// `operation` is one of [`STORE_OPERATIONS`].
pub(crate) fn record_store(operation: &'static str, started: Instant) {
    histogram!(STORE_DURATION, "operation" => operation).record(started.elapsed());
}

pub(crate) fn record_store_error() {
    counter!(STORE_ERRORS).increment(1);
}

/// The store's own count, set as each scrape is rendered.
pub(crate) fn record_store_reopens(reopens: u64) {
    counter!(STORE_REOPENS).absolute(reopens);
}

pub(crate) fn record_games_stored(games: u64) {
    gauge!(GAMES_STORED).set(games as f64);
}

/// `via` is one of [`SIGN_UPS`].
pub(crate) fn record_sign_up(via: &'static str) {
    counter!(PLAYERS_SIGNED_UP, "via" => via).increment(1);
}

/// `reason` is one of [`PLAYER_REFUSALS`].
pub(crate) fn record_player_refusal(reason: &'static str) {
    debug_assert!(PLAYER_REFUSALS.contains(&reason), "{reason}");
    counter!(PLAYER_REFUSED, "reason" => reason).increment(1);
}

pub(crate) fn record_players_stored(players: u64) {
    gauge!(PLAYERS_STORED).set(players as f64);
}

/// A match written in `state`, one of [`MATCH_STATES`], that was not in
/// it before.
pub(crate) fn record_match_state(state: &'static str) {
    debug_assert!(MATCH_STATES.contains(&state), "{state}");
    counter!(MATCHES, "state" => state).increment(1);
}

pub(crate) fn record_matches_stored(matches: u64) {
    gauge!(MATCHES_STORED).set(matches as f64);
}

pub(crate) fn record_seeks_waiting(waiting: usize) {
    gauge!(SEEKS_WAITING).set(waiting as f64);
}

/// A seek answered, `outcome` one of [`SEEK_OUTCOMES`].
pub(crate) fn record_seek(outcome: &'static str, started: Instant) {
    histogram!(SEEK_DURATION, "outcome" => outcome).record(started.elapsed().as_secs_f64());
}

pub(crate) fn record_streams_open(open: usize) {
    gauge!(GAME_STREAMS).set(open as f64);
}

/// The memory budget as it stands, set as each scrape is rendered.
pub(crate) fn record_memory(budget: &crate::budget::MemoryBudget) {
    gauge!(MEMORY_BUDGET).set(budget.limit() as f64);
    gauge!(MEMORY_HELD).set(budget.used() as f64);
}

/// Counts a connection cut for sending too slowly; `reason` is one of
/// [`CUTS`].
pub(crate) fn record_cut(reason: &'static str) {
    counter!(CONNECTIONS_CUT, "reason" => reason).increment(1);
}

/// Counts one HTTP answer and its latency, under labels from
/// [`route_label`] and [`method_label`].
pub(crate) fn record_request(
    route: &'static str,
    method: &'static str,
    status: u16,
    latency: Duration,
) {
    histogram!(HTTP_REQUEST_DURATION, "route" => route).record(latency);
    counter!(HTTP_REQUESTS, "route" => route, "method" => method, "status" => status.to_string())
        .increment(1);
}

/// Counts a refusal when `code` is one of [`REJECTIONS`].
pub(crate) fn record_rejection(code: ErrorCode) {
    if REJECTIONS.contains(&code) {
        counter!(REJECTED, "reason" => code.as_str()).increment(1);
    }
}

pub(crate) fn record_panic() {
    counter!(PANICS).increment(1);
}

/// Records what a request on a game route or `/v1/render` came to, timed
/// from `started`: `outcome` of its answer, or [`DEADLINE`] for a 504. A
/// refusal (4xx, 503) ran no solve and is not recorded here; the request
/// and rejection counters have it. A client that goes away drops the
/// request before this runs, so it is not recorded either.
pub(crate) fn record_solve<T>(
    route: &'static str,
    started: Instant,
    answer: &Result<T, ApiError>,
    outcome: impl FnOnce(&T) -> &'static str,
) {
    let outcome = match answer {
        Ok(answer) => outcome(answer),
        Err(e) if e.code == ErrorCode::DeadlineExceeded => DEADLINE,
        Err(_) => return,
    };
    debug_assert!(
        GAME_OUTCOMES
            .iter()
            .any(|(r, outcomes)| *r == route && outcomes.contains(&outcome)),
        "{route} {outcome} is not in GAME_OUTCOMES, so it is missing from the first scrape"
    );
    histogram!(GAME_DURATION, "route" => route, "outcome" => outcome).record(started.elapsed());
}

/// Counts a solve on the blocking pool for as long as it runs, even when it
/// unwinds.
pub(crate) struct InFlight;

impl InFlight {
    pub(crate) fn start() -> Self {
        gauge!(SOLVES_IN_FLIGHT).increment(1);
        InFlight
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        gauge!(SOLVES_IN_FLIGHT).decrement(1);
    }
}
