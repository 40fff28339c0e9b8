//! The game mechanics' routes, on a board sent with each request (the
//! games the server holds are `games`): `/v1/moves`, `/v1/play`, `/v1/clear`, `/v1/deal` and
//! `/v1/shuffle`, a module each. Boards and rules are read as `/v1/solve`
//! reads them (the same types, errors and limits), and the settings every
//! game route takes are read once, in [`settings`]; each route's function
//! goes from a body to its answer, polling `stop`.

mod clear;
mod deal;
mod moves;
mod play;
mod settings;
mod shuffle;

pub use clear::{ClearOutcome, ClearRequest, ClearResponse, clear};
pub(crate) use deal::dealt;
pub use deal::{DealRequest, DealResponse, DifficultyName, deal};
pub use moves::{MovesRequest, MovesResponse, moves};
pub use play::{PlayRequest, PlayResponse, play};
pub(crate) use settings::Settings;
pub(crate) use shuffle::shuffled;
pub use shuffle::{ShuffleRequest, ShuffleResponse, shuffle};

use crate::error::{ApiError, ErrorCode};

/// A count that must be at least 1.
fn at_least_one(value: u64, name: &str) -> Result<u64, ApiError> {
    if value == 0 {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("`{name}` is 0, expected at least 1"),
        )
        .at(name));
    }
    Ok(value)
}

/// What a board left by a game route is: `cleared`, `stuck` or `open`.
fn position(cleared: bool, stuck: bool) -> &'static str {
    match (cleared, stuck) {
        (true, _) => "cleared",
        (false, true) => "stuck",
        (false, false) => "open",
    }
}
