//! linkpath end to end: the built binary run as a user runs it, for what
//! only the process shows (signals, exit codes, the log, memory). The HTTP
//! service itself is tested in process by `crates/server/tests/server`.

mod archive;
mod cli;
mod config;
mod damage;
mod docs;
mod downtime;
mod games;
mod matches;
#[cfg(target_os = "linux")]
mod outage;
mod players;
mod serve;
mod solve;
mod support;
