//! The players' service: sign up, find the player a token or a studio's
//! JWT names, rename, issue a new token, erase. It knows no HTTP; the
//! time is an argument, as the games' service takes it.
//!
//! A token is 256 random bits shown once; the store keeps its SHA-256
//! alone and finds the player by it. A player signed in by a studio's JWT
//! has an id made from the studio's issuer and subject, and its record is
//! made the first time the studio signs it in. Every change is a
//! compare-and-set on the player's version, as a game's is.

use super::cache::TokenCache;
use super::settings::PlayerSettings;
use super::window::PerAddress;
use crate::archive::{Archives, unavailable as archive_unavailable};
use crate::games::Clock;
use crate::games::errors::{corrupted, short, unavailable};
use crate::metrics;
use linkpath_api::players::{self, Player, Studio, TOKEN_BYTES};
use linkpath_api::{ApiError, ErrorCode};
use linkpath_store::{Expected, PlayerOutcome, PlayerWrite, Store, StoredPlayer};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often a player's expiry is moved on when it signs in: at most
/// once a day, so that signing in is a read on every other request.
const REFRESH: Duration = Duration::from_secs(86_400);

/// How many times a change is tried again after another request changed
/// the player first.
const ATTEMPTS: usize = 4;

/// The players kept in the store the games share.
pub(crate) struct Players {
    store: Arc<Store>,
    /// Where an erased player's name goes from its finished games.
    archives: Arc<Archives>,
    /// How long a player who never signs in is kept.
    idle: Duration,
    /// Whether anyone may sign up without a service's API key.
    pub guest_sign_up: bool,
    /// Whether a player's games are read by the player alone.
    pub private_games: bool,
    /// The players each address signed up this hour.
    pub sign_ups: PerAddress,
    /// Where the players' time comes from: the games' clock.
    clock: Arc<dyn Clock>,
    /// The players signed in lately, for a store this process alone
    /// writes.
    cache: TokenCache,
}

/// A player a request proved to be: its record as read, with the version
/// a change of it expects.
#[derive(Clone, Debug)]
pub(crate) struct SignedIn {
    pub player: Player,
    pub version: u64,
    pub expires_at_ms: u64,
    token: Option<Vec<u8>>,
}

impl SignedIn {
    pub(crate) fn new(
        player: Player,
        version: u64,
        expires_at_ms: u64,
        token: Option<Vec<u8>>,
    ) -> SignedIn {
        SignedIn {
            player,
            version,
            expires_at_ms,
            token,
        }
    }

    pub(crate) fn id(&self) -> &str {
        &self.player.id
    }
}

impl Players {
    pub(crate) fn new(
        store: Arc<Store>,
        settings: &PlayerSettings,
        clock: Arc<dyn Clock>,
        archives: Arc<Archives>,
    ) -> Players {
        Players {
            store: store.clone(),
            archives,
            idle: Duration::from_millis(settings.player_idle_ms),
            guest_sign_up: settings.guest_sign_up,
            private_games: settings.private_games,
            sign_ups: PerAddress::new(settings.sign_ups_per_hour, Duration::from_secs(3600)),
            clock,
            cache: TokenCache::new(if store.shared() {
                0
            } else {
                settings.player_cache
            }),
        }
    }

    /// The time now, in milliseconds since the Unix epoch.
    pub(crate) fn now(&self) -> u64 {
        self.clock.now_ms()
    }

    fn expiry(&self, now: u64) -> u64 {
        now.saturating_add(self.idle.as_millis() as u64)
    }

    /// A new player named `name`, and its token, shown this once.
    pub(crate) async fn sign_up(
        &self,
        name: String,
        now: u64,
    ) -> Result<(Player, String), ApiError> {
        let player = Player {
            id: crate::random::id("a player id")?,
            name,
            created_at_ms: now,
            studio: None,
            rating: None,
        };
        let token = players::token(&crate::random::bytes::<TOKEN_BYTES>("a player's token")?);
        let stored = StoredPlayer {
            version: 0,
            expires_at_ms: self.expiry(now),
            token: Some(players::token_hash(token.as_bytes())),
            body: players::encode(&player),
        };
        match self
            .write(&player.id, Expected::Absent, stored, now)
            .await?
        {
            PlayerOutcome::Written => {
                metrics::record_sign_up("token");
                Ok((player, token))
            }
            other => Err(refused(other)),
        }
    }

    /// The player whose token is `token`, if any is live.
    pub(crate) async fn by_token(
        &self,
        token: &[u8],
        now: u64,
    ) -> Result<Option<SignedIn>, ApiError> {
        let hash = players::token_hash(token);
        if let Some(signed_in) = self.cache.get(&hash, now)
            && !self.refresh_due(&signed_in, now)
        {
            return Ok(Some(signed_in));
        }
        let changes = self.cache.changes();
        let started = Instant::now();
        let found = self.store.player_by_token(&hash, now).await;
        metrics::record_store("read", started);
        let Some((id, stored)) = found.map_err(unavailable)? else {
            return Ok(None);
        };
        let signed_in = self.refreshed(read(&id, stored)?, now).await;
        // A refresh forgot the player, so it is kept only when none ran;
        // the next request keeps it.
        self.cache.put(hash, signed_in.clone(), changes);
        Ok(Some(signed_in))
    }

