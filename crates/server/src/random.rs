//! Random bytes from the system, for what must not be guessed: game and
//! player ids, players' tokens. A system without them refuses the
//! request (503) rather than make something guessable.

use linkpath_api::{ApiError, ErrorCode};

/// `N` random bytes; `what` names what they are for in the error.
pub(crate) fn bytes<const N: usize>(what: &str) -> Result<[u8; N], ApiError> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| {
        tracing::error!(error = %e, what, "no random bytes");
        ApiError::new(
            ErrorCode::StoreUnavailable,
            format!("no random bytes could be had for {what}, retry shortly"),
        )
        .retry_after(1)
    })?;
    Ok(bytes)
}

/// A new id: 128 random bits, as 32 lowercase hex digits.
pub(crate) fn id(what: &str) -> Result<String, ApiError> {
    Ok(bytes::<16>(what)?
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}
