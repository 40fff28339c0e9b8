//! Matches: several players race on one deal, each clearing their own
//! copy of the board, as online Lianliankan is played. A match's record
//! and the changes that move it on ([`Match`]), the body that creates one
//! ([`MatchRequest`]), the settings a player seeks a race with
//! ([`SeekRequest`]), how it is answered ([`MatchView`]), how a race is
//! ranked once it is over ([`ranks`]) and how it moves the players'
//! ratings ([`after_match`]) are decided here, without HTTP or a store.

mod create;
mod rating;
mod record;
mod seek;
mod standings;
mod view;

pub use create::{CreateMatch, MAX_SEATS, MIN_SEATS, MatchRequest};
pub use rating::{Rating, after_match};
pub use record::{
    Ended, Entrant, FORMAT, Match, MatchSettings, MatchStatus, Placed, Race, Seat, decode, encode,
};
pub use seek::{SeekMatch, SeekRequest};
pub use standings::{Finish, ranks};
pub use view::{MatchView, SeatView};
