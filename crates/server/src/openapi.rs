//! The OpenAPI document: paths and schemas generated from the handlers and
//! the wire types of `linkpath_api`, merged with the prose of
//! `openapi/frame.yaml` (description, tags, shared responses) and
//! `openapi/operations.yaml` (each operation's summary and examples).
//! `linkpath openapi` prints it; the committed `openapi.yaml` must equal it,
//! and `/openapi.yaml` serves it. That route lives here, not in `health.rs`
//! with the other operations routes: the document lists health's handlers,
//! so health does not reach back for the document.

use super::cached::Cached;
use axum::Router;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use serde_json::{Map, Value, json};
use std::sync::LazyLock;
use utoipa::OpenApi;

#[derive(OpenApi)]
#[openapi(
    paths(
        super::solve::solve,
        super::render::render,
        super::mechanics::moves,
        super::mechanics::play,
        super::mechanics::clear,
        super::mechanics::deal,
        super::mechanics::shuffle,
        super::games::routes::create::create,
        super::games::routes::show::show,
        super::games::routes::act::make_move,
        super::games::routes::act::hint,
        super::games::routes::act::undo,
        super::games::routes::act::redo,
        super::games::routes::act::shuffle,
        super::games::routes::act::pause,
        super::games::routes::act::resume,
        super::games::routes::act::resign,
        super::games::routes::events::stream,
        super::games::routes::replay::replay,
        super::games::routes::check_replay::check_replay,
        super::games::routes::daily::daily,
        super::games::routes::leaderboard::leaderboard,
        super::games::routes::leaderboard_export::export,
        super::games::routes::day_export::export,
        super::matches::routes::create::create,
        super::matches::routes::show::show,
        super::matches::routes::change::join,
        super::matches::routes::change::leave,
        super::matches::routes::change::start,
        super::matches::routes::change::rematch,
        super::matches::routes::events::stream,
        super::matches::routes::seek::seek,
        super::players::routes::sign_up::sign_up,
        super::players::routes::me::me,
        super::players::routes::rename::rename,
        super::players::routes::new_token::new_token,
        super::players::routes::erase::erase,
        super::players::routes::games::games,
        super::players::routes::export::export,
        super::playground::index,
        super::playground::app_js,
        super::playground::player_js,
        super::playground::board_js,
        super::playground::tiles_js,
        super::playground::game_js,
        super::playground::style_css,
        super::playground::layouts,
        super::health::healthz,
        super::health::readyz,
        super::health::metrics,
        openapi,
    ),
    components(schemas(linkpath_api::ErrorBody))
)]
struct Generated;

const FRAME: &str = include_str!("../openapi/frame.yaml");
const OPERATIONS: &str = include_str!("../openapi/operations.yaml");

/// The document's route; it needs no state, so it takes any.
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new().route("/openapi.yaml", get(openapi))
}

#[utoipa::path(get, path = "/openapi.yaml", operation_id = "openapi", tag = "operations",
    responses((status = 200, description = "This document.", content_type = "application/yaml", body = serde_json::Value),
        (status = 304, description = "Not modified: `If-None-Match` named its `ETag`.")))]
async fn openapi(request: HeaderMap) -> Response {
    static CACHED: LazyLock<Cached> = LazyLock::new(|| Cached::new(openapi_yaml()));
    CACHED.answer(&request, "application/yaml", &[])
}

/// The document as YAML, built once.
pub fn openapi_yaml() -> &'static str {
    static YAML: LazyLock<String> = LazyLock::new(|| {
        serde_norway::to_string(&document()).expect("the OpenAPI document is plain data")
    });
    &YAML
}

