//! The actions on a game, one POST each: `moves` (its body the two
//! tiles), and `hint`, `undo`, `redo`, `shuffle`, `pause`, `resume` and
//! `resign` (no body), which share one handler made by a macro. Each reads
//! `If-Match` and `Idempotency-Key`, and the service applies the action.

use super::keys;
use crate::body::JsonBody;
use crate::error::HttpError;
use crate::games::pin::Pin;
use crate::games::service::Games;
use crate::path::PathParam;
use crate::players::Caller;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use linkpath_api::games::{Action, GameView, MoveRequest};
use linkpath_api::{ApiError, ErrorCode};
use std::sync::Arc;

/// Applies `action` to the game `id` and answers the game.
async fn act(
    games: &Games,
    caller: &Caller,
    id: &str,
    headers: &HeaderMap,
    path: &'static str,
    body: &[u8],
    action: Action,
) -> Result<Response, HttpError> {
    let now = games.now();
    let scope = format!("{path}:{id}");
    let key = keys::read(headers, "POST", &scope, body, StatusCode::OK)?;
    let pin = if_match(headers)?;
    let answer = games
        .apply(id, action, &pin, key, caller.player_id(), now)
        .await?;
    Ok(keys::send(answer, StatusCode::OK)?)
}

/// The header's schema in the OpenAPI document: what [`if_match`] takes,
/// `*` or a list of versions in quotes, weak or not (at most 19 digits,
/// so that any fits a version).
pub(crate) fn if_match_schema() -> serde_json::Value {
    let tag = r#"(W/)?"[0-9]{1,19}""#;
    serde_json::json!({"type": "string", "pattern": format!(r"^(\*|{tag}( *, *{tag})*)$")})
}

/// What `If-Match` pins: `"N"` a version (a list, any of them), `*`
/// none; weak tags (`W/"N"`) match nothing.
fn if_match(headers: &HeaderMap) -> Result<Pin, ApiError> {
    let Some(value) = headers.get(header::IF_MATCH) else {
        return Ok(Pin::Any);
    };
    let text = value.to_str().unwrap_or("").trim();
    if text == "*" {
        return Ok(Pin::Any);
    }
    let invalid = || {
        ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "If-Match is {:?}, expected the game's ETag, a version in quotes such as \"3\"",
                linkpath_api::excerpt(text)
            ),
        )
        .at("If-Match")
    };
    let mut versions = Vec::new();
    for tag in text.split(',').map(str::trim) {
        let (weak, tag) = match tag.strip_prefix("W/") {
            Some(tag) => (true, tag),
            None => (false, tag),
        };
        let version = tag
            .strip_prefix('"')
            .and_then(|t| t.strip_suffix('"'))
            .and_then(|t| t.parse::<u64>().ok())
            .ok_or_else(invalid)?;
        if !weak {
            versions.push(version);
        }
    }
    Ok(Pin::Versions(versions))
}

/// Removes two tiles, if the game's rules let them go.
#[utoipa::path(post, path = "/v1/games/{id}/moves", operation_id = "moveTiles", tag = "games",
    params(("id" = String, Path, description = "The game's id"),
        ("If-Match" = Option<String>, Header, description = "The version the move is for; 412 when the game is at another"),
        ("Idempotency-Key" = Option<String>, Header, description = "Answers a retry with the first answer")),
    request_body(content = MoveRequest, example = json!({"from": [0, 0], "to": [3, 0]})),
    responses(
        (status = 200, description = "The game after the move", body = GameView),
        (status = 401, description = "A player's game, and no token sent", body = linkpath_api::ErrorBody),
        (status = 403, description = "Another player's game (`not_your_game`)", body = linkpath_api::ErrorBody),
        (status = 404, description = "No such game, or it expired", body = linkpath_api::ErrorBody),
        (status = 409, description = "An illegal move (`reason` says why), or a finished game", body = linkpath_api::ErrorBody),
        (status = 412, description = "`If-Match` names another version", body = linkpath_api::ErrorBody)))]
pub(crate) async fn make_move(
    State(games): State<Arc<Games>>,
    PathParam(id): PathParam<String>,
    caller: Caller,
    headers: HeaderMap,
    body: JsonBody,
) -> Result<Response, HttpError> {
    let action = Action::read_move(&body, &games.request_limits)?;
    let path = "/v1/games/{id}/moves";
    act(&games, &caller, &id, &headers, path, &body, action).await
}

macro_rules! plain_action {
    ($name:ident, $path:literal, $id:literal, $action:expr, $doc:literal, $ok:literal) => {
        #[doc = $doc]
        #[utoipa::path(post, path = $path, operation_id = $id, tag = "games",
            params(("id" = String, Path, description = "The game's id"),
                ("If-Match" = Option<String>, Header, description = "The version the action is for; 412 when the game is at another"),
                ("Idempotency-Key" = Option<String>, Header, description = "Answers a retry with the first answer")),
            responses(
                (status = 200, description = $ok, body = GameView),
                (status = 401, description = "A player's game, and no token sent", body = linkpath_api::ErrorBody),
                (status = 403, description = "Another player's game (`not_your_game`)", body = linkpath_api::ErrorBody),
                (status = 404, description = "No such game, or it expired", body = linkpath_api::ErrorBody),
                (status = 409, description = "The action does not apply now, or the game is finished", body = linkpath_api::ErrorBody),
                (status = 412, description = "`If-Match` names another version", body = linkpath_api::ErrorBody)))]
        pub(crate) async fn $name(
            State(games): State<Arc<Games>>,
            PathParam(id): PathParam<String>,
            caller: Caller,
            headers: HeaderMap,
        ) -> Result<Response, HttpError> {
            act(&games, &caller, &id, &headers, $path, b"", $action).await
        }
    };
}

plain_action!(
    hint,
    "/v1/games/{id}/hint",
    "hint",
    Action::Hint,
    "Shows a move (`last.hint`): the first `/v1/moves` lists. An assist.",
    "The game with the hint in `last.hint`"
);
plain_action!(
    undo,
    "/v1/games/{id}/undo",
    "undo",
    Action::Undo,
    "Takes back the last move or shuffle. An assist.",
    "The game after the undo"
);
plain_action!(
    redo,
    "/v1/games/{id}/redo",
    "redo",
    Action::Redo,
    "Makes again the last change taken back.",
    "The game after the redo"
);
plain_action!(
    shuffle,
    "/v1/games/{id}/shuffle",
    "shuffleGame",
    Action::Shuffle {
        seed: None,
        moved: None
    },
    "Shuffles the tiles left into a board that can be cleared. An assist.",
    "The game after the shuffle, the tiles' moves in `last.moved`"
);
plain_action!(
    pause,
    "/v1/games/{id}/pause",
    "pause",
    Action::Pause,
    "Stops the clock; the board is hidden until `resume`.",
    "The paused game, without its board"
);
plain_action!(
    resume,
    "/v1/games/{id}/resume",
    "resume",
    Action::Resume,
    "Starts the clock again.",
    "The game in play"
);
plain_action!(
    resign,
    "/v1/games/{id}/resign",
    "resign",
    Action::Resign,
    "Ends the game.",
    "The resigned game"
);
