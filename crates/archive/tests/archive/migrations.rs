//! Each schema's way up. PostgreSQL: from an empty database, and from a
//! database at migration 0001 with games in it (made by sqlx's migrator
//! from the same folder, stopped at 1), both to the latest; a database
//! migrated further than this build knows is refused. The file: from a
//! new file, and from version 1, 2 and 3 files with games (written here
//! table by table, as those versions laid them out); a newer version, a
//! game store and a file that is not redb's are refused, as is a file
//! open elsewhere.

use std::path::Path;

use linkpath_archive::{Archive, ArchiveError, ArchiveSpec, ArchivedGame, Filter, Order};
use redb::TableDefinition;
use sqlx::Connection;

use crate::support::{Backend, Scratch, T0, all_pages, game, ids, limits, open, played_by};

/// The migrations as sqlx's folder source reads them.
async fn folder() -> sqlx::migrate::Migrator {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    sqlx::migrate::Migrator::new(folder).await.unwrap()
}

async fn applied(url: &str) -> Vec<(i64, bool)> {
    let mut connection = sqlx::PgConnection::connect(url).await.unwrap();
    let applied = sqlx::query_as("SELECT version, success FROM _sqlx_migrations ORDER BY version")
        .fetch_all(&mut connection)
        .await
        .unwrap();
    connection.close().await.unwrap();
    applied
}

#[tokio::test]
#[ignore = "needs a PostgreSQL: LINKPATH_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres cargo test -- --ignored"]
async fn postgres_from_an_empty_database() {
    let (archive, scratch) = open(Backend::Postgres).await;
    let url = scratch.database.as_ref().unwrap().url().to_owned();
    assert_eq!(
        applied(&url).await,
        [(1, true), (2, true), (3, true), (4, true)]
    );
    archive.insert(&[game("g1", T0)]).await.unwrap();
    drop(archive);
    // Opening again applies nothing and finds the game.
    let again = Archive::open(&scratch.spec(Backend::Postgres), limits())
        .await
        .unwrap();
    assert_eq!(
        applied(&url).await,
        [(1, true), (2, true), (3, true), (4, true)]
    );
    assert_eq!(again.game("g1").await, Ok(Some(game("g1", T0))));
}

#[tokio::test]
#[ignore = "needs a PostgreSQL: LINKPATH_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres cargo test -- --ignored"]
async fn postgres_from_the_previous_schema() {
    let scratch = Scratch::new(Backend::Postgres).await;
    let url = scratch.database.as_ref().unwrap().url().to_owned();
    let mut connection = sqlx::PgConnection::connect(&url).await.unwrap();
    folder().await.run_to(1, &mut connection).await.unwrap();
    // Two games as a linkpath at schema 0001 archived them.
    for (id, player, name, finished_ms) in
        [("old1", "p1", "Ada", T0), ("old2", "p2", "Bob", T0 + 1)]
    {
        sqlx::query(
            "INSERT INTO archived_games (id, player, player_name, leaderboard, match_id, status, \
             rated, created_ms, finished_ms, body) \
             VALUES ($1, $2, $3, 'daily', NULL, 'won', true, $4, $5, $6)",
        )
        .bind(id)
        .bind(player)
        .bind(name)
        .bind(finished_ms as i64 - 60_000)
        .bind(finished_ms as i64)
        .bind(format!("{{\"id\":\"{id}\",\"actions\":[]}}").into_bytes())
        .execute(&mut connection)
        .await
        .unwrap();
    }
    connection.close().await.unwrap();
    assert_eq!(applied(&url).await, [(1, true)]);

    let archive = Archive::open(&scratch.spec(Backend::Postgres), limits())
        .await
        .unwrap();
    assert_eq!(
        applied(&url).await,
        [(1, true), (2, true), (3, true), (4, true)]
    );
    let old1 = ArchivedGame {
        leaderboard: Some("daily".to_owned()),
        rated: true,
        ..played_by(game("old1", T0), "p1", "Ada")
    };
    assert_eq!(archive.game("old1").await, Ok(Some(old1)));
    let daily = Filter {
        leaderboard: Some("daily".to_owned()),
        ..Filter::default()
    };
    assert_eq!(
        ids(&all_pages(&archive, &daily, 10).await),
        ["old2", "old1"]
    );
    // What 0002, 0003 and 0004 brought works on the games from before
    // them: a player's games in the order they were created, the players
    // whose names are kept.
    assert_eq!(
        ids(&all_pages(&archive, &created_by("p2"), 10).await),
        ["old2"]
    );
    assert_eq!(
        archive.named_players(None, 10).await,
        Ok(vec!["p1".to_owned(), "p2".to_owned()])
    );
    assert_eq!(archive.erase_player("p1").await, Ok(1));
    assert_eq!(
        archive.named_players(None, 10).await,
        Ok(vec!["p2".to_owned()])
    );
    archive
        .insert(&[played_by(game("new1", T0 + 2), "p1", "Ada")])
        .await
        .unwrap();
    assert_eq!(
        archive.game("new1").await.unwrap().unwrap().player_name,
        None
    );
}

