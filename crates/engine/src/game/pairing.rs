//! Clearing without gravity when only tiles of one type match: a search
//! over which tile each tile is removed with, rather than over the order
//! of the moves.
//!
//! Without gravity tiles never move, so a removal only opens cells and a
//! pair that can be joined stays joinable. Once every tile's partner is
//! chosen the order no longer matters: removing any joinable chosen pair
//! never hurts the others, so removing them greedily clears the board
//! exactly when some order does. The search only chooses partners:
//!
//! - Propagation: a chosen pair that can be joined is removed at once; the
//!   last two unchosen tiles of a type are chosen for each other; and when
//!   the unchosen tiles of a type can all be paired off into pairs that
//!   can be joined now, they are removed at once. That is safe: in any
//!   clearing sequence the moves of those tiles can be replaced by these
//!   and moved to the front, as removing them first only opens cells for
//!   every later move.
//! - Branching: one tile, of a type with the fewest unchosen tiles, that
//!   has a joinable partner; each child chooses one of its possible
//!   partners, joinable ones first. Every clearing sequence pairs that tile
//!   with one of them, so nothing is lost.
//! - Dead ends: no chosen pair joinable and no unchosen tile with a
//!   joinable partner (no move left); or the chosen pairs cannot all be
//!   removed even with every unchosen tile gone (the real board only ever
//!   has more tiles in the way, so this relaxation proves failure).
//! - Memo: nodes that failed, keyed exactly by their tiles and chosen
//!   pairs.

use super::link::Links;
use crate::{EMPTY, Interrupted, Rules, Stop};
use std::collections::HashSet;

const NONE: u32 = u32::MAX;

/// The most tiles of one type this search takes: branching lists and the
/// pairing-off check grow with it.
pub(super) const MAX_COPIES: usize = 16;

/// The most unchosen tiles of a type for which propagation looks for a way
/// to pair them all off now (a small exhaustive matching).
const MATCH_TILES: usize = 8;

/// The most bytes the memo of failed nodes may hold.
const MEMO_BYTES: usize = 32 << 20;

enum Act {
    Chose(u32, u32),
    Removed(u32, u32),
}

pub(super) struct Pairing<'s, 'a> {
    cells: Vec<u32>,
    original: Vec<u32>,
    links: Links,
    relaxed: Links,
    /// The tiles of each type, in reading order.
    kinds: Vec<Vec<u32>>,
    partner: Vec<u32>,
    trail: Vec<Act>,
    failed: HashSet<Box<[u64]>>,
    memo_bytes: usize,
    /// Tiles still on the board.
    left: usize,
    pub states: u64,
    work: u32,
    stop: &'s Stop<'a>,
    /// Reused lists.
    free: Vec<u32>,
    joinable: Vec<u32>,
}

/// A node on the search path: the tile branched on and its partners to try.
struct Frame {
    /// The trail's length before the choice that led here.
    mark: usize,
    tile: u32,
    partners: Vec<u32>,
    next: usize,
}

impl<'s, 'a> Pairing<'s, 'a> {
    /// `cells` must hold an even number of tiles of each type, at most
    /// [`MAX_COPIES`] of any.
    pub fn new(width: usize, cells: &[u32], rules: &Rules, stop: &'s Stop<'a>) -> Self {
        let mut types: Vec<u32> = cells.iter().copied().filter(|&c| c != EMPTY).collect();
        types.sort_unstable();
        types.dedup();
        let mut kinds = vec![Vec::new(); types.len()];
        for (i, &c) in cells.iter().enumerate() {
            if c != EMPTY {
                let k = types.binary_search(&c).expect("a type of the board");
                kinds[k].push(i as u32);
            }
        }
        Pairing {
            cells: cells.to_vec(),
            original: cells.to_vec(),
            links: Links::new(width, cells, rules),
            relaxed: Links::new(width, cells, rules),
            kinds,
            partner: vec![NONE; cells.len()],
            trail: Vec::new(),
            failed: HashSet::new(),
            memo_bytes: 0,
            left: cells.iter().filter(|&&c| c != EMPTY).count(),
            states: 0,
            work: 0,
            stop,
            free: Vec::new(),
            joinable: Vec::new(),
        }
    }

