//! Idempotency keys: a key's answer is kept in the same commit as its
//! write, or alone for a refusal, and a write under a key already kept is
//! answered with the kept answer, whatever version it expects, and writes
//! nothing. Keys are bounded per game by count and in all by bytes; an
//! expired key makes room for a new one.

use linkpath_store::{Kept, KeyBound, Outcome, StoreLimits, kept_charge};

use crate::support::{
    Backend, LATER, NOW, create, expiring, game, kept, keyed, limits, next, open, open_with,
};

on_each!(
    a_kept_answer_is_replayed,
    a_key_is_kept_only_with_its_write,
    a_refusal_is_kept_alone_once,
    keys_are_bounded_per_game,
    keys_are_bounded_in_bytes_and_expired_ones_make_room,
);

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

async fn a_refusal_is_kept_alone_once(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    store.write(create("g", "v0"), NOW).await.unwrap();
    assert_eq!(
        store.keep("g", "k", kept("refused"), NOW).await,
        Ok(Outcome::Written)
    );
    assert_eq!(store.kept("k", NOW).await, Ok(Some(kept("refused"))));
    // A racing copy, kept or written, finds the first answer.
    assert_eq!(
        store.keep("g", "k", kept("refused again"), NOW).await,
        Ok(Outcome::Replayed(kept("refused")))
    );
    let applies = keyed(next("g", 0, "v1"), "k", "moved");
    assert_eq!(
        store.write(applies, NOW).await,
        Ok(Outcome::Replayed(kept("refused")))
    );
    assert_eq!(store.game("g", NOW).await, Ok(Some(game(0, "v0"))));
}

async fn keys_are_bounded_per_game(backend: Backend) {
    let (store, _dir) = open_with(
        backend,
        StoreLimits {
            max_keys_per_game: 2,
            ..limits(10)
        },
    );
    store
        .write(keyed(create("g", "v0"), "k0", "created"), NOW)
        .await
        .unwrap();
    store.write(create("h", "v0"), NOW).await.unwrap();
    assert_eq!(
        store.keep("g", "k1", kept("refused"), NOW).await,
        Ok(Outcome::Written)
    );
    let third = keyed(next("g", 0, "v1"), "k2", "moved");
    assert_eq!(
        store.write(third, NOW).await,
        Ok(Outcome::TooManyKeys(KeyBound::Game))
    );
    assert_eq!(
        store.keep("g", "k2", kept("refused"), NOW).await,
        Ok(Outcome::TooManyKeys(KeyBound::Game))
    );
    assert_eq!(store.game("g", NOW).await, Ok(Some(game(0, "v0"))));
    assert_eq!(store.kept("k2", NOW).await, Ok(None));
    // Another game has room of its own; a write without a key goes on.
    let other = keyed(next("h", 0, "v1"), "k3", "moved");
    assert_eq!(store.write(other, NOW).await, Ok(Outcome::Written));
    assert_eq!(
        store.write(next("g", 0, "v1"), NOW).await,
        Ok(Outcome::Written)
    );
    // A purge of the game's expired keys gives its room back.
    let purged = store.purge_expired(LATER).await.unwrap();
    assert_eq!((purged.games, purged.keys), (2, 3));
    let again = keyed(create("g", "v0"), "k4", "created");
    let again = expiring(again, LATER + 10);
    assert_eq!(store.write(again, LATER).await, Ok(Outcome::Written));
    let refused = Kept {
        expires_at_ms: LATER + 10,
        ..kept("refused")
    };
    assert_eq!(
        store.keep("g", "k5", refused, LATER).await,
        Ok(Outcome::Written)
    );
}

async fn keys_are_bounded_in_bytes_and_expired_ones_make_room(backend: Backend) {
    let answer = kept("answer");
    let charge = kept_charge("k0", &answer);
    let (store, _dir) = open_with(
        backend,
        StoreLimits {
            max_kept_bytes: 2 * charge,
            ..limits(10)
        },
    );
    store.write(create("g", "v0"), NOW).await.unwrap();
    assert_eq!(
        store.keep("g", "k0", answer.clone(), NOW).await,
        Ok(Outcome::Written)
    );
    let soon = Kept {
        expires_at_ms: NOW + 10,
        ..answer.clone()
    };
    assert_eq!(store.keep("g", "k1", soon, NOW).await, Ok(Outcome::Written));
    assert_eq!(
        store.keep("g", "k2", answer.clone(), NOW).await,
        Ok(Outcome::TooManyKeys(KeyBound::Store))
    );
    // Once `k1` has expired, a new key takes its bytes with no purge.
    assert_eq!(
        store.keep("g", "k2", answer.clone(), NOW + 10).await,
        Ok(Outcome::Written)
    );
    assert_eq!(store.kept("k1", NOW).await, Ok(None));
    assert_eq!(
        store.keep("g", "k3", answer, NOW + 10).await,
        Ok(Outcome::TooManyKeys(KeyBound::Store))
    );
}
