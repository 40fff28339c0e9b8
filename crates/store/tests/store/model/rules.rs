//! The model: the store's rules as `lib.rs` and `rules.rs` tell them,
//! on plain maps, and each step of a sequence made a call with the
//! versions it knows.

use std::collections::{BTreeMap, BTreeSet};

use super::*;

/// The rules as `lib.rs` and `rules.rs` tell them, on plain maps: every
/// record stored until a write or a purge deletes it, expired or not.
pub(super) struct Model {
    pub(super) limits: StoreLimits,
    pub(super) games: BTreeMap<String, StoredGame>,
    /// Each game's log by version. A removed game's stays: it shows only
    /// while its game is live or copied for the archive, and a create
    /// starts a new one.
    pub(super) logs: BTreeMap<String, BTreeMap<u64, Vec<u8>>>,
    kept: BTreeMap<String, Owned>,
    pub(super) boards: BTreeMap<String, Board>,
    pub(super) players: BTreeMap<String, StoredPlayer>,
    /// Each owned game's owner and creation, while the game is stored.
    pub(super) owners: BTreeMap<String, (String, u64)>,
    pub(super) matches: BTreeMap<String, StoredMatch>,
    /// Each stored game marked finished, with its mark's time.
    pub(super) marks: BTreeMap<String, u64>,
    /// The expired games held for the archive.
    pub(super) held: BTreeSet<String>,
    /// How often each rule of [`MUST_MEET`] (and others) applied.
    pub(super) met: BTreeMap<&'static str, u64>,
}

/// A kept answer, the game it counts for, and its charge.
#[derive(Clone)]
struct Owned {
    kept: Kept,
    game: String,
    charge: u64,
}

#[derive(Clone)]
pub(super) struct Board {
    expires_at_ms: u64,
    /// Player and body by rank: best first.
    pub(super) entries: BTreeMap<String, (String, Vec<u8>)>,
}

/// Live until its expiry: from that millisecond on, absent.
pub(super) fn live(expires_at_ms: u64, now: u64) -> bool {
    now < expires_at_ms
}

/// The first of `records` to expire (by name among equal expiries), if it
/// has expired by `now`.
pub(super) fn first_expired<'a>(
    records: impl Iterator<Item = (u64, &'a String)>,
    now: u64,
) -> Option<String> {
    records
        .min()
        .filter(|(expires_at_ms, _)| !live(*expires_at_ms, now))
        .map(|(_, name)| name.clone())
}

impl Model {
    pub(super) fn new(limits: StoreLimits) -> Model {
        Model {
            limits,
            games: BTreeMap::new(),
            logs: BTreeMap::new(),
            kept: BTreeMap::new(),
            boards: BTreeMap::new(),
            players: BTreeMap::new(),
            owners: BTreeMap::new(),
            matches: BTreeMap::new(),
            marks: BTreeMap::new(),
            held: BTreeSet::new(),
            met: BTreeMap::new(),
        }
    }

    pub(super) fn meet(&mut self, what: &'static str) {
        *self.met.entry(what).or_default() += 1;
    }

    /// The version of the live game `id`, if any.
    fn version(&self, id: &str, now: u64) -> Option<u64> {
        self.games
            .get(id)
            .filter(|game| live(game.expires_at_ms, now))
            .map(|game| game.version)
    }

