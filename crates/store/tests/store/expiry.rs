//! Expiry and the bound: what expired is absent to reads and writes and
//! never counts against the bound (a create that finds the store full
//! deletes an expired game first); a purge deletes the rest, those that
//! expire first first, and keeps pace with 10,000 at once; the count
//! stays exact through creates, replacements and purges.

use linkpath_store::{KeyBound, Outcome, Purged, StoreLimits, StoredGame, kept_charge};

use crate::support::{
    Backend, LATER, NOW, create, expiring, kept, keyed, limits, next, open, open_with,
};

on_each!(
    expired_is_absent,
    an_expired_game_never_counts_against_the_bound,
    what_a_refused_write_deleted_stays_deleted,
    a_purge_keeps_pace_with_10_000_expiring_games,
    purge_takes_the_first_to_expire_first,
    a_new_expiry_moves_in_the_index,
    far_expiries_compare_exactly,
);

const SOON: u64 = NOW + 10;

async fn expired_is_absent(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    let write = expiring(keyed(create("g", "v0"), "k", "created"), SOON);
    store.write(write, NOW).await.unwrap();
    assert!(store.game("g", SOON - 1).await.unwrap().is_some());
    assert!(store.kept("k", SOON - 1).await.unwrap().is_some());

    assert_eq!(store.game("g", SOON).await, Ok(None));
    assert_eq!(store.kept("k", SOON).await, Ok(None));
    assert_eq!(
        store.write(next("g", 0, "v1"), SOON).await,
        Ok(Outcome::Stale { current: None })
    );
    // The id and the key are free again: a create takes both.
    let again = keyed(create("g", "again"), "k", "created again");
    assert_eq!(store.write(again, SOON).await, Ok(Outcome::Written));
    assert_eq!(
        store.game("g", SOON).await.unwrap().map(|game| game.body),
        Some(b"again".to_vec())
    );
    assert_eq!(store.kept("k", SOON).await, Ok(Some(kept("created again"))));
    assert_eq!(store.games().await, Ok(1));
    // The expired game and key were replaced, index entries and all.
    assert_eq!(
        store.purge(LATER - 1, 10).await,
        Ok(Purged {
            games: 0,
            held: 0,
            keys: 0,
            boards: 0,
            players: 0,
            matches: 0,
        })
    );
}

async fn an_expired_game_never_counts_against_the_bound(backend: Backend) {
    let (store, _dir) = open(backend, 2);
    let a = expiring(create("a", "v0"), SOON);
    store.write(a.clone(), NOW).await.unwrap();
    store.write(create("b", "v0"), NOW).await.unwrap();
    assert_eq!(store.write(create("c", "v0"), NOW).await, Ok(Outcome::Full));

    // `a` expired and is still stored: creating it again replaces it and
    // adds no game.
    let a_again = expiring(a, SOON + 1);
    assert_eq!(store.write(a_again, SOON).await, Ok(Outcome::Written));
    assert_eq!(store.games().await, Ok(2));

    // Expired again, it makes room for a new game with no purge.
    let later = SOON + 1;
    assert_eq!(
        store.write(create("c", "v0"), later).await,
        Ok(Outcome::Written)
    );
    assert_eq!(store.games().await, Ok(2));
    assert_eq!(store.game("a", later).await, Ok(None));
    assert_eq!(
        store.write(create("d", "v0"), later).await,
        Ok(Outcome::Full)
    );
    assert_eq!(
        store.purge(later, 10).await,
        Ok(Purged {
            games: 0,
            held: 0,
            keys: 0,
            boards: 0,
            players: 0,
            matches: 0,
        })
    );
}

// A refused write may delete expired records on its way, as a purge
// would: an expired answer under its key, an expired game to make room.
// Every backend keeps them deleted, so counts and purges agree.
async fn what_a_refused_write_deleted_stays_deleted(backend: Backend) {
    let answer = kept("created");
    let (store, _dir) = open_with(
        backend,
        StoreLimits {
            // No answer fits beside another.
            max_kept_bytes: kept_charge("k", &answer),
            ..limits(1)
        },
    );
    let a = expiring(keyed(create("a", "v0"), "k", "created"), SOON);
    assert_eq!(store.write(a, NOW).await, Ok(Outcome::Written));

    // The expired answer under `k` goes; the write is stale.
    let stale = keyed(next("a", 4, "v5"), "k", "moved");
    assert_eq!(
        store.write(stale, SOON).await,
        Ok(Outcome::Stale { current: None })
    );
    // The expired `a` makes room for `b`, whose answer is past the bytes.
    let b = keyed(create("b", "v0"), "big", &"x".repeat(100));
    assert_eq!(
        store.write(b, SOON).await,
        Ok(Outcome::TooManyKeys(KeyBound::Store))
    );
    assert_eq!(store.games().await, Ok(0));
    assert_eq!(
        store.purge_expired(LATER).await,
        Ok(Purged {
            games: 0,
            held: 0,
            keys: 0,
            boards: 0,
            players: 0,
            matches: 0,
        })
    );
}

