//! Hard deals: tiles placed at random, then repaired where play gets stuck
//! until the board can be cleared. A repair swaps the types of two tiles
//! that no removal so far involved, so every removal before stays legal;
//! of the swaps at hand it takes one that opens the fewest moves at the
//! start. Of a few such placements the deal keeps the hardest, by its
//! moves open and by how many random playouts clear it.

use super::measure::{MoveLister, playouts};
use super::{Deal, DealError, Dealt, MOVES_OPEN_LIMIT, Measured, candidate_seed, layout, stats};
use crate::game::clear::{ClearOptions, Clearing, clear_with};
use crate::game::gravity::{Fall, remove_pair};
use crate::game::moves::{self, Explorer};
use crate::rng::SplitMix64;
use crate::{Board, EMPTY, Interrupted, Match, Point, Rules, Stop};
use std::collections::BTreeMap;

/// How many random placements a [`Difficulty::Hard`](super::Difficulty::Hard) deal repairs and
/// compares on a board of up to 144 tiles; on a bigger one fewer, in
/// proportion (at least one), as each costs work in proportion to its
/// tiles.
pub const HARD_CANDIDATES: u64 = 8;

/// How many times a hard deal asks [`super::clear`] about one placement
/// (each time within twice its tiles in states), repairing it once
/// between two.
pub const HARD_CHECKS: usize = 8;

/// The most states times tiles that [`super::clear`] may search over all
/// of a hard deal's placements (12,000 states of an 18 x 8 board): a budget
/// in work, not time, so the deal is the same on every machine, and a
/// state of a bigger board costs more.
pub const HARD_WORK: u64 = 12_000 * 144;

/// The random playouts a hard deal compares its placements by, drawn
/// apart from those of [`stats`] so that the stats measure the deal
/// chosen afresh.
pub const HARD_PLAYOUTS: u32 = 16;

/// Where play is stuck, a hard deal's repair explores from this many
/// tiles that have a partner (those beside an open cell first) for pairs
/// that can be joined whatever their types ...
const REPAIR_SOURCES: usize = 8;

/// ... and weighs the swaps of this many of those pairs, drawn at random.
/// Every pair of the board (about 300 on 18 x 8 Shisen-Sho) gave deals as
/// hard, and took 3.5 times as long on 80 x 50: exploring from every tile
/// at every stuck point grows with the square of the board.
const REPAIR_PAIRS: usize = 32;

/// How many moves open one of [`HARD_PLAYOUTS`] that clears a placement
/// weighs when a hard deal compares them. With four, Shisen-Sho deals with
/// gravity down kept 3% of random playouts clearing them (median, 18 x 8),
/// against 0% to 3% for random solvable boards; with eight, 0%.
pub const CLEAR_WEIGHT: u64 = 8;

/// Mixed into the seed for [`HARD_PLAYOUTS`].
const SEARCH_PLAYOUTS_SEED: u64 = 0x5EA2_C4D1_7B3F_0A95;

