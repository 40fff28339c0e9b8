//! The store's rules, written once for every backend that can run them
//! inside its own transaction: what a write checks and in which order,
//! what expiry means, what goes with a record that goes, and how a purge
//! walks the expiry indexes. A backend gives [`Tables`], the few reads and
//! writes the rules need, over its maps or its open transaction. Redis
//! holds no transaction open across calls, so it runs the same rules as
//! Lua scripts (`redis_store/write.lua`, `player_write.lua`,
//! `player_erase.lua`, `match_write.lua`, `purge.lua`, `archived.lua`,
//! with `common.lua`): a change here is made there too, and the cases of
//! `tests/store/` run on every backend.
//!
//! What goes with a record ([`remove`]): a game takes its log, its
//! entry in its owner's index and its mark for the archive; a board its
//! entries; a player its token's hash, its entries on every board and the
//! index of its games (the games stay); a match its entry in the due
//! index. Which expired games go and which are held for the archive is
//! `rules/archive.rs`'s; what a write must be, `rules/check.rs`'s.

mod archive;
mod check;

use archive::Taken;
pub(crate) use archive::archived;
pub(crate) use check::{check, check_match, check_player};

use crate::{
    Entry, Expected, Keep, Kept, KeyBound, MatchOutcome, MatchWrite, Outcome, PlayerOutcome,
    PlayerWrite, Purged, StoreError, StoreLimits, StoredGame, StoredMatch, StoredPlayer, Write,
    kept_charge,
};

/// The most expired records a write deletes to make room under a bound:
/// one is enough for a game; answers differ in size.
const MAKE_ROOM: usize = 16;

/// Whether a record expiring at `expires_at_ms` is still there at `now_ms`.
pub(crate) fn live(expires_at_ms: u64, now_ms: u64) -> bool {
    now_ms < expires_at_ms
}

/// What the rules read of a stored game.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Head {
    pub version: u64,
    pub expires_at_ms: u64,
}

/// What the rules read of a stored match: as of a game, and where it
/// stands in the due index.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MatchHead {
    pub version: u64,
    pub expires_at_ms: u64,
    pub due_at_ms: Option<u64>,
}

/// What the rules read of a stored leaderboard.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BoardHead {
    pub expires_at_ms: u64,
    /// How many entries it holds: at most the board size.
    pub entries: usize,
}

/// The kinds of record that expire, each with its own expiry index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Game,
    Key,
    /// A leaderboard with its entries.
    Board,
    Player,
    /// A match with its entry in the due index.
    Match,
}

