//! The store in this process's memory, for tests and for a server that
//! need not keep games across restarts. One mutex around the maps and
//! their expiry indexes makes every call one transaction; calls are short
//! (a lookup, a write, a purge bounded by its caller), so they run on the
//! async thread that makes them. Players are in `memory/players.rs`,
//! matches in `memory/matches.rs`, the archiver's calls in
//! `memory/archive.rs`.

mod archive;
mod heartbeat;
mod matches;
mod players;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;
use std::sync::{Mutex, MutexGuard};

use crate::rules::{self, BoardHead, Head, Kind, MatchHead, Tables};
use crate::{
    BoardPage, BoardStart, Entry, Keep, Kept, Outcome, Purged, Ranked, StoreError, StoreLimits,
    StoredGame, StoredMatch, StoredPlayer, Write,
};

pub(crate) struct MemoryStore {
    maps: Mutex<Maps>,
    limits: StoreLimits,
    /// The seeks, under their own lock.
    pub(crate) seeks: crate::seeks::table::SeekTable,
}

#[derive(Default)]
struct Maps {
    games: HashMap<String, StoredGame>,
    /// Each game's log by version; a game with none written is absent.
    logs: HashMap<String, BTreeMap<u64, Vec<u8>>>,
    kept: HashMap<String, Owned>,
    /// How many kept answers each game has; a game with none is absent.
    keys_of: HashMap<String, u64>,
    /// The charges of every kept answer.
    kept_bytes: u64,
    boards: HashMap<String, Board>,
    /// The boards each player has an entry on; a player with none is
    /// absent.
    player_boards: HashMap<String, BTreeSet<String>>,
    players: HashMap<String, StoredPlayer>,
    /// The player of each token's hash.
    tokens: HashMap<Vec<u8>, String>,
    /// Each owner's games by `(created_ms, id)`; an owner with none is
    /// absent.
    owned: HashMap<String, BTreeSet<(u64, String)>>,
    /// Each owned game's owner and creation.
    owner_of: HashMap<String, (String, u64)>,
    matches: HashMap<String, StoredMatch>,
    /// The matches with a timer, by `(due_at_ms, id)`: the first is due
    /// first.
    match_due: BTreeSet<(u64, String)>,
    /// Each game marked finished, with its mark's time, and the marks by
    /// `(finished_ms, id)`: the first is the oldest.
    finished: HashMap<String, u64>,
    unarchived: BTreeSet<(u64, String)>,
    // (expires_at_ms, name), so the first entry is the first to expire.
    game_expiry: BTreeSet<(u64, String)>,
    /// Expired games held for the archive, out of `game_expiry`.
    game_held: BTreeSet<(u64, String)>,
    key_expiry: BTreeSet<(u64, String)>,
    board_expiry: BTreeSet<(u64, String)>,
    player_expiry: BTreeSet<(u64, String)>,
    match_expiry: BTreeSet<(u64, String)>,
    // The heartbeat, the outages by their end, and when the store began
    // (`heartbeat.rs`).
    last_beat: Option<u64>,
    born: Option<u64>,
    outages: BTreeMap<u64, u64>,
}

/// A kept answer, with the game it counts for and its charge.
struct Owned {
    kept: Kept,
    game: String,
    charge: u64,
}

/// A leaderboard: its entries by rank, best first, each with its player
/// and body, and the rank of each player's entry.
struct Board {
    expires_at_ms: u64,
    entries: BTreeMap<String, (String, Vec<u8>)>,
    ranks: HashMap<String, String>,
}

impl MemoryStore {
    pub(crate) fn new(limits: StoreLimits) -> MemoryStore {
        MemoryStore {
            maps: Mutex::default(),
            limits,
            seeks: Default::default(),
        }
    }

    pub(crate) fn game(&self, id: &str, now_ms: u64) -> Result<Option<StoredGame>, StoreError> {
        let maps = self.lock()?;
        Ok(maps
            .games
            .get(id)
            .filter(|game| rules::live(game.expires_at_ms, now_ms))
            .cloned())
    }

