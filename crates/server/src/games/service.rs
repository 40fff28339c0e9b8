//! The held-games service: [`Games`] creates a game, applies an action,
//! reads a game as it is now and its replay, and reads a leaderboard. It
//! knows no HTTP: its methods take plain inputs (an id, an [`Action`], a
//! [`Pin`], an idempotency [`Key`], the time) and answer a domain result
//! ([`Answer`], a [`Game`], a [`Replay`]) or an [`ApiError`]; the routes
//! above read the request and write the answer. The time is an argument,
//! read by the routes from the service's [`Clock`], so that tests can
//! hold it still.
//!
//! Every change is a compare-and-set on the stored version: an action
//! reads the game, works on a copy, and writes it only if nobody wrote
//! first. Within this process one lock per game (of a fixed set, chosen
//! by the id's hash) lines up the actions on a game, so the write rarely
//! finds a newer version; when it does (another replica), the action is
//! judged again on what was written. A pinned version that is stale is
//! 412. A key's answer is written with the change it answers, so a retry
//! is answered the first answer and applies nothing. The move that wins a
//! ranked game enters it on its leaderboard in the same write.

use super::clock::Clock;
use super::downtime::Downtime;
use super::errors::{busy, corrupted, not_found, refusal, short, too_many_keys, unavailable};
use super::idempotency::Key;
use super::pin::Pin;
use super::record::Records;
use super::streams::Streams;
use crate::config::GameSettings;
use crate::metrics;
use crate::solvers::Solvers;
use linkpath_api::games::{
    Action, ActionKind, BoardFrom, BoardQuery, DailyDeal, Game, GameLimits, GameSummary, GameView,
    GamesQuery, Logged, Replay, ReplayCheck, SourcePage, Status, stored,
};
use linkpath_api::{ApiError, ErrorCode, Work};
use linkpath_engine::Stop;
use linkpath_store::{BoardPage, BoardStart, Expected, GameCursor, Kept, Outcome, Store};
use std::collections::BTreeMap;
use std::ops::Deref;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The games held: their records in the store, their live streams and
/// their settings.
pub(crate) struct Games {
    pub records: Records,
    pub streams: Arc<Streams>,
    pub limits: GameLimits,
    /// How long an idempotency key's answer is kept.
    pub key_ttl: Duration,
    /// The entries a leaderboard keeps: the most a request may ask for.
    pub board_size: usize,
    /// Whether a player's games are read by the player alone.
    pub private_games: bool,
    /// The floor on a ranked win's median time between moves; 0: none.
    min_move_gap_ms: u64,
    /// The request limits with a board's cells capped for games: a game's
    /// record, its board with it, is written on every change.
    pub request_limits: linkpath_api::Limits,
    /// Lines up the actions on one game within this process.
    locks: Vec<tokio::sync::Mutex<()>>,
    /// Whether the streams follow the store's changes yet.
    pub(super) following: std::sync::Once,
    /// The solver pool, for the deals and the boards too big to judge
    /// inline.
    solvers: Solvers,
    /// Where the games' time comes from.
    clock: Arc<dyn Clock>,
    /// The matches, told after each change of a game of a match: the
    /// move that wins a race ends it. Weak: the matches hold the games.
    pub(crate) matches: std::sync::OnceLock<std::sync::Weak<crate::matches::Matches>>,
    /// Told when a game finishes: the archiver copies it soon.
    pub(crate) finished: Arc<tokio::sync::Notify>,
}

/// What a change answers: the game it left, or the answer kept from an
/// earlier try of the same request.
pub(crate) enum Answer {
    /// The game, as its JSON (`GameView`), with its id and version.
    Game {
        id: String,
        version: u64,
        json: Vec<u8>,
    },
    /// The bytes the layer above kept (see [`super::idempotency`]).
    Kept(Vec<u8>),
}

/// How many locks games share; two games on one lock only wait for each
/// other, they never conflict.
const LOCKS: usize = 256;

/// Boards of at most this many cells are judged on the request's own
/// thread: an 18 x 8 move takes microseconds, less than the hop to the
/// pool.
const INLINE_CELLS: usize = 1024;

/// How many times an action is judged again after another replica wrote
/// the game first, before a 503.
const ATTEMPTS: usize = 8;

