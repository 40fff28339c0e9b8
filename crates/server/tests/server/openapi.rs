//! `openapi.yaml` against the router it describes, driven in-process.
//!
//! - Every documented path and method is answered, other methods get 405,
//!   and an undocumented path gets the documented 404.
//! - The `ErrorCode` enum of the file is `ErrorCode::ALL`, in order, and the
//!   status listed for each code is the one the code answers with.
//! - Each request example, posted, answers exactly the response example of
//!   the same name.
//! - Real answers of every reachable status (all but 500, which only a bug
//!   can produce) are documented for their route, carry the documented
//!   headers and content type, and their bodies fit the documented schema.
//! - Requests the server accepts fit the request schema; requests it
//!   refuses that JSON Schema can express do not.
//! - `GET /openapi.yaml` serves the file on disk byte for byte.
//!
//! The schemas are checked by a small validator for the JSON Schema subset
//! the file uses; it panics on any keyword it does not know, so the file
//! cannot outgrow it unnoticed.

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, Request, StatusCode, header};
use http_body_util::BodyExt;
use linkpath_server::error::ErrorCode;
use linkpath_server::{AppState, Config, app};
use serde_json::{Map, Value, json};
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};
use std::time::Duration;
use tower::ServiceExt;
use yaml_rust2::{Yaml, YamlLoader};

const SPEC_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.yaml");

/// The methods tried on every documented path; HEAD is left out because
/// axum answers it on every GET route.
const METHODS: [Method; 5] = [
    Method::GET,
    Method::POST,
    Method::PUT,
    Method::DELETE,
    Method::PATCH,
];

fn spec() -> &'static Value {
    static SPEC: OnceLock<Value> = OnceLock::new();
    SPEC.get_or_init(|| {
        let text = std::fs::read_to_string(SPEC_FILE).expect("openapi.yaml is readable");
        let docs = YamlLoader::load_from_str(&text).expect("openapi.yaml is valid YAML");
        assert_eq!(docs.len(), 1, "openapi.yaml holds one YAML document");
        to_json(&docs[0])
    })
}

fn to_json(yaml: &Yaml) -> Value {
    match yaml {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Integer(i) => Value::from(*i),
        Yaml::Real(text) => Value::from(text.parse::<f64>().expect("a YAML float")),
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Array(items) => Value::Array(items.iter().map(to_json).collect()),
        Yaml::Hash(map) => Value::Object(
            map.iter()
                .map(|(key, value)| {
                    let key = match key {
                        Yaml::String(s) => s.clone(),
                        other => panic!("openapi.yaml has a non-string key {other:?}; quote it"),
                    };
                    (key, to_json(value))
                })
                .collect(),
        ),
        Yaml::Alias(_) | Yaml::BadValue => panic!("openapi.yaml uses an alias or a bad value"),
    }
}

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
// The JSON Schema subset

const KNOWN_KEYWORDS: [&str; 17] = [
    "$ref",
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "minimum",
    "maximum",
    "oneOf",
    "description",
    "title",
    "default",
];

/// The ways `value` fails `schema`, each prefixed with where (`$.results[0]`).
fn violations(schema: &Value, value: &Value, at: &str) -> Vec<String> {
    let mut found = Vec::new();
    check(schema, value, at, &mut found);
    found.sort();
    found
}

fn check(schema: &Value, value: &Value, at: &str, found: &mut Vec<String>) {
    let schema = resolve(schema);
    let rules = object(schema);
    for keyword in rules.keys() {
        assert!(
            KNOWN_KEYWORDS.contains(&keyword.as_str()),
            "the test's validator does not know the schema keyword `{keyword}`"
        );
    }
    if let Some(types) = rules.get("type") {
        let types: Vec<&str> = match types {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            other => panic!("bad type {other}"),
        };
        if !types.iter().any(|t| has_type(value, t)) {
            found.push(format!("{at}: {value} is not of type {types:?}"));
            return;
        }
    }
    if let Some(Value::Array(allowed)) = rules.get("enum")
        && !allowed.contains(value)
    {
        found.push(format!(
            "{at}: {value} is not one of the {} enum values",
            allowed.len()
        ));
    }
    if let Some(constant) = rules.get("const")
        && constant != value
    {
        found.push(format!("{at}: {value} is not {constant}"));
    }
    if let Some(Value::Array(branches)) = rules.get("oneOf") {
        let matching = branches
            .iter()
            .filter(|branch| violations(branch, value, at).is_empty())
            .count();
        if matching != 1 {
            found.push(format!(
                "{at}: {value} matches {matching} of the oneOf branches, expected exactly 1"
            ));
        }
    }
    match value {
        Value::Object(fields) => check_object(rules, fields, at, found),
        Value::Array(items) => check_array(rules, items, at, found),
        Value::String(s) => {
            let length = s.chars().count() as u64;
            if let Some(min) = rules.get("minLength").and_then(Value::as_u64)
                && length < min
            {
                found.push(format!("{at}: {value} is shorter than {min}"));
            }
        }
        Value::Number(n) => {
            let n = n.as_f64().expect("a finite number");
            if let Some(min) = rules.get("minimum").and_then(Value::as_f64)
                && n < min
            {
                found.push(format!("{at}: {n} is below the minimum {min}"));
            }
            if let Some(max) = rules.get("maximum").and_then(Value::as_f64)
                && n > max
            {
                found.push(format!("{at}: {n} is above the maximum {max}"));
            }
        }
        Value::Null | Value::Bool(_) => {}
    }
}

fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        other => panic!("unknown type {other}"),
    }
}

fn check_object(
    rules: &Map<String, Value>,
    fields: &Map<String, Value>,
    at: &str,
    found: &mut Vec<String>,
) {
    let empty = Map::new();
    let properties = rules.get("properties").map_or(&empty, object);
    for name in rules
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !fields.contains_key(name) {
            found.push(format!("{at}: the required key `{name}` is missing"));
        }
    }
    for (name, value) in fields {
        match (properties.get(name), rules.get("additionalProperties")) {
            (Some(schema), _) => check(schema, value, &format!("{at}.{name}"), found),
            (None, Some(Value::Bool(false))) => {
                found.push(format!("{at}: the key `{name}` is not declared"));
            }
            (None, Some(Value::Object(_))) => panic!("additionalProperties schemas are not used"),
            (None, _) => {}
        }
    }
}

fn check_array(rules: &Map<String, Value>, items: &[Value], at: &str, found: &mut Vec<String>) {
    let count = items.len() as u64;
    if let Some(min) = rules.get("minItems").and_then(Value::as_u64)
        && count < min
    {
        found.push(format!("{at}: {count} items, fewer than {min}"));
    }
    if let Some(max) = rules.get("maxItems").and_then(Value::as_u64)
        && count > max
    {
        found.push(format!("{at}: {count} items, more than {max}"));
    }
    if let Some(schema) = rules.get("items") {
        for (i, item) in items.iter().enumerate() {
            check(schema, item, &format!("{at}[{i}]"), found);
        }
    }
}

#[test]
fn the_validator_catches_what_it_should() {
    let error = json!({"$ref": "#/components/schemas/Error"});
    let good = json!({"error": {"code": "not_found", "message": "m"}});
    assert_eq!(violations(&error, &good, "$"), Vec::<String>::new());
    let bad = json!({"error": {"code": "nope", "message": 1, "extra": true}});
    assert_eq!(
        violations(&error, &bad, "$"),
        [
            format!(
                r#"$.error.code: "nope" is not one of the {} enum values"#,
                ErrorCode::ALL.len()
            ),
            "$.error.message: 1 is not of type [\"string\"]".to_owned(),
            "$.error: the key `extra` is not declared".to_owned(),
        ]
    );
    let result = json!({"$ref": "#/components/schemas/QueryResult"});
    assert_eq!(
        violations(
            &result,
            &json!({"connected": true, "reason": "no_path"}),
            "$"
        ),
        [
            r#"$: {"connected":true,"reason":"no_path"} matches 0 of the oneOf branches, expected exactly 1"#
        ]
    );
}

// ---------------------------------------------------------------------------
// Driving the router

/// A response, read whole.
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
    let response = router.clone().oneshot(request).await.expect("infallible");
    let (parts, body) = response.into_parts();
    let body = body.collect().await.expect("the body is read").to_bytes();
    Answer {
        status: parts.status,
        headers: parts.headers,
        body,
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

/// The documented response for `status` of `method path`, or the shared
/// 404/405 responses when the path or the method is not documented.
fn documented_response(method: &Method, path: &str, status: StatusCode) -> &'static Value {
    let responses = &spec()["components"]["responses"];
    let Some(item) = spec()["paths"].get(path) else {
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
                violations(&header["schema"], &typed, name),
                Vec::<String>::new(),
                "{what}"
            );
        }
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
    let body = match essence {
        "application/json" => answer.json(),
        // The description itself: what a client parsing it gets.
        "application/yaml" => to_json(&YamlLoader::load_from_str(&text()).expect("YAML")[0]),
        _ => Value::String(text()),
    };
    assert_eq!(
        violations(&media["schema"], &body, "$"),
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

fn request_examples() -> &'static Map<String, Value> {
    object(&solve_operation()["requestBody"]["content"]["application/json"]["examples"])
}

/// The response example named `name`, with its status; exactly one.
fn response_example(name: &str) -> (StatusCode, &'static Value) {
    let found: Vec<_> = object(&solve_operation()["responses"])
        .iter()
        .filter_map(|(status, response)| {
            let example = resolve(response)
                .pointer("/content/application~1json/examples")?
                .get(name)?;
            Some((status.parse::<StatusCode>().expect("a status"), example))
        })
        .collect();
    assert_eq!(
        found.len(),
        1,
        "request example `{name}` needs exactly one response example of that name"
    );
    (found[0].0, &found[0].1["value"])
}

