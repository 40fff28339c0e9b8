//! Seeks: added, refreshed, replaced by a newer one and removed; paired
//! by key and by rating, oldest first, into seats that each seeker finds
//! under its ticket; never paired once expired or removed; and two
//! pairings racing take each seeker once. Each case runs on every
//! backend.

use linkpath_store::{Pairing, Seat, SeekWrite, Seeking, Store};

use crate::support::{Backend, NOW, open};

on_each!(
    a_seek_waits_while_refreshed,
    seekers_are_paired_by_key_and_rating,
    a_seek_gone_is_never_paired,
    a_newer_seek_replaces_the_first,
    six_seekers_make_three_pairs,
    two_pairings_take_each_seeker_once,
    seeks_in_one_millisecond_keep_their_order,
);

/// Seeks expire this long after a refresh.
const TTL: u64 = 5_000;

fn seek(key: &str, player: &str, ticket: &str, rating: f64, now: u64) -> SeekWrite {
    SeekWrite {
        key: key.to_owned(),
        player: player.to_owned(),
        ticket: ticket.to_owned(),
        rating,
        expires_at_ms: now + TTL,
    }
}

fn pairing(key: &str, seats: usize, match_id: &str) -> Pairing {
    Pairing {
        key: key.to_owned(),
        seats,
        range: 300.0,
        match_id: match_id.to_owned(),
        kept_until_ms: NOW + 60_000,
    }
}

fn seat(match_id: &str, players: &[&str]) -> Seeking {
    Seeking::Seated(Seat {
        match_id: match_id.to_owned(),
        players: players.iter().map(|p| (*p).to_owned()).collect(),
    })
}

async fn seated(store: &Store, player: &str, ticket: &str, now: u64) -> Seeking {
    store.seated(player, ticket, now + TTL, now).await.unwrap()
}

async fn a_seek_waits_while_refreshed(backend: Backend) {
    let (store, _scratch) = open(backend, 10);
    store
        .seek(seek("k", "ann", "t1", 1500.0, NOW), NOW)
        .await
        .unwrap();
    assert_eq!(seated(&store, "ann", "t1", NOW).await, Seeking::Waiting);
    assert_eq!(seated(&store, "ann", "t2", NOW).await, Seeking::Gone);
    assert_eq!(seated(&store, "bob", "t1", NOW).await, Seeking::Gone);
    // Refreshed at NOW + 4 s: alive at NOW + 8 s, gone at NOW + 9 s.
    assert_eq!(
        seated(&store, "ann", "t1", NOW + 4_000).await,
        Seeking::Waiting
    );
    assert_eq!(
        store
            .seated("ann", "t1", NOW + 9_000, NOW + 8_999)
            .await
            .unwrap(),
        Seeking::Waiting
    );
    assert_eq!(
        seated(&store, "ann", "t1", NOW + 9_000).await,
        Seeking::Gone
    );
}

async fn seekers_are_paired_by_key_and_rating(backend: Backend) {
    let (store, _scratch) = open(backend, 10);
    store
        .seek(seek("k", "ann", "a", 1500.0, NOW), NOW)
        .await
        .unwrap();
    store
        .seek(seek("k", "bob", "b", 1900.0, NOW + 1), NOW + 1)
        .await
        .unwrap();
    store
        .seek(seek("other", "cat", "c", 1500.0, NOW + 2), NOW + 2)
        .await
        .unwrap();
    assert_eq!(
        store.pair(&pairing("k", 2, "m1"), NOW + 3).await.unwrap(),
        None
    );
    store
        .seek(seek("k", "dan", "d", 1750.0, NOW + 4), NOW + 4)
        .await
        .unwrap();
    // Ann first: Dan is within 300 of her, Bob is not.
    assert_eq!(
        store.pair(&pairing("k", 2, "m1"), NOW + 5).await.unwrap(),
        Some(vec!["ann".to_owned(), "dan".to_owned()])
    );
    assert_eq!(
        seated(&store, "ann", "a", NOW + 6).await,
        seat("m1", &["ann", "dan"])
    );
    assert_eq!(
        seated(&store, "dan", "d", NOW + 6).await,
        seat("m1", &["ann", "dan"])
    );
    // Another ticket of Ann's is not the one seated.
    assert_eq!(seated(&store, "ann", "x", NOW + 6).await, Seeking::Gone);
    assert_eq!(seated(&store, "bob", "b", NOW + 6).await, Seeking::Waiting);
    assert_eq!(seated(&store, "cat", "c", NOW + 6).await, Seeking::Waiting);
    assert_eq!(
        store.pair(&pairing("k", 2, "m2"), NOW + 7).await.unwrap(),
        None
    );
    assert_eq!(
        store
            .pair(&pairing("other", 2, "m2"), NOW + 7)
            .await
            .unwrap(),
        None
    );
}