/// An action judged on a copy of the game: the game and log to write if
/// anything changed (a refused action may still end a game out of time),
/// and the refusal.
struct Judged {
    next: Option<(Game, Vec<Logged>)>,
    refused: Option<ApiError>,
}

impl Games {
    /// The games kept in `store`, as the settings `g` bound them;
    /// `request_limits` are the server's, which a game's board is held to
    /// as well.
    pub fn new(
        store: Arc<Store>,
        g: &GameSettings,
        private_games: bool,
        request_limits: linkpath_api::Limits,
        solvers: Solvers,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Games {
            request_limits: linkpath_api::Limits {
                max_cells: request_limits.max_cells.min(g.max_game_cells),
                ..request_limits
            },
            records: Records {
                store,
                downtime: Downtime::default(),
                idle: Duration::from_millis(g.game_idle_ms),
                board_ttl: Duration::from_millis(g.leaderboard_ttl_ms),
            },
            streams: Arc::new(Streams::new(g.max_streams, g.max_streams_per_game)),
            limits: GameLimits {
                max_actions: g.max_game_actions,
                max_log_bytes: g.max_game_log_bytes,
            },
            key_ttl: Duration::from_millis(g.idempotency_ttl_ms),
            board_size: usize::from(g.leaderboard_size),
            private_games,
            min_move_gap_ms: g.min_move_gap_ms,
            locks: (0..LOCKS).map(|_| tokio::sync::Mutex::new(())).collect(),
            following: std::sync::Once::new(),
            solvers,
            clock,
            matches: std::sync::OnceLock::new(),
            finished: Arc::new(tokio::sync::Notify::new()),
        }
    }

    /// The games' time now, in milliseconds since the Unix epoch.
    pub fn now(&self) -> u64 {
        self.clock.now_ms()
    }

    fn lock(&self, id: &str) -> &tokio::sync::Mutex<()> {
        &self.locks[spread(id) % LOCKS]
    }

    /// Creates a game from the `request` body (dealt, or on the board it
    /// sends), on the solver pool.
    pub async fn create<B>(
        &self,
        request: B,
        key: Option<Key>,
        owner: Option<String>,
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
        let id = crate::random::id("a game id")?;
        let permit = self.solvers.slot()?;
        let limits = self.request_limits.clone();
        let (game, created) = (self.solvers)
            .run_blocking(permit, Work::Deal, move |stop| {
                linkpath_api::games::create(&request, id, owner, now, &limits, stop)
            })
            .await?;
        let view = GameView::new(&game, now, now + self.records.idle.as_millis() as u64);
        let json = linkpath_api::encode(&view)?;
        let kept = key
            .as_ref()
            .map(|k| k.keep_game(&view, &json, now, self.key_ttl));
        let (outcome, _) = (self.records)
            .save(&game, Expected::Absent, kept, &[created], now)
            .await?;
        match outcome {
            Outcome::Written => {
                metrics::record_game_created();
                Ok(Answer::Game {
                    id: game.id,
                    version: view.version,
                    json,
                })
            }
            Outcome::Replayed(kept) => raced(key.as_ref(), &kept),
            Outcome::TooManyKeys(bound) => Err(too_many_keys(bound)),
            Outcome::Full => Err(ApiError::new(
                ErrorCode::StoreFull,
                "the server holds as many games as it allows; retry once idle games expire",
            )
            .retry_after(60)),
            Outcome::PlayerFull => {
                metrics::record_player_refusal("quota");
                Err(ApiError::new(
                    ErrorCode::QuotaExceeded,
                    "the player holds as many games as one player may; finish or resign one and retry once it expires",
                ))
            }
            // A fresh 128-bit id is never taken.
            Outcome::Stale { .. } => Err(ApiError::new(
                ErrorCode::StoreUnavailable,
                "the new game's id was taken; retry",
            )
            .retry_after(1)),
        }
    }

    /// The game `id` at `now` as [`Games::current`] reads it, for `player`
    /// to read: where games are private, a player's game is its player's
    /// alone.
    pub async fn read(
        &self,
        id: &str,
        player: Option<&str>,
        now: u64,
    ) -> Result<(Game, u64), ApiError> {
        let (game, expires) = self.current(id, now).await?;
        if self.private_games {
            owned_by(game.owner.as_deref(), player)?;
        }
        Ok((game, expires))
    }

