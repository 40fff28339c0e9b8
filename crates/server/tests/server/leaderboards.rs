//! The day's deal and the leaderboards through the router: the deal is
//! the one its documented seed deals, a game made from it is on its
//! board, only a player's win without assists is entered, best first,
//! and bad dates, settings, names and limits are 422s that name them.

use crate::support::*;
use axum::Router;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const DAY: &str = "2026-12-02";
/// A small day's deal, cleared in twelve moves.
const SMALL: &str = "width=6&height=4&types=6";

pub async fn daily(router: &Router, date: &str, query: &str) -> Reply {
    call(router, get(&format!("/v1/daily/{date}?{query}"))).await
}

pub async fn leaderboard(router: &Router, name: &str, query: &str) -> Reply {
    call(router, get(&format!("/v1/leaderboards/{name}?{query}"))).await
}

/// Creates a game from `body` and plays it to `won` along the sequence
/// `/v1/clear` finds, after `assist` (an action path such as `hint`, or
/// none); the game as the winning move answered it.
pub async fn win(router: &Router, body: &Value, assist: Option<&str>) -> Value {
    let made = post(router, "/v1/games", body).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let mut game = made.json();
    let id = game["id"].as_str().expect("an id").to_owned();
    if let Some(assist) = assist {
        let helped = post(router, &format!("/v1/games/{id}/{assist}"), &json!({})).await;
        assert_eq!(helped.status, 200, "{}", helped.text());
    }
    let rules = body["rules"].clone();
    let clear = post(
        router,
        "/v1/clear",
        &json!({"board": game["board"], "rules": rules}),
    )
    .await;
    for step in clear.json()["moves"]
        .as_array()
        .expect("a clearing sequence")
    {
        let moved = post(
            router,
            &format!("/v1/games/{id}/moves"),
            &json!({"from": step["from"], "to": step["to"]}),
        )
        .await;
        assert_eq!(moved.status, 200, "{}", moved.text());
        game = moved.json();
    }
    assert_eq!(game["status"], "won");
    game
}

#[tokio::test]
async fn the_days_deal_is_dealt_from_its_documented_seed() {
    let router = router(config());
    let deal = daily(&router, DAY, "").await;
    assert_eq!(deal.status, 200, "{}", deal.text());
    let deal = deal.json();
    let text = format!(
        "linkpath daily {DAY} width=14 height=6 types=21 copies=4 difficulty=medium rules=shisen-sho gravity=none settle=false"
    );
    let digest = Sha256::digest(text.as_bytes());
    let seed = u64::from_be_bytes(digest[..8].try_into().unwrap()) >> 11;
    assert_eq!(
        deal["game"],
        json!({"width": 14, "height": 6, "types": 21, "copies": 4, "difficulty": "medium",
               "rules": "shisen-sho", "gravity": "none", "settle": false, "seed": seed})
    );
    // The board is /v1/deal's with those settings, and the same on a
    // second ask.
    let dealt = post(&router, "/v1/deal", &deal["game"]).await.json();
    assert_eq!(deal["board"], dealt["board"]);
    assert_eq!(daily(&router, DAY, "").await.json(), deal);

    // Another day, or other settings, is another deal on another board.
    let tomorrow = daily(&router, "2026-12-03", "").await.json();
    let easy = daily(&router, DAY, "difficulty=easy").await.json();
    for other in [&tomorrow, &easy] {
        assert_ne!(other["game"]["seed"], deal["game"]["seed"]);
        assert_ne!(other["leaderboard"], deal["leaderboard"]);
    }
    // A game made from the answer's body is on the answer's board.
    let made = post(&router, "/v1/games", &deal["game"]).await.json();
    assert_eq!(made["leaderboard"], deal["leaderboard"]);
    assert_eq!(made["board"], deal["board"]);
}

