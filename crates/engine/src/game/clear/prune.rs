//! What the search may skip or take at once, and the order of the rest:
//! forced moves, whole types that pair off, dead ends (a type with two
//! tiles left that can never be removed), and the most-constrained-first
//! order, with another fixed order each restart round.

use super::Halt;
use super::memo::mix;
use super::search::Search;
use crate::game::gravity::remove_pair;
use crate::game::link::Links;
use crate::game::pairing::perfect_pairing;
use crate::{Answer, Board, EMPTY, Interrupted, Match, Query, Solver};
use std::collections::HashMap;

impl Search<'_, '_> {
    /// Whether the types with two tiles left cannot all be removed even
    /// with every other tile gone: without gravity the real board only has
    /// more tiles in the way, so no order clears it. Tried greedily, which
    /// is exact when removals only open cells.
    fn relaxed_dead(&self, cells: &[u32], left: &[usize]) -> Result<bool, Interrupted> {
        let only: Vec<u32> = cells
            .iter()
            .map(|&c| {
                if c != EMPTY && left[c as usize] == 2 {
                    c
                } else {
                    EMPTY
                }
            })
            .collect();
        let mut by_type: HashMap<u32, Vec<usize>> = HashMap::new();
        for (i, &c) in only.iter().enumerate().filter(|&(_, &c)| c != EMPTY) {
            by_type.entry(c).or_default().push(i);
        }
        let pairs = by_type.into_values().map(|t| (t[0], t[1])).collect();
        let mut links = Links::new(self.width, &only, &self.rules);
        let mut work = 0;
        Ok(!links.clears_greedily(pairs, self.stop, &mut work)?)
    }

    /// The first removal of a type whose tiles all pair off
    /// into joinable pairs (from `pairs`) that can be removed, in some
    /// order, without moving any other tile. Taking them first is safe:
    /// those tiles have nothing beyond them on their lines, so they never
    /// move the others, with or without them; in a clearing sequence their
    /// moves can be dropped and done first, every later board then holds
    /// the same tiles in the same cells, fewer of them.
    fn settled_pair(
        &self,
        cells: &[u32],
        left: &[usize],
        pairs: &[(usize, usize)],
    ) -> Option<(usize, usize)> {
        let mut by_type: HashMap<u32, Vec<(usize, usize)>> = HashMap::new();
        for &(a, b) in pairs {
            by_type.entry(cells[a]).or_default().push((a, b));
        }
        let mut kinds: Vec<_> = by_type.into_iter().collect();
        kinds.sort_unstable();
        for (kind, joinable) in kinds {
            let n = left[kind as usize];
            if n > 8 {
                continue;
            }
            let tiles: Vec<usize> = (0..cells.len()).filter(|&i| cells[i] == kind).collect();
            let Some(matching) = perfect_matching(&tiles, &joinable) else {
                continue;
            };
            let (width, fall) = (self.width, self.fall());
            let moves_nothing = |board: &[u32], a: usize, b: usize| {
                let mut after = board.to_vec();
                remove_pair(&mut after, width, a, b, fall);
                let mut expected = board.to_vec();
                expected[a] = EMPTY;
                expected[b] = EMPTY;
                after == expected
            };
            let mut board = cells.to_vec();
            let mut remaining = matching;
            let mut first = None;
            while let Some(k) = remaining
                .iter()
                .position(|&(a, b)| moves_nothing(&board, a, b))
            {
                let (a, b) = remaining.swap_remove(k);
                first.get_or_insert((a, b));
                board[a] = EMPTY;
                board[b] = EMPTY;
            }
            if remaining.is_empty() {
                return first;
            }
        }
        None
    }

