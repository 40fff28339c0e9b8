//! Which archive to open, as the server's setting writes it: `memory`,
//! `file:PATH` for a redb file of its own, or a PostgreSQL URL,
//! `postgres://` or `postgresql://`, in libpq's form. The URL is checked
//! when parsed, so that a bad one stops the server at start; its password
//! is never shown.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use sqlx::postgres::PgConnectOptions;

/// The archives a setting may name, as its errors list them.
const ACCEPTED: &str = "expected `memory`, `file:PATH` or `postgres://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE[?sslmode=...]`";

#[derive(Clone, PartialEq, Eq)]
pub enum ArchiveSpec {
    /// Games in this process's memory, gone when it stops: for tests and
    /// servers whose store is memory too.
    Memory,
    /// Games in a redb file, created with its folder if missing.
    File(PathBuf),
    /// Games in PostgreSQL, shared by every replica that names it. The
    /// URL as given: `sslmode`, `sslrootcert`, `application_name` and the
    /// rest of libpq's options apply.
    Postgres(String),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArchiveSpecError {
    #[error("unknown archive `{0}`: {ACCEPTED}")]
    Unknown(String),
    #[error("`file:` needs a path after the colon: {ACCEPTED}")]
    NoPath,
    /// The setting, its password hidden, and what is wrong with it.
    #[error("`{setting}` is not a PostgreSQL archive: {reason}; {ACCEPTED}")]
    Postgres { setting: String, reason: String },
}

impl FromStr for ArchiveSpec {
    type Err = ArchiveSpecError;

    fn from_str(setting: &str) -> Result<ArchiveSpec, ArchiveSpecError> {
        match setting.split_once(':') {
            None if setting == "memory" => Ok(ArchiveSpec::Memory),
            Some(("file", "")) => Err(ArchiveSpecError::NoPath),
            Some(("file", path)) => Ok(ArchiveSpec::File(PathBuf::from(path))),
            Some(("postgres" | "postgresql", _)) => {
                let refused = |reason: String| ArchiveSpecError::Postgres {
                    setting: redacted(setting),
                    reason,
                };
                url::Url::parse(setting)
                    .map_err(|err| refused(format!("it does not parse as a URL ({err})")))?;
                PgConnectOptions::from_str(setting)
                    .map_err(|err| refused(hide(setting, &err.to_string())))?;
                Ok(ArchiveSpec::Postgres(setting.to_owned()))
            }
            _ => Err(ArchiveSpecError::Unknown(redacted(setting))),
        }
    }
}

/// The setting with its password, if any, as `***`, whether in the
/// authority or in a `password` option: settings are logged.
fn redacted(setting: &str) -> String {
    match url::Url::parse(setting) {
        Ok(mut url) => {
            if url.password().is_some() {
                // Fails only for URLs without a host, which have no password.
                let _ = url.set_password(Some("***"));
            }
            if url.query_pairs().any(|(key, _)| key == "password") {
                let pairs: Vec<(String, String)> = url
                    .query_pairs()
                    .map(|(key, value)| {
                        let value = if key == "password" {
                            "***".into()
                        } else {
                            value
                        };
                        (key.into_owned(), value.into_owned())
                    })
                    .collect();
                url.query_pairs_mut().clear().extend_pairs(pairs);
            }
            if url.as_str() == setting {
                setting.to_owned()
            } else {
                url.into()
            }
        }
        // Whatever sits between `://` and the last `@` may be a password.
        Err(_) => match setting.split_once("://") {
            Some((scheme, rest)) => match rest.rsplit_once('@') {
                Some((_, host)) => format!("{scheme}://***@{host}"),
                None => setting.to_owned(),
            },
            None => setting.to_owned(),
        },
    }
}

/// `message` with the setting's passwords, if it repeats them, hidden.
fn hide(setting: &str, message: &str) -> String {
    let Ok(url) = url::Url::parse(setting) else {
        return message.to_owned();
    };
    let passwords = url.password().map(str::to_owned).into_iter().chain(
        url.query_pairs()
            .filter(|(key, _)| key == "password")
            .map(|(_, value)| value.into_owned()),
    );
    passwords
        .filter(|password| !password.is_empty())
        .fold(message.to_owned(), |message, password| {
            message.replace(&password, "***")
        })
}

/// The setting again, so that logs show what was opened; a PostgreSQL
/// password is shown as `***`.
impl fmt::Display for ArchiveSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArchiveSpec::Memory => f.write_str("memory"),
            ArchiveSpec::File(path) => write!(f, "file:{}", path.display()),
            ArchiveSpec::Postgres(url) => f.write_str(&redacted(url)),
        }
    }
}

/// Not derived: the URL may hold a password.
impl fmt::Debug for ArchiveSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ArchiveSpec({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_and_print_back() {
        for setting in [
            "memory",
            "file:archive.redb",
            "file:/var/lib/linkpath/archive.redb",
            "postgres://postgres@127.0.0.1:5432/postgres",
            "postgresql://app@db.internal/linkpath?sslmode=verify-full",
            "postgres://app@db.internal/linkpath?sslmode=require&application_name=linkpath",
            "postgres:///linkpath?host=/run/postgresql",
        ] {
            let spec: ArchiveSpec = setting.parse().unwrap();
            assert_eq!(spec.to_string(), setting);
        }
        assert_eq!(
            "file:a:b".parse::<ArchiveSpec>(),
            Ok(ArchiveSpec::File(PathBuf::from("a:b")))
        );
    }

    #[test]
    fn a_password_is_never_shown() {
        let spec: ArchiveSpec = "postgres://app:s3cret@db/linkpath".parse().unwrap();
        assert_eq!(spec.to_string(), "postgres://app:***@db/linkpath");
        assert_eq!(
            format!("{spec:?}"),
            "ArchiveSpec(postgres://app:***@db/linkpath)"
        );
        for setting in [
            "postgres://app:s3cret@db/linkpath?sslmode=sometimes",
            "postgres://app:s3cret@[::1/x",
            "postgres://app:s3cret@db/x?sslmode=sometimes&password=s3cret",
        ] {
            let err = setting.parse::<ArchiveSpec>().unwrap_err().to_string();
            assert!(!err.contains("s3cret"), "{err}");
        }
    }

    #[test]
    fn malformed_settings_say_what_is_wrong() {
        assert_eq!(
            "postgres://app@db/x?sslmode=sometimes"
                .parse::<ArchiveSpec>()
                .map_err(|e| matches!(e, ArchiveSpecError::Postgres { .. })),
            Err(true)
        );
        assert_eq!(
            "postgres://app:s3cret@[::1/x"
                .parse::<ArchiveSpec>()
                .unwrap_err()
                .to_string(),
            format!(
                "`postgres://***@[::1/x` is not a PostgreSQL archive: it does not parse as a URL \
                 (invalid IPv6 address); {ACCEPTED}"
            )
        );
        for setting in [
            "",
            "Memory",
            "memory:",
            "files:x",
            "/tmp/a.redb",
            "mysql://h/x",
        ] {
            assert_eq!(
                setting.parse::<ArchiveSpec>(),
                Err(ArchiveSpecError::Unknown(setting.to_owned()))
            );
        }
        assert_eq!(
            "file:".parse::<ArchiveSpec>().unwrap_err().to_string(),
            format!("`file:` needs a path after the colon: {ACCEPTED}")
        );
    }
}
