//! Finished games reach the archive: a pass of the archiver copies a won
//! game with its replay and result, clears its mark, and copies nothing
//! twice; the archive's replay checks again through `POST /v1/replays`
//! to the game as stored. With the archive away (a PostgreSQL on a
//! closed port) the pass fails, the game stays marked and games go on;
//! marked games whose records do not read back hold back no other, and
//! stay marked in the store; an erased player's name goes from its
//! archived games, and so does the name of a player gone for idleness; a
//! player's list of games holds the live store's and the archive's as
//! one. A player's, a leaderboard's and a day's archived games export as
//! NDJSON, each holding exactly its games, one export a caller at a time.

use crate::support::*;
use linkpath_api::games::rfc3339;
use linkpath_archive::{ArchivedGame, Day};
use linkpath_server::{AppState, ArchiveNamesRound, ArchivePass, Clock, app};
use linkpath_testkit::stores::Backend;
use serde_json::{Value, json};
use std::time::Duration;

/// A small day's deal, cleared in twelve moves.
const SMALL: &str = "width=6&height=4&types=6";

const HOUR_MS: u64 = 3_600_000;

/// A game on a two-pair board made by `as_player`, won in two moves, the
/// clock moved on before each: its id.
async fn won_game(router: &axum::Router, clock: &HeldClock, as_player: Option<&Signed>) -> String {
    let board = json!({"board": ["A.A", "B.B"], "rules": "lianliankan"});
    let made = post_as(router, "/v1/games", &board, as_player).await;
    assert_eq!(made.status, 201, "{}", made.text());
    let id = made.json()["id"].as_str().expect("an id").to_owned();
    for (step, status) in [
        (json!({"from": [0, 0], "to": [2, 0]}), "playing"),
        (json!({"from": [0, 1], "to": [2, 1]}), "won"),
    ] {
        clock.advance(Duration::from_millis(1_500));
        let moved = post_as(router, &format!("/v1/games/{id}/moves"), &step, as_player).await;
        assert_eq!(moved.status, 200, "{}", moved.text());
        assert_eq!(moved.json()["status"], status);
    }
    id
}

/// The test settings with the archive a PostgreSQL on a closed port (one
/// bound, then let go: nothing listens there).
fn archive_away() -> linkpath_server::Config {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port");
    let mut config = config();
    config.archive.archive = Some(
        format!("postgres://linkpath@{closed}/linkpath")
            .parse()
            .expect("a PostgreSQL setting"),
    );
    config.archive.archive_timeout_ms = 2_000;
    config
}

async fn archived(state: &AppState, id: &str) -> Option<ArchivedGame> {
    let archive = state.archive().await.expect("the archive opens");
    archive.game(id).await.expect("the archive reads")
}

#[tokio::test]
async fn a_won_game_reaches_the_archive_with_its_replay_and_leaves_its_mark() {
    let clock = HeldClock::now();
    let state = AppState::in_memory(config(), clock.clone());
    let router = app(state.clone());
    let ada = sign_up(&router, "Ada").await;
    let created_ms = clock.now_ms();
    let id = won_game(&router, &clock, Some(&ada)).await;
    let game = get_as(&router, &format!("/v1/games/{id}"), Some(&ada)).await;
    let game = game.json();
    let replay = get_as(&router, &format!("/v1/games/{id}/replay"), Some(&ada)).await;
    assert_eq!(replay.status, 200, "{}", replay.text());

    let pass = state.archive_pass().await.expect("a pass");
    assert_eq!(
        pass,
        ArchivePass {
            archived: 1,
            ..ArchivePass::default()
        }
    );
    let marks = state.store().unarchived(10, u64::MAX).await.expect("marks");
    assert_eq!(marks, vec![]);
    // Nothing is copied twice.
    assert_eq!(state.archive_pass().await, Ok(ArchivePass::default()));
    assert_eq!(state.archive().await.unwrap().count().await, Ok(1));

    let copy = archived(&state, &id).await.expect("the game is archived");
    let body: Value = serde_json::from_slice(&copy.body).expect("a JSON record");
    assert_eq!(
        copy,
        ArchivedGame {
            id: id.clone(),
            player: Some(ada.id.clone()),
            player_name: Some("Ada".to_owned()),
            leaderboard: None,
            match_id: None,
            status: "won".to_owned(),
            rated: false,
            created_ms,
            finished_ms: created_ms + 3_000,
            body: copy.body.clone(),
        }
    );
    assert_eq!(body["replay"], replay.json());
    assert_eq!(
        body["result"],
        json!({
            "status": "won",
            "score": game["score"],
            "elapsed_ms": 3_000,
            "tiles_left": 0,
            "ranked": true,
        })
    );
    // The archive's replay checks again to the game as stored.
    let checked = post(&router, "/v1/replays", &body["replay"]).await;
    assert_eq!(checked.status, 200, "{}", checked.text());
    let checked = checked.json();
    assert_eq!(
        (&checked["status"], &checked["version"], &checked["score"]),
        (&json!("won"), &game["version"], &game["score"])
    );
}

