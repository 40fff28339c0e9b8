//! The refusals the held-games service answers for the store and the
//! races it loses: each an [`ApiError`] with the message a client acts
//! on. A store failure's cause is logged here and never sent.

use crate::metrics;
use linkpath_api::{ApiError, ErrorCode};
use linkpath_store::{KeyBound, StoreError};

/// A store failure as the client sees it: 503 with `Retry-After`; the
/// cause is logged, not sent. A write that timed out may still have been
/// applied, so that message sends the client to its idempotency key.
pub(crate) fn unavailable(e: StoreError) -> ApiError {
    tracing::error!(error = %e, "the game store failed");
    metrics::record_store_error();
    let message = match e {
        StoreError::TimedOut(_) => {
            "the game store did not answer in time: a change may have been applied; \
             retry with the same Idempotency-Key to get its answer, or read the game"
        }
        _ => "the game store is unavailable, retry shortly",
    };
    ApiError::new(ErrorCode::StoreUnavailable, message).retry_after(1)
}

/// Stored bytes that do not read back: `what` names them.
pub(crate) fn corrupted(what: String) -> ApiError {
    unavailable(StoreError::Corrupted(what))
}

pub(crate) fn not_found() -> ApiError {
    ApiError::new(
        ErrorCode::GameNotFound,
        "no game with this id: it never existed, or it expired",
    )
}

/// Every attempt found the game written first by another replica.
pub(crate) fn busy() -> ApiError {
    ApiError::new(
        ErrorCode::StoreUnavailable,
        "the game changed under every attempt; retry shortly",
    )
    .retry_after(1)
}

/// A new key past a bound of the keys kept: nothing was applied.
pub(crate) fn too_many_keys(bound: KeyBound) -> ApiError {
    let message = match bound {
        KeyBound::Game => {
            "this game has as many Idempotency-Key answers kept as the server allows; \
             nothing was applied: retry once older keys expire, or without a key"
        }
        KeyBound::Store => {
            "the server keeps as many bytes of Idempotency-Key answers as it allows; \
             nothing was applied: retry once older keys expire, or without a key"
        }
    };
    ApiError::new(ErrorCode::StoreFull, message).retry_after(60)
}

/// The outcome label of a refused action.
pub(crate) fn refusal(error: &ApiError) -> &'static str {
    match error.code {
        ErrorCode::IllegalMove => "illegal",
        ErrorCode::GameOver => "finished",
        ErrorCode::DeadlineExceeded => "deadline",
        _ => "refused",
    }
}

/// The first characters of an id: enough to find it in a log, not enough
/// to act on the game.
pub(crate) fn short(id: &str) -> &str {
    id.get(..6).unwrap_or("")
}
