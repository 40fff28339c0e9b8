//! A match as the store keeps it, and the changes that move it on: each a
//! pure step from one record to the next (or a refusal), the time passed
//! in, as [`Game::act`](crate::games::Game::act) is. The server writes
//! each next record with a compare-and-set on `version`.

use super::create::MatchRequest;
use super::rating::{Rating, after_match};
use super::standings::{Finish, ranks};
use crate::error::{ApiError, ErrorCode};
use crate::games::Status;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

/// The format match records are written in.
pub const FORMAT: u32 = 1;

/// Where a match stands. `countdown`: seated, the race begins at
/// `starts_at`; `finished` has its result (none for a match everyone
/// left before it began).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchStatus {
    Open,
    Countdown,
    Playing,
    Finished,
}

impl MatchStatus {
    /// The wire name, also a metrics label.
    pub fn name(self) -> &'static str {
        match self {
            MatchStatus::Open => "open",
            MatchStatus::Countdown => "countdown",
            MatchStatus::Playing => "playing",
            MatchStatus::Finished => "finished",
        }
    }
}

/// How a match is played, fixed when it is created.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchSettings {
    /// The deal, as the body of `POST /v1/games` that makes each seat's
    /// game (its `seed` always there).
    pub game: Map<String, Value>,
    pub seats: usize,
    pub assists: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invited: Option<Vec<String>>,
    pub countdown_ms: u64,
}

impl MatchSettings {
    /// The deal's seed, from which every shuffle of the match is made.
    pub fn seed(&self) -> u64 {
        self.game.get("seed").and_then(Value::as_u64).unwrap_or(0)
    }

    /// The race's time limit: the games'.
    pub fn time_limit_ms(&self) -> Option<u64> {
        self.game.get("time_limit_ms").and_then(Value::as_u64)
    }
}

/// A player in a match. The name is kept as they joined, so that showing
/// a match reads no player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    pub player: String,
    pub name: String,
    pub joined_at_ms: u64,
    /// The seat's game, from the race's start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    /// When the player left a race under way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quit_at_ms: Option<u64>,
}

/// A player acting on a match: who the token says they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entrant {
    pub id: String,
    pub name: String,
}

/// How a seat's race ended, on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ended {
    /// Cleared the board.
    Cleared,
    /// On the board when the race ended.
    Stopped,
    /// Resigned or left.
    Quit,
}

/// One seat's place once the match is over.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Placed {
    #[schema(example = "5f0c6a1e9b3d4c2a8e7f6b5a4c3d2e1f")]
    pub player: String,
    #[schema(example = "Ann")]
    pub name: String,
    /// 1 the best; exactly equal races share a place.
    pub place: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub game: Option<String>,
    /// The game's replay (`GET` it; `POST /v1/replays` checks it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(
        nullable = false,
        example = "/v1/games/0c9a5e3b7d1f4a6c8e2b0d9f7a5c3e1b/replay"
    )]
    pub replay: Option<String>,
    pub finish: Ended,
    /// Play time of the seat's game when its race ended.
    pub elapsed_ms: u64,
    /// Tiles cleared.
    pub tiles: u64,
    pub score: u64,
    /// The player's rating before and after the match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub rating_before: Option<Rating>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub rating_after: Option<Rating>,
}

/// A seat's game as the match reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Race {
    pub status: Status,
    /// Play time of the game.
    pub elapsed_ms: u64,
    /// Tiles cleared.
    pub tiles: u64,
    pub score: u64,
    /// Play time when the last pair was cleared; 0 with none.
    pub last_pair_ms: u64,
}

/// A match as the store keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Match {
    pub id: String,
    pub version: u64,
    pub status: MatchStatus,
    pub creator: String,
    pub created_at_ms: u64,
    pub settings: MatchSettings,
    /// The creator's first, then in the order they joined.
    pub seats: Vec<Seat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starts_at_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends_at_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Vec<Placed>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
}

#[derive(Serialize)]
struct Record<'a> {
    format: u32,
    #[serde(rename = "match")]
    record: &'a Match,
}

#[derive(Deserialize)]
struct Stored {
    format: u32,
    #[serde(rename = "match")]
    record: Match,
}