    /// The game at `now`, its time limit applied (and written) if it
    /// passed; and when it expires.
    pub async fn current(&self, id: &str, now: u64) -> Result<(Game, u64), ApiError> {
        let _line = self.lock(id).lock().await;
        for _ in 0..ATTEMPTS {
            let (stored::Loaded { mut game, unsaved }, expires) =
                self.records.load(id, now).await?;
            let version = game.version;
            let Some(ended) = game.expire(now) else {
                return Ok((game, expires));
            };
            let log = [unsaved, vec![ended]].concat();
            match (self.records)
                .save(&game, Expected::Version(version), None, &log, now)
                .await?
            {
                (Outcome::Written, expires) => {
                    self.changed(&game, ActionKind::OutOfTime, now, expires);
                    return Ok((game, expires));
                }
                _ => continue,
            }
        }
        Err(busy())
    }

    /// Applies `action` to the game `id` if it is at a version `pin`
    /// allows, and answers the game; a retry under `key` is answered what
    /// the first try was.
    pub async fn apply(
        &self,
        id: &str,
        action: Action,
        pin: &Pin,
        key: Option<Key>,
        player: Option<&str>,
        now: u64,
    ) -> Result<Answer, ApiError> {
        let kind = action.kind();
        let line = self.lock(id).lock().await;
        // The key is read after the game: a change and its key's answer are
        // written together, so a game that shows a first try's change comes
        // with that try's answer, and a retry racing it is answered that.
        // Only the game's player may act on it. A game gone (expired since
        // a first try) is left to the key: its answer is kept under the
        // caller's `Authorization`, so no other caller finds it.
        let first = self.records.load(id, now).await;
        if let Ok((loaded, _)) = &first {
            owned_by(loaded.game.owner.as_deref(), player)?;
        }
        let mut loaded = Some(first);
        if let Some(key) = &key
            && let Some(answer) = self.kept(key, now).await?
        {
            return Ok(answer);
        }
        for _ in 0..ATTEMPTS {
            let loaded = match loaded.take() {
                Some(loaded) => loaded,
                None => self.records.load(id, now).await,
            };
            let (stored::Loaded { game, unsaved }, _) = loaded?;
            let read = (self.records)
                .entries(id, &unsaved, &game.needs(&action), now)
                .await?;
            if let Err(refused) = pin.check(game.version) {
                metrics::record_game_action(kind.name(), "stale");
                return self.refuse(id, key.as_ref(), refused, now).await;
            }
            let version = game.version;
            let judged = self.judge(game, unsaved, &action, read, now).await?;
            let Some((mut next, log)) = judged.next else {
                // Refused, and nothing changed: not even the version.
                let refused = judged.refused.expect("refused when unchanged");
                metrics::record_game_action(kind.name(), refusal(&refused));
                return self.refuse(id, key.as_ref(), refused, now).await;
            };
            if next.status == Status::Won && next.ranked() && self.min_move_gap_ms > 0 {
                // Only a win is timed: its whole log, read once.
                let history = self.records.history(id, version, &log, now).await?;
                next.judge_pace(&history, self.min_move_gap_ms);
            }
            let view = GameView::new(&next, now, now + self.records.idle.as_millis() as u64);
            let json = linkpath_api::encode(&view)?;
            // The key keeps the answer this request gets: the game, or the
            // refusal of a game that ran out of time on the way.
            let kept = key.as_ref().and_then(|k| match &judged.refused {
                None => Some(k.keep_game(&view, &json, now, self.key_ttl)),
                Some(refused) => k.keep_refusal(refused, now, self.key_ttl),
            });
            let expected = Expected::Version(version);
            match self.records.save(&next, expected, kept, &log, now).await? {
                (Outcome::Written, expires) => {
                    let applied = match judged.refused {
                        Some(_) => ActionKind::OutOfTime,
                        None => kind,
                    };
                    self.changed(&next, applied, now, expires);
                    if let Some(refused) = judged.refused {
                        metrics::record_game_action(kind.name(), refusal(&refused));
                        return Err(refused);
                    }
                    if let Some(race) = &next.match_id {
                        // Unlocked first: the match reads its games.
                        drop(line);
                        // The match ended it and reads it itself; a game
                        // still in play ends no race (won by nobody, one
                        // racer fewer by nobody), and a race's time limit
                        // is its timer's: only a game that ended asks the
                        // match to read its games now.
                        if kind == ActionKind::RaceOver || !next.status.finished() {
                            self.touch_match(race);
                        } else {
                            Box::pin(self.tell_match(race, now)).await;
                        }
                    }
                    let (id, version) = (next.id, view.version);
                    return Ok(Answer::Game { id, version, json });
                }
                (Outcome::Replayed(kept), _) => return raced(key.as_ref(), &kept),
                (Outcome::TooManyKeys(bound), _) => return Err(too_many_keys(bound)),
                (Outcome::Stale { current: None }, _) => return Err(not_found()),
                (Outcome::Stale { .. } | Outcome::Full | Outcome::PlayerFull, _)
                    if pin.pinned() =>
                {
                    let refused = ApiError::new(
                        ErrorCode::VersionMismatch,
                        "the game changed while this action was judged: read it again",
                    );
                    return self.refuse(id, key.as_ref(), refused, now).await;
                }
                (Outcome::Stale { .. } | Outcome::Full | Outcome::PlayerFull, _) => continue,
            }
        }
        Err(busy())
    }

