//! Who the client is when linkpath sits behind proxies it trusts
//! (`--trusted-proxies`): the address a proxy's `Forwarded` (RFC 7239) or
//! `X-Forwarded-For` header names, so that each player behind the
//! project's nginx has a rate-limit bucket of its own.
//!
//! The headers are read only from a trusted peer, and from the right: each
//! proxy appends the address it received the request from, so the hops a
//! trusted proxy wrote are the rightmost ones, and everything left of the
//! first untrusted address may be the client's invention. The walk stops
//! at that address; at an entry that is not an address (`unknown`, an
//! obfuscated identifier, a malformed one), where the last trusted hop is
//! the nearest address known; and after [`MAX_HOPS`] entries.
//!
//! `Forwarded` is read when present, else `X-Forwarded-For`: a proxy that
//! appends to one must remove or overwrite the other, or a client could
//! send it unchecked.

use axum::http::HeaderMap;
use axum::http::header::FORWARDED;
use ipnet::IpNet;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::Arc;

/// Most header entries read, from the right: a chain of proxies is a few
/// hops long, and the header may be as long as the client likes.
pub(crate) const MAX_HOPS: usize = 32;

const X_FORWARDED_FOR: &str = "x-forwarded-for";

/// The networks of the proxies whose forwarding headers are believed.
#[derive(Clone, Default)]
pub(crate) struct TrustedProxies(Arc<[IpNet]>);

impl TrustedProxies {
    pub(crate) fn new(networks: &[IpNet]) -> Self {
        TrustedProxies(networks.iter().copied().collect())
    }

    fn trusts(&self, address: IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(&address))
    }
}

/// The client's address: `peer`, the TCP peer, unless it is a trusted
/// proxy; then the nearest untrusted address its headers name.
pub(crate) fn client_address(
    peer: IpAddr,
    headers: &HeaderMap,
    trusted: &TrustedProxies,
) -> IpAddr {
    // An IPv4 client of a dual-stack listener is seen as ::ffff:a.b.c.d.
    let mut nearest = peer.to_canonical();
    if trusted.0.is_empty() || !trusted.trusts(nearest) {
        return nearest;
    }
    for hop in hops(headers).take(MAX_HOPS) {
        let Some(address) = hop else {
            break;
        };
        nearest = address;
        if !trusted.trusts(address) {
            break;
        }
    }
    nearest
}

/// The entries of `Forwarded`, or else of `X-Forwarded-For`, from the
/// rightmost (the last header line's last entry) leftwards: an address, or
/// `None` for an entry that is not one.
fn hops(headers: &HeaderMap) -> Box<dyn Iterator<Item = Option<IpAddr>> + '_> {
    let lines = |name| {
        headers
            .get_all(name)
            .into_iter()
            .rev()
            .map(|value| value.to_str().ok())
    };
    if headers.contains_key(FORWARDED) {
        Box::new(
            lines(FORWARDED.as_str())
                .flat_map(|line| entries(line).map(|element| element.and_then(forwarded_for))),
        )
    } else {
        Box::new(
            lines(X_FORWARDED_FOR).flat_map(|line| entries(line).map(|entry| entry.and_then(node))),
        )
    }
}

/// A header line's comma-separated entries, rightmost first; a line that
/// is not text is one entry that is not an address.
fn entries(line: Option<&str>) -> Box<dyn Iterator<Item = Option<&str>> + '_> {
    match line {
        Some(line) => Box::new(line.rsplit(',').map(|entry| Some(entry.trim()))),
        None => Box::new(std::iter::once(None)),
    }
}

/// The address of a `Forwarded` element's `for=` parameter:
/// `for=192.0.2.60;proto=http`, `for="[2001:db8::17]:4711"`.
fn forwarded_for(element: &str) -> Option<IpAddr> {
    let value = element.split(';').find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("for")
            .then_some(value.trim())
    })?;
    let value = match value.strip_prefix('"') {
        Some(quoted) => quoted.strip_suffix('"')?,
        None => value,
    };
    node(value)
}