/// A [`Difficulty::Hard`](super::Difficulty::Hard) deal, or `None` when every placement left tiles
/// that no two could be joined.
pub(super) fn deal_placed(deal: &Deal, stop: &Stop) -> Result<Option<Measured>, DealError> {
    let Deal {
        width,
        height,
        tiles,
        layout: shape,
        ref rules,
        fall,
        seed,
        ..
    } = *deal;
    let mut kinds = Vec::new();
    for &(kind, copies) in tiles {
        if copies % 2 != 0 {
            return Err(DealError::OddCopies { kind, copies });
        }
        kinds.extend(std::iter::repeat_n(kind, copies));
    }
    // Checked once, before any work; a layout draws nothing.
    layout::cells(
        width,
        height,
        shape,
        kinds.len(),
        fall,
        &mut SplitMix64::new(seed),
        stop,
    )?;
    let tiles = kinds.len().max(1) as u64;
    let candidates = (HARD_CANDIDATES * 144 / tiles).clamp(1, HARD_CANDIDATES);
    let most_states = HARD_WORK / tiles;
    let mut states = 0;
    // Smaller is harder.
    let mut best: Option<(u64, Dealt)> = None;
    for k in 0..candidates {
        let mut rng = SplitMix64::new(if k == 0 {
            seed
        } else {
            candidate_seed(seed, k)
        });
        let occupied = layout::cells(width, height, shape, kinds.len(), fall, &mut rng, stop)?;
        rng.shuffle(&mut kinds);
        let mut cells = vec![EMPTY; width * height];
        for (&i, &kind) in occupied.iter().zip(&kinds) {
            cells[i] = kind;
        }
        let mut dealt = None;
        for _ in 0..HARD_CHECKS {
            if states >= most_states {
                break;
            }
            let board = Board::new(width, height, cells.clone())?;
            let options = ClearOptions {
                max_states: Some((2 * tiles).min(most_states - states)),
                ..ClearOptions::for_fall(fall)
            };
            let outcome = clear_with(&board, rules, &options, stop)?;
            states += outcome.states;
            if let Clearing::Solved(sequence) = outcome.result {
                dealt = Some((board, sequence));
                break;
            }
            match repair(&mut cells, width, rules, fall, Some(1), &mut rng, stop)? {
                Repair::Cleared(sequence) => {
                    dealt = Some((Board::new(width, height, cells.clone())?, sequence));
                    break;
                }
                Repair::Swapped => {}
                Repair::Stuck => break,
            }
        }
        let dealt = match dealt {
            Some(dealt) => dealt,
            None => match repair(&mut cells, width, rules, fall, None, &mut rng, stop)? {
                Repair::Cleared(sequence) => (Board::new(width, height, cells)?, sequence),
                Repair::Swapped | Repair::Stuck => continue,
            },
        };
        if candidates == 1 {
            // Nothing to compare it with: its playouts would be wasted (on
            // 100 x 100, two thirds of the deal).
            best = Some((0, dealt));
            break;
        }
        let open = moves::pairs(&dealt.0, *rules, Some(MOVES_OPEN_LIMIT), stop)?.len();
        let cleared = playouts(
            &dealt.0,
            rules,
            fall,
            seed ^ SEARCH_PLAYOUTS_SEED,
            HARD_PLAYOUTS,
            stop,
        )?;
        let hardness = CLEAR_WEIGHT * u64::from(cleared) + open as u64;
        if best.as_ref().is_none_or(|(b, _)| hardness < *b) {
            best = Some((hardness, dealt));
        }
    }
    let Some((_, (board, moves))) = best else {
        return Ok(None);
    };
    let measured = stats(&board, rules, fall, seed, stop)?;
    Ok(Some((board, moves, measured)))
}