#[tokio::test]
async fn an_archive_away_fails_the_pass_and_games_go_on() {
    let config = archive_away();
    let clock = HeldClock::now();
    let state = AppState::in_memory(config, clock.clone());
    let router = app(state.clone());
    let id = won_game(&router, &clock, None).await;
    let failed = state.archive_pass().await.expect_err("the archive is away");
    assert!(failed.starts_with("opening the archive: "), "{failed}");
    // Tried again a second later at the soonest: meanwhile at once.
    let again = state.archive_pass().await.expect_err("still away");
    assert!(again.contains("tried again each second"), "{again}");

    let pending = state.store().unarchived_count().await.expect("a count");
    assert_eq!(pending.games, 1);
    assert_eq!(pending.oldest_finished_ms, Some(clock.now_ms()));
    // Games go on: the finished one reads, a new one is made and played.
    let read = call(&router, get(&format!("/v1/games/{id}"))).await;
    assert_eq!((read.status, &read.json()["status"]), (200, &json!("won")));
    won_game(&router, &clock, None).await;
    let pending = state.store().unarchived_count().await.expect("a count");
    assert_eq!(pending.games, 2);
}

#[tokio::test]
async fn an_erased_players_name_goes_from_its_archived_games() {
    let clock = HeldClock::now();
    let state = AppState::in_memory(config(), clock.clone());
    let router = app(state.clone());
    let ada = sign_up(&router, "Ada").await;
    let before = won_game(&router, &clock, Some(&ada)).await;
    state.archive_pass().await.expect("a pass");
    let copy = archived(&state, &before).await.expect("archived");
    assert_eq!(copy.player_name.as_deref(), Some("Ada"));
    let erased = call(
        &router,
        request("DELETE", "/v1/players/me", None, Some(&ada.bearer())),
    )
    .await;
    assert_eq!(erased.status, 204, "{}", erased.text());
    let copy = archived(&state, &before).await.expect("archived");
    assert_eq!(
        (copy.player.as_deref(), copy.player_name),
        (Some(ada.id.as_str()), None)
    );
}

/// Plants `count` games marked as finished at `now_ms` whose records do
/// not read back (no game's record, no log entry's), their ids in the
/// order the marks list them.
async fn plant_unreadable(state: &AppState, now_ms: u64, count: usize) -> Vec<String> {
    let mut ids = Vec::with_capacity(count);
    for n in 0..count {
        let id = format!("{n:032x}");
        let write = linkpath_store::Write {
            id: id.clone(),
            expected: linkpath_store::Expected::Absent,
            game: linkpath_store::StoredGame {
                version: 0,
                expires_at_ms: now_ms + 86_400_000,
                body: b"{\"not\": \"a game\"}".to_vec(),
            },
            key: None,
            entry: None,
            owner: None,
            log: vec![b"not an entry".to_vec()],
            finished: true,
        };
        let written = state.store().write(write, now_ms).await;
        assert_eq!(written, Ok(linkpath_store::Outcome::Written));
        ids.push(id);
    }
    ids
}

linkpath_testkit::on_each_store!(unreadable_games_hold_back_no_readable_one);

/// More unreadable marked games than a pass's batch (100), oldest of
/// all: the readable games behind them are archived all the same, and
/// the unreadable stay marked and in the store, looked at once each.
async fn unreadable_games_hold_back_no_readable_one(backend: Backend) {
    let (mut config, _scratch) = config_on(backend, "archive_unreadable");
    // Replicas on Redis archive to a PostgreSQL.
    let _database = match backend {
        Backend::Redis => {
            let database =
                linkpath_testkit::postgres::PostgresDatabase::fresh("server_unreadable").await;
            config.archive.archive = Some(database.url().parse().expect("a PostgreSQL setting"));
            Some(database)
        }
        Backend::Memory | Backend::File => None,
    };
    let clock = HeldClock::now();
    let state = AppState::open_on(config, clock.clone()).expect("the store opens");
    let router = app(state.clone());
    let bad = plant_unreadable(&state, clock.now_ms(), 105).await;
    let good = [
        won_game(&router, &clock, None).await,
        won_game(&router, &clock, None).await,
    ];

    // The first pass meets a batch of unreadable games, ...
    assert_eq!(
        state.archive_pass().await,
        Ok(ArchivePass {
            unreadable: 100,
            ..ArchivePass::default()
        })
    );
    // ... the next passes over them to the rest, ...
    assert_eq!(
        state.archive_pass().await,
        Ok(ArchivePass {
            archived: 2,
            unreadable: 5,
            passed_over: 100,
            ..ArchivePass::default()
        })
    );
    // ... and from then on none is looked at again.
    assert_eq!(
        state.archive_pass().await,
        Ok(ArchivePass {
            passed_over: 105,
            ..ArchivePass::default()
        })
    );
    for id in &good {
        assert!(archived(&state, id).await.is_some(), "{id} is not archived");
    }
    let later = won_game(&router, &clock, None).await;
    assert_eq!(
        state.archive_pass().await,
        Ok(ArchivePass {
            archived: 1,
            passed_over: 105,
            ..ArchivePass::default()
        })
    );
    assert!(archived(&state, &later).await.is_some());

    // The unreadable stay marked, and in the store, for a build that
    // reads them.
    let marks = state.store().unarchived(1_000, u64::MAX).await;
    let marked: Vec<String> = marks.expect("marks").into_iter().map(|m| m.id).collect();
    assert_eq!(marked, bad);
    for id in &bad {
        let copy = state.store().archive_copy(id).await.expect("a copy");
        assert!(copy.is_some(), "{id} left the store");
        assert!(archived(&state, id).await.is_none(), "{id} was archived");
    }
}

