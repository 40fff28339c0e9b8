//! Matches: created and changed by compare-and-set, bounded in number,
//! expired and purged with their entry in the due index, read from that
//! index soonest first and moved or taken out of it by their writes,
//! replayed under a kept key, written with their players' changes all or
//! nothing, and a due change applied once by two sweepers racing on it.
//! Each case runs on every backend; that Redis tells other replicas of
//! each match write is here too.

use linkpath_store::{
    Expected, Feed, KeyBound, MatchOutcome, MatchWrite, PlayerOutcome, Purged, StoreError,
    StoreLimits, StoredMatch,
};

use crate::support::{
    Backend, LATER, NOW, change, fresh_redis_store, join, kept, limits, open, open_spec, open_with,
    player,
};

on_each!(
    a_match_is_created_read_and_changed,
    a_match_write_is_a_compare_and_set,
    a_bad_match_write_is_refused,
    matches_are_bounded,
    a_match_expires_and_is_purged_with_its_due_entry,
    due_matches_come_soonest_first_and_move_with_their_writes,
    a_match_key_replays_its_answer,
    a_match_key_is_bounded_as_a_games,
    players_are_written_with_the_match_or_not_at_all,
    two_sweepers_apply_a_due_change_once,
);

const SOON: u64 = NOW + 10;

/// A match at `version` with this body and timer, expiring [`LATER`].
fn record(version: u64, body: &str, due_at_ms: Option<u64>) -> StoredMatch {
    StoredMatch {
        version,
        expires_at_ms: LATER,
        due_at_ms,
        body: body.as_bytes().to_vec(),
    }
}

/// Creates the match `id`.
fn open_match(id: &str, body: &str, due_at_ms: Option<u64>) -> MatchWrite {
    MatchWrite {
        id: id.to_owned(),
        expected: Expected::Absent,
        record: record(0, body, due_at_ms),
        key: None,
        players: Vec::new(),
    }
}

/// Moves the match `id` from version `from` to the next.
fn move_match(id: &str, from: u64, body: &str, due_at_ms: Option<u64>) -> MatchWrite {
    MatchWrite {
        id: id.to_owned(),
        expected: Expected::Version(from),
        record: record(from + 1, body, due_at_ms),
        key: None,
        players: Vec::new(),
    }
}

/// `write`, its match expiring at `expires_at_ms`.
fn expiring_match(mut write: MatchWrite, expires_at_ms: u64) -> MatchWrite {
    write.record.expires_at_ms = expires_at_ms;
    write
}

fn purged_matches(matches: usize) -> Purged {
    Purged {
        games: 0,
        held: 0,
        keys: 0,
        boards: 0,
        players: 0,
        matches,
    }
}

async fn a_match_is_created_read_and_changed(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    assert_eq!(store.match_record("m", NOW).await, Ok(None));
    assert_eq!(store.matches().await, Ok(0));
    let created = open_match("m", "open", Some(NOW + 600_000));
    assert_eq!(
        store.write_match(created, NOW).await,
        Ok(MatchOutcome::Written)
    );
    assert_eq!(
        store.match_record("m", NOW).await,
        Ok(Some(record(0, "open", Some(NOW + 600_000))))
    );
    let started = move_match("m", 0, "playing", None);
    assert_eq!(
        store.write_match(started, NOW).await,
        Ok(MatchOutcome::Written)
    );
    assert_eq!(
        store.match_record("m", NOW).await,
        Ok(Some(record(1, "playing", None)))
    );
    assert_eq!(store.matches().await, Ok(1));
    // A match is no game, nor a game a match.
    assert_eq!(store.game("m", NOW).await, Ok(None));
    assert_eq!(store.games().await, Ok(0));
}

async fn a_match_write_is_a_compare_and_set(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    assert_eq!(
        store.write_match(move_match("m", 0, "v1", None), NOW).await,
        Ok(MatchOutcome::Stale { current: None })
    );
    store
        .write_match(open_match("m", "v0", None), NOW)
        .await
        .unwrap();
    assert_eq!(
        store.write_match(open_match("m", "again", None), NOW).await,
        Ok(MatchOutcome::Stale { current: Some(0) })
    );
    assert_eq!(
        store.write_match(move_match("m", 0, "v1", None), NOW).await,
        Ok(MatchOutcome::Written)
    );
    // The second of two writes that read version 0 loses.
    assert_eq!(
        store
            .write_match(move_match("m", 0, "late", None), NOW)
            .await,
        Ok(MatchOutcome::Stale { current: Some(1) })
    );
    assert_eq!(
        store.match_record("m", NOW).await,
        Ok(Some(record(1, "v1", None)))
    );
}

