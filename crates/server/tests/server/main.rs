//! The HTTP service, one topic a module: the router driven in process, or
//! a real server on `127.0.0.1:0` started with `run_with_admin` and stopped
//! by its shutdown future. What needs the process itself (signals, exit codes)
//! is tested end to end in the root package.

mod access;
mod archive;
mod budgets;
mod compression;
mod connections;
mod errors;
mod finished;
mod games;
mod games_on_redis;
mod keys;
mod leaderboards;
mod matches;
mod mechanics;
mod metrics;
mod openapi;
mod players;
mod reliability;
mod seeks;
mod serve;
mod solve;
mod support;
