//! The game engine (`linkpath_engine::game`) with exact answers: moves
//! against the solver asked about every pair, deals and clearing sequences
//! replayed to an empty board, the crossed pairs that cannot be cleared,
//! and every reason a played move can stop.

use crate::support::random::{Rng, random_board};
use linkpath_engine::game::{self, Clearing, Gravity};
use linkpath_engine::{
    Answer, Board, EMPTY, Match, Movement, Point, Preset, Query, Reason, Rules, Solver, Stop,
};

fn rule_sets() -> Vec<Rules> {
    let line = |max_segments, outside, matching| Rules {
        movement: Movement::Line,
        max_segments,
        outside,
        matching,
    };
    vec![
        Preset::ShisenSho.rules(),
        Preset::Lianliankan.rules(),
        Preset::Mahjong.rules(),
        line(Some(1), false, Match::Same),
        line(Some(2), true, Match::Same),
        line(Some(4), false, Match::Same),
        line(Some(6), true, Match::Any),
        line(None, false, Match::Same),
    ]
}

/// Every removable pair by asking the solver about every pair of tiles.
fn all_pairs(board: &Board, rules: &Rules) -> Vec<(Point, Point, Answer)> {
    let mut solver = Solver::new(board, *rules);
    let w = board.width();
    let tiles: Vec<Point> = (0..board.cells().len())
        .filter(|&i| board.cells()[i] != EMPTY)
        .map(|i| Point::new((i % w) as i32, (i / w) as i32))
        .collect();
    let mut found = Vec::new();
    for (i, &a) in tiles.iter().enumerate() {
        for &b in &tiles[i + 1..] {
            let answer = solver.answer(Query::new(a, b), &Stop::never()).unwrap();
            if let Answer::Connected(_) = answer {
                found.push((a, b, answer));
            }
        }
    }
    found
}

#[test]
fn moves_are_exactly_the_pairs_the_solver_connects() {
    let mut rng = Rng::new(7);
    let mut compared = 0;
    for round in 0..120 {
        let (w, h) = (2 + rng.below(9), 1 + rng.below(7));
        let (fill, types) = (30 + rng.below(60), 1 + rng.below(5));
        let board = random_board(&mut rng, w, h, fill, types);
        for rules in rule_sets() {
            let expected = all_pairs(&board, &rules);
            let moves = game::moves(&board, &rules, None, &Stop::never()).unwrap();
            let got: Vec<(Point, Point, Answer)> = moves
                .into_iter()
                .map(|m| (m.from, m.to, Answer::Connected(m.path)))
                .collect();
            assert_eq!(got, expected, "round {round}, {rules:?}, {board:?}");
            compared += expected.len();
            let limited = game::moves(&board, &rules, Some(3), &Stop::never()).unwrap();
            assert_eq!(limited.len(), expected.len().min(3));
        }
    }
    assert!(compared > 1000, "only {compared} pairs compared");
}

#[test]
fn crossed_pairs_have_no_move_and_cannot_be_cleared() {
    let board = Board::from_rows(&["AB", "BA"]).unwrap();
    for preset in [Preset::Lianliankan, Preset::ShisenSho] {
        let rules = preset.rules();
        assert!(game::stuck(&board, &rules, &Stop::never()).unwrap());
        for gravity in [Gravity::None, Gravity::Down] {
            let outcome = game::clear(&board, &rules, gravity, None, &Stop::never()).unwrap();
            assert_eq!(outcome.result, Clearing::Impossible, "{preset} {gravity:?}");
        }
    }
    // Any two tiles pair under mahjong: neighbours go first.
    let outcome = game::clear(
        &board,
        &Preset::Mahjong.rules(),
        Gravity::None,
        None,
        &Stop::never(),
    )
    .unwrap();
    assert_eq!(
        outcome.result,
        Clearing::Solved(vec![
            (Point::new(0, 0), Point::new(1, 0)),
            (Point::new(0, 1), Point::new(1, 1))
        ])
    );
}

#[test]
fn a_blocked_pair_is_found_dead_without_searching_the_rest() {
    // The crossed pairs in a corner of a larger board that is otherwise
    // easy: the search must still answer "impossible".
    let board = Board::from_rows(&["AB..CC", "BA..DD", "EE..FF"]).unwrap();
    let outcome = game::clear(
        &board,
        &Preset::Lianliankan.rules(),
        Gravity::None,
        None,
        &Stop::never(),
    )
    .unwrap();
    assert_eq!(outcome.result, Clearing::Impossible);
}

