//! Idempotency keys: a key's answer is kept in the same commit as its
//! write, and a write under a key already kept is answered with the kept
//! answer, whatever version it expects, and writes nothing.

use linkpath_store::Outcome;

use crate::support::{Backend, NOW, create, game, kept, keyed, next, open};

on_each!(a_kept_answer_is_replayed, a_key_is_kept_only_with_its_write);

async fn a_kept_answer_is_replayed(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    let first = keyed(create("g", "v0"), "k", "created");
    assert_eq!(store.write(first.clone(), NOW).await, Ok(Outcome::Written));
    assert_eq!(store.kept("k", NOW).await, Ok(Some(kept("created"))));

    // The retry itself, a write that would apply, one that would be stale.
    let replayed = Ok(Outcome::Replayed(kept("created")));
    assert_eq!(store.write(first, NOW).await, replayed);
    let applies = keyed(next("g", 0, "v1"), "k", "moved");
    assert_eq!(store.write(applies, NOW).await, replayed);
    let stale = keyed(next("g", 7, "v8"), "k", "moved");
    assert_eq!(store.write(stale, NOW).await, replayed);

    assert_eq!(store.game("g", NOW).await, Ok(Some(game(0, "v0"))));
    assert_eq!(store.kept("k", NOW).await, Ok(Some(kept("created"))));
    assert_eq!(store.kept("other", NOW).await, Ok(None));
}

async fn a_key_is_kept_only_with_its_write(backend: Backend) {
    let (store, _dir) = open(backend, 1);
    store.write(create("g", "v0"), NOW).await.unwrap();

    let stale = keyed(next("g", 3, "v4"), "stale", "moved");
    assert_eq!(
        store.write(stale, NOW).await,
        Ok(Outcome::Stale { current: Some(0) })
    );
    let full = keyed(create("h", "v0"), "full", "created");
    assert_eq!(store.write(full, NOW).await, Ok(Outcome::Full));
    assert_eq!(store.kept("stale", NOW).await, Ok(None));
    assert_eq!(store.kept("full", NOW).await, Ok(None));

    // The same key, on a write that applies, is kept with it.
    let applies = keyed(next("g", 0, "v1"), "stale", "moved");
    assert_eq!(store.write(applies, NOW).await, Ok(Outcome::Written));
    assert_eq!(store.kept("stale", NOW).await, Ok(Some(kept("moved"))));
    assert_eq!(store.game("g", NOW).await, Ok(Some(game(1, "v1"))));
}