    /// `op` at `step` as a call: versions as the model knows them.
    pub(super) fn call(&self, op: &Op, step: usize, now: u64) -> Call {
        let keyed = |key: &Option<KeyUse>| {
            key.as_ref().map(|key| {
                let kept = answer(step, key.request, key.padding, now + key.life);
                (KEYS[key.key].to_owned(), kept)
            })
        };
        match op {
            Op::Create {
                id,
                life,
                key,
                win,
                owner,
            } => {
                let owner = owner.map(|owner| PLAYERS[owner].to_owned());
                let expected = Expected::Absent;
                Call::Write(Box::new(game_write(
                    (step, now),
                    *id,
                    expected,
                    *life,
                    keyed(key),
                    win,
                    owner,
                )))
            }
            Op::Next {
                id,
                life,
                key,
                win,
                finish,
            } => {
                let expected = self
                    .version(IDS[*id], now)
                    .map_or(Expected::Absent, Expected::Version);
                // The owner is read on a create alone: one sent with a
                // change is left.
                let owner = Some(PLAYERS[*id % PLAYERS.len()].to_owned());
                Call::Write(Box::new(Write {
                    finished: *finish,
                    ..game_write((step, now), *id, expected, *life, keyed(key), win, owner)
                }))
            }
            Op::Stale {
                id,
                ahead,
                key,
                finish,
            } => {
                let expected = match self.version(IDS[*id], now) {
                    Some(version) if *ahead == 0 && version > 0 => version - 1,
                    Some(version) => version + (*ahead).max(1),
                    None => *ahead,
                };
                let expected = Expected::Version(expected);
                Call::Write(Box::new(Write {
                    finished: *finish,
                    ..game_write((step, now), *id, expected, 5, keyed(key), &None, None)
                }))
            }
            Op::Keep { id, key } => {
                let (key, kept) = keyed(&Some(key.clone())).unwrap();
                Call::Keep {
                    game: IDS[*id].to_owned(),
                    key,
                    kept,
                }
            }
            Op::Game { id } => Call::Game(IDS[*id].to_owned()),
            Op::Kept { key } => Call::Kept(KEYS[*key].to_owned()),
            Op::Leaderboard {
                board,
                start,
                limit,
            } => Call::Leaderboard(BOARDS[*board].to_owned(), board_start(start), *limit),
            Op::Games => Call::Games,
            Op::Purge { at_most } => Call::Purge(*at_most),
            Op::PurgeExpired => Call::PurgeExpired,
            Op::Join { .. }
            | Op::Change { .. }
            | Op::Erase { .. }
            | Op::ByToken { .. }
            | Op::PlayerGames { .. } => self.player_call(op, step, now),
            Op::Match { .. } | Op::Due { .. } => self.match_call(op, step, now),
            Op::Unarchived { .. } | Op::Archived { .. } | Op::ArchiveCopy { .. } => {
                self.archive_call(op)
            }
            Op::Wait { .. } => unreachable!("a wait is no call"),
        }
    }

    pub(super) fn answer(&mut self, call: &Call, now: u64) -> Answer {
        match call {
            Call::Write(write) => {
                let outcome = self.write(write, now);
                self.met_outcome(&outcome, write.key.as_ref().map(|(_, kept)| kept));
                if write.finished && outcome != Outcome::Written {
                    self.meet("a finishing write refused");
                }
                Answer::Outcome(Ok(outcome))
            }
            Call::Keep { game, key, kept } => {
                let outcome = self.keep(game, key, kept, now);
                self.met_outcome(&outcome, Some(kept));
                Answer::Outcome(Ok(outcome))
            }
            Call::Game(id) => Answer::Game(Ok(self.game(id, now))),
            Call::Kept(key) => Answer::Kept(Ok(self.kept_live(key, now))),
            Call::Leaderboard(board, start, limit) => {
                let page = self.leaderboard(board, start, *limit, now);
                if page.found.is_some() {
                    self.meet("a page around a player");
                }
                Answer::Leaderboard(Ok(page))
            }
            Call::Player(_) | Call::Erase(..) | Call::ByToken(_) | Call::PlayerGames(..) => {
                self.player_answer(call, now)
            }
            Call::Match(_) | Call::Due(..) => self.match_answer(call, now),
            Call::Unarchived(_) | Call::Archived(_) | Call::ArchiveCopy(_) => {
                self.archive_answer(call, now)
            }
            Call::Games => Answer::Games(Ok(self.games.len() as u64)),
            Call::Purge(at_most) => Answer::Purged(Ok(self.purge(now, *at_most))),
            Call::PurgeExpired => {
                // Far fewer records than a batch: one batch takes them all.
                let purged = self.purge(now, usize::MAX);
                if purged.games + purged.keys + purged.boards + purged.players + purged.matches > 0
                {
                    self.meet("a purge of everything expired");
                }
                Answer::Purged(Ok(purged))
            }
        }
    }

    fn met_outcome(&mut self, outcome: &Outcome, sent: Option<&Kept>) {
        if let Outcome::Replayed(found) = outcome
            && sent.is_some_and(|sent| sent.fingerprint != found.fingerprint)
        {
            self.meet("replayed to another fingerprint");
        }
        self.meet(match outcome {
            Outcome::Written => "written",
            Outcome::Stale { .. } => "stale",
            Outcome::Full => "full",
            Outcome::PlayerFull => "the owner's games full",
            Outcome::Replayed(_) => "replayed",
            Outcome::TooManyKeys(KeyBound::Game) => "too many keys for the game",
            Outcome::TooManyKeys(KeyBound::Store) => "too many kept bytes",
        });
    }

