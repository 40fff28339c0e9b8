//! Hand-made edge cases for the engine, each with its exact answer.

use linkpath_engine::{
    Answer, Board, Interrupted, Match, Movement, Path, Point, Preset, Query, Reason, Rules,
    SolveError, Solver, Stop, solve,
};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

fn p(x: i32, y: i32) -> Point {
    Point::new(x, y)
}

fn board(rows: &[&str]) -> Board {
    Board::from_rows(rows).expect("a valid board")
}

/// The answer to one query.
fn answer(board: &Board, rules: impl Into<Rules>, from: Point, to: Point) -> Answer {
    let answers = solve(
        board,
        &rules.into(),
        &[Query::new(from, to)],
        &Stop::never(),
    )
    .expect("the query is on the board");
    answers.into_iter().next().expect("one answer")
}

/// A connected answer with these corners; the segment count follows.
fn connected(corners: &[(i32, i32)]) -> Answer {
    Answer::Connected(Path {
        segments: corners.len() as u32 - 1,
        corners: corners.iter().map(|&(x, y)| p(x, y)).collect(),
    })
}

fn not_connected(reason: Reason) -> Answer {
    Answer::NotConnected(reason)
}

fn line(max_segments: Option<u32>, outside: bool, matching: Match) -> Rules {
    Rules {
        movement: Movement::Line,
        max_segments,
        outside,
        matching,
    }
}

fn slide(max_segments: Option<u32>) -> Rules {
    Rules {
        movement: Movement::Slide,
        max_segments,
        outside: false,
        matching: Match::Any,
    }
}

const LINE_PRESETS: [Preset; 3] = [Preset::Mahjong, Preset::ShisenSho, Preset::Lianliankan];

// ---- The examples from docs/rules.md ----

#[test]
fn rules_example_needs_four_segments() {
    let b = board(&["XXXXX", "X   X", "XXX X", " XXX "]);
    assert_eq!(
        answer(&b, Preset::Mahjong, p(1, 2), p(4, 2)),
        connected(&[(1, 2), (1, 1), (3, 1), (3, 2), (4, 2)])
    );
}

#[test]
fn rules_example_leaves_the_board_below() {
    let b = board(&["XXXXX", "X   X", "XXX X", " XXX "]);
    assert_eq!(
        answer(&b, Preset::Mahjong, p(0, 2), p(3, 3)),
        connected(&[(0, 2), (0, 4), (3, 4), (3, 3)])
    );
}

#[test]
fn rules_example_walled_in_pair_has_no_path() {
    // The third sample pair (2 3 3 4, 1-based): (1, 2) and (2, 3).
    let b = board(&["XXXXX", "X   X", "XXX X", " XXX "]);
    assert_eq!(
        answer(&b, Preset::Mahjong, p(1, 2), p(2, 3)),
        not_connected(Reason::NoPath)
    );
}

// ---- Thin boards ----

#[test]
fn one_row_board_straight_line() {
    let b = board(&["A..A"]);
    for preset in LINE_PRESETS {
        assert_eq!(
            answer(&b, preset, p(0, 0), p(3, 0)),
            connected(&[(0, 0), (3, 0)]),
            "{preset}"
        );
    }
}

#[test]
fn one_row_board_blocked_in_between() {
    // Round the block through the ring, above or below: both are 5 long.
    let b = board(&["A.XA"]);
    let Answer::Connected(path) = answer(&b, Preset::ShisenSho, p(0, 0), p(3, 0)) else {
        panic!("shisen-sho goes round the block");
    };
    let above = [(0, 0), (0, -1), (3, -1), (3, 0)].map(|(x, y)| p(x, y));
    let below = [(0, 0), (0, 1), (3, 1), (3, 0)].map(|(x, y)| p(x, y));
    assert_eq!(path.segments, 3);
    assert!(
        path.corners == above || path.corners == below,
        "{:?}",
        path.corners
    );
    assert_eq!(
        answer(&b, Preset::Lianliankan, p(0, 0), p(3, 0)),
        not_connected(Reason::NoPath)
    );
}

