//! `GET /`: the playground page, a game of the public API that a person
//! plays in a browser. Its HTML, CSS and script modules (the page, the
//! board, the tile faces, the game and its stream, and the player it signs
//! up and plays as) are compiled into the binary; the page fetches only
//! this server's routes, and its Content-Security-Policy allows nothing
//! but this origin.

use super::cached::Cached;
use axum::Router;
use axum::http::{HeaderMap, HeaderName, header};
use axum::response::Response;
use axum::routing::get;
use std::sync::LazyLock;

const INDEX_HTML: &str = include_str!("../../../assets/playground/index.html");
const APP_JS: &str = include_str!("../../../assets/playground/app.js");
const PLAYER_JS: &str = include_str!("../../../assets/playground/player.js");
const BOARD_JS: &str = include_str!("../../../assets/playground/board.js");
const TILES_JS: &str = include_str!("../../../assets/playground/tiles.js");
const GAME_JS: &str = include_str!("../../../assets/playground/game.js");
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
        .route("/playground/player.js", get(player_js))
        .route("/playground/board.js", get(board_js))
        .route("/playground/tiles.js", get(tiles_js))
        .route("/playground/game.js", get(game_js))
        .route("/playground/style.css", get(style_css))
        .route("/playground/layouts.json", get(layouts))
}

/// A file of the page, with its entity tag: a reload that has it gets 304.
fn asset(cached: &Cached, request: &HeaderMap, content_type: &'static str) -> Response {
    let headers: [(HeaderName, &'static str); 2] = [
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    ];
    cached.answer(request, content_type, &headers)
}

#[utoipa::path(get, path = "/", operation_id = "playground", tag = "playground",
    responses((status = 200, description = "The page.", content_type = "text/html", body = String),
        (status = 304, description = "Not modified: `If-None-Match` named its `ETag`.")))]
pub(crate) async fn index(request: HeaderMap) -> Response {
    static CACHED: LazyLock<Cached> = LazyLock::new(|| Cached::new(INDEX_HTML));
    asset(&CACHED, &request, "text/html; charset=utf-8")
}

#[utoipa::path(get, path = "/playground/app.js", operation_id = "playgroundScript", tag = "playground",
    responses((status = 200, description = "The script.", content_type = "text/javascript", body = String),
        (status = 304, description = "Not modified: `If-None-Match` named its `ETag`.")))]
pub(crate) async fn app_js(request: HeaderMap) -> Response {
    static CACHED: LazyLock<Cached> = LazyLock::new(|| Cached::new(APP_JS));
    asset(&CACHED, &request, "text/javascript; charset=utf-8")
}

#[utoipa::path(get, path = "/playground/player.js", operation_id = "playgroundPlayerScript", tag = "playground",
    responses((status = 200, description = "The script of the player the page plays as, a module `app.js` imports.", content_type = "text/javascript", body = String),
        (status = 304, description = "Not modified: `If-None-Match` named its `ETag`.")))]
pub(crate) async fn player_js(request: HeaderMap) -> Response {
    static CACHED: LazyLock<Cached> = LazyLock::new(|| Cached::new(PLAYER_JS));
    asset(&CACHED, &request, "text/javascript; charset=utf-8")
}

#[utoipa::path(get, path = "/playground/board.js", operation_id = "playgroundBoardScript", tag = "playground",
    responses((status = 200, description = "The script of the board: the grid of cells, its keyboard, the paths and falls drawn; a module `app.js` imports.", content_type = "text/javascript", body = String),
        (status = 304, description = "Not modified: `If-None-Match` named its `ETag`.")))]
pub(crate) async fn board_js(request: HeaderMap) -> Response {
    static CACHED: LazyLock<Cached> = LazyLock::new(|| Cached::new(BOARD_JS));
    asset(&CACHED, &request, "text/javascript; charset=utf-8")
}

#[utoipa::path(get, path = "/playground/tiles.js", operation_id = "playgroundTilesScript", tag = "playground",
    responses((status = 200, description = "The script that draws the tile faces in SVG; a module `board.js` imports.", content_type = "text/javascript", body = String),
        (status = 304, description = "Not modified: `If-None-Match` named its `ETag`.")))]
pub(crate) async fn tiles_js(request: HeaderMap) -> Response {
    static CACHED: LazyLock<Cached> = LazyLock::new(|| Cached::new(TILES_JS));
    asset(&CACHED, &request, "text/javascript; charset=utf-8")
}

#[utoipa::path(get, path = "/playground/game.js", operation_id = "playgroundGameScript", tag = "playground",
    responses((status = 200, description = "The script of the game shown: its actions, its event stream and the connection; a module `app.js` imports.", content_type = "text/javascript", body = String),
        (status = 304, description = "Not modified: `If-None-Match` named its `ETag`.")))]
pub(crate) async fn game_js(request: HeaderMap) -> Response {
    static CACHED: LazyLock<Cached> = LazyLock::new(|| Cached::new(GAME_JS));
    asset(&CACHED, &request, "text/javascript; charset=utf-8")
}

#[utoipa::path(get, path = "/playground/style.css", operation_id = "playgroundStyle", tag = "playground",
    responses((status = 200, description = "The style sheet.", content_type = "text/css", body = String),
        (status = 304, description = "Not modified: `If-None-Match` named its `ETag`.")))]
pub(crate) async fn style_css(request: HeaderMap) -> Response {
    static CACHED: LazyLock<Cached> = LazyLock::new(|| Cached::new(STYLE_CSS));
    asset(&CACHED, &request, "text/css; charset=utf-8")
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
    responses((status = 200, description = "The layouts the page deals onto.", content_type = "application/json", body = [PlaygroundLayout]),
        (status = 304, description = "Not modified: `If-None-Match` named its `ETag`.")))]
pub(crate) async fn layouts(request: HeaderMap) -> Response {
    static JSON: LazyLock<String> = LazyLock::new(layouts_json);
    static CACHED: LazyLock<Cached> = LazyLock::new(|| Cached::new(JSON.as_str()));
    asset(&CACHED, &request, "application/json")
}
