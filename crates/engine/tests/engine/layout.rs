//! Deals onto a layout: holes, islands, a ring, a one-cell-wide corridor
//! and a checkerboard, at every difficulty and gravity. Every tile lies on
//! a marked cell and every marked cell holds one, each type has its
//! copies, the sequence clears the board, and the same seed deals the same
//! board.

use linkpath_engine::game::{self, Deal, DealError, Difficulty, Fall, Gravity};
use linkpath_engine::{Board, EMPTY, Point, Preset, Rules, Stop};
use std::collections::BTreeMap;

/// Each layout with the copies of each type its cells share.
const LAYOUTS: [(&str, &[&str], usize); 5] = [
    (
        "holes",
        &[
            "########", "##.##.##", "########", "########", "##.##.##", "########",
        ],
        4,
    ),
    (
        "islands",
        &["###.....###", "###..##.###", "###..##.###", "###.....###"],
        4,
    ),
    (
        "ring",
        &["######", "#....#", "#....#", "#....#", "######"],
        2,
    ),
    (
        "corridor",
        &["########", ".......#", "########", "#.......", "########"],
        2,
    ),
    (
        "checkerboard",
        &[
            "#.#.#.#.", ".#.#.#.#", "#.#.#.#.", ".#.#.#.#", "#.#.#.#.", ".#.#.#.#",
        ],
        4,
    ),
];

/// The marked cells of `rows`, in reading order, and the board's size.
fn marked(rows: &[&str]) -> (usize, usize, Vec<usize>) {
    let (width, height) = (rows[0].len(), rows.len());
    let cells = rows
        .iter()
        .flat_map(|row| row.bytes())
        .enumerate()
        .filter(|&(_, b)| b != b'.')
        .map(|(i, _)| i)
        .collect();
    (width, height, cells)
}

fn counts(board: &Board) -> BTreeMap<u32, usize> {
    let mut counts = BTreeMap::new();
    for &c in board.cells().iter().filter(|&&c| c != EMPTY) {
        *counts.entry(c).or_insert(0) += 1;
    }
    counts
}

fn deal_on(
    rows: &[&str],
    tiles: &[(u32, usize)],
    rules: Rules,
    fall: Fall,
    difficulty: Difficulty,
    seed: u64,
) -> Result<(Board, Vec<(Point, Point)>), DealError> {
    let (width, height, cells) = marked(rows);
    let deal = Deal {
        width,
        height,
        tiles,
        layout: Some(&cells),
        rules,
        fall,
        difficulty,
        seed,
    };
    game::deal_measured(&deal, &Stop::never()).map(|(board, moves, _)| (board, moves))
}

// One test a difficulty, so that they run side by side: the hard deals
// take the longest.
#[test]
fn easy_deals_fill_exactly_the_marked_cells_and_clear() {
    deals_fill_exactly_the_marked_cells_and_clear(Difficulty::Easy);
}

#[test]
fn medium_deals_fill_exactly_the_marked_cells_and_clear() {
    deals_fill_exactly_the_marked_cells_and_clear(Difficulty::Medium);
}

#[test]
fn hard_deals_fill_exactly_the_marked_cells_and_clear() {
    deals_fill_exactly_the_marked_cells_and_clear(Difficulty::Hard);
}