/// Plays `sequence` and asserts the board ends empty.
fn assert_clears(board: &Board, rules: &Rules, gravity: Gravity, sequence: &[(Point, Point)]) {
    let played = game::play(board, rules, gravity, sequence, &Stop::never()).unwrap();
    assert_eq!(played.stopped, None, "{board:?} {gravity:?}");
    assert!(game::cleared(&played.board), "{:?}", played.board);
    assert_eq!(played.steps.len(), sequence.len());
}

fn counts(board: &Board) -> std::collections::BTreeMap<u32, usize> {
    let mut counts = std::collections::BTreeMap::new();
    for &c in board.cells().iter().filter(|&&c| c != EMPTY) {
        *counts.entry(c).or_insert(0) += 1;
    }
    counts
}

#[test]
fn deals_replay_to_an_empty_board_and_clear_finds_them_solvable() {
    let tiles: Vec<(u32, usize)> = (1..=6).map(|t| (t, 4)).collect();
    for gravity in [Gravity::None, Gravity::Down, Gravity::Left] {
        for preset in [Preset::ShisenSho, Preset::Lianliankan, Preset::Mahjong] {
            let rules = preset.rules();
            for seed in 0..25 {
                let (board, sequence) =
                    game::deal(6, 5, &tiles, &rules, gravity, seed, &Stop::never()).unwrap();
                assert_eq!(counts(&board), tiles.iter().copied().collect());
                assert_eq!(sequence.len(), 12);
                assert_clears(&board, &rules, gravity, &sequence);
                let again =
                    game::deal(6, 5, &tiles, &rules, gravity, seed, &Stop::never()).unwrap();
                assert_eq!(again, (board.clone(), sequence));
                let outcome = game::clear(&board, &rules, gravity, None, &Stop::never()).unwrap();
                let Clearing::Solved(found) = outcome.result else {
                    panic!("{preset} {gravity:?} seed {seed}: {:?}", outcome.result)
                };
                assert_clears(&board, &rules, gravity, &found);
            }
        }
    }
}

#[test]
fn a_full_shisen_sho_deal_replays_and_seeds_differ() {
    let tiles: Vec<(u32, usize)> = (1..=36).map(|t| (t, 4)).collect();
    let rules = Preset::ShisenSho.rules();
    let mut boards = std::collections::HashSet::new();
    for gravity in [Gravity::None, Gravity::Down] {
        for seed in 0..10 {
            let (board, sequence) =
                game::deal(18, 8, &tiles, &rules, gravity, seed, &Stop::never()).unwrap();
            assert_eq!(board.tile_count(), 144);
            assert_clears(&board, &rules, gravity, &sequence);
            boards.insert(board.into_cells());
        }
    }
    assert_eq!(boards.len(), 20);
}

#[test]
fn a_partly_filled_deal_with_gravity_stands_on_the_bottom() {
    let tiles: Vec<(u32, usize)> = (1..=5).map(|t| (t, 2)).collect();
    let rules = Preset::Lianliankan.rules();
    let (board, sequence) =
        game::deal(4, 4, &tiles, &rules, Gravity::Down, 3, &Stop::never()).unwrap();
    let cells = board.cells();
    // Rows 2 and 3 full, two cells of row 1, row 0 empty.
    assert!(cells[8..].iter().all(|&c| c != EMPTY));
    assert_eq!(cells[4..8].iter().filter(|&&c| c != EMPTY).count(), 2);
    assert!(cells[..4].iter().all(|&c| c == EMPTY));
    assert_clears(&board, &rules, Gravity::Down, &sequence);
}

#[test]
fn odd_copies_and_overfull_boards_are_refused() {
    let rules = Preset::ShisenSho.rules();
    assert_eq!(
        game::deal(2, 2, &[(1, 3)], &rules, Gravity::None, 0, &Stop::never()),
        Err(game::DealError::OddCopies { kind: 1, copies: 3 })
    );
    assert_eq!(
        game::deal(
            2,
            2,
            &[(1, 4), (2, 2)],
            &rules,
            Gravity::None,
            0,
            &Stop::never()
        ),
        Err(game::DealError::TooMany { tiles: 6, cells: 4 })
    );
}