// ---------------------------------------------------------------------------
// The checks

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
            "GET /",
            "GET /healthz",
            "GET /metrics",
            "GET /openapi.yaml",
            "GET /playground/app.js",
            "GET /playground/style.css",
            "GET /readyz",
            "POST /v1/clear",
            "POST /v1/deal",
            "POST /v1/moves",
            "POST /v1/play",
            "POST /v1/render",
            "POST /v1/shuffle",
            "POST /v1/solve",
        ]
    );
}

#[tokio::test]
async fn every_documented_route_is_answered_and_others_are_not() {
    let router = router();
    for (path, method, operation) in operations() {
        let request = if method == Method::POST {
            // Each route's first request example, which answers 200.
            let examples = &operation["requestBody"]["content"]["application/json"]["examples"];
            let (_, sample) = object(examples).iter().next().expect("a request example");
            let mut request = post_json(sample["value"].to_string());
            *request.uri_mut() = path.parse().expect("a path");
            request
        } else {
            request(method.clone(), path)
        };
        let answer = exchange(&router, request).await;
        assert_eq!(answer.status, StatusCode::OK, "{method} {path}");
    }
    for path in object(&spec()["paths"]).keys() {
        let documented: Vec<Method> = operations()
            .filter(|(p, _, _)| p == path)
            .map(|(_, m, _)| m)
            .collect();
        for method in METHODS.iter().filter(|m| !documented.contains(m)) {
            let answer = exchange(&router, request(method.clone(), path)).await;
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

#[test]
fn the_error_codes_are_error_code_all() {
    let schema = &spec()["components"]["schemas"]["ErrorCode"];
    let in_file: Vec<&str> = schema["enum"]
        .as_array()
        .expect("an enum")
        .iter()
        .map(|v| v.as_str().expect("a string"))
        .collect();
    let in_code: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
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
    let expected: Vec<(String, u16)> = ErrorCode::ALL
        .iter()
        .map(|c| (c.as_str().to_owned(), c.status().as_u16()))
        .collect();
    assert_eq!(listed, expected);
}

#[tokio::test]
async fn each_request_example_answers_its_response_example() {
    let router = router();
    assert!(request_examples().len() >= 2);
    for (name, example) in request_examples() {
        let (status, expected) = response_example(name);
        let answer = exchange(&router, post_json(example["value"].to_string())).await;
        assert_eq!(answer.status, status, "example `{name}`");
        assert_eq!(answer.json(), *expected, "example `{name}`");
        if status == StatusCode::OK {
            let schema = &solve_operation()["requestBody"]["content"]["application/json"]["schema"];
            assert_eq!(
                violations(schema, &example["value"], "$"),
                Vec::<String>::new(),
                "example `{name}` is accepted but does not fit the request schema"
            );
        }
    }
}

#[test]
fn the_rules_md_sample_is_an_example() {
    let example = &request_examples()["mahjong_sample"];
    assert_eq!(
        example["value"],
        json!({
            "board": ["XXXXX", "X   X", "XXX X", " XXX "],
            "rules": "mahjong",
            "queries": [{"from": [1, 2], "to": [4, 2]}, {"from": [0, 2], "to": [3, 3]}]
        })
    );
    assert_eq!(
        response_example("mahjong_sample"),
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
                    violations(&media["schema"], &example["value"], "$"),
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
    ];
    for body in accepted {
        let answer = exchange(&router, post_json(body.to_string())).await;
        assert_eq!(answer.status, StatusCode::OK, "{body}: {:?}", answer.body);
        assert_eq!(violations(schema, &body, "$"), Vec::<String>::new());
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
        r#"{"board": ["XX"], "queries": [], "include_path": null}"#,
        r#"{"board": ["XX"], "queries": [], "rules": null}"#,
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
        r#"{"board": ["XX"], "queries": [{"from": [0, 0], "to": [1.0, 0]}]}"#,
        r#"{"board": ["XX"], "queries": [{"from": [0, 0], "to": [1, 0, 0]}]}"#,
    ]
    .map(|body| (body, StatusCode::UNPROCESSABLE_ENTITY));
    for (body, status) in refused {
        let answer = exchange(&router, post_json(body)).await;
        assert_eq!(answer.status, status, "{body}: {:?}", answer.body);
        let value: Value = serde_json::from_str(body).expect("valid JSON");
        assert_ne!(
            violations(schema, &value, "$"),
            Vec::<String>::new(),
            "the schema accepts {body}, which the server refuses"
        );
    }
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
    let mut config = Config::default();
    config.workers = Some(1);
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
