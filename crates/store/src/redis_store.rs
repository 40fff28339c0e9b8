//! The store in a Redis server, so that several replicas of the service
//! share their games: any replica can serve any game.
//!
//! Each game is a hash (`v` version, `e` expiry, `b` body) under
//! `PREFIX:game:{ID}`, each kept answer a hash (`e`, `f` fingerprint, `a`
//! answer) under `PREFIX:kept:{KEY}`. Two sorted sets, `PREFIX:game-expiry`
//! and `PREFIX:kept-expiry`, index them by expiry, as the file's expiry
//! tables do: a purge reads the first to expire first, and the game index's
//! size is the count that `max_games` bounds, exact because only the
//! scripts add to it and take from it. A kept answer's game and charge are
//! in the hash `PREFIX:kept-owners` (`CHARGE GAME`), a game's count of
//! answers in the hash `PREFIX:game-keys`, and the charges of all in
//! `PREFIX:kept-bytes`; none of them has a TTL, so the counts stay right
//! when Redis drops an expired answer by its TTL before a purge.
//!
//! A write is one Lua script (`redis_store/write.lua`) that runs the rules of
//! `rules.rs`: Redis runs a script alone, so the check and the change are
//! one step, and a script that fails stops before its first change
//! (its checks come first). Keeping a refusal's answer (`keep.lua`) and a
//! purge (`purge.lua`) are scripts too, each after `common.lua`, which
//! reads their named arguments and holds what they share. Reads are
//! single commands.
//!
//! Time stays the caller's: liveness is decided by `now_ms` against the
//! stored expiry, as in the other backends. Redis's own TTLs are only a
//! backstop for records no purge reaches (every replica stopped): each
//! record lives in Redis for what is left of its life by the caller's
//! clock plus [`BACKSTOP_GRACE_MS`], measured on Redis's clock from the
//! write, so clocks that disagree cannot cut a live game short.
//!
//! A leaderboard is a hash `PREFIX:board:{NAME}` (`e`, its expiry), a
//! sorted set `PREFIX:ranks:{NAME}` of its entries' ranks (all of score
//! 0, so they sort by their bytes), a hash `PREFIX:entries:{NAME}`
//! from rank to entry, and the hashes `PREFIX:entry-players:{NAME}` (rank
//! to player) and `PREFIX:board-players:{NAME}` (player to rank), all
//! expiring with the board; `PREFIX:board-expiry` indexes boards as games
//! are. The write script enters a won game in the same step as the move
//! that won it. A page of a board is read by `board.lua`.
//!
//! A player is a hash `PREFIX:player:{ID}` (`v`, `e`, `t` its token's
//! hash if it has one, `b`), indexed by expiry in `PREFIX:player-expiry`
//! and by its token's hash in `PREFIX:token-players` (hash to id), with
//! `PREFIX:player-tokens` (id to hash) beside it, so that a player
//! dropped by its TTL before a purge still takes its hash out. The boards
//! a player has an entry on are the set `PREFIX:player-boards:{ID}`; its
//! games the sorted set `PREFIX:player-games:{ID}` (`CREATED ID`, all of
//! score 0), each owned game's owner and creation in the hash
//! `PREFIX:game-owners`. A player's two sets live as long as the longest
//! of the player and the boards or games they list; the four hashes of
//! ids have no TTL, and lose each entry with what it names. Writes and
//! erases of players are `player_write.lua` and `player_erase.lua`.
//!
//! Matches are `redis_store/matches.rs`'s: a hash each, an expiry index
//! and a due index, written with their players by `match_write.lua`.
//!
//! A game's mark for the archive is its member in the sorted set
//! `PREFIX:unarchived`, scored by its finish. A game held for the archive
//! past its expiry has its entry moved from `PREFIX:game-expiry` to
//! `PREFIX:game-held`, scored alike, and its record and log no TTL while
//! kept for the archive: they leave once archived (`redis_store/archive.rs`).
//!
//! The script also publishes each change (`VERSION ID`) on
//! `PREFIX:changes`, in commit order: a process that follows the store
//! hears what other processes wrote, so that its event streams carry it.
//! Pub/sub keeps nothing for a listener that is away: after subscribing
//! again the feed says [`Feed::Resumed`], and its listener reads again what
//! it follows.
//!
//! The scripts touch a game's record, its key's answer, a board, a
//! player's records and the indexes;
//! Redis Cluster runs a script only on keys of one hash slot, so this
//! store needs one Redis primary, not a Cluster. The braces around ids
//! and keys are hash tags all the same, so that a later layout per slot
//! keeps the names.

