//! The server's settings: one clap struct, each field a flag with an
//! environment variable, so `linkpath serve --help` is the reference.
//!
//! A setting that makes no sense stops the process at start, with one line
//! naming the flag, its variable and what was expected: each field's value
//! parser refuses what it cannot take alone (a zero size, an empty API key),
//! and [`Config::validate`] what only makes no sense together (event
//! streams that could take every connection, among others).

use linkpath_api::Limits;
use std::net::SocketAddr;
use std::time::Duration;

/// The limits of one request, shared by the server and `linkpath solve`
/// and `linkpath render`.
#[derive(Clone, Debug, clap::Args)]
pub struct RequestLimits {
    /// Largest request body in bytes (413 beyond); at least 1.
    #[arg(long, env = "LINKPATH_MAX_BODY_BYTES", default_value_t = 16 << 20, value_parser = at_least_one::<usize>)]
    pub max_body_bytes: usize,

    /// Most cells a board may have (413 beyond); at least 1.
    #[arg(long, env = "LINKPATH_MAX_CELLS", default_value_t = 1 << 20, value_parser = at_least_one::<usize>)]
    pub max_cells: usize,

    /// Most cells a board may have along one side (413 beyond); at least 1.
    #[arg(long, env = "LINKPATH_MAX_SIDE", default_value_t = 1 << 16, value_parser = at_least_one::<usize>)]
    pub max_side: usize,

    /// Most queries in one request (413 beyond); at least 1.
    #[arg(long, env = "LINKPATH_MAX_QUERIES", default_value_t = 10_000, value_parser = at_least_one::<usize>)]
    pub max_queries: usize,

    /// Largest `max_segments` a request may ask for (422 beyond); at least
    /// 1.
    #[arg(long, env = "LINKPATH_MAX_SEGMENTS", default_value_t = 100_000, value_parser = at_least_one::<u32>)]
    pub max_segments: u32,

    /// Time a solve may take before it is stopped with 504, in
    /// milliseconds; at least 1.
    #[arg(long, env = "LINKPATH_SOLVE_TIMEOUT_MS", default_value_t = 10_000, value_parser = at_least_one::<u64>)]
    pub solve_timeout_ms: u64,
}

impl RequestLimits {
    /// The limits of the wire format; `max_moves` and `max_render_cells`
    /// are the server's.
    pub fn limits(&self, max_moves: usize, max_render_cells: usize) -> Limits {
        Limits {
            max_cells: self.max_cells,
            max_side: self.max_side,
            max_queries: self.max_queries,
            max_segments: self.max_segments,
            max_moves: max_moves.max(1),
            max_render_cells,
            picture: false,
        }
    }

    pub fn solve_timeout(&self) -> Duration {
        Duration::from_millis(self.solve_timeout_ms)
    }
}

/// Not `Debug`: it holds the API keys, which are never logged.
#[derive(Clone, clap::Args)]
pub struct Config {
    #[command(flatten)]
    pub request: RequestLimits,

    /// Address and port to listen on (port 0: any free port).
    #[arg(long, env = "LINKPATH_LISTEN", default_value = "127.0.0.1:8080", value_parser = parse_listen)]
    pub listen: SocketAddr,

    /// Solves that may run at once; further requests get 503 (default: the
    /// number of cores); at least 1.
    #[arg(long, env = "LINKPATH_WORKERS", value_parser = at_least_one::<usize>)]
    pub workers: Option<usize>,

    /// Time a client has to send its request headers, in milliseconds; at
    /// least 1.
    #[arg(long, env = "LINKPATH_HEADER_TIMEOUT_MS", default_value_t = 5_000, value_parser = at_least_one::<u64>)]
    pub header_timeout_ms: u64,

    /// Time a client has to send its request body, in milliseconds (408
    /// beyond); at least 1.
    #[arg(long, env = "LINKPATH_BODY_TIMEOUT_MS", default_value_t = 10_000, value_parser = at_least_one::<u64>)]
    pub body_timeout_ms: u64,

