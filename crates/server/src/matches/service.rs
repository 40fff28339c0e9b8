//! The matches service: [`Matches`] creates a match, seats and unseats
//! players, starts it, and reads it brought up to date. It knows no HTTP:
//! plain inputs (an id, the player, an idempotency [`Key`], the time) and
//! a domain answer or an [`ApiError`], as the games' service.
//!
//! Every change is a compare-and-set on the stored match, retried on a
//! newer version. A read applies what time made due: at the countdown's
//! end the race begins (the seats' game ids written into the match
//! first, then the games created if absent, so a crash between is healed
//! by the next read), and a race that is over (a game won, the time
//! limit passed, one racer left) is finished with its result and the
//! players' ratings in one write. A finished match links its rematch
//! once, by the same compare-and-set.

use crate::games::Games;
use crate::games::errors::{corrupted, short, too_many_keys, unavailable};
use crate::games::idempotency::Key;
use crate::games::service::Answer;
use crate::metrics;
use crate::players::Players;
use crate::players::service::SignedIn;
use crate::solvers::Solvers;
use linkpath_api::games::{Action, Game};
use linkpath_api::matches::{
    Entrant, Match, MatchRequest, MatchStatus, MatchView, Race, Rating, SeekRequest, decode, encode,
};
use linkpath_api::{ApiError, ErrorCode, Work};
use linkpath_store::{
    Expected, Feed, Kept, MatchOutcome, MatchWrite, PlayerWrite, Store, StoredMatch,
};
use std::collections::HashMap;
use std::ops::Deref;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::broadcast;

/// How long a finished match is kept, for its result and its link.
const KEEP_MS: u64 = 3_600_000;

/// How many times a change is made again after another request or
/// replica wrote the match first, before a 503.
const ATTEMPTS: usize = 8;

/// The matches: their records in the store, the games they race on, the
/// players they rate.
pub(crate) struct Matches {
    pub store: Arc<Store>,
    games: Arc<Games>,
    players: Arc<Players>,
    /// The countdown before a race (`LINKPATH_MATCH_COUNTDOWN_MS`).
    countdown_ms: u64,
    /// How long an open match waits for its players
    /// (`LINKPATH_MATCH_JOIN_MS`).
    join_ms: u64,
    /// How long an idempotency key's answer is kept.
    key_ttl: Duration,
    solvers: Solvers,
    /// The streams here of each match, told when it or one of its games
    /// changed: here, or on another replica (the store's feed). One
    /// channel a match, so that a change wakes its own streams only.
    touched: Mutex<HashMap<Arc<str>, broadcast::Sender<()>>>,
    /// Whether the store's feed is followed yet.
    following: std::sync::Once,
    /// The games the streams here follow, each with its match and how
    /// many streams follow it: another replica's write of one, heard on
    /// the store's feed, touches its match.
    followed: Mutex<HashMap<String, (Arc<str>, usize)>>,
}

/// Changes a stream may fall behind by: any change, or falling behind,
/// makes it read the match again, so a few are enough.
const BEHIND: usize = 4;

/// A stream's place among its match's: told of each change; the last
/// one dropped removes the match's channel.
pub(crate) struct Touched {
    matches: Arc<Matches>,
    id: Arc<str>,
    receiver: broadcast::Receiver<()>,
}

impl Touched {
    /// Waits for the match's next change; `Lagged` says changes were
    /// missed, which a stream treats as one.
    pub(crate) async fn recv(&mut self) -> Result<(), broadcast::error::RecvError> {
        self.receiver.recv().await
    }
}

impl Drop for Touched {
    fn drop(&mut self) {
        let mut touched = self.matches.touched_lock();
        // This receiver still counts: the last one leaving removes it.
        if touched
            .get(&self.id)
            .is_some_and(|sender| sender.receiver_count() <= 1)
        {
            touched.remove(&self.id);
        }
    }
}

/// A change a player asks of a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    Join,
    Leave,
    Start,
}

