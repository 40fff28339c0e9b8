//! The settings of players: who may sign up, how many are kept and for
//! how long, what one player may hold, and who may read a player's game.

use clap::{ArgAction, Args};

/// How players are kept and bounded (docs/players.md).
#[derive(Args, Clone, Debug)]
pub struct PlayerSettings {
    /// Whether anyone may sign up as a player (`POST /v1/players`) without
    /// a service's API key: guests, as the playground signs in. Where API
    /// keys are set and this is false, signing up takes an API key.
    #[arg(long, env = "LINKPATH_GUEST_SIGN_UP", default_value_t = true, action = ArgAction::Set)]
    pub guest_sign_up: bool,

    /// Most players kept at once (a sign-up past it gets 503
    /// `store_full`; an expired player makes room at once); at least 1.
    #[arg(long, env = "LINKPATH_MAX_PLAYERS", default_value_t = 1_000_000, value_parser = crate::config::at_least_one::<u64>)]
    pub max_players: u64,

    /// Time a player who never signs in is kept, in milliseconds (365
    /// days); then it is erased as `DELETE /v1/players/me` erases it.
    /// Each day a player signs in moves it on; at least 1.
    #[arg(long, env = "LINKPATH_PLAYER_IDLE_MS", default_value_t = 31_536_000_000, value_parser = crate::config::at_least_one::<u64>)]
    pub player_idle_ms: u64,

    /// Most games one player holds at once, finished ones included until
    /// they expire (a new game past it gets 429 `quota_exceeded`); at
    /// least 1.
    #[arg(long, env = "LINKPATH_MAX_GAMES_PER_PLAYER", default_value_t = 100, value_parser = crate::config::at_least_one::<u64>)]
    pub max_games_per_player: u64,

    /// Whether a player's games are read by their player alone: `GET`,
    /// the event stream and the replay then need the player's token, as
    /// the actions always do. Games without a player stay open.
    #[arg(long, env = "LINKPATH_PRIVATE_GAMES", default_value_t = false, action = ArgAction::Set)]
    pub private_games: bool,

    /// Players one client address may sign up an hour (a sign-up past it
    /// gets 429 `rate_limited` until the hour is over); at least 1.
    #[arg(long, env = "LINKPATH_SIGN_UPS_PER_HOUR", default_value_t = 100, value_parser = crate::config::at_least_one::<u32>)]
    pub sign_ups_per_hour: u32,

    /// Players signed in lately kept in this process, so that a player's
    /// request reads the store once, not twice; only with a store this
    /// process alone writes (a file, memory: Redis keeps none, as another
    /// replica may change a player); 0: none.
    #[arg(long, env = "LINKPATH_PLAYER_CACHE", default_value_t = 10_000)]
    pub player_cache: usize,

    /// Unknown player tokens one client address may send a minute before
    /// its requests with a token get 429 `rate_limited`, so that tokens
    /// cannot be guessed at speed; at least 1.
    #[arg(long, env = "LINKPATH_TOKEN_FAILURES_PER_MINUTE", default_value_t = 60, value_parser = crate::config::at_least_one::<u32>)]
    pub token_failures_per_minute: u32,
}