    /// Most open connections; at least 1. When they are all open, the idle
    /// ones (between requests, or connected and silent) are closed to make
    /// room, longest idle first; when none is idle, further connections
    /// wait in the accept queue. Event streams take at most all but 16 of
    /// them (see `--max-streams`).
    #[arg(long, env = "LINKPATH_MAX_CONNECTIONS", default_value_t = 1024, value_parser = at_least_one::<usize>)]
    pub max_connections: usize,

    /// Connections the kernel holds for the server to accept, beyond the
    /// open ones; at least 1, and at most the kernel's
    /// `net.core.somaxconn`. When the queue is full, the kernel drops new
    /// connections' first packet and their clients try again a second
    /// later.
    #[arg(long, env = "LINKPATH_LISTEN_BACKLOG", default_value_t = 4096, value_parser = at_least_one::<u32>)]
    pub listen_backlog: u32,

    /// Slowest rate, in bytes a second, at which a client may send a
    /// request's headers and body, measured over periods of
    /// `--receive-grace-ms`; a slower connection is closed, as nginx's and
    /// Envoy's timeouts between reads do (0: no minimum). At the connection
    /// cap, when no connection is idle, the senders under that rate are
    /// closed to make room.
    #[arg(long, env = "LINKPATH_MIN_RECEIVE_RATE", default_value_t = 1024)]
    pub min_receive_rate: u64,

    /// The period over which the receive rate is measured, in
    /// milliseconds: the first check comes after it.
    #[arg(long, env = "LINKPATH_RECEIVE_GRACE_MS", default_value_t = 2_000)]
    pub receive_grace_ms: u64,

    /// Bytes that request bodies being read or worked on (counted twice:
    /// the body and its decoded form) and answers not yet written may hold
    /// at once. A body that does not fit waits `--memory-wait-ms`, then
    /// gets 503 (default: a quarter of the memory limit of the process's
    /// cgroup, or 256 MiB without one).
    #[arg(long, env = "LINKPATH_MEMORY_BUDGET_BYTES", value_parser = at_least_one::<usize>)]
    pub memory_budget_bytes: Option<usize>,

    /// Time a body waits for room in the memory budget before its 503, in
    /// milliseconds.
    #[arg(long, env = "LINKPATH_MEMORY_WAIT_MS", default_value_t = 1_000)]
    pub memory_wait_ms: u64,

    /// Address and port of the admin listener, which serves `/healthz`,
    /// `/readyz` and `/metrics` on connections of its own, so that probes
    /// and scrapes are answered whatever the application traffic does
    /// (none: the routes are on the main listener only).
    #[arg(long, env = "LINKPATH_ADMIN_LISTEN", value_parser = parse_listen)]
    pub admin_listen: Option<SocketAddr>,

    /// Most open connections on the admin listener; one more waits in the
    /// accept queue.
    #[arg(long, env = "LINKPATH_ADMIN_MAX_CONNECTIONS", default_value_t = 16, value_parser = at_least_one::<usize>)]
    pub admin_max_connections: usize,

    /// Most open connections from one client address; a connection over it
    /// is answered 429 at once and closed, without its request being read
    /// (0: no limit).
    #[arg(long, env = "LINKPATH_MAX_CONNECTIONS_PER_CLIENT", default_value_t = 0)]
    pub max_connections_per_client: usize,

    /// Time an answer may make no progress because the client does not read
    /// it, in milliseconds; the connection is then closed (0: no limit).
    #[arg(long, env = "LINKPATH_WRITE_TIMEOUT_MS", default_value_t = 10_000)]
    pub write_timeout_ms: u64,

    /// After an answer sent before the request body was read (413, 401,
    /// 404, ...), how long to keep reading and discarding that body before
    /// closing, so that a client that writes its whole body first still
    /// reads the answer instead of a reset, in milliseconds (0: close at
    /// once).
    #[arg(long, env = "LINKPATH_LINGER_MS", default_value_t = 30_000)]
    pub linger_ms: u64,

