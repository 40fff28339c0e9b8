//! What the server holds while it serves, built once from the
//! [`Config`]: the games and their store, the solver pool, the body
//! limits, the access gates, the studio-token verifier and the probes.
//! Each handler takes only the part it needs, as an axum sub-state
//! ([`FromRef`]): a route module names those parts, never [`AppState`], so
//! no module below the router depends on the whole.

use crate::access::{ApiKeys, ClientLimiter, RateLimit};
use crate::archive::Archives;
use crate::body::BodyLimits;
use crate::budget::MemoryBudget;
use crate::client::TrustedProxies;
use crate::config::{self, Config};
use crate::games::{Clock, Games, SystemClock};
use crate::health::Probes;
use crate::jwt::JwtVerifier;
use crate::matches::{Matches, Seeks};
use crate::metrics;
use crate::players::window::PerAddress;
use crate::players::{Gate, Players};
use crate::solvers::Solvers;
use axum::extract::FromRef;
use linkpath_api::Limits;
use metrics_exporter_prometheus::PrometheusHandle;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The server's state: the parts every handler takes from.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    limits: Limits,
    solvers: Solvers,
    body: BodyLimits,
    gate: Gate,
    players: Arc<Players>,
    matches: Arc<Matches>,
    seeks: Arc<Seeks>,
    rate: RateLimit,
    probes: Probes,
    archives: Arc<Archives>,
}

impl AppState {
    /// The state of a server keeping its games in the store `config`
    /// names; the error says why the store did not open.
    pub fn open(config: Config) -> Result<Self, linkpath_store::StoreError> {
        AppState::open_on(config, Arc::new(SystemClock))
    }

    /// As [`AppState::open`], with the games' time read from `clock`.
    pub fn open_on(
        config: Config,
        clock: Arc<dyn Clock>,
    ) -> Result<Self, linkpath_store::StoreError> {
        let archive = config.archive.spec(&config.games.store);
        let limits = store_limits(&config, archive.is_some());
        let store = linkpath_store::Store::open(&config.games.store, limits)?;
        Ok(AppState::with_store(config, store, archive, clock))
    }

    /// The state of a server keeping its games in memory, whatever
    /// `config` names, and its finished games in the archive `config`
    /// sets, else in memory: for tests and embedding.
    pub fn new(config: Config) -> Self {
        AppState::in_memory(config, Arc::new(SystemClock))
    }

    /// As [`AppState::new`], with the games' time read from `clock`: tests
    /// move it on instead of sleeping.
    pub fn in_memory(config: Config, clock: Arc<dyn Clock>) -> Self {
        let archive = config.archive.spec(&linkpath_store::StoreSpec::Memory);
        let limits = store_limits(&config, archive.is_some());
        let store = linkpath_store::Store::open(&linkpath_store::StoreSpec::Memory, limits)
            .expect("a memory store opens");
        AppState::with_store(config, store, archive, clock)
    }

