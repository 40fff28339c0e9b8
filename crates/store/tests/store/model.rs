//! One property test of the rules on every backend at once: random
//! sequences of creates, next-version and stale writes (with and without
//! idempotency keys, keys reused across games and with another
//! fingerprint, wins entered on leaderboards), refusals kept alone,
//! reads, time moving on, and purges, under bounds small enough that each
//! is reached. Each step runs on memory, on a redb file and on Redis (when
//! `LINKPATH_TEST_REDIS_URL` names one), and on a plain model of the rules
//! written here from their documentation (`lib.rs`, `rules.rs`), not from
//! their code. Every step's answer, and after it all the store shows
//! (each game, key and board, and the count of games), must be the same
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
    BoardPage, BoardStart, Entry, Expected, Kept, KeyBound, Outcome, Purged, Ranked, Store,
    StoreError, StoreLimits, StoredGame, Write, kept_charge,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};
use tempfile::TempDir;

use crate::support::{Backend, NOW, Scratch, open_with};

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
const MUST_MEET: [&str; 15] = [
    "written",
    "stale",
    "full",
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
    /// A create: [`Expected::Absent`].
    Create {
        id: usize,
        life: u64,
        key: Option<KeyUse>,
        win: Option<Win>,
    },
    /// The version after the live one; a create if none is live.
    Next {
        id: usize,
        life: u64,
        key: Option<KeyUse>,
        win: Option<Win>,
    },
    /// A write expecting a version the game does not have: one behind
    /// (`ahead` 0), or `ahead` past it.
    Stale {
        id: usize,
        ahead: u64,
        key: Option<KeyUse>,
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

/// A win entered on a leaderboard.
#[derive(Debug, Clone)]
struct Win {
    board: usize,
    score: u8,
    life: u64,
}

fn bounds() -> impl Strategy<Value = StoreLimits> {
    (3u64..=5, 2u64..=3, 2u64..=4, 0u64..64).prop_map(
        |(max_games, max_keys_per_game, answers, slack)| StoreLimits {
            max_games,
            max_keys_per_game,
            // Room for `answers` answers of a typical size, and a little.
            max_kept_bytes: answers * kept_charge("k0", &answer(0, 0, 1, 0)) + slack,
            max_boards: 2,
            board_size: 2,
            max_players: 3,
            max_games_per_player: 2,
            timeout: Duration::from_secs(30),
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
        (0..BOARDS.len(), 0u8..10, life()).prop_map(|(board, score, life)| Win {
            board,
            score,
            life,
        })
    };
    let maybe_key = move || prop::option::weighted(0.6, key());
    let maybe_win = move || prop::option::weighted(0.3, win());
    prop_oneof![
        4 => (id(), life(), maybe_key(), maybe_win())
            .prop_map(|(id, life, key, win)| Op::Create { id, life, key, win }),
        6 => (id(), life(), maybe_key(), maybe_win())
            .prop_map(|(id, life, key, win)| Op::Next { id, life, key, win }),
        2 => (id(), 0u64..3, maybe_key()).prop_map(|(id, ahead, key)| Op::Stale { id, ahead, key }),
        3 => (id(), key()).prop_map(|(id, key)| Op::Keep { id, key }),
        1 => id().prop_map(|id| Op::Game { id }),
        1 => (0..KEYS.len()).prop_map(|key| Op::Kept { key }),
        1 => (0..BOARDS.len(), 0usize..4).prop_map(|(board, limit)| Op::Leaderboard { board, limit }),
        1 => Just(Op::Games),
        3 => prop::sample::select(&WAITS[..]).prop_map(|ms| Op::Wait { ms }),
        1 => (1usize..=2).prop_map(|at_most| Op::Purge { at_most }),
        1 => Just(Op::PurgeExpired),
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
    Leaderboard(String, usize),
    Games,
    Purge(usize),
    PurgeExpired,
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

/// Fails unless every backend `seen` what the model `expected`, saying
/// how those that differ do, after the calls that led there.
fn agree<T: PartialEq + Debug>(
    calls: &[(usize, u64, Option<Call>)],
    what: &str,
    expected: &T,
    names: &[&str],
    seen: &[T],
) -> Result<(), TestCaseError> {
    if seen.iter().all(|seen| seen == expected) {
        return Ok(());
    }
    let mut message = format!(
        "the backends and the model disagree on the {what} the last of these calls \
         (times from T = {NOW}):\n"
    );
    for (step, now, call) in calls {
        message += &match call {
            Some(call) => format!("{step} at T+{}: {}\n", now - NOW, readable(call)),
            None => format!("{step}: time moves to T+{}\n", now - NOW),
        };
    }
    message += &format!("the model: {}\n", readable(expected));
    for (name, seen) in names.iter().zip(seen) {
        if seen == expected {
            message += &format!("{name}: as the model\n");
        } else {
            message += &format!("{name}: {}\n", readable(seen));
        }
    }
    Err(TestCaseError::fail(message))
}

/// `value` as `Debug` shows it, with lists of bytes as text and times
/// from [`NOW`]: every body, answer and fingerprint here is ASCII.
fn readable(value: &impl Debug) -> String {
    let debug = format!("{value:?}");
    let mut out = String::new();
    let mut rest = debug.as_str();
    while let Some(at) = rest.find(|c: char| c == '[' || c.is_ascii_digit()) {
        out += &rest[..at];
        rest = &rest[at..];
        if let Some(list) = rest.strip_prefix('[')
            && let Some(end) = list.find(']')
            && let Ok(bytes) = list[..end]
                .split(", ")
                .map(str::parse::<u8>)
                .collect::<Result<Vec<_>, _>>()
        {
            out += &format!("{:?}", String::from_utf8_lossy(&bytes));
            rest = &list[end + 1..];
            continue;
        }
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len())
            .max(1);
        match rest[..digits].parse::<u64>() {
            Ok(time) if (NOW..NOW + 10_000_000).contains(&time) => {
                out += &format!("T+{}", time - NOW);
            }
            _ => out += &rest[..digits],
        }
        rest = &rest[digits..];
    }
    out + rest
}

async fn answer_of(store: &Store, call: &Call, now: u64) -> Answer {
    match call.clone() {
        Call::Write(write) => Answer::Outcome(store.write(*write, now).await),
        Call::Keep { game, key, kept } => Answer::Outcome(store.keep(&game, &key, kept, now).await),
        Call::Game(id) => Answer::Game(store.game(&id, now).await),
        Call::Kept(key) => Answer::Kept(store.kept(&key, now).await),
        Call::Leaderboard(board, limit) => Answer::Leaderboard(
            store
                .leaderboard(&board, BoardStart::After(None), limit, now)
                .await,
        ),
        Call::Games => Answer::Games(store.games().await),
        Call::Purge(at_most) => Answer::Purged(store.purge(now, at_most).await),
        Call::PurgeExpired => Answer::Purged(store.purge_expired(now).await),
    }
}

/// Every read at once: Redis takes them in one round trip.
async fn shown_by(store: &Store, now: u64) -> Shown {
    let (games, game, log, kept, boards) = tokio::join!(
        store.games(),
        join_all(IDS.iter().map(|id| store.game(id, now))),
        join_all(IDS.iter().map(|id| store.log(id, 0..u64::MAX, now))),
        join_all(KEYS.iter().map(|key| store.kept(key, now))),
        join_all(BOARDS.iter().map(|board| store.leaderboard(
            board,
            BoardStart::After(None),
            usize::MAX,
            now
        ))),
    );
    Shown {
        games,
        game,
        log,
        kept,
        boards,
    }
}

/// The rules as `lib.rs` and `rules.rs` tell them, on plain maps: every
/// record stored until a write or a purge deletes it, expired or not.
struct Model {
    limits: StoreLimits,
    games: BTreeMap<String, StoredGame>,
    /// Each game's log by version. A removed game's stays: it shows only
    /// while its game is live, and a create starts a new one.
    logs: BTreeMap<String, BTreeMap<u64, Vec<u8>>>,
    kept: BTreeMap<String, Owned>,
    boards: BTreeMap<String, Board>,
    /// How often each rule of [`MUST_MEET`] (and others) applied.
    met: BTreeMap<&'static str, u64>,
}

/// A kept answer, the game it counts for, and its charge.
#[derive(Clone)]
struct Owned {
    kept: Kept,
    game: String,
    charge: u64,
}

#[derive(Clone)]
struct Board {
    expires_at_ms: u64,
    /// Body by rank: best first.
    entries: BTreeMap<String, (String, Vec<u8>)>,
}

/// Live until its expiry: from that millisecond on, absent.
fn live(expires_at_ms: u64, now: u64) -> bool {
    now < expires_at_ms
}

/// The first of `records` to expire (by name among equal expiries), if it
/// has expired by `now`.
fn first_expired<'a>(records: impl Iterator<Item = (u64, &'a String)>, now: u64) -> Option<String> {
    records
        .min()
        .filter(|(expires_at_ms, _)| !live(*expires_at_ms, now))
        .map(|(_, name)| name.clone())
}

impl Model {
    fn new(limits: StoreLimits) -> Model {
        Model {
            limits,
            games: BTreeMap::new(),
            logs: BTreeMap::new(),
            kept: BTreeMap::new(),
            boards: BTreeMap::new(),
            met: BTreeMap::new(),
        }
    }

    fn meet(&mut self, what: &'static str) {
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
    fn call(&self, op: &Op, step: usize, now: u64) -> Call {
        let keyed = |key: &Option<KeyUse>| {
            key.as_ref().map(|key| {
                let kept = answer(step, key.request, key.padding, now + key.life);
                (KEYS[key.key].to_owned(), kept)
            })
        };
        let write = |id: usize, expected: Expected, life: u64, key, win: &Option<Win>| {
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
                        player: id.to_owned(),
                        body: format!("{rank} v{version}").into_bytes(),
                        rank,
                        expires_at_ms: now + win.life,
                    }
                }),
                owner: None,
            }
        };
        match op {
            Op::Create { id, life, key, win } => Call::Write(Box::new(write(
                *id,
                Expected::Absent,
                *life,
                keyed(key),
                win,
            ))),
            Op::Next { id, life, key, win } => {
                let expected = self
                    .version(IDS[*id], now)
                    .map_or(Expected::Absent, Expected::Version);
                Call::Write(Box::new(write(*id, expected, *life, keyed(key), win)))
            }
            Op::Stale { id, ahead, key } => {
                let expected = match self.version(IDS[*id], now) {
                    Some(version) if *ahead == 0 && version > 0 => version - 1,
                    Some(version) => version + (*ahead).max(1),
                    None => *ahead,
                };
                Call::Write(Box::new(write(
                    *id,
                    Expected::Version(expected),
                    5,
                    keyed(key),
                    &None,
                )))
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
            Op::Leaderboard { board, limit } => {
                Call::Leaderboard(BOARDS[*board].to_owned(), *limit)
            }
            Op::Games => Call::Games,
            Op::Purge { at_most } => Call::Purge(*at_most),
            Op::PurgeExpired => Call::PurgeExpired,
            Op::Wait { .. } => unreachable!("a wait is no call"),
        }
    }

    fn answer(&mut self, call: &Call, now: u64) -> Answer {
        match call {
            Call::Write(write) => {
                let outcome = self.write(write, now);
                self.met_outcome(&outcome, write.key.as_ref().map(|(_, kept)| kept));
                Answer::Outcome(Ok(outcome))
            }
            Call::Keep { game, key, kept } => {
                let outcome = self.keep(game, key, kept, now);
                self.met_outcome(&outcome, Some(kept));
                Answer::Outcome(Ok(outcome))
            }
            Call::Game(id) => Answer::Game(Ok(self.game(id, now))),
            Call::Kept(key) => Answer::Kept(Ok(self.kept_live(key, now))),
            Call::Leaderboard(board, limit) => {
                Answer::Leaderboard(Ok(self.leaderboard(board, *limit, now)))
            }
            Call::Games => Answer::Games(Ok(self.games.len() as u64)),
            Call::Purge(at_most) => Answer::Purged(Ok(self.purge(now, *at_most))),
            Call::PurgeExpired => {
                // Far fewer records than a batch: one batch takes them all.
                let purged = self.purge(now, usize::MAX);
                if purged.games + purged.keys + purged.boards > 0 {
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

    fn shown(&self, now: u64) -> Shown {
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
                .map(|board| Ok(self.leaderboard(board, usize::MAX, now)))
                .collect(),
        }
    }

    fn game(&self, id: &str, now: u64) -> Option<StoredGame> {
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

    fn leaderboard(&self, board: &str, limit: usize, now: u64) -> BoardPage {
        let entries = self
            .boards
            .get(board)
            .filter(|board| live(board.expires_at_ms, now))
            .map(|board| {
                let ranked = board.entries.iter().map(|(rank, (player, body))| Ranked {
                    rank: rank.clone(),
                    player: player.clone(),
                    body: body.clone(),
                });
                ranked.take(limit).collect()
            })
            .unwrap_or_default();
        BoardPage {
            position: 0,
            entries,
            found: None,
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
        // A new id while `max_games` are stored: an expired one goes, the
        // first to expire; with none expired, the store is full.
        if !stored && self.games.len() as u64 >= self.limits.max_games {
            let expired = first_expired(
                self.games.iter().map(|(id, game)| (game.expires_at_ms, id)),
                now,
            );
            let Some(expired) = expired else {
                return Outcome::Full;
            };
            self.games.remove(&expired);
            self.meet("an expired game made room");
        }
        if let Some((key, kept)) = &write.key
            && let Some(bound) = self.over_bound(&write.id, kept_charge(key, kept), now)
        {
            return Outcome::TooManyKeys(bound);
        }
        self.games.insert(write.id.clone(), write.game.clone());
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
    fn live_kept(&mut self, key: &str, now: u64) -> Option<Kept> {
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
    fn over_bound(&mut self, game: &str, charge: u64, now: u64) -> Option<KeyBound> {
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

    fn put_kept(&mut self, key: &str, game: &str, kept: &Kept) {
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
                return;
            }
            board.entries.remove(&held);
        }
        board.expires_at_ms = board.expires_at_ms.max(entry.expires_at_ms);
        board.entries.insert(
            entry.rank.clone(),
            (entry.player.clone(), entry.body.clone()),
        );
        if board.entries.len() > self.limits.board_size {
            board.entries.pop_last();
            self.meet("a board's worst entry dropped");
        }
    }

    /// Deletes what has expired, the first to expire first, at most
    /// `at_most` games, then keys, then boards.
    fn purge(&mut self, now: u64, at_most: usize) -> Purged {
        let (games, more_games) = purge(&mut self.games, |game| game.expires_at_ms, now, at_most);
        let (keys, more_keys) = purge(
            &mut self.kept,
            |owned| owned.kept.expires_at_ms,
            now,
            at_most,
        );
        let (boards, more_boards) =
            purge(&mut self.boards, |board| board.expires_at_ms, now, at_most);
        if more_games || more_keys || more_boards {
            self.meet("a purge stopped at its most");
        }
        Purged {
            games,
            keys,
            boards,
            players: 0,
        }
    }
}

/// Deletes at most `at_most` expired records of `records`, the first to
/// expire first: how many, and whether expired ones are left.
fn purge<T>(
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