    /// Most bytes read and discarded that way before closing anyway.
    #[arg(long, env = "LINKPATH_LINGER_BYTES", default_value_t = 64 << 20)]
    pub linger_bytes: u64,

    /// After SIGTERM, how long to keep accepting connections (with /readyz
    /// answering 503) so load balancers notice, in milliseconds.
    #[arg(long, env = "LINKPATH_SHUTDOWN_GRACE_MS", default_value_t = 1_000)]
    pub shutdown_grace_ms: u64,

    /// After that, how long in-flight requests may take to finish before
    /// the process exits anyway, in milliseconds (0: exit at once).
    #[arg(long, env = "LINKPATH_DRAIN_TIMEOUT_MS", default_value_t = 15_000)]
    pub drain_timeout_ms: u64,

    /// Bodies up to this size whose rules need no unbounded search are
    /// solved on the async worker instead of the blocking pool (0: never).
    #[arg(long, env = "LINKPATH_INLINE_MAX_BYTES", default_value_t = 4096)]
    pub inline_max_bytes: usize,

    /// Answers of at least this many bytes are compressed (gzip, and br or
    /// zstd in a build with those features, as the image is, as the
    /// request's `Accept-Encoding` prefers); smaller ones cost
    /// more to compress than they save, and event streams never are (0:
    /// never compress).
    #[arg(long, env = "LINKPATH_COMPRESS_MIN_BYTES", default_value_t = 1024)]
    pub compress_min_bytes: u64,

    /// API keys (comma-separated) that /v1/* requires as `Authorization:
    /// Bearer <key>`; none: open. Health and metrics routes stay open. Each
    /// key is visible ASCII (`!` to `~`, spaces around it ignored); an
    /// empty one (`,`, ` `, `a,,b`) is refused rather than leaving the API
    /// open.
    #[arg(
        long,
        env = "LINKPATH_API_KEYS",
        value_delimiter = ',',
        hide_env_values = true,
        value_parser = parse_api_key
    )]
    pub api_keys: Vec<String>,

    /// Origins (comma-separated, `*` for any) whose browser pages may call
    /// the API; none: no CORS headers.
    #[arg(long, env = "LINKPATH_CORS_ORIGINS", value_delimiter = ',', value_parser = parse_origin)]
    pub cors_origins: Vec<String>,

    /// Requests a second each client address may make to /v1/* (429
    /// beyond); 0: no limit.
    #[arg(long, env = "LINKPATH_RATE_LIMIT_PER_SECOND", default_value_t = 0)]
    pub rate_limit_per_second: u32,

    /// Requests a client may make at once above that rate (default: 20);
    /// at least 1, and only with a rate.
    #[arg(long, env = "LINKPATH_RATE_LIMIT_BURST", value_parser = at_least_one::<u32>)]
    pub rate_limit_burst: Option<u32>,

    /// Proxies (comma-separated CIDRs or addresses) whose `Forwarded` or
    /// `X-Forwarded-For` header names the client: a request from one of
    /// them is counted against the client that header names, the nearest
    /// address not itself a trusted proxy, rather than the proxy's; none:
    /// every client is its TCP peer.
    #[arg(long, env = "LINKPATH_TRUSTED_PROXIES", value_delimiter = ',', value_parser = parse_cidr)]
    pub trusted_proxies: Vec<ipnet::IpNet>,

    /// Log format: text or json.
    #[arg(long, env = "LINKPATH_LOG_FORMAT", default_value = "text", value_parser = ["text", "json"])]
    pub log_format: String,

    /// Most moves `/v1/moves` lists: a longer list is cut there and the
    /// answer says `"truncated": true`; at least 1.
    #[arg(long, env = "LINKPATH_MAX_MOVES", default_value_t = 10_000, value_parser = at_least_one::<usize>)]
    pub max_moves: usize,

    /// Most cells, queries and path segments `/v1/render` draws (413
    /// beyond; a query counts one, and one a segment, or two for its end
    /// marks when it does not connect): at most 260 bytes of SVG each and
    /// 10 KiB besides, so the default keeps a picture under 4.3 MB; at
    /// least 1.
    #[arg(long, env = "LINKPATH_MAX_RENDER_CELLS", default_value_t = 16_384, value_parser = at_least_one::<usize>)]
    pub max_render_cells: usize,

    #[command(flatten)]
    pub games: GameSettings,

    #[command(flatten)]
    pub archive: crate::archive::ArchiveSettings,

    #[command(flatten)]
    pub players: crate::players::PlayerSettings,

    #[command(flatten)]
    pub player_jwt: PlayerJwtSettings,
}