/// Plays `cells` out from the start: a pair that clears a type's last
/// tiles, or whose type's other two tiles join too, when there is one,
/// else a random move. Where no move is left, it picks two tiles left that
/// can be joined (whatever their types) and swaps the type of the second
/// with that of another tile of the first's type: of the swaps for
/// [`REPAIR_PAIRS`] such pairs drawn at random from those of
/// [`REPAIR_SOURCES`] tiles, one that opens the fewest moves on the board
/// as dealt. The removals so far involve neither tile, so they stay
/// legal. The tiles keep their cells: `cells` is the board as dealt, with
/// the swaps, and stops after `most_repairs` swaps.
fn repair(
    cells: &mut [u32],
    width: usize,
    rules: &Rules,
    fall: Fall,
    most_repairs: Option<usize>,
    rng: &mut SplitMix64,
    stop: &Stop,
) -> Result<Repair, Interrupted> {
    let height = cells.len() / width;
    let any = Rules {
        matching: Match::Any,
        ..*rules
    };
    let start = Board::new(width, height, cells.to_vec()).expect("same size");
    let mut lister = MoveLister::new(&start, rules);
    let start_open = Joinable::new(&start, any, stop)?;
    // Each tile is named by its starting cell + 1, so gravity carries names.
    let mut names: Vec<u32> = (0..cells.len())
        .map(|i| {
            if cells[i] == EMPTY {
                EMPTY
            } else {
                i as u32 + 1
            }
        })
        .collect();
    let mut view = vec![EMPTY; cells.len()];
    let mut sequence = Vec::new();
    let mut repairs = 0;
    let mut work = 0;
    let point = |i: usize| Point::new((i % width) as i32, (i / width) as i32);
    loop {
        let mut left: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, &name) in names.iter().enumerate() {
            stop.tick(&mut work)?;
            view[i] = if name == EMPTY {
                EMPTY
            } else {
                cells[name as usize - 1]
            };
            if view[i] != EMPTY {
                left.entry(view[i]).or_default().push(i);
            }
        }
        if left.is_empty() {
            return Ok(Repair::Cleared(sequence));
        }
        let pairs = lister.list(&view, stop)?;
        let (a, b) = if pairs.is_empty() {
            let board = Board::new(width, height, view.clone()).expect("same size");
            let mut joinable = joinable_pairs(&board, any, rng, stop)?;
            if joinable.is_empty() {
                return Ok(Repair::Stuck);
            }
            // Of the swaps for a few such pairs, one that opens the fewest
            // moves at the start: a stuck point early in play is nearly
            // the starting board, so a swap at random mostly makes two
            // touching tiles one type.
            let mut fewest = i64::MAX;
            let mut swaps: Vec<(usize, usize, usize)> = Vec::new();
            for &(p, q) in rng.sample(&mut joinable, REPAIR_PAIRS) {
                for (x, y) in [(p, q), (q, p)] {
                    for &z in left[&view[x]].iter().filter(|&&z| z != x) {
                        stop.tick(&mut work)?;
                        let (u, v) = (names[y] as usize - 1, names[z] as usize - 1);
                        let before = start_open.around(cells, u) + start_open.around(cells, v);
                        cells.swap(u, v);
                        let after = start_open.around(cells, u) + start_open.around(cells, v);
                        cells.swap(u, v);
                        let opened = after as i64 - before as i64;
                        if opened < fewest {
                            fewest = opened;
                            swaps.clear();
                        }
                        if opened == fewest {
                            swaps.push((x, y, z));
                        }
                    }
                }
            }
            let (x, y, z) = swaps[rng.below(swaps.len())];
            cells.swap(names[y] as usize - 1, names[z] as usize - 1);
            let (x, y) = (x.min(y), x.max(y));
            repairs += 1;
            if most_repairs.is_some_and(|most| repairs >= most) {
                return Ok(Repair::Swapped);
            }
            (x, y)
        } else {
            // Safe without gravity: removing them never blocks a path.
            let safe: Vec<(usize, usize)> = pairs
                .iter()
                .copied()
                .filter(|&(a, b)| {
                    let same = &left[&view[a]];
                    match same.len() {
                        2 => true,
                        4 => {
                            let mut rest = same.iter().copied().filter(|&i| i != a && i != b);
                            let (c, d) = (rest.next().expect("four"), rest.next().expect("four"));
                            pairs.binary_search(&(c.min(d), c.max(d))).is_ok()
                        }
                        _ => false,
                    }
                })
                .collect();
            if safe.is_empty() {
                pairs[rng.below(pairs.len())]
            } else {
                safe[rng.below(safe.len())]
            }
        };
        sequence.push((point(a), point(b)));
        remove_pair(&mut names, width, a, b, fall);
    }
}

