//! A game's log: one entry a version, appended by the write that makes the
//! version, read by range, and gone with its game.

use linkpath_store::{Outcome, StoreError};

use crate::support::{Backend, NOW, create, entry, expiring, next, open};

on_each!(
    each_write_appends_its_version,
    a_log_written_late_is_written_whole,
    the_log_goes_with_its_game,
    more_entries_than_versions_are_refused,
);

async fn each_write_appends_its_version(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    store.write(create("g", "v0"), NOW).await.unwrap();
    store.write(next("g", 0, "v1"), NOW).await.unwrap();
    store.write(next("g", 1, "v2"), NOW).await.unwrap();
    // A stale write appends nothing.
    assert_eq!(
        store.write(next("g", 0, "late"), NOW).await,
        Ok(Outcome::Stale { current: Some(2) })
    );

    assert_eq!(
        store.log("g", 0..10, NOW).await,
        Ok(vec![
            (0, entry(0, "v0")),
            (1, entry(1, "v1")),
            (2, entry(2, "v2"))
        ])
    );
    assert_eq!(
        store.log("g", 1..2, NOW).await,
        Ok(vec![(1, entry(1, "v1"))])
    );
    assert_eq!(store.log("g", 2..2, NOW).await, Ok(vec![]));
    assert_eq!(store.log("absent", 0..10, NOW).await, Ok(vec![]));
}

async fn a_log_written_late_is_written_whole(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    let mut first = create("g", "v0");
    first.log.clear();
    store.write(first, NOW).await.unwrap();
    let mut whole = next("g", 0, "v1");
    whole.log = vec![entry(0, "late"), entry(1, "v1")];
    assert_eq!(whole.log_versions(), 0..2);
    assert_eq!(store.write(whole, NOW).await, Ok(Outcome::Written));
    assert_eq!(
        store.log("g", 0..2, NOW).await,
        Ok(vec![(0, entry(0, "late")), (1, entry(1, "v1"))])
    );
}

async fn the_log_goes_with_its_game(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    store
        .write(expiring(create("g", "v0"), NOW + 10), NOW)
        .await
        .unwrap();
    store
        .write(expiring(next("g", 0, "v1"), NOW + 10), NOW)
        .await
        .unwrap();
    // Expired: its log is absent, as the game is.
    assert_eq!(store.log("g", 0..2, NOW + 10).await, Ok(vec![]));
    // A new game under the id starts a log of its own.
    store.write(create("g", "again"), NOW + 10).await.unwrap();
    assert_eq!(
        store.log("g", 0..2, NOW + 10).await,
        Ok(vec![(0, entry(0, "again"))])
    );

    store
        .write(expiring(create("h", "v0"), NOW + 10), NOW)
        .await
        .unwrap();
    let purged = store.purge(NOW + 10, 10).await.unwrap();
    assert_eq!(purged.games, 1);
    store.write(create("h", "fresh"), NOW + 10).await.unwrap();
    assert_eq!(
        store.log("h", 0..5, NOW + 10).await,
        Ok(vec![(0, entry(0, "fresh"))])
    );
}

async fn more_entries_than_versions_are_refused(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    let mut too_many = create("g", "v0");
    too_many.log.push(entry(1, "extra"));
    assert_eq!(
        store.write(too_many, NOW).await,
        Err(StoreError::InvalidWrite(
            "game `g`: a write of version 0 appends 2 log entries, more than its versions".into()
        ))
    );
    assert_eq!(store.game("g", NOW).await, Ok(None));
}
