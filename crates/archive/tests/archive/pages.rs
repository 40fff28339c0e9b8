//! Reading pages: newest first by `(finished_ms, id)` (a player's by
//! `(created_ms, id)` when asked), a cursor going on strictly after the
//! game it names, and every filter alone and together giving the games a
//! plain model of it gives, whatever the page size.

use linkpath_archive::{Archive, ArchiveError, ArchivedGame, Cursor, Day, Filter, Order};

use crate::support::{Backend, T0, all_pages, ids, open};

on_each!(
    pages_go_newest_first_from_the_cursor,
    every_filter_gives_the_games_it_names,
    pages_past_their_bounds_are_refused,
);

const HOUR: u64 = 3_600_000;

/// Sixty games over two UTC days (T0 is 2026-12-06T00:00Z), three at
/// each of twenty times, two hours apart, created in the thirteen hours
/// before T0 in another order; players, leaderboards, matches, statuses
/// and ratedness varied apart from one another.
pub fn corpus() -> Vec<ArchivedGame> {
    (0..60u64)
        .map(|n| {
            let player = ["p0", "p1", "p2"].get((n % 4) as usize).copied();
            ArchivedGame {
                id: format!("g{n:02}"),
                player: player.map(str::to_owned),
                player_name: player.map(|p| format!("Name of {p}")),
                leaderboard: ["daily", "weekly"]
                    .get((n % 3) as usize)
                    .map(|b| (*b).to_owned()),
                match_id: (n % 5 == 0).then(|| format!("m{}", n % 2)),
                status: ["won", "resigned", "out_of_time", "lost"][(n / 2 % 4) as usize].to_owned(),
                rated: n % 7 != 0,
                created_ms: T0 - (n * 11 % 13 + 1) * HOUR,
                finished_ms: T0 + (n * 7 % 20) * 2 * HOUR,
                body: format!("record {n}").into_bytes(),
            }
        })
        .collect()
}

/// What a filter wants, by a plain reading of its fields.
fn model(games: &[ArchivedGame], filter: &Filter) -> Vec<ArchivedGame> {
    let is = |want: &Option<String>, have: &Option<String>| want.is_none() || want == have;
    let mut wanted: Vec<ArchivedGame> = games
        .iter()
        .filter(|g| {
            is(&filter.player, &g.player)
                && is(&filter.leaderboard, &g.leaderboard)
                && is(&filter.match_id, &g.match_id)
                && filter.status.as_ref().is_none_or(|s| *s == g.status)
                && filter.rated.is_none_or(|r| r == g.rated)
                && filter.since_ms.is_none_or(|s| filter.order.time_of(g) >= s)
                && filter.until_ms.is_none_or(|u| filter.order.time_of(g) < u)
        })
        .cloned()
        .collect();
    let at = |g: &ArchivedGame| (filter.order.time_of(g), g.id.clone());
    wanted.sort_by_key(|g| std::cmp::Reverse(at(g)));
    wanted
}

pub async fn filled(backend: Backend) -> (Archive, crate::support::Scratch, Vec<ArchivedGame>) {
    let (archive, scratch) = open(backend).await;
    let games = corpus();
    // In two batches, the second first, so that no order of insertion
    // stands in for the order of reading.
    assert_eq!(archive.insert(&games[30..]).await, Ok(30));
    assert_eq!(archive.insert(&games[..30]).await, Ok(30));
    (archive, scratch, games)
}

async fn pages_go_newest_first_from_the_cursor(backend: Backend) {
    let (archive, _scratch, games) = filled(backend).await;
    let all = Filter::default();
    // The last time is the 19th two hours: games 17, 37 and 57.
    let first = archive.page(&all, None, 3).await.unwrap();
    assert_eq!(ids(&first), ["g57", "g37", "g17"]);
    let after = first[1].cursor();
    assert_eq!(
        ids(&archive.page(&all, Some(&after), 3).await.unwrap()),
        ["g17", "g54", "g34"]
    );
    // A cursor need not be a game's: the games before it in the order.
    let between = Cursor {
        at_ms: T0 + 19 * 2 * HOUR,
        id: "g4".to_owned(),
    };
    assert_eq!(
        ids(&archive.page(&all, Some(&between), 3).await.unwrap()),
        ["g37", "g17", "g54"]
    );
    // The oldest game's cursor ends the list.
    let oldest = model(&games, &all).last().unwrap().cursor();
    assert_eq!(oldest.id, "g00");
    assert_eq!(archive.page(&all, Some(&oldest), 3).await, Ok(Vec::new()));
    for size in [1, 7, 60, 100] {
        assert_eq!(
            all_pages(&archive, &all, size).await,
            model(&games, &all),
            "{size}"
        );
    }
    assert_eq!(archive.page(&all, None, 0).await, Ok(Vec::new()));
}