#[test]
fn one_column_board() {
    let b = board(&["A", ".", ".", "A"]);
    for preset in LINE_PRESETS {
        assert_eq!(
            answer(&b, preset, p(0, 3), p(0, 0)),
            connected(&[(0, 3), (0, 0)]),
            "{preset}"
        );
    }
    let b = board(&["A", "B", "A"]);
    let Answer::Connected(path) = answer(&b, Preset::Mahjong, p(0, 0), p(0, 2)) else {
        panic!("mahjong goes round B");
    };
    let left = [(0, 0), (-1, 0), (-1, 2), (0, 2)].map(|(x, y)| p(x, y));
    let right = [(0, 0), (1, 0), (1, 2), (0, 2)].map(|(x, y)| p(x, y));
    assert!(path.corners == left || path.corners == right, "{path:?}");
    assert_eq!(
        answer(&b, Preset::Lianliankan, p(0, 0), p(0, 2)),
        not_connected(Reason::NoPath)
    );
}

#[test]
fn one_by_two_board_neighbours() {
    let b = board(&["AA"]);
    for preset in LINE_PRESETS {
        assert_eq!(
            answer(&b, preset, p(1, 0), p(0, 0)),
            connected(&[(1, 0), (0, 0)]),
            "{preset}"
        );
    }
}

// ---- Neighbours ----

#[test]
fn neighbours_are_one_segment_even_when_walled_in() {
    let b = board(&["XXXX", "XABX", "XCDX", "XXXX"]);
    let mahjong = Preset::Mahjong;
    assert_eq!(
        answer(&b, mahjong, p(1, 1), p(2, 1)),
        connected(&[(1, 1), (2, 1)])
    );
    assert_eq!(
        answer(&b, mahjong, p(2, 2), p(2, 1)),
        connected(&[(2, 2), (2, 1)])
    );
    // Diagonal tiles inside the wall cannot meet.
    assert_eq!(
        answer(&b, mahjong, p(1, 1), p(2, 2)),
        not_connected(Reason::NoPath)
    );
}

// ---- The outside ring ----

#[test]
fn path_round_the_top_of_the_board() {
    let b = board(&["AXA", "XXX", "XXX"]);
    assert_eq!(
        answer(&b, Preset::ShisenSho, p(0, 0), p(2, 0)),
        connected(&[(0, 0), (0, -1), (2, -1), (2, 0)])
    );
}

#[test]
fn path_round_the_right_of_the_board() {
    let b = board(&["XXA", "XXX", "XXA"]);
    assert_eq!(
        answer(&b, Preset::ShisenSho, p(2, 0), p(2, 2)),
        connected(&[(2, 0), (3, 0), (3, 2), (2, 2)])
    );
}

#[test]
fn path_round_the_bottom_and_left_of_the_board() {
    let b = board(&["XXX", "XXX", "AXA"]);
    assert_eq!(
        answer(&b, Preset::ShisenSho, p(2, 2), p(0, 2)),
        connected(&[(2, 2), (2, 3), (0, 3), (0, 2)])
    );
    let b = board(&["AXX", "XXX", "AXX"]);
    assert_eq!(
        answer(&b, Preset::ShisenSho, p(0, 0), p(0, 2)),
        connected(&[(0, 0), (-1, 0), (-1, 2), (0, 2)])
    );
}

#[test]
fn path_turns_at_a_corner_of_the_ring() {
    // On a full board the top-middle tile can only leave upwards and the
    // right-middle tile only be entered from the right: round the corner
    // (width, -1).
    let b = board(&["XAX", "XXA", "XXX"]);
    assert_eq!(
        answer(&b, Preset::Mahjong, p(1, 0), p(2, 1)),
        connected(&[(1, 0), (1, -1), (3, -1), (3, 1), (2, 1)])
    );
    // Likewise round (-1, height).
    let b = board(&["XXX", "AXX", "XAX"]);
    assert_eq!(
        answer(&b, Preset::Mahjong, p(0, 1), p(1, 2)),
        connected(&[(0, 1), (-1, 1), (-1, 3), (1, 3), (1, 2)])
    );
    // Shisen-Sho allows only three segments.
    assert_eq!(
        answer(&b, Preset::ShisenSho, p(0, 1), p(1, 2)),
        not_connected(Reason::NoPath)
    );
}

