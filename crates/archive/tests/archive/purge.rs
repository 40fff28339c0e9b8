//! Retention: a purge deletes the games finished before the cutoff,
//! oldest first, at most as many as asked, with everything they are
//! found by.

use linkpath_archive::Filter;

use crate::support::{Backend, T0, all_pages, game, ids, open, played_by};

on_each!(purging_deletes_exactly_the_old_games);

async fn purging_deletes_exactly_the_old_games(backend: Backend) {
    let (archive, _scratch) = open(backend).await;
    let games: Vec<_> = (0..10u64)
        .map(|n| {
            let mut game = played_by(game(&format!("g{n}"), T0 + n * 1000), "p1", "Ada");
            game.leaderboard = Some("daily".to_owned());
            game.match_id = Some("m1".to_owned());
            game
        })
        .collect();
    archive.insert(&games).await.unwrap();

    assert_eq!(archive.purge_finished_before(T0, 100).await, Ok(0));
    assert_eq!(archive.purge_finished_before(T0 + 5000, 0).await, Ok(0));
    // Games 0 to 4 finished before T0 + 5000; two at a time, oldest first.
    assert_eq!(archive.purge_finished_before(T0 + 5000, 2).await, Ok(2));
    assert_eq!(archive.game("g0").await, Ok(None));
    assert_eq!(archive.game("g1").await, Ok(None));
    assert!(archive.game("g2").await.unwrap().is_some());
    assert_eq!(archive.purge_finished_before(T0 + 5000, 100).await, Ok(3));
    assert_eq!(archive.purge_finished_before(T0 + 5000, 100).await, Ok(0));
    assert_eq!(archive.count().await, Ok(5));

    let left = ["g9", "g8", "g7", "g6", "g5"];
    for filter in [
        Filter::default(),
        Filter {
            player: Some("p1".to_owned()),
            ..Filter::default()
        },
        Filter {
            leaderboard: Some("daily".to_owned()),
            ..Filter::default()
        },
        Filter {
            match_id: Some("m1".to_owned()),
            ..Filter::default()
        },
    ] {
        assert_eq!(
            ids(&all_pages(&archive, &filter, 3).await),
            left,
            "{filter:?}"
        );
    }
    // A purged id may be archived again.
    assert_eq!(archive.insert(&games[..1]).await, Ok(1));
    assert_eq!(archive.count().await, Ok(6));
}
