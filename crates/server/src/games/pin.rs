//! The version an action is for: the precondition a client sets (over
//! HTTP, `If-Match`), checked against the game as read.

use linkpath_api::{ApiError, ErrorCode};

/// What a request asks of the game's version (RFC 9110, 13.1.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Pin {
    /// Any version.
    Any,
    /// One of these versions. A weak tag matches none: only weak tags
    /// leave this empty.
    Versions(Vec<u64>),
}

impl Pin {
    pub fn pinned(&self) -> bool {
        *self != Pin::Any
    }

    /// 412 unless the game at `version` matches.
    pub fn check(&self, version: u64) -> Result<(), ApiError> {
        let message = match self {
            Pin::Any => return Ok(()),
            Pin::Versions(pinned) if pinned.contains(&version) => return Ok(()),
            Pin::Versions(pinned) if pinned.is_empty() => format!(
                "If-Match holds only weak tags, which never match (RFC 9110): expected the game's ETag, \"{version}\""
            ),
            Pin::Versions(pinned) => format!(
                "If-Match names version {}, the game is at version {version}: read it again",
                pinned
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        };
        Err(ApiError::new(ErrorCode::VersionMismatch, message))
    }
}