mod archive;
mod heartbeat;
mod matches;
mod names;
mod players;
mod seeks;

use std::ops::Range;
use std::sync::OnceLock;
use std::time::Duration;

use futures_util::StreamExt;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, FromRedisValue, RedisError, Script, ScriptInvocation, ToRedisArgs};
use tokio::sync::{OnceCell, broadcast, watch};

use crate::rules::live;
use crate::spec::RedisSpec;
use crate::{
    Expected, Feed, Keep, Kept, KeyBound, Outcome, Purged, StoreError, StoreLimits, StoredGame,
    Write, kept_charge,
};
use names::Names;

/// How long Redis keeps a record past its expiry, unless a purge deletes
/// it first: longer than any call takes, so a record the rules still see
/// live is never gone.
const BACKSTOP_GRACE_MS: u64 = 60_000;

/// The longest TTL given to Redis: far past any game's life, and far from
/// where Redis refuses a TTL as out of range.
const MAX_TTL_MS: u64 = 100 * 365 * 24 * 3_600_000;

/// Tries at connecting before a call answers that Redis is unreachable;
/// the next call tries again.
const CONNECT_RETRIES: usize = 1;

/// Changes heard but not yet taken by a slow listener before it is told
/// it fell behind (and reads again what it follows).
const FEED_BEHIND: usize = 1024;

/// The shortest heartbeat of the changes connection: a zero in the limits
/// would make the interval's timer panic.
const MIN_HEARTBEAT: Duration = Duration::from_millis(1);

/// The wait before subscribing again after a failure, doubled after each
/// one up to five seconds.
const RETRY_AT_FIRST: Duration = Duration::from_millis(100);
const RETRY_AT_MOST: Duration = Duration::from_secs(5);

pub(crate) struct RedisStore {
    client: Client,
    /// Made on the first call, inside the runtime that serves (opening
    /// may happen before there is one); from then on it reconnects by
    /// itself.
    connection: OnceCell<ConnectionManager>,
    names: Names,
    limits: StoreLimits,
    write_script: Script,
    keep_script: Script,
    purge_script: Script,
    log_script: Script,
    player_write_script: Script,
    player_erase_script: Script,
    board_script: Script,
    player_token_script: Script,
    player_games_script: Script,
    match_write_script: Script,
    due_script: Script,
    seek_script: Script,
    seated_script: Script,
    pair_script: Script,
    unseek_script: Script,
    archived_script: Script,
    /// The changes heard on the channel, once a caller asks for them.
    feed: OnceLock<Listening>,
    /// The heartbeats of the changes connection Redis has answered.
    heartbeats: watch::Sender<u64>,
}