    /// The player a studio signed in as `studio`, made the first time with
    /// the name the studio gave (`fallback` if it gave none or one that
    /// is not a name).
    pub(crate) async fn by_studio(
        &self,
        studio: Studio,
        name: Option<&str>,
        now: u64,
    ) -> Result<SignedIn, ApiError> {
        let id = players::studio_player_id(&studio.issuer, &studio.subject);
        for _ in 0..ATTEMPTS {
            if let Some(signed_in) = self.find(&id, now).await? {
                return Ok(self.refreshed(signed_in, now).await);
            }
            let player = Player {
                id: id.clone(),
                name: name
                    .and_then(|name| players::read_name(name, "name").ok())
                    .unwrap_or_else(|| "player".to_owned()),
                created_at_ms: now,
                studio: Some(studio.clone()),
                rating: None,
            };
            let stored = StoredPlayer {
                version: 0,
                expires_at_ms: self.expiry(now),
                token: None,
                body: players::encode(&player),
            };
            match self
                .write(&id, Expected::Absent, stored.clone(), now)
                .await?
            {
                PlayerOutcome::Written => {
                    metrics::record_sign_up("studio");
                    return read(&id, stored);
                }
                // Signed in by another request at the same time: read it.
                PlayerOutcome::Stale { .. } => continue,
                other => return Err(refused(other)),
            }
        }
        Err(busy())
    }

    /// The live player `id`, if any.
    pub(crate) async fn find(&self, id: &str, now: u64) -> Result<Option<SignedIn>, ApiError> {
        let started = Instant::now();
        let found = self.store.player(id, now).await;
        metrics::record_store("read", started);
        match found.map_err(unavailable)? {
            Some(stored) => Ok(Some(read(id, stored)?)),
            None => Ok(None),
        }
    }

