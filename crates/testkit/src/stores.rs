//! A case run on each backend of the game store: memory, a redb file and
//! Redis, each as a test of its own, the Redis one ignored unless asked
//! for (`cargo test -- --ignored`, with a test Redis named: see
//! [`crate::redis`]).

/// The store backend a case runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Memory,
    File,
    Redis,
}

/// Runs each case, an `async fn(Backend)` of the module it is called in,
/// on each backend: `case::memory`, `case::file` and `case::redis`.
#[macro_export]
macro_rules! on_each_store {
    ($($case:ident),+ $(,)?) => {$(
        mod $case {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn memory() {
                super::$case($crate::stores::Backend::Memory).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn file() {
                super::$case($crate::stores::Backend::File).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            #[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
            async fn redis() {
                super::$case($crate::stores::Backend::Redis).await
            }
        }
    )+};
}
