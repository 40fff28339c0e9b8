//! The store's rules, tested on every backend through the public
//! interface: each case in `writes`, `keys`, `expiry`, `leaderboards`,
//! `players`, `matches`, `seeks`, `downtime`, `archive` and `concurrency` is written once and run on memory, on a redb file
//! and on Redis (the server `LINKPATH_TEST_REDIS_URL` names; left out when it is unset).
//! `model` runs random sequences of calls on all of them at once and on
//! a model of the rules, comparing every answer and the state after it.
//! `file`, `crash` and `fault` test what only the file has: reopening,
//! bad files, timeouts, the writes acknowledged before a SIGKILL, and
//! coming back after an I/O error; `redis` what only Redis has: an
//! unreachable server, prefixes, replicas, the feed of changes.

#[macro_use]
mod support;

mod archive;
mod concurrency;
mod crash;
mod downtime;
mod expiry;
#[cfg(target_os = "linux")]
mod fault;
mod file;
mod keys;
mod leaderboards;
mod log;
mod matches;
mod model;
mod players;
mod redis;
mod seeks;
mod writes;
