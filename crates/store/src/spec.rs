//! Which store to open, as the server's setting writes it: `memory`,
//! `file:PATH` for a redb file, or `redis://HOST[:PORT][/DB]` (`rediss://`
//! for TLS) for a Redis server that several replicas share. Parsing looks
//! at the scheme before the first colon, so more schemes can join; an
//! unknown one is an error that lists those accepted.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use redis::IntoConnectionInfo;

/// The stores a setting may name, as its errors list them.
const ACCEPTED: &str = "expected `memory`, `file:PATH` or `redis://HOST[:PORT][/DB]`";

/// What a Redis setting looks like, as its errors show it.
const REDIS_FORM: &str =
    "expected `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB][?prefix=PREFIX]` (`rediss://` for TLS)";

/// The names of a store's Redis keys start with this unless the setting's
/// `prefix` says otherwise.
const DEFAULT_PREFIX: &str = "linkpath";

/// The longest prefix: it is repeated in every key.
const MAX_PREFIX: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreSpec {
    /// Games in this process's memory, gone when it stops.
    Memory,
    /// Games in a redb file, created with its folder if missing.
    File(PathBuf),
    /// Games in a Redis server, shared by every process that names it.
    Redis(RedisSpec),
}

/// A Redis server, and the prefix of the store's key names there, so that
/// stores (of tests, of deployments) can share one server apart.
#[derive(Clone, PartialEq, Eq)]
pub struct RedisSpec {
    /// The URL as redis-rs takes it: without the `prefix` option.
    pub(crate) url: String,
    pub(crate) prefix: String,
}

impl RedisSpec {
    /// The prefix of the store's key names.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("unknown store `{0}`: {ACCEPTED}")]
    Unknown(String),
    #[error("`file:` needs a path after the colon: {ACCEPTED}")]
    NoPath,
    /// The setting, its password hidden, and what is wrong with it.
    #[error("`{setting}` is not a Redis store: {reason}; {REDIS_FORM}")]
    Redis { setting: String, reason: String },
}

impl FromStr for StoreSpec {
    type Err = SpecError;

    fn from_str(setting: &str) -> Result<Self, SpecError> {
        match setting.split_once(':') {
            None if setting == "memory" => Ok(StoreSpec::Memory),
            Some(("file", "")) => Err(SpecError::NoPath),
            Some(("file", path)) => Ok(StoreSpec::File(PathBuf::from(path))),
            Some(("redis" | "rediss", _)) => parse_redis(setting).map(StoreSpec::Redis),
            _ => Err(SpecError::Unknown(setting.to_owned())),
        }
    }
}

fn parse_redis(setting: &str) -> Result<RedisSpec, SpecError> {
    let refused = |shown: &str, reason: &str| SpecError::Redis {
        setting: shown.to_owned(),
        reason: reason.to_owned(),
    };
    let Some(mut url) = redis::parse_redis_url(setting) else {
        return Err(refused(
            &hide_password_in(setting),
            "it does not parse as a URL",
        ));
    };
    let shown = redacted(&url);
    if url.cannot_be_a_base() || url.host_str().is_none_or(str::is_empty) {
        return Err(refused(&shown, "it names no host"));
    }
    if url.fragment().is_some() {
        return Err(refused(
            &shown,
            "it has a `#` part, which means nothing here",
        ));
    }
    let mut prefix = None;
    for (name, value) in url.query_pairs() {
        match &*name {
            "prefix" if prefix.is_none() => prefix = Some(value.into_owned()),
            "prefix" => return Err(refused(&shown, "it gives `prefix` twice")),
            other => {
                return Err(refused(
                    &shown,
                    &format!("`{other}` is no option here, the one option is `prefix`"),
                ));
            }
        }
    }
    let prefix = prefix.unwrap_or_else(|| DEFAULT_PREFIX.to_owned());
    check_prefix(&prefix).map_err(|reason| refused(&shown, &reason))?;
    url.set_query(None);
    match url.path().trim_matches('/') {
        "" => {}
        db if db.parse::<u16>().is_ok() => {}
        _ => {
            return Err(refused(
                &shown,
                "its path is no database number (`/0`, `/1`, ...)",
            ));
        }
    }
    // What redis-rs would refuse when connecting (a wildcard address, bad
    // UTF-8 in a password, TLS without support) is refused here, at start.
    url.as_str()
        .into_connection_info()
        .map_err(|err| refused(&shown, &err.to_string()))?;
    Ok(RedisSpec {
        url: url.into(),
        prefix,
    })
}

/// A prefix is visible ASCII other than the braces of hash tags and the
/// characters URLs escape, so that key names read plainly in `redis-cli`.
fn check_prefix(prefix: &str) -> Result<(), String> {
    let fits = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':');
    if prefix.is_empty() || prefix.len() > MAX_PREFIX || !prefix.chars().all(fits) {
        return Err(format!(
            "its prefix `{prefix}` is not 1 to {MAX_PREFIX} letters, digits, `-`, `_`, `.` or `:`"
        ));
    }
    Ok(())
}

/// The URL with its password, if any, as `***`: settings are logged.
fn redacted(url: &url::Url) -> String {
    let mut shown = url.clone();
    if shown.password().is_some() {
        // Fails only for URLs without a host, which have no password.
        let _ = shown.set_password(Some("***"));
    }
    shown.into()
}

/// The same for a setting that is not even a URL: whatever sits between
/// `://` and `@` may be a password.
fn hide_password_in(setting: &str) -> String {
    match setting.split_once("://") {
        Some((scheme, rest)) => match rest.rsplit_once('@') {
            Some((_, host)) => format!("{scheme}://***@{host}"),
            None => setting.to_owned(),
        },
        None => setting.to_owned(),
    }
}

