//! OpenTelemetry export, end to end: the binary built with the `otel`
//! feature, `OTEL_EXPORTER_OTLP_ENDPOINT` naming a small OTLP/HTTP
//! receiver on loopback, a request carrying a W3C `traceparent`; the span
//! the receiver gets belongs to that trace, with the caller's span as its
//! parent. The batch delay is set far beyond the test, so the span can
//! only come from the flush on shutdown.
//!
//! `cargo test --features otel --test otel`

use linkpath_testkit::http::{LIMIT, exchange, request_bytes};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";
/// A request no route takes.
const UNROUTED_TRACE_ID: &str = "5bf92f3577b34da6a3ce929d0e0e4737";

/// The bodies POSTed to `/v1/traces`.
type Received = Arc<Mutex<Vec<Vec<u8>>>>;

/// An OTLP/HTTP receiver on a loopback port: it keeps every body sent to
/// `POST /v1/traces` and answers 200 with an empty
/// `ExportTraceServiceResponse`.
async fn receiver() -> (SocketAddr, Received) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let addr = listener.local_addr().expect("an address");
    let received = Received::default();
    let kept = received.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve_exports(stream, kept.clone()));
        }
    });
    (addr, received)
}

/// One connection's requests, one after another (the exporter keeps its
/// connection open).
async fn serve_exports(mut stream: TcpStream, received: Received) {
    let mut buffer = Vec::new();
    loop {
        let head_end = loop {
            if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
            let mut chunk = [0u8; 8192];
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buffer[..head_end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length:"))
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or(0);
        while buffer.len() < head_end + length {
            let mut chunk = [0u8; 8192];
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        }
        let body = buffer[head_end..head_end + length].to_vec();
        buffer.drain(..head_end + length);
        if head.starts_with("post /v1/traces ") {
            received.lock().expect("not poisoned").push(body);
        }
        let answer =
            b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n";
        if stream.write_all(answer).await.is_err() {
            return;
        }
    }
}

// ------------------------------------------- just enough of protobuf

/// One field of a protobuf message: its number and, for the wire types
/// read here, its value (a varint or the bytes of a length-delimited
/// field); fixed-width values are skipped.
#[derive(Debug)]
enum Value<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    Fixed,
}

impl Value<'_> {
    /// An `AnyValue`'s string or integer, as text.
    fn text(&self) -> String {
        match self {
            Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
            Value::Varint(n) => n.to_string(),
            Value::Fixed => String::new(),
        }
    }
}

fn varint(bytes: &mut &[u8]) -> u64 {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = bytes.split_first().expect("a complete varint");
        *bytes = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            break;
        }
    }
    value
}

/// The fields of one message, in order.
fn fields(mut bytes: &[u8]) -> Vec<(u64, Value<'_>)> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let key = varint(&mut bytes);
        let value = match key & 7 {
            0 => Value::Varint(varint(&mut bytes)),
            1 | 5 => {
                let width = if key & 7 == 1 { 8 } else { 4 };
                bytes = &bytes[width..];
                Value::Fixed
            }
            2 => {
                let length = usize::try_from(varint(&mut bytes)).expect("a length");
                let (field, rest) = bytes.split_at(length);
                bytes = rest;
                Value::Bytes(field)
            }
            other => panic!("wire type {other} in {key}"),
        };
        out.push((key >> 3, value));
    }
    out
}

/// The length-delimited fields numbered `number`.
fn all(bytes: &[u8], number: u64) -> Vec<&[u8]> {
    fields(bytes)
        .into_iter()
        .filter_map(|(n, value)| match value {
            Value::Bytes(b) if n == number => Some(b),
            _ => None,
        })
        .collect()
}

fn one(bytes: &[u8], number: u64) -> &[u8] {
    all(bytes, number).first().copied().unwrap_or_default()
}

/// The attributes (`KeyValue`s numbered `number`) of a resource or a
/// span, their values as text.
fn attributes(message: &[u8], number: u64) -> Vec<(String, String)> {
    all(message, number)
        .into_iter()
        .map(|pair| {
            let key = String::from_utf8_lossy(one(pair, 1)).into_owned();
            let value = fields(one(pair, 2))
                .first()
                .map(|(_, value)| value.text())
                .unwrap_or_default();
            (key, value)
        })
        .collect()
}

/// An exported span: its ids as hex, its name, and its resource's
/// attributes.
#[derive(Debug)]
struct Span {
    trace_id: String,
    span_id: String,
    parent_span_id: String,
    name: String,
    /// `SpanKind`: 2 is SERVER.
    kind: u64,
    attributes: Vec<(String, String)>,
    resource: Vec<(String, String)>,
}

