//! `openapi.yaml` against the router it describes, driven in-process.
//!
//! - The committed file is the document the types generate.
//! - Every documented path and method is answered, other methods get 405,
//!   and an undocumented path gets the documented 404.
//! - The `ErrorCode` enum of the file is `ErrorCode::VARIANTS`, in order,
//!   and the status listed for each code is the one the code answers with.
//! - Each request example of every route, posted, answers exactly the
//!   response example of the same name; the refused requests of
//!   `data/invalid_requests.json` answer exactly their error.
//! - Real answers of every reachable status (all but 500, which only a bug
//!   can produce), a path parameter that is not UTF-8 among them, are
//!   documented for their route, carry the documented
//!   headers and content type, and their bodies fit the documented schema.
//! - Requests the server accepts fit the request schema; requests it
//!   refuses that JSON Schema can express do not. Likewise the values of
//!   `Idempotency-Key`, `If-Match`, the day and `copies` of a daily deal,
//!   a player's id and `since`: each fits its parameter's schema exactly
//!   when the server takes it.
//! - An export's NDJSON lines each fit the schema documented for a line.
//! - `GET /openapi.yaml` serves the file on disk byte for byte, and the
//!   document and the page's files answer 304 to their `ETag`.
//!
//! Schemas are checked with the `jsonschema` crate as JSON Schema 2020-12,
//! the dialect of OpenAPI 3.1, `format` included, each inside a document
//! that holds the file's components so that `#/components/schemas/...`
//! resolves.

use crate::support::{self, SPEC_FILE, spec};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode, header};
use linkpath_api::ErrorCode;
use linkpath_server::{AppState, Clock, Config, app};
use serde_json::{Map, Value, json};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use strum::VariantArray;
use tower::ServiceExt;

/// The methods tried on every documented path; HEAD is left out because
/// axum answers it on every GET route.
const METHODS: [Method; 5] = [
    Method::GET,
    Method::POST,
    Method::PUT,
    Method::DELETE,
    Method::PATCH,
];

/// Follows `$ref` (local only) until a node without one.
fn resolve(node: &Value) -> &Value {
    let mut node = node;
    while let Some(target) = node.get("$ref").and_then(Value::as_str) {
        let pointer = target
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("{target} is not a local $ref"));
        node = spec()
            .pointer(pointer)
            .unwrap_or_else(|| panic!("$ref {target} points nowhere"));
    }
    node
}

fn object(node: &Value) -> &Map<String, Value> {
    node.as_object()
        .unwrap_or_else(|| panic!("expected a mapping, found {node}"))
}

// ---------------------------------------------------------------------------
// JSON Schema

/// Where `value` breaks `schema` (a schema of the file), as "path: error"
/// lines; empty when it fits. `format` is checked too (2020-12 makes it
/// an annotation by default): a `date-time` must be one.
fn violations(schema: &Value, value: &Value) -> Vec<String> {
    validator(schema)
        .iter_errors(value)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// A validator of `schema`, inside a document that holds the file's
/// components.
fn validator(schema: &Value) -> jsonschema::Validator {
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": spec()["components"],
        "allOf": [schema],
    });
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(&root)
        .unwrap_or_else(|e| panic!("{schema} is not a valid schema: {e}"))
}

#[test]
fn the_validator_catches_what_it_should() {
    let error = json!({"$ref": "#/components/schemas/ErrorBody"});
    let good = json!({"error": {"code": "not_found", "message": "m"}});
    assert_eq!(violations(&error, &good), Vec::<String>::new());
    let bad = json!({"error": {"code": "nope", "message": 1, "extra": true}});
    let found = violations(&error, &bad);
    for at in ["/error/code: ", "/error/message: ", "/error: "] {
        assert!(
            found.iter().any(|v| v.starts_with(at)),
            "no violation at {at} in {found:?}"
        );
    }
    // A board of text and number rows matches neither branch of its oneOf.
    let board = json!({"$ref": "#/components/schemas/Board"});
    assert_eq!(violations(&board, &json!(["XX"])), Vec::<String>::new());
    assert_ne!(
        violations(&board, &json!(["XX", [1, 2]])),
        Vec::<String>::new()
    );
}

// ---------------------------------------------------------------------------
// Driving the router

/// A response, read whole, with typed status and headers.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "a {} body is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

fn router() -> Router {
    app(AppState::new(Config::default()))
}

async fn send(router: &Router, request: Request<Body>) -> Answer {
    let reply = support::call(router, request).await;
    Answer {
        status: StatusCode::from_u16(reply.status).expect("a status"),
        headers: reply
            .headers
            .iter()
            .map(|(n, v)| {
                let name = HeaderName::from_bytes(n.as_bytes()).expect("a header name");
                (name, HeaderValue::from_str(v).expect("a header value"))
            })
            .collect(),
        body: reply.body.into(),
    }
}

fn request(method: Method, path: &str) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri(path)
        .body(Body::empty())
        .expect("a valid request")
}

fn post_json(body: impl Into<Body>) -> Request<Body> {
    Request::builder()
        .method(Method::POST)
        .uri("/v1/solve")
        .header(header::CONTENT_TYPE, "application/json")
        .body(body.into())
        .expect("a valid request")
}