/// Pairs of tiles of `board` that can be joined whatever their types
/// (`any` matches any two): those of [`REPAIR_SOURCES`] tiles drawn at
/// random that have a partner, each pair once, in the order found; none
/// only when no two tiles can be joined. Exploring from a few tiles
/// rather than all keeps a repair in proportion to the board, not to its
/// square.
fn joinable_pairs(
    board: &Board,
    any: Rules,
    rng: &mut SplitMix64,
    stop: &Stop,
) -> Result<Vec<(usize, usize)>, Interrupted> {
    let (width, height) = (board.width(), board.height());
    let cells = board.cells();
    // A tile with an open cell beside it can reach far; one shut in joins
    // only its neighbours, which touch on the board as dealt too. So the
    // tiles that can leave come first, each group in random order.
    let open = |x: i64, y: i64| {
        if x < 0 || y < 0 || x >= width as i64 || y >= height as i64 {
            any.outside
        } else {
            cells[y as usize * width + x as usize] == EMPTY
        }
    };
    let leaves = |i: usize| {
        let (x, y) = ((i % width) as i64, (i / width) as i64);
        open(x - 1, y) || open(x + 1, y) || open(x, y - 1) || open(x, y + 1)
    };
    let (mut tiles, mut shut): (Vec<usize>, Vec<usize>) = (0..cells.len())
        .filter(|&i| cells[i] != EMPTY)
        .partition(|&i| leaves(i));
    rng.shuffle(&mut tiles);
    rng.shuffle(&mut shut);
    tiles.extend(shut);
    let mut explorer = Explorer::new(board, any);
    let mut explored = vec![false; board.cells().len()];
    let mut pairs = Vec::new();
    let mut sources = 0;
    let mut work = 0;
    for a in tiles {
        if sources == REPAIR_SOURCES {
            break;
        }
        explored[a] = true;
        let mut partners = explorer.reach(a, stop, &mut work)?;
        if partners.is_empty() {
            continue;
        }
        sources += 1;
        partners.sort_unstable();
        pairs.extend(
            partners
                .into_iter()
                .filter(|&b| !explored[b])
                .map(|b| (a.min(b), a.max(b))),
        );
    }
    Ok(pairs)
}

/// For each cell of a board, the cells whose tiles it can be joined with
/// whatever their types: the moves a board can have, as the cells stand.
/// Cell `c`'s are `with[first[c]..first[c + 1]]`.
struct Joinable {
    first: Vec<u32>,
    with: Vec<u32>,
}

impl Joinable {
    fn new(board: &Board, any: Rules, stop: &Stop) -> Result<Self, Interrupted> {
        let pairs = moves::pairs(board, any, Some(MOVES_OPEN_LIMIT), stop)?;
        let mut first = vec![0u32; board.cells().len() + 1];
        for &(a, b) in &pairs {
            first[a + 1] += 1;
            first[b + 1] += 1;
        }
        for c in 1..first.len() {
            first[c] += first[c - 1];
        }
        let mut next = first.clone();
        let mut with = vec![0u32; 2 * pairs.len()];
        for (a, b) in pairs {
            for (from, to) in [(a, b), (b, a)] {
                with[next[from] as usize] = to as u32;
                next[from] += 1;
            }
        }
        Ok(Joinable { first, with })
    }

    /// The moves open with the tile at `cell` when the cells hold `cells`.
    fn around(&self, cells: &[u32], cell: usize) -> usize {
        let (from, to) = (self.first[cell] as usize, self.first[cell + 1] as usize);
        self.with[from..to]
            .iter()
            .filter(|&&c| cells[c as usize] == cells[cell])
            .count()
    }
}

/// How a [`repair`] ended.
enum Repair {
    /// The tiles all removed, by these moves.
    Cleared(Vec<(Point, Point)>),
    /// As many swaps made as asked.
    Swapped,
    /// Stuck with tiles left of which no two can be joined.
    Stuck,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Preset;
    use crate::game::gravity::Gravity;
    use std::collections::HashSet;

    /// The moves of a Lianliankan repair of `cells` (`width` wide) that
    /// clears them, drawn from `seed`.
    fn cleared_by_repair(cells: &mut [u32], width: usize, seed: u64) -> Vec<(Point, Point)> {
        let rules = Preset::Lianliankan.rules();
        let mut rng = SplitMix64::new(seed);
        let repaired = repair(
            cells,
            width,
            &rules,
            Gravity::None.into(),
            None,
            &mut rng,
            &Stop::never(),
        );
        match repaired {
            Ok(Repair::Cleared(moves)) => moves,
            _ => panic!("not cleared: {cells:?}"),
        }
    }

