//! The hand-over to the archive: the write that ends a game marks it in
//! the same step (a refused one does not), the marks list oldest first
//! and bounded, clearing them is idempotent, and with `keep_unarchived` a
//! marked game outlives its expiry, log and all, until its mark is
//! cleared, counting toward `max_games` meanwhile; without it, a marked
//! game goes at its expiry as any other. On the file, marks and held
//! games survive the store being dropped and opened again.

use linkpath_store::{
    ArchiveCopy, MAX_ARCHIVE_BATCH, Outcome, Purged, Store, StoreError, StoreLimits, Unarchived,
    UnarchivedCount, Write,
};

use crate::support::{
    Backend, LATER, NOW, Scratch, create, entry, expiring, game, limits, next, open_with,
};

on_each!(
    the_finishing_write_marks_and_a_refused_one_does_not,
    marks_list_oldest_first_up_to_at_most,
    archived_clears_marks_once,
    a_kept_game_outlives_its_expiry_until_archived,
    without_keeping_a_marked_game_goes_at_its_expiry,
    a_full_store_counts_held_games,
    a_batch_past_the_most_is_refused,
);

const SOON: u64 = NOW + 10;

/// `write`, ending its game.
fn finishing(write: Write) -> Write {
    Write {
        finished: true,
        ..write
    }
}

/// A store of `backend` holding 10 games, marked games kept or not.
fn open(backend: Backend, keep_unarchived: bool) -> (Store, Scratch) {
    open_with(backend, kept_limits(10, keep_unarchived))
}

fn kept_limits(max_games: u64, keep_unarchived: bool) -> StoreLimits {
    StoreLimits {
        keep_unarchived,
        ..limits(max_games)
    }
}

fn mark(id: &str, finished_ms: u64) -> Unarchived {
    Unarchived {
        id: id.to_owned(),
        finished_ms,
    }
}

fn count(games: u64, oldest_finished_ms: Option<u64>) -> UnarchivedCount {
    UnarchivedCount {
        games,
        oldest_finished_ms,
    }
}

fn purged(games: usize, held: usize) -> Purged {
    Purged {
        games,
        held,
        keys: 0,
        boards: 0,
        players: 0,
        matches: 0,
    }
}

fn ids(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|id| id.to_string()).collect()
}

/// Creates `id` at [`NOW`] and finishes it at `finished_ms`, both writes
/// expiring at `expires_at_ms`: version 1, a log of two entries.
async fn finish(store: &Store, id: &str, finished_ms: u64, expires_at_ms: u64) {
    let created = expiring(create(id, "v0"), expires_at_ms);
    assert_eq!(store.write(created, NOW).await, Ok(Outcome::Written));
    let won = expiring(finishing(next(id, 0, "won")), expires_at_ms);
    assert_eq!(store.write(won, finished_ms).await, Ok(Outcome::Written));
}

/// What [`finish`] leaves for the archive to copy.
fn copy_of(finished_ms: Option<u64>, expires_at_ms: u64) -> ArchiveCopy {
    ArchiveCopy {
        game: linkpath_store::StoredGame {
            expires_at_ms,
            ..game(1, "won")
        },
        log: vec![(0, entry(0, "v0")), (1, entry(1, "won"))],
        finished_ms,
    }
}