/// The documented path whose template `path` fills (`/v1/daily/{date}`
/// for `/v1/daily/2026-12-02`), if any.
fn templated(path: &str) -> Option<&'static Value> {
    let segments: Vec<&str> = path.split('/').collect();
    object(&spec()["paths"])
        .iter()
        .find_map(|(template, item)| {
            let parts: Vec<&str> = template.split('/').collect();
            let fills = parts.len() == segments.len()
                && template.contains('{')
                && parts
                    .iter()
                    .zip(&segments)
                    .all(|(part, segment)| part == segment || part.starts_with('{'));
            fills.then_some(item)
        })
}

/// The documented response for `status` of `method path`, or the shared
/// 404/405 responses when the path or the method is not documented.
fn documented_response(method: &Method, path: &str, status: StatusCode) -> &'static Value {
    let responses = &spec()["components"]["responses"];
    let Some(item) = spec()["paths"].get(path).or_else(|| templated(path)) else {
        assert_eq!(
            status,
            StatusCode::NOT_FOUND,
            "{method} {path} is not documented"
        );
        return &responses["NotFound"];
    };
    let Some(operation) = item.get(method.as_str().to_ascii_lowercase()) else {
        assert_eq!(
            status,
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path} is not documented"
        );
        return &responses["MethodNotAllowed"];
    };
    let response = operation["responses"]
        .get(status.as_str())
        .unwrap_or_else(|| panic!("{method} {path} answered {status}, which is not documented"));
    resolve(response)
}

/// Checks a real answer against the file: status documented, required
/// headers present, content type documented, body fits the schema.
fn check_answer(method: &Method, path: &str, answer: &Answer) {
    let documented = documented_response(method, path, answer.status);
    let what = format!("{method} {path} {}", answer.status);
    for (name, header) in documented
        .get("headers")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let header = resolve(header);
        let value = answer.headers.get(name.as_str());
        if header["required"] == json!(true) {
            assert!(value.is_some(), "{what}: the header {name} is missing");
        }
        if let Some(value) = value {
            let text = value.to_str().expect("an ASCII header");
            let typed = match resolve(&header["schema"])["type"].as_str() {
                Some("integer") => json!(
                    text.parse::<i64>()
                        .unwrap_or_else(|_| panic!("{what}: {name} is {text}, not an integer"))
                ),
                _ => json!(text),
            };
            assert_eq!(
                violations(&header["schema"], &typed),
                Vec::<String>::new(),
                "{what}"
            );
        }
    }
    // A response documented without content (304) has no body.
    if documented.get("content").is_none() {
        assert!(
            answer.body.is_empty(),
            "{what}: a body where none is documented"
        );
        return;
    }
    let content_type = answer
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("{what}: no Content-Type"));
    let essence = content_type.split(';').next().unwrap_or("").trim();
    let content = object(&documented["content"]);
    let media = content
        .iter()
        .find(|(key, _)| key.split(';').next().unwrap_or("").trim() == essence)
        .map(|(_, media)| media)
        .unwrap_or_else(|| {
            panic!(
                "{what}: Content-Type {content_type} is not documented, only {:?}",
                content.keys()
            )
        });
    let text = || String::from_utf8(answer.body.to_vec()).expect("a UTF-8 body");
    // NDJSON: the schema is one line's, and each line must fit it.
    if essence == "application/x-ndjson" {
        for line in text().lines() {
            let line: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{what}: a line that is not JSON: {e}"));
            assert_eq!(
                violations(&media["schema"], &line),
                Vec::<String>::new(),
                "{what}: {line}"
            );
        }
        return;
    }
    let body = match essence {
        "application/json" => answer.json(),
        // The description itself: what a client parsing it gets.
        // What a client parsing it gets, unless it is declared as text.
        "application/yaml" if media["schema"]["type"] != json!("string") => {
            serde_norway::from_str(&text()).expect("YAML")
        }
        _ => Value::String(text()),
    };
    assert_eq!(
        violations(&media["schema"], &body),
        Vec::<String>::new(),
        "{what}: {body}"
    );
}

/// Sends and checks; returns the answer for further checks.
async fn exchange(router: &Router, request: Request<Body>) -> Answer {
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    let answer = send(router, request).await;
    check_answer(&method, &path, &answer);
    answer
}

fn operations() -> impl Iterator<Item = (&'static str, Method, &'static Value)> {
    object(&spec()["paths"]).iter().flat_map(|(path, item)| {
        object(item).iter().map(move |(method, operation)| {
            let method = Method::from_bytes(method.to_ascii_uppercase().as_bytes())
                .unwrap_or_else(|_| panic!("{path}: `{method}` is not a method"));
            (path.as_str(), method, operation)
        })
    })
}

fn solve_operation() -> &'static Value {
    &spec()["paths"]["/v1/solve"]["post"]
}

/// The request examples of `operation`.
fn request_examples(operation: &Value) -> &Map<String, Value> {
    object(&operation["requestBody"]["content"]["application/json"]["examples"])
}

/// The response example of `operation` named `name`, with its status;
/// exactly one.
fn response_example<'a>(operation: &'a Value, name: &str) -> (StatusCode, &'a Value) {
    let (status, _, example) = typed_response_example(operation, name);
    (status, example)
}

