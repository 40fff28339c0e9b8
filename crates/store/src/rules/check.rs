//! What a write must be before any backend runs it: its new version
//! following the one it expects, its log no longer than its versions,
//! and a match's players each a change of a stored player, once.

use crate::player::TOKEN_BYTES;
use crate::{Expected, MatchWrite, PlayerWrite, StoreError, Write};

/// Refuses a write whose new version does not follow the expected one.
pub(crate) fn check(write: &Write) -> Result<(), StoreError> {
    let follows = match write.expected {
        Expected::Absent => Some(0),
        Expected::Version(version) => version.checked_add(1),
    };
    match follows {
        Some(_) if write.log.len() as u64 > write.game.version.saturating_add(1) => {
            Err(StoreError::InvalidWrite(format!(
                "game `{}`: a write of version {} appends {} log entries, more than its versions",
                write.id,
                write.game.version,
                write.log.len()
            )))
        }
        Some(version) if version == write.game.version => Ok(()),
        Some(version) => Err(StoreError::InvalidWrite(format!(
            "game `{}`: a write expecting {:?} stores version {version}, not {}",
            write.id, write.expected, write.game.version
        ))),
        None => Err(StoreError::InvalidWrite(format!(
            "game `{}`: version {} is the last a game can have",
            write.id,
            u64::MAX
        ))),
    }
}

/// Refuses a player's write whose new version does not follow the
/// expected one, or whose token's hash is not SHA-256's length.
pub(crate) fn check_player(write: &PlayerWrite) -> Result<(), StoreError> {
    let follows = match write.expected {
        Expected::Absent => Some(0),
        Expected::Version(version) => version.checked_add(1),
    };
    if let Some(token) = &write.player.token
        && token.len() != TOKEN_BYTES
    {
        return Err(StoreError::InvalidWrite(format!(
            "player `{}`: a token's hash of {} bytes, not SHA-256's {TOKEN_BYTES}",
            write.id,
            token.len()
        )));
    }
    match follows {
        Some(version) if version == write.player.version => Ok(()),
        Some(version) => Err(StoreError::InvalidWrite(format!(
            "player `{}`: a write expecting {:?} stores version {version}, not {}",
            write.id, write.expected, write.player.version
        ))),
        None => Err(StoreError::InvalidWrite(format!(
            "player `{}`: version {} is the last a player can have",
            write.id,
            u64::MAX
        ))),
    }
}

/// Refuses a match's write whose new version does not follow the
/// expected one, or whose players are not each a change of a stored
/// player, once, each valid as [`check_player`] says. A token's hash
/// given to two of them is refused too: one hash finds one player.
pub(crate) fn check_match(write: &MatchWrite) -> Result<(), StoreError> {
    let follows = match write.expected {
        Expected::Absent => Some(0),
        Expected::Version(version) => version.checked_add(1),
    };
    match follows {
        Some(version) if version == write.record.version => {}
        Some(version) => {
            return Err(StoreError::InvalidWrite(format!(
                "match `{}`: a write expecting {:?} stores version {version}, not {}",
                write.id, write.expected, write.record.version
            )));
        }
        None => {
            return Err(StoreError::InvalidWrite(format!(
                "match `{}`: version {} is the last a match can have",
                write.id,
                u64::MAX
            )));
        }
    }
    for (i, player) in write.players.iter().enumerate() {
        check_player(player)?;
        if player.expected == Expected::Absent {
            return Err(StoreError::InvalidWrite(format!(
                "match `{}`: player `{}` would be created with it; a match changes stored players",
                write.id, player.id
            )));
        }
        let earlier = &write.players[..i];
        if earlier.iter().any(|other| other.id == player.id) {
            return Err(StoreError::InvalidWrite(format!(
                "match `{}`: player `{}` is written twice",
                write.id, player.id
            )));
        }
        if player.player.token.is_some()
            && earlier
                .iter()
                .any(|other| other.player.token == player.player.token)
        {
            return Err(StoreError::InvalidWrite(format!(
                "match `{}`: players `{}` and another are given one token's hash",
                write.id, player.id
            )));
        }
    }
    Ok(())
}