async fn a_bad_match_write_is_refused(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    let invalid = |result: Result<MatchOutcome, StoreError>| {
        matches!(result, Err(StoreError::InvalidWrite(_)))
    };
    let mut skipped = move_match("m", 0, "v1", None);
    skipped.record.version = 2;
    assert!(invalid(store.write_match(skipped, NOW).await));
    let mut last = move_match("m", 0, "v1", None);
    last.expected = Expected::Version(u64::MAX);
    assert!(invalid(store.write_match(last, NOW).await));
    // Players are changed with a match, never created by it, and once.
    let mut creating = open_match("m", "v0", None);
    creating.players = vec![join("p", "Ada", None)];
    assert!(invalid(store.write_match(creating, NOW).await));
    let mut twice = open_match("m", "v0", None);
    twice.players = vec![change("p", 0, "Ada", None), change("p", 0, "Ada", None)];
    assert!(invalid(store.write_match(twice, NOW).await));
    let mut one_token = open_match("m", "v0", None);
    one_token.players = vec![
        change("p", 0, "Ada", Some(1)),
        change("q", 0, "Bo", Some(1)),
    ];
    assert!(invalid(store.write_match(one_token, NOW).await));
    assert_eq!(store.match_record("m", NOW).await, Ok(None));
    assert_eq!(store.matches().await, Ok(0));
}

async fn matches_are_bounded(backend: Backend) {
    let (store, _dir) = open_with(
        backend,
        StoreLimits {
            max_matches: 2,
            ..limits(10)
        },
    );
    let short = expiring_match(open_match("a", "v0", Some(NOW)), SOON);
    store.write_match(short, NOW).await.unwrap();
    store
        .write_match(open_match("b", "v0", None), NOW)
        .await
        .unwrap();
    assert_eq!(
        store.write_match(open_match("c", "v0", None), NOW).await,
        Ok(MatchOutcome::Full)
    );
    // A change of a stored match is no create.
    assert_eq!(
        store.write_match(move_match("b", 0, "v1", None), NOW).await,
        Ok(MatchOutcome::Written)
    );
    // An expired match never counts: a create deletes it to make room,
    // its due entry with it.
    assert_eq!(
        store.write_match(open_match("c", "v0", None), SOON).await,
        Ok(MatchOutcome::Written)
    );
    assert_eq!(store.matches().await, Ok(2));
    assert_eq!(store.due_matches(SOON, 10).await, Ok(Vec::new()));
    assert_eq!(store.purge(SOON, 10).await, Ok(purged_matches(0)));
}

async fn a_match_expires_and_is_purged_with_its_due_entry(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    let short = expiring_match(open_match("m", "v0", Some(NOW + 5)), SOON);
    store.write_match(short, NOW).await.unwrap();
    store
        .write_match(open_match("n", "v0", Some(NOW + 5)), NOW)
        .await
        .unwrap();
    assert_eq!(
        store.due_matches(SOON - 1, 10).await,
        Ok(vec!["m".to_owned(), "n".to_owned()])
    );
    // From its expiry on, it is absent: no record, not due, stale.
    assert_eq!(store.match_record("m", SOON).await, Ok(None));
    assert_eq!(store.due_matches(SOON, 10).await, Ok(vec!["n".to_owned()]));
    assert_eq!(
        store
            .write_match(move_match("m", 0, "v1", None), SOON)
            .await,
        Ok(MatchOutcome::Stale { current: None })
    );
    assert_eq!(store.matches().await, Ok(2));
    assert_eq!(store.purge(SOON, 10).await, Ok(purged_matches(1)));
    assert_eq!(store.matches().await, Ok(1));
    assert_eq!(store.purge_expired(SOON).await, Ok(purged_matches(0)));
    // A create over an expired match starts it again, at version 0.
    let again = expiring_match(open_match("n", "again", Some(LATER)), LATER + 10);
    assert_eq!(
        store.write_match(again, LATER).await,
        Ok(MatchOutcome::Written)
    );
    assert_eq!(store.due_matches(LATER, 10).await, Ok(vec!["n".to_owned()]));
    assert_eq!(store.purge_expired(LATER + 10).await, Ok(purged_matches(1)));
    assert_eq!(store.matches().await, Ok(0));
    assert_eq!(store.due_matches(u64::MAX, 10).await, Ok(Vec::new()));
}

