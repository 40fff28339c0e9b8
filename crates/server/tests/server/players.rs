//! Players through the router: signing up, the account a token opens, a
//! new token and erasing; a game that belongs to its player, every action
//! refused to anyone else with nothing changed; tokens beside API keys;
//! private games; the games one player may hold and list; and unknown
//! tokens refused at a rate, never with a 5xx.

use crate::support::*;
use axum::Router;
use serde_json::{Value, json};

async fn me(router: &Router, auth: Option<&str>) -> Reply {
    call(router, request("GET", "/v1/players/me", None, auth)).await
}

fn small_game() -> Value {
    json!({"width": 4, "height": 2, "types": 2, "seed": 3, "rules": "shisen-sho"})
}

#[tokio::test]
async fn a_player_signs_up_renames_gets_a_new_token_and_leaves() {
    let router = router(config());
    let reply = call(
        &router,
        action("/v1/players", r#"{"name": "Zoe\u0301"}"#, &[]),
    )
    .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    let signed = reply.json();
    let id = signed["id"].as_str().unwrap().to_owned();
    let token = signed["token"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 32);
    assert!(token.starts_with("lpp_") && token.len() == 68, "{token}");
    // The name is kept in NFC: one character, é.
    assert_eq!(signed["name"], "Zoé");
    let view = json!({"id": id, "name": "Zoé", "created_at": signed["created_at"]});

    let auth = format!("Bearer {token}");
    let read = me(&router, Some(&auth)).await;
    assert_eq!((read.status, read.json()), (200, view.clone()));
    let (message, _) = me(&router, None).await.error(401, "unauthorized");
    assert!(message.contains("send Authorization: Bearer"), "{message}");
    let unknown = format!("Bearer lpp_{}", "0".repeat(64));
    let refused = me(&router, Some(&unknown)).await;
    assert_eq!(refused.header("www-authenticate"), Some("Bearer"));
    let (message, _) = refused.error(401, "unauthorized");
    assert!(message.contains("not known"), "{message}");

    let renamed = call(
        &router,
        request(
            "PATCH",
            "/v1/players/me",
            Some(&json!({"name": "Zoé Li"})),
            Some(&auth),
        ),
    )
    .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text());
    assert_eq!(renamed.json()["name"], "Zoé Li");

    let renewed = call(
        &router,
        request("POST", "/v1/players/me/token", None, Some(&auth)),
    )
    .await;
    assert_eq!(renewed.status, 201, "{}", renewed.text());
    let new_token = renewed.json()["token"].as_str().unwrap().to_owned();
    assert_ne!(new_token, token);
    assert_eq!(renewed.json()["id"], json!(id));
    me(&router, Some(&auth)).await.error(401, "unauthorized");
    let new_auth = format!("Bearer {new_token}");
    assert_eq!(me(&router, Some(&new_auth)).await.json()["name"], "Zoé Li");

    let erased = call(
        &router,
        request("DELETE", "/v1/players/me", None, Some(&new_auth)),
    )
    .await;
    assert_eq!((erased.status, erased.body.len()), (204, 0));
    me(&router, Some(&new_auth))
        .await
        .error(401, "unauthorized");
}

#[tokio::test]
async fn names_that_are_not_names_are_422_and_make_nobody() {
    let router = router(config());
    for body in [
        json!({"name": ""}),
        json!({"name": " Ann"}),
        json!({"name": "<script>"}),
        json!({"name": "x".repeat(33)}),
        json!({"name": "a\u{202e}b"}),
    ] {
        let reply = post(&router, "/v1/players", &body).await;
        let (_, field) = reply.error(422, "invalid_request");
        assert_eq!(field.as_deref(), Some("name"), "{body}");
    }
    let reply = post(
        &router,
        "/v1/players",
        &json!({"name": "Ann", "admin": true}),
    )
    .await;
    assert_eq!(reply.status, 422, "{}", reply.text());
    let ann = sign_up(&router, "Ann").await;
    let renamed = call(
        &router,
        request(
            "PATCH",
            "/v1/players/me",
            Some(&json!({"name": "\n"})),
            Some(&ann.bearer()),
        ),
    )
    .await;
    renamed.error(422, "invalid_request");
    assert_eq!(
        get_as(&router, "/v1/players/me", Some(&ann)).await.json()["name"],
        "Ann"
    );
}