/// The stored bytes of `record`.
pub fn encode(record: &Match) -> Vec<u8> {
    serde_json::to_vec(&Record {
        format: FORMAT,
        record,
    })
    .expect("a match serialises")
}

/// A match as stored; what does not read says why.
pub fn decode(bytes: &[u8]) -> Result<Match, String> {
    let stored: Stored = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    if stored.format != FORMAT {
        return Err(format!(
            "a match record of format {}, not this server's {FORMAT}: run the newer server",
            stored.format
        ));
    }
    Ok(stored.record)
}

impl Match {
    /// A new open match `id` of `request`, `creator` in its first seat.
    pub fn create(
        id: String,
        request: MatchRequest,
        creator: &Entrant,
        countdown_ms: u64,
        now_ms: u64,
    ) -> Match {
        Match {
            id,
            version: 0,
            status: MatchStatus::Open,
            creator: creator.id.clone(),
            created_at_ms: now_ms,
            settings: MatchSettings {
                game: request.game,
                seats: request.seats,
                assists: request.assists,
                invited: request.invited,
                countdown_ms,
            },
            seats: vec![Seat {
                player: creator.id.clone(),
                name: creator.name.clone(),
                joined_at_ms: now_ms,
                game: None,
                quit_at_ms: None,
            }],
            starts_at_ms: None,
            started_at_ms: None,
            ends_at_ms: None,
            finished_at_ms: None,
            result: None,
            rematch: None,
            previous: None,
        }
    }

    /// The seat of `player`, if seated.
    pub fn seat(&self, player: &str) -> Option<usize> {
        self.seats.iter().position(|s| s.player == player)
    }

    /// Whether everyone left before the race began: nothing is left of it.
    pub fn gone(&self) -> bool {
        self.seats.is_empty()
    }

    /// When the next change is due by time alone: the countdown's end,
    /// the time limit.
    pub fn due_at_ms(&self) -> Option<u64> {
        match self.status {
            MatchStatus::Countdown => self.starts_at_ms,
            MatchStatus::Playing => self.ends_at_ms,
            MatchStatus::Open | MatchStatus::Finished => None,
        }
    }