/// How players signed in by a studio's own login are checked: the studio
/// signs a JWT naming the player (`sub`), linkpath verifies it. Not
/// `Debug`: it holds the shared secret, which is never logged.
#[derive(Clone, clap::Args)]
pub struct PlayerJwtSettings {
    /// A file holding the key studio tokens are signed with: a PEM public
    /// key (RSA: RS256; Ed25519: EdDSA) or a JWKS (`{"keys": [...]}`, each
    /// key picked by the token's `kid`, RSA or OKP Ed25519, its algorithm
    /// the key's). At most one of this and `--player-jwt-secret`; none:
    /// no studio tokens.
    #[arg(long, env = "LINKPATH_PLAYER_JWT_KEY", value_name = "PATH")]
    pub player_jwt_key: Option<std::path::PathBuf>,

    /// A shared secret studio tokens are signed with (HS256), at least 32
    /// bytes. At most one of this and `--player-jwt-key`; none: no studio
    /// tokens.
    #[arg(long, env = "LINKPATH_PLAYER_JWT_SECRET", hide_env_values = true)]
    pub player_jwt_secret: Option<String>,

    /// The issuer (`iss`) studio tokens must carry; required with a key or
    /// secret, and only with one.
    #[arg(long, env = "LINKPATH_PLAYER_JWT_ISSUER", value_parser = parse_claim)]
    pub player_jwt_issuer: Option<String>,

    /// The audience (`aud`) studio tokens must name; required with a key
    /// or secret, and only with one.
    #[arg(long, env = "LINKPATH_PLAYER_JWT_AUDIENCE", value_parser = parse_claim)]
    pub player_jwt_audience: Option<String>,

    /// Clock difference allowed between the studio and linkpath when
    /// checking a token's `exp` and `nbf`, in milliseconds.
    #[arg(long, env = "LINKPATH_PLAYER_JWT_LEEWAY_MS", default_value_t = 30_000)]
    pub player_jwt_leeway_ms: u64,
}

