//! Players for the tests: signing one up, and requests sent with its
//! token.

use super::client::{Reply, action, call, get};
use axum::Router;
use axum::body::Body;
use axum::http::Request;
use serde_json::{Value, json};

/// A player signed up: its id and its token.
pub struct Signed {
    pub id: String,
    pub token: String,
}

impl Signed {
    /// The `Authorization` header that proves the player.
    pub fn bearer(&self) -> String {
        format!("Bearer {}", self.token)
    }
}

/// Signs up a player named `name`.
pub async fn sign_up(router: &Router, name: &str) -> Signed {
    let reply = call(
        router,
        action("/v1/players", &json!({"name": name}).to_string(), &[]),
    )
    .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    let body = reply.json();
    Signed {
        id: body["id"].as_str().expect("an id").to_owned(),
        token: body["token"].as_str().expect("a token").to_owned(),
    }
}

/// `method path` with `body` (JSON, or none) and `Authorization: auth`
/// if given.
pub fn request(
    method: &str,
    path: &str,
    body: Option<&Value>,
    auth: Option<&str>,
) -> Request<Body> {
    let mut request = Request::builder().method(method).uri(path);
    if let Some(auth) = auth {
        request = request.header("authorization", auth);
    }
    match body {
        Some(body) => request
            .header("content-type", "application/json")
            .body(Body::from(body.to_string())),
        None => request.body(Body::empty()),
    }
    .expect("a request")
}

/// `POST path` with `body` as the player `as_player` (none: nobody).
pub async fn post_as(
    router: &Router,
    path: &str,
    body: &Value,
    as_player: Option<&Signed>,
) -> Reply {
    let auth = as_player.map(Signed::bearer);
    call(router, request("POST", path, Some(body), auth.as_deref())).await
}

/// `GET path` as the player `as_player` (none: nobody).
pub async fn get_as(router: &Router, path: &str, as_player: Option<&Signed>) -> Reply {
    match as_player {
        Some(player) => call(router, request("GET", path, None, Some(&player.bearer()))).await,
        None => call(router, get(path)).await,
    }
}
