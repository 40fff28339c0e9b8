//! A request's idempotency key as the service sees it: where its answer
//! is kept, what the request was, and how its answer is kept. The answer
//! itself is opaque here: the layer above says what it keeps through
//! [`Keeping`] (the HTTP routes keep the status, the headers and the
//! body, so that a retry gets the first answer byte for byte), and the
//! service writes those bytes with the change, or on their own for a
//! refusal, and gives them back to a retry of the same request.

use linkpath_api::games::GameView;
use linkpath_api::{ApiError, ErrorCode};
use linkpath_store::Kept;
use std::time::Duration;

/// How the layer above keeps a request's answer.
pub(crate) trait Keeping: Send + Sync {
    /// The answer kept for a request answered the game `view`, encoded
    /// as `json`.
    fn game(&self, view: &GameView, json: &[u8]) -> Vec<u8> {
        self.record(&view.id, view.version, json)
    }

    /// The answer kept for a request answered the record `id` (a game, a
    /// match) at `version`, encoded as `json`.
    fn record(&self, id: &str, version: u64, json: &[u8]) -> Vec<u8>;

    /// The answer kept for a request refused `refused`, if the refusal
    /// is final: a retry of one that is not may go through.
    fn refusal(&self, refused: &ApiError) -> Option<Vec<u8>>;
}

/// A request's key.
pub(crate) struct Key {
    /// Where the answer is kept: short, and apart for each caller.
    pub stored: String,
    /// What the request was: the same key on another request is refused.
    pub fingerprint: Vec<u8>,
    /// How the answer is kept.
    pub keeping: Box<dyn Keeping>,
}

impl Key {
    /// The answer to keep with a change that answered `view`, for `ttl`
    /// from `now`.
    pub fn keep_game(
        &self,
        view: &GameView,
        json: &[u8],
        now: u64,
        ttl: Duration,
    ) -> (String, Kept) {
        self.kept(self.keeping.game(view, json), now, ttl)
    }

    /// The answer to keep with a change that answered the record `id` at
    /// `version`, for `ttl` from `now`.
    pub fn keep_record(
        &self,
        id: &str,
        version: u64,
        json: &[u8],
        now: u64,
        ttl: Duration,
    ) -> (String, Kept) {
        self.kept(self.keeping.record(id, version, json), now, ttl)
    }

    /// The refusal to keep, if it is final.
    pub fn keep_refusal(
        &self,
        refused: &ApiError,
        now: u64,
        ttl: Duration,
    ) -> Option<(String, Kept)> {
        let answer = self.keeping.refusal(refused)?;
        Some(self.kept(answer, now, ttl))
    }

    fn kept(&self, answer: Vec<u8>, now: u64, ttl: Duration) -> (String, Kept) {
        let kept = Kept {
            fingerprint: self.fingerprint.clone(),
            answer,
            expires_at_ms: now + ttl.as_millis() as u64,
        };
        (self.stored.clone(), kept)
    }

    /// The answer kept under this key, given again if it answered this
    /// request; 422 if it answered another.
    pub fn replayed(&self, kept: &Kept) -> Result<Vec<u8>, ApiError> {
        if kept.fingerprint != self.fingerprint {
            return Err(ApiError::new(
                ErrorCode::IdempotencyKeyReused,
                "this Idempotency-Key was used for another request (another route, game or body), expected a new key for a new request",
            )
            .at("Idempotency-Key"));
        }
        Ok(kept.answer.clone())
    }
}