#[tokio::test]
#[ignore = "needs a PostgreSQL: LINKPATH_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres cargo test -- --ignored"]
async fn postgres_migrated_past_this_build_is_refused() {
    let (archive, scratch) = open(Backend::Postgres).await;
    drop(archive);
    let url = scratch.database.as_ref().unwrap().url().to_owned();
    let mut connection = sqlx::PgConnection::connect(&url).await.unwrap();
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (5, 'from a later linkpath', true, '\\x00', 0)",
    )
    .execute(&mut connection)
    .await
    .unwrap();
    connection.close().await.unwrap();
    assert_eq!(
        Archive::open(&scratch.spec(Backend::Postgres), limits())
            .await
            .err(),
        Some(ArchiveError::NewerSchema { found: 5, known: 4 })
    );
}

// The file's tables as versions 1 to 3 laid them out (see
// src/file/schema.rs).
const META: TableDefinition<&str, u64> = TableDefinition::new("archive_meta");
const GAMES: TableDefinition<&str, &[u8]> = TableDefinition::new("games");
const BODIES: TableDefinition<&str, &[u8]> = TableDefinition::new("bodies");
const BY_TIME: TableDefinition<(u64, &str), ()> = TableDefinition::new("by_time");
const BY_PLAYER: TableDefinition<(&str, u64, &str), ()> = TableDefinition::new("by_player");
const BY_MATCH: TableDefinition<(&str, u64, &str), ()> = TableDefinition::new("by_match");
const BY_LEADERBOARD: TableDefinition<(&str, u64, &str), ()> =
    TableDefinition::new("by_leaderboard");
const ERASED: TableDefinition<&str, ()> = TableDefinition::new("erased_players");
const BY_PLAYER_CREATED: TableDefinition<(&str, u64, &str), ()> =
    TableDefinition::new("by_player_created");

/// A row as src/file/row.rs lays it out: flags (bit 0 rated, here not;
/// bits 1 and 2: the player and the name follow), the two times, the
/// status, the texts.
fn v1_row(player: &str, name: &str, created_ms: u64, finished_ms: u64) -> Vec<u8> {
    let mut row = vec![0b0110];
    row.extend_from_slice(&created_ms.to_le_bytes());
    row.extend_from_slice(&finished_ms.to_le_bytes());
    for text in ["won", player, name] {
        row.extend_from_slice(&(text.len() as u16).to_le_bytes());
        row.extend_from_slice(text.as_bytes());
    }
    row
}

fn write_file(path: &Path, version: u64, games: &[(&str, &str, &str, u64)]) {
    let db = redb::Database::create(path).unwrap();
    let txn = db.begin_write().unwrap();
    {
        txn.open_table(META)
            .unwrap()
            .insert("schema", version)
            .unwrap();
        let mut rows = txn.open_table(GAMES).unwrap();
        let mut bodies = txn.open_table(BODIES).unwrap();
        let mut by_time = txn.open_table(BY_TIME).unwrap();
        let mut by_player = txn.open_table(BY_PLAYER).unwrap();
        txn.open_table(BY_MATCH).unwrap();
        txn.open_table(BY_LEADERBOARD).unwrap();
        if version >= 2 {
            txn.open_table(ERASED).unwrap();
        }
        let mut by_player_created =
            (version >= 3).then(|| txn.open_table(BY_PLAYER_CREATED).unwrap());
        for &(id, player, name, finished_ms) in games {
            let row = v1_row(player, name, finished_ms - 60_000, finished_ms);
            if let Some(index) = &mut by_player_created {
                index
                    .insert((player, finished_ms - 60_000, id), ())
                    .unwrap();
            }
            rows.insert(id, row.as_slice()).unwrap();
            let body = format!("{{\"id\":\"{id}\",\"actions\":[]}}");
            bodies.insert(id, body.as_bytes()).unwrap();
            by_time.insert((finished_ms, id), ()).unwrap();
            by_player.insert((player, finished_ms, id), ()).unwrap();
        }
    }
    txn.commit().unwrap();
}