#[tokio::test]
async fn only_a_players_wins_without_assists_are_ranked_best_first() {
    let router = router(config());
    let deal = daily(&router, DAY, SMALL).await.json();
    let name = deal["leaderboard"].as_str().unwrap().to_owned();
    let as_player = |player: &str| {
        let mut body = deal["game"].clone();
        body["player"] = json!(player);
        body
    };
    let mut ranked = Vec::new();
    for player in ["Ann", "Bo", "Zoë 3"] {
        let game = win(&router, &as_player(player), None).await;
        assert_eq!(
            (game["player"].as_str(), game["ranked"].as_bool()),
            (Some(player), Some(true))
        );
        ranked.push(game);
    }
    // Not entered: no player; a hint; a board sent, which is on no board.
    let unnamed = win(&router, &deal["game"], None).await;
    let hinted = win(&router, &as_player("Hint"), Some("hint")).await;
    assert_eq!(
        (unnamed["leaderboard"].as_str(), hinted["ranked"].as_bool()),
        (Some(name.as_str()), Some(false))
    );
    let sent = post(
        &router,
        "/v1/games",
        &json!({"board": ["A.A"], "rules": "lianliankan", "player": "Ann"}),
    )
    .await
    .json();
    assert_eq!(sent.get("leaderboard"), None);

    // Least time first, then most score, then the game's id.
    ranked.sort_by_key(|game| {
        (
            game["elapsed_ms"].as_u64(),
            std::cmp::Reverse(game["score"].as_u64()),
            game["id"].as_str().map(str::to_owned),
        )
    });
    let entries: Vec<Value> = ranked
        .iter()
        .enumerate()
        .map(|(i, game)| {
            json!({"rank": i + 1, "player": game["player"], "game": game["id"],
                   "elapsed_ms": game["elapsed_ms"], "score": game["score"], "won_at": game["updated_at"]})
        })
        .collect();
    let board = leaderboard(&router, &name, "").await;
    assert_eq!(board.status, 200, "{}", board.text());
    assert_eq!(
        board.json(),
        json!({"leaderboard": name, "entries": entries})
    );
    let first = leaderboard(&router, &name, "limit=1").await.json();
    assert_eq!(first["entries"], json!([entries[0]]));
    // A board nobody has won on yet is empty.
    let empty = leaderboard(&router, "0123456789abcdef0123456789abcdef", "").await;
    assert_eq!(
        (empty.status, empty.json()["entries"].clone()),
        (200, json!([]))
    );
}

#[tokio::test]
async fn a_board_keeps_its_best_and_no_more_than_its_size() {
    let mut config = config();
    config.games.leaderboard_size = 2;
    let router = router(config);
    let deal = daily(&router, DAY, SMALL).await.json();
    let name = deal["leaderboard"].as_str().unwrap();
    let mut games = Vec::new();
    for player in ["A", "B", "C"] {
        let mut body = deal["game"].clone();
        body["player"] = json!(player);
        games.push(win(&router, &body, None).await);
    }
    let board = leaderboard(&router, name, "").await.json();
    let kept: Vec<&Value> = board["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["game"])
        .collect();
    assert_eq!(kept.len(), 2);
    games.sort_by_key(|g| {
        (
            g["elapsed_ms"].as_u64(),
            std::cmp::Reverse(g["score"].as_u64()),
            g["id"].as_str().map(str::to_owned),
        )
    });
    assert_eq!(kept, vec![&games[0]["id"], &games[1]["id"]]);
    let past = leaderboard(&router, name, "limit=3").await;
    assert_eq!(
        (past.status, past.json()["error"]["field"].clone()),
        (422, json!("limit"))
    );
}

#[tokio::test]
async fn bad_dates_settings_names_limits_and_players_are_422() {
    let router = router(config());
    for (date, query, field) in [
        ("2026-02-29", "", "date"),
        ("yesterday", "", "date"),
        (DAY, "width=0", "width"),
        (DAY, "difficulty=brutal", "difficulty"),
        (DAY, "rules=chess", "rules"),
        (DAY, "seed=7", "seed"),
        (DAY, "settle=yes", "settle"),
    ] {
        let reply = daily(&router, date, query).await;
        assert_eq!(reply.status, 422, "{date}?{query}: {}", reply.text());
        assert_eq!(reply.json()["error"]["field"], field, "{date}?{query}");
    }
    // More tiles than cells: the deal's own refusal.
    let reply = daily(&router, DAY, "width=2&height=2&types=3").await;
    assert_eq!(reply.status, 422, "{}", reply.text());

    for (name, query, field) in [
        ("ABC", "", "leaderboard"),
        ("0123456789abcdef0123456789abcdef", "limit=0", "limit"),
        ("0123456789abcdef0123456789abcdef", "top=3", "top"),
    ] {
        let reply = leaderboard(&router, name, query).await;
        assert_eq!(reply.status, 422, "{name}?{query}: {}", reply.text());
        assert_eq!(reply.json()["error"]["field"], field);
    }
    for player in ["", " Ann", "<script>", &"x".repeat(33)] {
        let body = json!({"width": 4, "height": 2, "types": 2, "player": player});
        let reply = post(&router, "/v1/games", &body).await;
        assert_eq!(reply.status, 422, "{player:?}: {}", reply.text());
        assert_eq!(reply.json()["error"]["field"], "player");
    }
}
