//! The builder of easy and medium deals (and of solvable shuffles): a
//! sequence that removes every tile of a set of cells, tile types ignored.
//! Each tile is named by its starting cell, so the sequence tells which
//! two cells each removal empties; giving each removal's pair one type
//! then makes a board that the sequence clears.
//!
//! A depth-first search: at each state the tiles in a seeded order, and
//! for each its partners (at random for an easy deal, the farthest first
//! otherwise), remembering the sets of cells that lead nowhere.

use super::Difficulty;
use crate::game::gravity::{Fall, Removed, remove_pair_undoable};
use crate::game::moves::Explorer;
use crate::rng::SplitMix64;
use crate::{Board, EMPTY, Interrupted, Match, Point, Rules, Stop};
use std::collections::HashSet;

/// One removal of the untyped sequence: the cells at its turn, and the
/// starting cells of the two tiles.
pub(in crate::game) struct Removal {
    pub from: Point,
    pub to: Point,
    pub origins: [usize; 2],
}

/// The board whose tiles at the origins of removal `k` have type
/// `slots[k]`.
pub(in crate::game) fn typed(empty: &Board, sequence: &[Removal], slots: &[u32]) -> Board {
    let mut cells = empty.cells().to_vec();
    for (removal, &kind) in sequence.iter().zip(slots) {
        for origin in removal.origins {
            cells[origin] = kind;
        }
    }
    Board::new(empty.width(), empty.height(), cells).expect("same size")
}

/// The cells a removal sequence is built over: `occupied` cells of
/// `empty` (each tile its own type, all joinable), removed under `rules`
/// with tiles falling by `fall`, partners picked as `difficulty` asks.
pub(in crate::game) struct Untyped<'b> {
    pub empty: &'b Board,
    pub occupied: &'b [usize],
    pub rules: &'b Rules,
    pub fall: Fall,
    pub difficulty: Difficulty,
}

/// A sequence that removes every tile of `untyped`, or `None` when there
/// is none.
pub(in crate::game) fn removal_sequence(
    untyped: &Untyped,
    rng: &mut SplitMix64,
    stop: &Stop,
) -> Result<Option<Vec<Removal>>, Interrupted> {
    removal_sequence_within(untyped, rng, stop, PATH_BYTES)
}

/// [`removal_sequence`], keeping lists along the path up to `path_budget`
/// bytes.
fn removal_sequence_within(
    untyped: &Untyped,
    rng: &mut SplitMix64,
    stop: &Stop,
    path_budget: usize,
) -> Result<Option<Vec<Removal>>, Interrupted> {
    let any = Rules {
        matching: Match::Any,
        ..*untyped.rules
    };
    let empty = untyped.empty;
    // Each tile is named by its starting cell + 1, so gravity carries names.
    let mut cells = vec![EMPTY; empty.cells().len()];
    for &i in untyped.occupied {
        cells[i] = i as u32 + 1;
    }
    let mut builder = Builder {
        width: empty.width(),
        height: empty.height(),
        rules: any,
        fall: untyped.fall,
        difficulty: untyped.difficulty,
        stop,
        sequence: Vec::new(),
        work: 0,
        failed: HashSet::new(),
        memo_bytes: 0,
        path_bytes: 0,
        path_budget,
    };
    Ok(builder.remove_all(cells, rng)?.then_some(builder.sequence))
}

/// The most bytes the memo of failed cell sets may hold; past it the
/// builder goes on without remembering more.
const MEMO_BYTES: usize = 16 << 20;

/// The most bytes the lists kept along the builder's path may hold; past
/// it a state's lists are drawn again, from the same generator state, when
/// the builder comes back to it.
const PATH_BYTES: usize = 16 << 20;

struct Builder<'s, 'a> {
    width: usize,
    height: usize,
    rules: Rules,
    fall: Fall,
    difficulty: Difficulty,
    stop: &'s Stop<'a>,
    sequence: Vec<Removal>,
    work: u32,
    /// Sets of occupied cells known to lead nowhere: tiles all look alike,
    /// so the set is the whole state.
    failed: HashSet<Vec<u64>>,
    memo_bytes: usize,
    path_bytes: usize,
    /// The most bytes the path's lists may take ([`PATH_BYTES`]).
    path_budget: usize,
}

/// One state on the builder's path.
struct Step {
    /// The tiles in the order they are tried, unless the path had no room
    /// to keep them, and the generator as it was before drawing that order.
    tiles: Option<Vec<u32>>,
    tiles_rng: SplitMix64,
    /// How many tiles were tried before the one being tried.
    tried: usize,
    /// The tile being tried, once its partners are drawn.
    current: Option<u32>,
    /// Its partners in the order they are tried, and the generator as it
    /// was before drawing them.
    partners: Partners,
    partners_rng: SplitMix64,
    /// The next partner to try.
    next: usize,
    /// The removal that led here, to undo on the way back.
    arrival: Option<Removed>,
}

