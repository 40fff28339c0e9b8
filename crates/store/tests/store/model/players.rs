//! The model's players, as `lib.rs` and `player.rs` tell their rules: a
//! player's write and erase, the player a token's hash finds, a player's
//! games, and what goes with a player that goes.

use super::rules::{Model, first_expired, live};
use super::*;

impl Model {
    /// A player's `op` at `step` as a call: versions as the model knows
    /// them.
    pub(super) fn player_call(&self, op: &Op, step: usize, now: u64) -> Call {
        let stored = |player: usize, expected: Expected, token: Option<usize>, life: u64| {
            let version = match expected {
                Expected::Absent => 0,
                Expected::Version(version) => version + 1,
            };
            let id = PLAYERS[player];
            Call::Player(PlayerWrite {
                id: id.to_owned(),
                expected,
                player: StoredPlayer {
                    version,
                    expires_at_ms: now + life,
                    token: token.map(|n| super::token(TOKENS[n])),
                    body: format!("{id} v{version} at step {step}").into_bytes(),
                },
            })
        };
        let version = |player: usize| self.player(PLAYERS[player], now).map(|p| p.version);
        match op {
            Op::Join {
                player,
                token,
                life,
            } => stored(*player, Expected::Absent, *token, *life),
            Op::Change {
                player,
                token,
                life,
            } => {
                let expected = Expected::Version(version(*player).unwrap_or(0));
                stored(*player, expected, *token, *life)
            }
            Op::Erase { player, stale } => {
                let live = version(*player).unwrap_or(0);
                let expected = if *stale { live + 1 } else { live };
                Call::Erase(PLAYERS[*player].to_owned(), expected)
            }
            Op::ByToken { token } => Call::ByToken(super::token(TOKENS[*token])),
            Op::PlayerGames {
                player,
                after,
                limit,
            } => {
                let player = PLAYERS[*player];
                let listed = self.player_games(player, None, usize::MAX, now);
                let after = after
                    .and_then(|n| listed.get(n))
                    .map(|(cursor, _)| cursor.clone());
                Call::PlayerGames(player.to_owned(), after, *limit)
            }
            _ => unreachable!("not a player's call: {op:?}"),
        }
    }

    pub(super) fn player_answer(&mut self, call: &Call, now: u64) -> Answer {
        match call {
            Call::Player(write) => {
                let outcome = self.write_player(write, now);
                self.meet(match outcome {
                    PlayerOutcome::Written => "player written",
                    PlayerOutcome::Stale { .. } => "player stale",
                    PlayerOutcome::Full => "player full",
                    PlayerOutcome::TokenTaken => "token taken",
                });
                Answer::Player(Ok(outcome))
            }
            Call::Erase(id, expected) => Answer::Player(Ok(self.erase_player(id, *expected, now))),
            Call::ByToken(token) => Answer::ByToken(Ok(self.by_token(token, now))),
            Call::PlayerGames(player, after, limit) => {
                Answer::PlayerGames(Ok(self.player_games(player, after.as_ref(), *limit, now)))
            }
            _ => unreachable!("not a player's call: {call:?}"),
        }
    }

    pub(super) fn player(&self, id: &str, now: u64) -> Option<StoredPlayer> {
        self.players
            .get(id)
            .filter(|player| live(player.expires_at_ms, now))
            .cloned()
    }

    /// The live player whose token hashes to `token`.
    pub(super) fn by_token(&self, token: &[u8], now: u64) -> Option<(String, StoredPlayer)> {
        self.players
            .iter()
            .find(|(_, player)| {
                live(player.expires_at_ms, now) && player.token.as_deref() == Some(token)
            })
            .map(|(id, player)| (id.clone(), player.clone()))
    }

    /// `player`'s live games, newest created first (then by id), after
    /// `after`, at most `limit`.
    pub(super) fn player_games(
        &self,
        player: &str,
        after: Option<&GameCursor>,
        limit: usize,
        now: u64,
    ) -> Vec<(GameCursor, String)> {
        let mut listed: Vec<GameCursor> = self
            .owners
            .iter()
            .filter(|(id, (owner, _))| owner == player && self.game(id, now).is_some())
            .map(|(id, (_, created_ms))| GameCursor {
                created_ms: *created_ms,
                id: id.clone(),
            })
            .filter(|cursor| after.is_none_or(|after| cursor < after))
            .collect();
        listed.sort_by(|a, b| b.cmp(a));
        listed
            .into_iter()
            .take(limit)
            .map(|cursor| {
                let id = cursor.id.clone();
                (cursor, id)
            })
            .collect()
    }

    /// A player's write: the version, then the bound on players (an
    /// expired player makes room), then the token's hash (another live
    /// player's refuses it; an expired player holding it is erased).
    pub(super) fn write_player(&mut self, write: &PlayerWrite, now: u64) -> PlayerOutcome {
        let stored = self.players.contains_key(&write.id);
        let current = self.player(&write.id, now).map(|player| player.version);
        let expected = match write.expected {
            Expected::Absent => None,
            Expected::Version(version) => Some(version),
        };
        if current != expected {
            return PlayerOutcome::Stale { current };
        }
        if !stored && self.players.len() as u64 >= self.limits.max_players {
            let expired = first_expired(
                self.players.iter().map(|(id, p)| (p.expires_at_ms, id)),
                now,
            );
            let Some(expired) = expired else {
                return PlayerOutcome::Full;
            };
            self.remove_player(&expired);
            self.meet("an expired player made room");
        }
        if let Some(token) = &write.player.token {
            let holder = self
                .players
                .iter()
                .find(|(id, player)| **id != write.id && player.token.as_ref() == Some(token))
                .map(|(id, player)| (id.clone(), player.expires_at_ms));
            if let Some((holder, expires_at_ms)) = holder {
                if live(expires_at_ms, now) {
                    return PlayerOutcome::TokenTaken;
                }
                self.remove_player(&holder);
                self.meet("an expired player's token taken over");
            }
        }
        if write.expected == Expected::Absent && stored {
            self.remove_player(&write.id);
        }
        self.players.insert(write.id.clone(), write.player.clone());
        PlayerOutcome::Written
    }

    fn erase_player(&mut self, id: &str, expected: u64, now: u64) -> PlayerOutcome {
        match self.player(id, now) {
            Some(player) if player.version == expected => {
                self.remove_player(id);
                self.meet("player erased");
                PlayerOutcome::Written
            }
            live => PlayerOutcome::Stale {
                current: live.map(|player| player.version),
            },
        }
    }

    /// Removes a player, its entries on every board and its games' places
    /// in its list; the games stay.
    pub(super) fn remove_player(&mut self, id: &str) {
        self.players.remove(id);
        for board in self.boards.values_mut() {
            board.entries.retain(|_, (player, _)| player != id);
        }
        self.owners.retain(|_, (owner, _)| owner != id);
    }

    /// Purges at most `at_most` expired players, the first to expire
    /// first: how many, and whether expired ones are left.
    pub(super) fn purge_players(&mut self, now: u64, at_most: usize) -> (usize, bool) {
        let mut purged = 0;
        loop {
            let expired = first_expired(
                self.players.iter().map(|(id, p)| (p.expires_at_ms, id)),
                now,
            );
            let Some(expired) = expired else {
                return (purged, false);
            };
            if purged == at_most {
                return (purged, true);
            }
            self.remove_player(&expired);
            self.meet("a player purged");
            purged += 1;
        }
    }
}
