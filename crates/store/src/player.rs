//! Players as the store keeps them: an opaque body with a version and an
//! expiry, as a game, and the SHA-256 of the player's current token, by
//! which the player is found. Each player's games are indexed by their
//! creation, newest first ([`GameCursor`]).

use crate::rules;
use crate::{Backend, Expected, Store, StoreError};

/// The most ids one [`Store::players`](crate::Store::players) reads: a
/// leaderboard page names at most this many players.
pub const MAX_PLAYERS_READ: usize = 1_000;

/// The bytes of a token's hash: SHA-256.
pub(crate) const TOKEN_BYTES: usize = 32;

/// A player as stored: its version (how many changes it has had, from
/// 0), when it expires unless written again (ms since the Unix epoch), the
/// hash of its current token, and the player itself as the caller
/// serialised it (its name, when it was made, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPlayer {
    pub version: u64,
    pub expires_at_ms: u64,
    /// The SHA-256 of the player's current token (32 bytes); `None` for a
    /// player signed in by a studio's JWT alone, who has no token.
    pub token: Option<Vec<u8>>,
    pub body: Vec<u8>,
}

/// One compare-and-set of a player: created at version 0 on
/// [`Expected::Absent`], or changed to the next version. Its token's hash
/// is indexed with it: the old hash is no longer found, the new one is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerWrite {
    /// The player's id: opaque to the store, made by the caller.
    pub id: String,
    pub expected: Expected,
    /// The new state; its version must follow `expected`, as a game's.
    pub player: StoredPlayer,
}

/// What became of a [`PlayerWrite`] or an erase. Only `Written` changed
/// the player; any outcome may have deleted expired records on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayerOutcome {
    /// Stored, or erased.
    Written,
    /// The stored version is not the expected one: `current` is the live
    /// player's version, `None` if there is none (absent or expired).
    Stale { current: Option<u64> },
    /// A create, while [`StoreLimits::max_players`](crate::StoreLimits::max_players)
    /// live players are stored.
    Full,
    /// The token's hash is another live player's. Tokens are random, so
    /// this is never met in practice; the write is refused rather than
    /// have one hash find two players.
    TokenTaken,
}

/// Where a game stands in its owner's index: when it was created (ms
/// since the Unix epoch) and its id. The index lists the newest first,
/// by `created_ms` then by id; a page's last cursor starts the next one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GameCursor {
    pub created_ms: u64,
    pub id: String,
}

/// The calls on players, beside the games' in `lib.rs`: each bounded by
/// the store's timeout, as every call.
impl Store {
    /// The live player stored under `id`, if any.
    pub async fn player(&self, id: &str, now_ms: u64) -> Result<Option<StoredPlayer>, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.player(id, now_ms),
                Backend::File(store) => store.player(id, now_ms).await,
                Backend::Redis(store) => store.player(id, now_ms).await,
            }
        })
        .await
    }

    /// The live player whose current token hashes to `token`, with its
    /// id; `None` for a hash no live player has (an old token's, once the
    /// player has another).
    pub async fn player_by_token(
        &self,
        token: &[u8],
        now_ms: u64,
    ) -> Result<Option<(String, StoredPlayer)>, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.player_by_token(token, now_ms),
                Backend::File(store) => store.player_by_token(token, now_ms).await,
                Backend::Redis(store) => store.player_by_token(token, now_ms).await,
            }
        })
        .await
    }

    /// The live players `ids` name, in their order, `None` where one is
    /// absent or expired; at most [`MAX_PLAYERS_READ`] at once.
    pub async fn players(
        &self,
        ids: &[String],
        now_ms: u64,
    ) -> Result<Vec<Option<StoredPlayer>>, StoreError> {
        if ids.len() > MAX_PLAYERS_READ {
            return Err(StoreError::InvalidRead(format!(
                "{} players asked for at once, past the {MAX_PLAYERS_READ} a call reads",
                ids.len()
            )));
        }
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.players(ids, now_ms),
                Backend::File(store) => store.players(ids, now_ms).await,
                Backend::Redis(store) => store.players(ids, now_ms).await,
            }
        })
        .await
    }

    /// Creates (on [`Expected::Absent`], at version 0) or changes (to the
    /// version after the expected one) the player, if what is stored is as
    /// `write` expects: the version first, then the bound on players, then
    /// the token's hash; the player and its token's hash are stored
    /// together or not at all. A create over an expired player of the
    /// same id erases that one first, as [`Store::erase_player`] does.
    pub async fn write_player(
        &self,
        write: PlayerWrite,
        now_ms: u64,
    ) -> Result<PlayerOutcome, StoreError> {
        rules::check_player(&write)?;
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.write_player(&write, now_ms),
                Backend::File(store) => store.write_player(write, now_ms).await,
                Backend::Redis(store) => store.write_player(&write, now_ms).await,
            }
        })
        .await
    }

    /// Erases the live player `id` at version `expected`, in one step:
    /// the player, its token's hash, its entries on every leaderboard and
    /// the index of its games. Its games stay, no longer listed as its.
    /// [`PlayerOutcome::Stale`] if the player is at another version, or
    /// absent.
    pub async fn erase_player(
        &self,
        id: &str,
        expected: u64,
        now_ms: u64,
    ) -> Result<PlayerOutcome, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.erase_player(id, expected, now_ms),
                Backend::File(store) => store.erase_player(id, expected, now_ms).await,
                Backend::Redis(store) => store.erase_player(id, expected, now_ms).await,
            }
        })
        .await
    }

    /// How many players are stored, expired ones not yet purged included.
    pub async fn player_count(&self) -> Result<u64, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.player_count(),
                Backend::File(store) => store.player_count().await,
                Backend::Redis(store) => store.player_count().await,
            }
        })
        .await
    }

    /// The ids of `player`'s live games, newest created first, each with
    /// its cursor: those after `after` (exclusive), at most `limit`.
    pub async fn player_games(
        &self,
        player: &str,
        after: Option<&GameCursor>,
        limit: usize,
        now_ms: u64,
    ) -> Result<Vec<(GameCursor, String)>, StoreError> {
        self.bounded(async {
            match &self.backend {
                Backend::Memory(store) => store.player_games(player, after, limit, now_ms),
                Backend::File(store) => store.player_games(player, after, limit, now_ms).await,
                Backend::Redis(store) => store.player_games(player, after, limit, now_ms).await,
            }
        })
        .await
    }
}