async fn due_matches_come_soonest_first_and_move_with_their_writes(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    for (id, due) in [
        ("c", Some(NOW + 3)),
        ("a", Some(NOW + 3)),
        ("b", Some(NOW + 1)),
    ] {
        store
            .write_match(open_match(id, "v0", due), NOW)
            .await
            .unwrap();
    }
    store
        .write_match(open_match("none", "v0", None), NOW)
        .await
        .unwrap();
    store
        .write_match(open_match("later", "v0", Some(NOW + 100)), NOW)
        .await
        .unwrap();
    let ids = |ids: &[&str]| ids.iter().map(|id| (*id).to_owned()).collect::<Vec<_>>();
    assert_eq!(store.due_matches(NOW, 10).await, Ok(Vec::new()));
    assert_eq!(store.due_matches(NOW + 1, 10).await, Ok(ids(&["b"])));
    // Soonest first, then by id; at most as many as asked.
    assert_eq!(
        store.due_matches(NOW + 3, 10).await,
        Ok(ids(&["b", "a", "c"]))
    );
    assert_eq!(store.due_matches(NOW + 3, 2).await, Ok(ids(&["b", "a"])));
    assert_eq!(store.due_matches(NOW + 3, 0).await, Ok(Vec::new()));
    // Reading claims nothing.
    assert_eq!(store.due_matches(NOW + 3, 1).await, Ok(ids(&["b"])));
    // A write moves its match in the index, or takes it out.
    store
        .write_match(move_match("b", 0, "v1", Some(NOW + 50)), NOW)
        .await
        .unwrap();
    store
        .write_match(move_match("a", 0, "v1", None), NOW)
        .await
        .unwrap();
    // A refused write leaves it where it was.
    let late = store
        .write_match(move_match("c", 5, "late", None), NOW)
        .await;
    assert_eq!(late, Ok(MatchOutcome::Stale { current: Some(0) }));
    assert_eq!(
        store.due_matches(NOW + 100, 10).await,
        Ok(ids(&["c", "b", "later"]))
    );
}

async fn a_match_key_replays_its_answer(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    let mut joined = open_match("m", "v0", None);
    joined.key = Some(("k".into(), kept("created")));
    assert_eq!(
        store.write_match(joined.clone(), NOW).await,
        Ok(MatchOutcome::Written)
    );
    assert_eq!(store.kept("k", NOW).await, Ok(Some(kept("created"))));
    // The retry gets the first answer, whatever the version.
    assert_eq!(
        store.write_match(joined, NOW).await,
        Ok(MatchOutcome::Replayed(kept("created")))
    );
    let mut moved = move_match("m", 0, "v1", None);
    moved.key = Some(("k".into(), kept("moved")));
    assert_eq!(
        store.write_match(moved, NOW).await,
        Ok(MatchOutcome::Replayed(kept("created")))
    );
    assert_eq!(
        store.match_record("m", NOW).await,
        Ok(Some(record(0, "v0", None)))
    );
}

async fn a_match_key_is_bounded_as_a_games(backend: Backend) {
    let (store, _dir) = open_with(
        backend,
        StoreLimits {
            max_keys_per_game: 1,
            ..limits(10)
        },
    );
    let mut created = open_match("m", "v0", None);
    created.key = Some(("k1".into(), kept("created")));
    store.write_match(created, NOW).await.unwrap();
    let mut moved = move_match("m", 0, "v1", None);
    moved.key = Some(("k2".into(), kept("moved")));
    assert_eq!(
        store.write_match(moved, NOW).await,
        Ok(MatchOutcome::TooManyKeys(KeyBound::Game))
    );
    assert_eq!(
        store.match_record("m", NOW).await,
        Ok(Some(record(0, "v0", None)))
    );
    assert_eq!(store.kept("k2", NOW).await, Ok(None));
}

