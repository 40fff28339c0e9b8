//! The model's matches, as `matches.rs` tells their rules: a match's
//! write with its key and its players' ratings, the matches due, and a
//! match that goes.

use super::rules::{Model, first_expired, live};
use super::*;

impl Model {
    /// A match's `op` at `step` as a call: versions as the model knows
    /// them.
    pub(super) fn match_call(&self, op: &Op, step: usize, now: u64) -> Call {
        match op {
            Op::Match {
                id,
                life,
                due,
                stale,
                key,
                rated,
            } => {
                let id = MATCHES[*id];
                let expected = match (self.match_version(id, now), stale) {
                    (None, false) => Expected::Absent,
                    (Some(version), false) => Expected::Version(version),
                    (None, true) => Expected::Version(0),
                    (Some(version), true) => Expected::Version(version + 1),
                };
                let version = match expected {
                    Expected::Absent => 0,
                    Expected::Version(version) => version + 1,
                };
                let players = rated.iter().map(|(player, stale)| {
                    let id = PLAYERS[*player];
                    let stored = self.player(id, now);
                    let from =
                        stored.as_ref().map_or(0, |stored| stored.version) + u64::from(*stale);
                    PlayerWrite {
                        id: id.to_owned(),
                        expected: Expected::Version(from),
                        player: StoredPlayer {
                            version: from + 1,
                            expires_at_ms: now + life,
                            // A rating keeps the player's token.
                            token: stored.and_then(|stored| stored.token),
                            body: format!("rated at step {step}").into_bytes(),
                        },
                    }
                });
                Call::Match(Box::new(MatchWrite {
                    id: id.to_owned(),
                    expected,
                    record: StoredMatch {
                        version,
                        expires_at_ms: now + life,
                        due_at_ms: due.map(|due| now + due),
                        body: format!("match of step {step}").into_bytes(),
                    },
                    key: key.as_ref().map(|key| {
                        let kept = answer(step, key.request, key.padding, now + key.life);
                        (KEYS[key.key].to_owned(), kept)
                    }),
                    players: players.collect(),
                }))
            }
            Op::Due { ahead, at_most } => Call::Due(now + ahead, *at_most),
            _ => unreachable!("not a match's op"),
        }
    }

    pub(super) fn match_answer(&mut self, call: &Call, now: u64) -> Answer {
        match call {
            Call::Match(write) => {
                let outcome = self.write_match(write, now);
                self.meet(match outcome {
                    MatchOutcome::Written => "match written",
                    MatchOutcome::Stale { .. } => "match stale",
                    MatchOutcome::PlayerStale { .. } => "match player stale",
                    MatchOutcome::Full => "match full",
                    MatchOutcome::Replayed(_) => "match replayed",
                    MatchOutcome::TooManyKeys(_) => "match too many keys",
                });
                Answer::Match(Ok(outcome))
            }
            Call::Due(at, at_most) => Answer::Due(Ok(self.due(*at, *at_most))),
            _ => unreachable!("not a match's call"),
        }
    }

    fn match_version(&self, id: &str, now: u64) -> Option<u64> {
        self.match_record(id, now).map(|stored| stored.version)
    }

    pub(super) fn match_record(&self, id: &str, now: u64) -> Option<StoredMatch> {
        self.matches
            .get(id)
            .filter(|stored| live(stored.expires_at_ms, now))
            .cloned()
    }

    /// The live matches due by `at`, soonest first, then by id.
    pub(super) fn due(&self, at: u64, at_most: usize) -> Vec<String> {
        let mut due: Vec<(u64, &String)> = self
            .matches
            .iter()
            .filter(|(_, stored)| live(stored.expires_at_ms, at))
            .filter_map(|(id, stored)| stored.due_at_ms.map(|due| (due, id)))
            .filter(|(due, _)| *due <= at)
            .collect();
        due.sort();
        due.into_iter()
            .take(at_most)
            .map(|(_, id)| id.clone())
            .collect()
    }

    /// A match's write: the key first (a live answer is replayed), then
    /// the match's version, then the bound on matches (an expired match
    /// makes room), then each player's version, then the bounds on keys;
    /// the match, its players and its key are stored only when all pass.
    fn write_match(&mut self, write: &MatchWrite, now: u64) -> MatchOutcome {
        if let Some((key, _)) = &write.key
            && let Some(found) = self.live_kept(key, now)
        {
            return MatchOutcome::Replayed(found);
        }
        let stored = self.matches.contains_key(&write.id);
        let current = self.match_version(&write.id, now);
        let expected = match write.expected {
            Expected::Absent => None,
            Expected::Version(version) => Some(version),
        };
        if current != expected {
            return MatchOutcome::Stale { current };
        }
        if !stored && self.matches.len() as u64 >= self.limits.max_matches {
            let expired = first_expired(
                self.matches
                    .iter()
                    .map(|(id, stored)| (stored.expires_at_ms, id)),
                now,
            );
            let Some(expired) = expired else {
                return MatchOutcome::Full;
            };
            self.matches.remove(&expired);
            self.meet("an expired match made room");
        }
        for player in &write.players {
            let current = self.player(&player.id, now).map(|stored| stored.version);
            if current != Some(version_of(player.expected)) {
                return MatchOutcome::PlayerStale {
                    id: player.id.clone(),
                    current,
                };
            }
        }
        if let Some((key, kept)) = &write.key
            && let Some(bound) = self.over_bound(&write.id, kept_charge(key, kept), now)
        {
            return MatchOutcome::TooManyKeys(bound);
        }
        self.matches.insert(write.id.clone(), write.record.clone());
        for player in &write.players {
            assert_eq!(self.write_player(player, now), PlayerOutcome::Written);
            self.meet("a match's player rated");
        }
        if let Some((key, kept)) = &write.key {
            self.put_kept(key, &write.id, kept);
        }
        MatchOutcome::Written
    }
}

/// The version a change expects.
fn version_of(expected: Expected) -> u64 {
    match expected {
        Expected::Absent => unreachable!("a match changes stored players"),
        Expected::Version(version) => version,
    }
}
