//! One property test of the rules on every backend at once: random
//! sequences of creates, next-version and stale writes (with and without
//! idempotency keys, keys reused across games and with another
//! fingerprint, wins entered on leaderboards by players, creates owned by
//! players), refusals kept alone, players created, changed (renamed,
//! their token replaced or dropped) and erased, reads (of games, boards
//! in pages, players, tokens, a player's games), matches written (with
//! keys, timers and a player's rating, stale or not) and their due ones
//! read, time moving on, and purges, under bounds small enough that each
//! is reached; finishing writes, and the archiver's calls on the marks
//! they leave, with marked games kept past their expiry or not. Each step runs on memory, on a redb file and on Redis (when
//! `LINKPATH_TEST_REDIS_URL` names one), and on a plain model of the rules
//! written here from their documentation (`lib.rs`, `rules.rs`,
//! `archive.rs`), not from their code (`model/rules.rs`,
//! `model/players.rs`, `model/archive.rs`). Every step's answer, and
//! after it all the store shows (each game, key, board, player, token and
//! player's list, the marks and each game's archive copy, and the
//! counts), must be the same
//! everywhere: a backend alone against the rest points at that backend
//! (the Redis scripts mirror `rules.rs` by hand), the model alone against
//! all three at a rule or its documentation.
//!
//! Repeatable: 200 sequences from a fixed seed (`PROPTEST_CASES` and
//! `PROPTEST_RNG_SEED` run more, or others), and a failure shrinks to a
//! shorter sequence, printed with every call and what each store answered.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use linkpath_store::{
    ArchiveCopy, BoardPage, BoardStart, Entry, Expected, GameCursor, Kept, KeyBound,
    MAX_ARCHIVE_BATCH, MatchOutcome, MatchWrite, Outcome, PlayerOutcome, PlayerWrite, Purged,
    Ranked, Store, StoreError, StoreLimits, StoredGame, StoredMatch, StoredPlayer, Unarchived,
    UnarchivedCount, Write, kept_charge,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};
use tempfile::TempDir;

use crate::support::{Backend, NOW, Scratch, open_with};

mod archive;
mod matches;
mod players;
mod report;
mod rules;

use report::agree;
use rules::Model;

/// How many sequences run, and their seed.
const SEQUENCES: u32 = 200;
const SEED: u64 = 0x6c69_6e6b_7061_7468;

/// The longest sequence: 40 steps on average.
const MAX_STEPS: usize = 80;

/// The names a sequence uses: more games than the store may hold, more
/// keys than a game may keep, more boards than may be made.
const IDS: [&str; 5] = ["g0", "g1", "g2", "g3", "g4"];
const KEYS: [&str; 6] = ["k0", "k1", "k2", "k3", "k4", "k5"];
const BOARDS: [&str; 3] = ["b0", "b1", "b2"];
/// More players than may be stored, and their tokens' hashes by number.
const PLAYERS: [&str; 3] = ["p0", "p1", "p2"];
const TOKENS: [u8; 3] = [1, 2, 3];
/// More matches than may be stored.
const MATCHES: [&str; 3] = ["m0", "m1", "m2"];

/// How long a game, an answer or a board lasts from its write: 0 is
/// expired as written; the short ones expire within a sequence, often at
/// the same millisecond (then the first by name goes first); the last
/// outlives every sequence.
const LIVES: [u64; 6] = [0, 5, 10, 20, 40, 1_000_000];

/// How far time moves in one step.
const WAITS: [u64; 4] = [1, 5, 10, 25];