/// Every action route, and the body it takes.
fn actions(game: &Value) -> Vec<(String, Value)> {
    let id = game["id"].as_str().unwrap();
    let mut routes: Vec<(String, Value)> = [
        "hint", "undo", "redo", "shuffle", "pause", "resume", "resign",
    ]
    .iter()
    .map(|action| (format!("/v1/games/{id}/{action}"), json!({})))
    .collect();
    routes.push((
        format!("/v1/games/{id}/moves"),
        json!({"from": [0, 0], "to": [1, 0]}),
    ));
    routes
}

#[tokio::test]
async fn a_players_game_is_played_by_its_player_alone() {
    // Held still, so that a read shows the game as its creation answered.
    let router = router_on(config(), HeldClock::now());
    let ann = sign_up(&router, "Ann").await;
    let bo = sign_up(&router, "Bo").await;
    let made = post_as(&router, "/v1/games", &small_game(), Some(&ann)).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let game = made.json();
    assert_eq!(game["owner"], json!(ann.id));
    let path = format!("/v1/games/{}", game["id"].as_str().unwrap());
    for (route, body) in actions(&game) {
        let (message, _) = post_as(&router, &route, &body, Some(&bo))
            .await
            .error(403, "not_your_game");
        assert!(message.contains("another player's"), "{route}: {message}");
        let (message, _) = post_as(&router, &route, &body, None)
            .await
            .error(401, "unauthorized");
        assert!(message.contains("player's token"), "{route}: {message}");
        // Nothing changed: the same game, the same version.
        assert_eq!(get_as(&router, &path, None).await.json(), game, "{route}");
    }
    // Its player plays it; anyone reads it, as a lichess game is read.
    let hinted = post_as(&router, &format!("{path}/hint"), &json!({}), Some(&ann)).await;
    assert_eq!(
        (hinted.status, hinted.json()["version"].clone()),
        (200, json!(1))
    );
    assert_eq!(get_as(&router, &path, Some(&bo)).await.status, 200);
    assert_eq!(
        get_as(&router, &format!("{path}/replay"), None)
            .await
            .status,
        200
    );

    // A game made without a token is anyone's.
    let open = post(&router, "/v1/games", &small_game()).await.json();
    let id = open["id"].as_str().unwrap();
    let hinted = post_as(
        &router,
        &format!("/v1/games/{id}/hint"),
        &json!({}),
        Some(&bo),
    )
    .await;
    assert_eq!(hinted.status, 200, "{}", hinted.text());
    assert_eq!(open.get("owner"), None);
}

#[tokio::test]
async fn private_games_are_read_by_their_player_alone() {
    let mut config = config();
    config.players.private_games = true;
    let router = router(config);
    let ann = sign_up(&router, "Ann").await;
    let bo = sign_up(&router, "Bo").await;
    let game = post_as(&router, "/v1/games", &small_game(), Some(&ann))
        .await
        .json();
    let path = format!("/v1/games/{}", game["id"].as_str().unwrap());
    for read in [
        path.clone(),
        format!("{path}/replay"),
        format!("/v1/players/{}/games", ann.id),
    ] {
        assert_eq!(
            get_as(&router, &read, Some(&ann)).await.status,
            200,
            "{read}"
        );
        get_as(&router, &read, Some(&bo))
            .await
            .error(403, "not_your_game");
    }
    get_as(&router, &path, None)
        .await
        .error(401, "unauthorized");
    let open = post(&router, "/v1/games", &small_game()).await.json();
    let open_path = format!("/v1/games/{}", open["id"].as_str().unwrap());
    assert_eq!(get_as(&router, &open_path, None).await.status, 200);
}

#[tokio::test]
async fn a_players_token_opens_games_alone_where_api_keys_gate_the_service() {
    let mut config = config();
    config.api_keys = vec!["service-key-0123456789".into()];
    let router = crate::support::router(config.clone());
    // Guest sign-up is on: no key needed to sign up.
    let ann = sign_up(&router, "Ann").await;
    let made = post_as(&router, "/v1/games", &small_game(), Some(&ann)).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let board = json!({"board": ["A.A"], "rules": "lianliankan", "queries": [{"from": [0, 0], "to": [2, 0]}]});
    let (message, _) = post_as(&router, "/v1/solve", &board, Some(&ann))
        .await
        .error(403, "forbidden");
    assert!(message.contains("service's API key"), "{message}");
    // Exports of archived games are a player's reading too.
    for export in [
        "/v1/days/2026-12-05/games/export".to_owned(),
        format!("/v1/leaderboards/{}/games/export", "f".repeat(32)),
    ] {
        let read = get_as(&router, &export, Some(&ann)).await;
        assert_eq!(read.status, 200, "{export}: {}", read.text());
    }
    let keyed = call(
        &router,
        request(
            "POST",
            "/v1/solve",
            Some(&board),
            Some("Bearer service-key-0123456789"),
        ),
    )
    .await;
    assert_eq!(keyed.status, 200, "{}", keyed.text());
    post(&router, "/v1/games", &small_game())
        .await
        .error(401, "unauthorized");

    // With guest sign-up off, signing up takes the key.
    config.players.guest_sign_up = false;
    let router = crate::support::router(config);
    let body = json!({"name": "Bo"});
    post(&router, "/v1/players", &body)
        .await
        .error(401, "unauthorized");
    let keyed = call(
        &router,
        request(
            "POST",
            "/v1/players",
            Some(&body),
            Some("Bearer service-key-0123456789"),
        ),
    )
    .await;
    assert_eq!(keyed.status, 201, "{}", keyed.text());
}