/// The partners of the tile being tried: kept, or drawn again from the
/// saved generator when the path has no room for them.
enum Partners {
    Kept(Vec<u32>),
    Dropped,
}

impl Step {
    fn bytes(&self) -> usize {
        let list = |l: Option<&Vec<u32>>| l.map_or(0, |l| l.len() * 4);
        let partners = match &self.partners {
            Partners::Kept(p) => Some(p),
            Partners::Dropped => None,
        };
        list(self.tiles.as_ref())
            + list(partners)
            + self.arrival.as_ref().map_or(0, Removed::heap_bytes)
    }
}

impl Builder<'_, '_> {
    /// A depth-first search with an explicit stack (its depth is half the
    /// tiles), drawing from `rng` in the same order as the recursion it
    /// replaces: a state's tile order on entry, each tile's partner order
    /// when that tile is first tried.
    fn remove_all(
        &mut self,
        mut cells: Vec<u32>,
        rng: &mut SplitMix64,
    ) -> Result<bool, Interrupted> {
        let first = match self.enter(&cells, rng, None)? {
            Entry::Step(step) => step,
            Entry::Cleared => return Ok(true),
            Entry::Known(_) => return Ok(false),
        };
        let mut path = vec![first];
        // The explorer of the state on top of the path, built when needed.
        let mut explorer: Option<Explorer<'static>> = None;
        while let Some(step) = path.last_mut() {
            let (a, b) = match step.current {
                Some(a) => {
                    let b = match &step.partners {
                        Partners::Kept(partners) => partners.get(step.next).copied(),
                        Partners::Dropped => {
                            let mut again = step.partners_rng.clone();
                            self.partners(&mut explorer, &cells, a as usize, &mut again)?
                                .get(step.next)
                                .copied()
                        }
                    };
                    (a as usize, b)
                }
                None => {
                    let tile = match &step.tiles {
                        Some(tiles) => tiles.get(step.tried).copied(),
                        None => self
                            .tiles(&cells, step.tiles_rng.clone())
                            .get(step.tried)
                            .copied(),
                    };
                    let Some(a) = tile else {
                        let step = path.pop().expect("the last step");
                        self.path_bytes -= step.bytes();
                        self.remember(&cells);
                        explorer = None;
                        if let Some(arrival) = step.arrival {
                            arrival.undo(&mut cells);
                            self.sequence.pop();
                        }
                        continue;
                    };
                    step.partners_rng = rng.clone();
                    let partners = self.partners(&mut explorer, &cells, a as usize, rng)?;
                    let b = partners.first().copied();
                    let bytes = partners.len() * 4;
                    step.partners = if self.path_bytes + bytes <= self.path_budget {
                        self.path_bytes += bytes;
                        Partners::Kept(partners)
                    } else {
                        Partners::Dropped
                    };
                    step.current = Some(a);
                    step.next = 0;
                    (a as usize, b)
                }
            };
            let Some(b) = b else {
                // Every partner of this tile failed: the next tile.
                if let Partners::Kept(partners) = &step.partners {
                    self.path_bytes -= partners.len() * 4;
                }
                step.partners = Partners::Dropped;
                step.current = None;
                step.tried += 1;
                continue;
            };
            step.next += 1;
            let b = b as usize;
            let origins = [cells[a] as usize - 1, cells[b] as usize - 1];
            let arrival = remove_pair_undoable(&mut cells, self.width, a, b, self.fall);
            let point = |i: usize| Point::new((i % self.width) as i32, (i / self.width) as i32);
            self.sequence.push(Removal {
                from: point(a),
                to: point(b),
                origins,
            });
            explorer = None;
            match self.enter(&cells, rng, Some(arrival))? {
                Entry::Step(step) => path.push(step),
                Entry::Cleared => return Ok(true),
                Entry::Known(arrival) => {
                    // Known to lead nowhere: back to the state below.
                    arrival.expect("given above").undo(&mut cells);
                    self.sequence.pop();
                }
            }
        }
        Ok(false)
    }

    /// A new state: cleared, known to fail, or a step whose tile order is
    /// drawn now.
    fn enter(
        &mut self,
        cells: &[u32],
        rng: &mut SplitMix64,
        arrival: Option<Removed>,
    ) -> Result<Entry, Interrupted> {
        let tiles_rng = rng.clone();
        let mut tiles: Vec<u32> = (0..cells.len() as u32)
            .filter(|&i| cells[i as usize] != EMPTY)
            .collect();
        if tiles.is_empty() {
            return Ok(Entry::Cleared);
        }
        if self.failed.contains(&self.key(cells)) {
            return Ok(Entry::Known(arrival));
        }
        self.stop.check()?;
        rng.shuffle(&mut tiles);
        let mut step = Step {
            tiles: Some(tiles),
            tiles_rng,
            tried: 0,
            current: None,
            partners: Partners::Dropped,
            partners_rng: rng.clone(),
            next: 0,
            arrival,
        };
        if self.path_bytes + step.bytes() > self.path_budget {
            step.tiles = None;
        }
        self.path_bytes += step.bytes();
        Ok(Entry::Step(step))
    }

