//! What only the file store has: games outlive the store that wrote them,
//! the file and its folder are made when missing, and a file that is not
//! a store, is damaged or is open elsewhere is a clear error. A byte
//! flipped at chosen offsets of a file closed cleanly is named for what
//! it damaged, with the file left as it was; a page damaged under an open
//! store makes it unavailable, not a crash, until the file is whole again.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

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

    let err = open_file(&path, 1_000).err().unwrap();
    assert!(
        matches!(&err, StoreError::Damaged { path: named, .. } if *named == path),
        "{err:?}"
    );
}

/// The body of `g2`'s last version, the last write of [`closed_store`].
const LAST: &str = "the last version of g2";

/// Makes a store file at `path` with games `g0` to `g4`, the last write
/// `g2`'s version 1 ([`LAST`]), closes it, and answers its bytes.
async fn closed_store(path: &Path) -> Vec<u8> {
    let store = open_file(path, 10).unwrap();
    for n in 0..5 {
        let write = create(&format!("g{n}"), &format!("g{n} as dealt"));
        store.write(write, NOW).await.unwrap();
    }
    store.write(next("g2", 0, LAST), NOW).await.unwrap();
    drop(store);
    fs::read(path).unwrap()
}

/// `bytes` with the byte at `offset` flipped (every bit).
fn flipped(bytes: &[u8], offset: usize) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    bytes[offset] ^= 0xFF;
    bytes
}

/// Where `LAST` is in `bytes`: in the one page of games the last commit
/// wrote.
fn last_record(bytes: &[u8]) -> usize {
    let found: Vec<usize> = bytes
        .windows(LAST.len())
        .enumerate()
        .filter(|(_, window)| *window == LAST.as_bytes())
        .map(|(at, _)| at)
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found[0]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flipped_byte_is_named_for_what_it_damaged_and_the_file_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.redb");
    let bytes = closed_store(&path).await;
    // The commit slot the header's god byte names as the last one.
    let last_commit = 64 + 128 * usize::from(bytes[9] & 1);
    let layout = "its header's page size or region layout is not one redb writes";
    for (offset, cause) in [
        // The page size: redb asserts on it.
        (12, layout),
        // The high byte of a region's most data pages: redb took regions
        // for huge, and ran for minutes.
        (23, layout),
        // The page number of the last commit's root: its slot's checksum
        // fails, in a commit redb wrote whole.
        (
            last_commit + 8,
            "its last commit fails its checksums, and that commit was written whole",
        ),
        // A byte of the last game record: redb read it as it was,
        // serving the flipped byte. Its page's checksum fails, in both
        // commits the header holds (redb's message).
        (
            last_record(&bytes),
            "Failed to repair database. All roots are corrupted",
        ),
    ] {
        let damaged = flipped(&bytes, offset);
        fs::write(&path, &damaged).unwrap();
        let err = open_file(&path, 10).err();
        let expected = StoreError::Damaged {
            path: path.clone(),
            cause: cause.into(),
        };
        assert_eq!(err, Some(expected), "offset {offset}");
        assert_eq!(fs::read(&path).unwrap(), damaged, "offset {offset}");
    }
    assert_eq!(
        open_file(&path, 10).err().unwrap().to_string(),
        format!(
            "the store file {} is damaged (Failed to repair database. All roots are \
             corrupted): restore it from a backup, or move it aside to start with an empty \
             store",
            path.display()
        )
    );

    // The last byte, in a page nothing uses: every game reads as written.
    fs::write(&path, flipped(&bytes, bytes.len() - 1)).unwrap();
    let store = open_file(&path, 10).unwrap();
    assert_eq!(store.game("g2", NOW).await, Ok(Some(game(1, LAST))));
    assert_eq!(
        store.game("g4", NOW).await,
        Ok(Some(game(0, "g4 as dealt")))
    );
    assert_eq!(store.games().await, Ok(5));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_damaged_under_an_open_store_is_unavailable_until_the_file_is_whole_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.redb");
    let bytes = closed_store(&path).await;
    let store = open_file(&path, 10).unwrap();
    assert!(store.available().await);
    // The type of the page of games, on disk under the open store: redb
    // reads it as neither a leaf nor a branch, and panics.
    let page = last_record(&bytes) / 4096 * 4096;
    fs::write(&path, flipped(&bytes, page)).unwrap();

    // In the writer thread, which goes on.
    let written = store.write(next("g2", 1, "again"), NOW).await;
    assert_eq!(
        written,
        Err(StoreError::Unavailable(
            "redb stopped with a panic (internal error: entered unreachable code); its file is \
             checked and opened again"
                .into()
        ))
    );
    // Opened again at the next call, the file fails its check: each call
    // says why until it passes.
    let damaged = StoreError::Unavailable(format!(
        "the store failed, and opening its file again failed: the store file {} is damaged \
         (Failed to repair database. All roots are corrupted): restore it from a backup, or \
         move it aside to start with an empty store",
        path.display()
    ));
    assert_eq!(store.game("g0", NOW).await, Err(damaged.clone()));
    assert_eq!(store.write(next("g2", 1, "again"), NOW).await, Err(damaged));
    assert!(!store.available().await);
    assert_eq!(store.reopens(), 0);

    // Whole again (as a crash left it: the cut off database wrote
    // nothing), it is opened again by itself, once a second has passed.
    fs::write(&path, &bytes).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !store.available().await {
        assert!(Instant::now() < deadline, "the store did not come back");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(store.reopens(), 1);
    assert_eq!(
        store.write(next("g2", 1, "again"), NOW).await,
        Ok(Outcome::Written)
    );
    assert_eq!(store.game("g2", NOW).await, Ok(Some(game(2, "again"))));
    assert_eq!(
        store.game("g0", NOW).await,
        Ok(Some(game(0, "g0 as dealt")))
    );
}