    fn with_store(
        config: Config,
        store: linkpath_store::Store,
        archive: Option<linkpath_archive::ArchiveSpec>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        let store = Arc::new(store);
        let solvers = Solvers::new(
            config.workers(),
            config.solve_timeout(),
            config.inline_max_bytes,
        );
        // Streams bounded to leave connections to other requests.
        let game_settings = config::GameSettings {
            max_streams: config.stream_bound(),
            ..config.games.clone()
        };
        let games = Arc::new(Games::new(
            store.clone(),
            &game_settings,
            config.players.private_games,
            config.limits(),
            solvers.clone(),
            clock.clone(),
        ));
        let archives = Arc::new(Archives::new(
            archive,
            archive_limits(&config),
            config.archive.archive_retention_ms,
            games.finished.clone(),
        ));
        let players = Arc::new(Players::new(
            store.clone(),
            &config.players,
            clock,
            archives.clone(),
        ));
        let matches = Arc::new(Matches::new(
            store,
            games.clone(),
            players.clone(),
            config.games.match_countdown_ms,
            config.games.match_join_ms,
            solvers.clone(),
        ));
        let seeks = Arc::new(Seeks::new(
            matches.clone(),
            players.clone(),
            config.games.seek_wait_ms,
            config.games.seek_rating_range,
            config.games.max_seeks,
        ));
        // A change of a game of a match tells the match.
        let _ = games.matches.set(Arc::downgrade(&matches));
        let memory = MemoryBudget::new(config.memory_budget());
        let body_timeout = Duration::from_millis(config.body_timeout_ms);
        AppState {
            limits: config.limits(),
            solvers,
            body: BodyLimits {
                max_bytes: config.request.max_body_bytes,
                timeout: body_timeout,
                memory: memory.clone(),
                memory_wait: Duration::from_millis(config.memory_wait_ms),
            },
            gate: Gate {
                keys: ApiKeys::new(&config.api_keys),
                players: players.clone(),
                jwt: player_jwt(&config),
                guessing: PerAddress::new(
                    config.players.token_failures_per_minute,
                    Duration::from_secs(60),
                ),
                trusted: TrustedProxies::new(&config.trusted_proxies),
            },
            players,
            matches,
            seeks,
            rate: RateLimit {
                limiter: NonZeroU32::new(config.rate_limit_per_second).map(|rate| {
                    let burst = config.rate_limit_burst.unwrap_or(config::DEFAULT_BURST);
                    let burst = NonZeroU32::new(burst).unwrap_or(rate);
                    ClientLimiter::new(rate, burst)
                }),
                body_timeout,
                trusted: TrustedProxies::new(&config.trusted_proxies),
            },
            probes: Probes {
                ready: Arc::new(AtomicBool::new(true)),
                games,
                memory,
                prometheus: prometheus(),
            },
            archives,
            config: Arc::new(config),
        }
    }

    /// Marks the server as shutting down: `/readyz` turns 503.
    pub fn begin_shutdown(&self) {
        self.probes.ready.store(false, Ordering::Relaxed);
        self.seeks.close();
    }

    /// How many seeks wait in this process, as it changes: tests wait for
    /// a seek to be waiting before they move the clock on.
    pub fn seeks_waiting(&self) -> tokio::sync::watch::Receiver<usize> {
        self.seeks.waiting()
    }