#[test]
fn full_board_border_tiles_meet_round_the_ring() {
    let b = board(&["XXXX", "XXXX", "XXXX", "XXXX"]);
    let m = Preset::Mahjong;
    // Two corners of one side: three segments, the only way being outside.
    assert_eq!(
        answer(&b, m, p(0, 0), p(3, 0)),
        connected(&[(0, 0), (0, -1), (3, -1), (3, 0)])
    );
    // Opposite corners: four segments, over the top-right or under the
    // bottom-left corner, both 10 long.
    let Answer::Connected(path) = answer(&b, m, p(0, 0), p(3, 3)) else {
        panic!("opposite corners connect round the ring");
    };
    let over = [(0, 0), (0, -1), (4, -1), (4, 3), (3, 3)].map(|(x, y)| p(x, y));
    let under = [(0, 0), (-1, 0), (-1, 4), (3, 4), (3, 3)].map(|(x, y)| p(x, y));
    assert!(path.corners == over || path.corners == under, "{path:?}");
    assert_eq!(path.segments, 4);
    // Top-middle to bottom-middle: five segments.
    assert_eq!(answer(&b, m, p(1, 0), p(2, 3)).segments(), Some(5));
    // An interior tile is walled in, except from its neighbours.
    assert_eq!(
        answer(&b, m, p(1, 1), p(0, 0)),
        not_connected(Reason::NoPath)
    );
    assert_eq!(
        answer(&b, m, p(1, 1), p(2, 2)),
        not_connected(Reason::NoPath)
    );
    assert_eq!(
        answer(&b, m, p(1, 1), p(1, 0)),
        connected(&[(1, 1), (1, 0)])
    );
}

// ---- The presets differ ----

#[test]
fn shisen_sho_leaves_the_board_where_lianliankan_goes_the_long_way() {
    let b = board(&["AXA", ".X.", "..."]);
    assert_eq!(
        answer(&b, Preset::ShisenSho, p(0, 0), p(2, 0)),
        connected(&[(0, 0), (0, -1), (2, -1), (2, 0)])
    );
    assert_eq!(
        answer(&b, Preset::Lianliankan, p(0, 0), p(2, 0)),
        connected(&[(0, 0), (0, 2), (2, 2), (2, 0)])
    );
}

#[test]
fn only_mahjong_takes_four_segments() {
    let b = board(&["XXXXX", "X   X", "XXX X", " XXX "]);
    let four = connected(&[(1, 2), (1, 1), (3, 1), (3, 2), (4, 2)]);
    assert_eq!(answer(&b, Preset::Mahjong, p(1, 2), p(4, 2)), four);
    assert_eq!(
        answer(&b, Preset::ShisenSho, p(1, 2), p(4, 2)),
        not_connected(Reason::NoPath)
    );
    assert_eq!(
        answer(&b, Preset::Lianliankan, p(1, 2), p(4, 2)),
        not_connected(Reason::NoPath)
    );
    assert_eq!(
        answer(&b, line(Some(3), true, Match::Any), p(1, 2), p(4, 2)),
        not_connected(Reason::NoPath)
    );
    assert_eq!(
        answer(&b, line(Some(4), false, Match::Any), p(1, 2), p(4, 2)),
        four
    );
}

// ---- Refusals ----

#[test]
fn type_mismatch_only_when_types_must_match() {
    let b = board(&["AB"]);
    for preset in [Preset::ShisenSho, Preset::Lianliankan] {
        assert_eq!(
            answer(&b, preset, p(0, 0), p(1, 0)),
            not_connected(Reason::TypeMismatch),
            "{preset}"
        );
    }
    assert_eq!(
        answer(&b, Preset::Mahjong, p(0, 0), p(1, 0)),
        connected(&[(0, 0), (1, 0)])
    );
}

#[test]
fn not_a_tile_for_an_empty_end() {
    let b = board(&["A.A"]);
    for preset in LINE_PRESETS {
        for (from, to) in [(p(1, 0), p(0, 0)), (p(0, 0), p(1, 0))] {
            assert_eq!(
                answer(&b, preset, from, to),
                not_connected(Reason::NotATile),
                "{preset}"
            );
        }
    }
    let b = board(&["..", ".."]);
    assert_eq!(
        answer(&b, Preset::Mahjong, p(0, 0), p(1, 1)),
        not_connected(Reason::NotATile)
    );
}