/// A backend's records, expired or not, within one transaction.
pub(crate) trait Tables {
    fn head(&self, id: &str) -> Result<Option<Head>, StoreError>;
    fn kept(&self, key: &str) -> Result<Option<Kept>, StoreError>;
    /// How many games are stored, kept exact by the backend in the same
    /// transaction as its writes.
    fn count(&self) -> Result<u64, StoreError>;
    /// Stores `game` under `id`; `replaces` is the expiry of the record it
    /// replaces, whose expiry index entry goes.
    fn put_game(
        &mut self,
        id: &str,
        game: &StoredGame,
        replaces: Option<u64>,
    ) -> Result<(), StoreError>;
    /// Stores `entries` in the game `id`'s log at `versions`, replacing
    /// what is there.
    fn put_log(
        &mut self,
        id: &str,
        versions: std::ops::Range<u64>,
        entries: &[Vec<u8>],
    ) -> Result<(), StoreError>;
    /// Stores `kept` under `key`, a key not stored, as the game `game`'s,
    /// counting it for the game and its `charge` in the bytes kept.
    fn put_kept(
        &mut self,
        key: &str,
        game: &str,
        kept: &Kept,
        charge: u64,
    ) -> Result<(), StoreError>;
    /// How many kept answers the game `game` has, expired ones not yet
    /// purged included.
    fn keys_of(&self, game: &str) -> Result<u64, StoreError>;
    /// The charges of every kept answer stored, as [`Tables::put_kept`]
    /// added them.
    fn kept_bytes(&self) -> Result<u64, StoreError>;
    fn board(&self, board: &str) -> Result<Option<BoardHead>, StoreError>;
    /// How many leaderboards are stored, kept exact as `count` is.
    fn boards(&self) -> Result<u64, StoreError>;
    /// The rank of `player`'s entry on `board`, if it has one.
    fn entry_of(&self, board: &str, player: &str) -> Result<Option<String>, StoreError>;
    /// Whether `board` holds an entry of `rank`.
    fn holds(&self, board: &str, rank: &str) -> Result<bool, StoreError>;
    /// The boards on which `player` has an entry.
    fn boards_of(&self, player: &str) -> Result<Vec<String>, StoreError>;
    /// Stores `entry`, of a rank and a player the board does not hold,
    /// on its board, which now expires at `expires_at_ms`; `replaces` is
    /// the board's expiry before, as in `put_game`.
    fn put_entry(
        &mut self,
        entry: &Entry,
        expires_at_ms: u64,
        replaces: Option<u64>,
    ) -> Result<(), StoreError>;
    /// The rank of the last entry of `board`, the worst.
    fn worst(&self, board: &str) -> Result<Option<String>, StoreError>;
    /// Removes the entry of `rank` from `board`, and its player's link
    /// to it.
    fn remove_entry(&mut self, board: &str, rank: &str) -> Result<(), StoreError>;
    fn player(&self, id: &str) -> Result<Option<StoredPlayer>, StoreError>;
    /// How many players are stored, kept exact as `count` is.
    fn players(&self) -> Result<u64, StoreError>;
    /// The player whose token hashes to `token`, as indexed.
    fn token_owner(&self, token: &[u8]) -> Result<Option<String>, StoreError>;
    /// Stores `player` under `id`; `replaces` as in `put_game`.
    fn put_player(
        &mut self,
        id: &str,
        player: &StoredPlayer,
        replaces: Option<u64>,
    ) -> Result<(), StoreError>;
    fn put_token(&mut self, token: &[u8], id: &str) -> Result<(), StoreError>;
    fn remove_token(&mut self, token: &[u8]) -> Result<(), StoreError>;
    /// Lists the game `id`, created at `created_ms`, among `owner`'s.
    fn own(&mut self, owner: &str, created_ms: u64, id: &str) -> Result<(), StoreError>;
    /// Takes the game `id` out of its owner's list, if it is in one.
    fn unown(&mut self, id: &str) -> Result<(), StoreError>;
    /// The games listed as `owner`'s, each with its creation, expired or
    /// not: at most the games stored.
    fn owned(&self, owner: &str) -> Result<Vec<(u64, String)>, StoreError>;
    fn match_head(&self, id: &str) -> Result<Option<MatchHead>, StoreError>;
    /// How many matches are stored, kept exact as `count` is.
    fn matches(&self) -> Result<u64, StoreError>;
    /// Stores `record` under `id`, with its entry in the due index if it
    /// has one; `replaces` is the record it replaces, whose expiry and due
    /// index entries go.
    fn put_match(
        &mut self,
        id: &str,
        record: &StoredMatch,
        replaces: Option<MatchHead>,
    ) -> Result<(), StoreError>;
    /// The entry of `kind`'s expiry index that expires first.
    fn first_to_expire(&self, kind: Kind) -> Result<Option<(u64, String)>, StoreError>;
    /// Removes the index entry `(expires_at_ms, name)` of `kind`, and the
    /// record it points to (a game with its log and its entry in the
    /// held index, if any; a board with all its entries and their players'
    /// links; a kept answer with its counts; a player alone; a match with
    /// its due index entry). What else goes with it is [`remove`]'s.
    fn remove(&mut self, kind: Kind, expires_at_ms: u64, name: &str) -> Result<(), StoreError>;
    /// When the game `id` was marked finished, if it is marked.
    fn finished(&self, id: &str) -> Result<Option<u64>, StoreError>;
    /// Marks the game `id`, not marked, as finished at `finished_ms`.
    fn mark(&mut self, id: &str, finished_ms: u64) -> Result<(), StoreError>;
    /// Clears the game `id`'s mark, if it has one.
    fn unmark(&mut self, id: &str) -> Result<(), StoreError>;
    /// Moves the game `id`'s entry `(expires_at_ms, id)` from the games'
    /// expiry index to the held index; the game stays, and counts.
    fn hold(&mut self, id: &str, expires_at_ms: u64) -> Result<(), StoreError>;
    /// Moves the game `id`'s entry back from the held index to the expiry
    /// index, if it is held.
    fn release(&mut self, id: &str, expires_at_ms: u64) -> Result<(), StoreError>;
    /// The entry of the held index that expired first.
    fn first_held(&self) -> Result<Option<(u64, String)>, StoreError>;
}