/// The task that listens to the changes channel, stopped with the store.
struct Listening {
    changes: broadcast::Sender<Feed>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for RedisStore {
    fn drop(&mut self) {
        if let Some(listening) = self.feed.get() {
            listening.task.abort();
        }
    }
}

impl RedisStore {
    /// Connects nothing yet: a Redis that is down at start makes calls
    /// fail until it is up, not the start itself.
    pub(crate) fn open(spec: &RedisSpec, limits: StoreLimits) -> Result<RedisStore, StoreError> {
        let client = Client::open(spec.url.as_str())
            .map_err(|err| StoreError::Unavailable(format!("cannot use Redis at {spec}: {err}")))?;
        Ok(RedisStore {
            client,
            connection: OnceCell::new(),
            names: Names {
                prefix: spec.prefix.clone(),
            },
            limits,
            write_script: with_common(include_str!("redis_store/write.lua")),
            keep_script: with_common(include_str!("redis_store/keep.lua")),
            purge_script: with_common(include_str!("redis_store/purge.lua")),
            log_script: Script::new(include_str!("redis_store/log.lua")),
            player_write_script: with_common(include_str!("redis_store/player_write.lua")),
            player_erase_script: with_common(include_str!("redis_store/player_erase.lua")),
            board_script: Script::new(include_str!("redis_store/board.lua")),
            player_token_script: Script::new(include_str!("redis_store/player_token.lua")),
            player_games_script: Script::new(include_str!("redis_store/player_games.lua")),
            match_write_script: with_common(include_str!("redis_store/match_write.lua")),
            due_script: Script::new(include_str!("redis_store/due.lua")),
            seek_script: Script::new(include_str!("redis_store/seek.lua")),
            seated_script: Script::new(include_str!("redis_store/seek_seated.lua")),
            pair_script: Script::new(include_str!("redis_store/seek_pair.lua")),
            unseek_script: Script::new(include_str!("redis_store/seek_remove.lua")),
            archived_script: with_common(include_str!("redis_store/archived.lua")),
            feed: OnceLock::new(),
            heartbeats: watch::channel(0).0,
        })
    }

    pub(crate) async fn game(
        &self,
        id: &str,
        now_ms: u64,
    ) -> Result<Option<StoredGame>, StoreError> {
        let fields: GameFields = redis::cmd("HMGET")
            .arg(self.names.game(id))
            .arg(&["v", "e", "b"])
            .query_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        let game = stored_game(id, fields)?;
        Ok(game.filter(|game| live(game.expires_at_ms, now_ms)))
    }

    pub(crate) async fn log(
        &self,
        id: &str,
        versions: Range<u64>,
        now_ms: u64,
    ) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        if versions.is_empty() {
            return Ok(Vec::new());
        }
        let found: Vec<(String, Vec<u8>)> = self
            .log_script
            .key(self.names.game(id))
            .key(self.names.log(id))
            .arg(padded(now_ms))
            .arg(versions.start)
            .arg(versions.end)
            .invoke_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        found
            .into_iter()
            .map(|(version, entry)| Ok((number(&version, || format!("game `{id}`'s log"))?, entry)))
            .collect()
    }

    pub(crate) async fn kept(&self, key: &str, now_ms: u64) -> Result<Option<Kept>, StoreError> {
        let fields: (Option<String>, Option<Vec<u8>>, Option<Vec<u8>>) = redis::cmd("HMGET")
            .arg(self.names.kept(key))
            .arg("e")
            .arg("f")
            .arg("a")
            .query_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        let kept = match fields {
            (None, None, None) => return Ok(None),
            (Some(expires_at_ms), Some(fingerprint), Some(answer)) => Kept {
                fingerprint,
                answer,
                expires_at_ms: number(&expires_at_ms, || format!("the answer kept under `{key}`"))?,
            },
            _ => {
                return Err(StoreError::Corrupted(format!(
                    "the answer kept under `{key}` lacks some of its fields"
                )));
            }
        };
        Ok(Some(kept).filter(|kept| live(kept.expires_at_ms, now_ms)))
    }