#[test]
fn same_cell_under_every_preset() {
    let tiles = board(&["AA"]);
    let vacant = board(&[".."]);
    for preset in LINE_PRESETS {
        assert_eq!(
            answer(&tiles, preset, p(1, 0), p(1, 0)),
            not_connected(Reason::SameCell),
            "{preset}"
        );
    }
    assert_eq!(
        answer(&vacant, Preset::Curling, p(0, 0), p(0, 0)),
        not_connected(Reason::SameCell)
    );
}

#[test]
fn blocked_when_a_curling_end_is_a_block() {
    let b = board(&[".X."]);
    assert_eq!(
        answer(&b, Preset::Curling, p(1, 0), p(0, 0)),
        not_connected(Reason::Blocked)
    );
    assert_eq!(
        answer(&b, Preset::Curling, p(2, 0), p(1, 0)),
        not_connected(Reason::Blocked)
    );
}

// ---- Segment limits ----

#[test]
fn max_segments_limits() {
    let inside = |max| line(max, false, Match::Any);
    // A straight line, an L and a Z, each the only way.
    let b = board(&["A.A"]);
    assert_eq!(
        answer(&b, inside(Some(1)), p(0, 0), p(2, 0)),
        connected(&[(0, 0), (2, 0)])
    );
    let l = board(&["A.", "XA"]);
    assert_eq!(
        answer(&l, inside(Some(1)), p(0, 0), p(1, 1)),
        not_connected(Reason::NoPath)
    );
    let corner = connected(&[(0, 0), (1, 0), (1, 1)]);
    assert_eq!(answer(&l, inside(Some(2)), p(0, 0), p(1, 1)), corner);
    assert_eq!(answer(&l, inside(None), p(0, 0), p(1, 1)), corner);
    let z = board(&["A.X", "X.A"]);
    assert_eq!(
        answer(&z, inside(Some(2)), p(0, 0), p(2, 1)),
        not_connected(Reason::NoPath)
    );
    assert_eq!(
        answer(&z, inside(Some(3)), p(0, 0), p(2, 1)),
        connected(&[(0, 0), (1, 0), (1, 1), (2, 1)])
    );
    // No segments at all: even neighbours do not connect.
    let n = board(&["AA"]);
    assert_eq!(
        answer(&n, inside(Some(0)), p(0, 0), p(1, 0)),
        not_connected(Reason::NoPath)
    );
    assert_eq!(
        answer(&n, inside(Some(1)), p(0, 0), p(1, 0)),
        connected(&[(0, 0), (1, 0)])
    );
}

#[test]
fn unlimited_rules_inside_the_board() {
    // A snake inside the board takes five segments; over the top it is
    // three.
    let b = board(&["A.X.A", "X.X.X", "X...X"]);
    let (from, to) = (p(0, 0), p(4, 0));
    assert_eq!(
        answer(&b, line(None, false, Match::Any), from, to),
        connected(&[(0, 0), (1, 0), (1, 2), (3, 2), (3, 0), (4, 0)])
    );
    assert_eq!(
        answer(&b, line(Some(4), false, Match::Any), from, to),
        not_connected(Reason::NoPath)
    );
    assert_eq!(
        answer(&b, Preset::Mahjong, from, to),
        connected(&[(0, 0), (0, -1), (4, -1), (4, 0)])
    );
}

// ---- Curling ----

#[test]
fn curling_stone_breaks_a_block_to_stop() {
    // Thrown down, the stone stops above the block (which breaks); thrown
    // right from there it reaches the goal.
    let b = board(&["...", "...", "X.."]);
    assert_eq!(
        answer(&b, Preset::Curling, p(0, 0), p(2, 1)),
        connected(&[(0, 0), (0, 1), (2, 1)])
    );
}

#[test]
fn curling_stone_stops_on_the_goal_it_passes() {
    let b = board(&["...X"]);
    assert_eq!(
        answer(&b, Preset::Curling, p(0, 0), p(1, 0)),
        connected(&[(0, 0), (1, 0)])
    );
}