async fn the_finishing_write_marks_and_a_refused_one_does_not(backend: Backend) {
    let (store, _dir) = open(backend, true);
    store.write(create("g", "v0"), NOW).await.unwrap();
    store.write(create("h", "v0"), NOW).await.unwrap();
    // Moves that do not end the game mark nothing.
    store.write(next("g", 0, "v1"), NOW + 1).await.unwrap();
    assert_eq!(store.unarchived(10, LATER).await, Ok(Vec::new()));
    assert_eq!(store.unarchived_count().await, Ok(count(0, None)));

    // A finishing write that loses its compare-and-set marks nothing.
    let stale = finishing(next("h", 3, "won"));
    assert_eq!(
        store.write(stale, NOW + 2).await,
        Ok(Outcome::Stale { current: Some(0) })
    );
    assert_eq!(store.unarchived(10, LATER).await, Ok(Vec::new()));

    let won = finishing(next("g", 1, "won"));
    assert_eq!(store.write(won, NOW + 3).await, Ok(Outcome::Written));
    assert_eq!(
        store.unarchived(10, LATER).await,
        Ok(vec![mark("g", NOW + 3)])
    );
    assert_eq!(store.unarchived_count().await, Ok(count(1, Some(NOW + 3))));
    // A later finishing write keeps the first mark's time.
    let again = finishing(next("g", 2, "won again"));
    assert_eq!(store.write(again, NOW + 4).await, Ok(Outcome::Written));
    assert_eq!(
        store.unarchived(10, LATER).await,
        Ok(vec![mark("g", NOW + 3)])
    );
    // The game reads as ever while live.
    assert_eq!(
        store
            .game("g", NOW + 4)
            .await
            .unwrap()
            .map(|game| game.body),
        Some(b"won again".to_vec())
    );
}

async fn marks_list_oldest_first_up_to_at_most(backend: Backend) {
    let (store, _dir) = open(backend, true);
    finish(&store, "c", NOW + 3, LATER).await;
    finish(&store, "b", NOW + 1, LATER).await;
    finish(&store, "d", NOW + 2, LATER).await;
    finish(&store, "a", NOW + 2, LATER).await;
    let all = vec![
        mark("b", NOW + 1),
        mark("a", NOW + 2),
        mark("d", NOW + 2),
        mark("c", NOW + 3),
    ];
    assert_eq!(store.unarchived(10, LATER).await, Ok(all.clone()));
    assert_eq!(store.unarchived(2, LATER).await, Ok(all[..2].to_vec()));
    assert_eq!(store.unarchived(0, LATER).await, Ok(Vec::new()));
    // Only those finished by the time asked for.
    assert_eq!(store.unarchived(10, NOW + 2).await, Ok(all[..3].to_vec()));
    assert_eq!(store.unarchived(10, NOW).await, Ok(Vec::new()));
    assert_eq!(store.unarchived_count().await, Ok(count(4, Some(NOW + 1))));
    assert_eq!(
        store.archive_copy("a").await,
        Ok(Some(copy_of(Some(NOW + 2), LATER)))
    );
    assert_eq!(store.archive_copy("never").await, Ok(None));
}

async fn archived_clears_marks_once(backend: Backend) {
    let (store, _dir) = open(backend, true);
    finish(&store, "a", NOW + 1, LATER).await;
    finish(&store, "b", NOW + 2, LATER).await;
    finish(&store, "c", NOW + 3, LATER).await;
    // Unmarked, unknown and repeated ids are passed over.
    let cleared = store
        .archived(&ids(&["b", "never", "b", "a"]), NOW + 4)
        .await;
    assert_eq!(cleared, Ok(2));
    assert_eq!(
        store.unarchived(10, LATER).await,
        Ok(vec![mark("c", NOW + 3)])
    );
    assert_eq!(store.unarchived_count().await, Ok(count(1, Some(NOW + 3))));
    assert_eq!(store.archived(&ids(&["a", "b"]), NOW + 5).await, Ok(0));
    assert_eq!(store.archived(&[], NOW + 5).await, Ok(0));
    // The live game stays, its mark gone.
    assert_eq!(
        store.archive_copy("a").await,
        Ok(Some(copy_of(None, LATER)))
    );
    assert_eq!(store.archived(&ids(&["c"]), NOW + 6).await, Ok(1));
    assert_eq!(store.unarchived_count().await, Ok(count(0, None)));
}

