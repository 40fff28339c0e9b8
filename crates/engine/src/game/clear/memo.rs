//! The memo of states that lead nowhere: the key of a state (its occupied
//! cells, or with gravity which of each line's starting tiles are left)
//! and the set that holds the keys in a fixed room.

use crate::EMPTY;
use crate::game::gravity::{Gravity, line_cells};

/// The most bytes the memo of failed states may hold; past it the search
/// goes on without remembering more, still exact.
const MEMO_BYTES: usize = 32 << 20;

/// The memo's key with gravity: which of each line's starting tiles are
/// left. A line's tiles never leave it and keep their order, so they are a
/// subsequence of its starting tiles, and the earliest way to pick that
/// subsequence names it exactly. Where they sit follows: a line that lost
/// a tile was compacted toward the gravity side by that removal (with
/// settling, every line is at the first removal), and one that lost none
/// holds its tiles where they started (or settled, for every state after
/// the first removal alike). So two states with the same key are the same
/// board, in an eighth of the bytes of the cells.
pub(super) struct LineKey {
    /// Each line's cells from the gravity side, and the types of the tiles
    /// it started with, in that order.
    lines: Vec<(Vec<usize>, Vec<u32>)>,
    tiles: usize,
}

impl LineKey {
    pub(super) fn new(cells: &[u32], width: usize, gravity: Gravity) -> Self {
        let lines: Vec<(Vec<usize>, Vec<u32>)> = line_cells(cells.len(), width, gravity)
            .into_iter()
            .map(|line| {
                let start = line
                    .iter()
                    .map(|&i| cells[i])
                    .filter(|&c| c != EMPTY)
                    .collect();
                (line, start)
            })
            .collect();
        let tiles = lines.iter().map(|(_, start)| start.len()).sum();
        LineKey { lines, tiles }
    }

    pub(super) fn key(&self, cells: &[u32]) -> Vec<u64> {
        let mut bits = vec![0u64; self.tiles.div_ceil(64)];
        let mut offset = 0;
        for (line, start) in &self.lines {
            let mut j = 0;
            for &c in line.iter().map(|&i| &cells[i]).filter(|&&c| c != EMPTY) {
                while start[j] != c {
                    j += 1;
                }
                bits[(offset + j) / 64] |= 1 << ((offset + j) % 64);
                j += 1;
            }
            offset += start.len();
        }
        bits
    }
}

/// A set of keys of one length, each in one array with the others and
/// found through a table of their indices (open addressing, at most half
/// full): about the key's bytes and 8 to 16 more a state, with no
/// allocation each, rather than a hash set's boxed keys. It stops growing
/// at [`MEMO_BYTES`].
#[derive(Default)]
pub(super) struct Memo {
    /// The words of every key, one after another.
    keys: Vec<u64>,
    /// 0 for an empty slot, else 1 + the key's number.
    slots: Vec<u32>,
    len: usize,
}

impl Memo {
    fn hash(key: &[u64]) -> u64 {
        key.iter().fold(key.len() as u64, |h, &w| mix(h ^ w))
    }

    /// The slot holding `key`, or the empty slot where it would go.
    fn slot(&self, key: &[u64]) -> usize {
        let mask = self.slots.len() - 1;
        let words = key.len();
        let mut at = Self::hash(key) as usize & mask;
        loop {
            match self.slots[at] {
                0 => return at,
                k => {
                    let k = (k - 1) as usize;
                    if self.keys[k * words..(k + 1) * words] == *key {
                        return at;
                    }
                }
            }
            at = (at + 1) & mask;
        }
    }

    pub(super) fn contains(&self, key: &[u64]) -> bool {
        !self.slots.is_empty() && self.slots[self.slot(key)] != 0
    }