/// A player gone from the live store for idleness loses their name in
/// the archive at the sweep's next round; a player still there keeps
/// theirs.
#[tokio::test]
async fn a_player_gone_for_idleness_loses_their_name_in_the_archive() {
    let clock = HeldClock::now();
    let mut config = config();
    config.players.player_idle_ms = 60_000;
    let state = AppState::in_memory(config, clock.clone());
    let router = app(state.clone());
    let ada = sign_up(&router, "Ada").await;
    let ada_game = won_game(&router, &clock, Some(&ada)).await;
    assert_eq!(state.archive_pass().await.map(|p| p.archived), Ok(1));
    clock.advance(Duration::from_secs(40));
    let bob = sign_up(&router, "Bob").await;
    let bob_game = won_game(&router, &clock, Some(&bob)).await;
    assert_eq!(state.archive_pass().await.map(|p| p.archived), Ok(1));
    let export = |id: &str| format!("/v1/players/{id}/games/export");
    let exported_name = |reply: Reply| lines(&reply)[0]["player_name"].clone();

    // Both are live: both keep their names.
    assert_eq!(
        state.archive_names_round().await,
        Ok(ArchiveNamesRound {
            checked: 2,
            ..ArchiveNamesRound::default()
        })
    );
    let ada_export = get_as(&router, &export(&ada.id), None).await;
    assert_eq!(exported_name(ada_export), json!("Ada"));

    // Ada signs in no more and expires; Bob does not yet.
    clock.advance(Duration::from_secs(20));
    assert_eq!(
        state.archive_names_round().await,
        Ok(ArchiveNamesRound {
            checked: 2,
            gone: 1,
            names_erased: 1,
        })
    );
    let ada_export = get_as(&router, &export(&ada.id), None).await;
    assert_eq!(lines(&ada_export)[0]["id"], json!(ada_game));
    assert_eq!(exported_name(ada_export), Value::Null);
    let copy = archived(&state, &ada_game).await.expect("archived");
    assert_eq!(
        (copy.player.as_deref(), copy.player_name),
        (Some(ada.id.as_str()), None)
    );
    let bob_export = get_as(&router, &export(&bob.id), None).await;
    assert_eq!(lines(&bob_export)[0]["id"], json!(bob_game));
    assert_eq!(exported_name(bob_export), json!("Bob"));
    // Nothing more to erase: Bob alone is named still.
    assert_eq!(
        state.archive_names_round().await,
        Ok(ArchiveNamesRound {
            checked: 1,
            ..ArchiveNamesRound::default()
        })
    );
}

/// A live store that began again (a memory store restarted, here, on
/// the same archive) lacks every player it never had: their names stay
/// in the archive. A player of the new store gone for idleness still
/// loses theirs.
#[tokio::test]
async fn a_store_begun_again_leaves_the_names_of_players_it_never_had() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("names-begun-again.redb");
    let _ = std::fs::remove_file(&path);
    let clock = HeldClock::now();
    let mut config = config();
    config.players.player_idle_ms = 60_000;
    config.archive.archive = Some(
        format!("file:{}", path.display())
            .parse()
            .expect("an archive setting"),
    );
    let ada_game = {
        let state = AppState::in_memory(config.clone(), clock.clone());
        let router = app(state.clone());
        let ada = sign_up(&router, "Ada").await;
        let game = won_game(&router, &clock, Some(&ada)).await;
        assert_eq!(state.archive_pass().await.map(|p| p.archived), Ok(1));
        game
    };

    clock.advance(Duration::from_secs(1));
    let state = AppState::in_memory(config, clock.clone());
    let router = app(state.clone());
    let bob = sign_up(&router, "Bob").await;
    let bob_game = won_game(&router, &clock, Some(&bob)).await;
    assert_eq!(state.archive_pass().await.map(|p| p.archived), Ok(1));
    // Bob expires; Ada was never in this store.
    clock.advance(Duration::from_secs(61));
    assert_eq!(
        state.archive_names_round().await,
        Ok(ArchiveNamesRound {
            checked: 2,
            gone: 1,
            names_erased: 1,
        })
    );
    let name = |game: Option<ArchivedGame>| game.expect("archived").player_name;
    assert_eq!(
        name(archived(&state, &ada_game).await).as_deref(),
        Some("Ada")
    );
    assert_eq!(name(archived(&state, &bob_game).await), None);
    let _ = std::fs::remove_file(&path);
}

