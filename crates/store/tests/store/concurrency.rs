//! Writers racing: on one version exactly one write applies and the
//! others are stale, so a game's versions have no gap and each has one
//! writer; two writes racing under one key apply once.

use std::sync::Arc;

use linkpath_store::{Outcome, Store};

use crate::support::{Backend, NOW, create, game, kept, keyed, next, open};

on_each!(
    two_writes_on_one_version,
    fifty_writers_on_one_game,
    two_writes_under_one_key,
);

async fn two_writes_on_one_version(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    store.write(create("g", "v0"), NOW).await.unwrap();
    let (a, b) = tokio::join!(
        store.write(next("g", 0, "a"), NOW),
        store.write(next("g", 0, "b"), NOW)
    );
    let stale = Outcome::Stale { current: Some(1) };
    let winner = match (a.unwrap(), b.unwrap()) {
        (Outcome::Written, lost) if lost == stale => "a",
        (lost, Outcome::Written) if lost == stale => "b",
        outcomes => panic!("expected one written and one stale, got {outcomes:?}"),
    };
    assert_eq!(store.game("g", NOW).await, Ok(Some(game(1, winner))));
}

/// How many versions the writers race through.
const VERSIONS: u64 = 200;
const WRITERS: usize = 50;

async fn fifty_writers_on_one_game(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    let store = Arc::new(store);
    store.write(create("g", "nobody"), NOW).await.unwrap();

    let writers: Vec<_> = (0..WRITERS)
        .map(|writer| tokio::spawn(race(Arc::clone(&store), writer)))
        .collect();
    let mut wins = Vec::new();
    for writer in writers {
        wins.extend(writer.await.unwrap());
    }

    wins.sort();
    let versions: Vec<u64> = wins.iter().map(|&(version, _)| version).collect();
    assert_eq!(versions, (1..=VERSIONS).collect::<Vec<_>>());
    let (_, last) = wins.last().unwrap();
    let stored = store.game("g", NOW).await.unwrap().unwrap();
    assert_eq!(stored, game(VERSIONS, &last.to_string()));
}

/// Moves the game on until it reaches `VERSIONS`, and returns the versions
/// this writer wrote. Each try either wins or finds a newer version, so
/// the tries are bounded; the bound below only stops a broken store.
async fn race(store: Arc<Store>, writer: usize) -> Vec<(u64, usize)> {
    let mut won = Vec::new();
    for _ in 0..VERSIONS * WRITERS as u64 {
        let version = store.game("g", NOW).await.unwrap().unwrap().version;
        if version == VERSIONS {
            return won;
        }
        match store
            .write(next("g", version, &writer.to_string()), NOW)
            .await
        {
            Ok(Outcome::Written) => won.push((version + 1, writer)),
            Ok(Outcome::Stale {
                current: Some(current),
            }) if current > version => {}
            other => panic!("writer {writer} on version {version}: {other:?}"),
        }
    }
    panic!("writer {writer} never saw version {VERSIONS}");
}

async fn two_writes_under_one_key(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    store.write(create("g", "v0"), NOW).await.unwrap();
    store.write(create("h", "v0"), NOW).await.unwrap();
    let (to_g, to_h) = tokio::join!(
        store.write(keyed(next("g", 0, "v1"), "k", "moved g"), NOW),
        store.write(keyed(next("h", 0, "v1"), "k", "moved h"), NOW)
    );
    let (moved, unmoved) = match (to_g.unwrap(), to_h.unwrap()) {
        (Outcome::Written, Outcome::Replayed(answer)) if answer == kept("moved g") => ("g", "h"),
        (Outcome::Replayed(answer), Outcome::Written) if answer == kept("moved h") => ("h", "g"),
        outcomes => panic!("expected one written and one replaying it, got {outcomes:?}"),
    };
    assert_eq!(store.game(moved, NOW).await, Ok(Some(game(1, "v1"))));
    assert_eq!(store.game(unmoved, NOW).await, Ok(Some(game(0, "v0"))));
}