    /// A crossed square under Lianliankan has no move: the repair swaps the
    /// types of two tiles so that two that touch match, and clears it.
    #[test]
    fn a_stuck_board_is_repaired_by_one_swap_and_cleared() {
        let rules = Preset::Lianliankan.rules();
        let (a, b) = (1, 2);
        let mut rng = SplitMix64::new(0);
        let mut once = vec![a, b, b, a];
        let swapped = repair(
            &mut once,
            2,
            &rules,
            Gravity::None.into(),
            Some(1),
            &mut rng,
            &Stop::never(),
        );
        assert!(matches!(swapped, Ok(Repair::Swapped)));
        let mut cells = vec![a, b, b, a];
        let moves = cleared_by_repair(&mut cells, 2, 0);
        assert_eq!(cells, once);
        assert_eq!(cells, vec![b, a, b, a]);
        let point = |x, y| Point::new(x, y);
        assert_eq!(
            moves,
            vec![(point(1, 0), point(1, 1)), (point(0, 0), point(0, 1))]
        );
    }

    /// A row `a b a b` under Lianliankan has no move. Making the first
    /// two one type (`a a b b`) would open two moves at the start; the
    /// repair takes a swap that opens one, whatever its generator draws.
    #[test]
    fn a_repair_opens_the_fewest_moves_at_the_start() {
        let (a, b) = (1, 2);
        let mut seen = HashSet::new();
        for seed in 0..32 {
            let mut cells = vec![a, b, a, b];
            let moves = cleared_by_repair(&mut cells, 4, seed);
            assert!(cells == [a, b, b, a] || cells == [b, a, a, b], "{cells:?}");
            let point = |x| Point::new(x, 0);
            assert_eq!(moves, vec![(point(1), point(2)), (point(0), point(3))]);
            seen.insert(cells);
        }
        assert_eq!(seen.len(), 2, "both swaps that open one move are drawn");
    }

    /// On small random boards under every preset, the pairs a repair
    /// weighs are joinable pairs of the board, each once, and there are
    /// none only when the board has none.
    #[test]
    fn a_repair_weighs_joinable_pairs_and_finds_one_when_there_is_one() {
        let mut rng = SplitMix64::new(11);
        let (mut found, mut none) = (0, 0);
        for _ in 0..600 {
            let (w, h) = (1 + rng.below(6), 1 + rng.below(5));
            let fill = 10 + rng.below(80);
            let board = Board::new(w, h, rng.occupancy(w * h, fill)).unwrap();
            // One straight segment leaves many tiles without a partner.
            let straight = Rules {
                max_segments: Some(1),
                outside: false,
                ..Preset::Lianliankan.rules()
            };
            let rule_sets = [Preset::ShisenSho, Preset::Lianliankan, Preset::Mahjong]
                .map(Preset::rules)
                .into_iter()
                .chain([straight]);
            for rules in rule_sets {
                let any = Rules {
                    matching: Match::Any,
                    ..rules
                };
                let all = super::moves::pairs(&board, any, None, &Stop::never()).unwrap();
                let weighed = joinable_pairs(&board, any, &mut rng, &Stop::never()).unwrap();
                let distinct: HashSet<_> = weighed.iter().copied().collect();
                assert_eq!(distinct.len(), weighed.len(), "{board:?}");
                assert!(weighed.iter().all(|p| all.contains(p)), "{board:?}");
                assert_eq!(weighed.is_empty(), all.is_empty(), "{board:?} {rules:?}");
                if weighed.is_empty() {
                    none += 1;
                } else {
                    found += 1;
                }
            }
        }
        assert!(found > 1000 && none > 50, "{found} / {none}");
    }
}