#[test]
fn curling_stone_thrown_off_the_board() {
    // No blocks: every throw that misses the goal's line is lost.
    let b = board(&["..", ".."]);
    assert_eq!(
        answer(&b, Preset::Curling, p(0, 0), p(1, 1)),
        not_connected(Reason::NoPath)
    );
    assert_eq!(
        answer(&b, slide(None), p(0, 0), p(1, 1)),
        not_connected(Reason::NoPath)
    );
}

#[test]
fn curling_stone_cannot_be_thrown_into_a_block_beside_it() {
    // docs/rules.md, curling sample 3: "1 1 2 1 1 3" -> -1.
    let b = board(&["XX.XX."]);
    assert_eq!(
        answer(&b, Preset::Curling, p(2, 0), p(5, 0)),
        not_connected(Reason::NoPath)
    );
    // Sample 4: "1 0 2 1 1 3" -> 4.
    let b = board(&["X..XX."]);
    assert_eq!(
        answer(&b, Preset::Curling, p(2, 0), p(5, 0)),
        connected(&[(2, 0), (1, 0), (2, 0), (3, 0), (5, 0)])
    );
}

#[test]
fn curling_ten_throws_is_the_limit() {
    // docs/rules.md, curling samples 5 and 6: nine blocks in a row take ten
    // throws, ten blocks take eleven.
    let nine = board(&["..XXXXXXXXX."]);
    let stops: Vec<(i32, i32)> = (0..=9).map(|x| (x, 0)).chain([(11, 0)]).collect();
    assert_eq!(
        answer(&nine, Preset::Curling, p(0, 0), p(11, 0)),
        connected(&stops)
    );
    assert_eq!(
        answer(&nine, slide(Some(9)), p(0, 0), p(11, 0)),
        not_connected(Reason::NoPath)
    );
    let ten = board(&["..XXXXXXXXXX."]);
    assert_eq!(
        answer(&ten, Preset::Curling, p(0, 0), p(12, 0)),
        not_connected(Reason::NoPath)
    );
    let stops: Vec<(i32, i32)> = (0..=10).map(|x| (x, 0)).chain([(12, 0)]).collect();
    assert_eq!(
        answer(&ten, slide(None), p(0, 0), p(12, 0)),
        connected(&stops)
    );
}

#[test]
fn curling_sample_board_takes_four_throws() {
    let b = board(&["X...X.", "XX....", "......", "......", "X....X", ".XXXXX"]);
    let (start, goal) = (p(3, 0), p(5, 2));
    let Answer::Connected(path) = answer(&b, Preset::Curling, start, goal) else {
        panic!("the sample board connects");
    };
    assert_eq!(path.segments, 4);
    assert_eq!(path.corners.len(), 5);
    assert_eq!((path.corners[0], path.corners[4]), (start, goal));
    assert_eq!(
        answer(&b, slide(Some(3)), start, goal),
        not_connected(Reason::NoPath)
    );
}

// ---- Queries are independent ----

#[test]
fn curling_queries_see_the_board_as_given() {
    let b = board(&["...", "...", "X.."]);
    let q = Query::new(p(0, 0), p(2, 1));
    let want = connected(&[(0, 0), (0, 1), (2, 1)]);
    // The first query breaks the block at (0, 2); the second needs it.
    let answers = solve(&b, &Preset::Curling.rules(), &[q, q], &Stop::never()).unwrap();
    assert_eq!(answers, [want.clone(), want.clone()]);
    // A failed search must restore the board as well.
    let lost = Query::new(p(1, 0), p(2, 2));
    let answers = solve(&b, &Preset::Curling.rules(), &[lost, q], &Stop::never()).unwrap();
    assert_eq!(answers[1], want);
    let mut solver = Solver::new(&b, Preset::Curling.rules());
    for _ in 0..3 {
        assert_eq!(solver.answer(q, &Stop::never()), Ok(want.clone()));
    }
}

#[test]
fn line_queries_are_independent() {
    let b = board(&["XXXXX", "X   X", "XXX X", " XXX "]);
    let four = connected(&[(1, 2), (1, 1), (3, 1), (3, 2), (4, 2)]);
    let three = connected(&[(0, 2), (0, 4), (3, 4), (3, 3)]);
    let (q4, q3) = (Query::new(p(1, 2), p(4, 2)), Query::new(p(0, 2), p(3, 3)));
    let none = Query::new(p(1, 2), p(2, 3));
    let answers = solve(
        &b,
        &Preset::Mahjong.rules(),
        &[q4, none, q3, q4, q3],
        &Stop::never(),
    );
    assert_eq!(
        answers.unwrap(),
        [
            four.clone(),
            not_connected(Reason::NoPath),
            three.clone(),
            four,
            three
        ]
    );
}

