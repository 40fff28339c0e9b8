//! The store's rules, tested on every backend through the public
//! interface: each case in `writes`, `keys`, `expiry` and `concurrency`
//! is written once and run on memory and on a redb file. `file` and
//! `crash` test what only the file has: reopening, bad files, timeouts,
//! and the writes acknowledged before a SIGKILL.

#[macro_use]
mod support;

mod concurrency;
mod crash;
mod expiry;
mod file;
mod keys;
mod writes;