/// The filters tried: each field alone, several together, and some that
/// want nothing.
pub fn filters() -> Vec<Filter> {
    let text = |s: &str| Some(s.to_owned());
    let day: Day = "2026-12-07".parse().unwrap();
    vec![
        Filter::default(),
        Filter {
            player: text("p1"),
            ..Filter::default()
        },
        Filter {
            leaderboard: text("daily"),
            ..Filter::default()
        },
        Filter {
            match_id: text("m0"),
            ..Filter::default()
        },
        Filter {
            status: text("resigned"),
            ..Filter::default()
        },
        Filter {
            rated: Some(false),
            ..Filter::default()
        },
        Filter {
            rated: Some(true),
            ..Filter::default()
        },
        Filter {
            since_ms: Some(T0 + 10 * HOUR),
            ..Filter::default()
        },
        Filter {
            until_ms: Some(T0 + 10 * HOUR),
            ..Filter::default()
        },
        Filter {
            since_ms: Some(T0 + 10 * HOUR),
            until_ms: Some(T0 + 20 * HOUR),
            ..Filter::default()
        },
        Filter::default().on(day),
        Filter {
            player: text("p2"),
            ..Filter::default()
        }
        .on(day),
        Filter {
            player: text("p0"),
            status: text("won"),
            ..Filter::default()
        },
        Filter {
            leaderboard: text("weekly"),
            rated: Some(true),
            since_ms: Some(T0 + 6 * HOUR),
            ..Filter::default()
        },
        Filter {
            match_id: text("m1"),
            player: text("p1"),
            ..Filter::default()
        },
        Filter {
            leaderboard: text("daily"),
            player: text("p2"),
            until_ms: Some(T0 + 30 * HOUR),
            ..Filter::default()
        },
        Filter {
            player: text("nobody"),
            ..Filter::default()
        },
        Filter {
            since_ms: Some(T0 + 20 * HOUR),
            until_ms: Some(T0 + 10 * HOUR),
            ..Filter::default()
        },
        Filter {
            status: text("drawn"),
            ..Filter::default()
        },
        Filter {
            since_ms: Some(u64::MAX),
            ..Filter::default()
        },
        Filter {
            until_ms: Some(u64::MAX),
            player: text("p0"),
            ..Filter::default()
        },
        // A player's games in the order they were created, which is not
        // the order they finished in; times bound the creation.
        Filter {
            player: text("p1"),
            order: Order::Created,
            ..Filter::default()
        },
        Filter {
            player: text("p2"),
            since_ms: Some(T0 - 9 * HOUR),
            until_ms: Some(T0 - 3 * HOUR),
            order: Order::Created,
            ..Filter::default()
        },
        Filter {
            player: text("p0"),
            status: text("won"),
            leaderboard: text("daily"),
            order: Order::Created,
            ..Filter::default()
        },
        Filter {
            player: text("nobody"),
            order: Order::Created,
            ..Filter::default()
        },
    ]
}

async fn every_filter_gives_the_games_it_names(backend: Backend) {
    let (archive, _scratch, games) = filled(backend).await;
    let text = |s: &str| Some(s.to_owned());
    // Two read by hand, so that the model is not the only judge.
    let p1_m1 = Filter {
        match_id: text("m1"),
        player: text("p1"),
        ..Filter::default()
    };
    // Games 5, 25 and 45 are p1's and m1's, all finished at hour 30.
    assert_eq!(
        ids(&archive.page(&p1_m1, None, 10).await.unwrap()),
        ["g45", "g25", "g05"]
    );
    // p1's games by creation: game 13 an hour before T0, 45 two, 25
    // three, 57 and 5 four (the greater id first).
    let p1_created = Filter {
        player: text("p1"),
        order: Order::Created,
        ..Filter::default()
    };
    let first = archive.page(&p1_created, None, 4).await.unwrap();
    assert_eq!(ids(&first), ["g13", "g45", "g25", "g57"]);
    let after = first[3].cursor_in(Order::Created);
    assert_eq!(after.at_ms, T0 - 4 * HOUR);
    assert_eq!(
        ids(&archive.page(&p1_created, Some(&after), 2).await.unwrap()),
        ["g05", "g37"]
    );
    let day: Day = "2026-12-07".parse().unwrap();
    let next_day = archive
        .page(&Filter::default().on(day), None, 100)
        .await
        .unwrap();
    assert_eq!(next_day.len(), 24);
    assert!(next_day.iter().all(|g| g.finished_ms >= T0 + 24 * HOUR));
    for filter in filters() {
        let want = model(&games, &filter);
        for size in [1, 4, 100] {
            assert_eq!(
                all_pages(&archive, &filter, size).await,
                want,
                "{filter:?} by {size}"
            );
        }
    }
}

async fn pages_past_their_bounds_are_refused(backend: Backend) {
    let (archive, _scratch) = open(backend).await;
    assert_eq!(
        archive.page(&Filter::default(), None, 1001).await,
        Err(ArchiveError::Invalid(
            "a page of 1001 games is more than the 1000 one may hold".to_owned()
        ))
    );
    let nul = Filter {
        player: Some("p\0".to_owned()),
        ..Filter::default()
    };
    assert_eq!(
        archive.page(&nul, None, 10).await,
        Err(ArchiveError::Invalid(
            "the filter's player holds a NUL character, which no text may".to_owned()
        ))
    );
    let anyone_by_creation = Filter {
        order: Order::Created,
        ..Filter::default()
    };
    assert_eq!(
        archive.page(&anyone_by_creation, None, 10).await,
        Err(ArchiveError::Invalid(
            "games are read in the order they were created only for one player: the filter names none"
                .to_owned()
        ))
    );
}
