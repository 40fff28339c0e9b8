//! Players: created, read, renamed and given a new token by
//! compare-and-set, found by their token's hash (the old hash no longer,
//! once replaced), bounded in number, expired and purged, and erased
//! with their entries on every board and the list of their games, which
//! stay. Each player's games are listed newest first, in pages, bounded
//! per player, and the list loses a game whenever the game goes.

use linkpath_store::{
    BoardStart, Expected, GameCursor, MAX_PLAYERS_READ, Outcome, PlayerOutcome, Purged, Store,
    StoreError, StoreLimits,
};

use crate::support::{
    Backend, LATER, NOW, change, create, expiring, join, limits, open, open_with, owned_by, player,
    token, won_by,
};

on_each!(
    a_player_is_created_read_renamed_and_given_a_new_token,
    a_player_write_is_a_compare_and_set,
    a_bad_player_write_is_refused,
    a_token_finds_one_player,
    players_are_bounded,
    a_player_expires_and_is_purged_with_all_it_has,
    an_erased_player_takes_its_entries_and_list_not_its_games,
    a_players_games_are_listed_newest_first_in_pages,
    a_player_owns_a_bounded_number_of_live_games,
    a_game_that_goes_leaves_its_owners_list,
);

const SOON: u64 = NOW + 10;

/// The ids `player`'s games list at `now`, all of them.
async fn games_of(store: &Store, player: &str, now: u64) -> Vec<String> {
    let listed = store.player_games(player, None, usize::MAX, now).await;
    listed.unwrap().into_iter().map(|(_, id)| id).collect()
}

/// The players on `board`, best first.
async fn entrants(store: &Store, board: &str, now: u64) -> Vec<String> {
    let page = store.leaderboard(board, BoardStart::After(None), 10, now);
    let page = page.await.unwrap();
    page.entries.into_iter().map(|entry| entry.player).collect()
}

async fn a_player_is_created_read_renamed_and_given_a_new_token(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    assert_eq!(store.player("p", NOW).await, Ok(None));
    assert_eq!(
        store.write_player(join("p", "Ada", Some(1)), NOW).await,
        Ok(PlayerOutcome::Written)
    );
    assert_eq!(
        store.player("p", NOW).await,
        Ok(Some(player(0, "Ada", Some(1))))
    );
    assert_eq!(
        store.player_by_token(&token(1), NOW).await,
        Ok(Some(("p".into(), player(0, "Ada", Some(1)))))
    );
    assert_eq!(store.player_count().await, Ok(1));

    // Renamed: the same token finds the new version.
    let renamed = change("p", 0, "Grace", Some(1));
    assert_eq!(
        store.write_player(renamed, NOW).await,
        Ok(PlayerOutcome::Written)
    );
    assert_eq!(
        store.player_by_token(&token(1), NOW).await,
        Ok(Some(("p".into(), player(1, "Grace", Some(1)))))
    );
    // A new token: the old hash finds nobody, the new one the player.
    let rotated = change("p", 1, "Grace", Some(2));
    assert_eq!(
        store.write_player(rotated, NOW).await,
        Ok(PlayerOutcome::Written)
    );
    assert_eq!(store.player_by_token(&token(1), NOW).await, Ok(None));
    assert_eq!(
        store.player_by_token(&token(2), NOW).await,
        Ok(Some(("p".into(), player(2, "Grace", Some(2)))))
    );
    // No token (a JWT's player): no hash finds it.
    let signed_in = change("p", 2, "Grace", None);
    assert_eq!(
        store.write_player(signed_in, NOW).await,
        Ok(PlayerOutcome::Written)
    );
    assert_eq!(store.player_by_token(&token(2), NOW).await, Ok(None));
    assert_eq!(
        store.player("p", NOW).await,
        Ok(Some(player(3, "Grace", None)))
    );

    store
        .write_player(join("q", "Alan", Some(3)), NOW)
        .await
        .unwrap();
    let ids = ["q", "nobody", "p", "q"].map(String::from);
    assert_eq!(
        store.players(&ids, NOW).await,
        Ok(vec![
            Some(player(0, "Alan", Some(3))),
            None,
            Some(player(3, "Grace", None)),
            Some(player(0, "Alan", Some(3))),
        ])
    );
    assert_eq!(store.players(&[], NOW).await, Ok(vec![]));
    assert_eq!(store.player_count().await, Ok(2));
}

