//! Inserting: idempotent by id, whether the same id comes again later,
//! in the same batch or from many tasks at once; a batch that breaks a
//! bound stores nothing.

use std::sync::Arc;

use linkpath_archive::{ArchiveError, ArchiveLimits, ArchivedGame};

use crate::support::{Backend, T0, game, ids, limits, open, open_with, played_by};

on_each!(
    a_second_insert_changes_nothing,
    concurrent_inserts_of_one_id_keep_one_copy,
    a_batch_breaking_a_bound_stores_nothing,
    games_read_back_as_inserted,
);

async fn a_second_insert_changes_nothing(backend: Backend) {
    let (archive, _scratch) = open(backend).await;
    assert_eq!(archive.count().await, Ok(0));
    assert_eq!(archive.game("g1").await, Ok(None));

    let first = played_by(game("g1", T0), "p1", "Ada");
    assert_eq!(archive.insert(std::slice::from_ref(&first)).await, Ok(1));
    // The same id with other columns: the first copy stays.
    let again = ArchivedGame {
        status: "resigned".to_owned(),
        body: b"another record".to_vec(),
        ..first.clone()
    };
    assert_eq!(archive.insert(&[again]).await, Ok(0));
    assert_eq!(archive.count().await, Ok(1));
    assert_eq!(archive.game("g1").await, Ok(Some(first.clone())));

    // A batch with an id twice, and one already stored.
    let batch = [
        game("g2", T0 + 1),
        game("g2", T0 + 2),
        first,
        game("g3", T0 + 3),
    ];
    assert_eq!(archive.insert(&batch).await, Ok(2));
    assert_eq!(archive.count().await, Ok(3));
    assert_eq!(archive.game("g2").await, Ok(Some(game("g2", T0 + 1))));
    assert_eq!(archive.insert(&[]).await, Ok(0));
}

async fn concurrent_inserts_of_one_id_keep_one_copy(backend: Backend) {
    let (archive, _scratch) = open(backend).await;
    let archive = Arc::new(archive);
    // 16 tasks each insert the same 20 games, in batches that overlap,
    // half of them in the reverse order.
    let games: Vec<ArchivedGame> = (0..20)
        .map(|n| played_by(game(&format!("g{n:02}"), T0 + n), "p1", "Ada"))
        .collect();
    let tasks: Vec<_> = (0..16)
        .map(|task| {
            let archive = Arc::clone(&archive);
            let mut games = games.clone();
            games.rotate_left(task);
            if task % 2 == 1 {
                games.reverse();
            }
            tokio::spawn(async move {
                let mut inserted = 0;
                for batch in games.chunks(7) {
                    inserted += archive.insert(batch).await.unwrap();
                }
                inserted
            })
        })
        .collect();
    let mut inserted = 0;
    for task in tasks {
        inserted += task.await.unwrap();
    }
    assert_eq!(inserted, 20);
    assert_eq!(archive.count().await, Ok(20));
    for game in &games {
        assert_eq!(
            archive.game(&game.id).await.as_ref(),
            Ok(&Some(game.clone()))
        );
    }
}

async fn a_batch_breaking_a_bound_stores_nothing(backend: Backend) {
    let (archive, _scratch) = open_with(
        backend,
        ArchiveLimits {
            max_batch: 3,
            max_body_bytes: 64,
            ..limits()
        },
    )
    .await;
    let long_status = ArchivedGame {
        status: "w".repeat(257),
        ..game("g2", T0)
    };
    assert_eq!(
        archive.insert(&[game("g1", T0), long_status]).await,
        Err(ArchiveError::Invalid(
            "game `g2`: its status is 257 bytes, at most 256".to_owned()
        ))
    );
    let big = ArchivedGame {
        body: vec![b'x'; 65],
        ..game("g3", T0)
    };
    assert_eq!(
        archive.insert(&[big]).await,
        Err(ArchiveError::Invalid(
            "game `g3`: its record is 65 bytes, more than the 64 one may have".to_owned()
        ))
    );
    let four: Vec<ArchivedGame> = (0..4).map(|n| game(&format!("g{n}"), T0)).collect();
    assert_eq!(
        archive.insert(&four).await,
        Err(ArchiveError::Invalid(
            "an insert of 4 games is more than the 3 one may carry".to_owned()
        ))
    );
    assert_eq!(archive.count().await, Ok(0));
    assert_eq!(archive.insert(&four[..3]).await, Ok(3));
}

async fn games_read_back_as_inserted(backend: Backend) {
    let (archive, _scratch) = open(backend).await;
    let full = ArchivedGame {
        id: "g-é-1".to_owned(),
        player: Some("p1".to_owned()),
        player_name: Some("Zoë".to_owned()),
        leaderboard: Some("daily-2026-12-06".to_owned()),
        match_id: Some("m1".to_owned()),
        status: "out_of_time".to_owned(),
        rated: true,
        created_ms: 0,
        finished_ms: linkpath_archive::MAX_MS,
        body: (0..=255).collect(),
    };
    let bare = ArchivedGame {
        body: Vec::new(),
        ..game("g2", 0)
    };
    assert_eq!(archive.insert(&[full.clone(), bare.clone()]).await, Ok(2));
    assert_eq!(archive.game("g-é-1").await, Ok(Some(full.clone())));
    assert_eq!(archive.game("g2").await, Ok(Some(bare)));
    let newest = archive.page(&Default::default(), None, 10).await.unwrap();
    assert_eq!(ids(&newest), ["g-é-1", "g2"]);
    assert_eq!(newest[0], full);
}

/// A memory archive holds at most its bound, and says so.
#[tokio::test]
async fn a_full_memory_archive_refuses_new_games() {
    let (archive, _scratch) = open_with(
        Backend::Memory,
        ArchiveLimits {
            max_games_in_memory: 2,
            ..limits()
        },
    )
    .await;
    assert_eq!(
        archive.insert(&[game("g1", T0), game("g2", T0)]).await,
        Ok(2)
    );
    assert_eq!(
        archive.insert(&[game("g1", T0), game("g3", T0)]).await,
        Err(ArchiveError::Full(2))
    );
    // Ids it holds still insert, as nothing.
    assert_eq!(archive.insert(&[game("g2", T0)]).await, Ok(0));
    assert_eq!(
        ids(&archive.page(&Default::default(), None, 5).await.unwrap()),
        ["g2", "g1"]
    );
}