    /// Opens the archive if it is not yet, as the archiver does: an
    /// archive that cannot open (a file locked by another process) is an
    /// error to stop the start on, and one not reachable (a PostgreSQL
    /// not up yet) is logged and tried again each second while serving.
    pub async fn open_archive(&self) -> Result<(), linkpath_archive::ArchiveError> {
        let Some(spec) = self.archives.spec() else {
            tracing::warn!(
                "no archive is set: with a Redis store, finished games leave the store as they expire until --archive (LINKPATH_ARCHIVE) names a PostgreSQL the replicas share"
            );
            return Ok(());
        };
        match self.archives.archive().await {
            Ok(_) => Ok(()),
            Err(e) if e.is_unavailable() => {
                tracing::warn!(error = %e, archive = %spec, "the archive is not reachable; games go on, finished ones held in the store until it is, and archived history answers 503");
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// The archive, opened now if it is not yet: tests read what the
    /// archiver wrote.
    pub async fn archive(
        &self,
    ) -> Result<linkpath_archive::Archive, linkpath_archive::ArchiveError> {
        self.archives.archive().await.cloned()
    }

    /// Copies finished games to the archive once, as the archiver does
    /// each second, at the games' time: tests run it on a held clock.
    pub async fn archive_pass(&self) -> Result<crate::ArchivePass, String> {
        let store = &self.games().records.store;
        crate::archive::pass(&self.archives, store, self.games().now()).await
    }

    /// Runs one round of the sweep that erases from the archive the names
    /// of players gone from the live store, as the archiver does every
    /// 30 s, at the games' time: tests run it on a held clock.
    pub async fn archive_names_round(&self) -> Result<crate::ArchiveNamesRound, String> {
        let store = &self.games().records.store;
        crate::archive::erase_gone(&self.archives, store, self.games().now()).await
    }

    /// The live store the games are kept in: tests read its marks.
    pub fn store(&self) -> &Arc<linkpath_store::Store> {
        &self.games().records.store
    }

    pub(crate) fn archives(&self) -> &Arc<Archives> {
        &self.archives
    }

    pub(crate) fn games(&self) -> &Arc<Games> {
        &self.probes.games
    }

    pub(crate) fn matches(&self) -> &Arc<Matches> {
        &self.matches
    }

    pub(crate) fn memory(&self) -> &MemoryBudget {
        &self.body.memory
    }

    pub(crate) fn prometheus(&self) -> &PrometheusHandle {
        &self.probes.prometheus
    }

    pub(crate) fn limiter(&self) -> Option<&ClientLimiter> {
        self.rate.limiter.as_ref()
    }
}

/// The studio-token verifier. `Config::validate` refuses to start with
/// settings it cannot build from; a server embedded without that check
/// and such settings takes no studio token, and says why.
fn player_jwt(config: &Config) -> Option<JwtVerifier> {
    match JwtVerifier::from_config(config) {
        Ok(verifier) => verifier,
        Err(message) => {
            tracing::error!(%message, "studio tokens are refused");
            None
        }
    }
}

/// The store's bounds; with an archive, a finished game waits for its
/// archive copy before it may leave the store.
fn store_limits(config: &Config, archived: bool) -> linkpath_store::StoreLimits {
    linkpath_store::StoreLimits {
        max_games: config.games.max_games,
        max_keys_per_game: config.games.max_keys_per_game,
        max_kept_bytes: config.games.max_kept_bytes,
        max_boards: config.games.max_leaderboards,
        board_size: usize::from(config.games.leaderboard_size),
        max_players: config.players.max_players,
        max_games_per_player: config.players.max_games_per_player,
        max_matches: config.games.max_matches,
        timeout: Duration::from_millis(config.games.store_timeout_ms),
        keep_unarchived: archived,
        feed_heartbeat: linkpath_store::FEED_HEARTBEAT,
    }
}

/// The archive's bounds: a record as large as the replay of the largest
/// game, plus its result.
fn archive_limits(config: &Config) -> linkpath_archive::ArchiveLimits {
    let limits = config.archive.limits();
    let cells = config.games.max_game_cells.min(config.request.max_cells) as u64;
    let largest = linkpath_api::games::Replay::largest(cells, config.games.max_game_actions as u64);
    let largest = usize::try_from(largest)
        .unwrap_or(usize::MAX)
        .saturating_add(1024);
    linkpath_archive::ArchiveLimits {
        max_body_bytes: limits.max_body_bytes.max(largest),
        ..limits
    }
}

/// The process-wide Prometheus recorder; installed once, shared by every
/// app built in the process (tests build many).
fn prometheus() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(metrics::install).clone()
}

/// Each part a handler may take, cloned from the whole.
macro_rules! parts {
    ($($part:ty => |$state:ident| $take:expr;)*) => {
        $(impl FromRef<AppState> for $part {
            fn from_ref($state: &AppState) -> Self {
                $take.clone()
            }
        })*
    };
}

parts! {
    Arc<Games> => |state| state.probes.games;
    Solvers => |state| state.solvers;
    Limits => |state| state.limits;
    BodyLimits => |state| state.body;
    Gate => |state| state.gate;
    Arc<Players> => |state| state.players;
    Arc<Matches> => |state| state.matches;
    Arc<Seeks> => |state| state.seeks;
    RateLimit => |state| state.rate;
    Probes => |state| state.probes;
    Arc<Archives> => |state| state.archives;
}