/// Every layout, gravity, rules and two seeds at `difficulty`: tiles on
/// exactly the marked cells, in the counts asked, the sequence clearing
/// the board, the same deal again from the same seed.
fn deals_fill_exactly_the_marked_cells_and_clear(difficulty: Difficulty) {
    for (name, rows, copies) in LAYOUTS {
        let (_, _, cells) = marked(rows);
        let types = cells.len() / copies;
        assert_eq!(types * copies, cells.len(), "{name}");
        let tiles: Vec<(u32, usize)> = (1..=types as u32).map(|t| (t, copies)).collect();
        for gravity in [Gravity::None, Gravity::Down, Gravity::Left] {
            for preset in [Preset::ShisenSho, Preset::Lianliankan, Preset::Mahjong] {
                let rules = preset.rules();
                for seed in 0..2 {
                    let case = format!("{name} {difficulty:?} {gravity:?} {preset:?} {seed}");
                    let fall = gravity.into();
                    let (board, sequence) =
                        deal_on(rows, &tiles, rules, fall, difficulty, seed).unwrap();
                    let on: Vec<usize> = (0..board.cells().len())
                        .filter(|&i| board.cells()[i] != EMPTY)
                        .collect();
                    assert_eq!(on, cells, "{case}");
                    assert_eq!(counts(&board), tiles.iter().copied().collect(), "{case}");
                    let played =
                        game::play(&board, &rules, fall, &sequence, &Stop::never()).unwrap();
                    assert_eq!(played.stopped, None, "{case}");
                    assert!(game::cleared(&played.board), "{case}");
                    let again = deal_on(rows, &tiles, rules, fall, difficulty, seed).unwrap();
                    assert_eq!(again, (board, sequence), "{case}");
                }
            }
        }
    }
}

/// Settling moves every floating tile at the first removal, so a layout
/// dealt with settling must stand on the gravity side; a pyramid does.
#[test]
fn a_settled_deal_needs_a_layout_standing_on_the_gravity_side() {
    let tiles: Vec<(u32, usize)> = (1..=5).map(|t| (t, 4)).collect();
    let rules = Preset::Lianliankan.rules();
    let pyramid: &[&str] = &["...##...", "..####..", ".######.", "########"];
    for difficulty in Difficulty::ALL {
        let fall = Fall::new(Gravity::Down, true);
        let (board, sequence) = deal_on(pyramid, &tiles, rules, fall, difficulty, 7).unwrap();
        let (_, _, cells) = marked(pyramid);
        let on: Vec<usize> = (0..32).filter(|&i| board.cells()[i] != EMPTY).collect();
        assert_eq!(on, cells);
        let played = game::play(&board, &rules, fall, &sequence, &Stop::never()).unwrap();
        assert!(game::cleared(&played.board), "{difficulty:?}");
        // The same pyramid hangs from nothing on the left.
        let left = Fall::new(Gravity::Left, true);
        assert_eq!(
            deal_on(pyramid, &tiles, rules, left, difficulty, 7),
            Err(DealError::Floating {
                cell: Point::new(3, 0),
                gravity: Gravity::Left
            })
        );
    }
    let ring = LAYOUTS[2].1;
    let tiles: Vec<(u32, usize)> = (1..=9).map(|t| (t, 2)).collect();
    let e = deal_on(
        ring,
        &tiles,
        rules,
        Fall::new(Gravity::Down, true),
        Difficulty::Easy,
        0,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the layout's cell (1, 0) floats: settling lets every tile fall down at the first removal, expected a layout that stands on that side, or no settling"
    );
}

#[test]
fn a_layout_holds_exactly_the_tiles() {
    let rules = Preset::Mahjong.rules();
    let (w, h, cells) = marked(LAYOUTS[2].1);
    for tiles in [vec![(1, 4)], vec![(1, 4); 5]] {
        let deal = Deal {
            width: w,
            height: h,
            tiles: &tiles,
            layout: Some(&cells),
            rules,
            fall: Fall::default(),
            difficulty: Difficulty::Hard,
            seed: 0,
        };
        let e = game::deal_measured(&deal, &Stop::never()).unwrap_err();
        let tiles = tiles.len() * 4;
        assert_eq!(e, DealError::LayoutCount { tiles, cells: 18 });
        assert_eq!(
            e.to_string(),
            format!(
                "{tiles} tiles do not fill the layout's 18 marked cells, expected one tile on each"
            )
        );
    }
    let unordered = [3, 1];
    let deal = Deal {
        width: 2,
        height: 2,
        tiles: &[(1, 2)],
        layout: Some(&unordered),
        rules,
        fall: Fall::default(),
        difficulty: Difficulty::Easy,
        seed: 0,
    };
    assert_eq!(
        game::deal_with(&deal, &Stop::never()),
        Err(DealError::LayoutCells)
    );
}
