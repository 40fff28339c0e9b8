//! The archive in this process's memory: for tests, and for servers whose
//! store is memory too. Games in a map by id, with the same indexes the
//! file keeps (by time, and by match, player and leaderboard, and the
//! games that hold their player's name), so that pages come out in the
//! same order and a player's export does not walk every game. Bounded in
//! games: past the bound an insert is refused.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;
use std::sync::{Mutex, PoisonError};

use crate::filter::{GameColumns, Scope, Span};
use crate::{ArchiveError, ArchivedGame, Cursor, Filter};

/// A key of a scoped index: `(match, player or leaderboard; finished_ms,
/// id)`.
type ScopedKey = (String, u64, String);
type Index = BTreeSet<ScopedKey>;

pub(crate) struct MemoryArchive {
    state: Mutex<State>,
    max_games: u64,
}

#[derive(Default)]
struct State {
    games: BTreeMap<String, ArchivedGame>,
    by_time: BTreeSet<(u64, String)>,
    by_match: Index,
    by_player: Index,
    by_leaderboard: Index,
    /// A player's games by `(player; created_ms, id)`.
    by_player_created: Index,
    /// `(player, id)` of each game that holds its player's name.
    named: BTreeSet<(String, String)>,
    erased: BTreeSet<String>,
}

impl MemoryArchive {
    pub(crate) fn new(max_games: u64) -> MemoryArchive {
        MemoryArchive {
            state: Mutex::new(State::default()),
            max_games,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // Every change is made in full before the lock is let go.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn insert(&self, games: &[ArchivedGame]) -> Result<u64, ArchiveError> {
        let mut state = self.state();
        let new: BTreeSet<&str> = games
            .iter()
            .map(|game| game.id.as_str())
            .filter(|id| !state.games.contains_key(*id))
            .collect();
        if state.games.len() as u64 + new.len() as u64 > self.max_games {
            return Err(ArchiveError::Full(self.max_games));
        }
        let mut inserted = 0;
        for game in games {
            if state.games.contains_key(&game.id) {
                continue;
            }
            let mut game = game.clone();
            if game
                .player
                .as_ref()
                .is_some_and(|p| state.erased.contains(p))
            {
                game.player_name = None;
            }
            state.index(&game);
            state.games.insert(game.id.clone(), game);
            inserted += 1;
        }
        Ok(inserted)
    }

    pub(crate) fn game(&self, id: &str) -> Option<ArchivedGame> {
        self.state().games.get(id).cloned()
    }

    pub(crate) fn page(
        &self,
        filter: &Filter,
        after: Option<&Cursor>,
        limit: usize,
    ) -> Vec<ArchivedGame> {
        let state = self.state();
        let Some(span) = filter.span(after) else {
            return Vec::new();
        };
        let wanted = |id: &String| {
            let game = &state.games[id];
            filter
                .admits(&GameColumns::from(game))
                .then(|| game.clone())
        };
        match filter.scope() {
            Scope::All => {
                let upper = span.before.map_or(Bound::Unbounded, Bound::Excluded);
                let lower = Bound::Included((span.since, String::new()));
                state
                    .by_time
                    .range((lower, upper))
                    .rev()
                    .filter_map(|(_, id)| wanted(id))
                    .take(limit)
                    .collect()
            }
            Scope::Match(key) => scoped(&state.by_match, key, &span, limit, wanted),
            Scope::Player(key) => scoped(&state.by_player, key, &span, limit, wanted),
            Scope::Leaderboard(key) => scoped(&state.by_leaderboard, key, &span, limit, wanted),
            Scope::PlayerCreated(key) => {
                scoped(&state.by_player_created, key, &span, limit, wanted)
            }
        }
    }

    pub(crate) fn erase_player(&self, player: &str) -> u64 {
        let mut state = self.state();
        state.erased.insert(player.to_owned());
        let ids: Vec<String> = state
            .by_player
            .range(scope_range(
                player,
                &Span {
                    since: 0,
                    before: None,
                },
            ))
            .map(|(_, _, id)| id.clone())
            .collect();
        let mut erased = 0;
        for id in ids {
            if let Some(game) = state.games.get_mut(&id)
                && game.player_name.take().is_some()
            {
                erased += 1;
            }
            state.named.remove(&(player.to_owned(), id));
        }
        erased
    }

    pub(crate) fn named_players(&self, after: Option<&str>, at_most: usize) -> Vec<String> {
        let state = self.state();
        // Past every key of `after` comes `after` with a NUL after it.
        let lower = after.map_or_else(String::new, |after| format!("{after}\0"));
        let mut players: Vec<String> = Vec::new();
        for (player, _) in state.named.range((lower, String::new())..).take(at_most) {
            if players.last() != Some(player) {
                players.push(player.clone());
            }
        }
        players
    }

    pub(crate) fn purge_finished_before(&self, cutoff_ms: u64, at_most: usize) -> u64 {
        let mut state = self.state();
        let old: Vec<String> = state
            .by_time
            .range(..(cutoff_ms, String::new()))
            .take(at_most)
            .map(|(_, id)| id.clone())
            .collect();
        for id in &old {
            if let Some(game) = state.games.remove(id) {
                state.unindex(&game);
            }
        }
        old.len() as u64
    }

    pub(crate) fn count(&self) -> u64 {
        self.state().games.len() as u64
    }
}

impl State {
    fn index(&mut self, game: &ArchivedGame) {
        self.by_time.insert((game.finished_ms, game.id.clone()));
        if let (Some(player), Some(_)) = (&game.player, &game.player_name) {
            self.named.insert((player.clone(), game.id.clone()));
        }
        for (set, key, at) in self.scoped_sets(game) {
            set.insert((key, at, game.id.clone()));
        }
    }