    pub(crate) async fn write(&self, write: &Write, now_ms: u64) -> Result<Outcome, StoreError> {
        let game = &write.game;
        let expected = match write.expected {
            Expected::Absent => String::new(),
            Expected::Version(version) => padded(version),
        };
        let mut call = self.call(&self.write_script, now_ms);
        call.key("game", self.names.game(&write.id))
            .key("log", self.names.log(&write.id))
            .arg("channel", self.names.changes())
            .arg("id", &write.id)
            .arg("expected", expected)
            .arg("max_games", self.limits.max_games)
            .arg("max_games_per_player", self.limits.max_games_per_player)
            .arg("version", padded(game.version))
            .arg("expires", padded(game.expires_at_ms))
            .arg("score", game.expires_at_ms)
            .arg("ttl", ttl(game.expires_at_ms, now_ms))
            .arg("body", &game.body);
        if write.finished {
            call.arg("finished", "1");
        }
        if let Some(owner) = &write.owner {
            call.arg("owner", owner);
        }
        for (version, entry) in write.log_versions().zip(&write.log) {
            call.arg("logged_version", version).arg("logged", entry);
        }
        if let Some((key, kept)) = &write.key {
            self.kept_args(&mut call, key, kept, now_ms);
        }
        if let Some(entry) = &write.entry {
            call.arg("board_name", &entry.board)
                .arg("player", &entry.player)
                .arg("rank", &entry.rank)
                .arg("entry", &entry.body)
                .arg("board_expires", padded(entry.expires_at_ms))
                .arg("board_score", entry.expires_at_ms)
                .arg("board_ttl", ttl(entry.expires_at_ms, now_ms))
                .arg("board_size", self.limits.board_size)
                .arg("max_boards", self.limits.max_boards);
        }
        let reply = call.invoke(&mut self.connection().await?).await;
        outcome(&write.id, reply.map_err(failed)?)
    }

    pub(crate) async fn keep(&self, keep: &Keep, now_ms: u64) -> Result<Outcome, StoreError> {
        let mut call = self.call(&self.keep_script, now_ms);
        call.arg("id", &keep.game);
        self.kept_args(&mut call, &keep.key, &keep.kept, now_ms);
        let reply = call.invoke(&mut self.connection().await?).await;
        outcome(&keep.game, reply.map_err(failed)?)
    }

