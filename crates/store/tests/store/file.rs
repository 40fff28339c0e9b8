//! What only the file store has: games outlive the store that wrote them,
//! the file and its folder are made when missing, and a file that is not
//! a store, is damaged or is open elsewhere is a clear error.

use std::fs;

use linkpath_store::{Outcome, StoreError};

use crate::support::{NOW, create, game, kept, keyed, next, open_file};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reopening_keeps_games_keys_and_count() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("not/yet/made/games.redb");
    let store = open_file(&path, 10).unwrap();
    store
        .write(keyed(create("g", "v0"), "k", "created"), NOW)
        .await
        .unwrap();
    store.write(next("g", 0, "v1"), NOW).await.unwrap();
    store.write(create("h", "v0"), NOW).await.unwrap();
    drop(store);

    let store = open_file(&path, 10).unwrap();
    assert_eq!(store.game("g", NOW).await, Ok(Some(game(1, "v1"))));
    assert_eq!(store.game("h", NOW).await, Ok(Some(game(0, "v0"))));
    assert_eq!(store.kept("k", NOW).await, Ok(Some(kept("created"))));
    assert_eq!(store.games().await, Ok(2));
    assert_eq!(
        store.write(next("g", 1, "v2"), NOW).await,
        Ok(Outcome::Written)
    );
}

#[test]
fn a_file_of_other_bytes_is_not_a_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    let bytes: Vec<u8> = (0..65_536u32).map(|i| (i * 7 + i / 251) as u8).collect();
    fs::write(&path, &bytes).unwrap();

    let err = open_file(&path, 10).err().unwrap();
    assert_eq!(
        err,
        StoreError::NotAStore {
            path: path.clone(),
            cause: "it does not start with redb's header".into()
        }
    );
    assert_eq!(
        err.to_string(),
        format!(
            "{} is not a linkpath store (a redb database): it does not start with redb's header",
            path.display()
        )
    );
    // Left as it was.
    assert_eq!(fs::read(&path).unwrap(), bytes);
}

#[test]
fn a_file_open_elsewhere_is_locked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.redb");
    let _first = open_file(&path, 10).unwrap();
    assert_eq!(
        open_file(&path, 10).err(),
        Some(StoreError::Locked { path: path.clone() })
    );
}

#[test]
fn a_folder_is_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let err = open_file(dir.path(), 10).err().unwrap();
    assert!(
        matches!(&err, StoreError::Open { path, .. } if path == dir.path()),
        "{err:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_store_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.redb");
    let store = open_file(&path, 1_000).unwrap();
    for game in 0..300 {
        let write = create(&format!("game {game}"), &"x".repeat(500));
        store.write(write, NOW).await.unwrap();
    }
    drop(store);
    // Damage every page but the header's.
    let mut bytes = fs::read(&path).unwrap();
    for page in (8192..bytes.len() - 4096).step_by(4096) {
        for byte in &mut bytes[page + 100..page + 164] {
            *byte ^= 0x5a;
        }
    }
    fs::write(&path, &bytes).unwrap();

    // redb panics on some of what it reads here: an error all the same.
    let err = open_file(&path, 1_000).err().unwrap();
    assert!(
        matches!(&err, StoreError::Open { path: named, .. } if *named == path),
        "{err:?}"
    );
}