/// [`response_example`] with its media type.
fn typed_response_example<'a>(
    operation: &'a Value,
    name: &str,
) -> (StatusCode, &'a str, &'a Value) {
    let found: Vec<_> = object(&operation["responses"])
        .iter()
        .flat_map(|(status, response)| {
            let status = status.parse::<StatusCode>().expect("a status");
            let content = resolve(response).get("content").and_then(Value::as_object);
            content
                .into_iter()
                .flatten()
                .filter_map(move |(media_type, media)| {
                    let example = media.get("examples")?.get(name)?;
                    Some((status, media_type.as_str(), &example["value"]))
                })
        })
        .collect();
    assert_eq!(
        found.len(),
        1,
        "request example `{name}` needs exactly one response example of that name"
    );
    found[0]
}

// ---------------------------------------------------------------------------
// The checks

#[test]
fn the_committed_file_is_the_generated_document() {
    let committed = std::fs::read_to_string(SPEC_FILE).expect("openapi.yaml is readable");
    assert!(
        committed == linkpath_server::openapi_yaml(),
        "openapi.yaml is not the document the code generates: run `cargo run -- openapi > openapi.yaml`"
    );
}

#[test]
fn the_file_is_openapi_with_the_expected_routes() {
    assert_eq!(spec()["openapi"], json!("3.1.0"));
    let mut routes: Vec<String> = operations()
        .map(|(path, method, _)| format!("{method} {path}"))
        .collect();
    routes.sort();
    assert_eq!(
        routes,
        [
            "DELETE /v1/players/me",
            "GET /",
            "GET /healthz",
            "GET /metrics",
            "GET /openapi.yaml",
            "GET /playground/app.js",
            "GET /playground/board.js",
            "GET /playground/game.js",
            "GET /playground/layouts.json",
            "GET /playground/player.js",
            "GET /playground/style.css",
            "GET /playground/tiles.js",
            "GET /readyz",
            "GET /v1/daily/{date}",
            "GET /v1/days/{date}/games/export",
            "GET /v1/games/{id}",
            "GET /v1/games/{id}/events",
            "GET /v1/games/{id}/replay",
            "GET /v1/leaderboards/{name}",
            "GET /v1/leaderboards/{name}/games/export",
            "GET /v1/matches/{id}",
            "GET /v1/matches/{id}/events",
            "GET /v1/players/me",
            "GET /v1/players/{id}/games",
            "GET /v1/players/{id}/games/export",
            "PATCH /v1/players/me",
            "POST /v1/clear",
            "POST /v1/deal",
            "POST /v1/games",
            "POST /v1/games/{id}/hint",
            "POST /v1/games/{id}/moves",
            "POST /v1/games/{id}/pause",
            "POST /v1/games/{id}/redo",
            "POST /v1/games/{id}/resign",
            "POST /v1/games/{id}/resume",
            "POST /v1/games/{id}/shuffle",
            "POST /v1/games/{id}/undo",
            "POST /v1/matches",
            "POST /v1/matches/seek",
            "POST /v1/matches/{id}/join",
            "POST /v1/matches/{id}/leave",
            "POST /v1/matches/{id}/rematch",
            "POST /v1/matches/{id}/start",
            "POST /v1/moves",
            "POST /v1/play",
            "POST /v1/players",
            "POST /v1/players/me/token",
            "POST /v1/render",
            "POST /v1/replays",
            "POST /v1/shuffle",
            "POST /v1/solve",
        ]
    );
}

/// An export's lines, one archived game each, fit the documented schema
/// of one line.
#[tokio::test]
async fn an_exports_lines_fit_the_documented_schema() {
    let clock = support::HeldClock::now();
    let state = AppState::in_memory(support::config(), clock.clone());
    let router = app(state.clone());
    let board = json!({"board": ["A.A"], "rules": "lianliankan"});
    let made = support::post(&router, "/v1/games", &board).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let id = made.json()["id"].as_str().expect("an id").to_owned();
    clock.advance(Duration::from_millis(500));
    let pair = json!({"from": [0, 0], "to": [2, 0]});
    let won = support::post(&router, &format!("/v1/games/{id}/moves"), &pair).await;
    assert_eq!(won.json()["status"], "won", "{}", won.text());
    assert_eq!(state.archive_pass().await.map(|p| p.archived), Ok(1));
    let day = linkpath_archive::Day::of_ms(clock.now_ms());
    let path = format!("/v1/days/{day}/games/export");
    let answer = exchange(&router, request(Method::GET, &path)).await;
    assert_eq!(answer.status, StatusCode::OK, "{path}");
    let text = String::from_utf8(answer.body.to_vec()).expect("UTF-8");
    assert_eq!(text.lines().count(), 1, "{text}");
}