/// Applies one write: the key first (a kept answer is replayed whatever
/// the version), then the version, then the bounds on games, on the
/// owner's games and on keys; the game, its place in its owner's list,
/// the key and the entry are stored only when all pass.
pub(crate) fn apply(
    tables: &mut impl Tables,
    write: &Write,
    now_ms: u64,
    limits: &StoreLimits,
) -> Result<Outcome, StoreError> {
    if let Some((key, _)) = &write.key
        && let Some(kept) = live_kept(tables, key, now_ms)?
    {
        return Ok(Outcome::Replayed(kept));
    }
    let stored = tables.head(&write.id)?;
    let current = stored
        .filter(|head| live(head.expires_at_ms, now_ms))
        .map(|head| head.version);
    let expected = write.expected.version();
    if current != expected {
        return Ok(Outcome::Stale { current });
    }
    // A create over an expired game that waits for its archive copy.
    if write.expected == Expected::Absent
        && stored.is_some()
        && archive::kept(tables, &write.id, limits)?
    {
        return Ok(Outcome::Stale { current: None });
    }
    // Only a new id adds a game; one that replaces an expired game does
    // not. An expired game never counts, unless held for the archive: a
    // full store deletes one first.
    if stored.is_none()
        && tables.count()? >= limits.max_games
        && !make_room(tables, Kind::Game, now_ms, limits, |tables| {
            Ok(tables.count()? < limits.max_games)
        })?
    {
        return Ok(Outcome::Full);
    }
    let owner = match write.expected {
        Expected::Absent => write.owner.as_deref(),
        Expected::Version(_) => None,
    };
    if let Some(owner) = owner
        && live_owned(tables, owner, now_ms)? >= limits.max_games_per_player
    {
        return Ok(Outcome::PlayerFull);
    }
    if let Some((key, kept)) = &write.key
        && let Some(bound) = over_bound(tables, &write.id, key, kept, now_ms, limits)?
    {
        return Ok(Outcome::TooManyKeys(bound));
    }
    // A create starts a new log: an expired game's under the same id goes
    // with it.
    let replaces = match (write.expected, stored) {
        (Expected::Absent, Some(expired)) => {
            remove(tables, Kind::Game, expired.expires_at_ms, &write.id)?;
            None
        }
        (_, stored) => stored.map(|head| head.expires_at_ms),
    };
    tables.put_game(&write.id, &write.game, replaces)?;
    if write.finished && tables.finished(&write.id)?.is_none() {
        tables.mark(&write.id, now_ms)?;
    }
    if let Some(owner) = owner {
        tables.own(owner, now_ms, &write.id)?;
    }
    if !write.log.is_empty() {
        tables.put_log(&write.id, write.log_versions(), &write.log)?;
    }
    if let Some((key, kept)) = &write.key {
        tables.put_kept(key, &write.id, kept, kept_charge(key, kept))?;
    }
    if let Some(entry) = &write.entry {
        enter(tables, entry, now_ms, limits)?;
    }
    Ok(Outcome::Written)
}

/// Applies one match's write: the key first (a kept answer is replayed
/// whatever the version), then the match's version, then the bound on
/// matches, then each player's version, then the bound on keys; the
/// match, its due index entry, its players and the key are stored only
/// when all pass.
pub(crate) fn apply_match(
    tables: &mut impl Tables,
    write: &MatchWrite,
    now_ms: u64,
    limits: &StoreLimits,
) -> Result<MatchOutcome, StoreError> {
    if let Some((key, _)) = &write.key
        && let Some(kept) = live_kept(tables, key, now_ms)?
    {
        return Ok(MatchOutcome::Replayed(kept));
    }
    let stored = tables.match_head(&write.id)?;
    let current = stored
        .filter(|head| live(head.expires_at_ms, now_ms))
        .map(|head| head.version);
    let expected = write.expected.version();
    if current != expected {
        return Ok(MatchOutcome::Stale { current });
    }
    if stored.is_none()
        && tables.matches()? >= limits.max_matches
        && !make_room(tables, Kind::Match, now_ms, limits, |tables| {
            Ok(tables.matches()? < limits.max_matches)
        })?
    {
        return Ok(MatchOutcome::Full);
    }
    for player in &write.players {
        if let Some(refusal) = player_refusal(tables, player, now_ms)? {
            return Ok(refusal);
        }
    }
    if let Some((key, kept)) = &write.key
        && let Some(bound) = over_bound(tables, &write.id, key, kept, now_ms, limits)?
    {
        return Ok(MatchOutcome::TooManyKeys(bound));
    }
    let replaces = match (write.expected, stored) {
        (Expected::Absent, Some(expired)) => {
            remove(tables, Kind::Match, expired.expires_at_ms, &write.id)?;
            None
        }
        (_, stored) => stored,
    };
    tables.put_match(&write.id, &write.record, replaces)?;
    for player in &write.players {
        // Checked above, with nothing changed since but expired records
        // gone: a refusal here is the rules disagreeing with themselves.
        let outcome = apply_player(tables, player, now_ms, limits)?;
        if outcome != PlayerOutcome::Written {
            return Err(StoreError::Unavailable(format!(
                "match `{}`: player `{}` was refused ({outcome:?}) after its checks passed",
                write.id, player.id
            )));
        }
    }
    if let Some((key, kept)) = &write.key {
        tables.put_kept(key, &write.id, kept, kept_charge(key, kept))?;
    }
    Ok(MatchOutcome::Written)
}

