//! The HTTP JSON service over the engine: [`app()`] builds the router (tests
//! drive it with `tower::ServiceExt::oneshot`), [`run_with_admin`] serves it
//! on a listener from [`bind`] until a shutdown future resolves.
//!
//! The modules are private; what the binary and the tests use is named
//! here. The layers, from the top: the router and the serve loop
//! (`app`, `server`), the routes (one module each, `games::routes` one a
//! file), the held-games service (`games`), and below them the parts
//! routes take as state (`solvers`, `body`, `access`, `health`) and the
//! plain data of the configuration.

mod access;
mod app;
mod archive;
mod body;
mod budget;
mod cached;
mod client;
mod compress;
mod config;
mod connection;
mod error;
mod games;
mod head;
mod health;
mod healthcheck;
mod jwt;
mod matches;
mod mechanics;
mod metrics;
mod openapi;
mod path;
mod players;
mod playground;
mod random;
mod render;
mod server;
mod socket;
mod solve;
mod solvers;
mod state;
mod trace;

pub use app::app;
pub use archive::{ArchiveSettings, NamesRound as ArchiveNamesRound, Pass as ArchivePass};
pub use config::{
    Config, NON_STREAM_CONNECTIONS, PlayerJwtSettings, RequestLimits, at_least_one, invalid_setting,
};
pub use games::Clock;
pub use healthcheck::{healthcheck, healthcheck_url};
pub use openapi::openapi_yaml;
pub use players::PlayerSettings;
pub use server::{bind, run_with_admin, shutdown_signal};
pub use state::AppState;