/// The lines of an NDJSON answer, each read as JSON.
fn lines(reply: &Reply) -> Vec<Value> {
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.header("content-type"), Some("application/x-ndjson"));
    reply
        .text()
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

#[tokio::test]
async fn a_players_archived_games_export_as_ndjson_newest_first() {
    let clock = HeldClock::now();
    let state = AppState::in_memory(config(), clock.clone());
    let router = app(state.clone());
    let ada = sign_up(&router, "Ada").await;
    let older = won_game(&router, &clock, Some(&ada)).await;
    let between = linkpath_api::games::rfc3339(clock.now_ms() + 1);
    let newer = won_game(&router, &clock, Some(&ada)).await;
    // Another player's game is not Ada's.
    let bob = sign_up(&router, "Bob").await;
    won_game(&router, &clock, Some(&bob)).await;
    assert_eq!(state.archive_pass().await.map(|p| p.archived), Ok(3));
    let export = |query: &str| format!("/v1/players/{}/games/export{query}", ada.id);

    let all = lines(&get_as(&router, &export(""), Some(&ada)).await);
    let ids: Vec<&str> = all.iter().map(|l| l["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [newer.as_str(), older.as_str()]);
    let replay = get_as(&router, &format!("/v1/games/{newer}/replay"), Some(&ada)).await;
    let finished_ms = clock.now_ms() - 3_000;
    assert_eq!(
        all[0],
        json!({
            "id": newer,
            "player": ada.id,
            "player_name": "Ada",
            "status": "won",
            "rated": false,
            "created_at": linkpath_api::games::rfc3339(finished_ms - 3_000),
            "finished_at": linkpath_api::games::rfc3339(finished_ms),
            "replay": replay.json(),
            "result": all[0]["result"],
        })
    );
    assert_eq!(
        (&all[0]["result"]["status"], &all[0]["result"]["tiles_left"]),
        (&json!("won"), &json!(0))
    );
    // Anyone may export them, `me` names the caller, and filters narrow.
    assert_eq!(lines(&call(&router, get(&export(""))).await).len(), 2);
    let mine = get_as(&router, "/v1/players/me/games/export?max=1", Some(&ada)).await;
    assert_eq!(lines(&mine).len(), 1);
    assert_eq!(lines(&mine)[0]["id"], json!(newer));
    let since = get_as(&router, &export(&format!("?since={between}")), None).await;
    assert_eq!(lines(&since).len(), 1);
    assert_eq!(lines(&since)[0]["id"], json!(newer));
    let until = get_as(&router, &export(&format!("?until={between}")), None).await;
    assert_eq!(lines(&until)[0]["id"], json!(older));
    for none in [
        "?status=resigned",
        "?rated=true",
        "?match=00000000000000000000000000000000",
    ] {
        assert_eq!(
            lines(&get_as(&router, &export(none), None).await),
            Vec::<Value>::new(),
            "{none}"
        );
    }
}

#[tokio::test]
async fn an_export_refuses_what_it_cannot_answer() {
    let router = router_on(config(), HeldClock::now());
    let ada = sign_up(&router, "Ada").await;
    let refused = get_as(
        &router,
        &format!("/v1/players/{}/games/export?rated=maybe", ada.id),
        None,
    )
    .await;
    assert_eq!(refused.status, 422, "{}", refused.text());
    assert_eq!(
        (
            &refused.json()["error"]["field"],
            &refused.json()["error"]["message"]
        ),
        (
            &json!("rated"),
            &json!("`rated` is \"maybe\", expected true or false")
        )
    );
    let me = get_as(&router, "/v1/players/me/games/export", None).await;
    assert_eq!(me.status, 401, "{}", me.text());
    let bad_id = get_as(&router, "/v1/players/Ada/games/export", None).await;
    assert_eq!(bad_id.status, 422, "{}", bad_id.text());
}

#[tokio::test]
async fn one_export_a_caller_streams_at_a_time() {
    let router = router_on(config(), HeldClock::now());
    let ada = sign_up(&router, "Ada").await;
    let path = format!("/v1/players/{}/games/export", ada.id);
    let export = || request("GET", &path, None, Some(&ada.bearer()));
    // The first answer held unread: its export streams still.
    let streaming = tower::ServiceExt::oneshot(router.clone(), export())
        .await
        .expect("an answer");
    assert_eq!(streaming.status(), 200);
    // A second export of Ada's, whatever it exports, waits for the first.
    for second in [
        path.clone(),
        format!("/v1/leaderboards/{}/games/export", "f".repeat(32)),
        "/v1/days/2026-12-05/games/export".to_owned(),
    ] {
        let second = get_as(&router, &second, Some(&ada)).await;
        assert_eq!(second.status, 429, "{}", second.text());
        assert_eq!(second.header("retry-after"), Some("1"));
    }
    // Another caller is not held back, and once the first ends, Ada may.
    assert_eq!(call(&router, get(&path)).await.status, 200);
    drop(streaming);
    assert_eq!(call(&router, export()).await.status, 200);
}

#[tokio::test]
async fn an_export_with_the_archive_away_answers_503() {
    let config = archive_away();
    let router = router_on(config, HeldClock::now());
    let ada = sign_up(&router, "Ada").await;
    for path in [
        format!("/v1/players/{}/games/export", ada.id),
        format!("/v1/leaderboards/{}/games/export", "f".repeat(32)),
        "/v1/days/2026-12-05/games/export".to_owned(),
    ] {
        let away = get_as(&router, &path, None).await;
        assert_eq!(away.status, 503, "{path}: {}", away.text());
        assert_eq!(away.header("retry-after"), Some("1"));
        assert_eq!(away.json()["error"]["code"], "store_unavailable");
    }
}

#[tokio::test]
#[ignore = "needs a PostgreSQL: LINKPATH_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres cargo test -- --ignored"]
async fn a_won_game_reaches_a_postgresql_archive_and_its_export_replays() {
    let database = linkpath_testkit::postgres::PostgresDatabase::fresh("server_archive").await;
    let mut config = config();
    config.archive.archive = Some(database.url().parse().expect("a PostgreSQL setting"));
    let clock = HeldClock::now();
    let state = AppState::in_memory(config, clock.clone());
    state.open_archive().await.expect("the archive opens");
    let router = app(state.clone());
    let ada = sign_up(&router, "Ada").await;
    let id = won_game(&router, &clock, Some(&ada)).await;
    assert_eq!(state.archive_pass().await.map(|p| p.archived), Ok(1));
    // Copied again (a crash before the marks were cleared): still one.
    assert_eq!(
        state
            .archive()
            .await
            .unwrap()
            .insert(&[archived(&state, &id).await.unwrap()])
            .await,
        Ok(0)
    );
    assert_eq!(state.store().unarchived(10, u64::MAX).await, Ok(vec![]));
    assert_eq!(state.archive().await.unwrap().count().await, Ok(1));

    let export = get_as(&router, "/v1/players/me/games/export", Some(&ada)).await;
    let exported = lines(&export);
    assert_eq!(exported.len(), 1);
    assert_eq!(
        (&exported[0]["id"], &exported[0]["player_name"]),
        (&json!(id), &json!("Ada"))
    );
    let checked = post(&router, "/v1/replays", &exported[0]["replay"]).await;
    assert_eq!(checked.status, 200, "{}", checked.text());
    assert_eq!(checked.json()["status"], "won");
}

/// A finished game gone from the live store keeps its replay, read from
/// the archive with the version it ended at; where games are private,
/// only its player reads it.
#[tokio::test]
async fn a_replay_outlives_its_game_in_the_archive() {
    let clock = HeldClock::now();
    let mut config = config();
    config.players.private_games = true;
    let state = AppState::in_memory(config, clock.clone());
    let router = app(state.clone());
    let (ada, bob) = (sign_up(&router, "Ada").await, sign_up(&router, "Bob").await);
    let id = won_game(&router, &clock, Some(&ada)).await;
    let path = format!("/v1/games/{id}/replay");
    let live = get_as(&router, &path, Some(&ada)).await;
    assert_eq!(live.status, 200, "{}", live.text());
    assert_eq!(state.archive_pass().await.map(|p| p.archived), Ok(1));

    // Two days on, the game has expired from the live store.
    clock.advance(Duration::from_secs(2 * 86_400));
    let game = get_as(&router, &format!("/v1/games/{id}"), Some(&ada)).await;
    assert_eq!(game.status, 404, "{}", game.text());
    let archived = get_as(&router, &path, Some(&ada)).await;
    assert_eq!(archived.status, 200, "{}", archived.text());
    assert_eq!(archived.json(), live.json());
    assert_eq!(archived.header("etag"), live.header("etag"));
    let other = get_as(&router, &path, Some(&bob)).await;
    assert_eq!(other.status, 403, "{}", other.text());
    assert_eq!(other.json()["error"]["code"], "not_your_game");
    let nobody = get_as(
        &router,
        "/v1/games/0123456789abcdef0123456789abcdef/replay",
        Some(&ada),
    )
    .await;
    assert_eq!(nobody.status, 404, "{}", nobody.text());
    assert_eq!(nobody.json()["error"]["code"], "game_not_found");
}

/// A player, a board or a day with nothing archived, known or not,
/// exports no line, gzip or not: the compression reads the export's stream once more after its
/// end, which must answer that it ended again, not panic.
#[tokio::test]
async fn an_export_of_nothing_is_an_empty_answer() {
    use std::io::Read;
    let router = router_on(config(), HeldClock::now());
    let ada = sign_up(&router, "Ada").await;
    for path in [
        format!("/v1/players/{}/games/export", ada.id),
        format!(
            "/v1/players/{}/games/export?max=1&rated=true",
            "1".repeat(32)
        ),
        format!("/v1/leaderboards/{}/games/export", "f".repeat(32)),
        "/v1/days/2026-12-05/games/export?status=won".to_owned(),
    ] {
        assert_eq!(
            lines(&get_as(&router, &path, None).await),
            Vec::<Value>::new()
        );
        let request = axum::http::Request::get(&path)
            .header("accept-encoding", "gzip")
            .body(axum::body::Body::empty())
            .expect("a request");
        let gzipped = call(&router, request).await;
        assert_eq!(gzipped.status, 200, "{path}");
        assert_eq!(gzipped.header("content-encoding"), Some("gzip"));
        let mut text = String::new();
        flate2::read::GzDecoder::new(&gzipped.body[..])
            .read_to_string(&mut text)
            .expect("gzip decodes");
        assert_eq!(text, "", "{path}");
    }
}

/// The games of a page of a player's list, and its `next`.
fn listed(reply: &Reply) -> (Vec<Value>, Option<String>) {
    assert_eq!(reply.status, 200, "{}", reply.text());
    let page = reply.json();
    let games = page["games"].as_array().expect("games").clone();
    (games, page["next"].as_str().map(str::to_owned))
}

/// A player's list reads the live store and the archive as one list,
/// newest created first, a page at a time: a game gone from the store
/// is listed from the archive as it was listed live, a game in both once.
#[tokio::test]
async fn a_players_list_holds_their_live_and_archived_games_as_one() {
    let clock = HeldClock::now();
    let state = AppState::in_memory(config(), clock.clone());
    let router = app(state.clone());
    let ada = sign_up(&router, "Ada").await;
    let list = |query: &str| format!("/v1/players/{}/games?{query}", ada.id);

    let oldest = won_game(&router, &clock, Some(&ada)).await;
    let (games, _) = listed(&get_as(&router, &list("limit=5"), None).await);
    let oldest_live = games[0].clone();
    assert_eq!(oldest_live["id"], json!(oldest));
    assert_eq!(state.archive_pass().await.map(|p| p.archived), Ok(1));
    // Two days on, it has expired from the live store.
    clock.advance(Duration::from_secs(2 * 86_400));
    let gone = get_as(&router, &format!("/v1/games/{oldest}"), None).await;
    assert_eq!(gone.status, 404, "{}", gone.text());

    // Archived and still held.
    let both = won_game(&router, &clock, Some(&ada)).await;
    assert_eq!(state.archive_pass().await.map(|p| p.archived), Ok(1));
    clock.advance(Duration::from_secs(1));
    let board = json!({"board": ["A.A", "B.B"], "rules": "lianliankan"});
    let made = post_as(&router, "/v1/games", &board, Some(&ada)).await;
    let playing = made.json()["id"].as_str().expect("an id").to_owned();

    let (games, next) = listed(&get_as(&router, &list(""), None).await);
    let ids: Vec<&Value> = games.iter().map(|g| &g["id"]).collect();
    assert_eq!(ids, [&json!(playing), &json!(both), &json!(oldest)]);
    assert_eq!(next, None);
    // The archived game is listed as it was listed live.
    assert_eq!(games[2], oldest_live);
    assert_eq!(games[1]["status"], "won");

    // Page by page, each game once.
    let (first, next) = listed(&get_as(&router, &list("limit=2"), None).await);
    let first: Vec<&Value> = first.iter().map(|g| &g["id"]).collect();
    assert_eq!(first, [&json!(playing), &json!(both)]);
    let after = next.expect("a next page");
    let (rest, next) =
        listed(&get_as(&router, &list(&format!("limit=2&after={after}")), None).await);
    assert_eq!(rest, std::slice::from_ref(&oldest_live));
    assert_eq!(next, None);

    // Filters apply to both.
    let (won, _) = listed(&get_as(&router, &list("status=won"), None).await);
    let won: Vec<&Value> = won.iter().map(|g| &g["id"]).collect();
    assert_eq!(won, [&json!(both), &json!(oldest)]);
    let (live_only, _) = listed(&get_as(&router, &list("status=playing"), None).await);
    assert_eq!(live_only.len(), 1);
    assert_eq!(live_only[0]["id"], json!(playing));
    let until = oldest_live["updated_at"].as_str().expect("a time");
    let (before, _) = listed(&get_as(&router, &list(&format!("until={until}")), None).await);
    assert_eq!(before, [oldest_live]);
}

#[tokio::test]
async fn a_players_list_with_the_archive_away_answers_503() {
    let clock = HeldClock::now();
    let router = router_on(archive_away(), clock.clone());
    let ada = sign_up(&router, "Ada").await;
    let listed = get_as(&router, &format!("/v1/players/{}/games", ada.id), None).await;
    assert_eq!(listed.status, 503, "{}", listed.text());
    assert_eq!(listed.header("retry-after"), Some("1"));
    assert_eq!(listed.json()["error"]["code"], "store_unavailable");
    // A status no archived game has reads the live store alone.
    let playing = get_as(
        &router,
        &format!("/v1/players/{}/games?status=playing", ada.id),
        None,
    )
    .await;
    assert_eq!(playing.status, 200, "{}", playing.text());
}

/// The leaderboard of the small deal of `date`, and the body that makes
/// its game.
async fn deal(router: &axum::Router, date: &str) -> (String, Value) {
    let deal = crate::leaderboards::daily(router, date, SMALL).await;
    assert_eq!(deal.status, 200, "{}", deal.text());
    let deal = deal.json();
    let board = deal["leaderboard"].as_str().expect("a board").to_owned();
    (board, deal["game"].clone())
}

/// A game made from `body` by `player` and won, after `assist` if any,
/// the clock moved on 100 ms before each move: its id.
async fn won_on_board(
    router: &axum::Router,
    clock: &HeldClock,
    body: &Value,
    player: &Signed,
    assist: Option<&str>,
) -> String {
    let think = Some((clock, Duration::from_millis(100)));
    let game = crate::leaderboards::win_on(router, body, Some(player), assist, think).await;
    game["id"].as_str().expect("an id").to_owned()
}

/// The ids of an export's lines, in order.
fn ids(reply: &Reply) -> Vec<String> {
    lines(reply)
        .iter()
        .map(|line| line["id"].as_str().expect("an id").to_owned())
        .collect()
}

#[tokio::test]
async fn a_leaderboards_archived_games_export_as_ndjson_newest_first() {
    let clock = HeldClock::now();
    let state = AppState::in_memory(config(), clock.clone());
    let router = app(state.clone());
    let (ada, bob) = (sign_up(&router, "Ada").await, sign_up(&router, "Bob").await);
    let (board, game) = deal(&router, "2026-12-02").await;
    let (other_board, other_game) = deal(&router, "2026-12-03").await;
    let hinted = won_on_board(&router, &clock, &game, &ada, Some("hint")).await;
    let between = rfc3339(clock.now_ms() + 1);
    let adas = won_on_board(&router, &clock, &game, &ada, None).await;
    let bobs = won_on_board(&router, &clock, &game, &bob, None).await;
    let elsewhere = won_on_board(&router, &clock, &other_game, &ada, None).await;
    // A board sent is on no leaderboard.
    won_game(&router, &clock, Some(&ada)).await;
    assert_eq!(state.archive_pass().await.map(|p| p.archived), Ok(5));
    let export = |query: &str| format!("/v1/leaderboards/{board}/games/export{query}");

    let all = lines(&call(&router, get(&export(""))).await);
    let all_ids: Vec<&str> = all.iter().map(|l| l["id"].as_str().unwrap()).collect();
    assert_eq!(all_ids, [bobs.as_str(), adas.as_str(), hinted.as_str()]);
    let replay = get_as(&router, &format!("/v1/games/{bobs}/replay"), None).await;
    assert_eq!(
        (
            &all[0]["player"],
            &all[0]["player_name"],
            &all[0]["rated"],
            &all[0]["replay"]
        ),
        (&json!(bob.id), &json!("Bob"), &json!(true), &replay.json())
    );
    for line in &all {
        assert_eq!(line["leaderboard"], json!(board), "{line}");
    }
    assert_eq!(all[2]["rated"], json!(false));
    let other = call(
        &router,
        get(&format!("/v1/leaderboards/{other_board}/games/export")),
    )
    .await;
    assert_eq!(ids(&other), [elsewhere.as_str()]);

    // Filters narrow, whoever asks.
    for (query, want) in [
        (
            format!("?player={}", ada.id),
            vec![adas.as_str(), hinted.as_str()],
        ),
        ("?rated=false".to_owned(), vec![hinted.as_str()]),
        ("?max=1".to_owned(), vec![bobs.as_str()]),
        (format!("?until={between}"), vec![hinted.as_str()]),
        (
            format!("?since={between}&rated=true&player={}", bob.id),
            vec![bobs.as_str()],
        ),
        ("?status=resigned".to_owned(), vec![]),
        ("?match=00000000000000000000000000000000".to_owned(), vec![]),
    ] {
        let reply = get_as(&router, &export(&query), Some(&ada)).await;
        assert_eq!(ids(&reply), want, "{query}");
    }

    // The board is the path's: `leaderboard` is no parameter here.
    let (message, field) = call(&router, get(&export(&format!("?leaderboard={board}"))))
        .await
        .error(422, "invalid_request");
    assert_eq!(
        (field.as_deref(), message.as_str()),
        (
            Some("leaderboard"),
            "the query parameter `leaderboard` is unknown, expected `since`, `until`, `max`, \
             `status`, `rated`, `match` or `player`"
        )
    );
    let (message, field) = call(&router, get(&export("?player=Ada")))
        .await
        .error(422, "invalid_request");
    assert_eq!(
        (field.as_deref(), message.as_str()),
        (
            Some("player"),
            "`player` is \"Ada\", expected 32 lowercase hex digits"
        )
    );
    let (_, field) = call(&router, get("/v1/leaderboards/Board/games/export"))
        .await
        .error(422, "invalid_request");
    assert_eq!(field.as_deref(), Some("leaderboard"));
}

#[tokio::test]
async fn a_days_archived_games_export_as_ndjson_newest_first() {
    let clock = HeldClock::now();
    // From an hour past a midnight, so that the first day's games all
    // finish on it.
    let midnight = Day::of_ms(clock.now_ms()).end_ms();
    clock.advance(Duration::from_millis(midnight + HOUR_MS - clock.now_ms()));
    let state = AppState::in_memory(config(), clock.clone());
    let router = app(state.clone());
    let (ada, bob) = (sign_up(&router, "Ada").await, sign_up(&router, "Bob").await);
    let (board, game) = deal(&router, "2026-12-02").await;
    let first = won_game(&router, &clock, Some(&ada)).await;
    let between = rfc3339(clock.now_ms() + 1);
    let ranked = won_on_board(&router, &clock, &game, &bob, None).await;
    assert_eq!(state.archive_pass().await.map(|p| p.archived), Ok(2));
    let day = Day::of_ms(clock.now_ms());
    // A day on, another game.
    clock.advance(Duration::from_secs(86_400));
    let next = won_game(&router, &clock, Some(&ada)).await;
    assert_eq!(state.archive_pass().await.map(|p| p.archived), Ok(1));
    let next_day = Day::of_ms(clock.now_ms());
    assert_eq!(next_day, Day::of_ms(day.end_ms()));
    let export = |day: Day, query: &str| format!("/v1/days/{day}/games/export{query}");

    let all = lines(&call(&router, get(&export(day, ""))).await);
    let all_ids: Vec<&str> = all.iter().map(|l| l["id"].as_str().unwrap()).collect();
    assert_eq!(all_ids, [ranked.as_str(), first.as_str()]);
    let replay = get_as(&router, &format!("/v1/games/{first}/replay"), None).await;
    assert_eq!(
        (
            &all[1]["player"],
            &all[1]["replay"],
            all[1].get("leaderboard")
        ),
        (&json!(ada.id), &replay.json(), None)
    );
    assert_eq!(all[0]["leaderboard"], json!(board));
    let later = call(&router, get(&export(next_day, ""))).await;
    assert_eq!(ids(&later), [next.as_str()]);
    let before = call(&router, get(&export(Day::of_ms(day.start_ms() - 1), ""))).await;
    assert_eq!(ids(&before), Vec::<String>::new());

    // Filters narrow; `since` and `until` within the day, never past it.
    let wide = format!(
        "?since={}&until={}",
        rfc3339(day.start_ms() - HOUR_MS),
        rfc3339(next_day.end_ms())
    );
    for (query, want) in [
        (format!("?leaderboard={board}"), vec![ranked.as_str()]),
        (format!("?player={}", ada.id), vec![first.as_str()]),
        (format!("?since={between}"), vec![ranked.as_str()]),
        (format!("?until={between}"), vec![first.as_str()]),
        (wide, vec![ranked.as_str(), first.as_str()]),
        ("?rated=true".to_owned(), vec![ranked.as_str()]),
        ("?max=1".to_owned(), vec![ranked.as_str()]),
        ("?status=out_of_time".to_owned(), vec![]),
    ] {
        let reply = get_as(&router, &export(day, &query), Some(&bob)).await;
        assert_eq!(ids(&reply), want, "{query}");
    }

    let (message, field) = call(&router, get("/v1/days/2026-02-30/games/export"))
        .await
        .error(422, "invalid_request");
    assert_eq!(
        (field.as_deref(), message.as_str()),
        (
            Some("date"),
            "the date is \"2026-02-30\", expected a UTC day as YYYY-MM-DD, from 1970-01-01 to 9999-12-31"
        )
    );
    let (message, field) = call(&router, get(&export(day, "?opponent=x")))
        .await
        .error(422, "invalid_request");
    assert_eq!(
        (field.as_deref(), message.as_str()),
        (
            Some("opponent"),
            "the query parameter `opponent` is unknown, expected `since`, `until`, `max`, \
             `status`, `rated`, `leaderboard`, `match` or `player`"
        )
    );
}

/// Where games are private, a board's or a day's games are other
/// players' too: their exports are refused, to a signed-in player as to
/// anyone, pointing to the caller's own.
#[tokio::test]
async fn where_games_are_private_a_boards_and_a_days_exports_are_refused() {
    let mut config = config();
    config.players.private_games = true;
    let router = router_on(config, HeldClock::now());
    let ada = sign_up(&router, "Ada").await;
    let board = "f".repeat(32);
    for (path, message) in [
        (
            format!("/v1/leaderboards/{board}/games/export"),
            format!(
                "games are private here, and a leaderboard's games are other players' too: \
                 export your own with /v1/players/me/games/export?leaderboard={board}"
            ),
        ),
        (
            "/v1/days/2026-12-05/games/export".to_owned(),
            "games are private here, and a day's games are other players' too: export your \
             own with /v1/players/me/games/export?since=2026-12-05T00:00:00.000Z\
             &until=2026-12-06T00:00:00.000Z"
                .to_owned(),
        ),
    ] {
        for caller in [None, Some(&ada)] {
            let (refused, field) = get_as(&router, &path, caller)
                .await
                .error(403, "not_your_game");
            assert_eq!((refused, field), (message.clone(), None), "{path}");
        }
    }
    // Ada's own export stays hers.
    let own = get_as(&router, "/v1/players/me/games/export", Some(&ada)).await;
    assert_eq!(own.status, 200, "{}", own.text());
}
