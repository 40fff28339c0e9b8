//! The store's rules, tested on every backend through the public
//! interface: each case in `writes`, `keys`, `expiry` and `concurrency`
//! is written once and run on memory, on a redb file and on Redis (the
//! server `LINKPATH_TEST_REDIS_URL` names; left out when it is unset).
//! `file` and `crash` test what only the file has: reopening, bad files,
//! timeouts, and the writes acknowledged before a SIGKILL; `redis` what
//! only Redis has: an unreachable server, prefixes, replicas.

#[macro_use]
mod support;

mod concurrency;
mod crash;
mod expiry;
mod file;
mod keys;
mod redis;
mod writes;
