//! Creating, reading and changing a game: a write applies only on the
//! version it expects, and a refused write changes nothing.

use linkpath_store::{Outcome, StoreError};

use crate::support::{Backend, NOW, create, game, next, open};

on_each!(
    create_read_and_change,
    stale_writes_change_nothing,
    versions_that_do_not_follow_are_refused,
);

async fn create_read_and_change(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    assert_eq!(store.game("g", NOW).await, Ok(None));
    assert_eq!(store.games().await, Ok(0));

    assert_eq!(
        store.write(create("g", "v0"), NOW).await,
        Ok(Outcome::Written)
    );
    assert_eq!(store.game("g", NOW).await, Ok(Some(game(0, "v0"))));
    assert_eq!(
        store.write(next("g", 0, "v1"), NOW).await,
        Ok(Outcome::Written)
    );
    assert_eq!(
        store.write(next("g", 1, "v2"), NOW).await,
        Ok(Outcome::Written)
    );
    assert_eq!(store.game("g", NOW).await, Ok(Some(game(2, "v2"))));
    assert_eq!(store.games().await, Ok(1));
}

async fn stale_writes_change_nothing(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    store.write(create("g", "v0"), NOW).await.unwrap();
    store.write(next("g", 0, "v1"), NOW).await.unwrap();

    let stale = Outcome::Stale { current: Some(1) };
    assert_eq!(
        store.write(next("g", 0, "late"), NOW).await,
        Ok(stale.clone())
    );
    assert_eq!(
        store.write(next("g", 4, "ahead"), NOW).await,
        Ok(stale.clone())
    );
    assert_eq!(store.write(create("g", "again"), NOW).await, Ok(stale));
    assert_eq!(
        store.write(next("absent", 0, "v1"), NOW).await,
        Ok(Outcome::Stale { current: None })
    );

    assert_eq!(store.game("g", NOW).await, Ok(Some(game(1, "v1"))));
    assert_eq!(store.game("absent", NOW).await, Ok(None));
    assert_eq!(store.games().await, Ok(1));
}

async fn versions_that_do_not_follow_are_refused(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    let mut skips = create("g", "v3");
    skips.game.version = 3;
    assert_eq!(
        store.write(skips, NOW).await,
        Err(StoreError::InvalidWrite(
            "game `g`: a write expecting Absent stores version 0, not 3".into()
        ))
    );
    let mut past_the_last = next("g", 0, "v1");
    past_the_last.expected = linkpath_store::Expected::Version(u64::MAX);
    assert_eq!(
        store.write(past_the_last, NOW).await,
        Err(StoreError::InvalidWrite(format!(
            "game `g`: version {} is the last a game can have",
            u64::MAX
        )))
    );
    assert_eq!(store.game("g", NOW).await, Ok(None));
    assert_eq!(store.games().await, Ok(0));
}
