//! Erasing a player: the name goes from every game of theirs, and from
//! those archived later; the games, and the other players' names, stay.

use std::sync::Arc;

use linkpath_archive::{ArchivedGame, Filter};

use crate::support::{Backend, T0, all_pages, game, open, played_by};

on_each!(
    erasing_takes_the_name_and_leaves_the_games,
    a_game_archived_after_the_erasure_comes_without_its_name,
    an_erasure_racing_inserts_leaves_no_name,
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