    pub(crate) fn log(
        &self,
        id: &str,
        versions: Range<u64>,
        now_ms: u64,
    ) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        let maps = self.lock()?;
        let live = maps
            .games
            .get(id)
            .is_some_and(|game| rules::live(game.expires_at_ms, now_ms));
        Ok(match maps.logs.get(id) {
            Some(log) if live => log
                .range(versions)
                .map(|(version, entry)| (*version, entry.clone()))
                .collect(),
            _ => Vec::new(),
        })
    }

    pub(crate) fn kept(&self, key: &str, now_ms: u64) -> Result<Option<Kept>, StoreError> {
        let maps = self.lock()?;
        Ok(maps
            .kept
            .get(key)
            .map(|owned| &owned.kept)
            .filter(|kept| rules::live(kept.expires_at_ms, now_ms))
            .cloned())
    }

    pub(crate) fn write(&self, write: &Write, now_ms: u64) -> Result<Outcome, StoreError> {
        rules::apply(&mut *self.lock()?, write, now_ms, &self.limits)
    }

    pub(crate) fn keep(&self, keep: &Keep, now_ms: u64) -> Result<Outcome, StoreError> {
        rules::keep(&mut *self.lock()?, keep, now_ms, &self.limits)
    }

    pub(crate) fn leaderboard(
        &self,
        board: &str,
        start: &BoardStart,
        limit: usize,
        now_ms: u64,
    ) -> Result<BoardPage, StoreError> {
        let maps = self.lock()?;
        let Some(board) = maps
            .boards
            .get(board)
            .filter(|board| rules::live(board.expires_at_ms, now_ms))
        else {
            return Ok(BoardPage::default());
        };
        let ranked = board
            .entries
            .iter()
            .map(|(rank, (player, body))| Ranked {
                rank: rank.clone(),
                player: player.clone(),
                body: body.clone(),
            })
            .collect();
        Ok(BoardPage::of(ranked, start, limit))
    }

    pub(crate) fn purge(&self, now_ms: u64, at_most: usize) -> Result<Purged, StoreError> {
        rules::purge(&mut *self.lock()?, now_ms, at_most, &self.limits)
    }

    pub(crate) fn games(&self) -> Result<u64, StoreError> {
        self.lock()?.count()
    }

    // A panic while the lock was held may have left the maps half changed:
    // refuse to serve from them rather than guess.
    fn lock(&self) -> Result<MutexGuard<'_, Maps>, StoreError> {
        self.maps.lock().map_err(|_| {
            StoreError::Unavailable("a panic left the memory store's maps half changed".into())
        })
    }
}

impl Maps {
    fn index(&mut self, kind: Kind) -> &mut BTreeSet<(u64, String)> {
        match kind {
            Kind::Game => &mut self.game_expiry,
            Kind::Key => &mut self.key_expiry,
            Kind::Board => &mut self.board_expiry,
            Kind::Player => &mut self.player_expiry,
            Kind::Match => &mut self.match_expiry,
        }
    }

    /// Takes `board` off `player`'s boards.
    fn unlink(&mut self, player: &str, board: &str) {
        if let Some(boards) = self.player_boards.get_mut(player) {
            boards.remove(board);
            if boards.is_empty() {
                self.player_boards.remove(player);
            }
        }
    }

    fn reindex(&mut self, kind: Kind, name: &str, replaces: Option<u64>, expires_at_ms: u64) {
        let index = self.index(kind);
        if let Some(old) = replaces {
            index.remove(&(old, name.to_owned()));
        }
        index.insert((expires_at_ms, name.to_owned()));
    }
}

impl Tables for Maps {
    fn head(&self, id: &str) -> Result<Option<Head>, StoreError> {
        Ok(self.games.get(id).map(|game| Head {
            version: game.version,
            expires_at_ms: game.expires_at_ms,
        }))
    }

    fn kept(&self, key: &str) -> Result<Option<Kept>, StoreError> {
        Ok(self.kept.get(key).map(|owned| owned.kept.clone()))
    }

    fn count(&self) -> Result<u64, StoreError> {
        Ok(self.games.len() as u64)
    }

    fn put_game(
        &mut self,
        id: &str,
        game: &StoredGame,
        replaces: Option<u64>,
    ) -> Result<(), StoreError> {
        self.reindex(Kind::Game, id, replaces, game.expires_at_ms);
        self.games.insert(id.to_owned(), game.clone());
        Ok(())
    }

    fn put_log(
        &mut self,
        id: &str,
        versions: Range<u64>,
        entries: &[Vec<u8>],
    ) -> Result<(), StoreError> {
        let log = self.logs.entry(id.to_owned()).or_default();
        for (version, entry) in versions.zip(entries) {
            log.insert(version, entry.clone());
        }
        Ok(())
    }