// ---- Errors ----

#[test]
fn off_board_point_is_an_error_naming_the_query() {
    let b = board(&["AAA"]);
    let rules = Preset::Mahjong.rules();
    let ok = Query::new(p(0, 0), p(1, 0));
    let result = solve(
        &b,
        &rules,
        &[ok, Query::new(p(0, 0), p(3, 0))],
        &Stop::never(),
    );
    assert_eq!(
        result,
        Err(SolveError::OffBoard {
            query: 1,
            point: p(3, 0),
            width: 3,
            height: 1
        })
    );
    let result = solve(
        &b,
        &rules,
        &[Query::new(p(-1, 0), p(0, 0)), ok],
        &Stop::never(),
    );
    assert_eq!(
        result,
        Err(SolveError::OffBoard {
            query: 0,
            point: p(-1, 0),
            width: 3,
            height: 1
        })
    );
    let result = solve(
        &b,
        &rules,
        &[ok, ok, Query::new(p(2, 0), p(2, 1))],
        &Stop::never(),
    );
    assert_eq!(
        result.unwrap_err().to_string(),
        "query 2: (2, 1) is off the 3 x 1 board"
    );
}

/// A `side × side` board (`side` odd) framed by tiles, with a serpentine
/// corridor inside: corridors on odd rows, walls on even rows with a
/// one-cell gap at alternate ends. Tiles at both ends of the corridor.
/// Returns the board, the two ends and the only path's corners.
fn serpentine(side: usize) -> (Board, Point, Point, Vec<Point>) {
    assert!(side % 2 == 1 && side >= 5);
    let last = side as i32 - 2; // the last interior row and column
    let mut rows = vec![vec![b'.'; side]; side];
    for (y, row) in rows.iter_mut().enumerate() {
        let y = y as i32;
        for (x, cell) in row.iter_mut().enumerate() {
            let x = x as i32;
            let frame = x == 0 || y == 0 || x == last + 1 || y == last + 1;
            let gap = if (y / 2) % 2 == 1 { last } else { 1 };
            let wall = y % 2 == 0 && x != gap;
            if frame || wall {
                *cell = b'X';
            }
        }
    }
    let from = p(1, 1);
    let to = if ((last + 1) / 2) % 2 == 1 {
        p(last, last)
    } else {
        p(1, last)
    };
    rows[1][1] = b'A';
    rows[to.y as usize][to.x as usize] = b'A';
    let rows: Vec<String> = rows
        .into_iter()
        .map(|r| String::from_utf8(r).unwrap())
        .collect();
    let mut corners = vec![from];
    for wall in (2..=last - 1).step_by(2) {
        let gap = if (wall / 2) % 2 == 1 { last } else { 1 };
        corners.push(p(gap, wall - 1));
        corners.push(p(gap, wall + 1));
    }
    corners.push(to);
    (Board::from_rows(&rows).unwrap(), from, to, corners)
}

#[test]
fn serpentine_needs_hundreds_of_segments() {
    let (b, from, to, corners) = serpentine(11);
    // Checked by hand for the small one.
    assert_eq!(
        corners,
        [
            (1, 1),
            (9, 1),
            (9, 3),
            (1, 3),
            (1, 5),
            (9, 5),
            (9, 7),
            (1, 7),
            (1, 9),
            (9, 9)
        ]
        .map(|(x, y)| p(x, y))
    );
    let want = Answer::Connected(Path {
        segments: 9,
        corners,
    });
    assert_eq!(answer(&b, Preset::Mahjong, from, to), want);

    let (b, from, to, corners) = serpentine(301);
    assert_eq!(corners.len(), 300);
    let want = Answer::Connected(Path {
        segments: 299,
        corners,
    });
    assert_eq!(answer(&b, Preset::Mahjong, from, to), want);
}