#[tokio::test]
async fn every_documented_route_is_answered_and_others_are_not() {
    let router = router();
    // A held game's routes answer by the game's state, a player's by its
    // token, a match's by both: `games.rs`, `players.rs` and `matches.rs`
    // send each one its request.
    let stateful = |p: &str| {
        p.starts_with("/v1/games") || p.starts_with("/v1/players") || p.starts_with("/v1/matches")
    };
    for (path, method, operation) in operations().filter(|(p, _, _)| !stateful(p)) {
        let request = if method == Method::POST {
            // Each route's first request example, which answers 200.
            let examples = &operation["requestBody"]["content"]["application/json"]["examples"];
            let (_, sample) = object(examples).iter().next().expect("a request example");
            let mut request = post_json(sample["value"].to_string());
            *request.uri_mut() = path.parse().expect("a path");
            request
        } else {
            // A path's parameters, as their descriptions give them.
            let path = path
                .replace("{date}", "2026-12-02")
                .replace("{name}", "0123456789abcdef0123456789abcdef");
            request(method.clone(), &path)
        };
        let answer = exchange(&router, request).await;
        assert_eq!(answer.status, StatusCode::OK, "{method} {path}");
    }
    for path in object(&spec()["paths"]).keys() {
        let documented: Vec<Method> = operations()
            .filter(|(p, _, _)| p == path)
            .map(|(_, m, _)| m)
            .collect();
        let path = &path.replace("{id}", "0123456789abcdef0123456789abcdef");
        for method in METHODS.iter().filter(|m| !documented.contains(m)) {
            let answer = send(&router, request(method.clone(), path)).await;
            assert_eq!(
                answer.status,
                StatusCode::METHOD_NOT_ALLOWED,
                "{method} {path}"
            );
            assert_eq!(answer.json()["error"]["code"], json!("method_not_allowed"));
        }
    }
    for (method, path) in [(Method::GET, "/v2/solve"), (Method::POST, "/solve")] {
        let answer = exchange(&router, request(method.clone(), path)).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{method} {path}");
        assert_eq!(
            answer.json(),
            json!({"error": {"code": "not_found", "message": format!("no route {path}, see /openapi.yaml")}})
        );
    }
}

/// A path parameter that is not UTF-8 once percent-decoded is a 422
/// each route with one documents.
#[tokio::test]
async fn a_path_parameter_that_is_not_utf8_gets_the_documented_422() {
    let router = router();
    for (path, method, _) in operations().filter(|(p, _, _)| p.contains('{')) {
        let (start, rest) = path.split_once('{').expect("a parameter");
        let (_, end) = rest.split_once('}').expect("a parameter");
        let mut request = post_json("{}");
        *request.method_mut() = method.clone();
        *request.uri_mut() = format!("{start}%ff{end}").parse().expect("a path");
        let answer = exchange(&router, request).await;
        assert_eq!(
            answer.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{method} {path}"
        );
    }
}

#[test]
fn the_error_codes_are_error_code_all() {
    let schema = &spec()["components"]["schemas"]["ErrorCode"];
    let in_file: Vec<&str> = schema["enum"]
        .as_array()
        .expect("an enum")
        .iter()
        .map(|v| v.as_str().expect("a string"))
        .collect();
    let in_code: Vec<&str> = ErrorCode::VARIANTS.iter().map(|c| c.as_str()).collect();
    assert_eq!(in_file, in_code);

    // The description lists "- `code`: status" for each code.
    let description = schema["description"].as_str().expect("a description");
    let listed: Vec<(String, u16)> = description
        .lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("- `")?;
            let (code, rest) = rest.split_once("`: ")?;
            Some((code.to_owned(), rest.get(..3)?.parse().ok()?))
        })
        .collect();
    let expected: Vec<(String, u16)> = ErrorCode::VARIANTS
        .iter()
        .map(|c| (c.as_str().to_owned(), c.status()))
        .collect();
    assert_eq!(listed, expected);
}

#[tokio::test]
async fn each_request_example_answers_its_response_example() {
    let router = router();
    let mut counts = Vec::new();
    // A held game's answers carry its random id and the server's time, a
    // player's its random id and token, a match's both: `games.rs`,
    // `players.rs` and `matches.rs` check them.
    let posts = operations().filter(|(p, m, _)| {
        m == Method::POST
            && !p.starts_with("/v1/games")
            && !p.starts_with("/v1/players")
            && !p.starts_with("/v1/matches")
    });
    for (path, method, operation) in posts {
        let examples = request_examples(operation);
        for (name, example) in examples {
            let mut request = post_json(example["value"].to_string());
            *request.uri_mut() = path.parse().expect("a path");
            let answer = exchange(&router, request).await;
            if path == "/v1/render" {
                // A picture has no example to match; `exchange` checked it
                // is a documented answer.
                assert_eq!(answer.status, StatusCode::OK, "{path} example `{name}`");
                continue;
            }
            let (status, media_type, expected) = typed_response_example(operation, name);
            assert_eq!(answer.status, status, "{method} {path} example `{name}`");
            let mut got = if media_type == "application/json" {
                answer.json()
            } else {
                Value::String(String::from_utf8(answer.body.to_vec()).expect("UTF-8"))
            };
            if path == "/v1/clear" {
                // The time spent varies between runs: checked apart.
                let elapsed = got["elapsed_ms"].as_u64().expect("elapsed_ms");
                assert!(elapsed <= 10_000, "{path} example `{name}`: {got}");
                got["elapsed_ms"] = expected["elapsed_ms"].clone();
            }
            assert_eq!(got, *expected, "{method} {path} example `{name}`");
            if status == StatusCode::OK {
                let schema = &operation["requestBody"]["content"]["application/json"]["schema"];
                assert_eq!(
                    violations(schema, &example["value"]),
                    Vec::<String>::new(),
                    "{path} example `{name}` is accepted but does not fit the request schema"
                );
            }
        }
        counts.push((path, examples.len()));
    }
    assert_eq!(
        counts,
        [
            ("/v1/clear", 5),
            ("/v1/deal", 3),
            ("/v1/moves", 5),
            ("/v1/play", 3),
            ("/v1/render", 1),
            ("/v1/replays", 1),
            ("/v1/shuffle", 2),
            ("/v1/solve", 5),
        ]
    );
}