/// The error responses of a route that takes a JSON body, by status; the
/// 422 one is the route's own.
fn json_errors(invalid: &str) -> [(&'static str, String); 11] {
    [
        ("400", "MalformedJson".into()),
        ("401", "Unauthorized".into()),
        ("405", "MethodNotAllowed".into()),
        ("408", "RequestTimeout".into()),
        ("413", "TooLarge".into()),
        ("415", "UnsupportedMediaType".into()),
        ("422", invalid.into()),
        ("429", "RateLimited".into()),
        ("500", "Internal".into()),
        ("503", "Overloaded".into()),
        ("504", "DeadlineExceeded".into()),
    ]
}

/// The whole document.
fn document() -> Value {
    let generated = serde_json::to_value(Generated::openapi()).expect("plain data");
    let mut doc: Value = serde_norway::from_str(FRAME).expect("openapi/frame.yaml is YAML");
    let operations: Value =
        serde_norway::from_str(OPERATIONS).expect("openapi/operations.yaml is YAML");
    let responses = doc["components"]["responses"].clone();
    let mut paths = generated["paths"].clone();
    for (path, item) in paths.as_object_mut().expect("paths").iter_mut() {
        for (method, operation) in item.as_object_mut().expect("path item").iter_mut() {
            let id = operation["operationId"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let prose = &operations[id.as_str()];
            finish(operation, path, method, prose, &responses);
        }
    }
    doc["paths"] = paths;
    // One version for the binary and its contract (docs/game-client.md,
    // "Versions").
    let info = doc["info"].as_object_mut().expect("info");
    let rest = std::mem::take(info);
    for (key, value) in rest {
        let title = key == "title";
        info.insert(key, value);
        if title {
            info.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
        }
    }
    let mut schemas = generated["components"]["schemas"].clone();
    // Request bodies state their defaults in prose: a `default` keyword
    // would make a field required in generated TypeScript types.
    tidy(&mut schemas);
    inline_points(&mut schemas);
    doc["components"]["schemas"] = schemas;
    doc
}

/// Writes the point schema out where it is used instead of referring to
/// it: openapi-python-client declares one loop variable per referred array
/// schema, so a model with two points (`from`, `to`) declares it twice,
/// which `mypy --strict` refuses; written out, each loop takes its field's
/// name.
///
/// utoipa always writes `items`, `{}` by default, which hey-api types as a
/// third element (`[number, number, unknown]`) and orval as more
/// (`[number, number, ...unknown[]]`); `items: false` is refused by
/// openapi-python-client's parser. With no `items` at all, `maxItems: 2`
/// says the same and every generator gives a plain pair.
fn inline_points(schemas: &mut Value) {
    let map = schemas.as_object_mut().expect("schemas");
    let mut point = map.remove("Point").expect("the point schema");
    point
        .as_object_mut()
        .expect("the point schema")
        .shift_remove("items");
    fn walk(value: &mut Value, point: &Value) {
        match value {
            Value::Object(map) if map.get("$ref") == Some(&json!("#/components/schemas/Point")) => {
                // A description beside the reference stays, over the point's own.
                map.remove("$ref");
                for (key, part) in point.as_object().expect("the point schema") {
                    map.entry(key.clone()).or_insert_with(|| part.clone());
                }
            }
            Value::Object(map) => map.values_mut().for_each(|v| walk(v, point)),
            Value::Array(items) => items.iter_mut().for_each(|v| walk(v, point)),
            _ => {}
        }
    }
    walk(schemas, &point);
}

/// Adds to a generated operation its prose, examples, security, the
/// request-id parameter and header, and the error responses.
fn finish(operation: &mut Value, path: &str, method: &str, prose: &Value, shared: &Value) {
    let op = operation.as_object_mut().expect("operation");
    let mut ordered = Map::new();
    for key in ["summary", "description"] {
        if let Some(text) = prose.get(key) {
            ordered.insert(key.into(), text.clone());
        }
    }
    for (key, value) in std::mem::take(op) {
        if key != "summary" && key != "description" {
            ordered.insert(key, value);
        }
    }
    *op = ordered;
    // `/v1/*` takes a bearer key when keys are configured and is open
    // otherwise: the document's own `security` (openapi/frame.yaml), not
    // repeated here. A player's own account, and every change of a match,
    // always take the player's token; every route outside `/v1/` is always
    // open.
    let player_only = path.starts_with("/v1/players/me")
        || (path.starts_with("/v1/matches") && method.eq_ignore_ascii_case("post"));
    if player_only {
        op.insert("security".into(), json!([{"bearer": []}]));
    } else if !path.starts_with("/v1/") {
        op.insert("security".into(), json!([]));
    }
    // The route's own parameters (a game's id, `If-Match`, ...), then the
    // request id every route takes.
    let mut parameters = match op.shift_remove("parameters") {
        Some(Value::Array(own)) => own,
        _ => Vec::new(),
    };
    for parameter in &mut parameters {
        request_header(parameter);
    }
    parameters.push(json!({"$ref": "#/components/parameters/XRequestId"}));
    op.insert("parameters".into(), Value::Array(parameters));
    if let Some(examples) = prose.get("request")
        && let Some(body) = op
            .get_mut("requestBody")
            .and_then(|b| b.pointer_mut("/content/application~1json"))
    {
        body["examples"] = examples.clone();
    }
    let responses = op
        .entry("responses")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .expect("responses");
    for (status, response) in responses.iter_mut() {
        response["headers"] = json!({"X-Request-Id": {"$ref": "#/components/headers/XRequestId"}});
        if path == "/" || path.starts_with("/playground/") {
            response["headers"]["Content-Security-Policy"] =
                json!({"$ref": "#/components/headers/PlaygroundCsp"});
        }
        if let Some(examples) = prose.pointer(&format!("/responses/{status}"))
            && let Some(content) = response.get_mut("content").and_then(Value::as_object_mut)
            && let Some((_, media)) = content.iter_mut().next()
        {
            media["examples"] = examples.clone();
        }
    }
    let errors: Vec<(&str, String)> = if method == "post" || method == "patch" {
        let invalid = if path.starts_with("/v1/solve") || path.starts_with("/v1/render") {
            "InvalidSolveRequest"
        } else {
            "InvalidGameRequest"
        };
        json_errors(invalid).into()
    } else {
        vec![("405", "MethodNotAllowed".into())]
    };
    for (status, name) in errors {
        let response = match prose.pointer(&format!("/responses/{status}")) {
            // Examples of an error of this route: the shared response,
            // inlined with them.
            Some(examples) => {
                let mut inline = shared[name.as_str()].clone();
                inline["content"]["application/json"]["examples"] = examples.clone();
                inline
            }
            None => json!({"$ref": format!("#/components/responses/{name}")}),
        };
        responses.entry(status).or_insert(response);
    }
}

/// A request header's schema as its reader takes it: utoipa writes an
/// `Option<String>` header as any string or null, and a generated request
/// the server refuses is the document's fault.
fn request_header(parameter: &mut Value) {
    use super::games::routes::{act, keys};
    if parameter["in"] != "header" {
        return;
    }
    match parameter["name"].as_str() {
        Some("Idempotency-Key") => parameter["schema"] = keys::schema(),
        Some("If-Match") => parameter["schema"] = act::if_match_schema(),
        _ => {}
    }
}

/// Drops `default` keywords and joins the lines of each doc comment's
/// paragraphs, as Markdown would.
fn tidy(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("default");
            unsigned(map);
            // utoipa has no `const`: a one-value `enum` says the same.
            if let Some(Value::Array(values)) = map.get("enum")
                && let [value] = values.as_slice()
            {
                let value = value.clone();
                map.remove("enum");
                map.insert("const".into(), value);
            }
            if let Some(Value::String(text)) = map.get_mut("description") {
                *text = paragraphs(text);
            }
            map.values_mut().for_each(tidy);
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// utoipa writes a `u32` or `u64` as `int32` or `int64` from 0, which
/// tools then cap at the signed maximum: state the real one instead.
fn unsigned(map: &mut Map<String, Value>) {
    let from_zero = map
        .get("minimum")
        .and_then(Value::as_f64)
        .is_some_and(|m| m >= 0.0);
    let max = match map.get("format").and_then(Value::as_str) {
        Some("int32") => u64::from(u32::MAX),
        Some("int64") => u64::MAX,
        _ => return,
    };
    if from_zero {
        map.remove("format");
        map.entry("maximum").or_insert(Value::from(max));
    }
}

fn paragraphs(text: &str) -> String {
    text.split("\n\n")
        .map(|p| p.split('\n').map(str::trim).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}
