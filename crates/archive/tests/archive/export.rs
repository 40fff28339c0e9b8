//! Exporting: the stream yields the games paging yields, in the same
//! order, at most `max`, fetching a batch at a time.

use futures_util::StreamExt;
use linkpath_archive::{ArchiveLimits, Filter};

use crate::pages::{filled, filters};
use crate::support::{Backend, T0, all_pages, exported, game, ids, limits, open_with, played_by};

on_each!(
    an_export_yields_what_paging_yields,
    an_export_stops_at_its_max,
    an_export_goes_on_past_games_archived_behind_it,
);

async fn an_export_yields_what_paging_yields(backend: Backend) {
    let (archive, _scratch, _games) = filled(backend).await;
    for filter in filters() {
        let paged = all_pages(&archive, &filter, 13).await;
        assert_eq!(
            exported(&archive, filter.clone()).await,
            paged,
            "{filter:?}"
        );
    }
}

async fn an_export_stops_at_its_max(backend: Backend) {
    let (archive, _scratch, _games) = filled(backend).await;
    let p1 = Filter {
        player: Some("p1".to_owned()),
        ..Filter::default()
    };
    let all = all_pages(&archive, &p1, 100).await;
    assert_eq!(all.len(), 15);
    for max in [0, 1, 14, 15, 16, 1000] {
        let filter = Filter {
            max: Some(max),
            ..p1.clone()
        };
        let want = &all[..all.len().min(max as usize)];
        assert_eq!(exported(&archive, filter).await, want, "{max}");
    }
}

/// With batches of 2, an export of a player's 9 games reads five pages;
/// games archived meanwhile show if they fall after its place.
async fn an_export_goes_on_past_games_archived_behind_it(backend: Backend) {
    let (archive, _scratch) = open_with(
        backend,
        ArchiveLimits {
            export_batch: 2,
            ..limits()
        },
    )
    .await;
    let mine = |n: u64| played_by(game(&format!("g{n}"), T0 + n * 1000), "p1", "Ada");
    let games: Vec<_> = (1..=9).map(mine).collect();
    archive.insert(&games).await.unwrap();
    let filter = Filter {
        player: Some("p1".to_owned()),
        ..Filter::default()
    };
    let mut export = Box::pin(archive.export(filter));
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(export.next().await.unwrap().unwrap());
    }
    // One newer than the export's place, one older.
    let newer = played_by(game("g10", T0 + 10_000), "p1", "Ada");
    let older = played_by(game("g0", T0), "p1", "Ada");
    archive.insert(&[newer, older]).await.unwrap();
    while let Some(game) = export.next().await {
        seen.push(game.unwrap());
    }
    assert_eq!(
        ids(&seen),
        ["g9", "g8", "g7", "g6", "g5", "g4", "g3", "g2", "g1", "g0"]
    );
}