    /// Adds `key` (every key of one length) while the memo has room.
    pub(super) fn insert(&mut self, key: &[u64]) {
        if self.contains(key) {
            return;
        }
        let words = key.len();
        if 2 * (self.len + 1) > self.slots.len() {
            let size = (self.slots.len() * 2).max(1024);
            if size * 4 + self.keys.capacity() * 8 > MEMO_BYTES {
                return;
            }
            self.slots = vec![0; size];
            for k in 0..self.len {
                let at = self.slot(&self.keys[k * words..(k + 1) * words]);
                self.slots[at] = k as u32 + 1;
            }
        }
        if self.keys.len() + words > self.keys.capacity() {
            // Grown by halves, up to the bound.
            let room = (MEMO_BYTES - self.slots.len() * 4) / 8;
            let more = (self.keys.capacity() / 2)
                .max(words * 1024)
                .min(room.saturating_sub(self.keys.len()));
            if more < words {
                return;
            }
            self.keys.reserve_exact(more);
        }
        let at = self.slot(key);
        self.keys.extend_from_slice(key);
        self.len += 1;
        self.slots[at] = self.len as u32;
    }
}

/// SplitMix64's finaliser: a well-spread hash of `x`.
pub(super) fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::gravity::{Fall, remove_pair};
    use crate::rng::SplitMix64;
    use std::collections::HashMap;

    /// The gravity key names boards exactly: along random lines of play on
    /// small boards with floating tiles and few types (so a line often
    /// holds equal tiles), every key reached after a removal belongs to one
    /// board and every board to one key.
    #[test]
    fn the_gravity_key_tells_every_board_apart() {
        let mut rng = SplitMix64::new(23);
        let (mut boards, mut merged) = (0, 0);
        for _ in 0..400 {
            let (w, h) = (1 + rng.below(4), 1 + rng.below(5));
            let start: Vec<u32> = (0..w * h).map(|_| rng.below(4) as u32).collect();
            for gravity in [Gravity::Down, Gravity::Up, Gravity::Left, Gravity::Right] {
                for settle in [false, true] {
                    let fall = Fall::new(gravity, settle);
                    let line_key = LineKey::new(&start, w, gravity);
                    let mut by_key: HashMap<Vec<u64>, Vec<u32>> = HashMap::new();
                    let mut by_board: HashMap<Vec<u32>, Vec<u64>> = HashMap::new();
                    for _ in 0..20 {
                        let mut cells = start.clone();
                        loop {
                            let tiles: Vec<usize> =
                                (0..cells.len()).filter(|&i| cells[i] != EMPTY).collect();
                            if tiles.len() < 2 {
                                break;
                            }
                            let a = tiles[rng.below(tiles.len())];
                            let b = *tiles
                                .iter()
                                .find(|&&b| b != a && rng.below(2) == 0)
                                .unwrap_or(tiles.iter().find(|&&b| b != a).expect("two tiles"));
                            remove_pair(&mut cells, w, a, b, fall);
                            let key = line_key.key(&cells);
                            boards += 1;
                            if by_key.contains_key(&key) {
                                merged += 1;
                            }
                            assert_eq!(by_key.entry(key.clone()).or_insert(cells.clone()), &cells);
                            assert_eq!(by_board.entry(cells.clone()).or_insert(key.clone()), &key);
                        }
                    }
                }
            }
        }
        assert!(merged > 1000 && boards > merged, "{merged} of {boards}");
    }

    /// The memo holds exactly the keys put in it, through every growth of
    /// its table: keys that differ in one bit are told apart.
    #[test]
    fn the_memo_holds_exactly_what_it_was_given() {
        let mut rng = SplitMix64::new(31);
        let mut memo = Memo::default();
        let mut given = std::collections::HashSet::new();
        for _ in 0..20_000 {
            let key = [rng.below(8) as u64, 1 << rng.below(64), rng.below(8) as u64];
            if rng.below(2) == 0 {
                memo.insert(&key);
                given.insert(key);
            }
            assert_eq!(memo.contains(&key), given.contains(&key), "{key:?}");
        }
        assert_eq!(memo.len, given.len());
        assert!(given.len() > 3000, "{}", given.len());
    }
}