    /// A call of `script` with what every script reads: the time, the
    /// prefix, the indexes and the counts of kept answers, the bounds.
    fn call<'a>(&self, script: &'a Script, now_ms: u64) -> Call<'a> {
        let mut call = Call::new(script);
        call.key("game_expiry", self.names.game_expiry())
            .key("kept_expiry", self.names.kept_expiry())
            .key("kept_owners", self.names.kept_owners())
            .key("game_keys", self.names.game_keys())
            .key("kept_bytes", self.names.kept_bytes())
            .key("board_expiry", self.names.board_expiry())
            .key("player_expiry", self.names.player_expiry())
            .key("token_players", self.names.token_players())
            .key("player_tokens", self.names.player_tokens())
            .key("game_owners", self.names.game_owners())
            .key("match_expiry", self.names.match_expiry())
            .key("match_due", self.names.match_due())
            .key("game_held", self.names.game_held())
            .key("unarchived", self.names.unarchived())
            .arg("now", padded(now_ms))
            .arg("prefix", &self.names.prefix)
            .arg("keep_unarchived", u8::from(self.limits.keep_unarchived))
            .arg("max_keys_per_game", self.limits.max_keys_per_game)
            .arg("max_kept_bytes", self.limits.max_kept_bytes);
        call
    }

    /// The arguments of an answer to keep under `key`.
    fn kept_args(&self, call: &mut Call<'_>, key: &str, kept: &Kept, now_ms: u64) {
        call.arg("kept", key)
            .arg("kept_expires", padded(kept.expires_at_ms))
            .arg("kept_score", kept.expires_at_ms)
            .arg("kept_ttl", ttl(kept.expires_at_ms, now_ms))
            .arg("fingerprint", &kept.fingerprint)
            .arg("answer", &kept.answer)
            .arg("charge", kept_charge(key, kept));
    }

    pub(crate) async fn purge(&self, now_ms: u64, at_most: usize) -> Result<Purged, StoreError> {
        let (games, held) = self.purge_games(now_ms, at_most).await?;
        Ok(Purged {
            games,
            held,
            keys: self.purge_index("kept", now_ms, at_most).await?,
            boards: self.purge_index("board", now_ms, at_most).await?,
            players: self.purge_index("player", now_ms, at_most).await?,
            matches: self.purge_index("match", now_ms, at_most).await?,
        })
    }

    /// The games in the expiry index and those held for the archive.
    pub(crate) async fn games(&self) -> Result<u64, StoreError> {
        // One MULTI: a purge moving a game between the two is seen whole.
        let (walked, held): (u64, u64) = redis::pipe()
            .atomic()
            .cmd("ZCARD")
            .arg(self.names.game_expiry())
            .cmd("ZCARD")
            .arg(self.names.game_held())
            .query_async(&mut self.connection().await?)
            .await
            .map_err(failed)?;
        Ok(walked + held)
    }

    /// Walks at most `at_most` expired games in one script: how many it
    /// removed and how many it held for the archive.
    async fn purge_games(&self, now_ms: u64, at_most: usize) -> Result<(usize, usize), StoreError> {
        if at_most == 0 {
            return Ok((0, 0));
        }
        let mut call = self.call(&self.purge_script, now_ms);
        call.arg("kind", "game").arg("at_most", at_most);
        let mut connection = self.connection().await?;
        call.invoke(&mut connection).await.map_err(failed)
    }

    /// Deletes up to `at_most` records of `kind` (`kept`, `board`,
    /// `player` or `match`) expired by `now_ms`, the first to expire first: lists
    /// them, then deletes in one script those still expired (a write may
    /// have moved one in between).
    async fn purge_index(
        &self,
        kind: &str,
        now_ms: u64,
        at_most: usize,
    ) -> Result<usize, StoreError> {
        if at_most == 0 {
            return Ok(0);
        }
        let index = match kind {
            "kept" => self.names.kept_expiry(),
            "board" => self.names.board_expiry(),
            "match" => self.names.match_expiry(),
            _ => self.names.player_expiry(),
        };
        let mut connection = self.connection().await?;
        let expired: Vec<String> = redis::cmd("ZRANGEBYSCORE")
            .arg(index)
            .arg("-inf")
            .arg(now_ms)
            .arg("LIMIT")
            .arg(0)
            .arg(i64::try_from(at_most).unwrap_or(i64::MAX))
            .query_async(&mut connection)
            .await
            .map_err(failed)?;
        if expired.is_empty() {
            return Ok(0);
        }
        let mut call = self.call(&self.purge_script, now_ms);
        call.arg("kind", kind);
        for name in &expired {
            call.arg("name", name);
        }
        call.invoke(&mut connection).await.map_err(failed)
    }

    /// The changes written by every process on this store, heard on the
    /// changes channel by a task started on the first call (in the
    /// caller's runtime) and stopped with the store.
    pub(crate) fn changes(&self) -> broadcast::Receiver<Feed> {
        // The first caller gets the receiver made with the channel, before
        // the task starts: one subscribed after it could miss the task's
        // first `Resumed`, sent as soon as Redis answered.
        let mut first = None;
        let listening = self.feed.get_or_init(|| {
            let (changes, receiver) = broadcast::channel(FEED_BEHIND);
            first = Some(receiver);
            let task = tokio::spawn(listen(
                self.client.clone(),
                self.names.changes(),
                changes.clone(),
                Heartbeat {
                    every: self.limits.feed_heartbeat.max(MIN_HEARTBEAT),
                    timeout: self.limits.timeout,
                    answered: self.heartbeats.clone(),
                },
            ));
            Listening { changes, task }
        });
        first.unwrap_or_else(|| listening.changes.subscribe())
    }

    /// The heartbeats of the changes connection answered so far.
    pub(crate) fn feed_heartbeats(&self) -> watch::Receiver<u64> {
        self.heartbeats.subscribe()
    }

    /// The connection, made on the first call.
    async fn connection(&self) -> Result<ConnectionManager, StoreError> {
        let manager = self
            .connection
            .get_or_try_init(|| async {
                let config = ConnectionManagerConfig::new()
                    .set_number_of_retries(CONNECT_RETRIES)
                    .set_connection_timeout(Some(self.limits.timeout))
                    .set_response_timeout(Some(self.limits.timeout));
                ConnectionManager::new_lazy_with_config(self.client.clone(), config).map_err(failed)
            })
            .await?;
        // A handle onto the one multiplexed connection.
        Ok(manager.clone())
    }
}

