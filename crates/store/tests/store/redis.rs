//! What only the Redis store has: a Redis that cannot be reached is an
//! error a caller can retry on, never a panic or a hang; stores under two
//! prefixes share a server apart; two stores on one prefix, as two
//! replicas are, see each other's games and race on them as one store;
//! each hears the other's writes on its feed, which resumes after its
//! connection is cut; a store whose Redis went away and came back
//! serves again by itself; and every key a player's scripts touch expires
//! or goes with what owns it, as every key of a match does, and a game
//! kept for the archive has none of its keys expire until archived.

use std::net::TcpListener;
use std::time::Duration;

use linkpath_store::{Feed, Outcome, Store, StoreError, StoreLimits};
use tokio::sync::{broadcast, watch};
use tokio::task::JoinHandle;

use crate::support::{
    Backend, LATER, NOW, RedisPrefix, create, fresh_redis_store, game, join, kept, keyed, next,
    open, open_spec, owned_by, won_by,
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
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn two_prefixes_share_a_server_apart() {
    let (one_prefix, other_prefix) = (fresh_redis_store(), fresh_redis_store());
    let one = open_spec(&one_prefix.setting(), 1).unwrap();
    let other = open_spec(&other_prefix.setting(), 1).unwrap();
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
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn two_replicas_on_one_prefix_are_one_store() {
    let redis = fresh_redis_store();
    let a = open_spec(&redis.setting(), 2).unwrap();
    let b = open_spec(&redis.setting(), 2).unwrap();
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

#[test]
fn only_a_shared_store_has_a_feed() {
    for backend in [Backend::Memory, Backend::File] {
        let (store, _dir) = open(backend, 1);
        assert!(store.changes().is_none(), "{backend:?}");
    }
}

/// The next word of `feed`; waits are bounded so that a broken feed fails
/// the case rather than hang it.
async fn heard(feed: &mut broadcast::Receiver<Feed>) -> Feed {
    tokio::time::timeout(Duration::from_secs(30), feed.recv())
        .await
        .expect("the feed says something within 30 s")
        .expect("the feed is open")
}

fn written(id: &str, version: u64) -> Feed {
    Feed::Written {
        id: id.to_owned(),
        version,
    }
}

/// Two stores on one prefix, and the first one's feed, once subscribed.
async fn two_replicas_and_a_feed(redis: &RedisPrefix) -> (Store, Store, broadcast::Receiver<Feed>) {
    let a = open_spec(&redis.setting(), 10).unwrap();
    let b = open_spec(&redis.setting(), 10).unwrap();
    let mut feed = a.changes().unwrap();
    assert_eq!(heard(&mut feed).await, Feed::Resumed);
    (a, b, feed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn each_write_is_heard_in_commit_order() {
    let redis = fresh_redis_store();
    let (a, b, mut feed) = two_replicas_and_a_feed(&redis).await;
    b.write(create("g", "v0"), NOW).await.unwrap();
    b.write(next("g", 0, "v1"), NOW).await.unwrap();
    // What did not apply is not heard.
    let late = b.write(next("g", 0, "late"), NOW).await;
    assert_eq!(late, Ok(Outcome::Stale { current: Some(1) }));
    a.write(next("g", 1, "v2"), NOW).await.unwrap();
    b.write(create("h", "v0"), NOW).await.unwrap();
    for expected in [
        written("g", 0),
        written("g", 1),
        written("g", 2),
        written("h", 0),
    ] {
        assert_eq!(heard(&mut feed).await, expected);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn a_feed_cut_off_resumes() {
    // The feed's connection goes through a proxy of this case's own, so
    // that cutting it cuts no other client of the test Redis.
    let redis = fresh_redis_store();
    let proxy = Proxy::start(redis.url()).await;
    let through_proxy = format!(
        "redis://127.0.0.1:{}/?prefix={}",
        proxy.port,
        redis.prefix()
    );
    let a = open_spec(&through_proxy, 10).unwrap();
    let b = open_spec(&redis.setting(), 10).unwrap();
    let mut feed = a.changes().unwrap();
    assert_eq!(heard(&mut feed).await, Feed::Resumed);
    proxy.set_up(false);
    proxy.set_up(true);
    // Whatever was written in between was not heard: the feed says so.
    assert_eq!(heard(&mut feed).await, Feed::Resumed);
    b.write(create("g", "v0"), NOW).await.unwrap();
    assert_eq!(heard(&mut feed).await, written("g", 0));
}

/// A TCP proxy in front of the test Redis that can be taken down: down,
/// it closes the connections it carries and each new one at once, as a
/// Redis that went away does, without touching the server the other cases
/// share.
struct Proxy {
    port: u16,
    /// Whether it is up, and how many times it went down: a connection
    /// ends when that count moves, even if it is up again by the time the
    /// connection looks.
    state: watch::Sender<(bool, u64)>,
    task: JoinHandle<()>,
}

impl Proxy {
    async fn start(redis_url: &str) -> Proxy {
        let redis = url::Url::parse(redis_url).unwrap();
        let upstream = format!(
            "{}:{}",
            redis.host_str().unwrap(),
            redis.port().unwrap_or(6379)
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (state, watching) = watch::channel((true, 0));
        let task = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let mut watching = watching.clone();
                let (up, downs) = *watching.borrow_and_update();
                if !up {
                    continue;
                }
                let upstream = upstream.clone();
                tokio::spawn(async move {
                    let Ok(mut server) = tokio::net::TcpStream::connect(&upstream).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = watching.wait_for(|&(_, now)| now != downs) => {}
                    }
                });
            }
        });
        Proxy { port, state, task }
    }

    fn set_up(&self, up: bool) {
        self.state.send_modify(|(is_up, downs)| {
            if *is_up && !up {
                *downs += 1;
            }
            *is_up = up;
        });
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.set_up(false);
        self.task.abort();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn a_store_serves_again_once_its_redis_is_back() {
    let redis = fresh_redis_store();
    let proxy = Proxy::start(redis.url()).await;
    let setting = format!(
        "redis://127.0.0.1:{}/?prefix={}",
        proxy.port,
        redis.prefix()
    );
    let store = open_spec(&setting, 10).unwrap();
    let mut feed = store.changes().unwrap();
    assert_eq!(heard(&mut feed).await, Feed::Resumed);
    assert_eq!(
        store.write(create("g", "v0"), NOW).await,
        Ok(Outcome::Written)
    );
    assert_eq!(heard(&mut feed).await, written("g", 0));

    proxy.set_up(false);
    let answer = store.game("g", NOW).await;
    assert!(
        matches!(&answer, Err(StoreError::Unavailable(message)) if message.starts_with("Redis does not answer")),
        "{answer:?}"
    );

    proxy.set_up(true);
    // The store connects again by itself: within a few calls, each bounded.
    let mut answer = store.game("g", NOW).await;
    for _ in 0..50 {
        if answer.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        answer = store.game("g", NOW).await;
    }
    assert_eq!(answer, Ok(Some(game(0, "v0"))));
    // So does its feed, which says it may have missed changes.
    assert_eq!(heard(&mut feed).await, Feed::Resumed);
    assert_eq!(
        store.write(next("g", 0, "v1"), NOW).await,
        Ok(Outcome::Written)
    );
    assert_eq!(heard(&mut feed).await, written("g", 1));
}

/// A feed whose connection is well goes on through its heartbeats: past
/// two of them answered (every 20 ms here), it has said nothing more than
/// that it is listening. (A PING answer misread as a failure would make it
/// subscribe again at every heartbeat, and its listeners read every game
/// again; no heartbeat would count as answered.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn a_feed_goes_on_through_its_heartbeats() {
    let redis = fresh_redis_store();
    let limits = StoreLimits {
        feed_heartbeat: Duration::from_millis(20),
        ..crate::support::limits(10)
    };
    let store = Store::open(&redis.setting().parse().unwrap(), limits).unwrap();
    let mut heartbeats = store.feed_heartbeats();
    let mut feed = store.changes().unwrap();
    assert_eq!(heard(&mut feed).await, Feed::Resumed);
    tokio::time::timeout(Duration::from_secs(30), heartbeats.wait_for(|&n| n >= 2))
        .await
        .expect("two heartbeats answered within 30 s")
        .expect("the store listens");
    assert_eq!(feed.try_recv(), Err(broadcast::error::TryRecvError::Empty));
}

/// Every key under `redis`'s prefix, each with its TTL in ms (-1: none),
/// the prefix cut off.
fn keys_of(redis: &RedisPrefix) -> Vec<(String, i64)> {
    let client = redis::Client::open(redis.url()).unwrap();
    let mut connection = client.get_connection().unwrap();
    let names: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{}:*", redis.prefix()))
        .query(&mut connection)
        .unwrap();
    let mut keys: Vec<(String, i64)> = names
        .into_iter()
        .map(|name| {
            let ttl = redis::cmd("PTTL")
                .arg(&name)
                .query(&mut connection)
                .unwrap();
            (name[redis.prefix().len() + 1..].to_owned(), ttl)
        })
        .collect();
    keys.sort();
    keys
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn a_players_keys_expire_or_go_with_it() {
    let redis = fresh_redis_store();
    let store = open_spec(&redis.setting(), 10).unwrap();
    let joined = store.write_player(join("p", "Ada", Some(1)), NOW).await;
    assert_eq!(joined, Ok(linkpath_store::PlayerOutcome::Written));
    let won = won_by(owned_by(create("g", "won"), "p"), "p", "b", "1g", LATER);
    assert_eq!(store.write(won, NOW).await, Ok(Outcome::Written));

    // The indexes and the hashes of ids live as long as the store; every
    // record, list and board expires.
    let global = [
        "board-expiry",
        "game-expiry",
        "game-owners",
        "player-expiry",
        "player-tokens",
        "token-players",
    ];
    let keys = keys_of(&redis);
    let names: Vec<&str> = keys.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "board-expiry",
            "board-players:{b}",
            "board:{b}",
            "entries:{b}",
            "entry-players:{b}",
            "game-expiry",
            "game-owners",
            "game:{g}",
            "log:{g}",
            "player-boards:{p}",
            "player-expiry",
            "player-games:{p}",
            "player-tokens",
            "player:{p}",
            "ranks:{b}",
            "token-players",
        ]
    );
    for (name, ttl) in &keys {
        if global.contains(&name.as_str()) {
            assert_eq!(*ttl, -1, "{name}");
        } else {
            assert!(*ttl > 0, "{name} has no TTL");
        }
    }

    // Erased: the player's keys go, and its entries in the others.
    assert_eq!(
        store.erase_player("p", 0, NOW).await,
        Ok(linkpath_store::PlayerOutcome::Written)
    );
    let names: Vec<String> = keys_of(&redis).into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        names,
        [
            "board-expiry",
            "board:{b}",
            "game-expiry",
            "game:{g}",
            "log:{g}"
        ]
    );
    // Purged: nothing is left.
    store.purge_expired(LATER + 1).await.unwrap();
    assert_eq!(keys_of(&redis), []);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn a_matchs_keys_expire_and_go_with_it() {
    use linkpath_store::{Expected, MatchOutcome, MatchWrite, StoredMatch};

    let redis = fresh_redis_store();
    let store = open_spec(&redis.setting(), 10).unwrap();
    store
        .write_player(join("p", "Ada", Some(1)), NOW)
        .await
        .unwrap();
    let opened = MatchWrite {
        id: "m".into(),
        expected: Expected::Absent,
        record: StoredMatch {
            version: 0,
            expires_at_ms: LATER,
            due_at_ms: Some(NOW + 5),
            body: b"open".to_vec(),
        },
        key: Some(("k".into(), kept("opened"))),
        players: vec![crate::support::change("p", 0, "Ada 1500", Some(1))],
    };
    assert_eq!(
        store.write_match(opened, NOW).await,
        Ok(MatchOutcome::Written)
    );

    // Every key of matches expires, the indexes with the longest-lived
    // match they list.
    let matches = |keys: Vec<(String, i64)>| -> Vec<(String, i64)> {
        keys.into_iter()
            .filter(|(name, _)| name.starts_with("match"))
            .collect()
    };
    let keys = matches(keys_of(&redis));
    let names: Vec<&str> = keys.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["match-due", "match-expiry", "match:{m}"]);
    for (name, ttl) in &keys {
        assert!(*ttl > 0, "{name} has no TTL");
    }
    let names: Vec<String> = keys_of(&redis).into_iter().map(|(name, _)| name).collect();
    assert!(names.contains(&"kept:{k}".to_owned()), "{names:?}");
    assert!(names.contains(&"player:{p}".to_owned()), "{names:?}");

    // Purged: the match goes, and its entries in both indexes.
    store.purge_expired(LATER + 1).await.unwrap();
    assert_eq!(matches(keys_of(&redis)), []);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
async fn a_kept_games_keys_wait_for_the_archive() {
    use linkpath_store::StoreLimits;

    let redis = fresh_redis_store();
    let limits = StoreLimits {
        keep_unarchived: true,
        ..crate::support::limits(10)
    };
    let store = Store::open(&redis.setting().parse().unwrap(), limits).unwrap();
    store.write(create("g", "v0"), NOW).await.unwrap();
    let ttl_of = |name: &str| {
        let keys = keys_of(&redis);
        keys.iter()
            .find(|(key, _)| key == name)
            .map(|(_, ttl)| *ttl)
    };
    assert!(ttl_of("game:{g}").is_some_and(|ttl| ttl > 0));
    // Finished: Redis's backstop no longer drops the game or its log.
    let won = linkpath_store::Write {
        finished: true,
        ..next("g", 0, "won")
    };
    assert_eq!(store.write(won, NOW + 1).await, Ok(Outcome::Written));
    let names: Vec<(String, i64)> = keys_of(&redis);
    assert_eq!(
        names,
        [
            ("game-expiry".to_owned(), -1),
            ("game:{g}".to_owned(), -1),
            ("log:{g}".to_owned(), -1),
            ("unarchived".to_owned(), -1),
        ]
    );
    // Held past its expiry, in an index of its own.
    store.purge_expired(LATER).await.unwrap();
    let names: Vec<String> = keys_of(&redis).into_iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["game-held", "game:{g}", "log:{g}", "unarchived"]);
    assert_eq!(ttl_of("game:{g}"), Some(-1));

    // Archived: both expire again, within the grace, and the next purge
    // leaves nothing.
    assert_eq!(store.archived(&["g".to_owned()], LATER).await, Ok(1));
    for name in ["game:{g}", "log:{g}"] {
        let ttl = ttl_of(name);
        assert!(
            ttl.is_some_and(|ttl| (1..=60_000).contains(&ttl)),
            "{name}: {ttl:?}"
        );
    }
    store.purge_expired(LATER).await.unwrap();
    assert_eq!(keys_of(&redis), []);
}
