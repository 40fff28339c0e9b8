//! A router on a store of each backend, for the cases run on every
//! store (`linkpath_testkit::on_each_store!`): memory, a redb file under
//! the test target's scratch folder (its archive beside it), or a key
//! prefix of its own in the test Redis; what it kept is removed when the
//! [`Scratch`] drops.

use super::{HeldClock, config};
use axum::Router;
use linkpath_server::{AppState, Config, app};
use linkpath_testkit::redis::RedisPrefix;
use linkpath_testkit::stores::Backend;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// What a store of a case keeps, removed when it drops.
pub enum Scratch {
    Memory,
    File(PathBuf),
    Redis(RedisPrefix),
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Scratch::File(path) = self {
            let _ = std::fs::remove_file(&*path);
            // The archive a file store keeps beside it, if one was opened.
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            let _ = std::fs::remove_file(path.with_file_name(format!("{stem}-archive.redb")));
        }
    }
}

/// The test settings on a store of `backend`, and where it keeps things.
pub fn config_on(backend: Backend, name: &str) -> (Config, Scratch) {
    static FILES: AtomicU64 = AtomicU64::new(0);
    let mut config = config();
    let scratch = match backend {
        Backend::Memory => Scratch::Memory,
        Backend::File => {
            let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
                "{name}-{}-{}.redb",
                std::process::id(),
                FILES.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = std::fs::remove_file(&path);
            Scratch::File(path)
        }
        Backend::Redis => Scratch::Redis(RedisPrefix::fresh(name)),
    };
    config.games.store = match &scratch {
        Scratch::Memory => "memory".to_owned(),
        Scratch::File(path) => format!("file:{}", path.display()),
        Scratch::Redis(redis) => redis.setting(),
    }
    .parse()
    .expect("a store setting");
    (config, scratch)
}

/// The router over `config`'s store, its games' time read from `clock`.
pub fn router_on_store(config: Config, clock: Arc<HeldClock>) -> Router {
    app(AppState::open_on(config, clock).expect("the store opens"))
}
