//! The names of the store's keys in Redis, each under the store's prefix;
//! a record's name ends with its id in braces, a hash tag.

/// The names of a store's keys in Redis.
pub(super) struct Names {
    pub(super) prefix: String,
}

impl Names {
    pub(super) fn game(&self, id: &str) -> String {
        format!("{}:game:{{{id}}}", self.prefix)
    }

    pub(super) fn log(&self, id: &str) -> String {
        format!("{}:log:{{{id}}}", self.prefix)
    }

    pub(super) fn kept(&self, key: &str) -> String {
        format!("{}:kept:{{{key}}}", self.prefix)
    }

    pub(super) fn game_expiry(&self) -> String {
        format!("{}:game-expiry", self.prefix)
    }

    /// Expired games held for the archive, out of `game_expiry`.
    pub(super) fn game_held(&self) -> String {
        format!("{}:game-held", self.prefix)
    }

    /// The marks of finished games not yet archived, by finish time.
    pub(super) fn unarchived(&self) -> String {
        format!("{}:unarchived", self.prefix)
    }

    pub(super) fn kept_expiry(&self) -> String {
        format!("{}:kept-expiry", self.prefix)
    }

    pub(super) fn kept_owners(&self) -> String {
        format!("{}:kept-owners", self.prefix)
    }

    pub(super) fn game_keys(&self) -> String {
        format!("{}:game-keys", self.prefix)
    }

    pub(super) fn kept_bytes(&self) -> String {
        format!("{}:kept-bytes", self.prefix)
    }

    pub(super) fn board(&self, board: &str) -> String {
        format!("{}:board:{{{board}}}", self.prefix)
    }

    pub(super) fn ranks(&self, board: &str) -> String {
        format!("{}:ranks:{{{board}}}", self.prefix)
    }

    pub(super) fn entries(&self, board: &str) -> String {
        format!("{}:entries:{{{board}}}", self.prefix)
    }

    pub(super) fn board_expiry(&self) -> String {
        format!("{}:board-expiry", self.prefix)
    }

    pub(super) fn entry_players(&self, board: &str) -> String {
        format!("{}:entry-players:{{{board}}}", self.prefix)
    }

    pub(super) fn board_players(&self, board: &str) -> String {
        format!("{}:board-players:{{{board}}}", self.prefix)
    }

    pub(super) fn player(&self, id: &str) -> String {
        format!("{}:player:{{{id}}}", self.prefix)
    }

    pub(super) fn player_games(&self, id: &str) -> String {
        format!("{}:player-games:{{{id}}}", self.prefix)
    }

    pub(super) fn player_expiry(&self) -> String {
        format!("{}:player-expiry", self.prefix)
    }

    pub(super) fn token_players(&self) -> String {
        format!("{}:token-players", self.prefix)
    }

    pub(super) fn player_tokens(&self) -> String {
        format!("{}:player-tokens", self.prefix)
    }

    pub(super) fn game_owners(&self) -> String {
        format!("{}:game-owners", self.prefix)
    }

    pub(super) fn match_record(&self, id: &str) -> String {
        format!("{}:match:{{{id}}}", self.prefix)
    }

    pub(super) fn match_expiry(&self) -> String {
        format!("{}:match-expiry", self.prefix)
    }

    pub(super) fn match_due(&self) -> String {
        format!("{}:match-due", self.prefix)
    }

    /// The channel on which the write script announces each change.
    pub(super) fn changes(&self) -> String {
        format!("{}:changes", self.prefix)
    }

    pub(super) fn seeker(&self, player: &str) -> String {
        format!("{}:seeker:{{{player}}}", self.prefix)
    }

    pub(super) fn seek_line(&self, key: &str) -> String {
        format!("{}:seek-line:{{{key}}}", self.prefix)
    }

    pub(super) fn seat(&self, player: &str) -> String {
        format!("{}:seat:{{{player}}}", self.prefix)
    }
}