    /// The moves to try, in order; empty when the state is dead.
    pub(super) fn order(
        &self,
        board: &Board,
        mut pairs: Vec<(usize, usize)>,
    ) -> Result<Vec<(usize, usize)>, Halt> {
        let cells = board.cells();
        let left = self.left(cells);
        if self.same_rules_pruning() {
            if let Some(&forced) = pairs.iter().find(|&&(a, _)| left[cells[a] as usize] == 2) {
                return Ok(vec![forced]);
            }
            let dead = if self.options.relaxed {
                self.relaxed_dead(cells, &left)?
            } else {
                self.dead(board, &left)?
            };
            if dead {
                return Ok(Vec::new());
            }
        }
        if self.options.whole_type
            && self.rules.matching == Match::Same
            && let Some(first) = self.settled_pair(cells, &left, &pairs)
        {
            return Ok(vec![first]);
        }
        if self.round > 0 {
            // Another order each round, the same for every visit.
            let round = u64::from(self.round);
            pairs.sort_by_key(|&(a, b)| mix(round << 48 ^ (a as u64) << 24 ^ b as u64));
            return Ok(pairs);
        }
        if self.options.ordering {
            let mut open = vec![0; self.kinds + 1];
            for &(a, _) in &pairs {
                open[cells[a] as usize] += 1;
            }
            // Stable: reading order breaks ties.
            pairs.sort_by_key(|&(a, _)| (left[cells[a] as usize], open[cells[a] as usize]));
        }
        Ok(pairs)
    }

    /// Whether some type with two tiles left can never be removed (see the
    /// module docs). Only called without gravity, where tiles never move.
    fn dead(&self, board: &Board, left: &[usize]) -> Result<bool, Interrupted> {
        let cells = board.cells();
        let mut two: HashMap<u32, Vec<usize>> = HashMap::new();
        for (i, &c) in cells.iter().enumerate() {
            if c != EMPTY && left[c as usize] == 2 {
                two.entry(c).or_default().push(i);
            }
        }
        let mut blocked: Vec<[usize; 2]> = Vec::new();
        let mut solver = Solver::new(board, self.rules);
        let mut kinds: Vec<_> = two.into_values().collect();
        kinds.sort_unstable();
        for tiles in kinds {
            let [a, b] = [tiles[0], tiles[1]];
            let connected = solver
                .answer(Query::new(self.point(a), self.point(b)), self.stop)?
                .segments()
                .is_some();
            if !connected {
                blocked.push([a, b]);
            }
        }
        // Bounded work per state: the pairwise check is quadratic.
        blocked.truncate(12);
        let alone = |tiles: &[usize]| -> Result<bool, Interrupted> {
            let mut only = vec![EMPTY; cells.len()];
            for &t in tiles {
                only[t] = cells[t];
            }
            let only = Board::new(self.width, self.height, only).expect("same size");
            let mut solver = Solver::new(&only, self.rules);
            let answer = solver.answer(
                Query::new(self.point(tiles[0]), self.point(tiles[1])),
                self.stop,
            )?;
            Ok(matches!(answer, Answer::Connected(_)))
        };
        for p in &blocked {
            if !alone(p)? {
                return Ok(true);
            }
        }
        for (i, p) in blocked.iter().enumerate() {
            for q in &blocked[i + 1..] {
                let both = [p[0], p[1], q[0], q[1]];
                if !alone(&both)? && !alone(&[q[0], q[1], p[0], p[1]])? {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }
}

/// A way to pair off every tile of `tiles` (at most 32) using only
/// `joinable` pairs.
fn perfect_matching(tiles: &[usize], joinable: &[(usize, usize)]) -> Option<Vec<(usize, usize)>> {
    let n = tiles.len();
    if n > 32 || !n.is_multiple_of(2) {
        return None;
    }
    let index = |t: usize| tiles.iter().position(|&x| x == t);
    let mut adjacent = vec![0u64; n];
    for &(a, b) in joinable {
        if let (Some(i), Some(j)) = (index(a), index(b)) {
            adjacent[i] |= 1 << j;
            adjacent[j] |= 1 << i;
        }
    }
    perfect_pairing(&adjacent).map(|pairs| {
        pairs
            .into_iter()
            .map(|(i, j)| (tiles[i], tiles[j]))
            .collect()
    })
}