#[tokio::test]
async fn a_player_holds_at_most_its_quota_of_games() {
    let mut config = config();
    config.players.max_games_per_player = 2;
    let router = router(config);
    let ann = sign_up(&router, "Ann").await;
    for _ in 0..2 {
        let made = post_as(&router, "/v1/games", &small_game(), Some(&ann)).await;
        assert_eq!(made.status, 201, "{}", made.text());
    }
    let (message, _) = post_as(&router, "/v1/games", &small_game(), Some(&ann))
        .await
        .error(429, "quota_exceeded");
    assert!(
        message.contains("as many games as one player may"),
        "{message}"
    );
    // Another player, and nobody, are not held to Ann's quota.
    let bo = sign_up(&router, "Bo").await;
    assert_eq!(
        post_as(&router, "/v1/games", &small_game(), Some(&bo))
            .await
            .status,
        201
    );
    assert_eq!(post(&router, "/v1/games", &small_game()).await.status, 201);
}

#[tokio::test]
async fn a_players_games_are_listed_newest_first_a_page_at_a_time() {
    let clock = HeldClock::now();
    let router = router_on(config(), clock.clone());
    let ann = sign_up(&router, "Ann").await;
    let mut made = Vec::new();
    for _ in 0..5 {
        clock.advance(std::time::Duration::from_millis(10));
        made.push(
            post_as(&router, "/v1/games", &small_game(), Some(&ann))
                .await
                .json(),
        );
    }
    let resigned = &made[1];
    let id = resigned["id"].as_str().unwrap();
    let done = post_as(
        &router,
        &format!("/v1/games/{id}/resign"),
        &json!({}),
        Some(&ann),
    )
    .await;
    assert_eq!(done.status, 200, "{}", done.text());

    let listed = |query: String| {
        let path = format!("/v1/players/{}/games?{query}", ann.id);
        let router = router.clone();
        async move { get_as(&router, &path, None).await }
    };
    let ids = |page: &Value| -> Vec<Value> {
        page["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].clone())
            .collect()
    };
    let newest_first: Vec<Value> = made.iter().rev().map(|g| g["id"].clone()).collect();
    let first = listed("limit=2".into()).await.json();
    assert_eq!(ids(&first), newest_first[0..2]);
    let next = first["next"].as_str().unwrap();
    let second = listed(format!("limit=2&after={next}")).await.json();
    assert_eq!(ids(&second), newest_first[2..4]);
    let next = second["next"].as_str().unwrap();
    let third = listed(format!("limit=2&after={next}")).await.json();
    assert_eq!(
        (ids(&third), third.get("next")),
        (newest_first[4..].to_vec(), None)
    );

    let summary = &first["games"][0];
    let newest = &made[4];
    assert_eq!(
        summary,
        &json!({"id": newest["id"], "status": "playing", "score": 0, "elapsed_ms": 0,
                "tiles_left": newest["tiles_left"], "ranked": true, "leaderboard": newest["leaderboard"],
                "created_at": newest["created_at"], "updated_at": newest["updated_at"],
                "replay": format!("/v1/games/{}/replay", newest["id"].as_str().unwrap())})
    );
    let only = listed("status=resigned".into()).await.json();
    assert_eq!(ids(&only), vec![resigned["id"].clone()]);
    let since = made[3]["created_at"].as_str().unwrap();
    let recent = listed(format!("since={since}")).await.json();
    assert_eq!(ids(&recent), newest_first[0..2]);
    // `me` is the signed-in player; another player has none.
    let mine = get_as(&router, "/v1/players/me/games?limit=1", Some(&ann))
        .await
        .json();
    assert_eq!(ids(&mine), newest_first[0..1]);
    let bo = sign_up(&router, "Bo").await;
    let theirs = get_as(&router, &format!("/v1/players/{}/games", bo.id), None).await;
    assert_eq!(theirs.json(), json!({"games": []}));
    for (query, field) in [
        ("limit=0", "limit"),
        ("status=lost", "status"),
        ("after=zz", "after"),
    ] {
        let (_, at) = listed(query.into()).await.error(422, "invalid_request");
        assert_eq!(at.as_deref(), Some(field), "{query}");
    }
    let (_, at) = get_as(&router, "/v1/players/ANN/games", None)
        .await
        .error(422, "invalid_request");
    assert_eq!(at.as_deref(), Some("id"));
}

#[tokio::test]
async fn unknown_tokens_are_refused_at_a_rate_and_never_with_a_5xx() {
    let mut config = config();
    config.players.token_failures_per_minute = 3;
    let router = router(config);
    let ann = sign_up(&router, "Ann").await;
    let mut statuses = std::collections::BTreeMap::new();
    for i in 0..10_000u32 {
        let token = format!("Bearer lpp_{i:064x}");
        let reply = me(&router, Some(&token)).await;
        *statuses.entry(reply.status).or_insert(0u32) += 1;
    }
    // Three looked up and refused; the rest refused unread.
    assert_eq!(statuses, [(401, 3), (429, 9_997)].into_iter().collect());
    let limited = me(&router, Some(&ann.bearer())).await;
    assert_eq!(limited.status, 429, "{}", limited.text());
    assert!(limited.header("retry-after").is_some());
}

#[tokio::test]
async fn each_signed_in_player_has_a_rate_limit_bucket_of_their_own() {
    let mut config = config();
    config.rate_limit_per_second = 1;
    config.rate_limit_burst = Some(3);
    let router = router(config);
    // Two sign-ups spend two of the address's three requests.
    let ann = sign_up(&router, "Ann").await;
    let bo = sign_up(&router, "Bo").await;
    let mut statuses = Vec::new();
    for player in [
        Some(&ann),
        Some(&ann),
        Some(&ann),
        Some(&ann),
        Some(&bo),
        None,
        None,
    ] {
        statuses.push(get_as(&router, "/v1/players/me/games", player).await.status);
    }
    // Ann's three, then 429; Bo's first; the address's last one, then 429
    // (`me` without a token is 401, after the rate limit let it through).
    assert_eq!(statuses, [200, 200, 200, 429, 200, 401, 429]);
}

/// A studio's HS256 token for `claims` over the standard ones, signed
/// with `secret`, valid from the clock `now_s` for ten minutes.
fn studio_token(secret: &str, now_s: u64, claims: Value) -> String {
    let mut all = json!({"iss": "https://login.studio.example", "aud": "linkpath",
                         "sub": "user-7", "iat": now_s, "exp": now_s + 600});
    for (name, value) in claims.as_object().unwrap() {
        all[name] = value.clone();
    }
    let key = jsonwebtoken::EncodingKey::from_secret(secret.as_bytes()).unwrap();
    let header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
    jsonwebtoken::encode(&header, &all, &key).unwrap()
}

#[tokio::test]
async fn a_studio_signs_its_players_in_and_bad_tokens_are_401() {
    const SECRET: &str = "a studio secret of at least 32 bytes";
    let mut config = config();
    config.player_jwt.player_jwt_secret = Some(SECRET.into());
    config.player_jwt.player_jwt_issuer = Some("https://login.studio.example".into());
    config.player_jwt.player_jwt_audience = Some("linkpath".into());
    let clock = HeldClock::now();
    let router = router_on(config, clock.clone());
    let now_s = linkpath_server::Clock::now_ms(&*clock) / 1000;
    let auth = |token: String| format!("Bearer {token}");

    let token = auth(studio_token(SECRET, now_s, json!({"name": "Ada"})));
    let first = me(&router, Some(&token)).await;
    assert_eq!(first.status, 200, "{}", first.text());
    let ada = first.json();
    assert_eq!(ada["name"], "Ada");
    // The same subject is the same player, whatever name a later token
    // gives; the player's games are theirs.
    let again = auth(studio_token(SECRET, now_s, json!({"name": "Other"})));
    assert_eq!(me(&router, Some(&again)).await.json(), ada);
    let made = call(
        &router,
        request("POST", "/v1/games", Some(&small_game()), Some(&again)),
    )
    .await;
    assert_eq!(made.json()["owner"], ada["id"]);
    let renewed = call(
        &router,
        request("POST", "/v1/players/me/token", None, Some(&again)),
    )
    .await;
    renewed.error(409, "action_refused");

    let none = {
        use base64::Engine;
        let part =
            |v: Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
        let claims = json!({"iss": "https://login.studio.example", "aud": "linkpath",
                            "sub": "user-7", "exp": now_s + 600});
        format!(
            "{}.{}.",
            part(json!({"alg": "none", "typ": "JWT"})),
            part(claims)
        )
    };
    for (what, token, says) in [
        (
            "another key",
            studio_token("another secret of at least 32 bytes!", now_s, json!({})),
            "signature",
        ),
        (
            "expired",
            studio_token(SECRET, now_s, json!({"exp": now_s - 3600})),
            "expired",
        ),
        (
            "another audience",
            studio_token(SECRET, now_s, json!({"aud": "elsewhere"})),
            "audience",
        ),
        (
            "another issuer",
            studio_token(SECRET, now_s, json!({"iss": "https://evil.example"})),
            "issuer",
        ),
        ("alg none", none, "algorithm"),
    ] {
        let (message, _) = me(&router, Some(&auth(token)))
            .await
            .error(401, "unauthorized");
        assert!(message.to_lowercase().contains(says), "{what}: {message}");
    }
}

/// The router over a store file of its own, fresh.
fn on_a_file(name: &str) -> Router {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.redb"));
    let _ = std::fs::remove_file(&path);
    let mut config = config();
    config.games.store = format!("file:{}", path.display())
        .parse()
        .expect("a store spec");
    linkpath_server::app(linkpath_server::AppState::open(config).expect("the file opens"))
}

#[tokio::test]
async fn players_live_in_the_store_file_as_in_memory() {
    let router = on_a_file("players");
    let ann = sign_up(&router, "Ann").await;
    let bo = sign_up(&router, "Bo").await;
    let game = post_as(&router, "/v1/games", &small_game(), Some(&ann))
        .await
        .json();
    let id = game["id"].as_str().unwrap();
    post_as(
        &router,
        &format!("/v1/games/{id}/hint"),
        &json!({}),
        Some(&bo),
    )
    .await
    .error(403, "not_your_game");
    let listed = get_as(&router, "/v1/players/me/games", Some(&ann))
        .await
        .json();
    assert_eq!(listed["games"][0]["id"], game["id"]);
    let renewed = call(
        &router,
        request("POST", "/v1/players/me/token", None, Some(&ann.bearer())),
    )
    .await;
    assert_eq!(renewed.status, 201, "{}", renewed.text());
    me(&router, Some(&ann.bearer()))
        .await
        .error(401, "unauthorized");
    let new_auth = format!("Bearer {}", renewed.json()["token"].as_str().unwrap());
    assert_eq!(me(&router, Some(&new_auth)).await.json()["name"], "Ann");
    let erased = call(
        &router,
        request("DELETE", "/v1/players/me", None, Some(&new_auth)),
    )
    .await;
    assert_eq!(erased.status, 204);
    me(&router, Some(&new_auth))
        .await
        .error(401, "unauthorized");
    // The game stays, its player gone from it: nobody may act on it now.
    let kept = get_as(&router, &format!("/v1/games/{id}"), None).await;
    assert_eq!(
        (kept.status, kept.json()["owner"].clone()),
        (200, json!(ann.id))
    );
    let listed = get_as(&router, &format!("/v1/players/{}/games", ann.id), None).await;
    assert_eq!(listed.json(), json!({"games": []}));
}

#[tokio::test]
async fn an_address_signs_up_at_most_its_players_an_hour() {
    let mut config = config();
    config.players.sign_ups_per_hour = 2;
    let router = router(config);
    sign_up(&router, "Ann").await;
    sign_up(&router, "Bo").await;
    let refused = post(&router, "/v1/players", &json!({"name": "Cy"})).await;
    let seconds: u64 = refused
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .unwrap();
    assert!((3599..=3600).contains(&seconds), "{seconds}");
    let (message, _) = refused.error(429, "rate_limited");
    assert!(
        message.contains("signed up as many players this hour"),
        "{message}"
    );
    // A name refused counts nothing.
    let mut config = crate::support::config();
    config.players.sign_ups_per_hour = 1;
    let router = crate::support::router(config);
    post(&router, "/v1/players", &json!({"name": ""}))
        .await
        .error(422, "invalid_request");
    sign_up(&router, "Ann").await;
}
