//! Who may call `/v1/*`, and how often: optional API keys (checked with
//! players' tokens by `players::caller`), a per-client rate limit (the
//! client behind trusted proxies as `client.rs` finds it), and the CORS
//! allow-list for browser clients. All off unless
//! configured; `/healthz`, `/readyz` and `/metrics` are never gated.

use crate::client::{TrustedProxies, client_address};
use crate::error::{ErrorCode, HttpError};
use crate::players::Caller;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;
use subtle::ConstantTimeEq;
use tower_http::cors::{AllowOrigin, CorsLayer};

/// The API keys a `/v1/*` request may present as `Authorization: Bearer`.
#[derive(Clone, Default)]
pub(crate) struct ApiKeys(Arc<Vec<Vec<u8>>>);

impl ApiKeys {
    pub(crate) fn new(keys: &[String]) -> Self {
        ApiKeys(Arc::new(
            keys.iter()
                .map(|k| k.trim())
                .filter(|k| !k.is_empty())
                .map(|k| k.as_bytes().to_vec())
                .collect(),
        ))
    }

    pub(crate) fn is_enabled(&self) -> bool {
        !self.0.is_empty()
    }

    /// Compares against every key, each in constant time, so the answer's
    /// timing tells nothing about which key came close.
    pub(crate) fn accepts(&self, presented: &[u8]) -> bool {
        self.0.iter().fold(0u8, |found, key| {
            found | key.as_slice().ct_eq(presented).unwrap_u8()
        }) == 1
    }
}

/// The name of the per-client policy in `RateLimit` and `RateLimit-Policy`.
const POLICY: &str = "per-client";

/// Who a bucket is for: a signed-in player, wherever they play from, or
/// else a client address.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Client {
    Player(String),
    Address(IpAddr),
}

/// A token bucket per client: a player, or an address.
#[derive(Clone)]
pub(crate) struct ClientLimiter {
    limiter: Arc<DefaultKeyedRateLimiter<Client>>,
    /// `RateLimit-Policy`, the same on every 429.
    policy: HeaderValue,
}

impl ClientLimiter {
    /// `per_second` requests a second on average, bursts of `burst`.
    pub(crate) fn new(per_second: NonZeroU32, burst: NonZeroU32) -> Self {
        let quota = Quota::per_second(per_second).allow_burst(burst);
        ClientLimiter {
            limiter: Arc::new(RateLimiter::keyed(quota)),
            policy: policy(per_second, burst),
        }
    }

    /// Forgets clients whose buckets are full again, so the table does not
    /// grow with every address ever seen.
    pub(crate) fn forget_idle(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }
}

/// The per-client rate limit, when configured, and how long a refused
/// request's body is read for.
#[derive(Clone)]
pub(crate) struct RateLimit {
    pub limiter: Option<ClientLimiter>,
    pub body_timeout: Duration,
    /// The proxies whose forwarding headers name the client.
    pub trusted: TrustedProxies,
}

/// `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-11) of a
/// token bucket: its `burst` requests (`q`) over the seconds the bucket
/// takes to fill again (`w`, whole seconds, rounded up so that a client
/// keeping to it is never refused), and the rate itself as
/// `linkpath-rate`, requests a second.
fn policy(per_second: NonZeroU32, burst: NonZeroU32) -> HeaderValue {
    let window = burst.get().div_ceil(per_second.get()).max(1);
    HeaderValue::from_str(&format!(
        "\"{POLICY}\";q={burst};w={window};linkpath-rate={per_second}"
    ))
    .expect("digits and a token are a valid header value")
}

/// The address of the client that sent `request`: the peer's, or behind
/// trusted proxies the one they name. Without a peer address (in-process
/// tests) every caller shares one.
pub(crate) fn client_of(request: &Request, trusted: &TrustedProxies) -> IpAddr {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip());
    client_address(peer, request.headers(), trusted)
}

/// Answers 429 with `Retry-After`, `RateLimit` and `RateLimit-Policy` to a
/// client over its rate on `/v1/*`: a signed-in player (the middleware of
/// `players::caller` ran first) in a bucket of its own, anyone else in
/// their address's. A body of up to 64 KiB is read first,
/// so that the connection stays open for the client's next request.
pub(crate) async fn rate_limit(
    State(rate): State<RateLimit>,
    request: Request,
    next: Next,
) -> Response {
    let Some(limiter) = &rate.limiter else {
        return next.run(request).await;
    };
    if !request.uri().path().starts_with("/v1/") {
        return next.run(request).await;
    }
    let client = match request
        .extensions()
        .get::<Caller>()
        .and_then(Caller::player_id)
    {
        Some(player) => Client::Player(player.to_owned()),
        None => Client::Address(client_of(&request, &rate.trusted)),
    };
    match limiter.limiter.check_key(&client) {
        Ok(()) => next.run(request).await,
        Err(not_until) => {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            // Whole seconds, rounded up: a retry after them is not early.
            let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let seconds = seconds.max(1);
            crate::body::discard(request, rate.body_timeout).await;
            let mut response = HttpError::new(
                ErrorCode::RateLimited,
                "too many requests from this client, retry after the time in Retry-After",
            )
            .retry_after(seconds)
            .into_response();
            let headers = response.headers_mut();
            headers.insert(RATELIMIT_POLICY, limiter.policy.clone());
            headers.insert(
                RATELIMIT,
                HeaderValue::from_str(&format!("\"{POLICY}\";r=0;t={seconds}"))
                    .expect("digits and a token are a valid header value"),
            );
            response
        }
    }
}

/// The fields of draft-ietf-httpapi-ratelimit-headers-11.
const RATELIMIT: header::HeaderName = header::HeaderName::from_static("ratelimit");
const RATELIMIT_POLICY: header::HeaderName = header::HeaderName::from_static("ratelimit-policy");

/// The CORS layer for the configured origins; `None` when there are none.
/// `*` allows any origin.
pub(crate) fn cors(origins: &[String]) -> Option<CorsLayer> {
    let origins: Vec<&str> = origins
        .iter()
        .map(|o| o.trim())
        .filter(|o| !o.is_empty())
        .collect();
    if origins.is_empty() {
        return None;
    }
    let allow = if origins.contains(&"*") {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(origins.iter().filter_map(|o| HeaderValue::from_str(o).ok()))
    };
    let name = header::HeaderName::from_static;
    Some(
        CorsLayer::new()
            .allow_origin(allow)
            // A player renames and erases itself with PATCH and DELETE.
            .allow_methods([Method::GET, Method::POST, Method::PATCH, Method::DELETE])
            // What a game client sends to act safely: versions, retry keys,
            // its place in a stream, its token and its trace.
            .allow_headers([
                header::CONTENT_TYPE,
                header::AUTHORIZATION,
                header::IF_MATCH,
                header::IF_NONE_MATCH,
                name("idempotency-key"),
                name("last-event-id"),
                name("x-request-id"),
                name("traceparent"),
            ])
            // Without these a page reads them as null.
            .expose_headers([
                header::ETAG,
                header::LOCATION,
                header::RETRY_AFTER,
                name("idempotent-replayed"),
                RATELIMIT,
                RATELIMIT_POLICY,
                name("x-request-id"),
            ])
            .max_age(Duration::from_secs(600)),
    )
}