async fn a_seek_gone_is_never_paired(backend: Backend) {
    let (store, _scratch) = open(backend, 10);
    store
        .seek(seek("k", "ann", "a", 1500.0, NOW), NOW)
        .await
        .unwrap();
    store
        .seek(seek("k", "bob", "b", 1500.0, NOW), NOW)
        .await
        .unwrap();
    // Bob's request ended; a removal of another ticket's removes nothing.
    store.unseek("bob", "b").await.unwrap();
    store.unseek("ann", "other").await.unwrap();
    store
        .seek(seek("k", "cat", "c", 1500.0, NOW + 1), NOW + 1)
        .await
        .unwrap();
    // Ann's expires at NOW + 5 s; Cat's at NOW + 5.001 s.
    let later = NOW + TTL;
    assert_eq!(
        store.pair(&pairing("k", 2, "m1"), later).await.unwrap(),
        None
    );
    assert_eq!(seated(&store, "ann", "a", later).await, Seeking::Gone);
    assert_eq!(seated(&store, "bob", "b", later).await, Seeking::Gone);
    assert_eq!(seated(&store, "cat", "c", later).await, Seeking::Waiting);
    store
        .seek(seek("k", "dan", "d", 1500.0, later), later)
        .await
        .unwrap();
    assert_eq!(
        store.pair(&pairing("k", 2, "m2"), later).await.unwrap(),
        Some(vec!["cat".to_owned(), "dan".to_owned()])
    );
}

async fn a_newer_seek_replaces_the_first(backend: Backend) {
    let (store, _scratch) = open(backend, 10);
    store
        .seek(seek("k1", "ann", "a1", 1500.0, NOW), NOW)
        .await
        .unwrap();
    store
        .seek(seek("k2", "ann", "a2", 1500.0, NOW + 1), NOW + 1)
        .await
        .unwrap();
    assert_eq!(seated(&store, "ann", "a1", NOW + 2).await, Seeking::Gone);
    assert_eq!(seated(&store, "ann", "a2", NOW + 2).await, Seeking::Waiting);
    store
        .seek(seek("k1", "bob", "b", 1500.0, NOW + 2), NOW + 2)
        .await
        .unwrap();
    assert_eq!(
        store.pair(&pairing("k1", 2, "m1"), NOW + 3).await.unwrap(),
        None
    );
    store
        .seek(seek("k2", "bob", "b2", 1500.0, NOW + 3), NOW + 3)
        .await
        .unwrap();
    assert_eq!(
        store.pair(&pairing("k2", 2, "m1"), NOW + 4).await.unwrap(),
        Some(vec!["ann".to_owned(), "bob".to_owned()])
    );
}

async fn six_seekers_make_three_pairs(backend: Backend) {
    let (store, _scratch) = open(backend, 10);
    let names = ["a", "b", "c", "d", "e", "f"];
    for (i, name) in names.iter().enumerate() {
        let at = NOW + i as u64;
        store
            .seek(seek("k", name, name, 1500.0, at), at)
            .await
            .unwrap();
    }
    let mut paired = Vec::new();
    for id in ["m1", "m2", "m3"] {
        paired.push(store.pair(&pairing("k", 2, id), NOW + 10).await.unwrap());
    }
    let pair = |a: &str, b: &str| Some(vec![a.to_owned(), b.to_owned()]);
    assert_eq!(paired, vec![pair("a", "b"), pair("c", "d"), pair("e", "f")]);
    assert_eq!(
        store.pair(&pairing("k", 2, "m4"), NOW + 10).await.unwrap(),
        None
    );
    assert_eq!(
        seated(&store, "f", "f", NOW + 11).await,
        seat("m3", &["e", "f"])
    );
}

async fn two_pairings_take_each_seeker_once(backend: Backend) {
    let (store, _scratch) = open(backend, 10);
    for name in ["a", "b", "c"] {
        store
            .seek(seek("k", name, name, 1500.0, NOW), NOW)
            .await
            .unwrap();
    }
    let (first, second) = (pairing("k", 2, "m1"), pairing("k", 2, "m2"));
    let (one, two) = tokio::join!(store.pair(&first, NOW + 1), store.pair(&second, NOW + 1));
    let mut taken: Vec<String> = [one.unwrap(), two.unwrap()]
        .into_iter()
        .flatten()
        .flatten()
        .collect();
    taken.sort();
    assert_eq!(taken, ["a", "b"]);
    assert_eq!(seated(&store, "c", "c", NOW + 2).await, Seeking::Waiting);
}

async fn seeks_in_one_millisecond_keep_their_order(backend: Backend) {
    let (store, _scratch) = open(backend, 10);
    for name in ["zed", "amy", "kim"] {
        store
            .seek(seek("k", name, name, 1500.0, NOW), NOW)
            .await
            .unwrap();
    }
    assert_eq!(
        store.pair(&pairing("k", 2, "m1"), NOW).await.unwrap(),
        Some(vec!["zed".to_owned(), "amy".to_owned()])
    );
}