/// A node's address: `192.0.2.60`, `192.0.2.60:8080`, `2001:db8::17`
/// (as X-Forwarded-For writes it), `[2001:db8::17]` or
/// `[2001:db8::17]:4711`; a port may be obfuscated (`_abc`). `unknown` and
/// obfuscated identifiers (`_hidden`) are no address.
fn node(text: &str) -> Option<IpAddr> {
    if let Ok(address) = text.parse::<IpAddr>() {
        return Some(address.to_canonical());
    }
    let (host, port) = match text.strip_prefix('[') {
        Some(bracketed) => {
            let (host, rest) = bracketed.split_once(']')?;
            let port = match rest {
                "" => None,
                rest => Some(rest.strip_prefix(':')?),
            };
            (IpAddr::V6(host.parse::<Ipv6Addr>().ok()?), port)
        }
        None => {
            let (host, port) = text.split_once(':')?;
            (IpAddr::V4(host.parse().ok()?), Some(port))
        }
    };
    port.is_none_or(is_port).then(|| host.to_canonical())
}

/// RFC 7239's node-port: a number, or an obfuscated `_` identifier.
fn is_port(port: &str) -> bool {
    match port.strip_prefix('_') {
        Some(obfuscated) => {
            !obfuscated.is_empty()
                && obfuscated
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
        }
        None => port.parse::<u16>().is_ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn trusted(networks: &[&str]) -> TrustedProxies {
        let networks: Vec<IpNet> = networks.iter().map(|n| n.parse().unwrap()).collect();
        TrustedProxies::new(&networks)
    }

    fn headers(lines: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in lines {
            map.append(
                axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        map
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    /// The client address of a request from `peer` with `lines`, the
    /// proxies at 10.0.0.0/8 and fd00::/8 trusted.
    fn client(peer: &str, lines: &[(&str, &str)]) -> IpAddr {
        client_address(
            ip(peer),
            &headers(lines),
            &trusted(&["10.0.0.0/8", "fd00::/8"]),
        )
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_sends() {
        let spoofed = [
            ("x-forwarded-for", "198.51.100.7"),
            ("forwarded", "for=198.51.100.8"),
        ];
        assert_eq!(client("203.0.113.5", &spoofed), ip("203.0.113.5"));
        assert_eq!(
            client_address(ip("10.0.0.1"), &headers(&spoofed), &trusted(&[])),
            ip("10.0.0.1"),
            "nothing trusted: nothing read"
        );
    }

    #[test]
    fn a_trusted_peer_without_headers_is_the_client() {
        assert_eq!(client("10.0.0.1", &[]), ip("10.0.0.1"));
    }

    #[test]
    fn x_forwarded_for_is_walked_from_the_right_past_trusted_proxies() {
        // The client claims 1.1.1.1; nginx appended the address it saw.
        let chain = [("x-forwarded-for", "1.1.1.1, 203.0.113.9, 10.0.0.7")];
        assert_eq!(client("10.0.0.1", &chain), ip("203.0.113.9"));
        // Every hop trusted: the leftmost is the nearest known.
        let inside = [("x-forwarded-for", "10.1.1.1, 10.0.0.7")];
        assert_eq!(client("10.0.0.1", &inside), ip("10.1.1.1"));
    }

    #[test]
    fn several_header_lines_are_one_list_in_order() {
        let lines = [
            ("x-forwarded-for", "198.51.100.1"),
            ("x-forwarded-for", "203.0.113.9, 10.0.0.8"),
            ("x-forwarded-for", "10.0.0.7"),
        ];
        assert_eq!(client("10.0.0.1", &lines), ip("203.0.113.9"));
        let forwarded = [
            ("forwarded", "for=198.51.100.1"),
            ("forwarded", "for=10.0.0.8"),
        ];
        assert_eq!(client("10.0.0.1", &forwarded), ip("198.51.100.1"));
    }

    #[test]
    fn forwarded_is_read_before_x_forwarded_for() {
        let both = [
            ("x-forwarded-for", "198.51.100.1"),
            (
                "forwarded",
                "for=192.0.2.60;proto=http;by=10.0.0.1, For=\"10.0.0.9:8080\"",
            ),
        ];
        assert_eq!(client("10.0.0.1", &both), ip("192.0.2.60"));
    }

    #[test]
    fn ipv6_in_brackets_with_ports_and_bare() {
        let forwarded = [(
            "forwarded",
            "for=\"[2001:db8:cafe::17]:4711\", for=\"[fd00::2]\"",
        )];
        assert_eq!(client("fd00::1", &forwarded), ip("2001:db8:cafe::17"));
        let xff = [("x-forwarded-for", "2001:db8::5, fd00::3")];
        assert_eq!(client("fd00::1", &xff), ip("2001:db8::5"));
        // An IPv4 peer of a dual-stack listener, and an IPv4 address
        // written as IPv6: both the IPv4 address.
        let mapped = [("x-forwarded-for", "::ffff:192.0.2.1")];
        assert_eq!(client("::ffff:10.0.0.1", &mapped), ip("192.0.2.1"));
        assert_eq!(client("::ffff:203.0.113.1", &[]), ip("203.0.113.1"));
    }

    #[test]
    fn ports_are_dropped_and_obfuscated_ports_allowed() {
        let forwarded = [(
            "forwarded",
            "for=\"192.0.2.43:_p1\", for=\"10.0.0.2:47011\"",
        )];
        assert_eq!(client("10.0.0.1", &forwarded), ip("192.0.2.43"));
        let xff = [("x-forwarded-for", "192.0.2.44:5000")];
        assert_eq!(client("10.0.0.1", &xff), ip("192.0.2.44"));
    }

    #[test]
    fn unknown_and_obfuscated_nodes_stop_at_the_last_trusted_hop() {
        for node in ["unknown", "_hidden", "\"[2001:db8::1\"", "\"192.0.2.1:x\""] {
            let forwarded = [(
                "forwarded",
                format!("for=198.51.100.1, for={node}, for=10.0.0.5"),
            )];
            let forwarded: Vec<(&str, &str)> =
                forwarded.iter().map(|(n, v)| (*n, v.as_str())).collect();
            assert_eq!(client("10.0.0.1", &forwarded), ip("10.0.0.5"), "{node}");
        }
        // An element without `for`: no address either.
        let no_for = [("forwarded", "for=198.51.100.1, proto=https")];
        assert_eq!(client("10.0.0.1", &no_for), ip("10.0.0.1"));
    }

    #[test]
    fn malformed_headers_leave_the_peer() {
        for garbage in ["", "not an address", "300.1.1.1", "1.2.3.4:99999", ",,"] {
            let xff = [("x-forwarded-for", garbage)];
            assert_eq!(client("10.0.0.1", &xff), ip("10.0.0.1"), "{garbage:?}");
        }
        // Not text: unreadable.
        let mut map = HeaderMap::new();
        map.insert(
            X_FORWARDED_FOR,
            HeaderValue::from_bytes(b"192.0.2.1\xff").unwrap(),
        );
        let proxies = trusted(&["10.0.0.0/8"]);
        assert_eq!(
            client_address(ip("10.0.0.1"), &map, &proxies),
            ip("10.0.0.1")
        );
        let unquoted = [("forwarded", "for=\"192.0.2.1")];
        assert_eq!(client("10.0.0.1", &unquoted), ip("10.0.0.1"));
    }

    #[test]
    fn at_most_32_hops_are_read() {
        // 40 trusted hops left of the peer, the client beyond them.
        let mut chain = vec!["192.0.2.1".to_owned()];
        chain.extend((1..=40).map(|i| format!("10.0.1.{i}")));
        let line = chain.join(", ");
        // The 32nd hop from the right is 10.0.1.9: the walk ends there.
        assert_eq!(
            client("10.0.0.1", &[("x-forwarded-for", &line)]),
            ip("10.0.1.9")
        );
        let short = chain[chain.len() - 32..].join(", ");
        let short = format!("192.0.2.1, {short}");
        assert_eq!(
            client("10.0.0.1", &[("x-forwarded-for", &short)]),
            ip("10.0.1.9"),
            "the client 33 hops away is past the bound"
        );
        let within = format!("192.0.2.1, {}", chain[chain.len() - 31..].join(", "));
        assert_eq!(
            client("10.0.0.1", &[("x-forwarded-for", &within)]),
            ip("192.0.2.1")
        );
    }
}