impl Span {
    fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Every span of an `ExportTraceServiceRequest`.
fn spans(request: &[u8]) -> Vec<Span> {
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let mut out = Vec::new();
    for resource_spans in all(request, 1) {
        let resource = attributes(one(resource_spans, 1), 1);
        for scope_spans in all(resource_spans, 2) {
            for span in all(scope_spans, 2) {
                out.push(Span {
                    trace_id: hex(one(span, 1)),
                    span_id: hex(one(span, 2)),
                    parent_span_id: hex(one(span, 4)),
                    name: String::from_utf8_lossy(one(span, 5)).into_owned(),
                    kind: fields(span)
                        .into_iter()
                        .find_map(|(n, value)| match value {
                            Value::Varint(kind) if n == 6 => Some(kind),
                            _ => None,
                        })
                        .unwrap_or(0),
                    attributes: attributes(span, 9),
                    resource: resource.clone(),
                });
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_requests_span_is_exported_in_the_callers_trace() {
    let (collector, received) = receiver().await;
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let mut command = Command::new(env!("CARGO_BIN_EXE_linkpath"));
    for (name, _) in std::env::vars() {
        if name.starts_with("LINKPATH_") || name.starts_with("OTEL_") {
            command.env_remove(name);
        }
    }
    let mut server = command
        .args(["serve", "--listen", &addr.to_string()])
        .args(["--shutdown-grace-ms", "0"])
        .env("LINKPATH_STORE", "memory")
        .env("RUST_LOG", "warn")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", format!("http://{collector}"))
        // No batch goes out before the shutdown's flush.
        .env("OTEL_BSP_SCHEDULE_DELAY", "3600000")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let started = Instant::now();
    while TcpStream::connect(addr).await.is_err() {
        assert!(started.elapsed() < LIMIT, "the server did not start");
        tokio::task::yield_now().await;
    }

    let traceparent = format!("00-{TRACE_ID}-{PARENT_ID}-01");
    let body =
        br#"{"board": ["A.A"], "rules": "mahjong", "queries": [{"from": [0, 0], "to": [2, 0]}]}"#;
    let reply = exchange(
        addr,
        &request_bytes(
            "POST",
            "/v1/solve",
            &[
                ("Content-Type", "application/json"),
                ("traceparent", &traceparent),
                ("User-Agent", "linkpath-otel-test/1"),
            ],
            body,
        ),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let unrouted = format!("00-{UNROUTED_TRACE_ID}-{PARENT_ID}-01");
    let reply = exchange(
        addr,
        &request_bytes("GET", "/v1/nowhere", &[("traceparent", &unrouted)], b""),
    )
    .await;
    assert_eq!(reply.status, 404, "{}", reply.text());

    let terminated = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .expect("running kill");
    assert!(terminated.success());
    let status = loop {
        if let Some(status) = server.try_wait().expect("waiting") {
            break status;
        }
        if started.elapsed() > LIMIT {
            let _ = server.kill();
            panic!("the server did not exit after SIGTERM");
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    };
    let mut log = String::new();
    if let Some(mut stderr) = server.stderr.take() {
        use std::io::Read;
        let _ = stderr.read_to_string(&mut log);
    }
    assert!(status.success(), "{status}\n{log}");
    // The 404 is logged as a refusal; nothing else may warn (the exporter
    // warns when it cannot send).
    let warnings: Vec<&str> = log
        .lines()
        .filter(|line| line.contains("WARN") && !line.contains("status=404"))
        .collect();
    assert!(warnings.is_empty(), "{log}");

    // The exporter waits for the receiver's answer before the process
    // exits: whatever was sent is here.
    let bodies = received.lock().expect("not poisoned").clone();
    let spans: Vec<Span> = bodies.iter().flat_map(|b| spans(b)).collect();
    let request = spans
        .iter()
        .find(|span| span.trace_id == TRACE_ID)
        .unwrap_or_else(|| panic!("no span of trace {TRACE_ID} in {spans:#?}\n{log}"));
    assert_eq!(request.parent_span_id, PARENT_ID, "{request:#?}");
    // Named and kinded as OpenTelemetry's HTTP conventions say, with their
    // attributes.
    assert_eq!(request.name, "POST /v1/solve");
    assert_eq!(request.kind, 2, "SPAN_KIND_SERVER");
    assert_eq!(request.span_id.len(), 16);
    assert_ne!(request.span_id, PARENT_ID);
    for (key, value) in [
        ("http.request.method", "POST"),
        ("http.route", "/v1/solve"),
        ("http.response.status_code", "200"),
        ("url.path", "/v1/solve"),
        ("url.scheme", "http"),
        ("network.protocol.name", "http"),
        ("network.protocol.version", "1.1"),
        ("network.peer.address", "127.0.0.1"),
        ("user_agent.original", "linkpath-otel-test/1"),
    ] {
        assert_eq!(request.attribute(key), Some(value), "{key} in {request:#?}");
    }
    assert_eq!(request.attribute("error.type"), None);
    // No route: the method alone names it, and it has no `http.route`.
    let unrouted = spans
        .iter()
        .find(|span| span.trace_id == UNROUTED_TRACE_ID)
        .unwrap_or_else(|| panic!("no span of trace {UNROUTED_TRACE_ID} in {spans:#?}"));
    assert_eq!((unrouted.name.as_str(), unrouted.kind), ("GET", 2));
    assert_eq!(unrouted.attribute("http.route"), None);
    assert_eq!(unrouted.attribute("http.response.status_code"), Some("404"));
    assert_eq!(unrouted.attribute("url.path"), Some("/v1/nowhere"));
    assert_eq!(request.attribute("request_id").map(str::len), Some(36));
    let resource = |key: &str| {
        request
            .resource
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(resource("service.name"), Some("linkpath"));
    assert_eq!(resource("service.version"), Some(env!("CARGO_PKG_VERSION")));
}