#[test]
fn expired_deadline_interrupts_a_long_search() {
    let (b, from, to, corners) = serpentine(301);
    let rules = Preset::Mahjong.rules();
    let query = Query::new(from, to);
    let expired = Stop::never().with_deadline(Instant::now());
    assert_eq!(
        solve(&b, &rules, &[query], &expired),
        Err(SolveError::Interrupted(Interrupted::Deadline))
    );
    // The solver that was interrupted still answers in full afterwards.
    let mut solver = Solver::new(&b, rules);
    assert_eq!(solver.answer(query, &expired), Err(Interrupted::Deadline));
    let want = Answer::Connected(Path {
        segments: 299,
        corners,
    });
    assert_eq!(solver.answer(query, &Stop::never()), Ok(want));
}

#[test]
fn cancelled_flag_interrupts_a_long_search() {
    let (b, from, to, _) = serpentine(301);
    let cancelled = AtomicBool::new(true);
    let stop = Stop::never().with_flag(&cancelled);
    assert_eq!(
        solve(&b, &Preset::Mahjong.rules(), &[Query::new(from, to)], &stop),
        Err(SolveError::Interrupted(Interrupted::Cancelled))
    );
}

#[test]
fn a_batch_spread_over_threads_answers_in_order_and_stops_as_one() {
    let (b, from, to, corners) = serpentine(301);
    // Four threads whatever the machine: the batch is big enough to be
    // spread over them.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .expect("a thread pool");
    let queries = [
        Query::new(from, to),
        Query::new(to, from),
        Query::new(from, from),
        Query::new(from, to),
        Query::new(to, from),
    ];
    let mut solver = Solver::new(&b, Preset::Mahjong.rules());
    let expired = Stop::never().with_deadline(Instant::now());
    let stopped = pool.install(|| solver.answer_all(&queries, &expired));
    assert_eq!(stopped, Err(Interrupted::Deadline));
    let answers = pool.install(|| solver.answer_all(&queries, &Stop::never()));
    let there = Answer::Connected(Path {
        segments: 299,
        corners: corners.clone(),
    });
    let back = Answer::Connected(Path {
        segments: 299,
        corners: corners.into_iter().rev().collect(),
    });
    let same = Answer::NotConnected(Reason::SameCell);
    assert_eq!(
        answers,
        Ok(vec![there.clone(), back.clone(), same, there, back])
    );
}

/// A square rink with a block on about a third of the squares, in a fixed
/// pattern, its top-left and bottom-right corners vacant.
fn patterned_rink(side: i32) -> Board {
    let rows: Vec<String> = (0..side)
        .map(|y| {
            (0..side)
                .map(|x| {
                    let corner = (x, y) == (0, 0) || (x, y) == (side - 1, side - 1);
                    if (x * 7 + y * 13) % 10 < 3 && !corner {
                        'X'
                    } else {
                        '.'
                    }
                })
                .collect()
        })
        .collect();
    Board::from_rows(&rows).unwrap()
}

#[test]
fn expired_deadline_interrupts_a_long_curling_search() {
    // No throw limit on 20 x 20: far more than Stop::POLL_EVERY throws.
    let b = patterned_rink(20);
    let query = Query::new(p(0, 0), p(19, 19));
    let expired = Stop::never().with_deadline(Instant::now());
    assert_eq!(
        solve(&b, &slide(None), &[query], &expired),
        Err(SolveError::Interrupted(Interrupted::Deadline))
    );
}

#[test]
fn a_million_cell_rink_with_twenty_throws_answers_or_stops_at_its_deadline() {
    // The clock is read every Stop::POLL_EVERY throws, so the search ends
    // soon after its 300 ms deadline. How soon is for the benchmarks; here
    // a minute only guards against a search that never reads it.
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let b = patterned_rink(1000);
        let query = Query::new(p(0, 0), p(999, 999));
        let deadline = Instant::now() + std::time::Duration::from_millis(300);
        let stop = Stop::never().with_deadline(deadline);
        let _ = sender.send(solve(&b, &slide(Some(20)), &[query], &stop));
    });
    let result = receiver
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the search ended within a minute of its 300 ms deadline");
    assert!(
        matches!(
            result,
            Ok(_) | Err(SolveError::Interrupted(Interrupted::Deadline))
        ),
        "{result:?}"
    );
}

