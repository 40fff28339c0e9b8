//! `/v1/matches`: the routes of matches, one a file. Each reads the
//! request (the path, `Idempotency-Key`, the body), asks the service,
//! and writes the answer: the match's JSON with its version as the
//! `ETag`.

pub(crate) mod change;
pub(crate) mod create;
pub(crate) mod events;
pub(crate) mod seek;
pub(crate) mod show;

use crate::body::BodyLimits;
use crate::matches::{Matches, Seeks};
use crate::solvers::Solvers;
use axum::Router;
use axum::extract::FromRef;
use axum::routing::{get, post};
use std::sync::Arc;

/// Where a new match is found, its id after it.
const LOCATION: &str = "/v1/matches/";

/// The routes; they take the matches, and their bodies the body limits
/// and the solver pool.
pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Arc<Matches>: FromRef<S>,
    Arc<Seeks>: FromRef<S>,
    Arc<crate::players::Players>: FromRef<S>,
    Solvers: FromRef<S>,
    BodyLimits: FromRef<S>,
{
    Router::new()
        .route("/v1/matches", post(create::create))
        .route("/v1/matches/seek", post(seek::seek))
        .route("/v1/matches/{id}", get(show::show))
        .route("/v1/matches/{id}/join", post(change::join))
        .route("/v1/matches/{id}/leave", post(change::leave))
        .route("/v1/matches/{id}/start", post(change::start))
        .route("/v1/matches/{id}/rematch", post(change::rematch))
        .route("/v1/matches/{id}/events", get(events::stream))
}
