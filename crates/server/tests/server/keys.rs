//! `Idempotency-Key` as a client's retry needs it: copies of one request
//! sent at once all get the first final answer; a refusal is kept as a
//! change is, so a retry is never judged again; a key sent to another
//! route or game is 422; keys are bounded per game and in bytes, with a
//! 503 that applies nothing; `If-Match` compares strongly.

use crate::support::*;
use axum::Router;
use linkpath_server::Config;
use serde_json::{Value, json};

/// A game of two pairs, `A.A` over `B.B`, under Lianliankan.
async fn new_game(router: &Router) -> String {
    let body = json!({"board": ["A.A", "B.B"], "rules": "lianliankan"});
    let reply = post(router, "/v1/games", &body).await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    reply.json()["id"].as_str().expect("an id").to_owned()
}

async fn version(router: &Router, id: &str) -> Value {
    call(router, get(&format!("/v1/games/{id}"))).await.json()["version"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn copies_of_one_keyed_request_sent_at_once_all_get_the_first_answer() {
    let router = router(config());
    for round in 0..10 {
        let id = new_game(&router).await;
        let key = format!("pause-{round}");
        let path = format!("/v1/games/{id}/pause");
        let copies: Vec<_> = (0..8)
            .map(|_| {
                let router = router.clone();
                let request = action(&path, "", &[("idempotency-key", &key)]);
                tokio::spawn(async move { call(&router, request).await })
            })
            .collect();
        let mut answers = Vec::new();
        for copy in copies {
            answers.push(copy.await.expect("a copy is answered"));
        }
        for answer in &answers {
            assert_eq!(
                (answer.status, answer.header("etag")),
                (200, Some("\"1\"")),
                "{}",
                answer.text()
            );
            assert_eq!(answer.json(), answers[0].json());
        }
        let replayed = answers
            .iter()
            .filter(|a| a.header("idempotent-replayed") == Some("true"))
            .count();
        assert_eq!(replayed, 7);
        assert_eq!(version(&router, &id).await, 1);
    }
}

#[tokio::test]
async fn a_refusal_is_kept_under_its_key_and_never_judged_again() {
    let router = router(config());
    let id = new_game(&router).await;
    let resume = format!("/v1/games/{id}/resume");
    let key = [("idempotency-key", "resume-1")];
    let refused = call(&router, action(&resume, "", &key)).await;
    assert_eq!(refused.status, 409);
    assert_eq!(
        refused.json(),
        json!({"error": {"code": "action_refused",
            "message": "the game is playing, expected a paused game to resume"}})
    );
    assert_eq!(refused.header("etag"), None);

    // Paused now, the same resume would apply: its key answers the refusal.
    let pause = call(&router, action(&format!("/v1/games/{id}/pause"), "", &[])).await;
    assert_eq!(pause.status, 200);
    let retried = call(&router, action(&resume, "", &key)).await;
    assert_eq!(retried.status, 409);
    assert_eq!(retried.header("idempotent-replayed"), Some("true"));
    assert_eq!(retried.header("etag"), None);
    assert_eq!(retried.json(), refused.json());
    assert_eq!(version(&router, &id).await, 1);

    // An illegal move likewise, though the same tiles could go later.
    let moves = format!("/v1/games/{id}/moves");
    let resumed = call(&router, action(&resume, "", &[])).await;
    assert_eq!(resumed.status, 200);
    let step = json!({"from": [0, 0], "to": [2, 0]}).to_string();
    let key = [("idempotency-key", "move-1")];
    let first = call(
        &router,
        action(&moves, &step, &[("if-match", "\"1\""), key[0]]),
    )
    .await;
    assert_eq!(first.status, 412);
    let again = call(
        &router,
        action(&moves, &step, &[("if-match", "\"1\""), key[0]]),
    )
    .await;
    assert_eq!(
        (again.status, again.header("idempotent-replayed")),
        (412, Some("true"))
    );
    assert_eq!(again.json(), first.json());
    assert_eq!(version(&router, &id).await, 2);
}

#[tokio::test]
async fn a_key_sent_to_another_route_or_game_is_422() {
    let router = router(config());
    let id = new_game(&router).await;
    let other = new_game(&router).await;
    let key = [("idempotency-key", "one-request")];
    let paused = call(&router, action(&format!("/v1/games/{id}/pause"), "", &key)).await;
    assert_eq!(paused.status, 200);
    let reused = json!({"error": {"code": "idempotency_key_reused",
        "message": "this Idempotency-Key was used for another request (another route, game or body), expected a new key for a new request",
        "field": "Idempotency-Key"}});
    for path in [
        format!("/v1/games/{id}/hint"),
        format!("/v1/games/{other}/pause"),
    ] {
        let answer = call(&router, action(&path, "", &key)).await;
        assert_eq!(answer.status, 422, "{path}");
        assert_eq!(answer.json(), reused, "{path}");
    }
    let create = action("/v1/games", r#"{"board": ["A.A"]}"#, &key);
    assert_eq!(call(&router, create).await.json(), reused);
    assert_eq!(version(&router, &id).await, 1);
    assert_eq!(version(&router, &other).await, 0);

    // Another caller's key of the same text is its own.
    let bearer = [key[0], ("authorization", "Bearer someone-else")];
    let theirs = call(
        &router,
        action(&format!("/v1/games/{other}/pause"), "", &bearer),
    )
    .await;
    assert_eq!(theirs.status, 200);
}

#[tokio::test]
async fn keys_past_a_games_bound_are_refused_and_apply_nothing() {
    let mut config = config();
    config.games.max_keys_per_game = 2;
    let router = router(config);
    let id = new_game(&router).await;
    for (n, path) in ["pause", "resume"].iter().enumerate() {
        let key = format!("k{n}");
        let answer = call(
            &router,
            action(
                &format!("/v1/games/{id}/{path}"),
                "",
                &[("idempotency-key", &key)],
            ),
        )
        .await;
        assert_eq!(answer.status, 200, "{}", answer.text());
    }
    let path = format!("/v1/games/{id}/pause");
    let third = call(&router, action(&path, "", &[("idempotency-key", "k2")])).await;
    assert_eq!(third.status, 503);
    assert_eq!(third.header("retry-after"), Some("60"));
    assert_eq!(
        third.json(),
        json!({"error": {"code": "store_full",
            "message": "this game has as many Idempotency-Key answers kept as the server allows; nothing was applied: retry once older keys expire, or without a key"}})
    );
    assert_eq!(version(&router, &id).await, 2);
    // A refusal with a new key is no different: it is not kept either.
    let resume = format!("/v1/games/{id}/resume");
    let refused = call(&router, action(&resume, "", &[("idempotency-key", "k3")])).await;
    assert_eq!(refused.status, 503);
    // Without a key the game plays on, and the kept keys still answer.
    assert_eq!(call(&router, action(&path, "", &[])).await.status, 200);
    let first = call(&router, action(&path, "", &[("idempotency-key", "k0")])).await;
    assert_eq!(
        (
            first.status,
            first.header("etag"),
            first.header("idempotent-replayed")
        ),
        (200, Some("\"1\""), Some("true"))
    );
}

#[tokio::test]
async fn keys_past_the_bytes_bound_are_refused() {
    let mut config = config();
    // Room for one answer of a small game, not two.
    config.games.max_kept_bytes = 1_500;
    let router = router(config);
    let id = new_game(&router).await;
    let pause = format!("/v1/games/{id}/pause");
    let first = call(&router, action(&pause, "", &[("idempotency-key", "a")])).await;
    assert_eq!(first.status, 200, "{}", first.text());
    // The answer, its key, its fingerprint and the share for its record.
    let charge = first.body.len() + 64 + 32 + 256;
    assert!((750..1_500).contains(&charge), "{charge}");
    let resume = format!("/v1/games/{id}/resume");
    let second = call(&router, action(&resume, "", &[("idempotency-key", "b")])).await;
    assert_eq!(second.status, 503);
    assert_eq!(
        second.json()["error"]["message"],
        "the server keeps as many bytes of Idempotency-Key answers as it allows; nothing was applied: retry once older keys expire, or without a key"
    );
    assert_eq!(version(&router, &id).await, 1);
}

#[tokio::test]
async fn if_match_compares_strongly_and_takes_a_list() {
    let router = router(config());
    let id = new_game(&router).await;
    let pause = format!("/v1/games/{id}/pause");
    let weak = call(&router, action(&pause, "", &[("if-match", "W/\"0\"")])).await;
    assert_eq!(weak.status, 412);
    assert_eq!(
        weak.json(),
        json!({"error": {"code": "version_mismatch",
            "message": "If-Match holds only weak tags, which never match (RFC 9110): expected the game's ETag, \"0\""}})
    );
    let stale = call(
        &router,
        action(&pause, "", &[("if-match", "\"4\", W/\"0\"")]),
    )
    .await;
    assert_eq!(
        stale.json()["error"]["message"],
        "If-Match names version 4, the game is at version 0: read it again"
    );
    let listed = call(&router, action(&pause, "", &[("if-match", "\"4\", \"0\"")])).await;
    assert_eq!((listed.status, listed.header("etag")), (200, Some("\"1\"")));
}

#[tokio::test]
async fn a_full_store_takes_the_place_of_an_expired_game_at_once() {
    let mut config: Config = config();
    config.games.max_games = 2;
    config.games.game_idle_ms = 300;
    let clock = HeldClock::now();
    let router = router_on(config, clock.clone());
    new_game(&router).await;
    new_game(&router).await;
    let full = post(&router, "/v1/games", &json!({"board": ["A.A"]})).await;
    assert_eq!(full.status, 503);
    clock.advance(std::time::Duration::from_millis(400));
    // No purge has run: the expired games make room themselves.
    new_game(&router).await;
    new_game(&router).await;
}