    /// Tells the match `id` that one of its games changed, so that a win
    /// ends the race now. A failure leaves it to the next read or sweep,
    /// which end it as well.
    async fn tell_match(&self, id: &str, now: u64) {
        let Some(matches) = self.matches.get().and_then(std::sync::Weak::upgrade) else {
            return;
        };
        matches.touched(id);
        if let Err(e) = matches.read(id, now).await {
            tracing::warn!(error = %e, "a match was not brought up to date after a change of one of its games");
        }
    }

    /// Tells the streams of the match `id` that one of its games changed.
    fn touch_match(&self, id: &str) {
        if let Some(matches) = self.matches.get().and_then(std::sync::Weak::upgrade) {
            matches.touched(id);
        }
    }

    /// Creates the games of a match's seats, `seats` (id, owner) each on
    /// the deal `body`, if absent: done again, it creates only what is
    /// missing. Dealt once, on the solver pool.
    pub(crate) async fn create_seats(
        &self,
        body: Vec<u8>,
        match_id: &str,
        assists: bool,
        seats: Vec<(String, String)>,
        now: u64,
    ) -> Result<(), ApiError> {
        let mut missing = Vec::new();
        for (id, owner) in seats {
            let started = Instant::now();
            let found = self.records.store.game(&id, now).await;
            metrics::record_store("read", started);
            if found.map_err(unavailable)?.is_none() {
                missing.push((id, owner));
            }
        }
        let Some((first, _)) = missing.first() else {
            return Ok(());
        };
        let permit = self.solvers.slot()?;
        let limits = self.request_limits.clone();
        let first = first.clone();
        let (dealt, created) = (self.solvers)
            .run_blocking(permit, Work::Deal, move |stop| {
                linkpath_api::games::create(&body, first, None, now, &limits, stop)
            })
            .await?;
        for (id, owner) in missing {
            let mut game = dealt.clone();
            game.id = id;
            game.owner = Some(owner);
            game.match_id = Some(match_id.to_owned());
            game.assists_refused = !assists;
            let (outcome, _) = (self.records)
                .save(
                    &game,
                    Expected::Absent,
                    None,
                    std::slice::from_ref(&created),
                    now,
                )
                .await?;
            match outcome {
                // Stale: created by another reader of the match first.
                Outcome::Written => metrics::record_game_created(),
                Outcome::Stale { .. } => {}
                Outcome::Full | Outcome::PlayerFull => {
                    return Err(ApiError::new(
                        ErrorCode::StoreFull,
                        "the server, or a player of the match, holds as many games as allowed; the race's games are created once there is room",
                    )
                    .retry_after(60));
                }
                Outcome::Replayed(_) | Outcome::TooManyKeys(_) => {}
            }
        }
        Ok(())
    }

    /// Judges `action` on a copy of `game`: a small board on this thread,
    /// in microseconds; a big one on the solver pool, as `/v1/play` is.
    async fn judge(
        &self,
        game: Game,
        unsaved: Vec<Logged>,
        action: &Action,
        read: BTreeMap<u64, Logged>,
        now: u64,
    ) -> Result<Judged, ApiError> {
        let cells = game.cells.len();
        let version = game.version;
        let limits = self.request_limits.clone();
        let game_limits = self.limits;
        let action = action.clone();
        let judge = move |stop: &Stop| {
            let mut next = game;
            let mut log = unsaved;
            log.extend(next.expire(now));
            let refused = match next.act(&action, now, &read, &game_limits, &limits, stop) {
                Ok(logged) => {
                    log.push(logged);
                    None
                }
                Err(refused) => Some(refused),
            };
            let changed = next.version != version;
            Ok(Judged {
                next: changed.then_some((next, log)),
                refused,
            })
        };
        if cells <= INLINE_CELLS {
            judge(&self.solvers.stop_now())
        } else {
            let permit = self.solvers.slot()?;
            self.solvers.run_blocking(permit, Work::Play, judge).await
        }
    }

