//! A Redis for the cases that need one: the server
//! `LINKPATH_TEST_REDIS_URL` names. Such cases are `#[ignore]`d, so that
//! `cargo test` reports them as left out rather than passed, and
//! `cargo test -- --ignored` runs them. The server may be shared with
//! other clients: each case keeps its keys under a prefix of its own,
//! deleted when the case is done, and never touches another client.

use std::time::Duration;

/// The variable that names the test Redis.
pub const TEST_REDIS_URL: &str = "LINKPATH_TEST_REDIS_URL";

/// The test Redis's URL. A case that needs one runs only when asked
/// (`--ignored`): without one, it fails and says how to name one.
pub fn test_redis_url() -> String {
    std::env::var(TEST_REDIS_URL)
        .ok()
        .filter(|url| !url.is_empty())
        .unwrap_or_else(|| {
            panic!(
                "this case needs a Redis: redis-server --port 6390 --save '' --appendonly no & \
                 {TEST_REDIS_URL}=redis://127.0.0.1:6390 cargo test -- --ignored"
            )
        })
}

/// A key prefix of the test Redis that no other case, run or process
/// uses; its keys are deleted when it drops.
pub struct RedisPrefix {
    url: String,
    prefix: String,
}

impl RedisPrefix {
    /// A new prefix, `linkpath-test:NAME-…`, on the test Redis.
    pub fn fresh(name: &str) -> RedisPrefix {
        use std::sync::atomic::{AtomicU64, Ordering};
        static PREFIXES: AtomicU64 = AtomicU64::new(0);
        let count = PREFIXES.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .subsec_nanos();
        RedisPrefix {
            url: test_redis_url(),
            prefix: format!(
                "linkpath-test:{name}-{}-{nanos}-{count}",
                std::process::id()
            ),
        }
    }

    /// The test Redis's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The store setting of the test Redis under this prefix.
    pub fn setting(&self) -> String {
        let separator = if self.url.contains('?') { '&' } else { '?' };
        format!("{}{separator}prefix={}", self.url, self.prefix)
    }
}

impl Drop for RedisPrefix {
    /// Deletes every key under the prefix, as far as the server answers
    /// within a few seconds: a case that took its Redis down leaves the
    /// rest to the keys' own expiry.
    fn drop(&mut self) {
        let Ok(client) = redis::Client::open(self.url.as_str()) else {
            return;
        };
        let Ok(mut connection) = client.get_connection_with_timeout(Duration::from_secs(2)) else {
            return;
        };
        let _ = connection.set_read_timeout(Some(Duration::from_secs(5)));
        let pattern = format!("{}:*", self.prefix);
        let mut cursor: u64 = 0;
        // A bounded walk: a case's keys are few.
        for _ in 0..10_000 {
            let Ok((next, keys)): redis::RedisResult<(u64, Vec<String>)> = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(&pattern)
                .arg("COUNT")
                .arg(1000)
                .query(&mut connection)
            else {
                return;
            };
            if !keys.is_empty() {
                let _: redis::RedisResult<u64> =
                    redis::cmd("DEL").arg(&keys).query(&mut connection);
            }
            if next == 0 {
                return;
            }
            cursor = next;
        }
    }
}