/// How the changes connection is kept checked.
struct Heartbeat {
    /// A PING this often.
    every: Duration,
    /// Each answered within this, or the connection is made again.
    timeout: Duration,
    /// Counts the PINGs answered.
    answered: watch::Sender<u64>,
}

/// Listens to `channel` on a connection of its own (a subscribed
/// connection takes no other command), sending each change heard to
/// `changes`; [`Feed::Resumed`] each time it has (re)subscribed, as
/// changes may have gone unheard before. A connection that fails, or does
/// not answer a PING every `heartbeat.every` within `heartbeat.timeout`,
/// is made again, waiting longer after each failure up to
/// [`RETRY_AT_MOST`].
async fn listen(
    client: Client,
    channel: String,
    changes: broadcast::Sender<Feed>,
    heartbeat: Heartbeat,
) {
    let timeout = heartbeat.timeout;
    let mut wait = RETRY_AT_FIRST;
    loop {
        let subscribed = tokio::time::timeout(timeout, async {
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.subscribe(&channel).await?;
            Ok::<_, RedisError>(pubsub)
        })
        .await;
        if let Ok(Ok(pubsub)) = subscribed {
            wait = RETRY_AT_FIRST;
            // Nobody listening yet is no error: the next caller subscribes.
            let _ = changes.send(Feed::Resumed);
            let (mut sink, mut messages) = pubsub.split();
            let mut ticks = tokio::time::interval(heartbeat.every);
            ticks.tick().await;
            loop {
                tokio::select! {
                    message = messages.next() => {
                        let Some(message) = message else { break };
                        if let Some(change) = heard(message.get_payload_bytes()) {
                            let _ = changes.send(change);
                        }
                    }
                    _ = ticks.tick() => {
                        // Subscribed, Redis answers PING with `pong` and an
                        // empty string, which no plain type reads.
                        let pong = tokio::time::timeout(timeout, sink.ping::<redis::Value>()).await;
                        if !matches!(pong, Ok(Ok(_))) {
                            break;
                        }
                        heartbeat
                            .answered
                            .send_modify(|answered| *answered = answered.saturating_add(1));
                    }
                }
            }
        }
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(RETRY_AT_MOST);
    }
}

/// A change as the scripts announce it: `VERSION ID` for a game,
/// `match VERSION ID` for a match (which a process that knows only games
/// passes over: `match` reads as no version).
fn heard(payload: &[u8]) -> Option<Feed> {
    let text = std::str::from_utf8(payload).ok()?;
    if let Some(text) = text.strip_prefix("match ") {
        let (version, id) = text.split_once(' ')?;
        return Some(Feed::Match {
            id: id.to_owned(),
            version: version.parse().ok()?,
        });
    }
    let (version, id) = text.split_once(' ')?;
    Some(Feed::Written {
        id: id.to_owned(),
        version: version.parse().ok()?,
    })
}

/// A game's fields as `HMGET v e b` reads them.
type GameFields = (Option<String>, Option<String>, Option<Vec<u8>>);

/// The game `id` its fields hold, expired or not; `None` for none.
fn stored_game(id: &str, fields: GameFields) -> Result<Option<StoredGame>, StoreError> {
    match fields {
        (None, None, None) => Ok(None),
        (Some(version), Some(expires_at_ms), Some(body)) => Ok(Some(StoredGame {
            version: number(&version, || format!("game `{id}`"))?,
            expires_at_ms: number(&expires_at_ms, || format!("game `{id}`"))?,
            body,
        })),
        _ => Err(StoreError::Corrupted(format!(
            "game `{id}` lacks some of its fields"
        ))),
    }
}

