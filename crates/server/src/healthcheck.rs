//! `linkpath healthcheck`: a tiny HTTP/1.1 GET for Docker's HEALTHCHECK, so
//! the image needs no curl.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// The `/healthz` URL of a server listening on `listen` (a socket address;
/// the default `127.0.0.1:8080` when empty or unparsable). A server on all
/// addresses is probed on loopback.
///
/// ```
/// use linkpath_server::healthcheck_url;
/// assert_eq!(healthcheck_url("0.0.0.0:9000"), "http://127.0.0.1:9000/healthz");
/// assert_eq!(healthcheck_url("[::]:80"), "http://[::1]:80/healthz");
/// assert_eq!(healthcheck_url(""), "http://127.0.0.1:8080/healthz");
/// ```
pub fn healthcheck_url(listen: &str) -> String {
    let mut address: SocketAddr = listen
        .parse()
        .unwrap_or(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 8080));
    if address.ip().is_unspecified() {
        address.set_ip(match address.ip() {
            IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::LOCALHOST),
        });
    }
    format!("http://{address}/healthz")
}

/// Gets `url` (`http://host:port/path`) and succeeds on a 200 answer.
pub fn healthcheck(url: &str, timeout: Duration) -> Result<(), String> {
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