#[test]
fn every_reason_a_move_stops_and_the_board_before_it() {
    let board = Board::from_rows(&["AB.A", "B..C", "ACBA"]).unwrap();
    let rules = Preset::Lianliankan.rules();
    let p = |x, y| Point::new(x, y);
    let cases = [
        ((p(0, 0), p(0, 0)), Reason::SameCell),
        ((p(0, 0), p(2, 0)), Reason::NotATile),
        ((p(0, 0), p(1, 0)), Reason::TypeMismatch),
        ((p(0, 2), p(3, 2)), Reason::NoPath),
    ];
    for ((from, to), reason) in cases {
        // One legal move first: C (3, 1) - C (1, 2) by an L.
        let moves = [(p(3, 1), p(1, 2)), (from, to), (p(0, 0), p(3, 0))];
        let played = game::play(&board, &rules, Gravity::None, &moves, &Stop::never()).unwrap();
        assert_eq!(played.stopped, Some((1, reason)));
        assert_eq!(played.steps.len(), 1);
        assert_eq!(played.steps[0].segments, 2);
        assert_eq!(
            played.board,
            Board::from_rows(&["AB.A", "B...", "A.BA"]).unwrap()
        );
    }
}

#[test]
fn gravity_moves_the_tiles_that_the_next_move_uses() {
    // Removing the two B's lets the top A fall next to the bottom A.
    let board = Board::from_rows(&["A.", "BB", "AC"]).unwrap();
    let rules = Preset::Lianliankan.rules();
    let p = |x, y| Point::new(x, y);
    let moves = [(p(0, 1), p(1, 1)), (p(0, 1), p(0, 2))];
    let played = game::play(&board, &rules, Gravity::Down, &moves, &Stop::never()).unwrap();
    assert_eq!(played.stopped, None);
    assert_eq!(played.board, Board::from_rows(&["..", "..", ".C"]).unwrap());
    let without = game::play(&board, &rules, Gravity::None, &moves, &Stop::never()).unwrap();
    assert_eq!(without.stopped, Some((1, Reason::NotATile)));
}

#[test]
fn shuffles_keep_the_cells_and_tiles_and_give_a_move() {
    let mut rng = Rng::new(11);
    let rules = Preset::Lianliankan.rules();
    for seed in 0..40 {
        let board = random_board(&mut rng, 6, 5, 60, 8);
        let Ok(shuffled) = game::shuffle(&board, &rules, seed, &Stop::never()) else {
            continue;
        };
        assert_eq!(counts(&shuffled), counts(&board));
        for (a, b) in board.cells().iter().zip(shuffled.cells()) {
            assert_eq!(*a == EMPTY, *b == EMPTY);
        }
        assert!(
            !game::stuck(&shuffled, &rules, &Stop::never()).unwrap(),
            "seed {seed}"
        );
    }
    let singles = Board::from_rows(&["AB", "CD"]).unwrap();
    assert_eq!(
        game::shuffle(&singles, &rules, 0, &Stop::never()),
        Err(game::ShuffleError::NoPairs)
    );
}

#[test]
fn solvable_shuffles_clear_with_their_sequence() {
    let rules = Preset::ShisenSho.rules();
    let odd = Board::from_rows(&["AB", "BA", "C."]).unwrap();
    assert_eq!(
        game::shuffle_solvable(&odd, &rules, Gravity::None, 1, &Stop::never()),
        Err(game::ShuffleError::OddCopies {
            kind: u32::from('C'),
            copies: 1
        })
    );
    let board = Board::from_rows(&["AB..", "BA..", "CDDC"]).unwrap();
    for gravity in [Gravity::None, Gravity::Down] {
        for seed in 0..20 {
            let (shuffled, sequence) =
                game::shuffle_solvable(&board, &rules, gravity, seed, &Stop::never()).unwrap();
            assert_eq!(counts(&shuffled), counts(&board));
            assert_clears(&shuffled, &rules, gravity, &sequence);
        }
    }
}

#[test]
fn a_spent_budget_answers_unknown() {
    let tiles: Vec<(u32, usize)> = (1..=36).map(|t| (t, 4)).collect();
    let rules = Preset::ShisenSho.rules();
    let (board, _) = game::deal(18, 8, &tiles, &rules, Gravity::Down, 5, &Stop::never()).unwrap();
    let spent = std::time::Instant::now();
    let outcome = game::clear(&board, &rules, Gravity::Down, Some(spent), &Stop::never()).unwrap();
    assert_eq!(
        outcome,
        game::Outcome {
            result: Clearing::Unknown,
            states: 1
        }
    );
}