async fn a_purge_keeps_pace_with_10_000_expiring_games(backend: Backend) {
    let (store, _dir) = open(backend, 20_000);
    // Written 500 at a time, so that the file commits them in groups.
    for chunk in 0..20 {
        let writes = (chunk * 500..(chunk + 1) * 500).map(|n| {
            let write = keyed(create(&format!("g{n}"), "v0"), &format!("k{n}"), "created");
            store.write(expiring(write, SOON), NOW)
        });
        for outcome in futures_util::future::join_all(writes).await {
            assert_eq!(outcome, Ok(Outcome::Written));
        }
    }
    let started = std::time::Instant::now();
    let purged = store.purge_expired(SOON).await;
    println!(
        "{backend:?}: 10,000 expired games and keys purged in {:?}",
        started.elapsed()
    );
    assert_eq!(
        purged,
        Ok(Purged {
            games: 10_000,
            held: 0,
            keys: 10_000,
            boards: 0,
            players: 0,
            matches: 0,
        })
    );
    assert_eq!(store.games().await, Ok(0));
}

async fn purge_takes_the_first_to_expire_first(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    // Written out of order of expiry: g2 expires first, then g4, g5, g3, g1.
    for (id, expires_in) in [("g1", 5), ("g2", 1), ("g3", 4), ("g4", 2), ("g5", 3)] {
        let write = keyed(create(id, "v0"), &format!("key of {id}"), "created");
        store
            .write(expiring(write, NOW + expires_in), NOW)
            .await
            .unwrap();
    }
    store.write(create("live", "v0"), NOW).await.unwrap();
    let stored = async |id: &str| -> Option<StoredGame> {
        // Read at NOW, when all were live: absent means purged.
        store.game(id, NOW).await.unwrap()
    };

    assert_eq!(
        store.purge(NOW + 4, 2).await,
        Ok(Purged {
            games: 2,
            held: 0,
            keys: 2,
            boards: 0,
            players: 0,
            matches: 0,
        })
    );
    assert_eq!(stored("g2").await, None);
    assert_eq!(stored("g4").await, None);
    assert!(stored("g5").await.is_some());
    assert_eq!(store.kept("key of g4", NOW).await, Ok(None));
    assert!(store.kept("key of g5", NOW).await.unwrap().is_some());
    assert_eq!(store.games().await, Ok(4));

    assert_eq!(
        store.purge(NOW + 4, 10).await,
        Ok(Purged {
            games: 2,
            held: 0,
            keys: 2,
            boards: 0,
            players: 0,
            matches: 0,
        })
    );
    assert_eq!(
        store.purge(NOW + 4, 10).await,
        Ok(Purged {
            games: 0,
            held: 0,
            keys: 0,
            boards: 0,
            players: 0,
            matches: 0,
        })
    );
    assert_eq!(stored("g3").await, None);
    assert!(stored("g1").await.is_some());
    assert!(stored("live").await.is_some());
    assert_eq!(store.games().await, Ok(2));
}

async fn a_new_expiry_moves_in_the_index(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    store
        .write(expiring(create("g", "v0"), SOON), NOW)
        .await
        .unwrap();
    // Played on: it now expires later, and the old expiry purges nothing.
    store.write(next("g", 0, "v1"), NOW).await.unwrap();
    assert_eq!(
        store.purge(SOON, 10).await,
        Ok(Purged {
            games: 0,
            held: 0,
            keys: 0,
            boards: 0,
            players: 0,
            matches: 0,
        })
    );
    assert_eq!(
        store
            .game("g", SOON)
            .await
            .unwrap()
            .map(|game| game.version),
        Some(1)
    );
    // Brought forward, it goes at its new time.
    store
        .write(expiring(next("g", 1, "v2"), SOON + 5), SOON)
        .await
        .unwrap();
    assert_eq!(
        store.purge(SOON + 5, 10).await,
        Ok(Purged {
            games: 1,
            held: 0,
            keys: 0,
            boards: 0,
            players: 0,
            matches: 0,
        })
    );
    assert_eq!(store.games().await, Ok(0));
}

/// Past 2^53 milliseconds a double no longer tells neighbours apart: times
/// are compared as the integers they are, and the farthest expiry is kept.
async fn far_expiries_compare_exactly(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    let far = 1u64 << 53;
    store
        .write(expiring(create("g", "v0"), far + 1), far)
        .await
        .unwrap();
    assert!(store.game("g", far).await.unwrap().is_some());
    assert_eq!(store.game("g", far + 1).await, Ok(None));
    // A write checks liveness the same way as a read.
    let live = expiring(next("g", 0, "v1"), far + 2);
    assert_eq!(
        store.write(live, far + 1).await,
        Ok(Outcome::Stale { current: None })
    );
    let live = expiring(next("g", 0, "v1"), far + 2);
    assert_eq!(store.write(live, far).await, Ok(Outcome::Written));
    let gone = expiring(next("g", 1, "v2"), far + 3);
    assert_eq!(
        store.write(gone, far + 2).await,
        Ok(Outcome::Stale { current: None })
    );
    let never = expiring(keyed(create("h", "v0"), "k", "created"), u64::MAX);
    assert_eq!(store.write(never, NOW).await, Ok(Outcome::Written));
    assert_eq!(
        store
            .game("h", u64::MAX - 1)
            .await
            .unwrap()
            .map(|game| game.expires_at_ms),
        Some(u64::MAX)
    );
    assert!(store.kept("k", u64::MAX - 1).await.unwrap().is_some());
}