/// What the write script answered.
fn outcome(id: &str, reply: Vec<Vec<u8>>) -> Result<Outcome, StoreError> {
    let unexpected = || {
        StoreError::Io(format!(
            "game `{id}`: the write script answered {} parts of an unknown kind",
            reply.len()
        ))
    };
    match reply.as_slice() {
        [kind] if kind == b"written" => Ok(Outcome::Written),
        [kind] if kind == b"full" => Ok(Outcome::Full),
        [kind] if kind == b"player_full" => Ok(Outcome::PlayerFull),
        [kind, bound] if kind == b"too_many_keys" => {
            Ok(Outcome::TooManyKeys(if bound == b"game" {
                KeyBound::Game
            } else {
                KeyBound::Store
            }))
        }
        [kind, current] if kind == b"stale" => {
            let current = match current.as_slice() {
                b"" => None,
                digits => Some(number_bytes(digits, || format!("game `{id}`"))?),
            };
            Ok(Outcome::Stale { current })
        }
        [kind, expires_at_ms, fingerprint, answer] if kind == b"replayed" => {
            Ok(Outcome::Replayed(Kept {
                fingerprint: fingerprint.clone(),
                answer: answer.clone(),
                expires_at_ms: number_bytes(expires_at_ms, || format!("game `{id}`'s key"))?,
            }))
        }
        _ => Err(unexpected()),
    }
}

/// A script with `common.lua` before it.
fn with_common(script: &str) -> Script {
    Script::new(&format!(
        "{}\n{script}",
        include_str!("redis_store/common.lua")
    ))
}

/// A script's invocation with named arguments, as `common.lua` reads
/// them: each argument after its name, and the keys' names in order in
/// the argument `keys`.
struct Call<'a> {
    invocation: ScriptInvocation<'a>,
    keys: Vec<&'static str>,
}

impl<'a> Call<'a> {
    fn new(script: &'a Script) -> Self {
        Call {
            invocation: script.prepare_invoke(),
            keys: Vec::new(),
        }
    }

    fn key(&mut self, name: &'static str, key: String) -> &mut Self {
        self.invocation.key(key);
        self.keys.push(name);
        self
    }

    /// A name given again (`name` in a purge) keeps every value in
    /// `list`.
    fn arg(&mut self, name: &str, value: impl ToRedisArgs) -> &mut Self {
        self.invocation.arg(name).arg(value);
        self
    }

    async fn invoke<T: FromRedisValue>(
        &mut self,
        connection: &mut ConnectionManager,
    ) -> Result<T, RedisError> {
        self.invocation.arg("keys").arg(self.keys.join(" "));
        self.invocation.invoke_async(connection).await
    }
}

/// `n` as the 20 digits the script compares as text.
fn padded(n: u64) -> String {
    format!("{n:020}")
}

/// How long Redis keeps a record expiring at `expires_at_ms`, written at
/// `now_ms`: what is left of its life, plus the grace.
fn ttl(expires_at_ms: u64, now_ms: u64) -> u64 {
    expires_at_ms
        .saturating_sub(now_ms)
        .saturating_add(BACKSTOP_GRACE_MS)
        .min(MAX_TTL_MS)
}

fn number(text: &str, what: impl Fn() -> String) -> Result<u64, StoreError> {
    number_bytes(text.as_bytes(), what)
}

fn number_bytes(digits: &[u8], what: impl Fn() -> String) -> Result<u64, StoreError> {
    std::str::from_utf8(digits)
        .ok()
        .and_then(|text| text.parse().ok())
        .ok_or_else(|| {
            StoreError::Corrupted(format!("{}: a number that does not read as one", what()))
        })
}

/// A Redis error as the store's: not reaching Redis is
/// [`StoreError::Unavailable`]; anything Redis answered with an error
/// (out of memory, a read-only replica, a script refused) is
/// [`StoreError::Io`]. Both are answered 503 by the server.
fn failed(err: RedisError) -> StoreError {
    if err.is_io_error()
        || err.is_connection_refusal()
        || err.is_connection_dropped()
        || err.is_timeout()
    {
        StoreError::Unavailable(format!("Redis does not answer: {err}"))
    } else {
        StoreError::Io(format!("Redis refused a command: {err}"))
    }
}
