//! Leaderboards: an entry is stored with the write that wins its game or
//! not at all, a board lists its best entries best first and keeps only
//! the board size of them, one a player, boards are bounded in number, a
//! board expires with its entries, and it is read in pages from the top,
//! after a rank, or around a player.

use linkpath_store::{BoardPage, BoardStart, Outcome, Ranked, Store, StoreError};

use crate::support::{
    Backend, LATER, NOW, create, keyed, limits, next, open, open_with, won, won_by,
};

/// The bodies of the best `limit` entries of `board`.
async fn top(
    store: &Store,
    board: &str,
    limit: usize,
    now: u64,
) -> Result<Vec<Vec<u8>>, StoreError> {
    let page = store
        .leaderboard(board, BoardStart::After(None), limit, now)
        .await?;
    Ok(page.entries.into_iter().map(|entry| entry.body).collect())
}

on_each!(
    a_board_keeps_its_best,
    a_board_reads_with_any_limit,
    an_entry_comes_only_with_its_write,
    boards_are_bounded,
    a_board_expires_whole,
    a_player_keeps_one_entry_its_best,
    an_entry_of_the_same_rank_replaces_another_players,
    a_board_pages_after_a_rank,
    a_board_pages_around_a_player,
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
        top(&store, "daily", 10, NOW).await,
        best(&["0100b", "0200d", "0300a"])
    );
    assert_eq!(
        top(&store, "daily", 2, NOW).await,
        best(&["0100b", "0200d"])
    );
    assert_eq!(top(&store, "daily", 0, NOW).await, best(&[]));
    assert_eq!(top(&store, "other", 10, NOW).await, best(&[]));

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
        top(&store, "daily", 10, NOW).await,
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
        assert_eq!(top(&store, "daily", limit, NOW).await, whole, "{limit}");
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
    assert_eq!(top(&store, "b", 10, NOW).await, Ok(vec![b"1g".to_vec()]));
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
    assert_eq!(top(&store, "two", 10, NOW).await, Ok(vec![]));
    assert!(store.game("b", NOW).await.unwrap().is_some());
    // The board that is there takes more entries.
    store
        .write(won(create("c", "won"), "one", "0c", LATER), NOW)
        .await
        .unwrap();
    assert_eq!(
        top(&store, "one", 10, NOW).await,
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
    assert_eq!(top(&store, "b", 10, soon).await.unwrap().len(), 3);
    assert_eq!(top(&store, "b", 10, LATER - 1).await.unwrap().len(), 3);
    assert_eq!(top(&store, "b", 10, LATER).await, Ok(vec![]));

    // An expired board still stored is emptied before a new entry.
    store
        .write(won(create("e", "won"), "b", "9e", LATER + 5_000), LATER)
        .await
        .unwrap();
    assert_eq!(top(&store, "b", 10, LATER).await, Ok(vec![b"9e".to_vec()]));

    let purged = store.purge(LATER + 5_000, 10).await.unwrap();
    assert_eq!(purged.boards, 1);
    assert_eq!(top(&store, "b", 10, NOW).await, Ok(vec![]));
}

/// Each entry as `(rank, player)`.
fn listed(page: &BoardPage) -> Vec<(&str, &str)> {
    page.entries
        .iter()
        .map(|entry| (entry.rank.as_str(), entry.player.as_str()))
        .collect()
}

async fn whole(store: &Store, board: &str, now: u64) -> BoardPage {
    store
        .leaderboard(board, BoardStart::After(None), usize::MAX, now)
        .await
        .unwrap()
}

async fn a_player_keeps_one_entry_its_best(backend: Backend) {
    let (store, _dir) = open(backend, 20);
    let soon = NOW + 1_000;
    let win = |game: &str, player: &str, rank: &str, expires: u64| {
        won_by(create(game, "won"), player, "daily", rank, expires)
    };
    assert_eq!(
        store.write(win("a", "p", "0500a", soon), NOW).await,
        Ok(Outcome::Written)
    );
    // Worse: the game is written, the board does not change, its expiry
    // neither.
    assert_eq!(
        store.write(win("b", "p", "0600b", LATER), NOW).await,
        Ok(Outcome::Written)
    );
    assert!(store.game("b", NOW).await.unwrap().is_some());
    assert_eq!(listed(&whole(&store, "daily", NOW).await), [("0500a", "p")]);
    // As good (the same rank again): no change either.
    store
        .write(win("c", "p", "0500a", LATER), NOW)
        .await
        .unwrap();
    assert_eq!(whole(&store, "daily", soon).await, BoardPage::default());

    // Better: it replaces the player's entry.
    store
        .write(win("d", "p", "0300d", LATER), NOW)
        .await
        .unwrap();
    store
        .write(win("e", "q", "0400e", LATER), NOW)
        .await
        .unwrap();
    assert_eq!(
        whole(&store, "daily", NOW).await.entries,
        [
            Ranked {
                rank: "0300d".into(),
                player: "p".into(),
                body: b"0300d".to_vec(),
            },
            Ranked {
                rank: "0400e".into(),
                player: "q".into(),
                body: b"0400e".to_vec(),
            },
        ]
    );
    // The board size is 3: past it the worst goes, with its player's
    // place, so that the player's next entry is entered as a first one.
    store
        .write(win("f", "r", "0100f", LATER), NOW)
        .await
        .unwrap();
    store
        .write(win("g", "s", "0200g", LATER), NOW)
        .await
        .unwrap();
    assert_eq!(
        listed(&whole(&store, "daily", NOW).await),
        [("0100f", "r"), ("0200g", "s"), ("0300d", "p")]
    );
    store
        .write(win("h", "q", "0450h", LATER), NOW)
        .await
        .unwrap();
    assert_eq!(
        listed(&whole(&store, "daily", NOW).await),
        [("0100f", "r"), ("0200g", "s"), ("0300d", "p")]
    );
    store
        .write(win("i", "q", "0250i", LATER), NOW)
        .await
        .unwrap();
    assert_eq!(
        listed(&whole(&store, "daily", NOW).await),
        [("0100f", "r"), ("0200g", "s"), ("0250i", "q")]
    );
}

