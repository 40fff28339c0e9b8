//! A PostgreSQL for the cases that need one: the server
//! `LINKPATH_TEST_POSTGRES_URL` names (a URL whose database the cases
//! connect to, to make their own: `postgres://postgres@127.0.0.1:5432/postgres`).
//! Such cases are `#[ignore]`d, so that `cargo test` reports them as
//! left out rather than passed, and `cargo test -- --ignored` runs them.
//! The server may be shared: each case makes a database of its own, with
//! a name no other case, run or process uses, and drops it when done; it
//! never touches another database.

use std::time::Duration;

use sqlx::Connection;

/// The variable that names the test PostgreSQL.
pub const TEST_POSTGRES_URL: &str = "LINKPATH_TEST_POSTGRES_URL";

/// How long making or dropping a database may take.
const ADMIN_TIMEOUT: Duration = Duration::from_secs(30);

/// The test PostgreSQL's URL. A case that needs one runs only when asked
/// (`--ignored`): without one, it fails and says how to name one.
pub fn test_postgres_url() -> String {
    std::env::var(TEST_POSTGRES_URL)
        .ok()
        .filter(|url| !url.is_empty())
        .unwrap_or_else(|| {
            panic!(
                "this case needs a PostgreSQL: \
                 {TEST_POSTGRES_URL}=postgres://postgres@127.0.0.1:5432/postgres \
                 cargo test -- --ignored"
            )
        })
}

/// A database of the test PostgreSQL that this case made, dropped (with
/// whatever connections are still open to it) when it drops.
pub struct PostgresDatabase {
    server: String,
    name: String,
    url: String,
}

impl PostgresDatabase {
    /// Makes a new database, `linkpath_test_NAME_…`, on the test
    /// PostgreSQL.
    pub async fn fresh(name: &str) -> PostgresDatabase {
        use std::sync::atomic::{AtomicU64, Ordering};
        static DATABASES: AtomicU64 = AtomicU64::new(0);
        let count = DATABASES.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .subsec_nanos();
        let short: String = name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .take(16)
            .collect::<String>()
            .to_ascii_lowercase();
        // 14 + 16 + 3 + 7 (a pid) + 9 + the count's digits: within the
        // 63 bytes of PostgreSQL's names.
        let name = format!(
            "linkpath_test_{short}_{}_{nanos}_{count}",
            std::process::id()
        );
        let server = test_postgres_url();
        let mut url = url::Url::parse(&server)
            .unwrap_or_else(|err| panic!("{TEST_POSTGRES_URL} is no URL: {err}"));
        url.set_path(&format!("/{name}"));
        let database = PostgresDatabase {
            server,
            name,
            url: url.into(),
        };
        admin(
            &database.server,
            format!("CREATE DATABASE \"{}\"", database.name),
        )
        .await
        .unwrap_or_else(|err| panic!("cannot make the test database: {err}"));
        database
    }

    /// The database's URL, for the archive's setting.
    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Runs `statement` on the server's own database (the one the variable's
/// URL names).
async fn admin(server: &str, statement: String) -> Result<(), String> {
    let work = async {
        let mut connection = sqlx::PgConnection::connect(server)
            .await
            .map_err(|err| err.to_string())?;
        sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
            .execute(&mut connection)
            .await
            .map_err(|err| err.to_string())?;
        let _ = connection.close().await;
        Ok(())
    };
    tokio::time::timeout(ADMIN_TIMEOUT, work)
        .await
        .unwrap_or_else(|_| Err(format!("no answer within {ADMIN_TIMEOUT:?}")))
}

impl Drop for PostgresDatabase {
    /// Drops the database, on a thread and runtime of its own (a drop
    /// cannot wait on the case's runtime), as far as the server answers
    /// within the timeout.
    fn drop(&mut self) {
        let server = self.server.clone();
        let statement = format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.name);
        let dropping = std::thread::spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            let _ = runtime.block_on(admin(&server, statement));
        });
        let _ = dropping.join();
    }
}
