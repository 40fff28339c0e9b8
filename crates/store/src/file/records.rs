//! How the store file's records read back: each decoded from the bytes
//! `tables.rs` lays out, every length checked, so that a record that
//! does not decode is [`StoreError::Corrupted`], never a panic.

use redb::ReadableTable;

use super::tables::failed;
use crate::rules::MatchHead;
use crate::{Kept, Ranked, StoreError, StoredGame, StoredMatch, StoredPlayer};

/// The entries of `board`, best first, each with its player: at most
/// the board size.
pub(super) fn read_entries(
    entries: &impl ReadableTable<(&'static str, &'static str), &'static [u8]>,
    players: &impl ReadableTable<(&'static str, &'static str), &'static str>,
    board: &str,
) -> Result<Vec<Ranked>, StoreError> {
    let mut ranked = Vec::new();
    for entry in entries.range((board, "")..).map_err(failed)? {
        let (key, body) = entry.map_err(failed)?;
        let (on, rank) = key.value();
        if on != board {
            break;
        }
        let player = players.get((board, rank)).map_err(failed)?;
        ranked.push(Ranked {
            rank: rank.to_owned(),
            player: player.map_or_else(String::new, |player| player.value().to_owned()),
            body: body.value().to_vec(),
        });
    }
    Ok(ranked)
}

/// The games listed as `owner`'s in `owned`, oldest first.
pub(super) fn read_owned(
    owned: &impl ReadableTable<(&'static str, u64, &'static str), ()>,
    owner: &str,
) -> Result<Vec<(u64, String)>, StoreError> {
    let mut games = Vec::new();
    for entry in owned.range((owner, 0, "")..).map_err(failed)? {
        let (key, _) = entry.map_err(failed)?;
        let (of, created_ms, id) = key.value();
        if of != owner {
            break;
        }
        games.push((created_ms, id.to_owned()));
    }
    Ok(games)
}

/// The player stored under `id` in `players`, expired or not.
pub(super) fn read_player(
    players: &impl ReadableTable<&'static str, &'static [u8]>,
    id: &str,
) -> Result<Option<StoredPlayer>, StoreError> {
    let Some(record) = players.get(id).map_err(failed)? else {
        return Ok(None);
    };
    let bytes = record.value();
    let corrupted = || {
        StoreError::Corrupted(format!(
            "player `{id}` is {} bytes, short of what its head says",
            bytes.len()
        ))
    };
    let (version, rest) = take_u64(bytes).ok_or_else(corrupted)?;
    let (expires_at_ms, rest) = take_u64(rest).ok_or_else(corrupted)?;
    let (length, rest) = rest.split_first().ok_or_else(corrupted)?;
    let (token, body) = rest
        .split_at_checked(usize::from(*length))
        .ok_or_else(corrupted)?;
    Ok(Some(StoredPlayer {
        version,
        expires_at_ms,
        token: (*length > 0).then(|| token.to_vec()),
        body: body.to_vec(),
    }))
}

/// The entries of `id`'s log at `versions`, in order.
pub(super) fn read_log(
    log: &impl ReadableTable<(&'static str, u64), &'static [u8]>,
    id: &str,
    versions: std::ops::Range<u64>,
) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
    if versions.is_empty() {
        return Ok(Vec::new());
    }
    let mut entries = Vec::new();
    for entry in log
        .range((id, versions.start)..(id, versions.end))
        .map_err(failed)?
    {
        let (key, body) = entry.map_err(failed)?;
        entries.push((key.value().1, body.value().to_vec()));
    }
    Ok(entries)
}

/// The game stored under `id` in `games`, expired or not.
pub(super) fn read_game(
    games: &impl ReadableTable<&'static str, &'static [u8]>,
    id: &str,
) -> Result<Option<StoredGame>, StoreError> {
    let Some(record) = games.get(id).map_err(failed)? else {
        return Ok(None);
    };
    let (version, expires_at_ms, body) = split_game(id, record.value())?;
    Ok(Some(StoredGame {
        version,
        expires_at_ms,
        body: body.to_vec(),
    }))
}

/// The answer kept under `key` in `kept`, expired or not.
pub(super) fn read_kept(
    kept: &impl ReadableTable<&'static str, &'static [u8]>,
    key: &str,
) -> Result<Option<Kept>, StoreError> {
    let Some(record) = kept.get(key).map_err(failed)? else {
        return Ok(None);
    };
    let bytes = record.value();
    let corrupted = || {
        StoreError::Corrupted(format!(
            "the answer kept under `{key}` is {} bytes, short of what its head says",
            bytes.len()
        ))
    };
    let (expires_at_ms, rest) = take_u64(bytes).ok_or_else(corrupted)?;
    let (length, rest) = rest.split_first_chunk::<4>().ok_or_else(corrupted)?;
    let length = usize::try_from(u32::from_le_bytes(*length)).map_err(|_| corrupted())?;
    let (fingerprint, answer) = rest.split_at_checked(length).ok_or_else(corrupted)?;
    Ok(Some(Kept {
        fingerprint: fingerprint.to_vec(),
        answer: answer.to_vec(),
        expires_at_ms,
    }))
}

/// The match stored under `id` in `matches`, expired or not.
pub(super) fn read_match(
    matches: &impl ReadableTable<&'static str, &'static [u8]>,
    id: &str,
) -> Result<Option<StoredMatch>, StoreError> {
    let Some(record) = matches.get(id).map_err(failed)? else {
        return Ok(None);
    };
    let (head, body) = split_match(id, record.value())?;
    Ok(Some(StoredMatch {
        version: head.version,
        expires_at_ms: head.expires_at_ms,
        due_at_ms: head.due_at_ms,
        body: body.to_vec(),
    }))
}

/// A match record's head (version, expiry, due time) and body.
pub(super) fn split_match<'a>(
    id: &str,
    bytes: &'a [u8],
) -> Result<(MatchHead, &'a [u8]), StoreError> {
    let corrupted = || {
        StoreError::Corrupted(format!(
            "match `{id}` is {} bytes, short of what its head says",
            bytes.len()
        ))
    };
    let (version, rest) = take_u64(bytes).ok_or_else(corrupted)?;
    let (expires_at_ms, rest) = take_u64(rest).ok_or_else(corrupted)?;
    let (flag, rest) = rest.split_first().ok_or_else(corrupted)?;
    let (due_at_ms, body) = match flag {
        0 => (None, rest),
        1 => {
            let (due_at_ms, body) = take_u64(rest).ok_or_else(corrupted)?;
            (Some(due_at_ms), body)
        }
        other => {
            return Err(StoreError::Corrupted(format!(
                "match `{id}` has a due flag of {other}, not 0 or 1"
            )));
        }
    };
    let head = MatchHead {
        version,
        expires_at_ms,
        due_at_ms,
    };
    Ok((head, body))
}

/// A game record's version, expiry and body.
pub(super) fn split_game<'a>(
    id: &str,
    bytes: &'a [u8],
) -> Result<(u64, u64, &'a [u8]), StoreError> {
    take_u64(bytes)
        .and_then(|(version, rest)| {
            take_u64(rest).map(|(expires_at_ms, body)| (version, expires_at_ms, body))
        })
        .ok_or_else(|| {
            StoreError::Corrupted(format!(
                "game `{id}` is {} bytes, shorter than its 16-byte head",
                bytes.len()
            ))
        })
}

pub(super) fn take_u64(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let (number, rest) = bytes.split_first_chunk::<8>()?;
    Some((u64::from_le_bytes(*number), rest))
}