    /// `entrant` takes a seat; the last seat taken starts the countdown.
    pub fn join(&self, entrant: &Entrant, now_ms: u64) -> Result<Match, ApiError> {
        self.open()?;
        if self.seat(&entrant.id).is_some() {
            return Err(refused("you are seated in this match already".into()));
        }
        if let Some(invited) = &self.settings.invited
            && !invited.contains(&entrant.id)
        {
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                "you are not invited to this match: its creator named who may join",
            ));
        }
        if self.seats.len() >= self.settings.seats {
            return Err(refused(format!(
                "the match is full: its {} seats are taken",
                self.settings.seats
            )));
        }
        let mut next = self.next();
        next.seats.push(Seat {
            player: entrant.id.clone(),
            name: entrant.name.clone(),
            joined_at_ms: now_ms,
            game: None,
            quit_at_ms: None,
        });
        if next.seats.len() == next.settings.seats {
            next.count_down(now_ms);
        }
        Ok(next)
    }

    /// `player` leaves: before the race, their seat is given up (and a
    /// countdown left with one player stops); during it, they quit, and
    /// the server resigns their game.
    pub fn leave(&self, player: &str, now_ms: u64) -> Result<Match, ApiError> {
        if self.status == MatchStatus::Finished {
            return Err(refused("the match is over".into()));
        }
        let Some(seat) = self.seat(player) else {
            return Err(refused("you are not seated in this match".into()));
        };
        let mut next = self.next();
        match self.status {
            MatchStatus::Open | MatchStatus::Countdown => {
                next.seats.remove(seat);
                if next.seats.len() < super::create::MIN_SEATS {
                    next.status = MatchStatus::Open;
                    next.starts_at_ms = None;
                }
                if next.seats.is_empty() {
                    next.status = MatchStatus::Finished;
                    next.finished_at_ms = Some(now_ms);
                }
            }
            MatchStatus::Playing => {
                if self.seats[seat].quit_at_ms.is_some() {
                    return Err(refused("you left this match already".into()));
                }
                next.seats[seat].quit_at_ms = Some(now_ms);
            }
            MatchStatus::Finished => unreachable!("refused above"),
        }
        Ok(next)
    }

    /// The creator starts the countdown with the players seated so far.
    pub fn start(&self, player: &str, now_ms: u64) -> Result<Match, ApiError> {
        self.open()?;
        if player != self.creator {
            return Err(refused(
                "not your match to start: its creator starts it (or it starts when full)".into(),
            ));
        }
        if self.seats.len() < super::create::MIN_SEATS {
            return Err(refused(format!(
                "the match has {} player seated, expected at least {}",
                self.seats.len(),
                super::create::MIN_SEATS
            )));
        }
        let mut next = self.next();
        next.count_down(now_ms);
        Ok(next)
    }

    /// At the countdown's end the race begins: each seat gets its game,
    /// `games[i]` the id of seat `i`'s. None before the countdown ends.
    pub fn begin(&self, games: &[String], now_ms: u64) -> Option<Match> {
        let starts = self.starts_at_ms?;
        if self.status != MatchStatus::Countdown
            || now_ms < starts
            || games.len() != self.seats.len()
        {
            return None;
        }
        let mut next = self.next();
        next.status = MatchStatus::Playing;
        next.started_at_ms = Some(now_ms);
        next.ends_at_ms = self.settings.time_limit_ms().map(|l| now_ms + l);
        for (seat, game) in next.seats.iter_mut().zip(games) {
            seat.game = Some(game.clone());
        }
        Some(next)
    }

    /// Whether the race is over at `now_ms`, `races[i]` seat `i`'s game
    /// (None while it is not there yet): someone cleared, the time limit
    /// passed, or at most one player is still racing.
    pub fn over(&self, races: &[Option<Race>], now_ms: u64) -> bool {
        if self.status != MatchStatus::Playing {
            return false;
        }
        let won = races
            .iter()
            .any(|r| r.is_some_and(|r| r.status == Status::Won));
        let timed_out = self.ends_at_ms.is_some_and(|end| now_ms >= end);
        let racing = self
            .seats
            .iter()
            .zip(races)
            .filter(|(seat, race)| {
                seat.quit_at_ms.is_none() && race.is_none_or(|r| !r.status.finished())
            })
            .count();
        won || timed_out || racing <= 1
    }

    /// The finished match: the seats placed by their races, and with two
    /// or more rated players (`ratings[i]` seat `i`'s before the match,
    /// None for a player who is not rated) each one's rating after it.
    pub fn finish(&self, races: &[Option<Race>], ratings: &[Option<Rating>], now_ms: u64) -> Match {
        let none = Race {
            status: Status::Playing,
            elapsed_ms: 0,
            tiles: 0,
            score: 0,
            last_pair_ms: 0,
        };
        let finishes: Vec<(Ended, Finish, Race)> = self
            .seats
            .iter()
            .zip(races.iter().chain(std::iter::repeat(&None)))
            .map(|(seat, race)| {
                let race = race.unwrap_or(none);
                let (ended, finish) =
                    if seat.quit_at_ms.is_some() || race.status == Status::Resigned {
                        let at_ms = race.last_pair_ms;
                        (
                            Ended::Quit,
                            Finish::Quit {
                                tiles: race.tiles,
                                at_ms,
                            },
                        )
                    } else if race.status == Status::Won {
                        let elapsed_ms = race.elapsed_ms;
                        (Ended::Cleared, Finish::Cleared { elapsed_ms })
                    } else {
                        let at_ms = race.last_pair_ms;
                        (
                            Ended::Stopped,
                            Finish::Stopped {
                                tiles: race.tiles,
                                at_ms,
                            },
                        )
                    };
                (ended, finish, race)
            })
            .collect();
        let places = ranks(&finishes.iter().map(|f| f.1).collect::<Vec<_>>());
        let rated: Vec<usize> = (0..self.seats.len())
            .filter(|&i| ratings.get(i).copied().flatten().is_some())
            .collect();
        let mut after: Vec<Option<Rating>> = vec![None; self.seats.len()];
        if rated.len() >= 2 {
            let before: Vec<(Rating, usize)> = rated
                .iter()
                .map(|&i| (ratings[i].expect("rated"), places[i]))
                .collect();
            for (&i, rating) in rated.iter().zip(after_match(&before)) {
                after[i] = Some(rating);
            }
        }
        let result = self
            .seats
            .iter()
            .zip(finishes)
            .enumerate()
            .map(|(i, (seat, (ended, _, race)))| Placed {
                player: seat.player.clone(),
                name: seat.name.clone(),
                place: places[i],
                game: seat.game.clone(),
                replay: seat.game.as_ref().map(|g| format!("/v1/games/{g}/replay")),
                finish: ended,
                elapsed_ms: race.elapsed_ms,
                tiles: race.tiles,
                score: race.score,
                rating_before: after[i].and(ratings.get(i).copied().flatten()),
                rating_after: after[i],
            })
            .collect();
        let mut next = self.next();
        next.status = MatchStatus::Finished;
        next.finished_at_ms = Some(now_ms);
        next.result = Some(result);
        next
    }

    /// The next match of a finished one, made by `creator`, one of its
    /// players, as match `id`: the same players (the others invited, and
    /// only they), the same settings, a new deal from `seed`. Refused
    /// before the match is over (409) and to anyone not seated (403).
    pub fn rematch(
        &self,
        id: String,
        seed: u64,
        creator: &Entrant,
        now_ms: u64,
    ) -> Result<Match, ApiError> {
        self.may_rematch(&creator.id)?;
        let mut game = self.settings.game.clone();
        game.insert("seed".into(), Value::from(seed));
        let invited: Vec<String> = (self.seats.iter())
            .map(|s| s.player.clone())
            .filter(|p| *p != creator.id)
            .collect();
        let request = MatchRequest {
            game,
            seats: self.seats.len(),
            assists: self.settings.assists,
            invited: Some(invited),
        };
        let mut next = Match::create(id, request, creator, self.settings.countdown_ms, now_ms);
        next.previous = Some(self.id.clone());
        Ok(next)
    }

    /// Refuses a rematch asked by `player` of a match not over, or not
    /// theirs.
    pub fn may_rematch(&self, player: &str) -> Result<(), ApiError> {
        if self.status != MatchStatus::Finished {
            return Err(refused(
                "the match is not over: a rematch follows a finished match".into(),
            ));
        }
        if self.seat(player).is_none() {
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                "you did not play in this match: only its players ask for a rematch",
            ));
        }
        Ok(())
    }

    /// The finished match pointing to its rematch `id`; None when it has
    /// one already (whoever linked first made it).
    pub fn linked(&self, id: &str) -> Option<Match> {
        if self.rematch.is_some() || self.status != MatchStatus::Finished {
            return None;
        }
        let mut next = self.next();
        next.rematch = Some(id.to_owned());
        Some(next)
    }

    /// Refuses a change that only an open match takes.
    fn open(&self) -> Result<(), ApiError> {
        match self.status {
            MatchStatus::Open => Ok(()),
            MatchStatus::Finished => Err(refused("the match is over".into())),
            MatchStatus::Countdown | MatchStatus::Playing => {
                Err(refused("the match has started".into()))
            }
        }
    }

    fn count_down(&mut self, now_ms: u64) {
        self.status = MatchStatus::Countdown;
        self.starts_at_ms = Some(now_ms + self.settings.countdown_ms);
    }

    /// A copy one version on, to change.
    fn next(&self) -> Match {
        let mut next = self.clone();
        next.version += 1;
        next
    }
}

