//! The store's rules, tested on every backend through the public
//! interface: each case in `writes`, `keys`, `expiry` and `concurrency`
//! is written once and run on memory and on a redb file. `file`, `crash`
//! and `fault` test what only the file has: reopening, bad files,
//! timeouts, the writes acknowledged before a SIGKILL, and coming back
//! after an I/O error.

#[macro_use]
mod support;

mod concurrency;
mod crash;
mod expiry;
#[cfg(target_os = "linux")]
mod fault;
mod file;
mod keys;
mod writes;