/// Where games are kept and what each may hold.
#[derive(Clone, Debug, clap::Args)]
pub struct GameSettings {
    /// Where games are kept: `file:PATH`, a redb file created with its
    /// folder if missing (every change on disk before it is answered);
    /// `redis://HOST[:PORT][/DB]` (`rediss://` with TLS), a Redis server
    /// that replicas share, its keys under `?prefix=NAME` (default
    /// `linkpath`); or `memory` (gone when the process stops).
    #[arg(
        long,
        env = "LINKPATH_STORE",
        default_value = "file:linkpath-games.redb"
    )]
    pub store: linkpath_store::StoreSpec,

    /// Most games kept at once, finished and idle ones included until they
    /// expire (an expired game makes room for a new one at once); a new
    /// game past it gets 503 `store_full`; at least 1.
    #[arg(long, env = "LINKPATH_MAX_GAMES", default_value_t = 100_000, value_parser = at_least_one::<u64>)]
    pub max_games: u64,

    /// Most matches (races of several players on one deal) kept at once,
    /// finished and open ones included until they expire (an expired match
    /// makes room for a new one at once); at least 1.
    #[arg(long, env = "LINKPATH_MAX_MATCHES", default_value_t = 10_000, value_parser = at_least_one::<u64>)]
    pub max_matches: u64,

    /// Time between a match's last seat taken (or its start) and the race,
    /// in milliseconds: the countdown every player sees.
    #[arg(long, env = "LINKPATH_MATCH_COUNTDOWN_MS", default_value_t = 3_000)]
    pub match_countdown_ms: u64,

    /// Time an open match waits for its players, in milliseconds; then
    /// nobody can join it and its id answers 404; at least 1.
    #[arg(long, env = "LINKPATH_MATCH_JOIN_MS", default_value_t = 600_000, value_parser = at_least_one::<u64>)]
    pub match_join_ms: u64,

    /// Longest a `POST /v1/matches/seek` waits for partners, in
    /// milliseconds; then it answers 204 and the client seeks again.
    #[arg(long, env = "LINKPATH_SEEK_WAIT_MS", default_value_t = 30_000)]
    pub seek_wait_ms: u64,

    /// How far a seeker's rating may be from the first seeker's for them
    /// to be seated together (a player never rated counts as 1500).
    #[arg(long, env = "LINKPATH_SEEK_RATING_RANGE", default_value_t = 300)]
    pub seek_rating_range: u32,

    /// Most seeks waiting at once in this process; past it a seek gets
    /// 503 with `Retry-After`; at least 1.
    #[arg(long, env = "LINKPATH_MAX_SEEKS", default_value_t = 10_000, value_parser = at_least_one::<usize>)]
    pub max_seeks: usize,

    /// Time a game nobody changes is kept, in milliseconds; then it is
    /// purged and its id answers 404; at least 1.
    #[arg(long, env = "LINKPATH_GAME_IDLE_MS", default_value_t = 86_400_000, value_parser = at_least_one::<u64>)]
    pub game_idle_ms: u64,

    /// Most actions one game keeps (its history for undo and replays);
    /// past it every action is refused with 409; at least 1.
    #[arg(long, env = "LINKPATH_MAX_GAME_ACTIONS", default_value_t = 10_000, value_parser = at_least_one::<usize>)]
    pub max_game_actions: usize,

    /// Most bytes of one game's log, its history for undo and replays
    /// (docs/games.md, "What a game stores"); an action whose entry would
    /// pass it is refused with 409; at least 1.
    #[arg(long, env = "LINKPATH_MAX_GAME_LOG_BYTES", default_value_t = 8 << 20, value_parser = at_least_one::<u64>)]
    pub max_game_log_bytes: u64,

    /// The fastest play a person makes, as the median time between a
    /// game's moves in milliseconds: a win played faster is kept but not
    /// ranked (`unranked: too_fast`); 0: no floor.
    #[arg(long, env = "LINKPATH_MIN_MOVE_GAP_MS", default_value_t = 0)]
    pub min_move_gap_ms: u64,

    /// Most cells of a game's board (413 beyond), below `--max-cells`: a
    /// game's record, its board with it, is written on every change; at
    /// least 1.
    #[arg(long, env = "LINKPATH_MAX_GAME_CELLS", default_value_t = 10_000, value_parser = at_least_one::<usize>)]
    pub max_game_cells: usize,

    /// Most leaderboards kept at once; a won game whose board would be one
    /// more is not entered (the win stands); at least 1.
    #[arg(long, env = "LINKPATH_MAX_LEADERBOARDS", default_value_t = 10_000, value_parser = at_least_one::<u64>)]
    pub max_leaderboards: u64,

    /// Entries a leaderboard keeps, its best; at least 1, at most 1,000.
    #[arg(long, env = "LINKPATH_LEADERBOARD_SIZE", default_value_t = 100, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub leaderboard_size: u16,

    /// Time a leaderboard is kept after its last entry, in milliseconds;
    /// at least 1.
    #[arg(long, env = "LINKPATH_LEADERBOARD_TTL_MS", default_value_t = 2_592_000_000, value_parser = at_least_one::<u64>)]
    pub leaderboard_ttl_ms: u64,

    /// Time the answer to a request with an `Idempotency-Key` is kept, in
    /// milliseconds: a retry within it gets that answer again; at least 1.
    #[arg(long, env = "LINKPATH_IDEMPOTENCY_TTL_MS", default_value_t = 86_400_000, value_parser = at_least_one::<u64>)]
    pub idempotency_ttl_ms: u64,

    /// Most answers kept under idempotency keys for one game (a request
    /// with a new key past it gets 503 `store_full`, nothing applied);
    /// a key counts until purged after it expires; at least 1.
    #[arg(long, env = "LINKPATH_MAX_KEYS_PER_GAME", default_value_t = 1_000, value_parser = at_least_one::<u64>)]
    pub max_keys_per_game: u64,

    /// Most bytes of answers kept under idempotency keys, each counted as
    /// its answer, key and fingerprint plus 256 bytes (a request with a
    /// new key past it gets 503 `store_full`, nothing applied); at least 1.
    #[arg(long, env = "LINKPATH_MAX_KEPT_BYTES", default_value_t = 268_435_456, value_parser = at_least_one::<u64>)]
    pub max_kept_bytes: u64,

    /// Time a read or write of the store may take, in milliseconds (503
    /// beyond, nothing changed or the retry tells); at least 1.
    #[arg(long, env = "LINKPATH_STORE_TIMEOUT_MS", default_value_t = 2_000, value_parser = at_least_one::<u64>)]
    pub store_timeout_ms: u64,

    /// Most event streams (`/v1/games/{id}/events` and
    /// `/v1/matches/{id}/events` together) open at once (503 beyond); at
    /// least 1, and at most `--max-connections` less 16: each holds its
    /// connection, and 16 are always left to other requests.
    #[arg(long, env = "LINKPATH_MAX_STREAMS", default_value_t = 1_000, value_parser = at_least_one::<usize>)]
    pub max_streams: usize,

    /// Most event streams open on one game; at least 1.
    #[arg(long, env = "LINKPATH_MAX_STREAMS_PER_GAME", default_value_t = 8, value_parser = at_least_one::<usize>)]
    pub max_streams_per_game: usize,
}