async fn a_kept_game_outlives_its_expiry_until_archived(backend: Backend) {
    let (store, _dir) = open(backend, true);
    finish(&store, "g", NOW + 1, SOON).await;
    let played = expiring(create("h", "v0"), SOON);
    store.write(played, NOW).await.unwrap();

    // Expired: absent to players, the unmarked game purged, the marked one
    // held, with its log, and counted.
    assert_eq!(store.game("g", SOON).await, Ok(None));
    assert_eq!(store.log("g", 0..10, SOON).await, Ok(Vec::new()));
    assert_eq!(store.purge(SOON, 10).await, Ok(purged(1, 1)));
    assert_eq!(store.games().await, Ok(1));
    assert_eq!(store.game("g", LATER).await, Ok(None));
    let copy = copy_of(Some(NOW + 1), SOON);
    assert_eq!(store.archive_copy("g").await, Ok(Some(copy.clone())));
    assert_eq!(
        store.unarchived(10, LATER).await,
        Ok(vec![mark("g", NOW + 1)])
    );
    // Held once: later purges pass it by.
    assert_eq!(store.purge_expired(LATER).await, Ok(purged(0, 0)));
    assert_eq!(store.archive_copy("g").await, Ok(Some(copy)));
    // Its id is not taken while it waits; a play on it is stale.
    assert_eq!(
        store.write(create("g", "again"), LATER).await,
        Ok(Outcome::Stale { current: None })
    );
    assert_eq!(
        store.write(next("g", 1, "v2"), LATER).await,
        Ok(Outcome::Stale { current: None })
    );

    // Archived: the next purge takes it, log and all.
    assert_eq!(store.archived(&ids(&["g"]), LATER).await, Ok(1));
    assert_eq!(store.games().await, Ok(1));
    assert_eq!(store.purge(LATER, 10).await, Ok(purged(1, 0)));
    assert_eq!(store.archive_copy("g").await, Ok(None));
    assert_eq!(store.games().await, Ok(0));
    let again = expiring(create("g", "again"), LATER + 1);
    assert_eq!(store.write(again, LATER).await, Ok(Outcome::Written));
    assert_eq!(
        store.log("g", 0..10, LATER).await,
        Ok(vec![(0, entry(0, "again"))])
    );
}

async fn without_keeping_a_marked_game_goes_at_its_expiry(backend: Backend) {
    let (store, _dir) = open(backend, false);
    finish(&store, "g", NOW + 1, SOON).await;
    finish(&store, "h", NOW + 2, SOON).await;
    // A create over an expired marked game replaces it, mark and all.
    assert_eq!(
        store.write(create("h", "again"), SOON).await,
        Ok(Outcome::Written)
    );
    assert_eq!(
        store.unarchived(10, LATER).await,
        Ok(vec![mark("g", NOW + 1)])
    );
    // A purge takes the other with its mark.
    assert_eq!(store.purge(SOON, 10).await, Ok(purged(1, 0)));
    assert_eq!(store.archive_copy("g").await, Ok(None));
    assert_eq!(store.unarchived_count().await, Ok(count(0, None)));
    assert_eq!(store.games().await, Ok(1));
}

async fn a_full_store_counts_held_games(backend: Backend) {
    let (store, _dir) = open_with(backend, kept_limits(2, true));
    finish(&store, "a", NOW + 1, SOON).await;
    finish(&store, "b", NOW + 2, SOON).await;
    // Both expired and marked: held rather than deleted to make room.
    assert_eq!(
        store.write(create("c", "v0"), SOON).await,
        Ok(Outcome::Full)
    );
    assert_eq!(store.games().await, Ok(2));
    assert_eq!(store.purge(SOON, 10).await, Ok(purged(0, 0)));
    assert!(store.archive_copy("a").await.unwrap().is_some());
    // One archived: it makes room.
    assert_eq!(store.archived(&ids(&["a"]), SOON).await, Ok(1));
    assert_eq!(
        store.write(create("c", "v0"), SOON).await,
        Ok(Outcome::Written)
    );
    assert_eq!(store.archive_copy("a").await, Ok(None));
    assert_eq!(store.games().await, Ok(2));
    assert_eq!(
        store.unarchived(10, LATER).await,
        Ok(vec![mark("b", NOW + 2)])
    );
}