    pub(super) fn shown(&self, now: u64) -> Shown {
        Shown {
            games: Ok(self.games.len() as u64),
            game: IDS.iter().map(|id| Ok(self.game(id, now))).collect(),
            log: IDS.iter().map(|id| Ok(self.log(id, now))).collect(),
            kept: KEYS
                .iter()
                .map(|key| Ok(self.kept_live(key, now)))
                .collect(),
            boards: BOARDS
                .iter()
                .map(|board| Ok(self.leaderboard(board, &BoardStart::After(None), usize::MAX, now)))
                .collect(),
            player_count: Ok(self.players.len() as u64),
            players: Ok(PLAYERS.iter().map(|id| self.player(id, now)).collect()),
            tokens: TOKENS
                .iter()
                .map(|n| Ok(self.by_token(&token(*n), now)))
                .collect(),
            player_games: PLAYERS
                .iter()
                .map(|player| Ok(self.player_games(player, None, usize::MAX, now)))
                .collect(),
            matches: Ok(self.matches.len() as u64),
            match_records: MATCHES
                .iter()
                .map(|id| Ok(self.match_record(id, now)))
                .collect(),
            due: Ok(self.due(now, usize::MAX)),
            unarchived: Ok(self.unarchived(MAX_ARCHIVE_BATCH, now)),
            unarchived_count: Ok(self.unarchived_count()),
            copies: IDS.iter().map(|id| Ok(self.archive_copy(id))).collect(),
        }
    }

    pub(super) fn game(&self, id: &str, now: u64) -> Option<StoredGame> {
        self.games
            .get(id)
            .filter(|game| live(game.expires_at_ms, now))
            .cloned()
    }

    fn log(&self, id: &str, now: u64) -> LogEntries {
        match (self.game(id, now), self.logs.get(id)) {
            (Some(_), Some(log)) => log.iter().map(|(v, e)| (*v, e.clone())).collect(),
            _ => Vec::new(),
        }
    }

    fn kept_live(&self, key: &str, now: u64) -> Option<Kept> {
        self.kept
            .get(key)
            .map(|owned| &owned.kept)
            .filter(|kept| live(kept.expires_at_ms, now))
            .cloned()
    }