    /// The tiles of `cells` in the order `rng` draws.
    fn tiles(&self, cells: &[u32], mut rng: SplitMix64) -> Vec<u32> {
        let mut tiles: Vec<u32> = (0..cells.len() as u32)
            .filter(|&i| cells[i as usize] != EMPTY)
            .collect();
        rng.shuffle(&mut tiles);
        tiles
    }

    /// The tiles that tile `a` can be joined to, in the order `rng` draws.
    fn partners(
        &mut self,
        explorer: &mut Option<Explorer<'static>>,
        cells: &[u32],
        a: usize,
        rng: &mut SplitMix64,
    ) -> Result<Vec<u32>, Interrupted> {
        let explorer = explorer.get_or_insert_with(|| {
            let board = Board::new(self.width, self.height, cells.to_vec()).expect("same size");
            Explorer::owned(board, self.rules)
        });
        let mut partners = explorer.reach(a, self.stop, &mut self.work)?;
        partners.sort_unstable();
        rng.shuffle(&mut partners);
        if self.difficulty != Difficulty::Easy {
            // The distance between the starting cells, which the tiles'
            // names carry; stable, so the shuffle breaks ties.
            let w = self.width;
            let origin = |i: usize| {
                let o = cells[i] as usize - 1;
                ((o % w) as isize, (o / w) as isize)
            };
            let (ax, ay) = origin(a);
            partners.sort_by_key(|&b| {
                let (bx, by) = origin(b);
                std::cmp::Reverse((ax - bx).abs() + (ay - by).abs())
            });
        }
        Ok(partners.into_iter().map(|b| b as u32).collect())
    }

    fn key(&self, cells: &[u32]) -> Vec<u64> {
        let mut key = vec![0u64; cells.len().div_ceil(64)];
        for (t, _) in cells.iter().enumerate().filter(|&(_, &c)| c != EMPTY) {
            key[t / 64] |= 1 << (t % 64);
        }
        key
    }

    /// Remembers the cells of `cells` as a set that leads nowhere, while
    /// the memo has room.
    fn remember(&mut self, cells: &[u32]) {
        let key = self.key(cells);
        let bytes = key.len() * 8 + 48;
        if self.memo_bytes + bytes <= MEMO_BYTES {
            self.memo_bytes += bytes;
            self.failed.insert(key);
        }
    }
}
/// What entering a state found.
enum Entry {
    Step(Step),
    Cleared,
    /// Known to lead nowhere; the removal that led there, to undo.
    Known(Option<Removed>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Preset;
    use crate::game::gravity::Gravity;

    /// Lists drawn again from the saved generator, when the path keeps
    /// none, give the same removals: the same deals for the same seeds.
    #[test]
    fn a_path_that_keeps_no_list_builds_the_same_sequence() {
        let mut rng = SplitMix64::new(3);
        for seed in 0..300 {
            let (w, h) = (2 + rng.below(6), 2 + rng.below(5));
            let empty = Board::new(w, h, vec![EMPTY; w * h]).unwrap();
            let mut occupied: Vec<usize> = (0..w * h).filter(|_| rng.below(5) != 0).collect();
            occupied.truncate(occupied.len() / 2 * 2);
            for preset in [Preset::ShisenSho, Preset::Lianliankan, Preset::Mahjong] {
                let falls = [
                    Gravity::None.into(),
                    Gravity::Down.into(),
                    Gravity::Left.into(),
                    Fall::new(Gravity::Up, true),
                ];
                for fall in falls {
                    let rules = preset.rules();
                    let untyped = Untyped {
                        empty: &empty,
                        occupied: &occupied,
                        rules: &rules,
                        fall,
                        difficulty: Difficulty::Medium,
                    };
                    let build = |budget| {
                        let mut draws = SplitMix64::new(seed);
                        removal_sequence_within(&untyped, &mut draws, &Stop::never(), budget)
                            .unwrap()
                            .map(|s| {
                                s.iter()
                                    .map(|r| (r.from, r.to, r.origins))
                                    .collect::<Vec<_>>()
                            })
                    };
                    assert_eq!(
                        build(PATH_BYTES),
                        build(0),
                        "{w} x {h} {occupied:?} {preset:?} {fall:?}"
                    );
                }
            }
        }
    }
}