async fn players_are_written_with_the_match_or_not_at_all(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    for (id, name, token) in [("p", "Ada", 1), ("q", "Bo", 2)] {
        let joined = store.write_player(join(id, name, Some(token)), NOW).await;
        assert_eq!(joined, Ok(PlayerOutcome::Written));
    }
    store
        .write_player(change("q", 0, "Bo renamed", Some(2)), NOW)
        .await
        .unwrap();
    store
        .write_match(open_match("m", "playing", Some(NOW + 5)), NOW)
        .await
        .unwrap();

    // q is at version 1, not 0: neither the match nor p is written.
    let mut finished = move_match("m", 0, "finished", None);
    finished.key = Some(("k".into(), kept("finished")));
    finished.players = vec![
        change("p", 0, "Ada 1530", Some(1)),
        change("q", 0, "Bo 1470", Some(2)),
    ];
    assert_eq!(
        store.write_match(finished.clone(), NOW).await,
        Ok(MatchOutcome::PlayerStale {
            id: "q".into(),
            current: Some(1)
        })
    );
    assert_eq!(
        store.match_record("m", NOW).await,
        Ok(Some(record(0, "playing", Some(NOW + 5))))
    );
    assert_eq!(
        store.player("p", NOW).await,
        Ok(Some(player(0, "Ada", Some(1))))
    );
    assert_eq!(store.kept("k", NOW).await, Ok(None));
    assert_eq!(
        store.due_matches(NOW + 5, 10).await,
        Ok(vec!["m".to_owned()])
    );

    // Read again, retried: all of it is written.
    finished.players[1] = change("q", 1, "Bo 1470", Some(2));
    assert_eq!(
        store.write_match(finished, NOW).await,
        Ok(MatchOutcome::Written)
    );
    assert_eq!(
        store.match_record("m", NOW).await,
        Ok(Some(record(1, "finished", None)))
    );
    assert_eq!(
        store.players(&["p".into(), "q".into()], NOW).await,
        Ok(vec![
            Some(player(1, "Ada 1530", Some(1))),
            Some(player(2, "Bo 1470", Some(2)))
        ])
    );
    assert_eq!(
        store.player_by_token(&crate::support::token(2), NOW).await,
        Ok(Some(("q".into(), player(2, "Bo 1470", Some(2)))))
    );
    assert_eq!(store.kept("k", NOW).await, Ok(Some(kept("finished"))));
    assert_eq!(store.due_matches(NOW + 5, 10).await, Ok(Vec::new()));

    // A stale match is told before its players.
    let mut late = move_match("m", 0, "late", None);
    late.players = vec![change("p", 0, "Ada", Some(1))];
    assert_eq!(
        store.write_match(late, NOW).await,
        Ok(MatchOutcome::Stale { current: Some(1) })
    );
    // A player gone (expired, or never made) is stale with none.
    let mut gone = move_match("m", 1, "again", None);
    gone.players = vec![change("r", 0, "Cy", None)];
    assert_eq!(
        store.write_match(gone, NOW).await,
        Ok(MatchOutcome::PlayerStale {
            id: "r".into(),
            current: None
        })
    );
}

// Two sweepers (replicas, or a sweeper and a reader) read the same due
// match: the compare-and-set lets one apply the change, and the other
// learns it is stale; the match is due no more.
async fn two_sweepers_apply_a_due_change_once(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    store
        .write_match(open_match("m", "countdown", Some(NOW + 3)), NOW)
        .await
        .unwrap();
    let (a, b) = tokio::join!(
        store.due_matches(NOW + 3, 10),
        store.due_matches(NOW + 3, 10)
    );
    assert_eq!((a.clone(), b), (Ok(vec!["m".to_owned()]), a));
    let (a, b) = tokio::join!(
        store.write_match(move_match("m", 0, "playing by a", None), NOW + 3),
        store.write_match(move_match("m", 0, "playing by b", None), NOW + 3)
    );
    let stale = MatchOutcome::Stale { current: Some(1) };
    let winner = match (a.unwrap(), b.unwrap()) {
        (MatchOutcome::Written, lost) if lost == stale => "playing by a",
        (lost, MatchOutcome::Written) if lost == stale => "playing by b",
        outcomes => panic!("expected one written and one stale, got {outcomes:?}"),
    };
    assert_eq!(
        store.match_record("m", NOW + 3).await,
        Ok(Some(record(1, winner, None)))
    );
    assert_eq!(store.due_matches(NOW + 3, 10).await, Ok(Vec::new()));
}

// A shared store tells every replica of each match written, as of each
// game, and apart from games'; the others have no feed (`redis.rs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn the_feed_tells_a_match_write() {
    let redis = fresh_redis_store();
    let a = open_spec(&redis.setting(), 10).unwrap();
    let b = open_spec(&redis.setting(), 10).unwrap();
    let mut feed = a.changes().unwrap();
    assert_eq!(heard(&mut feed).await, Feed::Resumed);
    b.write_match(open_match("m", "v0", None), NOW)
        .await
        .unwrap();
    // What did not apply is not heard.
    let late = b.write_match(open_match("m", "late", None), NOW).await;
    assert_eq!(late, Ok(MatchOutcome::Stale { current: Some(0) }));
    b.write(crate::support::create("g", "v0"), NOW)
        .await
        .unwrap();
    a.write_match(move_match("m", 0, "v1", None), NOW)
        .await
        .unwrap();
    for expected in [
        Feed::Match {
            id: "m".into(),
            version: 0,
        },
        Feed::Written {
            id: "g".into(),
            version: 0,
        },
        Feed::Match {
            id: "m".into(),
            version: 1,
        },
    ] {
        assert_eq!(heard(&mut feed).await, expected);
    }
}

/// The next word of `feed`, within 30 s, so that a broken feed fails the
/// case rather than hang it.
async fn heard(feed: &mut tokio::sync::broadcast::Receiver<Feed>) -> Feed {
    tokio::time::timeout(std::time::Duration::from_secs(30), feed.recv())
        .await
        .expect("the feed says something within 30 s")
        .expect("the feed is open")
}