// Ranks are unique when they end with the game's id; were one met again,
// its entry goes whoever its player, and no player keeps a place it lost.
async fn an_entry_of_the_same_rank_replaces_another_players(backend: Backend) {
    let (store, _dir) = open(backend, 20);
    let win = |game: &str, player: &str, rank: &str| {
        won_by(create(game, "won"), player, "daily", rank, LATER)
    };
    store.write(win("a", "p", "5"), NOW).await.unwrap();
    store.write(win("b", "q", "5"), NOW).await.unwrap();
    assert_eq!(listed(&whole(&store, "daily", NOW).await), [("5", "q")]);
    // `p` has no entry left: a worse one than its lost one is entered.
    store.write(win("c", "p", "6"), NOW).await.unwrap();
    assert_eq!(
        listed(&whole(&store, "daily", NOW).await),
        [("5", "q"), ("6", "p")]
    );
}

/// A store whose board `daily` holds players `p0` to `p5` at ranks `1`
/// to `6`.
async fn six_players(backend: Backend) -> (Store, crate::support::Scratch) {
    let (store, dir) = open_with(
        backend,
        linkpath_store::StoreLimits {
            board_size: 10,
            ..limits(20)
        },
    );
    for place in 0..6 {
        let (game, player, rank) = (
            format!("g{place}"),
            format!("p{place}"),
            (place + 1).to_string(),
        );
        let write = won_by(create(&game, "won"), &player, "daily", &rank, LATER);
        assert_eq!(store.write(write, NOW).await, Ok(Outcome::Written));
    }
    (store, dir)
}

async fn a_board_pages_after_a_rank(backend: Backend) {
    let (store, _dir) = six_players(backend).await;
    let page = |after: Option<&str>, limit| {
        let start = BoardStart::After(after.map(str::to_owned));
        let store = &store;
        async move { store.leaderboard("daily", start, limit, NOW).await.unwrap() }
    };
    let first = page(None, 2).await;
    assert_eq!((first.position, first.found), (0, None));
    assert_eq!(listed(&first), [("1", "p0"), ("2", "p1")]);
    let second = page(Some("2"), 2).await;
    assert_eq!(
        (second.position, listed(&second)),
        (2, vec![("3", "p2"), ("4", "p3")])
    );
    // A cursor between ranks, or past the last.
    let between = page(Some("25"), 10).await;
    assert_eq!(between.position, 2);
    assert_eq!(listed(&between).len(), 4);
    let past = page(Some("6"), 10).await;
    assert_eq!((past.position, past.entries.len()), (6, 0));
    let none = page(Some("3"), 0).await;
    assert_eq!((none.position, none.entries.len()), (3, 0));
    let absent = store
        .leaderboard("other", BoardStart::After(None), 10, NOW)
        .await;
    assert_eq!(absent, Ok(BoardPage::default()));
}

async fn a_board_pages_around_a_player(backend: Backend) {
    let (store, _dir) = six_players(backend).await;
    let around = |player: &str, before, limit| {
        let start = BoardStart::Around {
            player: player.to_owned(),
            before,
        };
        let store = &store;
        async move { store.leaderboard("daily", start, limit, NOW).await.unwrap() }
    };
    let page = around("p3", 1, 3).await;
    assert_eq!((page.position, page.found), (2, Some(3)));
    assert_eq!(listed(&page), [("3", "p2"), ("4", "p3"), ("5", "p4")]);
    // Clamped at the top.
    let top = around("p1", 5, 2).await;
    assert_eq!((top.position, top.found), (0, Some(1)));
    assert_eq!(listed(&top), [("1", "p0"), ("2", "p1")]);
    let last = around("p5", 0, 10).await;
    assert_eq!((last.position, last.found), (5, Some(5)));
    assert_eq!(listed(&last), [("6", "p5")]);
    // A player not on the board: the top.
    let nobody = around("nobody", 2, 1).await;
    assert_eq!((nobody.position, nobody.found), (0, None));
    assert_eq!(listed(&nobody), [("1", "p0")]);
    let absent = store
        .leaderboard(
            "other",
            BoardStart::Around {
                player: "p1".into(),
                before: 1,
            },
            10,
            NOW,
        )
        .await;
    assert_eq!(absent, Ok(BoardPage::default()));
}
