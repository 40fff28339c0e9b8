//! Matches: several players race on one deal, each on their own held
//! game (an ordinary `/v1/games/{id}`, theirs). Built as the games are:
//!
//! - `routes/`: read the request, ask the service, write the answer;
//! - the service ([`Matches`], `service.rs`): create a match, seat and
//!   unseat players, start it, and bring it up to date on every read:
//!   the countdown's end deals the seats' games, a won game, the time
//!   limit or a field left with one racer finishes it, ratings and all.
//!   Every change is a compare-and-set on the stored match, so replicas
//!   that race apply each change once;
//! - `seeks.rs` ([`Seeks`]): players who seek a race on some settings
//!   wait until enough with ratings near theirs do, and are seated in
//!   one new match together;
//! - `sweep.rs`: the loop that brings up to date the matches whose timer
//!   is due, so that a countdown ends with nobody reading.

pub(crate) mod routes;
pub(crate) mod seeks;
pub(crate) mod service;
mod sweep;

pub(crate) use routes::router;
pub(crate) use seeks::Seeks;
pub(crate) use service::Matches;
pub(crate) use sweep::sweep_loop;
