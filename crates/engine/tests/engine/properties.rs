//! The engine against the brute-force reference in `support::reference`:
//! thousands of random small boards under every preset and random custom
//! rules, then a few large boards that exercise the two-turn shapes and the
//! full search.

use crate::support::random::{Rng, random_board};
use crate::support::reference::{
    Expected, check_line_path, check_slide_path, path_length, reference, reference_grouped,
};
use linkpath_engine::{
    Answer, Board, EMPTY, Groups, Match, Movement, Point, Preset, Query, Rules, Solver, Stop, solve,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

#[derive(Clone, Debug)]
struct Case {
    board: Board,
    queries: Vec<Query>,
}

/// Picks a cell for a query end: mostly one of the `preferred` cells (tiles
/// for `line`, vacant squares for `slide`), sometimes any cell, so the
/// refusals (`not_a_tile`, `blocked`, `same_cell`) come up too.
fn pick(board: &Board, preferred: &[Point], (any_cell, n): (bool, usize)) -> Point {
    let w = board.width();
    if any_cell || preferred.is_empty() {
        let i = n % board.cells().len();
        Point::new((i % w) as i32, (i / w) as i32)
    } else {
        preferred[n % preferred.len()]
    }
}

/// A random board of 1..=8 by 1..=8 cells, `density` percent of them tiles
/// of `1..=types` types, with a few queries.
fn case(
    prefer_tiles: bool,
    densities: std::ops::RangeInclusive<u32>,
) -> impl Strategy<Value = Case> {
    (1..=8usize, 1..=8usize, densities, 1..=3u32)
        .prop_flat_map(|(w, h, density, types)| {
            let cells = prop::collection::vec((0..100u32, 1..=types), w * h).prop_map(move |v| {
                v.into_iter()
                    .map(|(roll, tile)| if roll < density { tile } else { EMPTY })
                    .collect::<Vec<_>>()
            });
            let end = (prop::bool::weighted(0.15), any::<usize>());
            let queries = prop::collection::vec((end, end), 1..=6);
            (Just(w), Just(h), cells, queries)
        })
        .prop_map(move |(w, h, cells, raw)| {
            let board = Board::new(w, h, cells).expect("a valid board");
            let preferred: Vec<Point> = (0..w * h)
                .map(|i| Point::new((i % w) as i32, (i / w) as i32))
                .filter(|&p| (board.get(p) != Some(EMPTY)) == prefer_tiles)
                .collect();
            let queries = raw
                .into_iter()
                .map(|(a, b)| Query::new(pick(&board, &preferred, a), pick(&board, &preferred, b)))
                .collect();
            Case { board, queries }
        })
}

fn line_case() -> impl Strategy<Value = Case> {
    case(true, 0..=100)
}

/// Curling boards: fewer blocks, so the stone has room to move.
fn slide_case() -> impl Strategy<Value = Case> {
    case(false, 0..=60)
}

fn max_segments() -> impl Strategy<Value = Option<u32>> {
    prop_oneof![Just(None), (1..=5u32).prop_map(Some)]
}

fn line_rules() -> impl Strategy<Value = Rules> {
    (max_segments(), any::<bool>(), any::<bool>()).prop_map(|(max_segments, outside, same)| Rules {
        movement: Movement::Line,
        max_segments,
        outside,
        matching: if same { Match::Same } else { Match::Any },
    })
}

fn slide_rules() -> impl Strategy<Value = Rules> {
    max_segments().prop_map(|max_segments| Rules {
        movement: Movement::Slide,
        max_segments,
        outside: false,
        matching: Match::Any,
    })
}

/// Answers the whole batch at once (so every query but the first sees a
/// solver that has already searched) and checks each answer against the
/// reference on the board as given.
fn check_case(case: &Case, rules: &Rules) -> Result<(), TestCaseError> {
    let answers = solve(&case.board, rules, &case.queries, &Stop::never()).expect("no stop");
    prop_assert_eq!(answers.len(), case.queries.len());
    for (query, answer) in case.queries.iter().zip(&answers) {
        check_answer(&case.board, rules, *query, answer)?;
    }
    Ok(())
}

fn check_answer(
    board: &Board,
    rules: &Rules,
    query: Query,
    answer: &Answer,
) -> Result<(), TestCaseError> {
    let expected = reference(board, rules, query.from, query.to);
    check_expected(board, rules, query, answer, expected)
}

/// Checks `answer` against what the reference expects, and its path on
/// `board`.
fn check_expected(
    board: &Board,
    rules: &Rules,
    query: Query,
    answer: &Answer,
    expected: Expected,
) -> Result<(), TestCaseError> {
    let context = format!("query {} -> {} under {rules:?}", query.from, query.to);
    match (answer, expected) {
        (Answer::Connected(path), Expected::Line { segments, length }) => {
            prop_assert_eq!(path.segments, segments, "segments, {}", context);
            check_line_path(
                board,
                rules.outside,
                query.from,
                query.to,
                path.segments,
                &path.corners,
            )
            .map_err(|e| TestCaseError::fail(format!("{e}, {context}")))?;
            prop_assert_eq!(path_length(&path.corners), length, "length, {}", context);
        }
        (Answer::Connected(path), Expected::Slide { throws }) => {
            prop_assert_eq!(path.segments, throws, "throws, {}", context);
            check_slide_path(board, query.from, query.to, path.segments, &path.corners)
                .map_err(|e| TestCaseError::fail(format!("{e}, {context}")))?;
        }
        (Answer::NotConnected(reason), Expected::NotConnected(want)) => {
            prop_assert_eq!(*reason, want, "reason, {}", context);
        }
        (answer, expected) => {
            return Err(TestCaseError::fail(format!(
                "engine {answer:?}, reference {expected:?}, {context}"
            )));
        }
    }
    Ok(())
}

/// Groups of the types 1..=5 (the boards have 1..=3, so some groups name
/// types that are not there), each group's types in either order so that
/// any of them may be its class.
fn groups() -> impl Strategy<Value = Vec<Vec<u32>>> {
    (prop::collection::vec(0..4usize, 5), any::<bool>()).prop_map(|(labels, reversed)| {
        let mut groups = vec![Vec::new(); 3];
        for (kind, &label) in (1..).zip(&labels) {
            if label > 0 {
                groups[label - 1].push(kind);
            }
        }
        groups.retain(|g| !g.is_empty());
        if reversed {
            groups.iter_mut().for_each(|g| g.reverse());
        }
        groups
    })
}

/// Answers the batch on the class board and checks each answer against the
/// reference asked on the real board with the groups themselves.
fn check_grouped(case: &Case, rules: &Rules, groups: &[Vec<u32>]) -> Result<(), TestCaseError> {
    let engine_groups = Groups::new(groups.iter().cloned()).expect("valid groups");
    let classes = engine_groups
        .classes(&case.board, &Stop::never())
        .expect("no stop");
    let answers = solve(&classes, rules, &case.queries, &Stop::never()).expect("no stop");
    for (query, answer) in case.queries.iter().zip(&answers) {
        let expected = reference_grouped(&case.board, rules, groups, query.from, query.to);
        check_expected(&case.board, rules, *query, answer, expected)
            .map_err(|e| TestCaseError::fail(format!("{e}, groups {groups:?}")))?;
    }
    Ok(())
}

// Case counts keep this module near 20 s in an unoptimized build on two
// cores (`CARGO_PROFILE_TEST_OPT_LEVEL=0 cargo test -p linkpath-engine --test
// engine properties`).
proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn mahjong_matches_reference(case in line_case()) {
        check_case(&case, &Preset::Mahjong.rules())?;
    }

    #[test]
    fn shisen_sho_matches_reference(case in line_case()) {
        check_case(&case, &Preset::ShisenSho.rules())?;
    }

    #[test]
    fn lianliankan_matches_reference(case in line_case()) {
        check_case(&case, &Preset::Lianliankan.rules())?;
    }

}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn custom_line_rules_match_reference(case in line_case(), rules in line_rules()) {
        check_case(&case, &rules)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn matching_groups_match_reference(
        case in line_case(),
        rules in line_rules(),
        groups in groups(),
    ) {
        let rules = Rules { matching: Match::Same, ..rules };
        check_grouped(&case, &rules, &groups)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn curling_matches_reference(case in slide_case()) {
        check_case(&case, &Preset::Curling.rules())?;
    }

    #[test]
    fn custom_slide_rules_match_reference(case in slide_case(), rules in slide_rules()) {
        check_case(&case, &rules)?;
    }
}

/// `count` queries between cells for which `wanted` holds, with the two
/// ends of the same type when `same_type`. Every other query joins two
/// cells at most 10 steps apart, which the few-segment shapes can reach.
fn random_queries(
    rng: &mut Rng,
    board: &Board,
    count: usize,
    same_type: bool,
    wanted: impl Fn(u32) -> bool,
) -> Vec<Query> {
    let w = board.width();
    let cells: Vec<Point> = (0..board.cells().len())
        .filter(|&i| wanted(board.cells()[i]))
        .map(|i| Point::new((i % w) as i32, (i / w) as i32))
        .collect();
    let mut queries = Vec::new();
    for _ in 0..count * 100 {
        if queries.len() == count || cells.len() < 2 {
            break;
        }
        let a = cells[rng.below(cells.len())];
        let b = cells[rng.below(cells.len())];
        let near = a.x.abs_diff(b.x) + a.y.abs_diff(b.y) <= 10;
        let wanted_distance = near || queries.len() % 2 == 1;
        if a != b && wanted_distance && (!same_type || board.get(a) == board.get(b)) {
            queries.push(Query::new(a, b));
        }
    }
    queries
}

/// Counts the answers that took each code path, so the test fails if the
/// boards stop exercising what they are meant to.
#[derive(Default, Debug)]
struct Tally {
    up_to_three: usize,
    more_than_three: usize,
    no_path: usize,
}

#[test]
fn large_line_boards_match_reference() {
    let mut tally = Tally::default();
    let custom = Rules {
        movement: Movement::Line,
        max_segments: Some(6),
        outside: false,
        matching: Match::Any,
    };
    let rule_sets = [
        Preset::Mahjong.rules(),
        Preset::ShisenSho.rules(),
        Preset::Lianliankan.rules(),
        custom,
    ];
    for seed in 1..=3u64 {
        let mut rng = Rng::new(seed);
        for density in [10, 25, 40, 60] {
            let board = random_board(&mut rng, 60, 60, density, 4);
            for rules in &rule_sets {
                let same = rules.matching == Match::Same;
                let queries = random_queries(&mut rng, &board, 30, same, |c| c != EMPTY);
                let answers = solve(&board, rules, &queries, &Stop::never()).expect("no stop");
                for (query, answer) in queries.iter().zip(&answers) {
                    if let Err(e) = check_answer(&board, rules, *query, answer) {
                        panic!("seed {seed}, density {density}: {e}");
                    }
                    match answer.segments() {
                        Some(0..=3) => tally.up_to_three += 1,
                        Some(_) => tally.more_than_three += 1,
                        None => tally.no_path += 1,
                    }
                }
            }
        }
    }
    assert!(
        tally.up_to_three >= 300 && tally.more_than_three >= 100 && tally.no_path >= 300,
        "the boards no longer exercise every path: {tally:?}"
    );
}

#[test]
fn large_curling_boards_match_reference() {
    let mut connected = 0;
    for seed in 1..=4u64 {
        let mut rng = Rng::new(100 + seed);
        for density in [10, 20, 30] {
            let board = random_board(&mut rng, 20, 20, density, 1);
            let queries = random_queries(&mut rng, &board, 10, false, |c| c == EMPTY);
            let rules = Preset::Curling.rules();
            // One query at a time through one solver: it must restore every
            // block it broke.
            let mut solver = Solver::new(&board, rules);
            for query in &queries {
                let answer = solver.answer(*query, &Stop::never()).expect("no stop");
                if let Err(e) = check_answer(&board, &rules, *query, &answer) {
                    panic!("seed {seed}, density {density}: {e}");
                }
                connected += usize::from(answer.segments().is_some());
            }
        }
    }
    assert!(connected >= 20, "only {connected} queries connected");
}
