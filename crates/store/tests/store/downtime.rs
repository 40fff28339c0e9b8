//! The heartbeat and the outages it tells, on every backend: a gap longer
//! than allowed is one outage from the last heartbeat to the new one, a
//! heartbeat behind the last leaves it, and the outages kept are bounded
//! by age and by count; a store begins at its first asking and keeps
//! that time. Then what only some backends have: a file keeps its
//! heartbeat and its beginning across a restart, and replicas on one
//! Redis share theirs.

use std::ops::Range;

use linkpath_store::MAX_OUTAGES;

use crate::support::{Backend, NOW, fresh_redis_store, open, open_file, open_spec};

on_each!(
    a_gap_longer_than_allowed_is_an_outage,
    a_heartbeat_behind_the_last_leaves_it,
    outages_are_forgotten_by_age_and_past_the_most,
    a_store_begins_at_its_first_asking,
);

/// A gap of more than 5 s between heartbeats is an outage.
const GAP: u64 = 5_000;

/// The outage from `from` to `to`.
fn outage(from: u64, to: u64) -> Range<u64> {
    from..to
}

async fn a_gap_longer_than_allowed_is_an_outage(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    assert_eq!(store.outages().await, Ok(vec![]));
    // The first heartbeat ever has none before it.
    assert_eq!(store.alive(NOW, GAP, 0).await, Ok(None));
    assert_eq!(store.alive(NOW + 1_000, GAP, 0).await, Ok(None));
    // Exactly the gap is no outage.
    assert_eq!(store.alive(NOW + 6_000, GAP, 0).await, Ok(None));
    assert_eq!(
        store.alive(NOW + 11_001, GAP, 0).await,
        Ok(Some(NOW + 6_000..NOW + 11_001))
    );
    assert_eq!(store.alive(NOW + 12_000, GAP, 0).await, Ok(None));
    assert_eq!(
        store.alive(NOW + 60_000, GAP, 0).await,
        Ok(Some(NOW + 12_000..NOW + 60_000))
    );
    assert_eq!(
        store.outages().await,
        Ok(vec![NOW + 6_000..NOW + 11_001, NOW + 12_000..NOW + 60_000])
    );
}

async fn a_heartbeat_behind_the_last_leaves_it(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    store.alive(NOW, GAP, 0).await.unwrap();
    // A replica whose clock is 10 s behind: no outage, and the last
    // heartbeat stays the later one.
    assert_eq!(store.alive(NOW - 10_000, GAP, 0).await, Ok(None));
    assert_eq!(
        store.alive(NOW + 6_000, GAP, 0).await,
        Ok(Some(NOW..NOW + 6_000))
    );
}

async fn outages_are_forgotten_by_age_and_past_the_most(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    // Outage `i` is 15 s from NOW + 20 s × i, a heartbeat on each side
    // and none between; five more than are kept.
    let outage = |i: u64| NOW + 20_000 * i..NOW + 20_000 * i + 15_000;
    let made = MAX_OUTAGES as u64 + 5;
    for i in 0..made {
        store.alive(outage(i).start, GAP, 0).await.unwrap();
        assert_eq!(
            store.alive(outage(i).end, GAP, 0).await,
            Ok(Some(outage(i)))
        );
    }
    let kept: Vec<_> = (5..made).map(outage).collect();
    assert_eq!(store.outages().await, Ok(kept));
    // Those that ended before the 50th ends are forgotten; it is kept.
    let beat = outage(made - 1).end + 1;
    assert_eq!(store.alive(beat, GAP, outage(50).end).await, Ok(None));
    let kept: Vec<_> = (50..made).map(outage).collect();
    assert_eq!(store.outages().await, Ok(kept));
}

async fn a_store_begins_at_its_first_asking(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    assert_eq!(store.born(NOW).await, Ok(NOW));
    assert_eq!(store.born(NOW + 5_000).await, Ok(NOW));
    // A clock behind does not move it either.
    assert_eq!(store.born(NOW - 5_000).await, Ok(NOW));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_keeps_its_beginning_across_a_restart_and_a_new_file_begins_anew() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.redb");
    let store = open_file(&path, 10).unwrap();
    assert_eq!(store.born(NOW).await, Ok(NOW));
    drop(store);
    let store = open_file(&path, 10).unwrap();
    assert_eq!(store.born(NOW + 30_000).await, Ok(NOW));
    drop(store);
    std::fs::remove_file(&path).unwrap();
    let store = open_file(&path, 10).unwrap();
    assert_eq!(store.born(NOW + 60_000).await, Ok(NOW + 60_000));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_keeps_its_heartbeat_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.redb");
    let store = open_file(&path, 10).unwrap();
    store.alive(NOW, GAP, 0).await.unwrap();
    drop(store);
    let store = open_file(&path, 10).unwrap();
    assert_eq!(
        store.alive(NOW + 30_000, GAP, 0).await,
        Ok(Some(NOW..NOW + 30_000))
    );
    drop(store);
    let store = open_file(&path, 10).unwrap();
    assert_eq!(store.outages().await, Ok(vec![outage(NOW, NOW + 30_000)]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn replicas_on_one_redis_share_the_heartbeat() {
    let redis = fresh_redis_store();
    let a = open_spec(&redis.setting(), 10).unwrap();
    let b = open_spec(&redis.setting(), 10).unwrap();
    a.alive(NOW, GAP, 0).await.unwrap();
    // `b` beat within the gap of `a`'s last heartbeat, and `a` within
    // the gap of `b`'s: each was served by the other.
    assert_eq!(b.alive(NOW + 4_000, GAP, 0).await, Ok(None));
    assert_eq!(a.alive(NOW + 8_000, GAP, 0).await, Ok(None));
    // Then neither served for a minute; both come back, one outage.
    assert_eq!(
        b.alive(NOW + 68_000, GAP, 0).await,
        Ok(Some(NOW + 8_000..NOW + 68_000))
    );
    assert_eq!(a.alive(NOW + 68_001, GAP, 0).await, Ok(None));
    assert_eq!(
        a.outages().await,
        Ok(vec![outage(NOW + 8_000, NOW + 68_000)])
    );
    assert_eq!(b.outages().await, a.outages().await);
    // The first to ask sets the beginning for both.
    assert_eq!(b.born(NOW + 70_000).await, Ok(NOW + 70_000));
    assert_eq!(a.born(NOW + 71_000).await, Ok(NOW + 70_000));
}