#[tokio::test]
async fn a_file_from_each_previous_schema() {
    for version in [1, 2, 3] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("archive.redb");
        write_file(
            &path,
            version,
            &[
                ("old1", "p1", "Ada", T0),
                ("old2", "p1", "Ada", T0 + 1),
                ("old3", "p2", "Bob", T0 + 2),
            ],
        );

        let archive = Archive::open(&ArchiveSpec::File(path.clone()), limits())
            .await
            .unwrap();
        let old1 = played_by(game("old1", T0), "p1", "Ada");
        assert_eq!(archive.game("old1").await, Ok(Some(old1)));
        let p1 = Filter {
            player: Some("p1".to_owned()),
            ..Filter::default()
        };
        assert_eq!(ids(&all_pages(&archive, &p1, 1).await), ["old2", "old1"]);
        // What version 3 brought works on the games from before it: a
        // player's games in the order they were created.
        assert_eq!(
            ids(&all_pages(&archive, &created_by("p1"), 1).await),
            ["old2", "old1"]
        );
        // What versions 2 and 4 brought too: the players whose names are
        // kept, and erasure.
        assert_eq!(
            archive.named_players(None, 10).await,
            Ok(vec!["p1".to_owned(), "p2".to_owned()])
        );
        assert_eq!(archive.erase_player("p1").await, Ok(2));
        assert_eq!(
            archive.named_players(None, 10).await,
            Ok(vec!["p2".to_owned()])
        );
        archive
            .insert(&[played_by(game("new1", T0 + 3), "p1", "Ada")])
            .await
            .unwrap();
        assert_eq!(
            archive.game("new1").await.unwrap().unwrap().player_name,
            None
        );
        drop(archive);

        let db = redb::Database::open(&path).unwrap();
        let txn = db.begin_read().unwrap();
        let meta = txn.open_table(META).unwrap();
        assert_eq!(meta.get("schema").unwrap().map(|v| v.value()), Some(4));
    }
}

/// A player's games, in the order they were created.
fn created_by(player: &str) -> Filter {
    Filter {
        player: Some(player.to_owned()),
        order: Order::Created,
        ..Filter::default()
    }
}

#[tokio::test]
async fn a_file_keeps_its_games_when_opened_again() {
    let dir = tempfile::tempdir().unwrap();
    let spec = ArchiveSpec::File(dir.path().join("nested/folder/archive.redb"));
    let archive = Archive::open(&spec, limits()).await.unwrap();
    let kept = played_by(game("g1", T0), "p1", "Ada");
    archive.insert(std::slice::from_ref(&kept)).await.unwrap();
    assert_eq!(
        Archive::open(&spec, limits()).await.err(),
        Some(ArchiveError::Locked {
            path: dir.path().join("nested/folder/archive.redb")
        })
    );
    drop(archive);
    let again = Archive::open(&spec, limits()).await.unwrap();
    assert_eq!(again.game("g1").await, Ok(Some(kept)));
    assert_eq!(again.count().await, Ok(1));
}

#[tokio::test]
async fn files_that_are_no_archive_of_this_build_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let newer = dir.path().join("newer.redb");
    write_file(&newer, 5, &[]);
    assert_eq!(
        Archive::open(&ArchiveSpec::File(newer), limits())
            .await
            .err(),
        Some(ArchiveError::NewerSchema { found: 5, known: 4 })
    );

    // A redb file with tables of its own: a game store, say.
    let store = dir.path().join("games.redb");
    {
        let db = redb::Database::create(&store).unwrap();
        let txn = db.begin_write().unwrap();
        txn.open_table(GAMES)
            .unwrap()
            .insert("g1", b"{}".as_slice())
            .unwrap();
        txn.open_table(BY_TIME).unwrap();
        txn.commit().unwrap();
    }
    assert_eq!(
        Archive::open(&ArchiveSpec::File(store.clone()), limits())
            .await
            .err(),
        Some(ArchiveError::NotAnArchive {
            path: store,
            cause: "it holds tables (by_time, games) but no archive_meta: a game store, or \
                    another redb file"
                .to_owned()
        })
    );

    let text = dir.path().join("notes.txt");
    std::fs::write(
        &text,
        "not a database, but long enough to be read as a header ".repeat(100),
    )
    .unwrap();
    assert_eq!(
        Archive::open(&ArchiveSpec::File(text.clone()), limits())
            .await
            .err(),
        Some(ArchiveError::NotAnArchive {
            path: text,
            cause: "it does not start with redb's header".to_owned()
        })
    );
}
