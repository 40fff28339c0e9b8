//! The game engine (`linkpath_engine::game`) with exact answers: moves
//! against the solver asked about every pair, deals and clearing sequences
//! replayed to an empty board, the crossed pairs that cannot be cleared,
//! and every reason a played move can stop.

use crate::support::random::{Rng, random_board};
use linkpath_engine::game::{self, Clearing, Fall, Gravity};
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

/// The cells of `board` that hold a tile, in reading order.
fn tiles(board: &Board) -> Vec<Point> {
    let w = board.width();
    (0..board.cells().len())
        .filter(|&i| board.cells()[i] != EMPTY)
        .map(|i| Point::new((i % w) as i32, (i / w) as i32))
        .collect()
}

/// Moves as the solver's answers for their pairs.
fn as_answers(moves: Vec<game::Move>) -> Vec<(Point, Point, Answer)> {
    moves
        .into_iter()
        .map(|m| (m.from, m.to, Answer::Connected(m.path)))
        .collect()
}

/// Every removable pair by asking the solver about every pair of tiles.
fn all_pairs(board: &Board, rules: &Rules) -> Vec<(Point, Point, Answer)> {
    let mut solver = Solver::new(board, *rules);
    let tiles = tiles(board);
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

/// A random board of up to 10 x 7 cells and five types, as the move
/// lists are checked on.
fn board_for_moves(rng: &mut Rng) -> Board {
    let (w, h) = (2 + rng.below(9), 1 + rng.below(7));
    let (fill, types) = (30 + rng.below(60), 1 + rng.below(5));
    random_board(rng, w, h, fill, types)
}

#[test]
fn moves_are_exactly_the_pairs_the_solver_connects() {
    let mut rng = Rng::new(7);
    let mut compared = 0;
    for round in 0..120 {
        let board = board_for_moves(&mut rng);
        for rules in rule_sets() {
            let expected = all_pairs(&board, &rules);
            let got = as_answers(game::moves(&board, &rules, None, &Stop::never()).unwrap());
            assert_eq!(got, expected, "round {round}, {rules:?}, {board:?}");
            compared += expected.len();
            let limited = game::moves(&board, &rules, Some(3), &Stop::never()).unwrap();
            assert_eq!(limited.len(), expected.len().min(3));
        }
    }
    assert!(compared > 1000, "only {compared} pairs compared");
}

/// The solver asked about the tile and every other tile, in reading order:
/// what `moves_from` must list.
#[test]
fn moves_from_a_tile_are_the_pairs_the_solver_connects_from_it() {
    let mut rng = Rng::new(19);
    let mut compared = 0;
    for round in 0..60 {
        let board = board_for_moves(&mut rng);
        let tiles = tiles(&board);
        for rules in rule_sets() {
            let mut solver = Solver::new(&board, rules);
            for &a in &tiles {
                let expected: Vec<(Point, Point, Answer)> = tiles
                    .iter()
                    .filter(|&&b| b != a)
                    .filter_map(|&b| {
                        let answer = solver.answer(Query::new(a, b), &Stop::never()).unwrap();
                        matches!(answer, Answer::Connected(_)).then_some((a, b, answer))
                    })
                    .collect();
                let got =
                    as_answers(game::moves_from(&board, &rules, a, None, &Stop::never()).unwrap());
                assert_eq!(got, expected, "round {round}, {rules:?}, {board:?}, {a}");
                let limited = game::moves_from(&board, &rules, a, Some(1), &Stop::never()).unwrap();
                assert_eq!(limited.len(), expected.len().min(1));
                compared += expected.len();
            }
        }
    }
    assert!(compared > 1000, "only {compared} moves compared");
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
fn assert_clears(board: &Board, rules: &Rules, fall: impl Into<Fall>, sequence: &[(Point, Point)]) {
    let fall = fall.into();
    let played = game::play(board, rules, fall, sequence, &Stop::never()).unwrap();
    assert_eq!(played.stopped, None, "{board:?} {fall:?}");
    assert!(game::cleared(&played.board), "{:?}", played.board);
    assert_eq!(played.steps.len(), sequence.len());
}

/// [`game::clear`] with no budget agrees with the `expected` verdict of a
/// reference, and its sequence clears the board; whether it is solvable.
fn assert_verdict(board: &Board, rules: &Rules, fall: Fall, expected: bool, round: usize) -> bool {
    let outcome = game::clear(board, rules, fall, None, &Stop::never()).unwrap();
    match outcome.result {
        Clearing::Solved(sequence) => {
            assert!(expected, "round {round} {rules:?} {fall:?} {board:?}");
            assert_clears(board, rules, fall, &sequence);
            true
        }
        Clearing::Impossible => {
            assert!(!expected, "round {round} {rules:?} {fall:?} {board:?}");
            false
        }
        Clearing::Unknown => panic!("no budget, yet unknown: {board:?}"),
    }
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
    assert_shuffles_clear(
        &board,
        &rules,
        [Gravity::None, Gravity::Down].map(Fall::from),
    );
}

/// Twenty seeds of [`game::shuffle_solvable`] under each of `falls`: the
/// same tiles, cleared by their sequence.
fn assert_shuffles_clear(board: &Board, rules: &Rules, falls: impl IntoIterator<Item = Fall>) {
    for fall in falls {
        for seed in 0..20 {
            let (shuffled, sequence) =
                game::shuffle_solvable(board, rules, fall, seed, &Stop::never()).unwrap();
            assert_eq!(counts(&shuffled), counts(board));
            assert_clears(&shuffled, rules, fall, &sequence);
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
            states: 1,
            decided: None,
        }
    );
}

/// The board after removing the tiles at `a` and `b` (row-major indices)
/// and letting the lines that lost a tile fall: written here from the
/// rules, apart from the engine's own gravity.
fn fall(cells: &[u32], width: usize, a: usize, b: usize, gravity: Gravity) -> Vec<u32> {
    fall_settling(cells, width, a, b, gravity, false)
}

/// [`fall`], letting every line fall when `settle`.
fn fall_settling(
    cells: &[u32],
    width: usize,
    a: usize,
    b: usize,
    gravity: Gravity,
    settle: bool,
) -> Vec<u32> {
    let height = cells.len() / width;
    let mut out = cells.to_vec();
    out[a] = EMPTY;
    out[b] = EMPTY;
    // Each line as its cells listed from the side the tiles fall toward.
    let line = |i: usize| -> Vec<usize> {
        let (x, y) = (i % width, i / width);
        match gravity {
            Gravity::None => Vec::new(),
            Gravity::Down => (0..height).rev().map(|y| y * width + x).collect(),
            Gravity::Up => (0..height).map(|y| y * width + x).collect(),
            Gravity::Left => (0..width).map(|x| y * width + x).collect(),
            Gravity::Right => (0..width).rev().map(|x| y * width + x).collect(),
        }
    };
    let mut lines = if settle {
        (0..cells.len()).map(line).collect()
    } else {
        vec![line(a), line(b)]
    };
    lines.sort();
    lines.dedup();
    for line in lines {
        let tiles: Vec<u32> = line
            .iter()
            .map(|&i| out[i])
            .filter(|&c| c != EMPTY)
            .collect();
        for (k, &i) in line.iter().enumerate() {
            out[i] = tiles.get(k).copied().unwrap_or(EMPTY);
        }
    }
    out
}

/// Whether the board can be cleared: every move order tried (no pruning),
/// the joinable pairs asked of the solver, boards that failed remembered.
fn clearable_by_every_order(
    board: &Board,
    rules: &Rules,
    gravity: Gravity,
    failed: &mut std::collections::HashSet<Vec<u32>>,
) -> bool {
    clearable_settling(board, rules, gravity, false, failed)
}

/// [`clearable_by_every_order`], every line falling after each removal
/// when `settle`.
fn clearable_settling(
    board: &Board,
    rules: &Rules,
    gravity: Gravity,
    settle: bool,
    failed: &mut std::collections::HashSet<Vec<u32>>,
) -> bool {
    if game::cleared(board) || failed.contains(board.cells()) {
        return game::cleared(board);
    }
    let w = board.width();
    for (from, to, _) in all_pairs(board, rules) {
        let (a, b) = (from.x as usize, to.x as usize);
        let (a, b) = (from.y as usize * w + a, to.y as usize * w + b);
        if rules.matching == Match::Same && board.cells()[a] != board.cells()[b] {
            continue;
        }
        let cells = fall_settling(board.cells(), w, a, b, gravity, settle);
        let next = Board::new(w, board.height(), cells).unwrap();
        if clearable_settling(&next, rules, gravity, settle, failed) {
            return true;
        }
    }
    failed.insert(board.cells().to_vec());
    false
}

/// Small boards with an even number of tiles of each type, some cells
/// empty (so some tiles float when there is gravity).
fn small_board(rng: &mut Rng, width: usize, height: usize) -> Board {
    let cells = width * height;
    let pairs = 1 + rng.below(cells / 2);
    let types = 1 + rng.below(4) as u32;
    let mut tiles: Vec<u32> = (0..pairs)
        .flat_map(|p| {
            let kind = 1 + p as u32 % types;
            [kind, kind]
        })
        .collect();
    tiles.resize(cells, EMPTY);
    for i in (1..cells).rev() {
        let j = rng.below(i + 1);
        tiles.swap(i, j);
    }
    Board::new(width, height, tiles).unwrap()
}

/// Every answer of `clear` against the exhaustive search above, on
/// thousands of small boards, under every rule set and every gravity: a
/// `true` replays to an empty board, a `false` is a board no order clears.
#[test]
fn clear_agrees_with_every_order_tried_on_small_boards() {
    let mut rng = Rng::new(2024);
    let (mut solvable, mut impossible) = (0, 0);
    for round in 0..300 {
        let (w, h) = (2 + rng.below(3), 2 + rng.below(3));
        let board = small_board(&mut rng, w, h);
        for rules in rule_sets() {
            for gravity in Gravity::ALL {
                let mut failed = std::collections::HashSet::new();
                let expected = clearable_by_every_order(&board, &rules, gravity, &mut failed);
                if assert_verdict(&board, &rules, gravity.into(), expected, round) {
                    solvable += 1;
                } else {
                    impossible += 1;
                }
                // The partner search, an option of its own, likewise.
                let options = game::ClearOptions {
                    fall: gravity.into(),
                    pairing: true,
                    ..game::ClearOptions::default()
                };
                let outcome = game::clear_with(&board, &rules, &options, &Stop::never()).unwrap();
                match outcome.result {
                    Clearing::Solved(sequence) => {
                        assert!(expected, "pairing: {rules:?} {gravity:?} {board:?}");
                        assert_clears(&board, &rules, gravity, &sequence);
                    }
                    Clearing::Impossible => {
                        assert!(!expected, "pairing: {rules:?} {gravity:?} {board:?}")
                    }
                    Clearing::Unknown => panic!("no budget, yet unknown: {board:?}"),
                }
            }
        }
    }
    assert_eq!((solvable, impossible), (11115, 885));
}

/// An exact solver written apart from the engine: every move order, boards
/// that failed remembered whole, and (without gravity) one safe rule: when
/// every tile left of a type pairs off into pairs joinable now, those are
/// removed first and nothing else is tried. `None` past `cap` boards.
fn independent_clear(
    cells: &[u32],
    width: usize,
    rules: &Rules,
    gravity: Gravity,
    failed: &mut std::collections::HashSet<Vec<u32>>,
    states: &mut u64,
    cap: u64,
) -> Option<bool> {
    if cells.iter().all(|&c| c == EMPTY) {
        return Some(true);
    }
    if failed.contains(cells) {
        return Some(false);
    }
    *states += 1;
    if *states > cap {
        return None;
    }
    let board = Board::new(width, cells.len() / width, cells.to_vec()).unwrap();
    let mut solver = Solver::new(&board, *rules).without_paths();
    let point = |i: usize| Point::new((i % width) as i32, (i / width) as i32);
    let mut by_type: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
    for (i, &c) in cells.iter().enumerate().filter(|&(_, &c)| c != EMPTY) {
        by_type.entry(c).or_default().push(i);
    }
    let mut pairs = Vec::new();
    let mut whole_type = None;
    for tiles in by_type.values() {
        let mut joinable = Vec::new();
        for (k, &a) in tiles.iter().enumerate() {
            for &b in &tiles[k + 1..] {
                let answer = solver.answer(Query::new(point(a), point(b)), &Stop::never());
                if answer.unwrap().segments().is_some() {
                    joinable.push((a, b));
                }
            }
        }
        if gravity == Gravity::None && whole_type.is_none() {
            whole_type = pair_off(tiles, &joinable);
        }
        pairs.extend(joinable);
    }
    let tries: Vec<Vec<(usize, usize)>> = match whole_type {
        Some(all) => vec![all],
        None => pairs.into_iter().map(|p| vec![p]).collect(),
    };
    for removals in tries {
        let mut next = cells.to_vec();
        for (a, b) in removals {
            next = fall(&next, width, a, b, gravity);
        }
        match independent_clear(&next, width, rules, gravity, failed, states, cap) {
            Some(false) => {}
            other => return other,
        }
    }
    failed.insert(cells.to_vec());
    Some(false)
}

/// Pairs covering every one of `tiles`, each from `joinable`.
fn pair_off(tiles: &[usize], joinable: &[(usize, usize)]) -> Option<Vec<(usize, usize)>> {
    let Some((&first, rest)) = tiles.split_first() else {
        return Some(Vec::new());
    };
    for &(a, b) in joinable {
        let other = match (a == first, b == first) {
            (true, _) => b,
            (_, true) => a,
            _ => continue,
        };
        if !rest.contains(&other) {
            continue;
        }
        let left: Vec<usize> = rest.iter().copied().filter(|&t| t != other).collect();
        if let Some(mut pairs) = pair_off(&left, joinable) {
            pairs.push((first, other));
            return Some(pairs);
        }
    }
    None
}

/// Random 18 x 8 boards, full (36 types x 4) or partly filled, under
/// Shisen-Sho and Lianliankan, with and without gravity: every verdict of
/// `clear` that the independent solver reaches too is the same, and the
/// `true`s replay.
#[test]
fn clear_agrees_with_an_independent_solver_on_random_18_by_8_boards() {
    let mut rng = Rng::new(18);
    let mut compared = std::collections::BTreeMap::new();
    for round in 0..48 {
        let types = [36, 16, 12, 8][round % 4];
        let board = random_18_by_8(&mut rng, types);
        for preset in [Preset::ShisenSho, Preset::Lianliankan] {
            let rules = preset.rules();
            for gravity in [Gravity::None, Gravity::Down] {
                // No time budget: a verdict that hung on the machine's speed
                // would change the counts below.
                let outcome = game::clear(&board, &rules, gravity, None, &Stop::never()).unwrap();
                let verdict = match &outcome.result {
                    Clearing::Solved(sequence) => {
                        assert_clears(&board, &rules, gravity, sequence);
                        Some(true)
                    }
                    Clearing::Impossible => Some(false),
                    Clearing::Unknown => None,
                };
                let mut failed = std::collections::HashSet::new();
                let mut states = 0;
                let independent = independent_clear(
                    board.cells(),
                    18,
                    &rules,
                    gravity,
                    &mut failed,
                    &mut states,
                    2000,
                );
                if let (Some(verdict), Some(expected)) = (verdict, independent) {
                    assert_eq!(verdict, expected, "{preset} {gravity:?} {board:?}");
                }
                let key = (types == 36, verdict, independent.is_some());
                *compared.entry(key).or_insert(0) += 1;
            }
        }
    }
    // (full board, verdict, whether the independent solver decided too)
    let expected = [
        ((false, Some(true), true), 144),
        ((true, Some(false), false), 2),
        ((true, Some(false), true), 21),
        ((true, Some(true), false), 5),
        ((true, Some(true), true), 20),
    ];
    assert_eq!(compared, expected.into_iter().collect());
}

/// `types` types x 4 placed at random on 18 x 8.
fn random_18_by_8(rng: &mut Rng, types: u32) -> Board {
    let mut cells: Vec<u32> = (0..types * 4).map(|i| i / 4 + 1).collect();
    cells.resize(144, EMPTY);
    for i in (1..cells.len()).rev() {
        let j = rng.below(i + 1);
        cells.swap(i, j);
    }
    Board::new(18, 8, cells).unwrap()
}

/// Deals at every difficulty, under three rule sets and three gravities:
/// the asked tiles, a sequence that replays, the same deal for the same
/// seed, and stats that are the board's own.
#[test]
fn deals_at_every_difficulty_replay_and_measure_their_board() {
    let tiles: Vec<(u32, usize)> = (1..=6).map(|t| (t, 4)).collect();
    for difficulty in game::Difficulty::ALL {
        for gravity in [Gravity::None, Gravity::Down, Gravity::Left] {
            for preset in [Preset::ShisenSho, Preset::Lianliankan, Preset::Mahjong] {
                let rules = preset.rules();
                for seed in 0..6 {
                    let deal = || {
                        let deal = game::Deal {
                            width: 6,
                            height: 5,
                            tiles: &tiles,
                            layout: None,
                            rules,
                            fall: gravity.into(),
                            difficulty,
                            seed,
                        };
                        game::deal_measured(&deal, &Stop::never()).unwrap()
                    };
                    let (board, sequence, stats) = deal();
                    assert_eq!(counts(&board), tiles.iter().copied().collect());
                    assert_clears(&board, &rules, gravity, &sequence);
                    assert_eq!(deal(), (board.clone(), sequence, stats));
                    assert_eq!(
                        stats,
                        game::stats(&board, &rules, gravity, seed, &Stop::never()).unwrap()
                    );
                    assert_eq!(stats.playouts, game::PLAYOUTS);
                }
            }
        }
    }
}

#[test]
fn groups_refuse_a_type_twice_an_empty_group_and_the_empty_cell() {
    use linkpath_engine::{Groups, GroupsError};
    assert_eq!(
        Groups::new([vec![1, 2], vec![3, 1]]),
        Err(GroupsError::Twice {
            kind: 1,
            first: 0,
            second: 1
        })
    );
    assert_eq!(
        Groups::new([vec![1, 2, 2]]),
        Err(GroupsError::Twice {
            kind: 2,
            first: 0,
            second: 0
        })
    );
    assert_eq!(
        Groups::new([vec![1], vec![]]),
        Err(GroupsError::Empty { group: 1 })
    );
    assert_eq!(
        Groups::new([vec![4, EMPTY]]),
        Err(GroupsError::EmptyCell { group: 0 })
    );
    let groups = Groups::new([vec![5, 3], vec![7]]).unwrap();
    assert_eq!(
        [3, 5, 7, 8, EMPTY].map(|c| groups.class(c)),
        [5, 5, 7, 8, EMPTY]
    );
    assert!(!groups.is_trivial() && groups.is_grouped(3) && !groups.is_grouped(7));
    assert!(Groups::new([vec![7], vec![8]]).unwrap().is_trivial());
    // Types past the lookup table's reach are searched for.
    let large = Groups::new([vec![70_000, 2], vec![u32::MAX, 9]]).unwrap();
    let board = Board::new(6, 1, vec![2, 9, 70_000, EMPTY, 80_000, u32::MAX]).unwrap();
    assert_eq!(
        large.classes(&board, &Stop::never()).unwrap().cells(),
        [70_000, u32::MAX, 70_000, EMPTY, 80_000, u32::MAX]
    );
    assert_eq!(
        groups.class_counts(&[(3, 2), (7, 4), (5, 2), (9, 2)]),
        [(5, 4), (7, 4), (9, 2)]
    );
}

/// A deal on the classes with each class's cells given its types keeps
/// every type's count and clears with its sequence under group matching;
/// the types of a class are spread over its cells by the seed.
#[test]
fn a_deal_on_classes_dressed_with_the_types_replays() {
    use linkpath_engine::Groups;
    let groups = Groups::new([vec![1, 2, 3, 4], vec![5, 6]]).unwrap();
    let tiles: Vec<(u32, usize)> = (1..=8).map(|t| (t, 2)).collect();
    let rules = Preset::ShisenSho.rules();
    let stop = Stop::never();
    let mut boards = std::collections::HashSet::new();
    for seed in 0..8 {
        let (classes, sequence) = game::deal(
            6,
            4,
            &groups.class_counts(&tiles),
            &rules,
            Gravity::Down,
            seed,
            &stop,
        )
        .unwrap();
        assert_eq!(
            counts(&classes),
            [(1, 8), (5, 4), (7, 2), (8, 2)].into_iter().collect()
        );
        let all = tiles.iter().flat_map(|&(k, n)| std::iter::repeat_n(k, n));
        let board = groups.assign(&classes, all, seed, &stop).unwrap();
        assert_eq!(counts(&board), tiles.iter().copied().collect());
        assert_eq!(*groups.classes(&board, &stop).unwrap(), classes);
        assert_eq!(
            groups
                .assign(
                    &classes,
                    board.cells().iter().copied().filter(|&c| c != EMPTY),
                    seed,
                    &stop
                )
                .unwrap(),
            board,
            "seeded"
        );
        assert_clears(&classes, &rules, Gravity::Down, &sequence);
        // The same classes dressed by other seeds.
        for other in 0..8 {
            let all = tiles.iter().flat_map(|&(k, n)| std::iter::repeat_n(k, n));
            boards.insert(
                groups
                    .assign(&classes, all, other, &stop)
                    .unwrap()
                    .into_cells(),
            );
        }
    }
    assert!(boards.len() > 60, "{} boards", boards.len());
}

#[test]
fn clear_says_what_decided_it_before_searching() {
    let decided = |rows: &[&str], rules: &Rules| {
        let board = Board::from_rows(rows).unwrap();
        let outcome = game::clear(&board, rules, Gravity::None, None, &Stop::never()).unwrap();
        (outcome.result, outcome.states, outcome.decided)
    };
    let same = Preset::ShisenSho.rules();
    assert_eq!(
        decided(&["DCCA", "BB.D", "DD.."], &same),
        (
            Clearing::Impossible,
            0,
            Some(game::Decided::OddType {
                kind: u32::from('A'),
                tiles: 1
            })
        )
    );
    assert_eq!(
        decided(&["DDD", "..."], &same),
        (
            Clearing::Impossible,
            0,
            Some(game::Decided::OddType {
                kind: u32::from('D'),
                tiles: 3
            })
        )
    );
    assert_eq!(
        decided(&["ABC"], &Preset::Mahjong.rules()),
        (
            Clearing::Impossible,
            0,
            Some(game::Decided::OddTiles { tiles: 3 })
        )
    );
    assert_eq!(
        decided(&["..."], &same),
        (
            Clearing::Solved(Vec::new()),
            0,
            Some(game::Decided::NoTiles)
        )
    );
    assert_eq!(
        decided(&["AB", "BA"], &Preset::Lianliankan.rules()),
        (Clearing::Impossible, 1, None)
    );
}

#[test]
fn odd_counts_are_told_with_plurals() {
    let deal = |copies| game::DealError::OddCopies { kind: 7, copies }.to_string();
    assert_eq!(deal(1), "type 7 has 1 copy, expected an even number");
    assert_eq!(deal(3), "type 7 has 3 copies, expected an even number");
    let shuffle = |copies| game::ShuffleError::OddCopies { kind: 7, copies }.to_string();
    assert_eq!(
        shuffle(1),
        "type 7 has 1 tile left, an odd number, so the board cannot be cleared"
    );
    assert_eq!(
        shuffle(3),
        "type 7 has 3 tiles left, an odd number, so the board cannot be cleared"
    );
}

/// Every gravity, with and without settling.
fn every_fall() -> Vec<Fall> {
    Gravity::ALL
        .into_iter()
        .flat_map(|g| [Fall::new(g, false), Fall::new(g, true)])
        .collect()
}

/// Whether no tile floats: the next cell toward the gravity side of every
/// tile, when on the board, holds a tile.
fn settled(board: &Board, gravity: Gravity) -> bool {
    let (w, h) = (board.width() as i32, board.height() as i32);
    let (dx, dy) = match gravity {
        Gravity::None => return true,
        Gravity::Down => (0, 1),
        Gravity::Up => (0, -1),
        Gravity::Left => (-1, 0),
        Gravity::Right => (1, 0),
    };
    let tile = |x: i32, y: i32| board.cells()[(y * w + x) as usize] != EMPTY;
    (0..h).all(|y| {
        (0..w).all(|x| {
            let (nx, ny) = (x + dx, y + dy);
            !tile(x, y) || !(0..w).contains(&nx) || !(0..h).contains(&ny) || tile(nx, ny)
        })
    })
}

/// Replaying each step's `moved` on the board before it (the pair removed,
/// then every listed tile moved at once) gives the board after it, and the
/// last board replayed is the answer's; on random boards, every gravity,
/// settling or not, with random moves that are mostly legal.
#[test]
fn each_steps_moved_tiles_replay_to_the_next_board() {
    let mut rng = Rng::new(77);
    let rules = Preset::Mahjong.rules();
    let (mut fell, mut settled_more) = (0, 0);
    for round in 0..200 {
        let (w, h) = (2 + rng.below(5), 2 + rng.below(5));
        let density = 40 + rng.below(60);
        let board = random_board(&mut rng, w, h, density, 3);
        for fall in every_fall() {
            // A legal move at each turn, found by replaying with the
            // engine's gravity written apart (the reference `fall`).
            let mut moves = Vec::new();
            let mut boards = vec![board.clone()];
            for _ in 0..(w * h / 2) {
                let now = boards.last().unwrap();
                let pairs = all_pairs(now, &rules);
                if pairs.is_empty() {
                    break;
                }
                let (from, to, _) = pairs[rng.below(pairs.len())];
                let (a, b) = (
                    from.y as usize * w + from.x as usize,
                    to.y as usize * w + to.x as usize,
                );
                let cells = fall_settling(now.cells(), w, a, b, fall.gravity, fall.settle);
                boards.push(Board::new(w, h, cells).unwrap());
                moves.push((from, to));
            }
            let played = game::play(&board, &rules, fall, &moves, &Stop::never()).unwrap();
            assert_eq!(played.stopped, None, "round {round} {fall:?}");
            assert_eq!(played.moved.len(), moves.len());
            let mut replayed = board.cells().to_vec();
            for (k, (&(from, to), moved)) in moves.iter().zip(&played.moved).enumerate() {
                let index = |p: Point| p.y as usize * w + p.x as usize;
                replayed[index(from)] = EMPTY;
                replayed[index(to)] = EMPTY;
                let lifted: Vec<u32> = moved.iter().map(|&(f, _)| replayed[index(f)]).collect();
                for &(f, _) in moved {
                    assert_ne!(replayed[index(f)], EMPTY);
                    replayed[index(f)] = EMPTY;
                }
                for (&(_, t), tile) in moved.iter().zip(lifted) {
                    assert_eq!(replayed[index(t)], EMPTY);
                    replayed[index(t)] = tile;
                }
                assert_eq!(
                    replayed,
                    boards[k + 1].cells(),
                    "round {round} {fall:?} step {k}"
                );
                // Reading order of `from`.
                let order: Vec<(i32, i32)> = moved.iter().map(|(f, _)| (f.y, f.x)).collect();
                assert!(order.is_sorted(), "{moved:?}");
                fell += moved.len();
                if fall.settle && k == 0 {
                    let plain = fall_settling(
                        board.cells(),
                        w,
                        index(from),
                        index(to),
                        fall.gravity,
                        false,
                    );
                    if plain != replayed {
                        settled_more += 1;
                    }
                }
            }
            assert_eq!(replayed, played.board.cells(), "round {round} {fall:?}");
        }
    }
    assert_eq!((fell, settled_more), (12994, 471));
}

/// With settling, `clear` agrees with every order tried on small boards
/// (which have floating tiles), and its sequences replay with settling.
#[test]
fn settling_clear_agrees_with_every_order_tried_on_small_boards() {
    let mut rng = Rng::new(4202);
    let (mut solvable, mut impossible, mut differs) = (0, 0, 0);
    for round in 0..300 {
        let (w, h) = (2 + rng.below(3), 2 + rng.below(3));
        let board = small_board(&mut rng, w, h);
        for rules in rule_sets() {
            for gravity in Gravity::ALL {
                let mut failed = std::collections::HashSet::new();
                let expected = clearable_settling(&board, &rules, gravity, true, &mut failed);
                let mut failed = std::collections::HashSet::new();
                if expected != clearable_settling(&board, &rules, gravity, false, &mut failed) {
                    differs += 1;
                }
                if assert_verdict(&board, &rules, Fall::new(gravity, true), expected, round) {
                    solvable += 1;
                } else {
                    impossible += 1;
                }
            }
        }
    }
    // `differs`: boards where settling changes the verdict.
    assert_eq!((solvable, impossible, differs), (11099, 901, 121));
}

/// With settling, a solvable shuffle's sequence replays with settling, on
/// boards with floating tiles.
#[test]
fn settling_solvable_shuffles_clear_with_their_sequence() {
    let rules = Preset::ShisenSho.rules();
    // Column 3's A and row 0's tiles float under every gravity.
    let board = Board::from_rows(&["A.B.", "....", "B.CA", "DCD."]).unwrap();
    assert_shuffles_clear(&board, &rules, Gravity::ALL.map(|g| Fall::new(g, true)));
}

/// With settling a deal stands on the gravity side, so it has no floating
/// tile, and replays with settling; gravity down deals the same board as
/// without settling.
#[test]
fn settling_deals_stand_on_the_gravity_side() {
    let tiles: Vec<(u32, usize)> = (1..=5).map(|t| (t, 2)).collect();
    let rules = Preset::Lianliankan.rules();
    for gravity in Gravity::ALL {
        let fall = Fall::new(gravity, true);
        for seed in 0..10 {
            let (board, sequence) =
                game::deal(4, 4, &tiles, &rules, fall, seed, &Stop::never()).unwrap();
            assert!(settled(&board, gravity), "{gravity:?} {seed}: {board:?}");
            assert_eq!(counts(&board), tiles.iter().copied().collect());
            assert_clears(&board, &rules, fall, &sequence);
            if matches!(gravity, Gravity::Down | Gravity::None) {
                let plain = game::deal(4, 4, &tiles, &rules, gravity, seed, &Stop::never());
                assert_eq!(plain.unwrap(), (board.clone(), sequence));
            }
        }
    }
    let (board, _) = game::deal(
        4,
        4,
        &tiles,
        &rules,
        Fall::new(Gravity::Left, true),
        3,
        &Stop::never(),
    )
    .unwrap();
    // Columns 0 and 1 full, two cells of column 2.
    let column = |x: usize| (0..4).filter(|y| board.cells()[y * 4 + x] != EMPTY).count();
    assert_eq!((0..4).map(column).collect::<Vec<_>>(), [4, 4, 2, 0]);
}

/// The relocation of a shuffle, applied to the board before it (every
/// tile at once), gives the shuffled board; it lists only tiles that moved,
/// in reading order of `from`.
#[test]
fn a_shuffles_relocation_gives_the_shuffled_board() {
    let mut rng = Rng::new(19);
    let rules = Preset::ShisenSho.rules();
    let mut moved = 0;
    for seed in 0..60 {
        let (w, h) = (2 + rng.below(6), 2 + rng.below(5));
        let board = random_board(&mut rng, w, h, 70, 4);
        let mut shuffles = Vec::new();
        if let Ok(b) = game::shuffle(&board, &rules, seed, &Stop::never()) {
            shuffles.push(b);
        }
        if let Ok((b, _)) =
            game::shuffle_solvable(&board, &rules, Gravity::Down, seed, &Stop::never())
        {
            shuffles.push(b);
        }
        for shuffled in shuffles {
            let relocation = game::relocation(&board, &shuffled);
            let index = |p: Point| p.y as usize * w + p.x as usize;
            let mut out = board.cells().to_vec();
            for &(from, _) in &relocation {
                out[index(from)] = EMPTY;
            }
            for &(from, to) in &relocation {
                assert_ne!(from, to);
                out[index(to)] = board.cells()[index(from)];
            }
            assert_eq!(out, shuffled.cells(), "seed {seed}");
            let order: Vec<(i32, i32)> = relocation.iter().map(|(f, _)| (f.y, f.x)).collect();
            assert!(order.is_sorted());
            moved += relocation.len();
        }
    }
    assert_eq!(moved, 661);
    let before = Board::from_rows(&["AB", "BA"]).unwrap();
    let after = Board::from_rows(&["BA", "BA"]).unwrap();
    let p = |x, y| Point::new(x, y);
    assert_eq!(
        game::relocation(&before, &after),
        [(p(0, 0), p(1, 0)), (p(1, 0), p(0, 0))]
    );
}
