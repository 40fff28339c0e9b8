//! Players: who plays, proven by a token (docs/players.md). A player
//! signs up and gets a secret token, shown once and kept only as its
//! hash; or a studio with its own login signs the player in with a JWT.
//! A game created with a player's token is the player's: only they act
//! on it, and only their wins enter a leaderboard, under their id.
//!
//! - `caller.rs`: the middleware that tells who sent a request (a player,
//!   a service by its API key, or nobody) and the [`Caller`] it leaves for
//!   the handlers;
//! - `service.rs`: [`Players`], sign up, find, rename, a new token, erase;
//!   no HTTP; `cache.rs`, the players signed in lately, for a store this
//!   process alone writes;
//! - `routes/`: `/v1/players`, one route a file;
//! - `settings.rs`: who may sign up, how many players, for how long;
//! - `window.rs`: counts per address (unknown tokens, sign-ups) in a
//!   window of time.

mod cache;
pub(crate) mod caller;
pub(crate) mod routes;
pub(crate) mod service;
mod settings;
pub(crate) mod window;

pub(crate) use caller::{Caller, Gate, authenticate};
pub(crate) use routes::router;
pub(crate) use service::Players;
pub use settings::PlayerSettings;