    /// Answers the refusal `refused` of a request to the game `id`, kept
    /// under the request's key first if it has one, so that a retry is
    /// answered the same refusal and never judged again. A retry that
    /// raced this one and kept its answer first gets that answer.
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
        let outcome = self.records.store.keep(id, &stored, kept, now).await;
        metrics::record_store("write", started);
        match outcome.map_err(unavailable)? {
            Outcome::Replayed(kept) => key.replayed(&kept).map(Answer::Kept),
            Outcome::TooManyKeys(bound) => Err(too_many_keys(bound)),
            _ => Err(refused),
        }
    }

    /// The answer kept under `key`, if the request was answered before:
    /// the same answer for the same request, 422 for another.
    async fn kept(&self, key: &Key, now: u64) -> Result<Option<Answer>, ApiError> {
        let started = Instant::now();
        let kept = self.records.store.kept(&key.stored, now).await;
        metrics::record_store("read", started);
        let Some(kept) = kept.map_err(unavailable)? else {
            return Ok(None);
        };
        key.replayed(&kept).map(|kept| Some(Answer::Kept(kept)))
    }

    /// After a change is stored: the metrics and the event stream.
    pub(super) fn changed(&self, game: &Game, kind: ActionKind, now: u64, expires: u64) {
        if game.status.finished() {
            metrics::record_game_finished(game.status.name());
            self.finished.notify_one();
        }
        metrics::record_game_action(kind.name(), "applied");
        self.streams
            .publish(&GameView::new(game, now, expires), game.due(u64::MAX));
    }

    /// The dealt board, the settings and every action of the game `id`,
    /// with the game's version. A paused game's replay is hidden as its
    /// board is: it would show the board the pause hides.
    pub async fn replay(
        &self,
        id: &str,
        player: Option<&str>,
        now: u64,
    ) -> Result<(Replay, u64), ApiError> {
        let (game, _) = self.read(id, player, now).await?;
        if game.status == Status::Paused {
            return Err(ApiError::new(
                ErrorCode::ActionRefused,
                "the game is paused: its replay, like its board, is hidden until `resume`",
            ));
        }
        let log = self.records.whole_log(&game, now).await?;
        let replay = Replay::of(&game, &log).ok_or_else(|| {
            corrupted(format!(
                "game {}…'s log does not start with its deal",
                short(id)
            ))
        })?;
        Ok((replay, game.version))
    }

    /// Plays the replay of the `request` body again, on the solver pool;
    /// stores nothing.
    pub async fn check_replay<B>(&self, request: B) -> Result<ReplayCheck, ApiError>
    where
        B: Deref<Target = [u8]> + Send + 'static,
    {
        let permit = self.solvers.slot()?;
        let limits = self.request_limits.clone();
        let game_limits = self.limits;
        (self.solvers)
            .run_blocking(permit, Work::Play, move |stop| {
                linkpath_api::games::check_replay(&request, &game_limits, &limits, stop)
            })
            .await
    }

    /// The deal everyone gets on `date`, for the settings of `query`.
    pub async fn daily(&self, date: String, query: Option<String>) -> Result<DailyDeal, ApiError> {
        let permit = self.solvers.slot()?;
        let limits = self.request_limits.clone();
        (self.solvers)
            .run_blocking(permit, Work::Deal, move |stop| {
                linkpath_api::games::daily(&date, query.as_deref(), &limits, stop)
            })
            .await
    }

    /// A page of `board` as `query` asks, for `player` (needed to read
    /// around oneself): the entries in order with the place of the first,
    /// and whether more follow. Names are the players'; the caller reads
    /// them.
    pub async fn leaderboard(
        &self,
        board: &str,
        query: BoardQuery,
        player: Option<&str>,
        now: u64,
    ) -> Result<(BoardPage, bool), ApiError> {
        let start = match query.from {
            BoardFrom::Top => BoardStart::After(None),
            BoardFrom::After(rank) => BoardStart::After(Some(rank)),
            BoardFrom::Me => {
                let player = player.ok_or_else(|| {
                    ApiError::new(
                        ErrorCode::Unauthorized,
                        "`around=me` reads around a player: send the player's token as Authorization: Bearer <token>",
                    )
                })?;
                BoardStart::Around {
                    player: player.to_owned(),
                    before: query.limit / 2,
                }
            }
        };
        let started = Instant::now();
        // One more than asked, to tell whether a page follows.
        let page = self
            .records
            .store
            .leaderboard(board, start, query.limit + 1, now)
            .await;
        metrics::record_store("read", started);
        let mut page = page.map_err(unavailable)?;
        let more = page.entries.len() > query.limit;
        page.entries.truncate(query.limit);
        Ok((page, more))
    }

    /// The live games of `player` that `query` asks for, newest created
    /// first, each as it stands at `now`, with how far the store was
    /// read: at most `query.limit` games, and at most [`SCAN`] looked at,
    /// so that a filter few games pass costs a bounded read.
    pub async fn player_games(
        &self,
        player: &str,
        query: &GamesQuery,
        now: u64,
    ) -> Result<SourcePage, ApiError> {
        let page = |games, read_to: Option<GameCursor>| SourcePage {
            games,
            read_to: read_to.map(|c| (c.created_ms, c.id)),
        };
        let mut after = (query.after.clone()).map(|(created_ms, id)| GameCursor { created_ms, id });
        let mut games = Vec::new();
        let mut looked = 0;
        while looked < SCAN {
            let asked = (SCAN - looked).min(2 * query.limit);
            let started = Instant::now();
            let batch = (self.records.store)
                .player_games(player, after.as_ref(), asked, now)
                .await;
            metrics::record_store("read", started);
            let batch = batch.map_err(unavailable)?;
            let last_batch = batch.len() < asked;
            for (cursor, id) in batch {
                looked += 1;
                if query
                    .since_ms
                    .is_some_and(|since| cursor.created_ms < since)
                {
                    // Newest first: every game after this one is older.
                    return Ok(page(games, None));
                }
                match self.records.load(&id, now).await {
                    Ok((stored::Loaded { mut game, .. }, _)) => {
                        game.expire(now);
                        if query.wants(&game) {
                            let place = (cursor.created_ms, cursor.id.clone());
                            games.push((place, GameSummary::new(&game, now)));
                        }
                    }
                    // Expired since it was listed.
                    Err(e) if e.code == ErrorCode::GameNotFound => {}
                    Err(e) => return Err(e),
                }
                after = Some(cursor);
                if games.len() == query.limit {
                    return Ok(page(games, after));
                }
            }
            if last_batch {
                return Ok(page(games, None));
            }
        }
        Ok(page(games, after))
    }
}