async fn a_player_write_is_a_compare_and_set(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    store
        .write_player(join("p", "Ada", Some(1)), NOW)
        .await
        .unwrap();
    let stale = Ok(PlayerOutcome::Stale { current: Some(0) });
    assert_eq!(store.write_player(join("p", "Eve", None), NOW).await, stale);
    assert_eq!(
        store
            .write_player(change("p", 4, "Eve", Some(5)), NOW)
            .await,
        stale
    );
    assert_eq!(store.erase_player("p", 3, NOW).await, stale);
    let absent = Ok(PlayerOutcome::Stale { current: None });
    assert_eq!(
        store.write_player(change("q", 0, "Eve", None), NOW).await,
        absent
    );
    assert_eq!(store.erase_player("q", 0, NOW).await, absent);
    // Nothing changed: not the player, not its token.
    assert_eq!(
        store.player_by_token(&token(1), NOW).await,
        Ok(Some(("p".into(), player(0, "Ada", Some(1)))))
    );
    assert_eq!(store.player_by_token(&token(5), NOW).await, Ok(None));
}

async fn a_bad_player_write_is_refused(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    let mut short = join("p", "Ada", None);
    short.player.token = Some(vec![7; 31]);
    assert!(matches!(
        store.write_player(short, NOW).await,
        Err(StoreError::InvalidWrite(_))
    ));
    let mut skipped = change("p", 0, "Ada", None);
    skipped.player.version = 5;
    assert!(matches!(
        store.write_player(skipped, NOW).await,
        Err(StoreError::InvalidWrite(_))
    ));
    let mut last = change("p", 0, "Ada", None);
    last.expected = Expected::Version(u64::MAX);
    assert!(matches!(
        store.write_player(last, NOW).await,
        Err(StoreError::InvalidWrite(_))
    ));
    let many = vec![String::from("p"); MAX_PLAYERS_READ + 1];
    assert!(matches!(
        store.players(&many, NOW).await,
        Err(StoreError::InvalidRead(_))
    ));
    assert_eq!(store.player_count().await, Ok(0));
}

async fn a_token_finds_one_player(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    let p = expiring_player(join("p", "Ada", Some(1)), SOON);
    store.write_player(p, NOW).await.unwrap();
    assert_eq!(
        store.write_player(join("q", "Eve", Some(1)), NOW).await,
        Ok(PlayerOutcome::TokenTaken)
    );
    store
        .write_player(join("q", "Eve", Some(2)), NOW)
        .await
        .unwrap();
    assert_eq!(
        store
            .write_player(change("q", 0, "Eve", Some(1)), NOW)
            .await,
        Ok(PlayerOutcome::TokenTaken)
    );
    assert_eq!(
        store.player("q", NOW).await,
        Ok(Some(player(0, "Eve", Some(2))))
    );
    assert_eq!(
        store
            .player_by_token(&token(1), NOW)
            .await
            .unwrap()
            .map(|(id, _)| id),
        Some("p".into())
    );
    // Once `p` expired, its hash is free: the expired player is erased,
    // as a purge would.
    assert_eq!(store.player_by_token(&token(1), SOON).await, Ok(None));
    assert_eq!(
        store
            .write_player(change("q", 0, "Eve", Some(1)), SOON)
            .await,
        Ok(PlayerOutcome::Written)
    );
    assert_eq!(store.player_count().await, Ok(1));
    assert_eq!(
        store.player_by_token(&token(1), SOON).await,
        Ok(Some(("q".into(), player(1, "Eve", Some(1)))))
    );
    assert_eq!(store.player_by_token(&token(2), SOON).await, Ok(None));
}

fn expiring_player(
    mut write: linkpath_store::PlayerWrite,
    expires_at_ms: u64,
) -> linkpath_store::PlayerWrite {
    write.player.expires_at_ms = expires_at_ms;
    write
}

async fn players_are_bounded(backend: Backend) {
    let (store, _dir) = open_with(
        backend,
        StoreLimits {
            max_players: 2,
            ..limits(10)
        },
    );
    let a = expiring_player(join("a", "A", Some(1)), SOON);
    store.write_player(a, NOW).await.unwrap();
    store.write_player(join("b", "B", None), NOW).await.unwrap();
    assert_eq!(
        store.write_player(join("c", "C", None), NOW).await,
        Ok(PlayerOutcome::Full)
    );
    assert_eq!(store.player("c", NOW).await, Ok(None));
    // A full store takes an expired player's place, its hash with it.
    assert_eq!(
        store.write_player(join("c", "C", None), SOON).await,
        Ok(PlayerOutcome::Written)
    );
    assert_eq!(store.player_count().await, Ok(2));
    assert_eq!(store.player_by_token(&token(1), NOW).await, Ok(None));
    // The stale check comes first.
    assert_eq!(
        store.write_player(join("b", "B", None), SOON).await,
        Ok(PlayerOutcome::Stale { current: Some(0) })
    );
}

