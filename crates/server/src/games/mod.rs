//! The games the server holds. A client creates a game, then sends one
//! POST per action; the server judges each with the engine of `/v1/play`,
//! keeps the game in the store, and answers the whole game with its
//! version as the `ETag`.
//!
//! Three layers, each knowing only the one below:
//!
//! - `routes/`, one route a file: read the request, ask the service,
//!   write the answer. HTTP lives here alone: `If-Match` is read into a
//!   `Pin`, `Idempotency-Key` into a key whose answer is kept in the
//!   HTTP form (`routes/keys.rs`).
//! - the service ([`Games`], `service.rs`): create, apply an action,
//!   read a game as it is now, its replay, a leaderboard; plain inputs,
//!   domain results, the time an argument read from a [`Clock`]. With it:
//!   the precondition (`pin.rs`), the idempotency key as the service sees
//!   it, whose answer is opaque bytes made through a small interface the
//!   routes supply (`idempotency.rs`), the refusals (`errors.rs`), the
//!   live streams (`streams.rs`, fed from other processes by
//!   `follow.rs`) and the downtime given back to clocks (`downtime.rs`).
//! - the records (`record.rs`): a game to and from the store's bytes.
//!
//! The loops that run beside the routes, the purge and the heartbeat,
//! are in `tasks.rs`, started by the serve loop.

mod clock;
mod downtime;
pub(crate) mod errors;
pub(crate) mod follow;
pub(crate) mod idempotency;
pub(crate) mod pin;
mod record;
pub(crate) mod routes;
pub(crate) mod service;
pub(crate) mod streams;
mod tasks;

pub use clock::Clock;
pub(crate) use clock::SystemClock;
pub(crate) use routes::router;
pub(crate) use service::Games;
pub(crate) use tasks::{heartbeat_loop, purge_loop};
