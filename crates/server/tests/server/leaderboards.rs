//! The day's deal and the leaderboards through the router: the deal is
//! the one its documented seed deals, a game made from it is on its
//! board, only a signed-in player's win without assists is entered, each
//! player once with their best, read a page at a time or around oneself,
//! and bad dates, settings, names, limits and cursors are 422s that name
//! them.

use crate::support::*;
use axum::Router;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::time::Duration;

const DAY: &str = "2026-12-02";
/// A small day's deal, cleared in twelve moves.
const SMALL: &str = "width=6&height=4&types=6";

pub async fn daily(router: &Router, date: &str, query: &str) -> Reply {
    call(router, get(&format!("/v1/daily/{date}?{query}"))).await
}

pub async fn leaderboard(router: &Router, name: &str, query: &str) -> Reply {
    call(router, get(&format!("/v1/leaderboards/{name}?{query}"))).await
}

/// Creates a game from `body` as `player` (none: nobody) and plays it
/// to `won` along the sequence `/v1/clear` finds, after `assist` (an
/// action path such as `hint`, or none); the game as the winning move
/// answered it.
pub async fn win(
    router: &Router,
    body: &Value,
    player: Option<&Signed>,
    assist: Option<&str>,
) -> Value {
    win_on(router, body, player, assist, None).await
}

/// As [`win`], on a held clock moved on by `think` before each move.
pub async fn win_on(
    router: &Router,
    body: &Value,
    player: Option<&Signed>,
    assist: Option<&str>,
    think: Option<(&HeldClock, Duration)>,
) -> Value {
    let made = post_as(router, "/v1/games", body, player).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let mut game = made.json();
    let id = game["id"].as_str().expect("an id").to_owned();
    if let Some(assist) = assist {
        let helped = post_as(
            router,
            &format!("/v1/games/{id}/{assist}"),
            &json!({}),
            player,
        )
        .await;
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
        if let Some((clock, by)) = think {
            clock.advance(by);
        }
        let moved = post_as(
            router,
            &format!("/v1/games/{id}/moves"),
            &json!({"from": step["from"], "to": step["to"]}),
            player,
        )
        .await;
        assert_eq!(moved.status, 200, "{}", moved.text());
        game = moved.json();
    }
    assert_eq!(game["status"], "won");
    game
}

/// The entry `game`, won by `player` named `name`, makes at `rank`.
fn entry(rank: usize, name: &str, player: &Signed, game: &Value) -> Value {
    json!({"rank": rank, "player": name, "player_id": player.id, "game": game["id"],
           "elapsed_ms": game["elapsed_ms"], "score": game["score"], "won_at": game["updated_at"]})
}

/// The games by least time, then most score, then id: a board's order.
fn best_first(games: &mut [(usize, Value)]) {
    games.sort_by_key(|(_, game)| {
        (
            game["elapsed_ms"].as_u64(),
            std::cmp::Reverse(game["score"].as_u64()),
            game["id"].as_str().map(str::to_owned),
        )
    });
}

