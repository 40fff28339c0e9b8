//! What the end-to-end tests share: the built binary started as a child
//! process ([`Process`], [`linkpath`], [`run`]), and from
//! `linkpath_testkit` one HTTP/1.1 client over a TCP socket (one request
//! per connection) and the sample requests.

pub use linkpath_testkit::*;

use serde_json::Value;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long one big request may take in the tests' build, several times
/// slower than a release.
pub const HEAVY: Duration = Duration::from_secs(120);

/// A request file of `tests/data/http`.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/http")
        .join(name)
}

/// `linkpath` with no `LINKPATH_*` settings from the environment but games
/// in memory, and only warnings logged.
pub fn linkpath() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_linkpath"));
    for (name, _) in std::env::vars() {
        if name.starts_with("LINKPATH_") {
            command.env_remove(name);
        }
    }
    command.env("RUST_LOG", "warn");
    // Games in memory: the default file would be shared by every test's
    // server, and one process at a time may open it. The store's own
    // tests use files.
    command.env("LINKPATH_STORE", "memory");
    command
}

/// A port the OS just handed out, free again for a child to bind.
pub fn free_addr() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
}

/// A child process, killed if the test ends before it exited.
pub struct Reaper(pub Child);

impl Drop for Reaper {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Runs `command` to its end with `input` on stdin; fails the test (and
/// kills it) when it takes longer than [`LIMIT`].
pub fn run(mut command: Command, input: &[u8]) -> Output {
    use std::io::{Read, Write};
    let mut child = Reaper(
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the command starts"),
    );
    // Dropping stdin after the write sends end-of-file. A command that
    // stops before reading it (a setting refused at start) may close the
    // pipe first: its exit and output are what the caller checks.
    match child.0.stdin.take().unwrap().write_all(input) {
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => {}
        written => written.unwrap(),
    }
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < LIMIT, "{command:?} took over {LIMIT:?}");
        std::thread::sleep(Duration::from_millis(10));
    };
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut child = child.0.stdout.take().zip(child.0.stderr.take());
    let (out, err) = child.as_mut().expect("piped output");
    out.read_to_end(&mut stdout).unwrap();
    err.read_to_end(&mut stderr).unwrap();
    Output {
        status,
        stdout,
        stderr,
    }
}

/// `linkpath serve` on a free loopback port, its log in a file.
pub struct Process {
    pub child: Reaper,
    pub addr: SocketAddr,
    pub log: PathBuf,
}

impl Process {
    /// Starts `linkpath serve` with `flags` and the default log settings
    /// (`RUST_LOG` unset), and waits until it accepts connections.
    pub async fn serve(name: &str, flags: &[&str]) -> Process {
        Process::serve_with(name, linkpath(), flags).await
    }

    /// As [`Process::serve`], with `command`: [`linkpath`] or a command
    /// that runs it.
    pub async fn serve_with(name: &str, mut command: Command, flags: &[&str]) -> Process {
        let addr = free_addr();
        let log = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.log"));
        let child = command
            .arg("serve")
            .args(["--listen", &addr.to_string()])
            .args(flags)
            .env_remove("RUST_LOG")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("a log file"))
            .spawn()
            .expect("starting the binary");
        let process = Process {
            child: Reaper(child),
            addr,
            log,
        };
        let started = Instant::now();
        while TcpStream::connect(addr).await.is_err() {
            assert!(started.elapsed() < LIMIT, "the server did not start");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        process
    }

    /// Sends SIGTERM.
    pub fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.0.id().to_string()])
            .status()
            .expect("running kill");
        assert!(status.success());
    }

    /// Waits for the exit, up to [`LIMIT`].
    pub async fn exit_code(&mut self) -> Option<i32> {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.0.try_wait().expect("waiting") {
                return status.code();
            }
            assert!(
                started.elapsed() < LIMIT,
                "no exit; log in {}",
                self.log.display()
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// The server's peak resident memory so far (`VmHWM`), in MiB.
    pub fn peak_rss_mib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.0.id()))
            .expect("the server's /proc status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .expect("a VmHWM line")
            / 1024
    }

    /// POSTs `body` as JSON to `path`, waiting up to [`HEAVY`].
    pub async fn post(&self, path: &str, body: &Value) -> Reply {
        let mut stream = connect(self.addr).await;
        stream
            .write_all(&post_bytes(path, body))
            .await
            .expect("sending the request");
        let mut bytes = Vec::new();
        tokio::time::timeout(HEAVY, stream.read_to_end(&mut bytes))
            .await
            .unwrap_or_else(|_| panic!("{path} took longer than {HEAVY:?}"))
            .expect("reading the socket");
        parse(&bytes)
    }

    /// `linkpath_solves_in_flight` from `/metrics`.
    pub async fn solves_in_flight(&self) -> f64 {
        let reply = exchange(self.addr, &get_bytes("/metrics")).await;
        let text = String::from_utf8_lossy(&reply.body).into_owned();
        text.lines()
            .find_map(|l| l.strip_prefix("linkpath_solves_in_flight "))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0.0)
    }
}
