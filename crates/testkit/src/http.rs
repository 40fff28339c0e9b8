//! A tiny HTTP/1.1 client over a TCP socket: one request per connection,
//! `Connection: close`, the answer read until the server closes and kept
//! exactly as the server sent it (a chunked body decoded). Everything that
//! waits is bounded by [`LIMIT`], so a hung server fails the test instead
//! of hanging it.

use serde_json::Value;
use std::future::Future;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The longest any single step of a test may take: a guard against a
/// hang, not a measure of speed, so generous enough for a loaded machine.
pub const LIMIT: Duration = Duration::from_secs(60);

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
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).expect("the body is UTF-8")
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
        assert_eq!(self.status, 200, "expected 200, got {}", self.text());
        self.json()["results"].clone()
    }

    /// Asserts this is the JSON error `code` with `status`, and returns the
    /// message and the field (if any), after checking the body has no other
    /// keys.
    pub fn error(&self, status: u16, code: &str) -> (String, Option<String>) {
        assert_eq!(
            (self.status, self.header("content-type")),
            (status, Some("application/json")),
            "body: {}",
            String::from_utf8_lossy(&self.body)
        );
        let json = self.json();
        let object = json.as_object().expect("an object");
        assert_eq!(object.keys().collect::<Vec<_>>(), ["error"], "{json}");
        let error = json["error"].as_object().expect("error is an object");
        for key in error.keys() {
            assert!(
                ["code", "message", "field"].contains(&key.as_str()),
                "unexpected key {key} in {json}"
            );
        }
        assert_eq!(error["code"], code, "{json}");
        let message = error["message"].as_str().expect("a message").to_owned();
        assert!(!message.is_empty());
        let field = error
            .get("field")
            .map(|f| f.as_str().expect("field is a string").to_owned());
        (message, field)
    }
}

/// The bytes of an HTTP/1.1 request with `Connection: close` and, when there
/// is a body (or the method is POST) and no `Transfer-Encoding` is given,
/// its `Content-Length`.
pub fn request_bytes(method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let streamed = headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("transfer-encoding"));
    if (!body.is_empty() || method == "POST") && !streamed {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// The bytes of a `POST /v1/solve` with a JSON body.
pub fn solve_bytes(body: &Value, headers: &[(&str, &str)]) -> Vec<u8> {
    let mut all = vec![("Content-Type", "application/json")];
    all.extend_from_slice(headers);
    request_bytes("POST", "/v1/solve", &all, body.to_string().as_bytes())
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

/// `GET path` as bytes.
pub fn get_bytes(path: &str) -> Vec<u8> {
    request_bytes("GET", path, &[], b"")
}

/// Connects to `addr`, with `TCP_NODELAY` so that timings are not Nagle's.
pub async fn connect(addr: SocketAddr) -> TcpStream {
    let stream = bounded("connecting", TcpStream::connect(addr))
        .await
        .expect("the server accepts connections");
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

/// Sends `raw` on a new connection and reads the whole answer.
pub async fn exchange(addr: SocketAddr, raw: &[u8]) -> Reply {
    exchange_timed(addr, raw).await.0
}

/// Sends `raw` on new connections, every 20 ms while the server answers
/// 503 (busy, or its memory held), until it answers otherwise; bounded,
/// as every wait here is.
pub async fn exchange_until_served(what: &str, addr: SocketAddr, raw: &[u8]) -> Reply {
    bounded(what, async {
        loop {
            let reply = exchange(addr, raw).await;
            if reply.status != 503 {
                return reply;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
}

/// [`exchange`], timing the whole exchange from connecting to the last
/// byte.
pub async fn exchange_timed(addr: SocketAddr, raw: &[u8]) -> (Reply, Duration) {
    let started = Instant::now();
    let mut stream = connect(addr).await;
    stream.write_all(raw).await.expect("sending the request");
    let reply = parse(&read_to_end(&mut stream).await);
    (reply, started.elapsed())
}

/// `GET path` over a new connection.
pub async fn http_get(addr: SocketAddr, path: &str) -> Reply {
    exchange(addr, &request_bytes("GET", path, &[], b"")).await
}

/// Parses one HTTP/1.1 response, decoding a chunked body.
pub fn parse(bytes: &[u8]) -> Reply {
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| {
            panic!(
                "no complete response head in {:?}",
                String::from_utf8_lossy(bytes)
            )
        });
    let head = std::str::from_utf8(&bytes[..end]).expect("an ASCII head");
    let mut lines = head.split("\r\n");
    let status_line = lines.next().expect("a status line");
    let mut parts = status_line.splitn(3, ' ');
    assert_eq!(
        parts.next(),
        Some("HTTP/1.1"),
        "status line {status_line:?}"
    );
    let status = parts
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {status_line:?}"));
    let headers: Vec<(String, String)> = lines
        .map(|line| {
            let (name, value) = line.split_once(':').expect("a header line");
            (name.trim().to_ascii_lowercase(), value.trim().to_owned())
        })
        .collect();
    let raw_body = &bytes[end + 4..];
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    let body = if chunked {
        dechunk(raw_body)
    } else {
        if let Some((_, length)) = headers.iter().find(|(n, _)| n == "content-length") {
            let length: usize = length.parse().expect("a numeric Content-Length");
            assert_eq!(raw_body.len(), length, "the body matches Content-Length");
        }
        raw_body.to_vec()
    };
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let line_end = raw
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("a chunk size line");
        let size_text = std::str::from_utf8(&raw[..line_end]).expect("an ASCII chunk size");
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .expect("a hex chunk size");
        raw = &raw[line_end + 2..];
        if size == 0 {
            return body;
        }
        body.extend_from_slice(&raw[..size]);
        assert_eq!(&raw[size..size + 2], b"\r\n", "a chunk ends with CRLF");
        raw = &raw[size + 2..];
    }
}

/// Sends the head and the first half of a solve request for the mahjong
/// sample, leaving the request in flight until [`finish`] sends the rest.
pub async fn start_slow_solve(addr: SocketAddr) -> (TcpStream, Vec<u8>) {
    let bytes = solve_bytes(&crate::mahjong_sample(), &[]);
    let split = bytes.len() - 40;
    let mut stream = connect(addr).await;
    stream.write_all(&bytes[..split]).await.unwrap();
    (stream, bytes[split..].to_vec())
}

/// Sends `rest` of a request begun by [`start_slow_solve`], and reads
/// its answer.
pub async fn finish(mut stream: TcpStream, rest: &[u8]) -> Reply {
    stream
        .write_all(rest)
        .await
        .expect("the connection is still open");
    parse(&read_to_end(&mut stream).await)
}

/// Whether `id` is a UUID as the server makes request ids: 36 characters,
/// hex digits and the four dashes.
pub fn is_uuid(id: &str) -> bool {
    id.len() == 36
        && id.char_indices().all(|(i, c)| {
            if [8, 13, 18, 23].contains(&i) {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}