/// What the outcomes and the model's rules must have met over all the
/// sequences, so that a change to the generator that stops reaching a
/// bound is noticed.
const MUST_MEET: [&str; 42] = [
    "written",
    "stale",
    "full",
    "the owner's games full",
    "player written",
    "player stale",
    "player full",
    "token taken",
    "player erased",
    "an expired player made room",
    "an expired player's token taken over",
    "a player's worse entry left out",
    "a player's entry bettered",
    "a player purged",
    "a game listed among its owner's",
    "replayed",
    "replayed to another fingerprint",
    "too many keys for the game",
    "too many kept bytes",
    "an expired game made room",
    "an expired answer made room",
    "an expired answer freed its key",
    "a board left out",
    "a board's worst entry dropped",
    "an expired board emptied",
    "a purge stopped at its most",
    "a purge of everything expired",
    "a page around a player",
    "match written",
    "match stale",
    "match full",
    "match player stale",
    "match replayed",
    "an expired match made room",
    "a match's player rated",
    "a game marked finished",
    "a finishing write refused",
    "a marked game held",
    "a held game made no room",
    "a create over a game kept for the archive refused",
    "a marked game purged with its mark",
    "marks cleared",
];

#[test]
fn memory_file_and_the_model_agree_on_random_sequences() {
    sequences_agree(false);
}

#[test]
#[ignore = "needs a Redis: LINKPATH_TEST_REDIS_URL=redis://127.0.0.1:6390 cargo test -- --ignored"]
fn every_backend_and_the_model_agree_on_random_sequences() {
    sequences_agree(true);
}

/// Runs the sequences on memory, file (and `redis`) and the model.
fn sequences_agree(redis: bool) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let from_env = |name: &str| {
        std::env::var(name).ok().map(|value| {
            value
                .parse()
                .unwrap_or_else(|_| panic!("{name} is a number"))
        })
    };
    let sequences = from_env("PROPTEST_CASES").map_or(SEQUENCES, |cases| cases as u32);
    let mut runner = TestRunner::new(Config {
        cases: sequences,
        rng_seed: RngSeed::Fixed(from_env("PROPTEST_RNG_SEED").unwrap_or(SEED)),
        // The seed is fixed: there is nothing to persist.
        failure_persistence: None,
        // A failure's shrinking is bounded too.
        max_shrink_time: 60_000,
        ..Config::default()
    });
    let met = Mutex::new(BTreeMap::<&'static str, u64>::new());
    let started = Instant::now();
    let result = runner.run(
        &(bounds(), prop::collection::vec(op(), 1..MAX_STEPS)),
        |(limits, ops)| {
            let model = runtime.block_on(run(limits, &ops, redis))?;
            let mut met = met.lock().unwrap();
            *met.entry("steps").or_default() += ops.len() as u64;
            for (what, times) in model.met {
                *met.entry(what).or_default() += times;
            }
            Ok(())
        },
    );
    if let Err(failure) = result {
        panic!("{failure}");
    }
    let met = met.into_inner().unwrap();
    println!(
        "{sequences} sequences on memory, file{} and the model in {:.1} s: {met:?}",
        if redis { ", Redis" } else { "" },
        started.elapsed().as_secs_f64()
    );
    // Fewer sequences, or others, may well miss some.
    if sequences >= SEQUENCES {
        let missed: Vec<_> = MUST_MEET
            .iter()
            .filter(|what| !met.contains_key(*what))
            .collect();
        assert!(missed.is_empty(), "never met: {missed:?}");
    }
}

