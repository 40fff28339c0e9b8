//! Which expired games go and which stay for the archive. A game marked
//! finished and not yet archived is kept, with
//! [`StoreLimits::keep_unarchived`]: the walk of expired games (a purge,
//! or a create making room) moves it from the expiry index to the held
//! index instead of deleting it, once; it stays there, counted among the
//! games, until [`archived`] clears its mark and puts it back. Without
//! the setting, the walk deletes a marked game as any other, and takes
//! the held games too, each in its turn by expiry.

use super::{Tables, live, remove};
use crate::rules::Kind;
use crate::{StoreError, StoreLimits};

/// What the walk did with one expired game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Taken {
    Removed,
    Held,
}

/// Whether the stored game `id` stays for the archive once expired.
pub(super) fn kept(
    tables: &impl Tables,
    id: &str,
    limits: &StoreLimits,
) -> Result<bool, StoreError> {
    Ok(limits.keep_unarchived && tables.finished(id)?.is_some())
}

/// The next expired game the walk takes, the first to expire first (by
/// expiry, then by id): the first of the expiry index; without
/// `keep_unarchived`, the first of it and of the held index.
pub(super) fn next_expired(
    tables: &impl Tables,
    now_ms: u64,
    limits: &StoreLimits,
) -> Result<Option<(u64, String)>, StoreError> {
    let expired = |first: Option<(u64, String)>| {
        first.filter(|(expires_at_ms, _)| !live(*expires_at_ms, now_ms))
    };
    let first = expired(tables.first_to_expire(Kind::Game)?);
    if limits.keep_unarchived {
        return Ok(first);
    }
    let held = expired(tables.first_held()?);
    Ok(match (first, held) {
        (Some(first), Some(held)) => Some(first.min(held)),
        (first, held) => first.or(held),
    })
}

/// Takes the expired game `id`: holds it if it stays for the archive,
/// else removes it with all that goes with it.
pub(super) fn take(
    tables: &mut impl Tables,
    expires_at_ms: u64,
    id: &str,
    limits: &StoreLimits,
) -> Result<Taken, StoreError> {
    if kept(tables, id, limits)? {
        tables.hold(id, expires_at_ms)?;
        return Ok(Taken::Held);
    }
    remove(tables, Kind::Game, expires_at_ms, id)?;
    Ok(Taken::Removed)
}

/// Walks at most `at_most` expired games, the first to expire first:
/// how many it removed and how many it held.
pub(super) fn purge_games(
    tables: &mut impl Tables,
    now_ms: u64,
    at_most: usize,
    limits: &StoreLimits,
) -> Result<(usize, usize), StoreError> {
    let (mut removed, mut held) = (0, 0);
    while removed + held < at_most {
        let Some((expires_at_ms, id)) = next_expired(tables, now_ms, limits)? else {
            break;
        };
        match take(tables, expires_at_ms, &id, limits)? {
            Taken::Removed => removed += 1,
            Taken::Held => held += 1,
        }
    }
    Ok((removed, held))
}

/// Clears the marks of `ids`, each held game among them back in the
/// expiry index: how many marks it cleared.
pub(crate) fn archived(tables: &mut impl Tables, ids: &[String]) -> Result<usize, StoreError> {
    let mut cleared = 0;
    for id in ids {
        if tables.finished(id)?.is_none() {
            continue;
        }
        tables.unmark(id)?;
        if let Some(head) = tables.head(id)? {
            tables.release(id, head.expires_at_ms)?;
        }
        cleared += 1;
    }
    Ok(cleared)
}
