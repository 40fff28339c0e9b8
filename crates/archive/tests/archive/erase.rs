//! Erasing a player: the name goes from every game of theirs, and from
//! those archived later; the games, and the other players' names, stay.
//! The players whose names the archive holds walk in id order, a bounded
//! page at a time, and leave the walk as their names go.

use std::sync::Arc;

use linkpath_archive::{ArchivedGame, Filter};

use crate::support::{Backend, T0, all_pages, game, open, played_by};

on_each!(
    erasing_takes_the_name_and_leaves_the_games,
    a_game_archived_after_the_erasure_comes_without_its_name,
    an_erasure_racing_inserts_leaves_no_name,
    the_named_players_walk_in_order_until_their_names_go,
);

fn nameless(game: &ArchivedGame) -> ArchivedGame {
    ArchivedGame {
        player_name: None,
        ..game.clone()
    }
}

async fn erasing_takes_the_name_and_leaves_the_games(backend: Backend) {
    let (archive, _scratch) = open(backend).await;
    let ada: Vec<_> = (0..5)
        .map(|n| played_by(game(&format!("a{n}"), T0 + n), "p1", "Ada"))
        .collect();
    let bob = played_by(game("b0", T0), "p2", "Bob");
    // A game of p1's archived without a name already.
    let unnamed = ArchivedGame {
        player_name: None,
        ..played_by(game("a9", T0 + 9), "p1", "")
    };
    archive.insert(&ada).await.unwrap();
    archive
        .insert(&[bob.clone(), unnamed.clone()])
        .await
        .unwrap();

    assert_eq!(archive.erase_player("p1").await, Ok(5));
    for game in &ada {
        assert_eq!(archive.game(&game.id).await, Ok(Some(nameless(game))));
    }
    assert_eq!(archive.game("a9").await, Ok(Some(unnamed)));
    assert_eq!(archive.game("b0").await, Ok(Some(bob)));
    assert_eq!(archive.count().await, Ok(7));
    let p1 = Filter {
        player: Some("p1".to_owned()),
        ..Filter::default()
    };
    assert_eq!(all_pages(&archive, &p1, 10).await.len(), 6);
    // Again, and a player with no games: nothing more to erase.
    assert_eq!(archive.erase_player("p1").await, Ok(0));
    assert_eq!(archive.erase_player("p3").await, Ok(0));
}

async fn a_game_archived_after_the_erasure_comes_without_its_name(backend: Backend) {
    let (archive, _scratch) = open(backend).await;
    assert_eq!(archive.erase_player("p1").await, Ok(0));
    let late = played_by(game("a1", T0), "p1", "Ada");
    let other = played_by(game("b1", T0), "p2", "Bob");
    assert_eq!(archive.insert(&[late.clone(), other.clone()]).await, Ok(2));
    assert_eq!(archive.game("a1").await, Ok(Some(nameless(&late))));
    assert_eq!(archive.game("b1").await, Ok(Some(other)));
}

/// Inserts of a player's games run while the player is erased: whichever
/// way each falls, none keeps the name.
async fn an_erasure_racing_inserts_leaves_no_name(backend: Backend) {
    let (archive, _scratch) = open(backend).await;
    let archive = Arc::new(archive);
    let inserting: Vec<_> = (0..8)
        .map(|task| {
            let archive = Arc::clone(&archive);
            tokio::spawn(async move {
                for batch in 0..5 {
                    let games: Vec<_> = (0..4)
                        .map(|n| {
                            let id = format!("t{task}-{batch}-{n}");
                            played_by(game(&id, T0 + n), "p1", "Ada")
                        })
                        .collect();
                    archive.insert(&games).await.unwrap();
                }
            })
        })
        .collect();
    tokio::task::yield_now().await;
    archive.erase_player("p1").await.unwrap();
    for task in inserting {
        task.await.unwrap();
    }
    let p1 = Filter {
        player: Some("p1".to_owned()),
        ..Filter::default()
    };
    let games = all_pages(&archive, &p1, 1000).await;
    assert_eq!(games.len(), 160);
    let named: Vec<_> = games.iter().filter(|g| g.player_name.is_some()).collect();
    assert!(named.is_empty(), "{} games kept the name", named.len());
}

fn players(ids: &[&str]) -> Result<Vec<String>, linkpath_archive::ArchiveError> {
    Ok(ids.iter().map(|id| (*id).to_owned()).collect())
}

async fn the_named_players_walk_in_order_until_their_names_go(backend: Backend) {
    let (archive, _scratch) = open(backend).await;
    // p1's three games finish first, then p2's, p4's two, and p3's
    // without a name.
    let mut games: Vec<_> = (0..3)
        .map(|n| played_by(game(&format!("a{n}"), T0 + n), "p1", "Ada"))
        .collect();
    games.push(played_by(game("b0", T0 + 10), "p2", "Bob"));
    games.push(played_by(game("d0", T0 + 11), "p4", "Dan"));
    games.push(played_by(game("d1", T0 + 12), "p4", "Dan"));
    games.push(ArchivedGame {
        player_name: None,
        ..played_by(game("c0", T0 + 13), "p3", "")
    });
    archive.insert(&games).await.unwrap();

    assert_eq!(
        archive.named_players(None, 10).await,
        players(&["p1", "p2", "p4"])
    );
    // Each call looks at so many games: p1's fill the first alone.
    assert_eq!(archive.named_players(None, 2).await, players(&["p1"]));
    assert_eq!(archive.named_players(None, 4).await, players(&["p1", "p2"]));
    assert_eq!(
        archive.named_players(Some("p1"), 2).await,
        players(&["p2", "p4"])
    );
    assert_eq!(
        archive.named_players(Some("p2"), 10).await,
        players(&["p4"])
    );
    assert_eq!(archive.named_players(Some("p4"), 10).await, players(&[]));
    assert_eq!(
        archive.named_players(Some(""), 10).await,
        players(&["p1", "p2", "p4"])
    );

    // An erased player leaves the walk, and so do purged games.
    assert_eq!(archive.erase_player("p2").await, Ok(1));
    assert_eq!(
        archive.named_players(None, 10).await,
        players(&["p1", "p4"])
    );
    assert_eq!(archive.purge_finished_before(T0 + 3, 100).await, Ok(3));
    assert_eq!(archive.named_players(None, 10).await, players(&["p4"]));
    // A late game of the erased player comes in nameless: not walked.
    archive
        .insert(&[played_by(game("b1", T0 + 20), "p2", "Bob")])
        .await
        .unwrap();
    assert_eq!(archive.named_players(None, 10).await, players(&["p4"]));

    let past = archive.limits().max_page + 1;
    assert!(matches!(
        archive.named_players(None, past).await,
        Err(linkpath_archive::ArchiveError::Invalid(_))
    ));
}