    /// The names of the live players among `ids`, in order.
    pub(crate) async fn names(
        &self,
        ids: &[String],
        now: u64,
    ) -> Result<Vec<Option<String>>, ApiError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let started = Instant::now();
        let found = self.store.players(ids, now).await;
        metrics::record_store("read", started);
        found
            .map_err(unavailable)?
            .into_iter()
            .zip(ids)
            .map(|(stored, id)| match stored {
                Some(stored) => read(id, stored).map(|signed_in| Some(signed_in.player.name)),
                None => Ok(None),
            })
            .collect()
    }

    /// Renames the player.
    pub(crate) async fn rename(
        &self,
        signed_in: &SignedIn,
        name: String,
        now: u64,
    ) -> Result<Player, ApiError> {
        self.change(signed_in, now, |player, _| {
            player.name = name.clone();
            Ok(())
        })
        .await
        .map(|(player, _)| player)
    }

    /// Gives the player a new token, which it answers; the old one is
    /// refused from now on.
    pub(crate) async fn new_token(
        &self,
        signed_in: &SignedIn,
        now: u64,
    ) -> Result<(Player, String), ApiError> {
        let token = players::token(&crate::random::bytes::<TOKEN_BYTES>("a player's token")?);
        let hash = players::token_hash(token.as_bytes());
        let (player, _) = self
            .change(signed_in, now, |_, stored_token| {
                *stored_token = Some(hash.clone());
                Ok(())
            })
            .await?;
        Ok((player, token))
    }

    /// Erases the player: its record, its token, its leaderboard entries
    /// and the list of its games; the games stay, without it. Its name
    /// goes from its archived games first, so that an archive away
    /// answers 503 with nothing erased, and the retry erases it all.
    pub(crate) async fn erase(&self, signed_in: &SignedIn, now: u64) -> Result<(), ApiError> {
        if self.archives.spec().is_some() {
            let archive = self.archives.archive().await.map_err(archive_unavailable)?;
            archive
                .erase_player(signed_in.id())
                .await
                .map_err(archive_unavailable)?;
        }
        let mut version = signed_in.version;
        for _ in 0..ATTEMPTS {
            self.cache.forget(signed_in.id());
            let started = Instant::now();
            let outcome = self.store.erase_player(signed_in.id(), version, now).await;
            metrics::record_store("write", started);
            match outcome.map_err(unavailable)? {
                PlayerOutcome::Written => return Ok(()),
                PlayerOutcome::Stale {
                    current: Some(current),
                } => version = current,
                PlayerOutcome::Stale { current: None } => return Err(gone()),
                other => return Err(refused(other)),
            }
        }
        Err(busy())
    }

    /// Changes the player with `change` (its record and its token hash) on
    /// what is stored now, its expiry moved on; again if another request
    /// changed it first.
    async fn change(
        &self,
        signed_in: &SignedIn,
        now: u64,
        change: impl Fn(&mut Player, &mut Option<Vec<u8>>) -> Result<(), ApiError>,
    ) -> Result<(Player, u64), ApiError> {
        let mut current = signed_in.clone();
        for _ in 0..ATTEMPTS {
            let mut player = current.player.clone();
            let mut token = current.token.clone();
            change(&mut player, &mut token)?;
            let stored = StoredPlayer {
                version: current.version + 1,
                expires_at_ms: self.expiry(now),
                token,
                body: players::encode(&player),
            };
            let expected = Expected::Version(current.version);
            match self.write(signed_in.id(), expected, stored, now).await? {
                PlayerOutcome::Written => return Ok((player, current.version + 1)),
                PlayerOutcome::Stale { current: Some(_) } => {
                    current = self.find(signed_in.id(), now).await?.ok_or_else(gone)?;
                }
                PlayerOutcome::Stale { current: None } => return Err(gone()),
                other => return Err(refused(other)),
            }
        }
        Err(busy())
    }

    /// `signed_in`, its expiry moved on if a day has passed since it last
    /// was. A refresh that fails changes nothing the request needs: the
    /// player is answered as read.
    async fn refreshed(&self, signed_in: SignedIn, now: u64) -> SignedIn {
        if !self.refresh_due(&signed_in, now) {
            return signed_in;
        }
        let stored = StoredPlayer {
            version: signed_in.version + 1,
            expires_at_ms: self.expiry(now),
            token: signed_in.token.clone(),
            body: players::encode(&signed_in.player),
        };
        let expected = Expected::Version(signed_in.version);
        match self
            .write(signed_in.id(), expected, stored.clone(), now)
            .await
        {
            Ok(PlayerOutcome::Written) => read(signed_in.id(), stored).unwrap_or(signed_in),
            _ => signed_in,
        }
    }

    /// Whether a day has passed since `signed_in`'s expiry was last moved
    /// on.
    fn refresh_due(&self, signed_in: &SignedIn, now: u64) -> bool {
        let due = self.expiry(now).saturating_sub(REFRESH.as_millis() as u64);
        signed_in.expires_at_ms <= due
    }

    /// The write that gives `signed_in` its rating after a match, to go
    /// with the match's write; the cache forgets the player first.
    pub(crate) fn rated(
        &self,
        signed_in: &SignedIn,
        rating: linkpath_api::matches::Rating,
        now: u64,
    ) -> PlayerWrite {
        self.cache.forget(signed_in.id());
        let player = Player {
            rating: Some(rating),
            ..signed_in.player.clone()
        };
        PlayerWrite {
            id: signed_in.id().to_owned(),
            expected: Expected::Version(signed_in.version),
            player: StoredPlayer {
                version: signed_in.version + 1,
                expires_at_ms: self.expiry(now),
                token: signed_in.token.clone(),
                body: players::encode(&player),
            },
        }
    }

    /// Writes a player; the cache forgets it first, so that no request
    /// finds it as it was once the write is done.
    async fn write(
        &self,
        id: &str,
        expected: Expected,
        player: StoredPlayer,
        now: u64,
    ) -> Result<PlayerOutcome, ApiError> {
        self.cache.forget(id);
        let write = PlayerWrite {
            id: id.to_owned(),
            expected,
            player,
        };
        let started = Instant::now();
        let outcome = self.store.write_player(write, now).await;
        metrics::record_store("write", started);
        outcome.map_err(unavailable)
    }
}

/// A stored player read back.
fn read(id: &str, stored: StoredPlayer) -> Result<SignedIn, ApiError> {
    let player = players::decode(&stored.body)
        .map_err(|e| corrupted(format!("player {}…: {e}", short(id))))?;
    Ok(SignedIn::new(
        player,
        stored.version,
        stored.expires_at_ms,
        stored.token,
    ))
}

/// A write the store refused for a bound or a clash.
fn refused(outcome: PlayerOutcome) -> ApiError {
    match outcome {
        PlayerOutcome::Full => ApiError::new(
            ErrorCode::StoreFull,
            "the server holds as many players as it allows; retry once idle players expire",
        )
        .retry_after(60),
        // A fresh 256-bit token or 128-bit id is never taken.
        _ => ApiError::new(
            ErrorCode::StoreUnavailable,
            "the new player's id or token was taken; retry",
        )
        .retry_after(1),
    }
}

/// The player was erased, or expired, while the request was served.
fn gone() -> ApiError {
    ApiError::new(
        ErrorCode::Unauthorized,
        "the player was erased or expired: sign up again",
    )
}

fn busy() -> ApiError {
    ApiError::new(
        ErrorCode::StoreUnavailable,
        "the player changed under every attempt; retry shortly",
    )
    .retry_after(1)
}
