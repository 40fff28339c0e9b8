//! The players signed in lately, by their token's hash, so that a
//! player's every move does not read the store twice. Only for a store
//! this process alone writes (a file, memory): every change of a player
//! goes through [`super::Players`], which forgets the player first, so
//! what is kept is what is stored; a player read while another changed is
//! not kept, as it may be read from before the change. A store shared with other processes
//! (Redis) keeps no cache: another replica may have replaced the token.
//!
//! Bounded by a setting (`LINKPATH_PLAYER_CACHE`); when full, the oldest
//! half is forgotten at once, a cheap bound with no per-entry order to
//! keep. An entry also holds the player's expiry and is not used past it.

use super::service::SignedIn;
use std::collections::HashMap;
use std::sync::Mutex;

/// Players by their token's hash.
pub(crate) struct TokenCache {
    most: usize,
    entries: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    by_hash: HashMap<Vec<u8>, (u64, SignedIn)>,
    /// Each entry's number: when full, the lower half goes.
    next: u64,
    /// How many times a player was forgotten: a player read from the
    /// store while one changed may be the old one, and is not kept.
    changes: u64,
}

impl TokenCache {
    /// A cache of at most `most` players; 0 keeps none.
    pub(crate) fn new(most: usize) -> TokenCache {
        TokenCache {
            most,
            entries: Mutex::default(),
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The player whose token hashes to `hash`, if kept and live at `now`.
    pub(crate) fn get(&self, hash: &[u8], now: u64) -> Option<SignedIn> {
        if self.most == 0 {
            return None;
        }
        let entries = self.entries();
        let (_, signed_in) = entries.by_hash.get(hash)?;
        (now < signed_in.expires_at_ms).then(|| signed_in.clone())
    }

    /// What [`TokenCache::put`] is given with a player read from the
    /// store: taken before the read.
    pub(crate) fn changes(&self) -> u64 {
        self.entries().changes
    }

    /// Keeps `signed_in` under its token's `hash`, unless a player was
    /// forgotten since `changes` (taken before it was read): it may be
    /// a player as it was before a change.
    pub(crate) fn put(&self, hash: Vec<u8>, signed_in: SignedIn, changes: u64) {
        if self.most == 0 {
            return;
        }
        let mut entries = self.entries();
        if entries.changes != changes {
            return;
        }
        if entries.by_hash.len() >= self.most {
            let count = entries.by_hash.len() as u64;
            let below = entries.next.saturating_sub(count / 2);
            entries.by_hash.retain(|_, (number, _)| *number >= below);
            if entries.by_hash.len() >= self.most {
                entries.by_hash.clear();
            }
        }
        let number = entries.next;
        entries.next += 1;
        entries.by_hash.insert(hash, (number, signed_in));
    }

    /// Forgets the player `id`, whatever its token: it is about to change.
    pub(crate) fn forget(&self, id: &str) {
        if self.most == 0 {
            return;
        }
        let mut entries = self.entries();
        entries.changes += 1;
        entries
            .by_hash
            .retain(|_, (_, signed_in)| signed_in.id() != id);
    }

    /// How many players are kept.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries().by_hash.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linkpath_api::players::Player;

    fn signed_in(id: &str, expires_at_ms: u64) -> SignedIn {
        SignedIn::new(
            Player {
                id: id.to_owned(),
                name: "Ann".into(),
                created_at_ms: 0,
                studio: None,
                rating: None,
            },
            0,
            expires_at_ms,
            None,
        )
    }

    #[test]
    fn a_kept_player_is_found_until_it_expires_or_is_forgotten() {
        let cache = TokenCache::new(10);
        cache.put(b"a".to_vec(), signed_in("p1", 100), cache.changes());
        assert_eq!(cache.get(b"a", 99).map(|s| s.player.id), Some("p1".into()));
        assert!(cache.get(b"a", 100).is_none());
        assert!(cache.get(b"b", 0).is_none());
        cache.forget("p1");
        assert!(cache.get(b"a", 0).is_none());
        // Read before a change, kept after it: not kept.
        let seen = cache.changes();
        cache.forget("p2");
        cache.put(b"a".to_vec(), signed_in("p1", 100), seen);
        assert!(cache.get(b"a", 0).is_none());
    }

    #[test]
    fn a_full_cache_forgets_its_oldest_half() {
        let cache = TokenCache::new(4);
        for i in 0..4u8 {
            cache.put(vec![i], signed_in(&format!("p{i}"), 100), 0);
        }
        cache.put(vec![4], signed_in("p4", 100), 0);
        assert_eq!(cache.len(), 3);
        assert!(cache.get(&[0], 0).is_none() && cache.get(&[1], 0).is_none());
        assert!(cache.get(&[4], 0).is_some() && cache.get(&[3], 0).is_some());
        let none = TokenCache::new(0);
        none.put(vec![0], signed_in("p0", 100), 0);
        assert!(none.get(&[0], 0).is_none());
    }
}