    fn unindex(&mut self, game: &ArchivedGame) {
        self.by_time.remove(&(game.finished_ms, game.id.clone()));
        if let Some(player) = &game.player {
            self.named.remove(&(player.clone(), game.id.clone()));
        }
        for (set, key, at) in self.scoped_sets(game) {
            set.remove(&(key, at, game.id.clone()));
        }
    }

    /// The scoped indexes `game` is in, each with its key and time there.
    fn scoped_sets(&mut self, game: &ArchivedGame) -> Vec<(&mut Index, String, u64)> {
        [
            (&mut self.by_match, &game.match_id, game.finished_ms),
            (&mut self.by_player, &game.player, game.finished_ms),
            (
                &mut self.by_leaderboard,
                &game.leaderboard,
                game.finished_ms,
            ),
            (&mut self.by_player_created, &game.player, game.created_ms),
        ]
        .into_iter()
        .filter_map(|(set, key, at)| key.clone().map(|key| (set, key, at)))
        .collect()
    }
}

/// The newest `limit` games of one key of a scoped index in `span` that
/// `wanted` keeps.
fn scoped(
    set: &Index,
    key: &str,
    span: &Span,
    limit: usize,
    wanted: impl Fn(&String) -> Option<ArchivedGame>,
) -> Vec<ArchivedGame> {
    set.range(scope_range(key, span))
        .rev()
        .filter_map(|(_, _, id)| wanted(id))
        .take(limit)
        .collect()
}

/// The keys of `key`'s games in `span`. Past every key of `key` comes
/// `key` with a NUL after it, the next string in byte order.
fn scope_range(key: &str, span: &Span) -> (Bound<ScopedKey>, Bound<ScopedKey>) {
    let lower = (key.to_owned(), span.since, String::new());
    let upper = match &span.before {
        Some((ms, id)) => (key.to_owned(), *ms, id.clone()),
        None => (format!("{key}\0"), 0, String::new()),
    };
    (Bound::Included(lower), Bound::Excluded(upper))
}
