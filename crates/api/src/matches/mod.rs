//! Matches: several players race on one deal, each clearing their own
//! copy of the board, as online Lianliankan is played. How a race is
//! ranked once it is over ([`standings`]) and how it moves the players'
//! ratings ([`rating`]) are decided here, without HTTP or a store.

mod rating;
mod standings;

pub use rating::{Rating, after_match};
pub use standings::{Finish, ranks};
