//! Which store to open, as the server's setting writes it: `memory`, or
//! `file:PATH` for a redb file. Parsing looks at the scheme before the
//! first colon, so more schemes can join; an unknown one is an error that
//! lists those accepted.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// The stores a setting may name, as its errors list them.
const ACCEPTED: &str = "expected `memory` or `file:PATH`";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreSpec {
    /// Games in this process's memory, gone when it stops.
    Memory,
    /// Games in a redb file, created with its folder if missing.
    File(PathBuf),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("unknown store `{0}`: {ACCEPTED}")]
    Unknown(String),
    #[error("`file:` needs a path after the colon: {ACCEPTED}")]
    NoPath,
}

impl FromStr for StoreSpec {
    type Err = SpecError;

    fn from_str(setting: &str) -> Result<Self, SpecError> {
        match setting.split_once(':') {
            None if setting == "memory" => Ok(StoreSpec::Memory),
            Some(("file", "")) => Err(SpecError::NoPath),
            Some(("file", path)) => Ok(StoreSpec::File(PathBuf::from(path))),
            _ => Err(SpecError::Unknown(setting.to_owned())),
        }
    }
}

/// The setting again, so that logs show what was opened.
impl fmt::Display for StoreSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreSpec::Memory => f.write_str("memory"),
            StoreSpec::File(path) => write!(f, "file:{}", path.display()),
        }
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
    fn errors_say_what_is_accepted() {
        let unknown = "redis://127.0.0.1".parse::<StoreSpec>().unwrap_err();
        assert_eq!(
            unknown.to_string(),
            "unknown store `redis://127.0.0.1`: expected `memory` or `file:PATH`"
        );
        for setting in ["", "Memory", "memory:", "files:x", "/tmp/games.redb"] {
            assert_eq!(
                setting.parse::<StoreSpec>(),
                Err(SpecError::Unknown(setting.to_owned()))
            );
        }
        assert_eq!(
            "file:".parse::<StoreSpec>().unwrap_err().to_string(),
            "`file:` needs a path after the colon: expected `memory` or `file:PATH`"
        );
    }
}