impl Matches {
    pub fn new(
        store: Arc<Store>,
        games: Arc<Games>,
        players: Arc<Players>,
        countdown_ms: u64,
        join_ms: u64,
        solvers: Solvers,
    ) -> Matches {
        Matches {
            store,
            key_ttl: games.key_ttl,
            games,
            players,
            countdown_ms,
            join_ms,
            solvers,
            touched: Mutex::new(HashMap::new()),
            following: std::sync::Once::new(),
            followed: Mutex::new(HashMap::new()),
        }
    }

    /// Tells the streams of match `id` here, if any, that it or one of
    /// its games changed.
    pub(crate) fn touched(&self, id: &str) {
        if let Some(sender) = self.touched_lock().get(id) {
            let _ = sender.send(());
        }
    }

    fn touched_lock(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, broadcast::Sender<()>>> {
        self.touched.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A receiver told each time match `id` changes; the store's feed of
    /// other replicas' match writes is followed from the first on.
    pub(crate) fn watch(self: &Arc<Self>, id: &str) -> Touched {
        self.following.call_once(|| {
            if let Some(mut feed) = self.store.changes() {
                let matches = Arc::downgrade(self);
                tokio::spawn(async move {
                    loop {
                        let heard = feed.recv().await;
                        let Some(matches) = matches.upgrade() else {
                            return;
                        };
                        match heard {
                            Ok(Feed::Match { id, .. }) => matches.touched(&id),
                            Ok(Feed::Written { id, .. }) => {
                                let race = matches.followed().get(&id).map(|(m, _)| m.clone());
                                if let Some(race) = race {
                                    matches.touched(&race);
                                }
                            }
                            Ok(Feed::Resumed) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                            Err(broadcast::error::RecvError::Closed) => return,
                        }
                    }
                });
            }
        });
        let receiver = self
            .touched_lock()
            .entry(id.into())
            .or_insert_with(|| broadcast::channel(BEHIND).0)
            .subscribe();
        Touched {
            matches: self.clone(),
            id: id.into(),
            receiver,
        }
    }

    /// A stream here follows `game`, of the match `race`.
    pub(crate) fn follow_game(&self, game: &str, race: &str) {
        let mut followed = self.followed();
        let entry = followed
            .entry(game.to_owned())
            .or_insert_with(|| (race.into(), 0));
        entry.1 += 1;
    }

    /// A stream here no longer follows `game`.
    pub(crate) fn unfollow_game(&self, game: &str) {
        let mut followed = self.followed();
        if let Some(entry) = followed.get_mut(game) {
            entry.1 -= 1;
            if entry.1 == 0 {
                followed.remove(game);
            }
        }
    }

    fn followed(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Arc<str>, usize)>> {
        self.followed.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The games' service, for the streams' reads.
    pub(crate) fn games(&self) -> &Games {
        &self.games
    }

    /// The matches' time now: the games'.
    pub fn now(&self) -> u64 {
        self.games.now()
    }

    /// Creates a match from the `request` body, `creator` in its first
    /// seat; the deal is checked by dealing it once, on the solver pool.
    pub async fn create<B>(
        &self,
        request: B,
        key: Option<Key>,
        creator: &SignedIn,
        now: u64,
    ) -> Result<Answer, ApiError>
    where
        B: Deref<Target = [u8]> + Send + 'static,
    {
        if let Some(key) = &key
            && let Some(answer) = self.kept(key, now).await?
        {
            return Ok(answer);
        }
        let seed = u64::from_le_bytes(crate::random::bytes::<8>("a match's seed")?);
        let permit = self.solvers.slot()?;
        let limits = self.games.request_limits.clone();
        let read = (self.solvers)
            .run_blocking(permit, Work::Deal, move |stop| {
                MatchRequest::read(&request, seed, &limits, stop)
            })
            .await?;
        let entrant = entrant(creator);
        let id = crate::random::id("a match id")?;
        let record = Match::create(id, read, &entrant, self.countdown_ms, now);
        match self
            .save(&record, None, key.as_ref(), Vec::new(), now)
            .await?
        {
            (MatchOutcome::Written, json) => Ok(Answer::Game {
                id: record.id,
                version: 0,
                json,
            }),
            (MatchOutcome::Replayed(kept), _) => replayed(key.as_ref(), &kept),
            (MatchOutcome::TooManyKeys(bound), _) => Err(too_many_keys(bound)),
            (MatchOutcome::Full, _) => Err(full()),
            // A fresh 128-bit id is never taken.
            (MatchOutcome::Stale { .. } | MatchOutcome::PlayerStale { .. }, _) => {
                Err(ApiError::new(
                    ErrorCode::StoreUnavailable,
                    "the new match's id was taken; retry",
                )
                .retry_after(1))
            }
        }
    }

    /// Reads the body of a seek, its deal checked by dealing it once on
    /// the solver pool.
    pub async fn read_seek<B>(&self, body: B) -> Result<SeekRequest, ApiError>
    where
        B: Deref<Target = [u8]> + Send + 'static,
    {
        let permit = self.solvers.slot()?;
        let limits = self.games.request_limits.clone();
        (self.solvers)
            .run_blocking(permit, Work::Deal, move |stop| {
                SeekRequest::read(&body, &limits, stop)
            })
            .await
    }

    /// The match `id` that a pairing seated `entrants` in, first seeker
    /// first, made now if nobody has made it yet: full, so its countdown
    /// runs. Every seated request asks, so a replica that paired them and
    /// stopped before making it leaves nobody seated in nothing.
    pub async fn seat(
        &self,
        id: &str,
        request: MatchRequest,
        entrants: &[Entrant],
        now: u64,
    ) -> Result<Answer, ApiError> {
        let Some((creator, others)) = entrants.split_first() else {
            return Err(not_found());
        };
        let mut record = Match::create(id.to_owned(), request, creator, self.countdown_ms, now);
        for entrant in others {
            record = record.join(entrant, now)?;
        }
        // One write makes it, as it stands once everyone sat down.
        record.version = 0;
        match self.save(&record, None, None, Vec::new(), now).await? {
            (MatchOutcome::Written, _) | (MatchOutcome::Stale { current: Some(_) }, _) => {}
            (MatchOutcome::Full, _) => {
                return Err(ApiError::new(
                    ErrorCode::StoreFull,
                    "the server holds as many matches as it allows; seek again once some expire",
                )
                .retry_after(60));
            }
            _ => return Err(busy()),
        }
        let (record, expires) = self.read(id, now).await?;
        let json = linkpath_api::encode(&MatchView::new(&record, expires))?;
        Ok(Answer::Game {
            id: id.to_owned(),
            version: record.version,
            json,
        })
    }

    /// `player` joins, leaves or starts the match `id`; the match after
    /// it. A retry under `key` is answered what the first try was.
    pub async fn change(
        &self,
        id: &str,
        change: Change,
        key: Option<Key>,
        player: &SignedIn,
        now: u64,
    ) -> Result<Answer, ApiError> {
        if let Some(key) = &key
            && let Some(answer) = self.kept(key, now).await?
        {
            return Ok(answer);
        }
        let entrant = entrant(player);
        for _ in 0..ATTEMPTS {
            let (record, _) = self.read(id, now).await?;
            let next = match change {
                Change::Join => record.join(&entrant, now),
                Change::Leave => record.leave(&entrant.id, now),
                Change::Start => record.start(&entrant.id, now),
            };
            let next = match next {
                Ok(next) => next,
                Err(refused) => return self.refuse(id, key.as_ref(), refused, now).await,
            };
            match self
                .save(&next, Some(&record), key.as_ref(), Vec::new(), now)
                .await?
            {
                (MatchOutcome::Written, json) => {
                    let quit = (change == Change::Leave && record.status == MatchStatus::Playing)
                        .then(|| record.seat(&entrant.id))
                        .flatten()
                        .and_then(|seat| record.seats[seat].game.clone());
                    if let Some(game) = quit {
                        // Its game resigned, the race may be over: the
                        // answer is the match after that.
                        self.resign(&game, &entrant.id, now).await;
                        let (after, expires) = self.read(id, now).await?;
                        let json = linkpath_api::encode(&MatchView::new(&after, expires))?;
                        let version = after.version;
                        return Ok(Answer::Game {
                            id: id.to_owned(),
                            version,
                            json,
                        });
                    }
                    return Ok(Answer::Game {
                        id: id.to_owned(),
                        version: next.version,
                        json,
                    });
                }
                (MatchOutcome::Replayed(kept), _) => return replayed(key.as_ref(), &kept),
                (MatchOutcome::TooManyKeys(bound), _) => return Err(too_many_keys(bound)),
                (MatchOutcome::Stale { current: None }, _) => return Err(not_found()),
                (MatchOutcome::Stale { .. } | MatchOutcome::PlayerStale { .. }, _) => continue,
                (MatchOutcome::Full, _) => return Err(busy()),
            }
        }
        Err(busy())
    }

    /// `player` asks for a rematch of the finished match `id`: the first
    /// to ask makes the next match and links it (a compare-and-set on the
    /// old match's `rematch`, so two asking at once end in one match);
    /// anyone after joins that one. The answer is the next match.
    pub async fn rematch(
        &self,
        id: &str,
        key: Option<Key>,
        player: &SignedIn,
        now: u64,
    ) -> Result<Answer, ApiError> {
        if let Some(key) = &key
            && let Some(answer) = self.kept(key, now).await?
        {
            return Ok(answer);
        }
        let entrant = entrant(player);
        // The match made here, until it is linked or given up.
        let mut made: Option<String> = None;
        for _ in 0..ATTEMPTS {
            let (old, _) = self.read(id, now).await?;
            if let Err(refused) = old.may_rematch(&entrant.id) {
                return self.refuse(id, key.as_ref(), refused, now).await;
            }
            if let Some(next) = &old.rematch {
                if let Some(lost) = made.take().filter(|m| m != next) {
                    // Another player linked theirs first: this one is
                    // left, and with nobody seated it is gone.
                    let _ = self.change(&lost, Change::Leave, None, player, now).await;
                }
                return self.seat_in(next, key, player, now).await;
            }
            let next_id = match &made {
                Some(next_id) => next_id.clone(),
                None => {
                    let seed = u64::from_le_bytes(crate::random::bytes::<8>("a match's seed")?);
                    let next_id = crate::random::id("a match id")?;
                    let next = old.rematch(next_id.clone(), seed, &entrant, now)?;
                    match self.save(&next, None, None, Vec::new(), now).await? {
                        (MatchOutcome::Written, _) => {}
                        (MatchOutcome::Full, _) => return Err(full()),
                        _ => return Err(busy()),
                    }
                    made = Some(next_id.clone());
                    next_id
                }
            };
            let Some(linked) = old.linked(&next_id) else {
                continue;
            };
            match self
                .save(&linked, Some(&old), None, Vec::new(), now)
                .await?
            {
                (MatchOutcome::Written, _) => {
                    return self.seat_in(&next_id, key, player, now).await;
                }
                (MatchOutcome::Stale { current: None }, _) => return Err(not_found()),
                _ => continue,
            }
        }
        Err(busy())
    }

    /// `player` seated in the match `id`, a rematch: joined unless they
    /// are there already (its creator, or a request made again), and the
    /// match answered, kept under `key`.
    async fn seat_in(
        &self,
        id: &str,
        key: Option<Key>,
        player: &SignedIn,
        now: u64,
    ) -> Result<Answer, ApiError> {
        let (record, expires) = self.read(id, now).await?;
        if record.seat(player.id()).is_none() {
            return self.change(id, Change::Join, key, player, now).await;
        }
        let json = linkpath_api::encode(&MatchView::new(&record, expires))?;
        let kept = key
            .as_ref()
            .map(|k| k.keep_record(id, record.version, &json, now, self.key_ttl));
        let answer = Answer::Game {
            id: id.to_owned(),
            version: record.version,
            json,
        };
        let (Some(key), Some((stored, kept))) = (key, kept) else {
            return Ok(answer);
        };
        let started = Instant::now();
        let outcome = self.store.keep(id, &stored, kept, now).await;
        metrics::record_store("write", started);
        match outcome.map_err(unavailable)? {
            linkpath_store::Outcome::Replayed(kept) => key.replayed(&kept).map(Answer::Kept),
            linkpath_store::Outcome::TooManyKeys(bound) => Err(too_many_keys(bound)),
            _ => Ok(answer),
        }
    }

    /// The match `id` brought up to date at `now`, and when it expires:
    /// a countdown that ended begins the race, a race that is over is
    /// finished. Each change a compare-and-set; one written first by
    /// another request or replica is read again.
    pub async fn read(&self, id: &str, now: u64) -> Result<(Match, u64), ApiError> {
        let (record, expires, _) = self.read_with_games(id, now).await?;
        Ok((record, expires))
    }

    /// As [`Matches::read`], with each seat's game (None where missing)
    /// when the race is on: read to see whether it is over, and handed
    /// on so that a stream does not read them again.
    pub(crate) async fn read_with_games(
        &self,
        id: &str,
        now: u64,
    ) -> Result<(Match, u64, Option<Vec<Option<Game>>>), ApiError> {
        for _ in 0..ATTEMPTS {
            let (record, expires) = self.load(id, now).await?;
            let next = match record.status {
                MatchStatus::Countdown if record.starts_at_ms.is_some_and(|at| now >= at) => {
                    let ids = (0..record.seats.len())
                        .map(|_| crate::random::id("a game id"))
                        .collect::<Result<Vec<_>, _>>()?;
                    match record.begin(&ids, now) {
                        Some(next) => (next, Vec::new()),
                        None => return Ok((record, expires, None)),
                    }
                }
                MatchStatus::Playing => match self.finished(&record, now).await? {
                    Racing::On(games) => return Ok((record, expires, Some(games))),
                    Racing::Over(next, players) => (*next, players),
                },
                MatchStatus::Open | MatchStatus::Countdown | MatchStatus::Finished => {
                    return Ok((record, expires, None));
                }
            };
            let (next, players) = next;
            match self.save(&next, Some(&record), None, players, now).await? {
                // Read again: a race that began has its games made.
                (MatchOutcome::Written, _) => {}
                (MatchOutcome::Stale { current: None }, _) => return Err(not_found()),
                _ => {}
            }
        }
        Err(busy())
    }

    /// A race under way, its games created if absent; finished, with the
    /// players' rating writes, if it is over at `now`.
    async fn finished(&self, record: &Match, now: u64) -> Result<Racing, ApiError> {
        let mut games = self.seat_games(record, now).await?;
        let mut races = races_of(&games, now);
        // A game missing: the race began and its games were not all made
        // (a crash between the two writes). Made now, then read.
        let missing: Vec<(String, String)> = record
            .seats
            .iter()
            .zip(&races)
            .filter(|(_, race)| race.is_none())
            .filter_map(|(s, _)| Some((s.game.clone()?, s.player.clone())))
            .collect();
        if !missing.is_empty() {
            let body = serde_json::to_vec(&record.settings.game)
                .map_err(|e| corrupted(format!("match {}…'s deal: {e}", short(&record.id))))?;
            (self.games)
                .create_seats(body, &record.id, record.settings.assists, missing, now)
                .await?;
            games = self.seat_games(record, now).await?;
            races = races_of(&games, now);
        }
        if !record.over(&races, now) {
            return Ok(Racing::On(games));
        }
        // Every game still racing is stopped first, so that the result is
        // the games as they end; a crash before the match is written
        // leaves a race over all the same, finished by the next read.
        if self.end_races(record, &races, now).await? {
            races = races_of(&self.seat_games(record, now).await?, now);
        }
        let mut signed_in = Vec::with_capacity(record.seats.len());
        for seat in &record.seats {
            signed_in.push(self.players.find(&seat.player, now).await?);
        }
        let ratings: Vec<Option<Rating>> = signed_in
            .iter()
            .map(|s| s.as_ref().map(|s| s.player.rating.unwrap_or_default()))
            .collect();
        let next = record.finish(&races, &ratings, now);
        let result = next.result.as_deref().unwrap_or_default();
        let writes = signed_in
            .iter()
            .zip(result)
            .filter_map(|(player, placed)| {
                Some(
                    self.players
                        .rated(player.as_ref()?, placed.rating_after?, now),
                )
            })
            .collect();
        Ok(Racing::Over(Box::new(next), writes))
    }

    /// Each seat's game as it stands at `now` (its time limit applied),
    /// None where it is missing.
    async fn seat_games(&self, record: &Match, now: u64) -> Result<Vec<Option<Game>>, ApiError> {
        let mut games = Vec::with_capacity(record.seats.len());
        for seat in &record.seats {
            let game = match &seat.game {
                Some(game) => match self.games.current(game, now).await {
                    Ok((game, _)) => Some(game),
                    Err(e) if e.code == ErrorCode::GameNotFound => None,
                    Err(e) => return Err(e),
                },
                None => None,
            };
            games.push(game);
        }
        Ok(games)
    }

    /// Stops the games of `record` still racing by `races`, each with its
    /// player's hand; whether any was. A game that ended meanwhile stays
    /// as it ended. One that cannot be written now fails the read, and
    /// the next read of the match, which finds the race over still, stops
    /// it.
    async fn end_races(
        &self,
        record: &Match,
        races: &[Option<Race>],
        now: u64,
    ) -> Result<bool, ApiError> {
        let mut ended = false;
        for (seat, race) in record.seats.iter().zip(races) {
            let (Some(game), Some(race)) = (&seat.game, race) else {
                continue;
            };
            if race.status.finished() {
                continue;
            }
            let pin = crate::games::pin::Pin::Any;
            match (self.games)
                .apply(game, Action::EndRace, &pin, None, Some(&seat.player), now)
                .await
            {
                Ok(_) => ended = true,
                // Out of time on the way: ended, as the time limit says.
                Err(e) if e.code == ErrorCode::GameOver => ended = true,
                Err(e) => return Err(e),
            }
        }
        Ok(ended)
    }

    /// Resigns the game a player left; a game already over stays so.
    async fn resign(&self, game: &str, player: &str, now: u64) {
        let pin = crate::games::pin::Pin::Any;
        if let Err(e) = (self.games)
            .apply(game, Action::Resign, &pin, None, Some(player), now)
            .await
            && e.code != ErrorCode::GameOver
        {
            tracing::warn!(error = %e, "the game of a player who left a match was not resigned");
        }
    }

    /// The stored match `id` and when it expires; 404 if there is none.
    async fn load(&self, id: &str, now: u64) -> Result<(Match, u64), ApiError> {
        let started = Instant::now();
        let found = self.store.match_record(id, now).await;
        metrics::record_store("read", started);
        let stored = found.map_err(unavailable)?.ok_or_else(not_found)?;
        let record =
            decode(&stored.body).map_err(|e| corrupted(format!("match {}…: {e}", short(id))))?;
        Ok((record, stored.expires_at_ms))
    }

    /// Writes `record` over `before` (a create when none), with the key's
    /// answer (the match as answered) and the players' writes; counts a
    /// match that moved into a state; what the store made
    /// of it and the answer's JSON.
    async fn save(
        &self,
        record: &Match,
        before: Option<&Match>,
        key: Option<&Key>,
        players: Vec<PlayerWrite>,
        now: u64,
    ) -> Result<(MatchOutcome, Vec<u8>), ApiError> {
        let expected = before.map_or(Expected::Absent, |b| Expected::Version(b.version));
        let before = before.map(|b| b.status);
        let expires_at_ms = self.expiry(record, now);
        let json = linkpath_api::encode(&MatchView::new(record, expires_at_ms))?;
        let key = key.map(|k| k.keep_record(&record.id, record.version, &json, now, self.key_ttl));
        let write = MatchWrite {
            id: record.id.clone(),
            expected,
            record: StoredMatch {
                version: record.version,
                expires_at_ms,
                due_at_ms: record.due_at_ms(),
                body: encode(record),
            },
            key,
            players,
        };
        let started = Instant::now();
        let outcome = self.store.write_match(write, now).await;
        metrics::record_store("write", started);
        let outcome = outcome.map_err(unavailable)?;
        if outcome == MatchOutcome::Written {
            self.touched(&record.id);
            if before != Some(record.status) {
                metrics::record_match_state(record.status.name());
            }
        }
        Ok((outcome, json))
    }

    /// When `record` expires: an open match when it has waited its time
    /// for players; one everyone left at once; a finished one after an
    /// hour; one under way after its games would.
    fn expiry(&self, record: &Match, now: u64) -> u64 {
        match record.status {
            _ if record.gone() => now + 1,
            MatchStatus::Open => record.created_at_ms + self.join_ms,
            MatchStatus::Finished => now + KEEP_MS,
            MatchStatus::Countdown | MatchStatus::Playing => {
                let idle = self.games.records.idle.as_millis() as u64;
                now + idle.max(KEEP_MS) + record.settings.time_limit_ms().unwrap_or(0)
            }
        }
    }

    /// Answers the refusal `refused` of a change of the match `id`, kept
    /// under the request's key first if it has one, so that a retry is
    /// answered the same refusal, as a game's is.
    async fn refuse(
        &self,
        id: &str,
        key: Option<&Key>,
        refused: ApiError,
        now: u64,
    ) -> Result<Answer, ApiError> {
        let Some((key, (stored, kept))) =
            key.and_then(|k| Some((k, k.keep_refusal(&refused, now, self.key_ttl)?)))
        else {
            return Err(refused);
        };
        let started = Instant::now();
        let outcome = self.store.keep(id, &stored, kept, now).await;
        metrics::record_store("write", started);
        match outcome.map_err(unavailable)? {
            linkpath_store::Outcome::Replayed(kept) => key.replayed(&kept).map(Answer::Kept),
            linkpath_store::Outcome::TooManyKeys(bound) => Err(too_many_keys(bound)),
            _ => Err(refused),
        }
    }

    /// The answer kept under `key`, if the request was answered before.
    async fn kept(&self, key: &Key, now: u64) -> Result<Option<Answer>, ApiError> {
        let started = Instant::now();
        let kept = self.store.kept(&key.stored, now).await;
        metrics::record_store("read", started);
        let Some(kept) = kept.map_err(unavailable)? else {
            return Ok(None);
        };
        key.replayed(&kept).map(|kept| Some(Answer::Kept(kept)))
    }
}

/// A seat's game as its match reads it.
/// What a race under way is: its seats' games, or the match finished
/// and the players' rating writes.
enum Racing {
    On(Vec<Option<Game>>),
    Over(Box<Match>, Vec<PlayerWrite>),
}

/// Each seat's race, from its game.
fn races_of(games: &[Option<Game>], now: u64) -> Vec<Option<Race>> {
    games
        .iter()
        .map(|game| game.as_ref().map(|game| race(game, now)))
        .collect()
}

fn race(game: &Game, now: u64) -> Race {
    Race {
        status: game.status,
        elapsed_ms: game.clock.at(now),
        tiles: (game.dealt_tiles - game.tiles_left) as u64,
        score: game.score,
        last_pair_ms: game.last_pair_ms.unwrap_or(0),
    }
}

/// The answer a write found under its key.
fn replayed(key: Option<&Key>, kept: &Kept) -> Result<Answer, ApiError> {
    match key {
        Some(key) => key.replayed(kept).map(Answer::Kept),
        None => Err(busy()),
    }
}

fn not_found() -> ApiError {
    ApiError::new(
        ErrorCode::NotFound,
        "no match with this id: it never existed, or it expired",
    )
}

fn full() -> ApiError {
    ApiError::new(
        ErrorCode::StoreFull,
        "the server holds as many matches as it allows; retry once open ones expire",
    )
    .retry_after(60)
}

fn busy() -> ApiError {
    ApiError::new(
        ErrorCode::StoreUnavailable,
        "the match changed under every attempt; retry shortly",
    )
    .retry_after(1)
}

/// The signed-in player as a seat of a match takes them.
fn entrant(player: &SignedIn) -> Entrant {
    Entrant {
        id: player.id().to_owned(),
        name: player.player.name.clone(),
    }
}
