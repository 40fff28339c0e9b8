//! Leaderboards: an entry is stored with the write that wins its game or
//! not at all, a board lists its best entries best first and keeps only
//! the board size of them, boards are bounded in number, and a board
//! expires with its entries.

use linkpath_store::Outcome;

use crate::support::{Backend, LATER, NOW, create, keyed, limits, next, open, open_with, won};

on_each!(
    a_board_keeps_its_best,
    a_board_reads_with_any_limit,
    an_entry_comes_only_with_its_write,
    boards_are_bounded,
    a_board_expires_whole,
);

async fn a_board_keeps_its_best(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    // Entered in no order; the board size is 3.
    for (game, rank) in [
        ("a", "0300a"),
        ("b", "0100b"),
        ("c", "0500c"),
        ("d", "0200d"),
    ] {
        let write = won(create(game, "won"), "daily", rank, LATER);
        assert_eq!(store.write(write, NOW).await, Ok(Outcome::Written));
    }
    let best = |ranks: &[&str]| Ok(ranks.iter().map(|r| r.as_bytes().to_vec()).collect());
    assert_eq!(
        store.leaderboard("daily", 10, NOW).await,
        best(&["0100b", "0200d", "0300a"])
    );
    assert_eq!(
        store.leaderboard("daily", 2, NOW).await,
        best(&["0100b", "0200d"])
    );
    assert_eq!(store.leaderboard("daily", 0, NOW).await, best(&[]));
    assert_eq!(store.leaderboard("other", 10, NOW).await, best(&[]));

    // Worse than all three: the write applies, the entry is not kept.
    let worse = won(create("e", "won"), "daily", "0900e", LATER);
    assert_eq!(store.write(worse, NOW).await, Ok(Outcome::Written));
    assert_eq!(
        store.game("e", NOW).await.unwrap().map(|g| g.version),
        Some(0)
    );
    // Better than all: the worst goes.
    let better = won(create("f", "won"), "daily", "0050f", LATER);
    store.write(better, NOW).await.unwrap();
    assert_eq!(
        store.leaderboard("daily", 10, NOW).await,
        best(&["0050f", "0100b", "0200d"])
    );
}

// The limit is the caller's: one past any board's size, up to the
// largest there is, reads the whole board.
async fn a_board_reads_with_any_limit(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    for (game, rank) in [("a", "2a"), ("b", "1b")] {
        let write = won(create(game, "won"), "daily", rank, LATER);
        assert_eq!(store.write(write, NOW).await, Ok(Outcome::Written));
    }
    let whole = Ok(vec![b"1b".to_vec(), b"2a".to_vec()]);
    for limit in [2, 4, 1 << 53, (1 << 53) + 1, usize::MAX] {
        assert_eq!(
            store.leaderboard("daily", limit, NOW).await,
            whole,
            "{limit}"
        );
    }
}

async fn an_entry_comes_only_with_its_write(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    store.write(create("g", "v0"), NOW).await.unwrap();

    let stale = won(next("g", 5, "won"), "b", "1g", LATER);
    assert_eq!(
        store.write(stale, NOW).await,
        Ok(Outcome::Stale { current: Some(0) })
    );
    let first = keyed(won(next("g", 0, "won"), "b", "1g", LATER), "k", "won");
    assert_eq!(store.write(first.clone(), NOW).await, Ok(Outcome::Written));
    // A retry is answered the first answer and enters nothing again.
    let mut retry = first;
    retry.entry.as_mut().unwrap().rank = "0g".into();
    assert!(matches!(
        store.write(retry, NOW).await,
        Ok(Outcome::Replayed(_))
    ));
    assert_eq!(
        store.leaderboard("b", 10, NOW).await,
        Ok(vec![b"1g".to_vec()])
    );
}

async fn boards_are_bounded(backend: Backend) {
    let mut bounds = limits(10);
    bounds.max_boards = 1;
    let (store, _dir) = open_with(backend, bounds);
    store
        .write(won(create("a", "won"), "one", "1a", LATER), NOW)
        .await
        .unwrap();
    // A second board is not made; the game is written all the same.
    let other = won(create("b", "won"), "two", "1b", LATER);
    assert_eq!(store.write(other, NOW).await, Ok(Outcome::Written));
    assert_eq!(store.leaderboard("two", 10, NOW).await, Ok(vec![]));
    assert!(store.game("b", NOW).await.unwrap().is_some());
    // The board that is there takes more entries.
    store
        .write(won(create("c", "won"), "one", "0c", LATER), NOW)
        .await
        .unwrap();
    assert_eq!(
        store.leaderboard("one", 10, NOW).await,
        Ok(vec![b"0c".to_vec(), b"1a".to_vec()])
    );
}

async fn a_board_expires_whole(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    let soon = NOW + 1_000;
    store
        .write(won(create("a", "won"), "b", "1a", soon), NOW)
        .await
        .unwrap();
    // A later entry moves the board's expiry later, never earlier.
    store
        .write(won(create("c", "won"), "b", "2c", LATER), NOW)
        .await
        .unwrap();
    store
        .write(won(create("d", "won"), "b", "3d", NOW + 10), NOW)
        .await
        .unwrap();
    assert_eq!(store.leaderboard("b", 10, soon).await.unwrap().len(), 3);
    assert_eq!(
        store.leaderboard("b", 10, LATER - 1).await.unwrap().len(),
        3
    );
    assert_eq!(store.leaderboard("b", 10, LATER).await, Ok(vec![]));

    // An expired board still stored is emptied before a new entry.
    store
        .write(won(create("e", "won"), "b", "9e", LATER + 5_000), LATER)
        .await
        .unwrap();
    assert_eq!(
        store.leaderboard("b", 10, LATER).await,
        Ok(vec![b"9e".to_vec()])
    );

    let purged = store.purge(LATER + 5_000, 10).await.unwrap();
    assert_eq!(purged.boards, 1);
    assert_eq!(store.leaderboard("b", 10, NOW).await, Ok(vec![]));
}