/// One step of a sequence, before the model's state makes it a call.
#[derive(Debug, Clone)]
enum Op {
    /// A create: [`Expected::Absent`], maybe owned.
    Create {
        id: usize,
        life: u64,
        key: Option<KeyUse>,
        win: Option<Win>,
        owner: Option<usize>,
    },
    /// The version after the live one; a create if none is live. It
    /// ends the game if `finish`.
    Next {
        id: usize,
        life: u64,
        key: Option<KeyUse>,
        win: Option<Win>,
        finish: bool,
    },
    /// A write expecting a version the game does not have: one behind
    /// (`ahead` 0), or `ahead` past it; ending the game if `finish`.
    Stale {
        id: usize,
        ahead: u64,
        key: Option<KeyUse>,
        finish: bool,
    },
    /// [`Store::keep`]: a refusal's answer kept alone.
    Keep {
        id: usize,
        key: KeyUse,
    },
    Game {
        id: usize,
    },
    Kept {
        key: usize,
    },
    Leaderboard {
        board: usize,
        start: Start,
        limit: usize,
    },
    /// A player's create ([`Expected::Absent`]), with a token's hash or
    /// none.
    Join {
        player: usize,
        token: Option<usize>,
        life: u64,
    },
    /// A player's next version (renamed, another token or none); a stale
    /// write if none is live.
    Change {
        player: usize,
        token: Option<usize>,
        life: u64,
    },
    /// An erase at the live version, or `stale` at another.
    Erase {
        player: usize,
        stale: bool,
    },
    ByToken {
        token: usize,
    },
    /// A page of a player's games, after the `after`th of them.
    PlayerGames {
        player: usize,
        after: Option<usize>,
        limit: usize,
    },
    Games,
    Wait {
        ms: u64,
    },
    Purge {
        at_most: usize,
    },
    PurgeExpired,
    /// A match's write: a create if none is live, else its next version;
    /// `stale` expects another. With a timer due `due` ms on, a key, and
    /// a player rated with it (at its version, or `stale` at another).
    Match {
        id: usize,
        life: u64,
        due: Option<u64>,
        stale: bool,
        key: Option<KeyUse>,
        rated: Option<(usize, bool)>,
    },
    /// The due matches `ahead` ms on, at most `at_most`.
    Due {
        ahead: u64,
        at_most: usize,
    },
    /// The marks, at most `at_most`.
    Unarchived {
        at_most: usize,
    },
    /// The marks of these games cleared.
    Archived {
        ids: Vec<usize>,
    },
    ArchiveCopy {
        id: usize,
    },
}

/// An idempotency key and the answer a request keeps under it.
#[derive(Debug, Clone)]
struct KeyUse {
    key: usize,
    /// Which of two requests: the same key sent with another one is
    /// answered what the first kept.
    request: u8,
    /// The answer's length in 16 bytes past its own, so charges differ.
    padding: usize,
    life: u64,
}

/// A win entered on a leaderboard, by a player.
#[derive(Debug, Clone)]
struct Win {
    board: usize,
    player: usize,
    score: u8,
    life: u64,
}

/// Where a page of a board starts: the top, after a score's ranks, or
/// places above a player.
#[derive(Debug, Clone)]
enum Start {
    After(Option<u8>),
    Around { player: usize, before: usize },
}

fn bounds() -> impl Strategy<Value = StoreLimits> {
    (3u64..=5, 2u64..=3, 2u64..=4, 0u64..64, prop::bool::ANY).prop_map(
        |(max_games, max_keys_per_game, answers, slack, keep_unarchived)| StoreLimits {
            max_games,
            max_keys_per_game,
            // Room for `answers` answers of a typical size, and a little.
            max_kept_bytes: answers * kept_charge("k0", &answer(0, 0, 1, 0)) + slack,
            max_boards: 2,
            board_size: 2,
            max_players: 2,
            max_games_per_player: 2,
            max_matches: 2,
            timeout: Duration::from_secs(30),
            keep_unarchived,
            feed_heartbeat: linkpath_store::FEED_HEARTBEAT,
        },
    )
}