/// A store in which `p` has token 1, entries on the boards `one` (beside
/// `q`) and `two`, and the games `a` and `b`, expiring `p_expires`.
async fn player_with_all(backend: Backend, p_expires: u64) -> (Store, crate::support::Scratch) {
    let (store, dir) = open(backend, 10);
    let p = expiring_player(join("p", "Ada", Some(1)), p_expires);
    store.write_player(p, NOW).await.unwrap();
    for write in [
        won_by(owned_by(create("a", "won"), "p"), "p", "one", "1a", LATER),
        won_by(owned_by(create("b", "won"), "p"), "p", "two", "1b", LATER),
        won_by(create("c", "won"), "q", "one", "2c", LATER),
    ] {
        assert_eq!(store.write(write, NOW).await, Ok(Outcome::Written));
    }
    assert_eq!(games_of(&store, "p", NOW).await, ["b", "a"]);
    assert_eq!(entrants(&store, "one", NOW).await, ["p", "q"]);
    (store, dir)
}

async fn an_erased_player_takes_its_entries_and_list_not_its_games(backend: Backend) {
    let (store, _dir) = player_with_all(backend, LATER).await;
    assert_eq!(
        store.erase_player("p", 0, NOW).await,
        Ok(PlayerOutcome::Written)
    );
    assert_eq!(store.player("p", NOW).await, Ok(None));
    assert_eq!(store.player_by_token(&token(1), NOW).await, Ok(None));
    assert_eq!(store.player_count().await, Ok(0));
    assert_eq!(entrants(&store, "one", NOW).await, ["q"]);
    assert_eq!(entrants(&store, "two", NOW).await, Vec::<String>::new());
    assert_eq!(games_of(&store, "p", NOW).await, Vec::<String>::new());
    for id in ["a", "b", "c"] {
        assert!(store.game(id, NOW).await.unwrap().is_some(), "{id}");
    }
    // A player made again under the id starts with nothing.
    store
        .write_player(join("p", "Ada", Some(1)), NOW)
        .await
        .unwrap();
    assert_eq!(games_of(&store, "p", NOW).await, Vec::<String>::new());
    let again = won_by(create("d", "won"), "p", "one", "3d", LATER);
    store.write(again, NOW).await.unwrap();
    assert_eq!(entrants(&store, "one", NOW).await, ["q", "p"]);
}

async fn a_player_expires_and_is_purged_with_all_it_has(backend: Backend) {
    let (store, _dir) = player_with_all(backend, SOON).await;
    assert!(store.player("p", SOON - 1).await.unwrap().is_some());
    assert_eq!(store.player("p", SOON).await, Ok(None));
    assert_eq!(store.player_by_token(&token(1), SOON).await, Ok(None));
    assert_eq!(store.players(&["p".into()], SOON).await, Ok(vec![None]));
    assert_eq!(
        store.erase_player("p", 0, SOON).await,
        Ok(PlayerOutcome::Stale { current: None })
    );
    // Stored until purged, and counted.
    assert_eq!(store.player_count().await, Ok(1));
    assert_eq!(
        store.purge(SOON, 10).await,
        Ok(Purged {
            games: 0,
            held: 0,
            keys: 0,
            boards: 0,
            players: 1,
            matches: 0,
        })
    );
    assert_eq!(store.player_count().await, Ok(0));
    assert_eq!(entrants(&store, "one", SOON).await, ["q"]);
    assert_eq!(games_of(&store, "p", SOON).await, Vec::<String>::new());
    assert!(store.game("a", SOON).await.unwrap().is_some());
    assert_eq!(
        store
            .purge_expired(LATER)
            .await
            .map(|purged| purged.players),
        Ok(0)
    );
}