/// Connections of `--max-connections` that event streams never take, so
/// that probes, reads and actions always find one: streams last as long
/// as their game, and a connection holding one is never idle, so never
/// closed to make room.
pub const NON_STREAM_CONNECTIONS: usize = 16;

/// The burst of the rate limit when only the rate is set (the default
/// `--help` names).
pub(crate) const DEFAULT_BURST: u32 = 20;

/// A count, size or time of at least 1: the value parser of the settings
/// where 0 would refuse every request or connection.
pub fn at_least_one<T>(text: &str) -> Result<T, String>
where
    T: std::str::FromStr<Err = std::num::ParseIntError> + Default + PartialEq,
{
    match text.trim().parse::<T>() {
        Ok(n) if n != T::default() => Ok(n),
        Ok(_) => Err("expected at least 1".into()),
        Err(e) => Err(format!("expected a whole number of at least 1 ({e})")),
    }
}

/// An address and port to listen on.
pub(crate) fn parse_listen(text: &str) -> Result<SocketAddr, String> {
    text.trim()
        .parse()
        .map_err(|_| "expected an IP address and port, such as 127.0.0.1:8080 or [::]:8080".into())
}

/// One API key of the list: visible ASCII, spaces around it dropped. The
/// message never quotes the key.
pub(crate) fn parse_api_key(text: &str) -> Result<String, String> {
    let key = text.trim();
    if key.is_empty() {
        return Err(
            "an API key is empty: expected keys of visible ASCII, separated by commas".into(),
        );
    }
    if !key.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        return Err("an API key has a character other than visible ASCII (! to ~)".into());
    }
    Ok(key.to_owned())
}