fn op() -> impl Strategy<Value = Op> {
    let id = || 0..IDS.len();
    let life = || prop::sample::select(&LIVES[..]);
    let key = || {
        (0..KEYS.len(), 0u8..2, 0usize..3, life()).prop_map(|(key, request, padding, life)| {
            KeyUse {
                key,
                request,
                padding,
                life,
            }
        })
    };
    let win = || {
        (0..BOARDS.len(), 0..PLAYERS.len(), 0u8..10, life()).prop_map(
            |(board, player, score, life)| Win {
                board,
                player,
                score,
                life,
            },
        )
    };
    let maybe_key = move || prop::option::weighted(0.6, key());
    let maybe_win = move || prop::option::weighted(0.3, win());
    let player = || 0..PLAYERS.len();
    let token = || prop::option::weighted(0.8, 0..TOKENS.len());
    let start = prop_oneof![
        prop::option::of(0u8..10).prop_map(Start::After),
        (player(), 0usize..3).prop_map(|(player, before)| Start::Around { player, before }),
    ];
    prop_oneof![
        4 => (id(), life(), maybe_key(), maybe_win(), prop::option::weighted(0.5, player()))
            .prop_map(|(id, life, key, win, owner)| Op::Create { id, life, key, win, owner }),
        6 => (id(), life(), maybe_key(), maybe_win(), prop::bool::weighted(0.3))
            .prop_map(|(id, life, key, win, finish)| Op::Next { id, life, key, win, finish }),
        2 => (id(), 0u64..3, maybe_key(), prop::bool::weighted(0.3))
            .prop_map(|(id, ahead, key, finish)| Op::Stale { id, ahead, key, finish }),
        3 => (id(), key()).prop_map(|(id, key)| Op::Keep { id, key }),
        1 => id().prop_map(|id| Op::Game { id }),
        1 => (0..KEYS.len()).prop_map(|key| Op::Kept { key }),
        2 => (0..BOARDS.len(), start, 0usize..4)
            .prop_map(|(board, start, limit)| Op::Leaderboard { board, start, limit }),
        3 => (player(), token(), life()).prop_map(|(player, token, life)| Op::Join { player, token, life }),
        3 => (player(), token(), life())
            .prop_map(|(player, token, life)| Op::Change { player, token, life }),
        1 => (player(), prop::bool::weighted(0.3)).prop_map(|(player, stale)| Op::Erase { player, stale }),
        1 => (0..TOKENS.len()).prop_map(|token| Op::ByToken { token }),
        1 => (player(), prop::option::of(0usize..3), 0usize..4)
            .prop_map(|(player, after, limit)| Op::PlayerGames { player, after, limit }),
        1 => Just(Op::Games),
        3 => prop::sample::select(&WAITS[..]).prop_map(|ms| Op::Wait { ms }),
        1 => (1usize..=2).prop_map(|at_most| Op::Purge { at_most }),
        1 => Just(Op::PurgeExpired),
        5 => (
            0..MATCHES.len(),
            life(),
            prop::option::weighted(0.6, prop::sample::select(&LIVES[..5])),
            prop::bool::weighted(0.15),
            maybe_key(),
            prop::option::weighted(0.4, (player(), prop::bool::weighted(0.2))),
        )
            .prop_map(|(id, life, due, stale, key, rated)| Op::Match { id, life, due, stale, key, rated }),
        2 => (0u64..30, 0usize..4).prop_map(|(ahead, at_most)| Op::Due { ahead, at_most }),
        1 => (0usize..4).prop_map(|at_most| Op::Unarchived { at_most }),
        2 => prop::collection::vec(id(), 0..3).prop_map(|ids| Op::Archived { ids }),
        1 => id().prop_map(|id| Op::ArchiveCopy { id }),
    ]
}

/// The answer a request keeps at `step`: `padding` × 16 bytes past its
/// own, so that charges differ.
fn answer(step: usize, request: u8, padding: usize, expires_at_ms: u64) -> Kept {
    Kept {
        fingerprint: format!("request {request}").into_bytes(),
        answer: format!("answer of step {step}{}", ".".repeat(16 * padding)).into_bytes(),
        expires_at_ms,
    }
}

/// One call on a store, with everything it takes.
#[derive(Debug, Clone)]
enum Call {
    // Boxed: a write is several times the size of the other calls.
    Write(Box<Write>),
    Keep {
        game: String,
        key: String,
        kept: Kept,
    },
    Game(String),
    Kept(String),
    Leaderboard(String, BoardStart, usize),
    Games,
    Player(PlayerWrite),
    Erase(String, u64),
    ByToken(Vec<u8>),
    PlayerGames(String, Option<GameCursor>, usize),
    Purge(usize),
    PurgeExpired,
    // Boxed, as a game's write.
    Match(Box<MatchWrite>),
    Due(u64, usize),
    Unarchived(usize),
    Archived(Vec<String>),
    ArchiveCopy(String),
}