    /// A clearing sequence (board indices, in order), or `None` when the
    /// search proved there is none.
    pub fn run(&mut self) -> Result<Option<Vec<(usize, usize)>>, Interrupted> {
        self.propagate()?;
        if self.cleared() {
            return Ok(Some(self.sequence()));
        }
        let Some((tile, partners)) = self.expand()? else {
            return Ok(None);
        };
        let mut path = vec![Frame {
            mark: 0,
            tile,
            partners,
            next: 0,
        }];
        while let Some(frame) = path.last_mut() {
            let Some(&p) = frame.partners.get(frame.next) else {
                let frame = path.pop().expect("the last frame");
                let key = self.key();
                self.remember(key);
                self.undo(frame.mark);
                continue;
            };
            frame.next += 1;
            let tile = frame.tile;
            let mark = self.trail.len();
            self.choose(tile, p);
            self.propagate()?;
            if self.cleared() {
                return Ok(Some(self.sequence()));
            }
            let key = self.key();
            if self.failed.contains(&key) {
                self.undo(mark);
                continue;
            }
            match self.expand()? {
                Some((tile, partners)) => path.push(Frame {
                    mark,
                    tile,
                    partners,
                    next: 0,
                }),
                None => {
                    self.remember(key);
                    self.undo(mark);
                }
            }
        }
        Ok(None)
    }

    fn cleared(&self) -> bool {
        self.left == 0
    }

    fn sequence(&self) -> Vec<(usize, usize)> {
        self.trail
            .iter()
            .filter_map(|a| match *a {
                Act::Removed(a, b) => Some((a as usize, b as usize)),
                Act::Chose(..) => None,
            })
            .collect()
    }

    fn choose(&mut self, a: u32, b: u32) {
        self.partner[a as usize] = b;
        self.partner[b as usize] = a;
        self.trail.push(Act::Chose(a, b));
    }

    fn remove(&mut self, a: u32, b: u32) {
        for t in [a, b] {
            self.cells[t as usize] = EMPTY;
            self.links.set_open(t as usize, true);
        }
        self.left -= 2;
        self.trail.push(Act::Removed(a, b));
    }

    /// Takes back every choice and removal past the trail's first `mark`.
    fn undo(&mut self, mark: usize) {
        while self.trail.len() > mark {
            match self.trail.pop().expect("longer than mark") {
                Act::Chose(a, b) => {
                    self.partner[a as usize] = NONE;
                    self.partner[b as usize] = NONE;
                }
                Act::Removed(a, b) => {
                    self.left += 2;
                    for t in [a as usize, b as usize] {
                        self.cells[t] = self.original[t];
                        self.links.set_open(t, false);
                    }
                }
            }
        }
    }

    fn connected(&mut self, a: u32, b: u32) -> Result<bool, Interrupted> {
        self.stop.tick(&mut self.work)?;
        Ok(self.links.connected(a as usize, b as usize))
    }

    /// The tiles of type `k` still on the board with no partner chosen.
    fn unchosen(&mut self, k: usize) {
        self.free.clear();
        for &t in &self.kinds[k] {
            if self.cells[t as usize] != EMPTY && self.partner[t as usize] == NONE {
                self.free.push(t);
            }
        }
    }

    /// Applies the forced choices and safe removals until none is left.
    fn propagate(&mut self) -> Result<(), Interrupted> {
        loop {
            let mut changed = false;
            for k in 0..self.kinds.len() {
                for i in 0..self.kinds[k].len() {
                    let a = self.kinds[k][i];
                    let b = self.partner[a as usize];
                    if b != NONE
                        && a < b
                        && self.cells[a as usize] != EMPTY
                        && self.connected(a, b)?
                    {
                        self.remove(a, b);
                        changed = true;
                    }
                }
                self.unchosen(k);
                match self.free.len() {
                    2 => {
                        let (a, b) = (self.free[0], self.free[1]);
                        self.choose(a, b);
                        if self.connected(a, b)? {
                            self.remove(a, b);
                            changed = true;
                        }
                    }
                    4..=MATCH_TILES => {
                        if let Some(pairs) = self.pair_off()? {
                            for (a, b) in pairs {
                                self.choose(a, b);
                                self.remove(a, b);
                            }
                            changed = true;
                        }
                    }
                    _ => {}
                }
            }
            if !changed {
                return Ok(());
            }
        }
    }

