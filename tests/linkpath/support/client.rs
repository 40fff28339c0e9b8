//! One HTTP/1.1 client over a TCP socket: one request per connection,
//! `Connection: close`, the answer read until the server closes. Everything
//! that waits is bounded by [`LIMIT`].

use serde_json::Value;
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The longest any single step of a test may take.
pub const LIMIT: Duration = Duration::from_secs(10);

/// Awaits `future` for at most [`LIMIT`].
pub async fn bounded<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(LIMIT, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what} took longer than {LIMIT:?}"),
    }
}

/// A response: status, headers (names lowercase, in order) and body bytes.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "a {} whose body is not JSON ({e}): {:?}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// The `results` array of a 200 solve answer.
    pub fn results(&self) -> Value {
        assert_eq!(self.status, 200, "expected 200, got {:?}", self.json());
        self.json()["results"].clone()
    }

    /// Asserts the JSON error `code` with `status`; returns the message and
    /// the field.
    pub fn error(&self, status: u16, code: &str) -> (String, Option<String>) {
        let json = self.json();
        assert_eq!(
            (self.status, json["error"]["code"].as_str()),
            (status, Some(code)),
            "{json}"
        );
        assert_eq!(self.header("content-type"), Some("application/json"));
        let message = json["error"]["message"].as_str().expect("a message");
        let field = json["error"]["field"].as_str().map(str::to_owned);
        (message.to_owned(), field)
    }
}

/// The bytes of a request with `Connection: close` and, for a POST, its
/// `Content-Length`.
pub fn request_bytes(method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if method == "POST" {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// The bytes of a `POST path` with a JSON body.
pub fn post_bytes(path: &str, body: &Value) -> Vec<u8> {
    request_bytes(
        "POST",
        path,
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    )
}

/// The bytes of a `POST /v1/solve` with a JSON body.
pub fn solve_bytes(body: &Value) -> Vec<u8> {
    post_bytes("/v1/solve", body)
}

/// The bytes of a `GET path`.
pub fn get_bytes(path: &str) -> Vec<u8> {
    request_bytes("GET", path, &[], b"")
}

/// Connects to `addr`.
pub async fn connect(addr: SocketAddr) -> TcpStream {
    let stream = bounded("connecting", TcpStream::connect(addr))
        .await
        .expect("the server accepts the connection");
    stream.set_nodelay(true).expect("TCP_NODELAY");
    stream
}

/// Reads until the server closes the connection.
pub async fn read_to_end(stream: &mut TcpStream) -> Vec<u8> {
    let mut bytes = Vec::new();
    bounded("reading the answer", stream.read_to_end(&mut bytes))
        .await
        .expect("reading the socket");
    bytes
}

/// Sends `raw` on a new connection and reads the answer.
pub async fn exchange(addr: SocketAddr, raw: &[u8]) -> Reply {
    let mut stream = connect(addr).await;
    stream.write_all(raw).await.expect("sending the request");
    parse(&read_to_end(&mut stream).await)
}

/// Parses one response; the body is taken as sent (the server sends
/// `Content-Length`).
pub fn parse(bytes: &[u8]) -> Reply {
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no response head in {:?}", String::from_utf8_lossy(bytes)));
    let head = std::str::from_utf8(&bytes[..end]).expect("an ASCII head");
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|line| line.strip_prefix("HTTP/1.1 "))
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {head:?}"));
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Reply {
        status,
        headers,
        body: bytes[end + 4..].to_vec(),
    }
}