/// Why a player's write within a match's would be refused, checked as
/// [`apply_player`] checks a change of a stored player, changing nothing
/// but expired records: [`MatchOutcome::PlayerStale`], or an error for a
/// token's hash another live player holds.
fn player_refusal(
    tables: &mut impl Tables,
    write: &PlayerWrite,
    now_ms: u64,
) -> Result<Option<MatchOutcome>, StoreError> {
    let current = tables
        .player(&write.id)?
        .filter(|player| live(player.expires_at_ms, now_ms))
        .map(|player| player.version);
    let expected = write.expected.version();
    if current != expected {
        return Ok(Some(MatchOutcome::PlayerStale {
            id: write.id.clone(),
            current,
        }));
    }
    if let Some(token) = &write.player.token
        && let Some(holder) = tables.token_owner(token)?
        && holder != write.id
        && let Some(other) = tables.player(&holder)?
    {
        if live(other.expires_at_ms, now_ms) {
            return Err(StoreError::InvalidWrite(format!(
                "player `{}`: its token's hash is another live player's",
                write.id
            )));
        }
        remove(tables, Kind::Player, other.expires_at_ms, &holder)?;
    }
    Ok(None)
}

/// Keeps a refusal's answer under its key, unless the key holds a live
/// answer or a bound is reached; no game changes.
pub(crate) fn keep(
    tables: &mut impl Tables,
    keep: &Keep,
    now_ms: u64,
    limits: &StoreLimits,
) -> Result<Outcome, StoreError> {
    if let Some(kept) = live_kept(tables, &keep.key, now_ms)? {
        return Ok(Outcome::Replayed(kept));
    }
    if let Some(bound) = over_bound(tables, &keep.game, &keep.key, &keep.kept, now_ms, limits)? {
        return Ok(Outcome::TooManyKeys(bound));
    }
    let charge = kept_charge(&keep.key, &keep.kept);
    tables.put_kept(&keep.key, &keep.game, &keep.kept, charge)?;
    Ok(Outcome::Written)
}

/// The live answer kept under `key`. An expired one still stored is
/// deleted, so that the key is new again and its counts are right.
fn live_kept(tables: &mut impl Tables, key: &str, now_ms: u64) -> Result<Option<Kept>, StoreError> {
    match tables.kept(key)? {
        Some(kept) if live(kept.expires_at_ms, now_ms) => Ok(Some(kept)),
        Some(expired) => {
            remove(tables, Kind::Key, expired.expires_at_ms, key)?;
            Ok(None)
        }
        None => Ok(None),
    }
}

/// The bound a new key's answer would pass, if any. Expired answers are
/// deleted to make room in the bytes; a game's count is what it is until
/// the purge takes its expired answers.
fn over_bound(
    tables: &mut impl Tables,
    game: &str,
    key: &str,
    kept: &Kept,
    now_ms: u64,
    limits: &StoreLimits,
) -> Result<Option<KeyBound>, StoreError> {
    if tables.keys_of(game)? >= limits.max_keys_per_game {
        return Ok(Some(KeyBound::Game));
    }
    let charge = kept_charge(key, kept);
    let fits = |tables: &mut _| -> Result<bool, StoreError> {
        Ok(Tables::kept_bytes(tables)?.saturating_add(charge) <= limits.max_kept_bytes)
    };
    if !fits(tables)? && !make_room(tables, Kind::Key, now_ms, limits, fits)? {
        return Ok(Some(KeyBound::Store));
    }
    Ok(None)
}