/// A trusted proxy's network, `ADDRESS/PREFIX`, or one address.
pub(crate) fn parse_cidr(text: &str) -> Result<ipnet::IpNet, String> {
    let text = text.trim();
    text.parse::<ipnet::IpNet>()
        .or_else(|_| text.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map(|net| net.trunc())
        .map_err(|_| "expected a CIDR such as 10.0.0.0/8 or fd00::/8, or an IP address".into())
}

/// An expected claim value: not empty, spaces around it dropped.
pub(crate) fn parse_claim(text: &str) -> Result<String, String> {
    match text.trim() {
        "" => Err("expected a value that is not empty".into()),
        claim => Ok(claim.to_owned()),
    }
}

/// Checks a configured CORS origin: `*` or `scheme://host[:port]`.
pub(crate) fn parse_origin(origin: &str) -> Result<String, String> {
    let origin = origin.trim();
    let well_formed = origin == "*"
        || (axum::http::HeaderValue::from_str(origin).is_ok()
            && origin.split_once("://").is_some_and(|(scheme, host)| {
                !scheme.is_empty() && !host.is_empty() && !host.contains('/')
            }));
    if well_formed {
        Ok(origin.to_owned())
    } else {
        Err("expected an origin, scheme://host[:port], or *".to_owned())
    }
}

/// The one-line message for a setting whose value its parser refused:
/// `--flag (LINKPATH_VARIABLE) ...: expected ...`, the value quoted unless
/// the setting is secret. `None` for other command line errors (an unknown
/// flag, `--help`), which clap reports itself. `command` is the whole
/// command line, whose subcommands are searched for the flag.
pub fn invalid_setting(error: &clap::Error, command: &clap::Command) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if !matches!(
        error.kind(),
        ErrorKind::ValueValidation | ErrorKind::InvalidValue
    ) {
        return None;
    }
    let text = |kind| match error.get(kind) {
        Some(ContextValue::String(text)) => Some(text.as_str()),
        _ => None,
    };
    let flag = text(ContextKind::InvalidArg)?.split(' ').next()?;
    let arg = find_arg(command, flag.strip_prefix("--")?)?;
    let setting = match arg.get_env() {
        Some(env) => format!("{flag} ({})", env.to_string_lossy()),
        None => flag.to_owned(),
    };
    let expected = match (error.kind(), error.get(ContextKind::ValidValue)) {
        (ErrorKind::InvalidValue, Some(ContextValue::Strings(valid))) => {
            format!("expected one of {}", valid.join(", "))
        }
        _ => std::error::Error::source(error)
            .map_or_else(|| "not a value it takes".to_owned(), ToString::to_string),
    };
    let value = text(ContextKind::InvalidValue).unwrap_or("");
    Some(if arg.is_hide_env_values_set() {
        format!("{setting}: {expected}")
    } else {
        format!(
            "{setting} is {:?}: {expected}",
            linkpath_api::excerpt(value)
        )
    })
}

fn find_arg<'a>(command: &'a clap::Command, long: &str) -> Option<&'a clap::Arg> {
    command
        .get_arguments()
        .find(|arg| arg.get_long() == Some(long))
        .or_else(|| {
            command
                .get_subcommands()
                .find_map(|sub| find_arg(sub, long))
        })
}