async fn a_batch_past_the_most_is_refused(backend: Backend) {
    let (store, _dir) = open(backend, true);
    let refused = store.unarchived(MAX_ARCHIVE_BATCH + 1, LATER).await;
    assert!(
        matches!(&refused, Err(StoreError::InvalidRead(message)) if message.contains("1001 finished games")),
        "{refused:?}"
    );
    let many: Vec<String> = (0..=MAX_ARCHIVE_BATCH).map(|n| format!("g{n}")).collect();
    let refused = store.archived(&many, LATER).await;
    assert!(
        matches!(&refused, Err(StoreError::InvalidWrite(message)) if message.contains("1001 archived games")),
        "{refused:?}"
    );
    assert_eq!(
        store.unarchived(MAX_ARCHIVE_BATCH, LATER).await,
        Ok(Vec::new())
    );
    assert_eq!(store.archived(&many[1..], LATER).await, Ok(0));
}

// A mark is written with its game: the file dropped (its writer joined,
// the file closed) and opened again still has it, and a held game stays
// held.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marks_and_held_games_outlive_the_file_being_opened_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.redb");
    let setting = format!("file:{}", path.display());
    let reopen = |keep_unarchived| {
        Store::open(&setting.parse().unwrap(), kept_limits(10, keep_unarchived)).unwrap()
    };
    let store = reopen(true);
    finish(&store, "g", NOW + 1, SOON).await;
    finish(&store, "h", NOW + 2, LATER).await;
    assert_eq!(store.purge(SOON, 10).await, Ok(purged(0, 1)));
    drop(store);

    let store = reopen(true);
    let marks = vec![mark("g", NOW + 1), mark("h", NOW + 2)];
    assert_eq!(store.unarchived(10, LATER).await, Ok(marks));
    assert_eq!(
        store.archive_copy("g").await,
        Ok(Some(copy_of(Some(NOW + 1), SOON)))
    );
    assert_eq!(store.games().await, Ok(2));
    // `h` expires in its turn: held too, `g` passed by.
    assert_eq!(store.purge(LATER, 10).await, Ok(purged(0, 1)));
    drop(store);

    // Opened with no archiver: the held game goes at the next purge.
    let store = reopen(false);
    assert_eq!(store.purge(SOON, 10).await, Ok(purged(1, 0)));
    assert_eq!(store.archive_copy("g").await, Ok(None));
    assert_eq!(
        store.unarchived(10, LATER).await,
        Ok(vec![mark("h", NOW + 2)])
    );
}

// Two stores on one Redis prefix, one keeping marked games and one not,
// are as the file opened again with the setting changed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn a_store_with_no_archiver_purges_games_held_by_one_with() {
    let redis = crate::support::fresh_redis_store();
    let setting = redis.setting();
    let open = |keep_unarchived| {
        Store::open(&setting.parse().unwrap(), kept_limits(10, keep_unarchived)).unwrap()
    };
    let (keeping, plain) = (open(true), open(false));
    finish(&keeping, "g", NOW + 1, SOON).await;
    finish(&keeping, "h", NOW + 2, SOON).await;
    assert_eq!(keeping.purge(SOON, 10).await, Ok(purged(0, 2)));
    assert_eq!(plain.games().await, Ok(2));
    assert_eq!(plain.purge(SOON, 1).await, Ok(purged(1, 0)));
    assert_eq!(plain.archive_copy("g").await, Ok(None));
    assert_eq!(
        plain.unarchived(10, LATER).await,
        Ok(vec![mark("h", NOW + 2)])
    );
    assert_eq!(plain.purge(SOON, 10).await, Ok(purged(1, 0)));
    assert_eq!(plain.games().await, Ok(0));
}