/// The most games one page of a player's games looks at.
const SCAN: usize = 200;

/// The answer a write found under its key: another try of the request
/// was answered first.
fn raced(key: Option<&Key>, kept: &Kept) -> Result<Answer, ApiError> {
    match key {
        Some(key) => key.replayed(kept).map(Answer::Kept),
        // A write without a key is never replayed.
        None => Err(busy()),
    }
}

/// Refuses `player` (none for a request without a player's token) an
/// action on a game of `owner` unless the game is theirs, or nobody's.
pub(crate) fn owned_by(owner: Option<&str>, player: Option<&str>) -> Result<(), ApiError> {
    match (owner, player) {
        (None, _) => Ok(()),
        (Some(owner), Some(player)) if owner == player => Ok(()),
        (Some(_), None) => {
            metrics::record_player_refusal("not_your_game");
            Err(ApiError::new(
                ErrorCode::Unauthorized,
                "this game is a player's: send its player's token as Authorization: Bearer <token>",
            ))
        }
        (Some(_), Some(_)) => {
            metrics::record_player_refusal("not_your_game");
            Err(ApiError::new(
                ErrorCode::NotYourGame,
                "this game is another player's: only its player may act on it",
            ))
        }
    }
}

/// Spreads ids over the per-game locks.
fn spread(id: &str) -> usize {
    // FNV-1a; the ids are random already.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in id.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash as usize
}
