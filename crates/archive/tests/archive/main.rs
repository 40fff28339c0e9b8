//! The archive's rules, tested on every backend through the public
//! interface: each case in `insert`, `pages`, `export`, `erase` and
//! `purge` is written once and run on memory, on a redb file and on
//! PostgreSQL (a database of its own on the server
//! `LINKPATH_TEST_POSTGRES_URL` names; left out when it is unset).
//! `migrations` tests each schema's way up, from nothing and from the
//! version before; `unavailable` a PostgreSQL that cannot be reached, or
//! goes away and comes back.

#[macro_use]
mod support;

mod erase;
mod export;
mod insert;
mod migrations;
mod pages;
mod purge;
mod unavailable;