#[test]
fn a_curling_line_of_blocks_takes_a_throw_per_block() {
    // 200 blocks in a row: each throw breaks the next one.
    let row = format!("..{}.", "X".repeat(200));
    let b = Board::from_rows(&[row]).unwrap();
    let query = Query::new(p(0, 0), p(202, 0));
    let stops: Vec<(i32, i32)> = (0..=200).map(|x| (x, 0)).chain([(202, 0)]).collect();
    assert_eq!(
        solve(&b, &slide(None), &[query], &Stop::never()),
        Ok(vec![connected(&stops)])
    );
}

#[test]
fn a_search_within_its_deadline_is_answered() {
    let b = board(&["XXXXX", "X   X", "XXX X", " XXX "]);
    let later = Stop::never().with_deadline(Instant::now() + std::time::Duration::from_secs(3600));
    let answers = solve(
        &b,
        &Preset::Mahjong.rules(),
        &[Query::new(p(1, 2), p(4, 2))],
        &later,
    );
    assert_eq!(
        answers,
        Ok(vec![connected(&[(1, 2), (1, 1), (3, 1), (3, 2), (4, 2)])])
    );
}

#[test]
#[should_panic(expected = "leaves the board")]
fn solver_panics_on_an_off_board_point() {
    let b = board(&["AA"]);
    let mut solver = Solver::new(&b, Preset::Mahjong.rules());
    let _ = solver.answer(Query::new(p(0, 0), p(2, 0)), &Stop::never());
}

// ---- Boards and presets ----

#[test]
fn board_construction_errors() {
    use linkpath_engine::BoardError;
    assert_eq!(
        Board::from_rows(&["AAA", "AA"]),
        Err(BoardError::Ragged {
            row: 1,
            found: 2,
            expected: 3
        })
    );
    assert_eq!(Board::from_rows::<&str>(&[]), Err(BoardError::Empty));
    assert_eq!(Board::new(2, 0, vec![]), Err(BoardError::Empty));
    assert_eq!(
        Board::new(2, 2, vec![0; 3]),
        Err(BoardError::CellCount {
            width: 2,
            height: 2,
            found: 3
        })
    );
}

#[test]
fn presets_by_name() {
    for preset in Preset::ALL {
        assert_eq!(preset.name().parse::<Preset>(), Ok(preset));
    }
    assert_eq!(
        Preset::Lianliankan.rules(),
        line(Some(3), false, Match::Same)
    );
    assert_eq!(Preset::ShisenSho.rules(), line(Some(3), true, Match::Same));
    assert_eq!(Preset::Mahjong.rules(), line(None, true, Match::Any));
    assert_eq!(Preset::Curling.rules(), slide(Some(10)));
    assert!("shisen_sho".parse::<Preset>().is_err());
}

#[test]
fn a_solver_without_paths_answers_the_same_counts_and_no_corners() {
    let (serpent, from, to, _) = serpentine(31);
    let sample = board(&["XXXXX", "X   X", "XXX X", " XXX "]);
    let rink = patterned_rink(20);
    let cases = [
        (&serpent, Preset::Mahjong.rules(), Query::new(from, to)),
        (
            &sample,
            Preset::Mahjong.rules(),
            Query::new(p(1, 2), p(4, 2)),
        ),
        (
            &sample,
            Preset::Mahjong.rules(),
            Query::new(p(0, 2), p(3, 3)),
        ),
        (
            &sample,
            Preset::Mahjong.rules(),
            Query::new(p(1, 2), p(2, 3)),
        ),
        (
            &sample,
            Preset::Mahjong.rules(),
            Query::new(p(1, 1), p(2, 3)),
        ),
        (&rink, slide(Some(10)), Query::new(p(0, 0), p(19, 19))),
    ];
    for (b, rules, query) in cases {
        let full = Solver::new(b, rules).answer(query, &Stop::never()).unwrap();
        let counted = Solver::new(b, rules)
            .without_paths()
            .answer(query, &Stop::never())
            .unwrap();
        let expected = match full {
            Answer::Connected(path) => Answer::Connected(Path {
                segments: path.segments,
                corners: Vec::new(),
            }),
            refused => refused,
        };
        assert_eq!(counted, expected, "{query:?}");
    }
}