    fn put_kept(
        &mut self,
        key: &str,
        game: &str,
        kept: &Kept,
        charge: u64,
    ) -> Result<(), StoreError> {
        self.reindex(Kind::Key, key, None, kept.expires_at_ms);
        *self.keys_of.entry(game.to_owned()).or_default() += 1;
        self.kept_bytes += charge;
        let owned = Owned {
            kept: kept.clone(),
            game: game.to_owned(),
            charge,
        };
        self.kept.insert(key.to_owned(), owned);
        Ok(())
    }

    fn keys_of(&self, game: &str) -> Result<u64, StoreError> {
        Ok(self.keys_of.get(game).copied().unwrap_or(0))
    }

    fn kept_bytes(&self) -> Result<u64, StoreError> {
        Ok(self.kept_bytes)
    }

    fn board(&self, board: &str) -> Result<Option<BoardHead>, StoreError> {
        Ok(self.boards.get(board).map(|board| BoardHead {
            expires_at_ms: board.expires_at_ms,
            entries: board.entries.len(),
        }))
    }

    fn boards(&self) -> Result<u64, StoreError> {
        Ok(self.boards.len() as u64)
    }

    fn entry_of(&self, board: &str, player: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .boards
            .get(board)
            .and_then(|board| board.ranks.get(player))
            .cloned())
    }

    fn holds(&self, board: &str, rank: &str) -> Result<bool, StoreError> {
        Ok(self
            .boards
            .get(board)
            .is_some_and(|board| board.entries.contains_key(rank)))
    }

    fn boards_of(&self, player: &str) -> Result<Vec<String>, StoreError> {
        Ok(self
            .player_boards
            .get(player)
            .map(|boards| boards.iter().cloned().collect())
            .unwrap_or_default())
    }

    fn put_entry(
        &mut self,
        entry: &Entry,
        expires_at_ms: u64,
        replaces: Option<u64>,
    ) -> Result<(), StoreError> {
        self.reindex(Kind::Board, &entry.board, replaces, expires_at_ms);
        let board = self
            .boards
            .entry(entry.board.clone())
            .or_insert_with(|| Board {
                expires_at_ms,
                entries: BTreeMap::new(),
                ranks: HashMap::new(),
            });
        board.expires_at_ms = expires_at_ms;
        board.entries.insert(
            entry.rank.clone(),
            (entry.player.clone(), entry.body.clone()),
        );
        board.ranks.insert(entry.player.clone(), entry.rank.clone());
        self.player_boards
            .entry(entry.player.clone())
            .or_default()
            .insert(entry.board.clone());
        Ok(())
    }

    fn worst(&self, board: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .boards
            .get(board)
            .and_then(|board| board.entries.last_key_value())
            .map(|(rank, _)| rank.clone()))
    }

    fn remove_entry(&mut self, board: &str, rank: &str) -> Result<(), StoreError> {
        let Some(held) = self.boards.get_mut(board) else {
            return Ok(());
        };
        if let Some((player, _)) = held.entries.remove(rank) {
            held.ranks.remove(&player);
            self.unlink(&player, board);
        }
        Ok(())
    }

    fn player(&self, id: &str) -> Result<Option<StoredPlayer>, StoreError> {
        Ok(self.players.get(id).cloned())
    }

    fn players(&self) -> Result<u64, StoreError> {
        Ok(self.players.len() as u64)
    }

    fn token_owner(&self, token: &[u8]) -> Result<Option<String>, StoreError> {
        Ok(self.tokens.get(token).cloned())
    }

    fn put_player(
        &mut self,
        id: &str,
        player: &StoredPlayer,
        replaces: Option<u64>,
    ) -> Result<(), StoreError> {
        self.reindex(Kind::Player, id, replaces, player.expires_at_ms);
        self.players.insert(id.to_owned(), player.clone());
        Ok(())
    }

    fn put_token(&mut self, token: &[u8], id: &str) -> Result<(), StoreError> {
        self.tokens.insert(token.to_vec(), id.to_owned());
        Ok(())
    }

    fn remove_token(&mut self, token: &[u8]) -> Result<(), StoreError> {
        self.tokens.remove(token);
        Ok(())
    }

    fn own(&mut self, owner: &str, created_ms: u64, id: &str) -> Result<(), StoreError> {
        self.owned
            .entry(owner.to_owned())
            .or_default()
            .insert((created_ms, id.to_owned()));
        self.owner_of
            .insert(id.to_owned(), (owner.to_owned(), created_ms));
        Ok(())
    }

    fn unown(&mut self, id: &str) -> Result<(), StoreError> {
        let Some((owner, created_ms)) = self.owner_of.remove(id) else {
            return Ok(());
        };
        if let Some(games) = self.owned.get_mut(&owner) {
            games.remove(&(created_ms, id.to_owned()));
            if games.is_empty() {
                self.owned.remove(&owner);
            }
        }
        Ok(())
    }

    fn owned(&self, owner: &str) -> Result<Vec<(u64, String)>, StoreError> {
        Ok(self
            .owned
            .get(owner)
            .map(|games| games.iter().cloned().collect())
            .unwrap_or_default())
    }

    fn match_head(&self, id: &str) -> Result<Option<MatchHead>, StoreError> {
        Ok(self.matches.get(id).map(|stored| MatchHead {
            version: stored.version,
            expires_at_ms: stored.expires_at_ms,
            due_at_ms: stored.due_at_ms,
        }))
    }

    fn matches(&self) -> Result<u64, StoreError> {
        Ok(self.matches.len() as u64)
    }

    fn put_match(
        &mut self,
        id: &str,
        record: &StoredMatch,
        replaces: Option<MatchHead>,
    ) -> Result<(), StoreError> {
        let old = replaces.map(|head| head.expires_at_ms);
        self.reindex(Kind::Match, id, old, record.expires_at_ms);
        if let Some(due_at_ms) = replaces.and_then(|head| head.due_at_ms) {
            self.match_due.remove(&(due_at_ms, id.to_owned()));
        }
        if let Some(due_at_ms) = record.due_at_ms {
            self.match_due.insert((due_at_ms, id.to_owned()));
        }
        self.matches.insert(id.to_owned(), record.clone());
        Ok(())
    }

    fn first_to_expire(&self, kind: Kind) -> Result<Option<(u64, String)>, StoreError> {
        let index = match kind {
            Kind::Game => &self.game_expiry,
            Kind::Key => &self.key_expiry,
            Kind::Board => &self.board_expiry,
            Kind::Player => &self.player_expiry,
            Kind::Match => &self.match_expiry,
        };
        Ok(index.first().cloned())
    }

    fn remove(&mut self, kind: Kind, expires_at_ms: u64, name: &str) -> Result<(), StoreError> {
        self.index(kind).remove(&(expires_at_ms, name.to_owned()));
        match kind {
            Kind::Game => {
                self.game_held.remove(&(expires_at_ms, name.to_owned()));
                self.games.remove(name);
                self.logs.remove(name);
            }
            Kind::Key => {
                if let Some(owned) = self.kept.remove(name) {
                    self.kept_bytes -= owned.charge;
                    if let Some(count) = self.keys_of.get_mut(&owned.game) {
                        *count -= 1;
                        if *count == 0 {
                            self.keys_of.remove(&owned.game);
                        }
                    }
                }
            }
            Kind::Board => {
                if let Some(board) = self.boards.remove(name) {
                    for player in board.ranks.keys() {
                        self.unlink(player, name);
                    }
                }
            }
            Kind::Player => {
                self.players.remove(name);
            }
            Kind::Match => {
                if let Some(due_at_ms) = self
                    .matches
                    .remove(name)
                    .and_then(|stored| stored.due_at_ms)
                {
                    self.match_due.remove(&(due_at_ms, name.to_owned()));
                }
            }
        }
        Ok(())
    }

    fn finished(&self, id: &str) -> Result<Option<u64>, StoreError> {
        Ok(self.finished.get(id).copied())
    }

    fn mark(&mut self, id: &str, finished_ms: u64) -> Result<(), StoreError> {
        self.finished.insert(id.to_owned(), finished_ms);
        self.unarchived.insert((finished_ms, id.to_owned()));
        Ok(())
    }

    fn unmark(&mut self, id: &str) -> Result<(), StoreError> {
        if let Some(finished_ms) = self.finished.remove(id) {
            self.unarchived.remove(&(finished_ms, id.to_owned()));
        }
        Ok(())
    }

    fn hold(&mut self, id: &str, expires_at_ms: u64) -> Result<(), StoreError> {
        let entry = (expires_at_ms, id.to_owned());
        self.game_expiry.remove(&entry);
        self.game_held.insert(entry);
        Ok(())
    }

    fn release(&mut self, id: &str, expires_at_ms: u64) -> Result<(), StoreError> {
        let entry = (expires_at_ms, id.to_owned());
        if self.game_held.remove(&entry) {
            self.game_expiry.insert(entry);
        }
        Ok(())
    }

    fn first_held(&self) -> Result<Option<(u64, String)>, StoreError> {
        Ok(self.game_held.first().cloned())
    }
}
