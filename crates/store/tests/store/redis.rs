//! What only the Redis store has: a Redis that cannot be reached is an
//! error a caller can retry on, never a panic or a hang; stores under two
//! prefixes share a server apart; and two stores on one prefix, as two
//! replicas are, see each other's games and race on them as one store.

use std::net::TcpListener;

use linkpath_store::{Outcome, StoreError};

use crate::support::{
    NOW, create, fresh_redis_store, game, kept, keyed, next, open_spec, test_redis,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_redis_is_unavailable() {
    // A port nothing listens on: taken, then let go.
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    // Opening reaches nothing, so it succeeds.
    let store = open_spec(&format!("redis://127.0.0.1:{port}"), 10).unwrap();
    let unavailable = |result: Result<_, StoreError>| match result {
        Err(StoreError::Unavailable(message)) => message.starts_with("Redis does not answer"),
        _ => false,
    };
    assert!(unavailable(store.game("g", NOW).await.map(|_| ())));
    assert!(unavailable(
        store.write(create("g", "v0"), NOW).await.map(|_| ())
    ));
    assert!(unavailable(store.kept("k", NOW).await.map(|_| ())));
    assert!(unavailable(store.purge(NOW, 10).await.map(|_| ())));
    assert!(unavailable(store.games().await.map(|_| ())));
}

// TLS set up by redis-rs through rustls: a server that does not speak it
// is an error like any other, not a panic for want of a crypto provider.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_to_a_server_without_it_is_unavailable() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    // Takes each connection and closes it, as a server refusing TLS does.
    let server = tokio::spawn(async move {
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                return;
            };
            drop(socket);
        }
    });
    let store = open_spec(&format!("rediss://127.0.0.1:{port}"), 10).unwrap();
    let answer = store.game("g", NOW).await;
    server.abort();
    assert!(
        matches!(&answer, Err(StoreError::Unavailable(message)) if message.starts_with("Redis does not answer")),
        "{answer:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_prefixes_share_a_server_apart() {
    if test_redis().is_none() {
        return;
    }
    let one = open_spec(&fresh_redis_store(), 1).unwrap();
    let other = open_spec(&fresh_redis_store(), 1).unwrap();
    let write = keyed(create("g", "one's"), "k", "one's");
    assert_eq!(one.write(write, NOW).await, Ok(Outcome::Written));

    assert_eq!(other.game("g", NOW).await, Ok(None));
    assert_eq!(other.kept("k", NOW).await, Ok(None));
    assert_eq!(other.games().await, Ok(0));
    let write = keyed(create("g", "other's"), "k", "other's");
    assert_eq!(other.write(write, NOW).await, Ok(Outcome::Written));
    assert_eq!(one.game("g", NOW).await, Ok(Some(game(0, "one's"))));
    assert_eq!(other.game("g", NOW).await, Ok(Some(game(0, "other's"))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_on_one_prefix_are_one_store() {
    if test_redis().is_none() {
        return;
    }
    let setting = fresh_redis_store();
    let a = open_spec(&setting, 2).unwrap();
    let b = open_spec(&setting, 2).unwrap();
    assert_eq!(a.write(create("g", "v0"), NOW).await, Ok(Outcome::Written));
    assert_eq!(b.game("g", NOW).await, Ok(Some(game(0, "v0"))));

    let (through_a, through_b) = tokio::join!(
        a.write(keyed(next("g", 0, "a"), "k", "moved"), NOW),
        b.write(keyed(next("g", 0, "b"), "k", "moved"), NOW)
    );
    let winner = match (through_a.unwrap(), through_b.unwrap()) {
        (Outcome::Written, Outcome::Replayed(answer)) if answer == kept("moved") => "a",
        (Outcome::Replayed(answer), Outcome::Written) if answer == kept("moved") => "b",
        outcomes => panic!("expected one written and one replaying it, got {outcomes:?}"),
    };
    assert_eq!(a.game("g", NOW).await, Ok(Some(game(1, winner))));
    assert_eq!(b.game("g", NOW).await, Ok(Some(game(1, winner))));

    // The bound is the replicas' together.
    assert_eq!(b.write(create("h", "v0"), NOW).await, Ok(Outcome::Written));
    assert_eq!(a.write(create("i", "v0"), NOW).await, Ok(Outcome::Full));
    assert_eq!(a.games().await, Ok(2));
}
