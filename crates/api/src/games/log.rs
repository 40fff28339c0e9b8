//! A game's log: one entry a version, each the action that made it, kept
//! by the store beside the game and never rewritten. The log is the
//! game's history: its replay, and its undo and redo, which walk two
//! stacks threaded through the entries ([`Link`]) so that the game itself
//! holds only the tops and an action reads at most two entries.

use crate::wire::{Moved, Point};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::ToSchema;

/// What changed a game: an action, or its time running out.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    ToSchema,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ActionKind {
    Create,
    Move,
    Hint,
    Undo,
    Redo,
    Shuffle,
    Pause,
    Resume,
    Resign,
    OutOfTime,
    RaceOver,
}

impl ActionKind {
    /// The wire name, also a metrics label.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// Every kind, for the series registered at 0.
    pub fn all() -> &'static [ActionKind] {
        <ActionKind as strum::VariantArray>::VARIANTS
    }
}

/// One change of the board, kept in its log entry so that undo takes it
/// back and redo makes it again without judging anything anew.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// A pair removed (its two tiles, as they were), then the tiles that
    /// fell.
    Move {
        from: Point,
        to: Point,
        tiles: [u32; 2],
        moved: Vec<Moved>,
    },
    /// Every listed tile moved at once: a shuffle given as its moves.
    Shuffle { moved: Vec<Moved> },
    /// A shuffle made from its entry's seed: the board before it, for
    /// undo; redo makes it again from the seed.
    Seeded { before: Vec<u32> },
}

/// A place on the stack of changes made (that undo takes back) or taken
/// back (that redo makes again): the entry that put it there, and the
/// entry that holds the change (the same for a move or a shuffle; the
/// change's own for an undo or a redo).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    pub at: u64,
    pub change: u64,
}

/// An action kept in the log, with the server's time and the downtime
/// given back to the game by then: the replay's time is the one less the
/// other, so that a replay checked again skips the downtime as the game
/// did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Logged {
    pub action: ActionKind,
    pub at_ms: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub given_back_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Point>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Point>,
    /// The board dealt, cell by cell in reading order: the creation's
    /// entry only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dealt: Option<Vec<u32>>,
    /// A shuffle the server made: the seed it is made again from, on the
    /// board before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// A shuffle given as its tiles' moves (a replay's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved: Option<Vec<Moved>>,
    /// What a move or a shuffle changed, for undo to take back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
    /// The stack below this entry, once it is on one: the changes made
    /// below a move, a shuffle or a redo; the changes taken back below an
    /// undo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below: Option<Link>,
}

impl Logged {
    /// An entry of `action` at `at_ms`, nothing else known yet.
    pub fn new(action: ActionKind, at_ms: u64, given_back_ms: u64) -> Logged {
        Logged {
            action,
            at_ms,
            given_back_ms,
            from: None,
            to: None,
            dealt: None,
            seed: None,
            moved: None,
            change: None,
            below: None,
        }
    }

    /// The entry as the store keeps it: JSON.
    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("an entry serialises")
    }

    /// What the entry counts against a game's bound on its log.
    pub fn bytes(&self) -> u64 {
        self.encode().len() as u64
    }
}

/// Where an action finds the entries it reads: the ones
/// [`super::Game::needs`] named, at least.
pub trait Log {
    fn entry(&self, version: u64) -> Option<&Logged>;
}

/// A whole log, its entries by version from 0.
impl Log for [Logged] {
    fn entry(&self, version: u64) -> Option<&Logged> {
        usize::try_from(version).ok().and_then(|i| self.get(i))
    }
}

/// Some of a log, the entries read from the store.
impl Log for BTreeMap<u64, Logged> {
    fn entry(&self, version: u64) -> Option<&Logged> {
        self.get(&version)
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
