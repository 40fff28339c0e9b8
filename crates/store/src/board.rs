//! Leaderboards as callers see them: the entry a won game earns, and a
//! page of a board read from the top, after a rank, or around a player's
//! entry. A board holds one entry per player, that player's best.

/// A won game on a leaderboard. A board keeps its best
/// [`StoreLimits::board_size`](crate::StoreLimits::board_size) entries,
/// best first by `rank`, at most one of each player; it is made by its
/// first entry (while fewer than
/// [`StoreLimits::max_boards`](crate::StoreLimits::max_boards) are stored;
/// past that the entry is left out and the write goes on), and expires at
/// the latest expiry of its entries.
///
/// A player's entry is replaced only by a better one (a rank lower in
/// byte order); a worse or equal one changes nothing, and the write goes
/// on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The leaderboard's name: opaque to the store, made by the caller.
    pub board: String,
    /// Whose entry it is: the board keeps one per player.
    pub player: String,
    /// Where the entry stands: a board lists its entries in ascending byte
    /// order of their ranks. Unique within a board (the caller ends it
    /// with the game's id): an entry of the same rank replaces it, whoever
    /// its player.
    pub rank: String,
    /// The entry as the caller serialised it.
    pub body: Vec<u8>,
    /// The board lasts at least until then.
    pub expires_at_ms: u64,
}

/// Where a page of a leaderboard starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardStart {
    /// After the entry of this rank (exclusive), or at the top for
    /// `None`: a page's last rank is the next page's cursor.
    After(Option<String>),
    /// `before` places above `player`'s entry (fewer at the top), so
    /// that the page shows the player among those around; at the top if
    /// the player has no entry on the board.
    Around { player: String, before: usize },
}

/// An entry as a board lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranked {
    pub rank: String,
    /// Its player; empty for an entry stored before entries named their
    /// player.
    pub player: String,
    pub body: Vec<u8>,
}

/// A page of a leaderboard: empty for a board never made, or expired.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BoardPage {
    /// The 0-based place on the board of the page's first entry.
    pub position: u64,
    /// Best first.
    pub entries: Vec<Ranked>,
    /// For [`BoardStart::Around`], the player's 0-based place, if the
    /// player is on the board.
    pub found: Option<u64>,
}

impl BoardPage {
    /// The page of `limit` entries at `start` of a board whose entries
    /// are `ranked`, best first: every backend holds a board whole (at
    /// most the board size), so each reads it and pages it here.
    pub(crate) fn of(ranked: Vec<Ranked>, start: &BoardStart, limit: usize) -> BoardPage {
        let (from, found) = match start {
            BoardStart::After(None) => (0, None),
            BoardStart::After(Some(cursor)) => (
                ranked.partition_point(|entry| entry.rank.as_str() <= cursor.as_str()),
                None,
            ),
            BoardStart::Around { player, before } => {
                match ranked.iter().position(|entry| &entry.player == player) {
                    Some(place) => (place.saturating_sub(*before), Some(place as u64)),
                    None => (0, None),
                }
            }
        };
        BoardPage {
            position: from as u64,
            entries: ranked.into_iter().skip(from).take(limit).collect(),
            found,
        }
    }
}
