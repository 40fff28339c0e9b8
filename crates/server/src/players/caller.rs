//! Who sent a request: a player (by its token, or by a studio's JWT), a
//! service (by an API key), or nobody in particular. One middleware reads
//! `Authorization: Bearer` once for every `/v1/*` request and leaves the
//! answer, a [`Caller`], for the handlers.
//!
//! A bearer is told apart by its look: a player's token begins `lpp_`, a
//! JWT is three base64url parts, anything else is an API key. Where API
//! keys are configured they gate the service, and a player's token alone
//! opens what a player needs: games, leaderboards, daily deals and its own
//! account. An unknown token is 401, never taken for nobody: a client
//! that lost its player should know. Unknown tokens are counted per
//! address, and past a rate every token from it is refused before the
//! store is asked, so that tokens cannot be guessed at speed.

use super::service::{Players, SignedIn};
use super::window::PerAddress;
use crate::access::{ApiKeys, client_of};
use crate::client::TrustedProxies;
use crate::error::{ErrorCode, HttpError};
use crate::jwt::{JwtVerifier, looks_like_jwt};
use crate::metrics;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use linkpath_api::ApiError;
use linkpath_api::players::{Studio, is_token};
use std::net::IpAddr;
use std::sync::Arc;

/// Who sent a request, as the middleware found.
#[derive(Clone, Debug)]
pub(crate) struct Caller {
    /// The player the request proved to be.
    pub player: Option<SignedIn>,
    /// Whether the request may use what a service may: true with a valid
    /// API key, and for everyone where no keys are configured.
    pub service: bool,
    /// The client's address, behind trusted proxies the one they name.
    pub address: IpAddr,
}

impl Caller {
    /// The player's id, if a player sent the request.
    pub(crate) fn player_id(&self) -> Option<&str> {
        self.player.as_ref().map(SignedIn::id)
    }

    /// The player, or 401: the route serves a signed-in player only.
    pub(crate) fn signed_in(&self) -> Result<&SignedIn, ApiError> {
        self.player.as_ref().ok_or_else(|| {
            ApiError::new(
                ErrorCode::Unauthorized,
                "this route serves a player: send Authorization: Bearer <token>, the token `POST /v1/players` gave",
            )
        })
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        // Outside `/v1/*` no middleware looked: nobody, with a service's
        // reach, as before there were players.
        Ok(parts.extensions.get::<Caller>().cloned().unwrap_or(Caller {
            player: None,
            service: true,
            address: IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED),
        }))
    }
}

/// What the middleware needs to tell a caller.
#[derive(Clone)]
pub(crate) struct Gate {
    pub keys: ApiKeys,
    pub players: Arc<Players>,
    pub jwt: Option<JwtVerifier>,
    /// The unknown tokens each address sent this minute.
    pub guessing: PerAddress,
    /// The proxies whose forwarding headers name the client, whose
    /// address unknown tokens are counted for.
    pub trusted: TrustedProxies,
}

/// The routes a player's token alone opens where API keys are set.
fn player_route(path: &str) -> bool {
    [
        "/v1/games",
        "/v1/leaderboards/",
        "/v1/daily/",
        "/v1/days/",
        "/v1/players",
    ]
    .iter()
    .any(|prefix| path.starts_with(prefix))
}

/// Tells who sent a `/v1/*` request, and refuses it if it may not be
/// served: see the module's doc.
pub(crate) async fn authenticate(
    State(gate): State<Gate>,
    mut request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path();
    if !path.starts_with("/v1/") {
        return next.run(request).await;
    }
    let guest_sign_up =
        gate.players.guest_sign_up && request.method() == Method::POST && path == "/v1/players";
    let bearer = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.as_bytes().strip_prefix(b"Bearer "))
        .map(<[u8]>::to_vec);
    let address = client_of(&request, &gate.trusted);
    let caller = match bearer {
        None if gate.keys.is_enabled() && !guest_sign_up => {
            return unauthorized(
                "an API key or a player's token is required: send Authorization: Bearer <key or token>",
            );
        }
        None => Caller {
            player: None,
            service: !gate.keys.is_enabled(),
            address,
        },
        Some(token)
            if is_token(&token)
                || gate.jwt.is_some()
                    && looks_like_jwt(std::str::from_utf8(&token).unwrap_or("")) =>
        {
            match sign_in(&gate, &token, address).await {
                Ok(player) => Caller {
                    player: Some(player),
                    service: false,
                    address,
                },
                Err(refused) => return refused,
            }
        }
        Some(key) if gate.keys.is_enabled() => {
            if !gate.keys.accepts(&key) {
                return unauthorized("the API key is not valid");
            }
            Caller {
                player: None,
                service: true,
                address,
            }
        }
        // No keys configured: whatever else is sent opens everything, as
        // it did before there were players.
        Some(_) => Caller {
            player: None,
            service: true,
            address,
        },
    };
    if caller.player.is_some() && gate.keys.is_enabled() && !player_route(path) {
        metrics::record_player_refusal("service_route");
        return HttpError::new(
            ErrorCode::Forbidden,
            "this route takes a service's API key; a player's token opens games, leaderboards, daily deals and the player's own account",
        )
        .into_response();
    }
    request.extensions_mut().insert(caller);
    next.run(request).await
}

/// The player `token` proves, or the answer refusing it.
async fn sign_in(gate: &Gate, token: &[u8], address: IpAddr) -> Result<SignedIn, Response> {
    if let Err(seconds) = gate.guessing.allows(address) {
        metrics::record_player_refusal("guessing");
        return Err(HttpError::new(
            ErrorCode::RateLimited,
            "too many unknown tokens from this address; retry after the time in Retry-After",
        )
        .retry_after(seconds)
        .into_response());
    }
    let now = gate.players.now();
    let found = if is_token(token) {
        gate.players.by_token(token, now).await
    } else {
        let text = std::str::from_utf8(token).unwrap_or("");
        let verifier = gate
            .jwt
            .as_ref()
            .expect("a JWT is read only with a verifier");
        match verifier.verify_at(text, now) {
            Ok(jwt) => {
                let studio = Studio {
                    issuer: jwt.issuer,
                    subject: jwt.subject,
                };
                gate.players
                    .by_studio(studio, jwt.name.as_deref(), now)
                    .await
                    .map(Some)
            }
            Err(refusal) => {
                gate.guessing.count(address);
                metrics::record_player_refusal("jwt");
                tracing::info!(reason = refusal.reason(), "a studio's JWT was refused");
                return Err(unauthorized(&format!(
                    "the JWT is refused: {}",
                    refusal.message()
                )));
            }
        }
    };
    match found {
        Ok(Some(player)) => Ok(player),
        Ok(None) => {
            gate.guessing.count(address);
            metrics::record_player_refusal("unknown_token");
            Err(unauthorized(
                "the player's token is not known: it was replaced by a new one, or its player erased or expired",
            ))
        }
        Err(error) => Err(HttpError(error).into_response()),
    }
}

fn unauthorized(message: &str) -> Response {
    let mut response = HttpError::new(ErrorCode::Unauthorized, message).into_response();
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}