/// What a call answered.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Answer {
    Outcome(Result<Outcome, StoreError>),
    Game(Result<Option<StoredGame>, StoreError>),
    Kept(Result<Option<Kept>, StoreError>),
    Leaderboard(Result<BoardPage, StoreError>),
    Games(Result<u64, StoreError>),
    Purged(Result<Purged, StoreError>),
    Player(Result<PlayerOutcome, StoreError>),
    ByToken(Result<Option<(String, StoredPlayer)>, StoreError>),
    PlayerGames(Result<Vec<(GameCursor, String)>, StoreError>),
    Match(Result<MatchOutcome, StoreError>),
    Due(Result<Vec<String>, StoreError>),
    Unarchived(Result<Vec<Unarchived>, StoreError>),
    Archived(Result<usize, StoreError>),
    ArchiveCopy(Result<Option<ArchiveCopy>, StoreError>),
}

/// A game's log as the store reads it: each entry with its version.
type LogEntries = Vec<(u64, Vec<u8>)>;

/// All a store shows at one time: its count of games, and each game, key
/// and board a sequence may use.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shown {
    games: Result<u64, StoreError>,
    game: Vec<Result<Option<StoredGame>, StoreError>>,
    log: Vec<Result<LogEntries, StoreError>>,
    kept: Vec<Result<Option<Kept>, StoreError>>,
    boards: Vec<Result<BoardPage, StoreError>>,
    player_count: Result<u64, StoreError>,
    players: Result<Vec<Option<StoredPlayer>>, StoreError>,
    tokens: Vec<Result<Option<(String, StoredPlayer)>, StoreError>>,
    player_games: Vec<Result<Vec<(GameCursor, String)>, StoreError>>,
    matches: Result<u64, StoreError>,
    match_records: Vec<Result<Option<StoredMatch>, StoreError>>,
    /// Every match due now.
    due: Result<Vec<String>, StoreError>,
    /// Every mark made by now, their count, and each game as the archive
    /// copies it.
    unarchived: Result<Vec<Unarchived>, StoreError>,
    unarchived_count: Result<UnarchivedCount, StoreError>,
    copies: Vec<Result<Option<ArchiveCopy>, StoreError>>,
}

/// Runs `ops` on each backend and on the model, step by step; answers
/// the model at the end for what it met.
async fn run(limits: StoreLimits, ops: &[Op], redis: bool) -> Result<Model, TestCaseError> {
    let mut stores = vec![open_with(Backend::Memory, limits), open_file(limits)];
    if redis {
        stores.push(open_with(Backend::Redis, limits));
    }
    let names = ["memory", "file", "redis"];
    let mut model = Model::new(limits);
    let mut now = NOW;
    let mut calls = Vec::new();
    for (step, op) in ops.iter().enumerate() {
        if let Op::Wait { ms } = op {
            now += ms;
            calls.push((step, now, None));
            continue;
        }
        let call = model.call(op, step, now);
        calls.push((step, now, Some(call.clone())));
        let expected = model.answer(&call, now);
        let answers = join_all(stores.iter().map(|(store, _)| answer_of(store, &call, now))).await;
        agree(&calls, "answer to", &expected, &names, &answers)?;
        let shown = model.shown(now);
        let seen = join_all(stores.iter().map(|(store, _)| shown_by(store, now))).await;
        agree(&calls, "state after", &shown, &names, &seen)?;
    }
    Ok(model)
}

/// A file store in a folder of its own.
fn open_file(limits: StoreLimits) -> (Store, Scratch) {
    let dir = scratch();
    let setting = format!("file:{}", dir.path().join("games.redb").display());
    let store = Store::open(&setting.parse().unwrap(), limits).unwrap();
    (store, dir.into())
}