    /// A way to pair off every tile of `self.free` into pairs joinable now.
    fn pair_off(&mut self) -> Result<Option<Vec<(u32, u32)>>, Interrupted> {
        let free = self.free.clone();
        let n = free.len();
        let mut adjacent = vec![0u64; n];
        for i in 0..n {
            for j in i + 1..n {
                if self.connected(free[i], free[j])? {
                    adjacent[i] |= 1 << j;
                    adjacent[j] |= 1 << i;
                }
            }
        }
        Ok(perfect_pairing(&adjacent)
            .map(|pairs| pairs.into_iter().map(|(i, j)| (free[i], free[j])).collect()))
    }

    /// The tile to branch on and its partners in the order to try, or
    /// `None` when the node is a dead end.
    fn expand(&mut self) -> Result<Option<(u32, Vec<u32>)>, Interrupted> {
        self.states += 1;
        if self.states % 64 == 1 {
            self.stop.check()?;
        }
        if self.relaxed_fails()? {
            return Ok(None);
        }
        // (unchosen tiles of the type, joinable partners, tile, partners)
        let mut best: Option<(usize, usize, u32, Vec<u32>)> = None;
        for k in 0..self.kinds.len() {
            self.unchosen(k);
            let n = self.free.len();
            if n < 2 || best.as_ref().is_some_and(|b| b.0 < n) {
                continue;
            }
            let free = self.free.clone();
            for (i, &t) in free.iter().enumerate() {
                self.joinable.clear();
                for (j, &u) in free.iter().enumerate() {
                    if i != j && self.connected(t, u)? {
                        self.joinable.push(u);
                    }
                }
                let count = self.joinable.len();
                if count == 0 || best.as_ref().is_some_and(|b| (b.0, b.1) <= (n, count)) {
                    continue;
                }
                let mut partners = self.joinable.clone();
                partners.extend(
                    free.iter()
                        .copied()
                        .filter(|&u| u != t && !self.joinable.contains(&u)),
                );
                best = Some((n, count, t, partners));
            }
        }
        Ok(best.map(|(_, _, t, partners)| (t, partners)))
    }

    /// Whether the chosen pairs still on the board cannot all be removed
    /// even with every unchosen tile gone.
    fn relaxed_fails(&mut self) -> Result<bool, Interrupted> {
        let mut pairs = Vec::new();
        self.relaxed.reset(&self.cells);
        for (a, &c) in self.cells.iter().enumerate() {
            if c == EMPTY {
                continue;
            }
            let b = self.partner[a];
            if b == NONE {
                self.relaxed.set_open(a, true);
            } else if (a as u32) < b {
                pairs.push((a, b as usize));
            }
        }
        let clears = self
            .relaxed
            .clears_greedily(pairs, self.stop, &mut self.work)?;
        Ok(!clears)
    }

    /// The node's exact key: its tiles, then its chosen pairs.
    fn key(&self) -> Box<[u64]> {
        let mut key = vec![0u64; self.cells.len().div_ceil(64)];
        for (i, &c) in self.cells.iter().enumerate() {
            if c != EMPTY {
                key[i / 64] |= 1 << (i % 64);
                let b = self.partner[i];
                if b != NONE && (i as u32) < b {
                    key.push((i as u64) << 32 | u64::from(b));
                }
            }
        }
        key.into_boxed_slice()
    }

    fn remember(&mut self, key: Box<[u64]>) {
        let bytes = key.len() * 8 + 48;
        if self.memo_bytes + bytes <= MEMO_BYTES {
            self.memo_bytes += bytes;
            self.failed.insert(key);
        }
    }
}

/// A way to pair off all of at most 64 items, `adjacent[i]` having bit `j`
/// set when `i` and `j` may be paired: a depth-first search over the lowest
/// unpaired item, so its depth is at most 32.
pub(super) fn perfect_pairing(adjacent: &[u64]) -> Option<Vec<(usize, usize)>> {
    fn pair(left: u64, adjacent: &[u64], out: &mut Vec<(usize, usize)>) -> bool {
        if left == 0 {
            return true;
        }
        let i = left.trailing_zeros() as usize;
        let mut options = adjacent[i] & left & !(1 << i);
        while options != 0 {
            let j = options.trailing_zeros() as usize;
            options &= options - 1;
            out.push((i, j));
            if pair(left & !(1 << i) & !(1 << j), adjacent, out) {
                return true;
            }
            out.pop();
        }
        false
    }
    let n = adjacent.len();
    debug_assert!(n <= 64);
    let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let mut out = Vec::new();
    pair(all, adjacent, &mut out).then_some(out)
}
