//! A game in the store's bytes: its record, tagged with the format it was
//! written in, and its log's entries. Every format ever written is read:
//! a record of an older one is brought up to the current, and the log it
//! held inline comes back as entries the next write appends, so that
//! games held across an upgrade play on.
//!
//! - format 1 (no tag): the whole game in one JSON object, its history
//!   (`log`, and the `done` and `undone` stacks of changes) inline,
//!   rewritten on every action;
//! - format 2: `{"format": 2, "game": …}`, the game without its history;
//!   one JSON entry a version in the store's log ([`Logged`]).

use super::game::{Assists, Clock, Game, Last, Status};
use super::log::{ActionKind, Change, Link, Logged};
use super::settings::GameSettings;
use linkpath_engine::EMPTY;
use serde::{Deserialize, Serialize};

/// The format records are written in.
pub const FORMAT: u32 = 2;

/// A game read from the store, and the entries of its log the store
/// does not hold yet (a record of format 1 held them inline): the next
/// write appends them before its own.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub game: Game,
    pub unsaved: Vec<Logged>,
}

#[derive(Serialize)]
struct Record<'a> {
    format: u32,
    game: &'a Game,
}

#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    format: Option<u32>,
}

#[derive(Deserialize)]
struct Current {
    game: Game,
}

/// The record of `game`, in the current format.
pub fn encode(game: &Game) -> Vec<u8> {
    serde_json::to_vec(&Record {
        format: FORMAT,
        game,
    })
    .expect("a game serialises")
}

/// A log entry's bytes.
pub fn encode_entry(entry: &Logged) -> Vec<u8> {
    entry.encode()
}

/// A record as stored, in any format ever written; what does not read
/// says why.
pub fn decode(bytes: &[u8]) -> Result<Loaded, String> {
    let probe: Probe = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    match probe.format {
        None => {
            let v1: FormatOne = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
            upgrade(v1)
        }
        Some(FORMAT) => {
            let current: Current = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
            Ok(Loaded {
                game: current.game,
                unsaved: Vec::new(),
            })
        }
        Some(other) => Err(format!(
            "a record of format {other}, newer than this server's {FORMAT}: run the newer server"
        )),
    }
}

/// A log entry as stored.
pub fn decode_entry(bytes: &[u8]) -> Result<Logged, String> {
    serde_json::from_slice(bytes).map_err(|e| e.to_string())
}

/// A game of format 1, its history inline. Its changes and entries read
/// as today's, whose new fields are all optional.
#[derive(Deserialize)]
struct FormatOne {
    id: String,
    version: u64,
    status: Status,
    settings: GameSettings,
    dealt: Vec<u32>,
    cells: Vec<u32>,
    done: Vec<Change>,
    undone: Vec<Change>,
    log: Vec<Logged>,
    clock: Clock,
    assists: Assists,
    score: u64,
    tiles_left: usize,
    moves_open: usize,
    created_at_ms: u64,
    updated_at_ms: u64,
    last: Option<Last>,
    #[serde(default)]
    player: Option<String>,
    #[serde(default)]
    leaderboard: Option<String>,
}

/// A game of format 1 in today's: its log as entries, the stacks of
/// changes threaded through them as the actions logged made them, and
/// each change in the entry that made it.
fn upgrade(v1: FormatOne) -> Result<Loaded, String> {
    let mut log = v1.log;
    if log.len() as u64 != v1.version.saturating_add(1) {
        return Err(format!(
            "a game at version {} logs {} actions, expected one a version",
            v1.version,
            log.len()
        ));
    }
    log[0].dealt = Some(v1.dealt.clone());
    let (mut done, mut undone): (Option<Link>, Option<Link>) = (None, None);
    let below = |log: &[Logged], link: Link| log[link.at as usize].below;
    for i in 1..log.len() {
        let version = i as u64;
        match log[i].action {
            ActionKind::Move | ActionKind::Shuffle => {
                log[i].below = done;
                done = Some(Link {
                    at: version,
                    change: version,
                });
                undone = None;
            }
            ActionKind::Undo => {
                let top = done.ok_or("an undo logged with nothing to undo")?;
                done = below(&log, top);
                log[i].below = undone;
                undone = Some(Link {
                    at: version,
                    change: top.change,
                });
            }
            ActionKind::Redo => {
                let top = undone.ok_or("a redo logged with nothing to redo")?;
                undone = below(&log, top);
                log[i].below = done;
                done = Some(Link {
                    at: version,
                    change: top.change,
                });
            }
            _ => {}
        }
    }
    // Each stack's changes, top first, into the entries that made them.
    for (top, changes) in [(done, &v1.done), (undone, &v1.undone)] {
        let mut link = top;
        for change in changes.iter().rev() {
            let at = link.ok_or("more changes kept than the log made")?;
            log[at.change as usize].change = Some(change.clone());
            link = below(&log, at);
        }
        if link.is_some() {
            return Err("fewer changes kept than the log made".into());
        }
    }
    let game = Game {
        id: v1.id,
        version: v1.version,
        status: v1.status,
        settings: v1.settings,
        cells: v1.cells,
        dealt_tiles: v1.dealt.iter().filter(|&&c| c != EMPTY).count(),
        done,
        undone,
        log_bytes: log.iter().map(Logged::bytes).sum(),
        clock: v1.clock,
        assists: v1.assists,
        score: v1.score,
        tiles_left: v1.tiles_left,
        moves_open: v1.moves_open,
        created_at_ms: v1.created_at_ms,
        updated_at_ms: v1.updated_at_ms,
        last: v1.last,
        player: v1.player,
        owner: None,
        too_fast_ms: None,
        leaderboard: v1.leaderboard,
        match_id: None,
        assists_refused: false,
        last_pair_ms: None,
        combo: 0,
    };
    Ok(Loaded { game, unsaved: log })
}