/// A folder for files, in memory where Linux has one (`/dev/shm`): this
/// test is of the rules, not the disk (`crash` and `fault` are), and an
/// fsync of a disk costs the thousands of commits here half a minute.
fn scratch() -> TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir()
        && let Ok(dir) = tempfile::tempdir_in(shm)
    {
        return dir;
    }
    tempfile::tempdir().unwrap()
}

async fn answer_of(store: &Store, call: &Call, now: u64) -> Answer {
    match call.clone() {
        Call::Write(write) => Answer::Outcome(store.write(*write, now).await),
        Call::Keep { game, key, kept } => Answer::Outcome(store.keep(&game, &key, kept, now).await),
        Call::Game(id) => Answer::Game(store.game(&id, now).await),
        Call::Kept(key) => Answer::Kept(store.kept(&key, now).await),
        Call::Leaderboard(board, start, limit) => {
            Answer::Leaderboard(store.leaderboard(&board, start, limit, now).await)
        }
        Call::Player(write) => Answer::Player(store.write_player(write, now).await),
        Call::Erase(id, expected) => Answer::Player(store.erase_player(&id, expected, now).await),
        Call::ByToken(token) => Answer::ByToken(store.player_by_token(&token, now).await),
        Call::PlayerGames(player, after, limit) => Answer::PlayerGames(
            store
                .player_games(&player, after.as_ref(), limit, now)
                .await,
        ),
        Call::Games => Answer::Games(store.games().await),
        Call::Purge(at_most) => Answer::Purged(store.purge(now, at_most).await),
        Call::PurgeExpired => Answer::Purged(store.purge_expired(now).await),
        Call::Match(write) => Answer::Match(store.write_match(*write, now).await),
        Call::Due(at, at_most) => Answer::Due(store.due_matches(at, at_most).await),
        Call::Unarchived(at_most) => Answer::Unarchived(store.unarchived(at_most, now).await),
        Call::Archived(ids) => Answer::Archived(store.archived(&ids, now).await),
        Call::ArchiveCopy(id) => Answer::ArchiveCopy(store.archive_copy(&id).await),
    }
}

/// Every read at once: Redis takes them in one round trip.
async fn shown_by(store: &Store, now: u64) -> Shown {
    let ids: Vec<String> = PLAYERS.iter().map(|id| id.to_string()).collect();
    let tokens: Vec<Vec<u8>> = TOKENS.iter().map(|n| token(*n)).collect();
    let top = || BoardStart::After(None);
    let (games, game, log, kept, boards) = tokio::join!(
        store.games(),
        join_all(IDS.iter().map(|id| store.game(id, now))),
        join_all(IDS.iter().map(|id| store.log(id, 0..u64::MAX, now))),
        join_all(KEYS.iter().map(|key| store.kept(key, now))),
        join_all(
            BOARDS
                .iter()
                .map(|board| store.leaderboard(board, top(), usize::MAX, now))
        ),
    );
    let (player_count, players, tokens, player_games) = tokio::join!(
        store.player_count(),
        store.players(&ids, now),
        join_all(tokens.iter().map(|token| store.player_by_token(token, now))),
        join_all(
            PLAYERS
                .iter()
                .map(|player| store.player_games(player, None, usize::MAX, now))
        ),
    );
    let (matches, match_records, due) = tokio::join!(
        store.matches(),
        join_all(MATCHES.iter().map(|id| store.match_record(id, now))),
        store.due_matches(now, usize::MAX),
    );
    let (unarchived, unarchived_count, copies) = tokio::join!(
        store.unarchived(MAX_ARCHIVE_BATCH, now),
        store.unarchived_count(),
        join_all(IDS.iter().map(|id| store.archive_copy(id))),
    );
    Shown {
        games,
        game,
        log,
        kept,
        boards,
        player_count,
        players,
        tokens,
        player_games,
        matches,
        match_records,
        due,
        unarchived,
        unarchived_count,
        copies,
    }
}

/// The hash of token number `n`: 32 bytes, as SHA-256's.
fn token(n: u8) -> Vec<u8> {
    vec![n; 32]
}