async fn a_players_games_are_listed_newest_first_in_pages(backend: Backend) {
    let (store, _dir) = open(backend, 10);
    let owned = |id: &str| owned_by(create(id, "v0"), "p");
    store.write(owned("g1"), NOW).await.unwrap();
    store.write(owned("g3"), NOW + 1).await.unwrap();
    store.write(owned("g2"), NOW + 1).await.unwrap();
    store.write(create("g4", "v0"), NOW + 2).await.unwrap();
    let short = expiring(owned("g5"), SOON);
    store.write(short, NOW + 2).await.unwrap();
    // The owner is read on a create only.
    let mut moved = crate::support::next("g4", 0, "v1");
    moved.owner = Some("p".into());
    store.write(moved, NOW + 3).await.unwrap();

    let cursor = |created_ms, id: &str| GameCursor {
        created_ms,
        id: id.into(),
    };
    let all = store.player_games("p", None, 10, NOW + 3).await;
    assert_eq!(
        all,
        Ok(vec![
            (cursor(NOW + 2, "g5"), "g5".into()),
            (cursor(NOW + 1, "g3"), "g3".into()),
            (cursor(NOW + 1, "g2"), "g2".into()),
            (cursor(NOW, "g1"), "g1".into()),
        ])
    );
    // Expired: no longer listed.
    assert_eq!(games_of(&store, "p", SOON).await, ["g3", "g2", "g1"]);
    let first = store.player_games("p", None, 2, SOON).await.unwrap();
    assert_eq!(
        first,
        [
            (cursor(NOW + 1, "g3"), "g3".into()),
            (cursor(NOW + 1, "g2"), "g2".into())
        ]
    );
    let rest = store.player_games("p", Some(&first[1].0), 2, SOON).await;
    assert_eq!(rest, Ok(vec![(cursor(NOW, "g1"), "g1".into())]));
    let between = store
        .player_games("p", Some(&cursor(NOW + 1, "g25")), 10, SOON)
        .await;
    assert_eq!(
        between
            .unwrap()
            .into_iter()
            .map(|(_, id)| id)
            .collect::<Vec<_>>(),
        ["g2", "g1"]
    );
    let last = cursor(NOW, "g1");
    let after_last = store.player_games("p", Some(&last), 10, SOON).await;
    assert_eq!(after_last, Ok(vec![]));
    assert_eq!(store.player_games("p", None, 0, SOON).await, Ok(vec![]));
    assert_eq!(store.player_games("q", None, 10, SOON).await, Ok(vec![]));
}

async fn a_player_owns_a_bounded_number_of_live_games(backend: Backend) {
    let (store, _dir) = open_with(
        backend,
        StoreLimits {
            max_games_per_player: 2,
            max_matches: 10,
            ..limits(10)
        },
    );
    let owned = |id: &str| owned_by(create(id, "v0"), "p");
    store.write(expiring(owned("a"), SOON), NOW).await.unwrap();
    store.write(owned("b"), NOW).await.unwrap();
    assert_eq!(store.write(owned("c"), NOW).await, Ok(Outcome::PlayerFull));
    assert_eq!(store.game("c", NOW).await, Ok(None));
    assert_eq!(store.games().await, Ok(2));
    // The version comes first.
    assert_eq!(
        store.write(owned("b"), NOW).await,
        Ok(Outcome::Stale { current: Some(0) })
    );
    // Another owner, or none, is not bounded by `p`'s games.
    assert_eq!(
        store.write(owned_by(create("d", "v0"), "q"), NOW).await,
        Ok(Outcome::Written)
    );
    assert_eq!(
        store.write(create("e", "v0"), NOW).await,
        Ok(Outcome::Written)
    );
    // An expired game does not count.
    assert_eq!(store.write(owned("c"), SOON).await, Ok(Outcome::Written));
    assert_eq!(games_of(&store, "p", SOON).await, ["c", "b"]);
}

// A list that kept a game gone would list the game again once its id was
// created anew, another player's: these show it does not.
async fn a_game_that_goes_leaves_its_owners_list(backend: Backend) {
    let (store, _dir) = open(backend, 2);
    let mine = |id: &str, owner: &str| owned_by(create(id, "v0"), owner);
    // Purged.
    store
        .write(expiring(mine("g", "p"), SOON), NOW)
        .await
        .unwrap();
    assert_eq!(
        store.purge(SOON, 10).await.map(|purged| purged.games),
        Ok(1)
    );
    store
        .write(expiring(mine("g", "q"), LATER), SOON)
        .await
        .unwrap();
    assert_eq!(games_of(&store, "p", SOON).await, Vec::<String>::new());
    assert_eq!(games_of(&store, "q", SOON).await, ["g"]);

    // Replaced by a create of its id.
    let t1 = SOON + 10;
    store
        .write(expiring(mine("h", "p"), t1), SOON)
        .await
        .unwrap();
    store
        .write(expiring(mine("h", "q"), LATER), t1)
        .await
        .unwrap();
    assert_eq!(games_of(&store, "p", t1).await, Vec::<String>::new());
    assert_eq!(games_of(&store, "q", t1).await, ["h", "g"]);

    // Deleted to make room for another game (the store holds 2).
    let t2 = t1 + 10;
    let t3 = t2 + 10;
    let (store, _dir) = open(backend, 2);
    store
        .write(expiring(mine("g", "p"), t1), NOW)
        .await
        .unwrap();
    store.write(create("x", "v0"), NOW).await.unwrap();
    store
        .write(expiring(create("h", "v0"), t2), t1)
        .await
        .unwrap();
    store.write(mine("g", "q"), t2).await.unwrap();
    assert_eq!(store.game("h", t2).await, Ok(None));
    assert_eq!(games_of(&store, "p", t3).await, Vec::<String>::new());
    assert_eq!(games_of(&store, "q", t3).await, ["g"]);
}