impl Config {
    /// Checks what each flag's parser cannot see alone: the settings that
    /// make no sense together. The error is the one-line message.
    pub fn validate(&self) -> Result<(), String> {
        if self.rate_limit_burst.is_some() && self.rate_limit_per_second == 0 {
            return Err(
                "--rate-limit-burst (LINKPATH_RATE_LIMIT_BURST) is set without a rate: \
                 expected --rate-limit-per-second (LINKPATH_RATE_LIMIT_PER_SECOND) above 0, \
                 or no burst"
                    .into(),
            );
        }
        let largest = self
            .request
            .max_body_bytes
            .saturating_mul(super::budget::COUNTED_PER_BODY_BYTE);
        if self.memory_budget() < largest {
            return Err(format!(
                "--memory-budget-bytes (LINKPATH_MEMORY_BUDGET_BYTES) is {}: expected at least \
                 {largest}, twice --max-body-bytes (LINKPATH_MAX_BODY_BYTES), so that the \
                 largest body fits",
                self.memory_budget()
            ));
        }
        let game_cells = self.games.max_game_cells.min(self.request.max_cells) as u64;
        let replay =
            linkpath_api::games::Replay::largest(game_cells, self.games.max_game_actions as u64);
        if replay > self.request.max_body_bytes as u64 {
            return Err(format!(
                "--max-body-bytes (LINKPATH_MAX_BODY_BYTES) is {}: expected at least {replay},                  the replay of a game of {game_cells} cells at --max-game-actions                  (LINKPATH_MAX_GAME_ACTIONS) {}, so that POST /v1/replays takes every replay                  the server writes; or fewer actions",
                self.request.max_body_bytes, self.games.max_game_actions
            ));
        }
        let streams = self.games.max_streams;
        if streams > self.stream_bound() {
            let needed = streams + NON_STREAM_CONNECTIONS;
            let expected = match self.stream_bound() {
                0 => format!("--max-connections at least {needed}"),
                most => format!("at most {most} (or --max-connections at least {needed})"),
            };
            return Err(format!(
                "--max-streams (LINKPATH_MAX_STREAMS) is {streams} with --max-connections \
                 (LINKPATH_MAX_CONNECTIONS) {}: expected {expected}, so that \
                 {NON_STREAM_CONNECTIONS} connections are always left to requests that are \
                 not event streams",
                self.max_connections
            ));
        }
        if self
            .admin_listen
            .is_some_and(|admin| admin == self.listen && admin.port() != 0)
        {
            return Err(format!(
                "--admin-listen (LINKPATH_ADMIN_LISTEN) is {}: expected an address other \
                 than --listen (LINKPATH_LISTEN)",
                self.listen
            ));
        }
        // The key file is read, and each key checked, here as at start.
        crate::jwt::JwtVerifier::from_config(self)?;
        Ok(())
    }

    /// The most event streams the main listener serves at once:
    /// `--max-streams`, but never so many that streams, each holding its
    /// connection, leave fewer than [`NON_STREAM_CONNECTIONS`] of
    /// `--max-connections` to other requests. [`Config::validate`] refuses
    /// settings it would lower; a server embedded without that check is
    /// held to it all the same.
    pub fn stream_bound(&self) -> usize {
        self.games
            .max_streams
            .min(self.max_connections.saturating_sub(NON_STREAM_CONNECTIONS))
    }

    pub(crate) fn limits(&self) -> Limits {
        self.request.limits(self.max_moves, self.max_render_cells)
    }

    pub fn workers(&self) -> usize {
        self.workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
            .max(1)
    }

    pub(crate) fn solve_timeout(&self) -> Duration {
        self.request.solve_timeout()
    }

    /// The memory budget in bytes: the setting, or the default derived
    /// from the cgroup's limit.
    pub fn memory_budget(&self) -> usize {
        self.memory_budget_bytes
            .unwrap_or_else(super::budget::default_budget)
    }
}

impl Default for Config {
    /// The defaults of the command line, for tests and embedding.
    fn default() -> Self {
        use clap::Parser;
        #[derive(Parser)]
        struct Wrapper {
            #[command(flatten)]
            config: Config,
        }
        Wrapper::parse_from(["linkpath"]).config
    }
}

#[cfg(test)]
mod tests {
    use super::parse_origin;

    #[test]
    fn origins_are_checked_when_configured() {
        assert_eq!(
            parse_origin(" https://game.example:8443 "),
            Ok("https://game.example:8443".into())
        );
        assert_eq!(parse_origin("*"), Ok("*".into()));
        assert_eq!(
            parse_origin("game.example"),
            Err("expected an origin, scheme://host[:port], or *".into())
        );
        assert!(parse_origin("https://game.example/path").is_err());
    }
}