fn refused(message: String) -> ApiError {
    ApiError::new(ErrorCode::ActionRefused, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Limits;
    use linkpath_engine::Stop;

    fn entrant(n: u8) -> Entrant {
        Entrant {
            id: format!("{n:032x}"),
            name: format!("P{n}"),
        }
    }

    fn created(seats: usize, invited: Option<Vec<String>>) -> Match {
        let body = serde_json::json!({
            "game": {"width": 4, "height": 4, "types": 4, "time_limit_ms": 60_000},
            "seats": seats,
            "invited": invited,
        })
        .to_string();
        let request =
            MatchRequest::read(body.as_bytes(), 9, &Limits::default(), &Stop::never()).unwrap();
        Match::create("m".repeat(32), request, &entrant(1), 3_000, 1_000)
    }

    fn race(status: Status, tiles: u64, last_pair_ms: u64) -> Option<Race> {
        Some(Race {
            status,
            elapsed_ms: last_pair_ms,
            tiles,
            score: tiles * 10,
            last_pair_ms,
        })
    }

    #[test]
    fn the_last_seat_taken_counts_down_then_the_race_begins() {
        let open = created(3, None);
        assert_eq!(open.status, MatchStatus::Open);
        assert_eq!(open.settings.seed(), 9);
        let two = open.join(&entrant(2), 2_000).unwrap();
        assert_eq!((two.version, two.status), (1, MatchStatus::Open));
        let full = two.join(&entrant(3), 2_500).unwrap();
        assert_eq!(full.status, MatchStatus::Countdown);
        assert_eq!(full.starts_at_ms, Some(5_500));
        assert_eq!(full.due_at_ms(), Some(5_500));
        let ids: Vec<String> = ["a", "b", "c"].map(|g| g.repeat(32)).to_vec();
        assert_eq!(full.begin(&ids, 5_499), None);
        let playing = full.begin(&ids, 5_500).unwrap();
        assert_eq!(playing.status, MatchStatus::Playing);
        assert_eq!(playing.version, 3);
        assert_eq!(playing.ends_at_ms, Some(65_500));
        assert_eq!(playing.seats[2].game.as_deref(), Some(&*"c".repeat(32)));
        assert_eq!(decode(&encode(&playing)), Ok(playing));
    }

    #[test]
    fn refusals_have_their_codes() {
        let open = created(2, Some(vec![entrant(2).id]));
        let code = |r: Result<Match, ApiError>| r.unwrap_err().code;
        assert_eq!(code(open.join(&entrant(3), 0)), ErrorCode::Forbidden);
        assert_eq!(code(open.join(&entrant(1), 0)), ErrorCode::ActionRefused);
        assert_eq!(
            code(open.start(&entrant(1).id, 0)),
            ErrorCode::ActionRefused
        );
        let full = open.join(&entrant(2), 0).unwrap();
        let e = full.join(&entrant(2), 0).unwrap_err();
        assert_eq!(
            (e.code, &*e.message),
            (ErrorCode::ActionRefused, "the match has started")
        );
        let open = created(3, None).join(&entrant(2), 0).unwrap();
        let e = open.start(&entrant(2).id, 0).unwrap_err();
        assert!(e.message.starts_with("not your match to start"), "{e}");
        let started = open.start(&entrant(1).id, 10).unwrap();
        assert_eq!(started.starts_at_ms, Some(3_010));
        assert_eq!(
            code(started.start(&entrant(1).id, 0)),
            ErrorCode::ActionRefused
        );
        // Full while open cannot be: a full match counts down. A match
        // with every seat given away stays full to a stranger.
        let mut packed = created(2, None);
        packed.seats.push(Seat {
            player: entrant(5).id,
            ..packed.seats[0].clone()
        });
        let e = packed.join(&entrant(6), 0).unwrap_err();
        assert_eq!(e.message, "the match is full: its 2 seats are taken");
    }

    #[test]
    fn leaving_before_the_race_gives_up_the_seat() {
        let counting = created(2, None).join(&entrant(2), 0).unwrap();
        let left = counting.leave(&entrant(2).id, 1).unwrap();
        assert_eq!((left.status, left.seats.len()), (MatchStatus::Open, 1));
        assert_eq!(left.starts_at_ms, None);
        let gone = left.leave(&entrant(1).id, 2).unwrap();
        assert!(gone.gone());
        assert_eq!(gone.status, MatchStatus::Finished);
        assert_eq!(
            left.leave(&entrant(2).id, 1).unwrap_err().code,
            ErrorCode::ActionRefused
        );
    }

    #[test]
    fn the_first_to_clear_wins_and_ratings_move() {
        let ids: Vec<String> = ["a", "b"].map(|g| g.repeat(32)).to_vec();
        let playing = created(2, None)
            .join(&entrant(2), 0)
            .unwrap()
            .begin(&ids, 3_000)
            .unwrap();
        let races = [race(Status::Playing, 4, 900), race(Status::Playing, 6, 800)];
        assert!(!playing.over(&races, 10_000));
        assert!(playing.over(&races, 63_000), "the time limit");
        let races = [race(Status::Playing, 4, 900), race(Status::Won, 16, 9_000)];
        assert!(playing.over(&races, 10_000));
        let rating = Some(Rating::default());
        let done = playing.finish(&races, &[rating, rating], 10_000);
        assert_eq!(done.status, MatchStatus::Finished);
        let result = done.result.unwrap();
        assert_eq!(
            result
                .iter()
                .map(|p| (p.place, p.finish))
                .collect::<Vec<_>>(),
            [(2, Ended::Stopped), (1, Ended::Cleared)]
        );
        let after = after_match(&[(Rating::default(), 2), (Rating::default(), 1)]);
        assert_eq!(result[0].rating_after, Some(after[0]));
        assert_eq!(result[1].rating_after, Some(after[1]));
        assert_eq!(result[1].rating_before, rating);
    }

    #[test]
    fn one_who_quits_places_last_and_one_left_racing_ends_it() {
        let ids: Vec<String> = ["a", "b", "c"].map(|g| g.repeat(32)).to_vec();
        let playing = created(3, None)
            .join(&entrant(2), 0)
            .unwrap()
            .join(&entrant(3), 0)
            .unwrap()
            .begin(&ids, 3_000)
            .unwrap();
        let quit = playing.leave(&entrant(1).id, 4_000).unwrap();
        let races = [
            race(Status::Resigned, 8, 500),
            race(Status::Playing, 2, 700),
            None,
        ];
        assert!(!quit.over(&races, 5_000));
        let races = [
            race(Status::Resigned, 8, 500),
            race(Status::Resigned, 2, 700),
            None,
        ];
        assert!(quit.over(&races, 5_000));
        let done = quit.finish(&races, &[None, None, None], 5_000);
        let places: Vec<usize> = done.result.unwrap().iter().map(|p| p.place).collect();
        assert_eq!(places, [2, 3, 1]);
        assert_eq!(
            quit.leave(&entrant(1).id, 5_000).unwrap_err().code,
            ErrorCode::ActionRefused
        );
    }

    #[test]
    fn a_finished_match_makes_its_rematch_once() {
        let ids: Vec<String> = ["a", "b"].map(|g| g.repeat(32)).to_vec();
        let playing = created(3, None)
            .join(&entrant(2), 0)
            .unwrap()
            .start(&entrant(1).id, 0)
            .unwrap()
            .begin(&ids, 3_000)
            .unwrap();
        let next_id = "n".repeat(32);
        let refused = playing.rematch(next_id.clone(), 5, &entrant(2), 4_000);
        assert_eq!(refused.unwrap_err().code, ErrorCode::ActionRefused);
        let races = [race(Status::Won, 16, 900), race(Status::Playing, 2, 700)];
        let done = playing.finish(&races, &[None, None], 5_000);
        let stranger = done.rematch(next_id.clone(), 5, &entrant(3), 6_000);
        assert_eq!(stranger.unwrap_err().code, ErrorCode::Forbidden);
        let next = done
            .rematch(next_id.clone(), 5, &entrant(2), 6_000)
            .unwrap();
        assert_eq!(next.creator, entrant(2).id);
        assert_eq!(next.status, MatchStatus::Open);
        assert_eq!(next.settings.seed(), 5);
        assert_eq!(next.settings.seats, 2);
        assert_eq!(next.settings.time_limit_ms(), Some(60_000));
        assert_eq!(next.settings.invited, Some(vec![entrant(1).id]));
        assert_eq!(next.previous.as_deref(), Some(done.id.as_str()));
        let linked = done.linked(&next_id).unwrap();
        assert_eq!(linked.rematch, Some(next_id.clone()));
        assert_eq!(linked.version, done.version + 1);
        assert_eq!(linked.linked(&"o".repeat(32)), None);
        let full = next.join(&entrant(1), 6_500).unwrap();
        assert_eq!(full.status, MatchStatus::Countdown);
    }
}
