//! `GET /`: the playground page, a small client of the public API that a
//! person can try in a browser. Its HTML, CSS and script are compiled into
//! the binary; the page fetches only this server's `/v1/*` routes, and its
//! Content-Security-Policy allows nothing but this origin.

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;

const INDEX_HTML: &str = include_str!("../../../assets/playground/index.html");
const APP_JS: &str = include_str!("../../../assets/playground/app.js");
const STYLE_CSS: &str = include_str!("../../../assets/playground/style.css");

/// The layouts the page offers to deal onto, by name: text rows, `#` a
/// cell that takes a tile, `.` one left empty.
const LAYOUTS: [(&str, &str); 6] = [
    (
        "rectangle",
        include_str!("../../../assets/layouts/rectangle.txt"),
    ),
    (
        "pyramid",
        include_str!("../../../assets/layouts/pyramid.txt"),
    ),
    (
        "islands",
        include_str!("../../../assets/layouts/islands.txt"),
    ),
    (
        "pillars",
        include_str!("../../../assets/layouts/pillars.txt"),
    ),
    ("ring", include_str!("../../../assets/layouts/ring.txt")),
    (
        "checkerboard",
        include_str!("../../../assets/layouts/checkerboard.txt"),
    ),
];

/// Only this origin, for everything; no inline script or style.
pub const CONTENT_SECURITY_POLICY: &str =
    "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'";

/// The page and its assets; they need no state, so the router takes any.
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(index))
        .route("/playground/app.js", get(app_js))
        .route("/playground/style.css", get(style_css))
        .route("/playground/layouts.json", get(layouts))
}

fn asset(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
}

#[utoipa::path(get, path = "/", operation_id = "playground", tag = "playground",
    responses((status = 200, description = "The page.", content_type = "text/html", body = String)))]
pub(crate) async fn index() -> impl IntoResponse {
    asset("text/html; charset=utf-8", INDEX_HTML)
}

#[utoipa::path(get, path = "/playground/app.js", operation_id = "playgroundScript", tag = "playground",
    responses((status = 200, description = "The script.", content_type = "text/javascript", body = String)))]
pub(crate) async fn app_js() -> impl IntoResponse {
    asset("text/javascript; charset=utf-8", APP_JS)
}

#[utoipa::path(get, path = "/playground/style.css", operation_id = "playgroundStyle", tag = "playground",
    responses((status = 200, description = "The style sheet.", content_type = "text/css", body = String)))]
pub(crate) async fn style_css() -> impl IntoResponse {
    asset("text/css; charset=utf-8", STYLE_CSS)
}

/// A shipped layout, its rows as `/v1/deal` takes them.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub(crate) struct PlaygroundLayout {
    name: String,
    /// Text rows: `#` a cell that takes a tile, `.` one left empty.
    rows: Vec<String>,
}

fn layouts_json() -> String {
    let layouts: Vec<PlaygroundLayout> = LAYOUTS
        .iter()
        .map(|(name, text)| PlaygroundLayout {
            name: (*name).to_owned(),
            rows: text.lines().map(str::to_owned).collect(),
        })
        .collect();
    serde_json::to_string(&layouts).expect("layouts serialize")
}

#[utoipa::path(get, path = "/playground/layouts.json", operation_id = "playgroundLayouts", tag = "playground",
    responses((status = 200, description = "The layouts the page deals onto.", content_type = "application/json", body = [PlaygroundLayout])))]
pub(crate) async fn layouts() -> impl IntoResponse {
    static JSON: std::sync::LazyLock<String> = std::sync::LazyLock::new(layouts_json);
    asset("application/json", JSON.as_str())
}
