//! The store's rules, written once for every backend that can run them
//! inside its own transaction: what a write checks and in which order,
//! what expiry means, what goes with a record that goes, and how a purge
//! walks the expiry indexes. A backend gives [`Tables`], the few reads and
//! writes the rules need, over its maps or its open transaction. Redis
//! holds no transaction open across calls, so it runs the same rules as
//! Lua scripts (`redis_store/write.lua`, `player_write.lua`,
//! `player_erase.lua`, `match_write.lua`, `purge.lua`, with
//! `common.lua`): a change here is
//! made there too, and the cases of `tests/store/` run on every backend.
//!
//! What goes with a record ([`remove`]): a game takes its log and its
//! entry in its owner's index; a board its entries; a player its token's
//! hash, its entries on every board and the index of its games (the games
//! stay); a match its entry in the due index.

use crate::player::TOKEN_BYTES;
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
#[derive(Debug, Clone, Copy)]
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
    /// record it points to (a game with its log; a board with all its
    /// entries and their players' links; a kept answer with its counts; a
    /// player alone; a match with its due index entry). What else goes with it is [`remove`]'s.
    fn remove(&mut self, kind: Kind, expires_at_ms: u64, name: &str) -> Result<(), StoreError>;
}

/// Refuses a write whose new version does not follow the expected one.
pub(crate) fn check(write: &Write) -> Result<(), StoreError> {
    let follows = match write.expected {
        Expected::Absent => Some(0),
        Expected::Version(version) => version.checked_add(1),
    };
    match follows {
        Some(_) if write.log.len() as u64 > write.game.version.saturating_add(1) => {
            Err(StoreError::InvalidWrite(format!(
                "game `{}`: a write of version {} appends {} log entries, more than its versions",
                write.id,
                write.game.version,
                write.log.len()
            )))
        }
        Some(version) if version == write.game.version => Ok(()),
        Some(version) => Err(StoreError::InvalidWrite(format!(
            "game `{}`: a write expecting {:?} stores version {version}, not {}",
            write.id, write.expected, write.game.version
        ))),
        None => Err(StoreError::InvalidWrite(format!(
            "game `{}`: version {} is the last a game can have",
            write.id,
            u64::MAX
        ))),
    }
}

/// Refuses a player's write whose new version does not follow the
/// expected one, or whose token's hash is not SHA-256's length.
pub(crate) fn check_player(write: &PlayerWrite) -> Result<(), StoreError> {
    let follows = match write.expected {
        Expected::Absent => Some(0),
        Expected::Version(version) => version.checked_add(1),
    };
    if let Some(token) = &write.player.token
        && token.len() != TOKEN_BYTES
    {
        return Err(StoreError::InvalidWrite(format!(
            "player `{}`: a token's hash of {} bytes, not SHA-256's {TOKEN_BYTES}",
            write.id,
            token.len()
        )));
    }
    match follows {
        Some(version) if version == write.player.version => Ok(()),
        Some(version) => Err(StoreError::InvalidWrite(format!(
            "player `{}`: a write expecting {:?} stores version {version}, not {}",
            write.id, write.expected, write.player.version
        ))),
        None => Err(StoreError::InvalidWrite(format!(
            "player `{}`: version {} is the last a player can have",
            write.id,
            u64::MAX
        ))),
    }
}

/// Refuses a match's write whose new version does not follow the
/// expected one, or whose players are not each a change of a stored
/// player, once, each valid as [`check_player`] says. A token's hash
/// given to two of them is refused too: one hash finds one player.
pub(crate) fn check_match(write: &MatchWrite) -> Result<(), StoreError> {
    let follows = match write.expected {
        Expected::Absent => Some(0),
        Expected::Version(version) => version.checked_add(1),
    };
    match follows {
        Some(version) if version == write.record.version => {}
        Some(version) => {
            return Err(StoreError::InvalidWrite(format!(
                "match `{}`: a write expecting {:?} stores version {version}, not {}",
                write.id, write.expected, write.record.version
            )));
        }
        None => {
            return Err(StoreError::InvalidWrite(format!(
                "match `{}`: version {} is the last a match can have",
                write.id,
                u64::MAX
            )));
        }
    }
    for (i, player) in write.players.iter().enumerate() {
        check_player(player)?;
        if player.expected == Expected::Absent {
            return Err(StoreError::InvalidWrite(format!(
                "match `{}`: player `{}` would be created with it; a match changes stored players",
                write.id, player.id
            )));
        }
        let earlier = &write.players[..i];
        if earlier.iter().any(|other| other.id == player.id) {
            return Err(StoreError::InvalidWrite(format!(
                "match `{}`: player `{}` is written twice",
                write.id, player.id
            )));
        }
        if player.player.token.is_some()
            && earlier
                .iter()
                .any(|other| other.player.token == player.player.token)
        {
            return Err(StoreError::InvalidWrite(format!(
                "match `{}`: players `{}` and another are given one token's hash",
                write.id, player.id
            )));
        }
    }
    Ok(())
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
    // Only a new id adds a game; one that replaces an expired game does
    // not. An expired game never counts: a full store deletes one first.
    if stored.is_none()
        && tables.count()? >= limits.max_games
        && !make_room(tables, Kind::Game, now_ms, |tables| {
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
        && !make_room(tables, Kind::Match, now_ms, |tables| {
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
    if !fits(tables)? && !make_room(tables, Kind::Key, now_ms, fits)? {
        return Ok(Some(KeyBound::Store));
    }
    Ok(None)
}

/// Deletes expired records of `kind`, the first to expire first, until
/// `enough` says so (at most [`MAKE_ROOM`]); whether it did.
fn make_room<T: Tables>(
    tables: &mut T,
    kind: Kind,
    now_ms: u64,
    mut enough: impl FnMut(&mut T) -> Result<bool, StoreError>,
) -> Result<bool, StoreError> {
    for _ in 0..MAKE_ROOM {
        match tables.first_to_expire(kind)? {
            Some((expires_at_ms, name)) if !live(expires_at_ms, now_ms) => {
                remove(tables, kind, expires_at_ms, &name)?;
                if enough(tables)? {
                    return Ok(true);
                }
            }
            _ => return Ok(false),
        }
    }
    Ok(false)
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
        && !make_room(tables, Kind::Player, now_ms, |tables| {
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
        Kind::Game => tables.unown(name)?,
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
/// most `at_most` games, `at_most` keys, `at_most` boards, `at_most`
/// players and `at_most` matches.
pub(crate) fn purge(
    tables: &mut impl Tables,
    now_ms: u64,
    at_most: usize,
) -> Result<Purged, StoreError> {
    Ok(Purged {
        games: purge_kind(tables, Kind::Game, now_ms, at_most)?,
        keys: purge_kind(tables, Kind::Key, now_ms, at_most)?,
        boards: purge_kind(tables, Kind::Board, now_ms, at_most)?,
        players: purge_kind(tables, Kind::Player, now_ms, at_most)?,
        matches: purge_kind(tables, Kind::Match, now_ms, at_most)?,
    })
}

fn purge_kind(
    tables: &mut impl Tables,
    kind: Kind,
    now_ms: u64,
    at_most: usize,
) -> Result<usize, StoreError> {
    let mut purged = 0;
    while purged < at_most {
        match tables.first_to_expire(kind)? {
            Some((expires_at_ms, name)) if !live(expires_at_ms, now_ms) => {
                remove(tables, kind, expires_at_ms, &name)?;
                purged += 1;
            }
            _ => break,
        }
    }
    Ok(purged)
}
