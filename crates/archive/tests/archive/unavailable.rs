//! A PostgreSQL that cannot be reached: at open, and going away under an
//! open archive (a proxy in the test stops listening and cuts its
//! connections, as a stopped server does) and coming back. Each call
//! answers an error that `is_unavailable` within the timeout, and the
//! archive works again by itself once PostgreSQL is back.

use std::net::SocketAddr;
use std::time::Duration;

use linkpath_archive::{Archive, ArchiveLimits, ArchiveSpec, Filter};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::support::{Backend, Scratch, T0, game};

/// A short timeout, and how long a call may take before the case fails:
/// far past it, so that only a call that hangs fails the case.
const TIMEOUT: Duration = Duration::from_secs(1);
const HANG: Duration = Duration::from_secs(20);

fn short() -> ArchiveLimits {
    ArchiveLimits {
        timeout: TIMEOUT,
        pool_size: 2,
        ..ArchiveLimits::default()
    }
}

/// A port nothing listens on: one just bound and let go.
async fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}

/// `call`'s answer, which must come before [`HANG`].
async fn within<T>(call: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(HANG, call)
        .await
        .expect("the call answers")
}

#[tokio::test]
async fn opening_an_unreachable_postgres_is_unavailable() {
    let port = closed_port().await;
    let spec: ArchiveSpec = format!("postgres://postgres@127.0.0.1:{port}/linkpath")
        .parse()
        .unwrap();
    let err = within(Archive::open(&spec, short()))
        .await
        .err()
        .expect("no archive there");
    assert!(err.is_unavailable(), "{err:?}");
}

/// Forwards connections to PostgreSQL while up; down, it listens no more
/// and cuts the connections it carries.
struct Proxy {
    port: u16,
    up: watch::Sender<bool>,
}

impl Proxy {
    async fn start(target: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (up, watching) = watch::channel(true);
        tokio::spawn(Proxy::serve(listener, port, target, watching));
        Proxy { port, up }
    }

    fn set_up(&self, up: bool) {
        self.up.send_replace(up);
    }

    async fn serve(
        mut listener: TcpListener,
        port: u16,
        target: SocketAddr,
        mut up: watch::Receiver<bool>,
    ) {
        loop {
            let mut watching = up.clone();
            let going_down = async move { watching.wait_for(|up| !*up).await.is_ok() };
            tokio::select! {
                accepted = listener.accept() => {
                    let Ok((client, _)) = accepted else { continue };
                    tokio::spawn(Proxy::carry(client, target, up.clone()));
                }
                going_down = going_down => {
                    drop(listener);
                    if !going_down || up.wait_for(|up| *up).await.is_err() {
                        return;
                    }
                    listener = TcpListener::bind(("127.0.0.1", port)).await.unwrap();
                }
            }
        }
    }

    async fn carry(mut client: TcpStream, target: SocketAddr, mut up: watch::Receiver<bool>) {
        let Ok(mut server) = TcpStream::connect(target).await else {
            return;
        };
        tokio::select! {
            _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
            _ = up.wait_for(|up| !*up) => {}
        }
    }
}

#[tokio::test]
#[ignore = "needs a PostgreSQL: LINKPATH_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres cargo test -- --ignored"]
async fn postgres_going_away_and_coming_back() {
    let scratch = Scratch::new(Backend::Postgres).await;
    let mut url = url::Url::parse(scratch.database.as_ref().unwrap().url()).unwrap();
    let target = url.socket_addrs(|| Some(5432)).unwrap()[0];
    let proxy = Proxy::start(target).await;
    url.set_host(Some("127.0.0.1")).unwrap();
    url.set_port(Some(proxy.port)).unwrap();
    let spec: ArchiveSpec = url.as_str().parse().unwrap();
    let archive = Archive::open(&spec, short()).await.unwrap();
    assert_eq!(archive.insert(&[game("before", T0)]).await, Ok(1));
    assert!(archive.available().await);

    proxy.set_up(false);
    let err = within(archive.insert(&[game("during", T0)]))
        .await
        .expect_err("no PostgreSQL");
    assert!(err.is_unavailable(), "{err:?}");
    let err = within(archive.page(&Filter::default(), None, 10))
        .await
        .expect_err("no PostgreSQL");
    assert!(err.is_unavailable(), "{err:?}");
    assert!(!within(archive.available()).await);

    proxy.set_up(true);
    // The pool makes new connections by itself; the retried insert
    // applies once.
    assert_eq!(archive.insert(&[game("during", T0)]).await, Ok(1));
    assert_eq!(archive.count().await, Ok(2));
    assert!(archive.available().await);
}