/// Deletes expired records of `kind`, the first to expire first, until
/// `enough` says so (at most [`MAKE_ROOM`] taken); whether it did. A game
/// kept for the archive is held instead, which makes no room.
fn make_room<T: Tables>(
    tables: &mut T,
    kind: Kind,
    now_ms: u64,
    limits: &StoreLimits,
    mut enough: impl FnMut(&mut T) -> Result<bool, StoreError>,
) -> Result<bool, StoreError> {
    for _ in 0..MAKE_ROOM {
        let Some((expires_at_ms, name)) = next_expired(tables, kind, now_ms, limits)? else {
            return Ok(false);
        };
        let taken = match kind {
            Kind::Game => archive::take(tables, expires_at_ms, &name, limits)?,
            _ => {
                remove(tables, kind, expires_at_ms, &name)?;
                Taken::Removed
            }
        };
        if taken == Taken::Removed && enough(tables)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The next expired record of `kind` a purge or a bound takes, the first
/// to expire first: for games, as `rules/archive.rs` walks them.
fn next_expired(
    tables: &impl Tables,
    kind: Kind,
    now_ms: u64,
    limits: &StoreLimits,
) -> Result<Option<(u64, String)>, StoreError> {
    if kind == Kind::Game {
        return archive::next_expired(tables, now_ms, limits);
    }
    Ok(tables
        .first_to_expire(kind)?
        .filter(|(expires_at_ms, _)| !live(*expires_at_ms, now_ms)))
}

/// Puts `entry` on its board, keeping the board's best `board_size`,
/// one a player. An expired board still stored is emptied first; a new
/// board past `max_boards` is not made, and the entry left out. A player's
/// entry is replaced by a better one only; an entry of the same rank goes,
/// whoever its player.
fn enter(
    tables: &mut impl Tables,
    entry: &Entry,
    now_ms: u64,
    limits: &StoreLimits,
) -> Result<(), StoreError> {
    let mut head = tables.board(&entry.board)?;
    if let Some(expired) = head.filter(|head| !live(head.expires_at_ms, now_ms)) {
        remove(tables, Kind::Board, expired.expires_at_ms, &entry.board)?;
        head = None;
    }
    if head.is_none() && tables.boards()? >= limits.max_boards {
        return Ok(());
    }
    let mut entries = head.map_or(0, |head| head.entries);
    if let Some(rank) = tables.entry_of(&entry.board, &entry.player)? {
        if entry.rank >= rank {
            return Ok(());
        }
        tables.remove_entry(&entry.board, &rank)?;
        entries -= 1;
    }
    if tables.holds(&entry.board, &entry.rank)? {
        tables.remove_entry(&entry.board, &entry.rank)?;
        entries -= 1;
    }
    let expires_at_ms = head.map_or(entry.expires_at_ms, |head| {
        head.expires_at_ms.max(entry.expires_at_ms)
    });
    tables.put_entry(entry, expires_at_ms, head.map(|head| head.expires_at_ms))?;
    if entries + 1 > limits.board_size
        && let Some(worst) = tables.worst(&entry.board)?
    {
        tables.remove_entry(&entry.board, &worst)?;
    }
    Ok(())
}

/// How many of the games listed as `owner`'s are live.
fn live_owned(tables: &impl Tables, owner: &str, now_ms: u64) -> Result<u64, StoreError> {
    let mut count = 0;
    for (_, id) in tables.owned(owner)? {
        if tables
            .head(&id)?
            .is_some_and(|head| live(head.expires_at_ms, now_ms))
        {
            count += 1;
        }
    }
    Ok(count)
}

/// Applies one player's write: the version first, then the bound on
/// players, then the token's hash; the player and its hash are stored
/// only when all pass. A hash indexed for an expired player erases that
/// player, as a purge would; for a live one it is [`PlayerOutcome::TokenTaken`].
pub(crate) fn apply_player(
    tables: &mut impl Tables,
    write: &PlayerWrite,
    now_ms: u64,
    limits: &StoreLimits,
) -> Result<PlayerOutcome, StoreError> {
    let stored = tables.player(&write.id)?;
    let current = stored
        .as_ref()
        .filter(|player| live(player.expires_at_ms, now_ms))
        .map(|player| player.version);
    let expected = write.expected.version();
    if current != expected {
        return Ok(PlayerOutcome::Stale { current });
    }
    if stored.is_none()
        && tables.players()? >= limits.max_players
        && !make_room(tables, Kind::Player, now_ms, limits, |tables| {
            Ok(tables.players()? < limits.max_players)
        })?
    {
        return Ok(PlayerOutcome::Full);
    }
    if let Some(token) = &write.player.token
        && let Some(holder) = tables.token_owner(token)?
        && holder != write.id
        && let Some(other) = tables.player(&holder)?
    {
        if live(other.expires_at_ms, now_ms) {
            return Ok(PlayerOutcome::TokenTaken);
        }
        remove(tables, Kind::Player, other.expires_at_ms, &holder)?;
    }
    let replaces = match (write.expected, stored) {
        (Expected::Absent, Some(expired)) => {
            remove(tables, Kind::Player, expired.expires_at_ms, &write.id)?;
            None
        }
        (_, Some(stored)) => {
            if let Some(old) = stored
                .token
                .filter(|old| write.player.token.as_ref() != Some(old))
            {
                untoken(tables, &old, &write.id)?;
            }
            Some(stored.expires_at_ms)
        }
        (_, None) => None,
    };
    tables.put_player(&write.id, &write.player, replaces)?;
    if let Some(token) = &write.player.token {
        tables.put_token(token, &write.id)?;
    }
    Ok(PlayerOutcome::Written)
}

/// Erases the live player `id` at version `expected`, with all that goes
/// with it.
pub(crate) fn erase_player(
    tables: &mut impl Tables,
    id: &str,
    expected: u64,
    now_ms: u64,
) -> Result<PlayerOutcome, StoreError> {
    let stored = tables.player(id)?;
    let live_player = stored
        .as_ref()
        .filter(|player| live(player.expires_at_ms, now_ms));
    match live_player {
        Some(player) if player.version == expected => {
            remove(tables, Kind::Player, player.expires_at_ms, id)?;
            Ok(PlayerOutcome::Written)
        }
        _ => Ok(PlayerOutcome::Stale {
            current: live_player.map(|player| player.version),
        }),
    }
}

/// Removes `token`'s entry in the index if it is `id`'s: an entry
/// another player took over stays.
fn untoken(tables: &mut impl Tables, token: &[u8], id: &str) -> Result<(), StoreError> {
    if tables.token_owner(token)?.as_deref() == Some(id) {
        tables.remove_token(token)?;
    }
    Ok(())
}

/// Removes the record `name` of `kind`, its index entry, and what goes
/// with it (see the module's documentation).
fn remove(
    tables: &mut impl Tables,
    kind: Kind,
    expires_at_ms: u64,
    name: &str,
) -> Result<(), StoreError> {
    match kind {
        Kind::Game => {
            tables.unown(name)?;
            tables.unmark(name)?;
        }
        Kind::Player => {
            if let Some(token) = tables.player(name)?.and_then(|player| player.token) {
                untoken(tables, &token, name)?;
            }
            for board in tables.boards_of(name)? {
                if let Some(rank) = tables.entry_of(&board, name)? {
                    tables.remove_entry(&board, &rank)?;
                }
            }
            for (_, game) in tables.owned(name)? {
                tables.unown(&game)?;
            }
        }
        Kind::Key | Kind::Board | Kind::Match => {}
    }
    tables.remove(kind, expires_at_ms, name)
}

/// Deletes what expired by `now_ms`, those that expired first first, at
/// most `at_most` games (deleted and held in all: `rules/archive.rs`),
/// `at_most` keys, `at_most` boards, `at_most` players and `at_most`
/// matches.
pub(crate) fn purge(
    tables: &mut impl Tables,
    now_ms: u64,
    at_most: usize,
    limits: &StoreLimits,
) -> Result<Purged, StoreError> {
    let (games, held) = archive::purge_games(tables, now_ms, at_most, limits)?;
    Ok(Purged {
        games,
        held,
        keys: purge_kind(tables, Kind::Key, now_ms, at_most, limits)?,
        boards: purge_kind(tables, Kind::Board, now_ms, at_most, limits)?,
        players: purge_kind(tables, Kind::Player, now_ms, at_most, limits)?,
        matches: purge_kind(tables, Kind::Match, now_ms, at_most, limits)?,
    })
}

fn purge_kind(
    tables: &mut impl Tables,
    kind: Kind,
    now_ms: u64,
    at_most: usize,
    limits: &StoreLimits,
) -> Result<usize, StoreError> {
    let mut purged = 0;
    while purged < at_most {
        let Some((expires_at_ms, name)) = next_expired(tables, kind, now_ms, limits)? else {
            break;
        };
        remove(tables, kind, expires_at_ms, &name)?;
        purged += 1;
    }
    Ok(purged)
}