/// The setting again, so that logs show what was opened; a Redis
/// password is shown as `***`.
impl fmt::Display for StoreSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreSpec::Memory => f.write_str("memory"),
            StoreSpec::File(path) => write!(f, "file:{}", path.display()),
            StoreSpec::Redis(spec) => write!(f, "{spec}"),
        }
    }
}

impl fmt::Display for RedisSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = url::Url::parse(&self.url).map_or_else(|_| self.url.clone(), |u| redacted(&u));
        if self.prefix == DEFAULT_PREFIX {
            f.write_str(&shown)
        } else {
            write!(f, "{shown}?prefix={}", self.prefix)
        }
    }
}

/// Not derived: the URL may hold a password.
impl fmt::Debug for RedisSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RedisSpec({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_and_files_parse_and_print_back() {
        for setting in [
            "memory",
            "file:games.redb",
            "file:/var/lib/linkpath/games.redb",
        ] {
            let spec: StoreSpec = setting.parse().unwrap();
            assert_eq!(spec.to_string(), setting);
        }
        assert_eq!(
            "file:a:b".parse::<StoreSpec>(),
            Ok(StoreSpec::File(PathBuf::from("a:b")))
        );
    }

    #[test]
    fn redis_urls_parse_and_print_back() {
        for setting in [
            "redis://127.0.0.1",
            "redis://127.0.0.1:6390",
            "redis://127.0.0.1:6390/3",
            "redis://redis.internal:6379/0?prefix=games-eu",
            "redis://[::1]:6390",
            "rediss://cache.example:6380/1",
        ] {
            let spec: StoreSpec = setting.parse().unwrap();
            assert_eq!(spec.to_string(), setting);
        }
        let StoreSpec::Redis(spec) = "redis://127.0.0.1:6390/2?prefix=t.1"
            .parse::<StoreSpec>()
            .unwrap()
        else {
            panic!("not a Redis store");
        };
        assert_eq!(spec.url, "redis://127.0.0.1:6390/2");
        assert_eq!(spec.prefix(), "t.1");
        let StoreSpec::Redis(spec) = "redis://10.0.0.1".parse::<StoreSpec>().unwrap() else {
            panic!("not a Redis store");
        };
        assert_eq!(spec.prefix(), "linkpath");
    }

    #[test]
    fn a_redis_password_is_never_shown() {
        let spec: StoreSpec = "redis://:s3cret@127.0.0.1:6390".parse().unwrap();
        assert_eq!(spec.to_string(), "redis://:***@127.0.0.1:6390");
        assert_eq!(
            format!("{spec:?}"),
            "Redis(RedisSpec(redis://:***@127.0.0.1:6390))"
        );
        let err = "redis://app:s3cret@127.0.0.1/x"
            .parse::<StoreSpec>()
            .unwrap_err();
        assert!(!err.to_string().contains("s3cret"), "{err}");
        let err = "redis://app:s3cret@[::1".parse::<StoreSpec>().unwrap_err();
        assert!(!err.to_string().contains("s3cret"), "{err}");
    }

    #[test]
    fn malformed_redis_urls_say_what_is_wrong() {
        let reason = |setting: &str| match setting.parse::<StoreSpec>() {
            Err(SpecError::Redis { reason, .. }) => reason,
            other => panic!("{setting}: {other:?}"),
        };
        assert_eq!(reason("redis://"), "it names no host");
        assert_eq!(reason("redis:x"), "it names no host");
        assert_eq!(reason("redis://[::1"), "it does not parse as a URL");
        assert_eq!(reason("redis://h:99999"), "it does not parse as a URL");
        assert_eq!(
            reason("redis://h/db1"),
            "its path is no database number (`/0`, `/1`, ...)"
        );
        assert_eq!(
            reason("redis://h/?db=1"),
            "`db` is no option here, the one option is `prefix`"
        );
        assert_eq!(
            reason("redis://h/?prefix=a&prefix=b"),
            "it gives `prefix` twice"
        );
        assert_eq!(
            reason("redis://h/?prefix={game}"),
            "its prefix `{game}` is not 1 to 64 letters, digits, `-`, `_`, `.` or `:`"
        );
        assert_eq!(
            reason("redis://h/?prefix="),
            "its prefix `` is not 1 to 64 letters, digits, `-`, `_`, `.` or `:`"
        );
        assert_eq!(
            reason("redis://h#x"),
            "it has a `#` part, which means nothing here"
        );
        assert_eq!(
            "redis://h/x".parse::<StoreSpec>().unwrap_err().to_string(),
            "`redis://h/x` is not a Redis store: its path is no database number (`/0`, `/1`, ...); \
             expected `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB][?prefix=PREFIX]` (`rediss://` for TLS)"
        );
    }

    #[test]
    fn errors_say_what_is_accepted() {
        let unknown = "valkey://127.0.0.1".parse::<StoreSpec>().unwrap_err();
        assert_eq!(
            unknown.to_string(),
            "unknown store `valkey://127.0.0.1`: expected `memory`, `file:PATH` or `redis://HOST[:PORT][/DB]`"
        );
        for setting in [
            "",
            "Memory",
            "memory:",
            "files:x",
            "/tmp/games.redb",
            "Redis://h",
        ] {
            assert_eq!(
                setting.parse::<StoreSpec>(),
                Err(SpecError::Unknown(setting.to_owned()))
            );
        }
        assert_eq!(
            "file:".parse::<StoreSpec>().unwrap_err().to_string(),
            "`file:` needs a path after the colon: expected `memory`, `file:PATH` or `redis://HOST[:PORT][/DB]`"
        );
    }
}