/// A day's deal never changes: it is sent to be kept for good, and a
/// revalidation naming its tag is 304.
#[tokio::test]
async fn the_days_deal_is_sent_to_be_kept_with_its_tag() {
    let router = router(config());
    let deal = daily(&router, DAY, SMALL).await;
    assert_eq!(deal.status, 200, "{}", deal.text());
    assert_eq!(
        deal.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    let etag = deal.header("etag").expect("an ETag").to_owned();
    let digest = Sha256::digest(deal.text().as_bytes());
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(etag, format!("W/\"{hex}\""));
    assert_eq!(
        daily(&router, DAY, SMALL).await.header("etag"),
        Some(etag.as_str())
    );

    let path = format!("/v1/daily/{DAY}?{SMALL}");
    let revalidate = |tag: String| {
        axum::http::Request::get(&path)
            .header("if-none-match", tag)
            .body(axum::body::Body::empty())
            .unwrap()
    };
    let kept = call(&router, revalidate(etag.clone())).await;
    assert_eq!((kept.status, kept.text()), (304, String::new()));
    assert_eq!(kept.header("etag"), Some(etag.as_str()));
    assert_eq!(
        kept.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    // Another day's tag is no match.
    let other = daily(&router, "2026-12-03", SMALL).await;
    let other = other.header("etag").expect("an ETag").to_owned();
    assert_ne!(other, etag);
    assert_eq!(call(&router, revalidate(other)).await.status, 200);
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
async fn only_signed_in_players_wins_without_assists_are_ranked_best_first() {
    let router = router(config());
    let deal = daily(&router, DAY, SMALL).await.json();
    let name = deal["leaderboard"].as_str().unwrap().to_owned();
    let names = ["Ann", "Bo", "Zoë 3"];
    let mut players = Vec::new();
    let mut ranked = Vec::new();
    for (i, player_name) in names.iter().enumerate() {
        let player = sign_up(&router, player_name).await;
        let game = win(&router, &deal["game"], Some(&player), None).await;
        assert_eq!(
            (game["owner"].as_str(), game["ranked"].as_bool()),
            (Some(player.id.as_str()), Some(true))
        );
        ranked.push((i, game));
        players.push(player);
    }
    // Not entered: a game without a player, whatever name it was given; a
    // player's game with a hint; a board sent, which is on no board.
    let mut named = deal["game"].clone();
    named["player"] = json!("Ann");
    let anonymous = win(&router, &named, None, None).await;
    let hinter = sign_up(&router, "Hint").await;
    let hinted = win(&router, &deal["game"], Some(&hinter), Some("hint")).await;
    assert_eq!(
        (
            anonymous["leaderboard"].as_str(),
            anonymous["player"].as_str(),
            anonymous.get("owner"),
            hinted["ranked"].as_bool()
        ),
        (Some(name.as_str()), Some("Ann"), None, Some(false))
    );
    let sent = post_as(
        &router,
        "/v1/games",
        &json!({"board": ["A.A"], "rules": "lianliankan"}),
        Some(&players[0]),
    )
    .await
    .json();
    assert_eq!(sent.get("leaderboard"), None);

    best_first(&mut ranked);
    let entries: Vec<Value> = ranked
        .iter()
        .enumerate()
        .map(|(rank, (i, game))| entry(rank + 1, names[*i], &players[*i], game))
        .collect();
    let board = leaderboard(&router, &name, "").await;
    assert_eq!(board.status, 200, "{}", board.text());
    assert_eq!(
        board.json(),
        json!({"leaderboard": name, "entries": entries})
    );
    let first = leaderboard(&router, &name, "limit=1").await.json();
    assert_eq!(first["entries"], json!([entries[0]]));
    assert!(first["next"].is_string(), "{first}");
    // A board nobody has won on yet is empty.
    let empty = leaderboard(&router, "0123456789abcdef0123456789abcdef", "").await;
    assert_eq!(
        (empty.status, empty.json()),
        (
            200,
            json!({"leaderboard": "0123456789abcdef0123456789abcdef", "entries": []})
        )
    );
}

#[tokio::test]
async fn a_player_is_on_a_board_once_with_their_best() {
    let clock = HeldClock::now();
    let router = router_on(config(), clock.clone());
    let deal = daily(&router, DAY, SMALL).await.json();
    let name = deal["leaderboard"].as_str().unwrap().to_owned();
    let ann = sign_up(&router, "Ann").await;
    // Short thinking: a held clock moved on far past the heartbeat's gap
    // would look like the server's downtime, which clocks skip.
    let think = |ms| Some((&*clock, Duration::from_millis(ms)));
    let slow = win_on(&router, &deal["game"], Some(&ann), None, think(50)).await;
    let fast = win_on(&router, &deal["game"], Some(&ann), None, think(10)).await;
    let slower = win_on(&router, &deal["game"], Some(&ann), None, think(90)).await;
    assert!(slow["elapsed_ms"].as_u64() > fast["elapsed_ms"].as_u64());
    let board = leaderboard(&router, &name, "").await.json();
    assert_eq!(board["entries"], json!([entry(1, "Ann", &ann, &fast)]));
    assert_ne!(slower["id"], fast["id"]);
}

#[tokio::test]
async fn pages_follow_each_other_and_around_me_centres_the_player() {
    let clock = HeldClock::now();
    let router = router_on(config(), clock.clone());
    let deal = daily(&router, DAY, SMALL).await.json();
    let name = deal["leaderboard"].as_str().unwrap().to_owned();
    let mut entries = Vec::new();
    let mut players = Vec::new();
    // Five players, each slower than the one before: the board's order.
    for i in 0..5u64 {
        let player = sign_up(&router, &format!("P{i}")).await;
        let think = Some((&*clock, Duration::from_millis(10 * (i + 1))));
        let game = win_on(&router, &deal["game"], Some(&player), None, think).await;
        entries.push(entry(i as usize + 1, &format!("P{i}"), &player, &game));
        players.push(player);
    }
    let mut read = Vec::new();
    let mut query = "limit=2".to_owned();
    loop {
        let page = leaderboard(&router, &name, &query).await.json();
        read.extend(page["entries"].as_array().unwrap().iter().cloned());
        match page["next"].as_str() {
            Some(next) => query = format!("limit=2&after={next}"),
            None => break,
        }
    }
    assert_eq!(read, entries);

    let around = format!("/v1/leaderboards/{name}?around=me&limit=3");
    let middle = get_as(&router, &around, Some(&players[2])).await.json();
    assert_eq!(middle["entries"], json!(entries[1..4]));
    let top = get_as(&router, &around, Some(&players[0])).await.json();
    assert_eq!(top["entries"], json!(entries[0..3]));
    let last = get_as(&router, &around, Some(&players[4])).await.json();
    assert_eq!(last["entries"], json!(entries[3..5]));
    // A player with no entry reads from the top; nobody gets 401.
    let newcomer = sign_up(&router, "New").await;
    let read = get_as(&router, &around, Some(&newcomer)).await.json();
    assert_eq!(read["entries"], json!(entries[0..3]));
    let nobody = leaderboard(&router, &name, "around=me").await;
    assert_eq!(nobody.status, 401, "{}", nobody.text());

    // A new name shows at once; an erased player's entry goes.
    let renamed = call(
        &router,
        request(
            "PATCH",
            "/v1/players/me",
            Some(&json!({"name": "Renamed"})),
            Some(&players[0].bearer()),
        ),
    )
    .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text());
    let erased = call(
        &router,
        request("DELETE", "/v1/players/me", None, Some(&players[1].bearer())),
    )
    .await;
    assert_eq!(erased.status, 204, "{}", erased.text());
    let board = leaderboard(&router, &name, "").await.json();
    let mut expected = vec![
        entries[0].clone(),
        entries[2].clone(),
        entries[3].clone(),
        entries[4].clone(),
    ];
    expected[0]["player"] = json!("Renamed");
    for (i, entry) in expected.iter_mut().enumerate() {
        entry["rank"] = json!(i + 1);
    }
    assert_eq!(board["entries"], json!(expected));
}

#[tokio::test]
async fn a_board_keeps_its_best_and_no_more_than_its_size() {
    let mut config = config();
    config.games.leaderboard_size = 2;
    let router = router(config);
    let deal = daily(&router, DAY, SMALL).await.json();
    let name = deal["leaderboard"].as_str().unwrap();
    let mut games = Vec::new();
    for (i, player) in ["A", "B", "C"].into_iter().enumerate() {
        let player = sign_up(&router, player).await;
        games.push((i, win(&router, &deal["game"], Some(&player), None).await));
    }
    let board = leaderboard(&router, name, "").await.json();
    let kept: Vec<&Value> = board["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["game"])
        .collect();
    best_first(&mut games);
    assert_eq!(kept, vec![&games[0].1["id"], &games[1].1["id"]]);
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
        ("0123456789abcdef0123456789abcdef", "around=you", "around"),
        ("0123456789abcdef0123456789abcdef", "after=zz", "after"),
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

#[tokio::test]
async fn a_win_faster_than_a_person_plays_is_kept_but_not_ranked() {
    let mut config = config();
    config.games.min_move_gap_ms = 100;
    let clock = HeldClock::now();
    let router = router_on(config, clock.clone());
    let deal = daily(&router, DAY, SMALL).await.json();
    let name = deal["leaderboard"].as_str().unwrap().to_owned();
    let bot = sign_up(&router, "Bot").await;
    let person = sign_up(&router, "Person").await;
    let think = |ms| Some((&*clock, Duration::from_millis(ms)));
    let fast = win_on(&router, &deal["game"], Some(&bot), None, think(60)).await;
    assert_eq!(
        (&fast["status"], &fast["ranked"], &fast["unranked"]),
        (&json!("won"), &json!(false), &json!("too_fast"))
    );
    let human = win_on(&router, &deal["game"], Some(&person), None, think(150)).await;
    assert_eq!(
        (&human["ranked"], human.get("unranked")),
        (&json!(true), None)
    );
    let board = leaderboard(&router, &name, "").await.json();
    assert_eq!(
        board["entries"],
        json!([entry(1, "Person", &person, &human)])
    );
    // An assist says so, whatever the pace.
    let hinted = win_on(
        &router,
        &deal["game"],
        Some(&person),
        Some("hint"),
        think(150),
    )
    .await;
    assert_eq!(hinted["unranked"], "assists");
}