    /// A page of `board`: from the top, after a rank (exclusive), or
    /// `before` places above the player's entry (the top if it has none).
    fn leaderboard(&self, board: &str, start: &BoardStart, limit: usize, now: u64) -> BoardPage {
        let Some(board) = self
            .boards
            .get(board)
            .filter(|board| live(board.expires_at_ms, now))
        else {
            return BoardPage::default();
        };
        let ranked: Vec<Ranked> = board
            .entries
            .iter()
            .map(|(rank, (player, body))| Ranked {
                rank: rank.clone(),
                player: player.clone(),
                body: body.clone(),
            })
            .collect();
        let (position, found) = match start {
            BoardStart::After(None) => (0, None),
            BoardStart::After(Some(after)) => (
                ranked.iter().filter(|entry| &entry.rank <= after).count(),
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
            position: position as u64,
            entries: ranked.into_iter().skip(position).take(limit).collect(),
            found,
        }
    }

    /// A write: the key first (a live answer is replayed, whatever the
    /// version), then the version, then the bound on games, then the
    /// bounds on keys; the game, its key and its entry are stored only
    /// when all pass.
    fn write(&mut self, write: &Write, now: u64) -> Outcome {
        if let Some((key, _)) = &write.key
            && let Some(found) = self.live_kept(key, now)
        {
            return Outcome::Replayed(found);
        }
        let stored = self.games.contains_key(&write.id);
        let current = self.version(&write.id, now);
        let expected = match write.expected {
            Expected::Absent => None,
            Expected::Version(version) => Some(version),
        };
        if current != expected {
            return Outcome::Stale { current };
        }
        // An expired game kept for the archive keeps its id.
        if write.expected == Expected::Absent && stored && self.kept(&write.id) {
            self.meet("a create over a game kept for the archive refused");
            return Outcome::Stale { current: None };
        }
        // A new id while `max_games` are stored: an expired one goes, the
        // first to expire (those kept for the archive held instead); with
        // none to go, the store is full.
        if !stored && self.games.len() as u64 >= self.limits.max_games && !self.make_room(now) {
            return Outcome::Full;
        }
        // Only a create reads the owner; only the owner's live games count.
        let owner = write
            .owner
            .as_ref()
            .filter(|_| write.expected == Expected::Absent);
        if let Some(owner) = owner {
            let owned = self
                .owners
                .iter()
                .filter(|(id, (of, _))| of == owner && self.game(id, now).is_some())
                .count();
            if owned as u64 >= self.limits.max_games_per_player {
                return Outcome::PlayerFull;
            }
        }
        if let Some((key, kept)) = &write.key
            && let Some(bound) = self.over_bound(&write.id, kept_charge(key, kept), now)
        {
            return Outcome::TooManyKeys(bound);
        }
        if write.expected == Expected::Absent {
            // The game replaced, if any, goes from its owner's list, and
            // its mark with it.
            self.owners.remove(&write.id);
            self.marks.remove(&write.id);
            self.held.remove(&write.id);
        }
        if let Some(owner) = owner {
            self.owners.insert(write.id.clone(), (owner.clone(), now));
            self.meet("a game listed among its owner's");
        }
        self.games.insert(write.id.clone(), write.game.clone());
        self.mark(write, now);
        let log = self.logs.entry(write.id.clone()).or_default();
        if write.expected == Expected::Absent {
            log.clear();
        }
        log.extend(write.log_versions().zip(write.log.iter().cloned()));
        if let Some((key, kept)) = &write.key {
            self.put_kept(key, &write.id, kept);
        }
        if let Some(entry) = &write.entry {
            self.enter(entry, now);
        }
        Outcome::Written
    }

    /// [`Store::keep`]: replayed if the key holds a live answer, refused
    /// past a bound, else kept; no game changes.
    fn keep(&mut self, game: &str, key: &str, kept: &Kept, now: u64) -> Outcome {
        if let Some(found) = self.live_kept(key, now) {
            return Outcome::Replayed(found);
        }
        if let Some(bound) = self.over_bound(game, kept_charge(key, kept), now) {
            return Outcome::TooManyKeys(bound);
        }
        self.put_kept(key, game, kept);
        Outcome::Written
    }

    /// The live answer under `key`; an expired one is deleted, so that
    /// the key is new again and no longer counts.
    pub(super) fn live_kept(&mut self, key: &str, now: u64) -> Option<Kept> {
        let owned = self.kept.get(key)?;
        if live(owned.kept.expires_at_ms, now) {
            return Some(owned.kept.clone());
        }
        self.kept.remove(key);
        self.meet("an expired answer freed its key");
        None
    }

    /// The bound a new answer of `charge` for `game` would pass: the
    /// game's answers stored (expired ones too) against
    /// `max_keys_per_game`, then the charges of all against
    /// `max_kept_bytes`, expired answers deleted first to expire first
    /// to make room. (The rules stop after 16 deletions; a sequence has
    /// fewer keys.)
    pub(super) fn over_bound(&mut self, game: &str, charge: u64, now: u64) -> Option<KeyBound> {
        let keys = self
            .kept
            .values()
            .filter(|owned| owned.game == game)
            .count();
        if keys as u64 >= self.limits.max_keys_per_game {
            return Some(KeyBound::Game);
        }
        loop {
            let bytes: u64 = self.kept.values().map(|owned| owned.charge).sum();
            if bytes + charge <= self.limits.max_kept_bytes {
                return None;
            }
            let expired = first_expired(
                self.kept
                    .iter()
                    .map(|(key, owned)| (owned.kept.expires_at_ms, key)),
                now,
            );
            let Some(expired) = expired else {
                return Some(KeyBound::Store);
            };
            self.kept.remove(&expired);
            self.meet("an expired answer made room");
        }
    }

    pub(super) fn put_kept(&mut self, key: &str, game: &str, kept: &Kept) {
        let owned = Owned {
            kept: kept.clone(),
            game: game.to_owned(),
            charge: kept_charge(key, kept),
        };
        self.kept.insert(key.to_owned(), owned);
    }

    /// A win on its board: an expired board is emptied first; a new board
    /// is made only while fewer than `max_boards` are stored; the board
    /// keeps its best `board_size` and expires at the latest of its
    /// entries' expiries.
    fn enter(&mut self, entry: &Entry, now: u64) {
        if self
            .boards
            .get(&entry.board)
            .is_some_and(|board| !live(board.expires_at_ms, now))
        {
            self.boards.remove(&entry.board);
            self.meet("an expired board emptied");
        }
        if !self.boards.contains_key(&entry.board)
            && self.boards.len() as u64 >= self.limits.max_boards
        {
            self.meet("a board left out");
            return;
        }
        let met = &mut self.met;
        let board = self
            .boards
            .entry(entry.board.clone())
            .or_insert_with(|| Board {
                expires_at_ms: entry.expires_at_ms,
                entries: BTreeMap::new(),
            });
        let held = board
            .entries
            .iter()
            .find(|(_, (player, _))| *player == entry.player)
            .map(|(rank, _)| rank.clone());
        if let Some(held) = held {
            if entry.rank >= held {
                *met.entry("a player's worse entry left out").or_default() += 1;
                return;
            }
            board.entries.remove(&held);
            *met.entry("a player's entry bettered").or_default() += 1;
        }
        board.expires_at_ms = board.expires_at_ms.max(entry.expires_at_ms);
        board.entries.insert(
            entry.rank.clone(),
            (entry.player.clone(), entry.body.clone()),
        );
        if board.entries.len() > self.limits.board_size {
            board.entries.pop_last();
            *met.entry("a board's worst entry dropped").or_default() += 1;
        }
    }

    /// Removes a game, its place in its owner's list and its mark.
    pub(super) fn remove_game(&mut self, id: &str) {
        self.games.remove(id);
        self.owners.remove(id);
        self.marks.remove(id);
        self.held.remove(id);
    }

    /// Deletes what has expired, the first to expire first, at most
    /// `at_most` games (deleted or held for the archive), then keys, then
    /// boards, then players (each as an erase takes it).
    fn purge(&mut self, now: u64, at_most: usize) -> Purged {
        let (games, held, more_games) = self.purge_games(now, at_most);
        let (keys, more_keys) = purge(
            &mut self.kept,
            |owned| owned.kept.expires_at_ms,
            now,
            at_most,
        );
        let (boards, more_boards) =
            purge(&mut self.boards, |board| board.expires_at_ms, now, at_most);
        let (players, more_players) = self.purge_players(now, at_most);
        let (matches, more_matches) = purge(
            &mut self.matches,
            |stored| stored.expires_at_ms,
            now,
            at_most,
        );
        if more_games || more_keys || more_boards || more_players || more_matches {
            self.meet("a purge stopped at its most");
        }
        Purged {
            games,
            held,
            keys,
            boards,
            players,
            matches,
        }
    }
}

/// The write a step makes of game `IDS[id]`, at `(step, now)`.
fn game_write(
    (step, now): (usize, u64),
    id: usize,
    expected: Expected,
    life: u64,
    key: Option<(String, Kept)>,
    win: &Option<Win>,
    owner: Option<String>,
) -> Write {
    let version = match expected {
        Expected::Absent => 0,
        Expected::Version(version) => version + 1,
    };
    let id = IDS[id];
    Write {
        id: id.to_owned(),
        expected,
        game: StoredGame {
            version,
            expires_at_ms: now + life,
            body: format!("{id} v{version} at step {step}").into_bytes(),
        },
        log: vec![format!("{id} log v{version} at step {step}").into_bytes()],
        key,
        entry: win.as_ref().map(|win| {
            let rank = format!("{}{id}", win.score);
            Entry {
                board: BOARDS[win.board].to_owned(),
                player: PLAYERS[win.player].to_owned(),
                body: format!("{rank} v{version}").into_bytes(),
                rank,
                expires_at_ms: now + win.life,
            }
        }),
        owner,
        finished: false,
    }
}

/// Where a page starts: after a score's ranks (`5` sorts before `5g0`),
/// or around a player.
fn board_start(start: &Start) -> BoardStart {
    match start {
        Start::After(score) => BoardStart::After(score.map(|score| score.to_string())),
        Start::Around { player, before } => BoardStart::Around {
            player: PLAYERS[*player].to_owned(),
            before: *before,
        },
    }
}

/// Deletes at most `at_most` expired records of `records`, the first to
/// expire first: how many, and whether expired ones are left.
pub(super) fn purge<T>(
    records: &mut BTreeMap<String, T>,
    expiry: impl Fn(&T) -> u64,
    now: u64,
    at_most: usize,
) -> (usize, bool) {
    let mut purged = 0;
    loop {
        let expired = first_expired(
            records.iter().map(|(name, record)| (expiry(record), name)),
            now,
        );
        let Some(expired) = expired else {
            return (purged, false);
        };
        if purged == at_most {
            return (purged, true);
        }
        records.remove(&expired);
        purged += 1;
    }
}
