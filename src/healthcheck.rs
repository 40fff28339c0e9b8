//! `linkpath healthcheck`: a tiny HTTP/1.1 GET for Docker's HEALTHCHECK, so
//! the image needs no curl.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// Gets `url` (`http://host:port/path`) and succeeds on a 200 answer.
pub fn probe(url: &str, timeout: Duration) -> Result<(), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url:?} is not an http:// URL"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let address = authority
        .to_socket_addrs()
        .map_err(|e| format!("resolving {authority}: {e}"))?
        .next()
        .ok_or_else(|| format!("{authority} resolves to no address"))?;
    let mut stream = TcpStream::connect_timeout(&address, timeout)
        .map_err(|e| format!("connecting to {address}: {e}"))?;
    stream
        .set_read_timeout(Some(timeout))
        .and_then(|()| stream.set_write_timeout(Some(timeout)))
        .map_err(|e| e.to_string())?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| format!("sending the request: {e}"))?;
    let mut head = [0u8; 64];
    let mut read = 0;
    while read < 12 {
        match stream.read(&mut head[read..]) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(e) => return Err(format!("reading the answer: {e}")),
        }
    }
    let status_line = String::from_utf8_lossy(&head[..read]);
    match status_line.split_whitespace().nth(1) {
        Some("200") => Ok(()),
        Some(status) => Err(format!("{url} answered {status}")),
        None => Err(format!("{url} gave no HTTP answer")),
    }
}