/// The requests the server refuses, each with its exact answer, by route.
const INVALID_REQUESTS: &str = include_str!("data/invalid_requests.json");

#[tokio::test]
async fn each_invalid_request_answers_its_exact_error() {
    let router = router();
    let routes: Value = serde_json::from_str(INVALID_REQUESTS).expect("invalid_requests.json");
    let mut checked = 0;
    for (route, cases) in object(&routes) {
        let path = format!("/v1/{route}");
        for (name, case) in object(cases) {
            let mut request = post_json(case["request"].to_string());
            *request.uri_mut() = path.parse().expect("a path");
            let answer = exchange(&router, request).await;
            assert_eq!(
                (answer.status.as_u16(), answer.json()),
                (
                    u16::try_from(case["status"].as_u64().expect("a status")).expect("a status"),
                    case["response"].clone()
                ),
                "{path} `{name}`"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 40);
}

#[test]
fn the_rules_md_sample_is_an_example() {
    let example = &request_examples(solve_operation())["mahjong_sample"];
    assert_eq!(
        example["value"],
        json!({
            "board": ["XXXXX", "X   X", "XXX X", " XXX "],
            "rules": "mahjong",
            "queries": [{"from": [1, 2], "to": [4, 2]}, {"from": [0, 2], "to": [3, 3]}]
        })
    );
    assert_eq!(
        response_example(solve_operation(), "mahjong_sample"),
        (
            StatusCode::OK,
            &json!({"results": [
                {"connected": true, "segments": 4, "path": [[1, 2], [1, 1], [3, 1], [3, 2], [4, 2]]},
                {"connected": true, "segments": 3, "path": [[0, 2], [0, 4], [3, 4], [3, 3]]}
            ]})
        )
    );
}

#[test]
fn every_response_example_fits_its_schema() {
    let mut checked = 0;
    let shared = object(&spec()["components"]["responses"]).values();
    let per_operation = operations()
        .flat_map(|(_, _, operation)| object(&operation["responses"]).values().map(resolve));
    for response in shared.chain(per_operation) {
        for (media_type, media) in response
            .get("content")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            for (name, example) in media
                .get("examples")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                assert_eq!(
                    violations(&media["schema"], &example["value"]),
                    Vec::<String>::new(),
                    "the {media_type} example `{name}`"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "only {checked} examples");
}

#[tokio::test]
async fn the_request_schema_agrees_with_the_decoder() {
    let schema = &solve_operation()["requestBody"]["content"]["application/json"]["schema"];
    let router = router();
    let accepted = [
        json!({"board": [[7, 0]], "rules": {"movement": "slide"}, "queries": [], "include_path": false}),
        json!({"board": ["é."], "rules": {"match": "same", "outside": false, "max_segments": 5},
               "queries": [{"from": [0, 0], "to": [1, 0]}]}),
        json!({"board": [[0, 4_294_967_295_u32]], "rules": {"preset": "curling", "max_segments": null},
               "queries": [{"from": [0, 0], "to": [1, 0]}]}),
        json!({"board": ["X.X"], "rules": "lianliankan", "queries": [{"from": [0, 0], "to": [2, 0]}]}),
        // `null` for an optional field is the field left out.
        json!({"board": ["XX"], "queries": [], "include_path": null}),
        json!({"board": ["XX"], "queries": [], "rules": null}),
    ];
    for body in accepted {
        let answer = exchange(&router, post_json(body.to_string())).await;
        assert_eq!(answer.status, StatusCode::OK, "{body}: {:?}", answer.body);
        assert_eq!(violations(schema, &body), Vec::<String>::new());
    }
    let refused = [
        r#"[]"#,
        r#"{"queries": []}"#,
        r#"{"board": ["XX"]}"#,
        r#"{"board": "XX", "queries": []}"#,
        r#"{"board": [], "queries": []}"#,
        r#"{"board": [""], "queries": []}"#,
        r#"{"board": [[]], "queries": []}"#,
        r#"{"board": ["XX", [1, 2]], "queries": []}"#,
        r#"{"board": [[1, -1]], "queries": []}"#,
        r#"{"board": [[4294967296]], "queries": []}"#,
        r#"{"board": [[1.5]], "queries": []}"#,
        r#"{"board": ["XX"], "queries": [], "paths": true}"#,
        r#"{"board": ["XX"], "queries": [], "rules": 5}"#,
        r#"{"board": ["XX"], "queries": [], "rules": "go"}"#,
        r#"{"board": ["XX"], "queries": [], "rules": {"preset": "go"}}"#,
        r#"{"board": ["XX"], "queries": [], "rules": {"movement": "fly"}}"#,
        r#"{"board": ["XX"], "queries": [], "rules": {"match": "some"}}"#,
        r#"{"board": ["XX"], "queries": [], "rules": {"max_segments": 0}}"#,
        r#"{"board": ["XX"], "queries": [], "rules": {"max_segments": -1}}"#,
        r#"{"board": ["XX"], "queries": [], "rules": {"turns": 1}}"#,
        r#"{"board": ["XX"], "queries": {}}"#,
        r#"{"board": ["XX"], "queries": [{"from": [0, 0]}]}"#,
        r#"{"board": ["XX"], "queries": [{"from": [0, 0], "to": [1, 0], "via": [0, 0]}]}"#,
        r#"{"board": ["XX"], "queries": [{"from": [0, 0], "to": [1]}]}"#,
        r#"{"board": ["XX"], "queries": [{"from": [0, 0], "to": [1, 0, 0]}]}"#,
    ]
    .map(|body| (body, StatusCode::UNPROCESSABLE_ENTITY));
    let mut loose = Vec::new();
    for (body, status) in refused {
        let answer = exchange(&router, post_json(body)).await;
        assert_eq!(answer.status, status, "{body}: {:?}", answer.body);
        let value: Value = serde_json::from_str(body).expect("valid JSON");
        if violations(schema, &value).is_empty() {
            loose.push(body);
        }
    }
    assert_eq!(
        loose,
        Vec::<&str>::new(),
        "the schema accepts these, which the server refuses"
    );
    // JSON Schema counts 1.0 as an integer; the server does not.
    let float = r#"{"board": ["XX"], "queries": [{"from": [0, 0], "to": [1.0, 0]}]}"#;
    let answer = exchange(&router, post_json(float)).await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{float}");
}

/// The schema of the parameter `name` of `method` `path` in the file.
fn parameter_schema(path: &str, method: &str, name: &str) -> &'static Value {
    let parameters = spec()["paths"][path][method]["parameters"]
        .as_array()
        .unwrap_or_else(|| panic!("{method} {path} has no parameters"));
    parameters
        .iter()
        .map(resolve)
        .find(|parameter| parameter["name"] == name)
        .map(|parameter| &parameter["schema"])
        .unwrap_or_else(|| panic!("{method} {path} has no parameter {name}"))
}

/// Whether the server refused `request` for its parameter `name`: a 422
/// naming it. Any other answer (a 200, or a 401, 409 or 412 of a value it
/// read) is not.
async fn refuses(router: &Router, request: Request<Body>, name: &str) -> bool {
    let answer = send(router, request).await;
    answer.status == StatusCode::UNPROCESSABLE_ENTITY && answer.json()["error"]["field"] == name
}

#[tokio::test]
async fn parameter_schemas_agree_with_the_server() {
    let router = router();
    let create = |key: &[u8]| {
        Request::builder()
            .method(Method::POST)
            .uri("/v1/games")
            .header(header::CONTENT_TYPE, "application/json")
            .header(
                "idempotency-key",
                HeaderValue::from_bytes(key).expect("a header value"),
            )
            .body(Body::from(
                r#"{"width": 4, "height": 4, "types": 4, "seed": 1}"#,
            ))
            .expect("a valid request")
    };
    let game = send(&router, create(b"the-game")).await.json()["id"]
        .as_str()
        .expect("a game's id")
        .to_owned();
    let mut disagreements = Vec::new();

    // Each key once: the same key with another request is refused as reused.
    let schema = validator(parameter_schema("/v1/games", "post", "Idempotency-Key"));
    let (longest, too_long) = ("k".repeat(255), "k".repeat(256));
    let keys = [
        "a",
        "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
        "!~",
        &longest,
        &too_long,
        "a b",
        "é",
        "",
    ];
    for key in keys {
        let refused = refuses(&router, create(key.as_bytes()), "Idempotency-Key").await;
        if schema.is_valid(&json!(key)) == refused {
            disagreements.push(format!("Idempotency-Key: {key:?}, refused {refused}"));
        }
    }

    let schema = validator(parameter_schema("/v1/games/{id}/pause", "post", "If-Match"));
    let tags = [
        "*",
        r#""0""#,
        r#"W/"3""#,
        r#""1", "2""#,
        r#""1",W/"2""#,
        "0",
        r#""x""#,
        r#""""#,
        r#""1","#,
        "W/0",
        r#""-1""#,
        r#"W/ "1""#,
    ];
    for tag in tags {
        let request = Request::builder()
            .method(Method::POST)
            .uri(format!("/v1/games/{game}/pause"))
            .header(header::IF_MATCH, tag)
            .body(Body::empty())
            .expect("a valid request");
        let refused = refuses(&router, request, "If-Match").await;
        if schema.is_valid(&json!(tag)) == refused {
            disagreements.push(format!("If-Match: {tag:?}, refused {refused}"));
        }
    }

    // The ends of every month, and months and days that are none, in years
    // around the calendar's turns.
    let schema = validator(parameter_schema("/v1/daily/{date}", "get", "date"));
    for year in [
        0, 1969, 1970, 1972, 1999, 2000, 2024, 2026, 2100, 2400, 9999,
    ] {
        for month in 0..=13 {
            for day in [0, 1, 9, 10, 19, 20, 28, 29, 30, 31, 32] {
                let date = format!("{year:04}-{month:02}-{day:02}");
                let path = format!("/v1/daily/{date}?width=2&height=2&types=1&difficulty=easy");
                let refused = refuses(&router, request(Method::GET, &path), "date").await;
                if schema.is_valid(&json!(date)) == refused {
                    disagreements.push(format!("date: {date}, refused {refused}"));
                }
            }
        }
    }

    let schema = validator(parameter_schema("/v1/daily/{date}", "get", "copies"));
    for copies in 0..=6 {
        let path = format!("/v1/daily/2026-12-02?width=4&height=3&types=1&copies={copies}");
        let refused = refuses(&router, request(Method::GET, &path), "copies").await;
        if schema.is_valid(&json!(copies)) == refused {
            disagreements.push(format!("copies: {copies}, refused {refused}"));
        }
    }

    let schema = validator(parameter_schema("/v1/players/{id}/games", "get", "id"));
    let zeros = "0".repeat(32);
    let ids = [
        &*zeros,
        "me",
        "ME",
        &zeros[1..],
        &format!("{zeros}0"),
        "0123456789ABCDEF0123456789abcdef",
    ];
    for id in ids {
        let path = format!("/v1/players/{id}/games");
        let refused = refuses(&router, request(Method::GET, &path), "id").await;
        if schema.is_valid(&json!(id)) == refused {
            disagreements.push(format!("player id: {id:?}, refused {refused}"));
        }
    }

    let schema = validator(parameter_schema("/v1/players/{id}/games", "get", "since"));
    let times = [
        "2026-12-05T00:00:00Z",
        "2026-12-05t00:00:00z",
        "2026-12-05T01:00:00+01:00",
        "2026-12-05T00:00:00.5-05:30",
        "0001-01-01T00:00:00Z",
        "2024-02-29T12:00:00Z",
        "yesterday",
        "2026-12-05",
        "2026-12-05T00:00:00",
        "2026-02-29T00:00:00Z",
        "2026-12-05T24:00:00Z",
        "2026-12-05T00:00:00+0100",
    ];
    for time in times {
        let path = format!(
            "/v1/players/{zeros}/games?since={}",
            time.replace('+', "%2B")
        );
        let refused = refuses(&router, request(Method::GET, &path), "since").await;
        if schema.is_valid(&json!(time)) == refused {
            disagreements.push(format!("since: {time:?}, refused {refused}"));
        }
    }
    assert_eq!(disagreements, Vec::<String>::new());
}

#[tokio::test]
async fn error_answers_fit_the_file() {
    let router = router();
    // 400
    let answer = exchange(&router, post_json("{")).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    // 415, without and with a Content-Type
    let mut no_type = post_json("{}");
    no_type.headers_mut().remove(header::CONTENT_TYPE);
    assert_eq!(
        exchange(&router, no_type).await.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    let mut text = post_json("{}");
    text.headers_mut()
        .insert(header::CONTENT_TYPE, "text/plain".parse().expect("a value"));
    assert_eq!(
        exchange(&router, text).await.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    // 413 from Content-Length, before the body is read
    let mut huge = post_json("{}");
    huge.headers_mut().insert(
        header::CONTENT_LENGTH,
        (Config::default().request.max_body_bytes + 1).into(),
    );
    assert_eq!(
        exchange(&router, huge).await.status,
        StatusCode::PAYLOAD_TOO_LARGE
    );
    // 413 from the limits checked while parsing: one answer carries `field`
    let mut config = Config::default();
    config.request.max_queries = 1;
    config.request.max_body_bytes = 200;
    let small = app(AppState::new(config));
    let two = json!({"board": ["XX"], "queries": [{"from": [0, 0], "to": [1, 0]}, {"from": [0, 0], "to": [1, 0]}]});
    let answer = exchange(&small, post_json(two.to_string())).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(answer.json()["error"]["field"], json!("queries"));
    let answer = exchange(&small, post_json(" ".repeat(201))).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    // 413 of a day's deal too big for the server
    let path = "/v1/daily/2026-12-02?width=1000&height=1000";
    let answer = exchange(&router, request(Method::GET, path)).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(answer.json()["error"]["field"], json!("width"));
    // 422 of each code
    for (body, code) in [
        (json!({"queries": []}), "invalid_board"),
        (
            json!({"board": ["X"], "queries": [], "rules": "go"}),
            "invalid_rules",
        ),
        (
            json!({"board": ["X"], "queries": [{"from": [0, 1], "to": [0, 0]}]}),
            "invalid_query",
        ),
        (
            json!({"board": ["X"], "queries": [], "x": 1}),
            "invalid_request",
        ),
    ] {
        let answer = exchange(&router, post_json(body.to_string())).await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(answer.json()["error"]["code"], json!(code), "{body}");
    }
}

/// A request body that never arrives.
struct Stalled;

impl hyper::body::Body for Stalled {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        Poll::Pending
    }
}

#[tokio::test]
async fn a_slow_body_gets_the_documented_408() {
    let router = app(AppState::new(Config {
        body_timeout_ms: 30,
        ..Config::default()
    }));
    let answer = exchange(&router, post_json(Body::new(Stalled))).await;
    assert_eq!(answer.status, StatusCode::REQUEST_TIMEOUT);
    assert_eq!(
        answer.json(),
        json!({"error": {"code": "request_timeout", "message": "the body did not arrive within 30 ms"}})
    );
}

#[tokio::test]
async fn readiness_while_shutting_down_is_the_documented_503() {
    let state = AppState::new(Config::default());
    let router = app(state.clone());
    state.begin_shutdown();
    let answer = exchange(&router, request(Method::GET, "/readyz")).await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(answer.json(), json!({"status": "shutting_down"}));
}

/// A request that keeps a solver busy for seconds: a serpentine corridor
/// whose two ends need about `side` segments, asked 10000 times.
fn slow_request() -> String {
    let side = 301;
    let rows: Vec<String> = (0..side)
        .map(|y| match y % 2 {
            0 => " ".repeat(side),
            // Walls with the gap at the right end, then the left, and so on.
            _ if (y / 2) % 2 == 0 => format!("{} ", "X".repeat(side - 1)),
            _ => format!(" {}", "X".repeat(side - 1)),
        })
        .collect();
    let mut rows = rows;
    rows[0].replace_range(0..1, "A");
    // With side = 301 the last wall (row 299) is open on the left, so the
    // corridor ends at the right of the last row.
    rows[side - 1].replace_range(side - 1..side, "A");
    let query = json!({"from": [0, 0], "to": [side - 1, side - 1]});
    json!({
        "board": rows,
        "rules": {"preset": "mahjong", "outside": false},
        "queries": vec![query; 10_000],
    })
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_solve_gets_the_documented_504() {
    let mut config = Config::default();
    config.request.solve_timeout_ms = 100;
    let router = app(AppState::new(config));
    let answer = exchange(&router, post_json(slow_request())).await;
    assert_eq!(answer.status, StatusCode::GATEWAY_TIMEOUT);
    assert_eq!(answer.json()["error"]["code"], json!("deadline_exceeded"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_server_gets_the_documented_503() {
    let mut config = Config {
        workers: Some(1),
        ..Config::default()
    };
    config.request.solve_timeout_ms = 3_000;
    let router = app(AppState::new(config));
    let slow = slow_request();
    let hold = || tokio::spawn(router.clone().oneshot(post_json(slow.clone())));
    let mut busy = hold();
    let cheap = json!({"board": ["XX"], "queries": [{"from": [0, 0], "to": [1, 0]}]}).to_string();
    let mut overloaded = None;
    for _ in 0..2000 {
        // The slow request may find the slot taken by a cheap one (and get
        // the 503 itself) on a loaded machine: send it again.
        if busy.is_finished() {
            busy = hold();
        }
        let answer = exchange(&router, post_json(cheap.clone())).await;
        if answer.status == StatusCode::SERVICE_UNAVAILABLE {
            overloaded = Some(answer);
            break;
        }
        assert_eq!(answer.status, StatusCode::OK);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // Dropping the busy request cancels its solve.
    busy.abort();
    let answer = overloaded.expect("a 503 while the only solver slot is busy");
    assert_eq!(answer.headers[header::RETRY_AFTER], "1");
    assert_eq!(
        answer.json(),
        json!({"error": {"code": "overloaded", "message": "all 1 solver slots are busy, retry shortly"}})
    );
}

#[tokio::test]
async fn the_served_file_is_the_file_on_disk() {
    let answer = exchange(&router(), request(Method::GET, "/openapi.yaml")).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.headers[header::CONTENT_TYPE], "application/yaml");
    let on_disk = std::fs::read(SPEC_FILE).expect("openapi.yaml is readable");
    assert!(!on_disk.is_empty());
    assert!(
        answer.body == on_disk,
        "GET /openapi.yaml differs from openapi.yaml"
    );
}

#[tokio::test]
async fn the_document_and_the_page_are_revalidated_by_their_etag() {
    let router = router();
    for path in [
        "/openapi.yaml",
        "/",
        "/playground/app.js",
        "/playground/player.js",
        "/playground/board.js",
        "/playground/tiles.js",
        "/playground/game.js",
        "/playground/style.css",
        "/playground/layouts.json",
    ] {
        let first = exchange(&router, request(Method::GET, path)).await;
        assert_eq!(first.status, StatusCode::OK, "{path}");
        assert_eq!(first.headers[header::CACHE_CONTROL], "no-cache", "{path}");
        let etag = first.headers[header::ETAG].clone();
        let again = |tag: HeaderValue| {
            let mut asked = request(Method::GET, path);
            asked.headers_mut().insert(header::IF_NONE_MATCH, tag);
            exchange(&router, asked)
        };
        let unchanged = again(etag.clone()).await;
        assert_eq!(unchanged.status, StatusCode::NOT_MODIFIED, "{path}");
        assert_eq!(unchanged.headers[header::ETAG], etag, "{path}");
        assert!(unchanged.body.is_empty(), "{path}");
        let other = again(HeaderValue::from_static("\"0000\"")).await;
        assert_eq!(other.status, StatusCode::OK, "{path}");
        assert_eq!(other.body, first.body, "{path}");
    }
}

#[tokio::test]
async fn health_answers_are_the_documented_examples() {
    let router = router();
    for (path, status) in [("/healthz", "200"), ("/readyz", "200")] {
        let answer = exchange(&router, request(Method::GET, path)).await;
        let documented = &spec()["paths"][path]["get"]["responses"][status]["content"]["application/json"]
            ["examples"];
        let (_, example) = object(documented).iter().next().expect("an example");
        assert_eq!(answer.json(), example["value"], "{path}");
    }
    let answer = exchange(&router, request(Method::GET, "/metrics")).await;
    let text = String::from_utf8(answer.body.to_vec()).expect("UTF-8");
    assert!(
        text.contains("# TYPE linkpath_http_requests_total counter"),
        "{text}"
    );
}
