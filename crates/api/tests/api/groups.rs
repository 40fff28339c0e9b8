//! Matching groups on every route, against a brute-force reference that
//! asks the groups themselves whether two tiles match (never the class
//! board the routes answer on): thousands of small random boards, text and
//! numeric, with random groups, rules and gravity.

use linkpath_api::mechanics::{self, ClearOutcome};
use linkpath_api::{Limits, solve_body};
use linkpath_engine::SplitMix64;
use linkpath_engine::Stop;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

/// A board as the reference sees it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Cells {
    width: usize,
    height: usize,
    cells: Vec<u32>,
}

/// One random case: a board, its groups, its rules and gravity.
#[derive(Clone, Debug)]
struct Case {
    board: Cells,
    numbers: bool,
    groups: Vec<Vec<u32>>,
    max_segments: Option<u32>,
    outside: bool,
    gravity: &'static str,
}

const GRAVITIES: [&str; 3] = ["none", "down", "left"];

impl Case {
    /// `types` tile types (of 1..=5) at `density` percent of the cells;
    /// groups over the types 1..=6, so some name types not on the board.
    fn random(rng: &mut SplitMix64, side: usize, density: usize, types: u32) -> Case {
        let (width, height) = (1 + rng.below(side), 1 + rng.below(side));
        let cells = (0..width * height)
            .map(|_| {
                if rng.below(100) < density {
                    1 + rng.below(types as usize) as u32
                } else {
                    0
                }
            })
            .collect();
        Case {
            board: Cells {
                width,
                height,
                cells,
            },
            numbers: rng.below(3) == 0,
            groups: random_groups(rng),
            max_segments: [None, Some(1), Some(2), Some(3), Some(4)][rng.below(5)],
            outside: rng.below(2) == 0,
            gravity: GRAVITIES[rng.below(3)],
        }
    }

    /// Whether two tiles match: of one type, or both in one group.
    fn matches(&self, a: u32, b: u32) -> bool {
        a == b || self.groups.iter().any(|g| g.contains(&a) && g.contains(&b))
    }

    fn rows(&self, cells: &Cells) -> Value {
        let rows = cells.cells.chunks(cells.width);
        if self.numbers {
            json!(rows.map(<[u32]>::to_vec).collect::<Vec<_>>())
        } else {
            json!(
                rows.map(|row| row
                    .iter()
                    .map(|&c| if c == 0 {
                        '.'
                    } else {
                        char::from(b'@' + c as u8)
                    })
                    .collect::<String>())
                    .collect::<Vec<_>>()
            )
        }
    }

    fn rules(&self) -> Value {
        let groups: Vec<Value> = self
            .groups
            .iter()
            .map(|g| {
                if self.numbers {
                    json!(g)
                } else {
                    json!(
                        g.iter()
                            .map(|&k| char::from(b'@' + k as u8))
                            .collect::<String>()
                    )
                }
            })
            .collect();
        json!({
            "max_segments": self.max_segments,
            "outside": self.outside,
            "match": {"groups": groups},
        })
    }

    fn body(&self, extra: Value) -> Vec<u8> {
        let mut body = json!({"board": self.rows(&self.board), "rules": self.rules()});
        for (k, v) in extra.as_object().expect("an object") {
            body[k] = v.clone();
        }
        serde_json::to_vec(&body).expect("a body")
    }

    /// The fewest segments of a path between two cells, by breadth-first
    /// search over (cell, direction) on the board padded by its ring.
    fn segments(&self, cells: &Cells, a: usize, b: usize) -> Option<u32> {
        let (w, h) = (cells.width as i64, cells.height as i64);
        let max = self.max_segments.unwrap_or(u32::MAX);
        let at = |i: usize| ((i % cells.width) as i64, (i / cells.width) as i64);
        let (from, to) = (at(a), at(b));
        let open = |(x, y): (i64, i64)| {
            if (0..w).contains(&x) && (0..h).contains(&y) {
                cells.cells[(y * w + x) as usize] == 0
            } else {
                self.outside && (-1..=w).contains(&x) && (-1..=h).contains(&y)
            }
        };
        // The (cell, direction) states a segment has started from.
        let mut seen: HashSet<((i64, i64), usize)> = HashSet::new();
        let mut frontier: Vec<((i64, i64), usize)> = Vec::new();
        let steps = [(1, 0), (0, 1), (-1, 0), (0, -1)];
        let mut segments = 1;
        for d in 0..4 {
            frontier.push((from, d));
            seen.insert((from, d));
        }
        // Level `segments`: every state reached with that many segments,
        // each followed straight ahead as far as it goes.
        while segments <= max && !frontier.is_empty() {
            let mut reached = Vec::new();
            for &(start, d) in &frontier {
                let mut p = start;
                loop {
                    p = (p.0 + steps[d].0, p.1 + steps[d].1);
                    if p == to {
                        return Some(segments);
                    }
                    if !open(p) {
                        break;
                    }
                    reached.push(p);
                }
            }
            let mut next = Vec::new();
            for p in reached {
                for d in 0..4 {
                    if seen.insert((p, d)) {
                        next.push((p, d));
                    }
                }
            }
            frontier = next;
            segments += 1;
        }
        None
    }

    /// Every pair the reference can remove on `cells`, the first tile
    /// before the second in reading order, with its fewest segments.
    fn moves(&self, cells: &Cells) -> Vec<(usize, usize, u32)> {
        let tiles: Vec<usize> = (0..cells.cells.len())
            .filter(|&i| cells.cells[i] != 0)
            .collect();
        let mut found = Vec::new();
        for (n, &a) in tiles.iter().enumerate() {
            for &b in &tiles[n + 1..] {
                if self.matches(cells.cells[a], cells.cells[b])
                    && let Some(s) = self.segments(cells, a, b)
                {
                    found.push((a, b, s));
                }
            }
        }
        found
    }

    /// `cells` after the pair at `a` and `b` is removed and the tiles fall.
    fn remove(&self, cells: &Cells, a: usize, b: usize) -> Cells {
        let mut after = cells.clone();
        after.cells[a] = 0;
        after.cells[b] = 0;
        let (w, h) = (cells.width, cells.height);
        // Only the columns (rows) that lost a tile are compacted.
        let lines = |of: fn(usize, usize) -> usize| {
            let mut lines = vec![of(a, w), of(b, w)];
            lines.dedup();
            lines
        };
        match self.gravity {
            "down" => {
                for x in lines(|i, w| i % w) {
                    let column: Vec<u32> = (0..h)
                        .map(|y| after.cells[y * w + x])
                        .filter(|&c| c != 0)
                        .collect();
                    let top = h - column.len();
                    for y in 0..h {
                        after.cells[y * w + x] = if y < top { 0 } else { column[y - top] };
                    }
                }
            }
            "left" => {
                for y in lines(|i, w| i / w) {
                    let row: Vec<u32> = (0..w)
                        .map(|x| after.cells[y * w + x])
                        .filter(|&c| c != 0)
                        .collect();
                    for x in 0..w {
                        after.cells[y * w + x] = row.get(x).copied().unwrap_or(0);
                    }
                }
            }
            _ => {}
        }
        after
    }

    /// Whether the board can be cleared, trying every order of removals.
    fn clearable(&self, cells: &Cells, dead: &mut HashMap<Cells, bool>) -> bool {
        if cells.cells.iter().all(|&c| c == 0) {
            return true;
        }
        if let Some(&known) = dead.get(cells) {
            return known;
        }
        let answer = self
            .moves(cells)
            .into_iter()
            .any(|(a, b, _)| self.clearable(&self.remove(cells, a, b), dead));
        dead.insert(cells.clone(), answer);
        answer
    }

    /// Plays `moves` by the reference's own rules; the board at the end, or
    /// the index of the first move it refuses.
    fn replay(&self, moves: &[(usize, usize)]) -> Result<Cells, usize> {
        let mut cells = self.board.clone();
        for (i, &(a, b)) in moves.iter().enumerate() {
            let (ka, kb) = (cells.cells[a], cells.cells[b]);
            if a == b || ka == 0 || kb == 0 || !self.matches(ka, kb) {
                return Err(i);
            }
            if self.segments(&cells, a, b).is_none() {
                return Err(i);
            }
            cells = self.remove(&cells, a, b);
        }
        Ok(cells)
    }

    fn index(&self, point: &Value) -> usize {
        let x = point[0].as_u64().expect("x") as usize;
        let y = point[1].as_u64().expect("y") as usize;
        y * self.board.width + x
    }

    fn point(&self, i: usize) -> Value {
        json!([i % self.board.width, i / self.board.width])
    }

    /// The board of an answer, read back into cells.
    fn read(&self, rows: &Value) -> Cells {
        let rows = rows.as_array().expect("rows");
        let cells = rows
            .iter()
            .flat_map(|row| match row {
                Value::String(text) => text
                    .chars()
                    .map(|c| if c == '.' { 0 } else { u32::from(c) - 64 })
                    .collect::<Vec<_>>(),
                row => row
                    .as_array()
                    .expect("a number row")
                    .iter()
                    .map(|n| n.as_u64().expect("a number") as u32)
                    .collect(),
            })
            .collect::<Vec<_>>();
        Cells {
            width: cells.len() / rows.len(),
            height: rows.len(),
            cells,
        }
    }

    fn pairs(&self, moves: &Value) -> Vec<(usize, usize)> {
        moves
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| (self.index(&m["from"]), self.index(&m["to"])))
            .collect()
    }
}

/// Up to three groups of the types 1..=6, each of one to three types.
fn random_groups(rng: &mut SplitMix64) -> Vec<Vec<u32>> {
    let mut kinds: Vec<u32> = (1..=6).collect();
    rng.shuffle(&mut kinds);
    let mut groups = Vec::new();
    let mut rest = &kinds[..];
    for _ in 0..rng.below(4) {
        if rest.is_empty() {
            break;
        }
        let take = (1 + rng.below(3)).min(rest.len());
        groups.push(rest[..take].to_vec());
        rest = &rest[take..];
    }
    groups
}

fn counts(cells: &Cells) -> BTreeMap<u32, usize> {
    let mut counts = BTreeMap::new();
    for &c in cells.cells.iter().filter(|&&c| c != 0) {
        *counts.entry(c).or_default() += 1;
    }
    counts
}

fn value<T: serde::Serialize>(answer: &T) -> Value {
    serde_json::to_value(answer).expect("an answer")
}

#[test]
fn moves_are_every_pair_the_reference_joins_under_the_groups() {
    let (limits, stop) = (Limits::default(), Stop::never());
    let mut mixed = 0;
    for seed in 0..2000 {
        let mut rng = SplitMix64::new(seed);
        let case = Case::random(&mut rng, 5, 60, 4);
        let answer = mechanics::moves(&case.body(json!({})), &limits, &stop)
            .unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
        let answer = value(&answer);
        let got: Vec<(usize, usize, u32)> = answer["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| {
                let segments = m["segments"].as_u64().expect("segments") as u32;
                (case.index(&m["from"]), case.index(&m["to"]), segments)
            })
            .collect();
        let want = case.moves(&case.board);
        assert_eq!(got, want, "seed {seed}: {case:?}");
        let cleared = case.board.cells.iter().all(|&c| c == 0);
        assert_eq!(answer["cleared"], cleared, "seed {seed}");
        assert_eq!(answer["stuck"], want.is_empty() && !cleared, "seed {seed}");
        let cells = &case.board.cells;
        mixed += want
            .iter()
            .filter(|&&(a, b, _)| cells[a] != cells[b])
            .count();
    }
    assert!(mixed >= 1000, "only {mixed} moves joined two types");
}

#[test]
fn solve_answers_every_pair_as_the_reference_does() {
    let (limits, stop) = (Limits::default(), Stop::never());
    for seed in 0..1000 {
        let mut rng = SplitMix64::new(seed);
        let case = Case::random(&mut rng, 4, 60, 4);
        let n = case.board.cells.len();
        let pairs: Vec<(usize, usize)> = (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).collect();
        let queries: Vec<Value> = pairs
            .iter()
            .map(|&(a, b)| json!({"from": case.point(a), "to": case.point(b)}))
            .collect();
        let body = case.body(json!({"queries": queries, "include_path": false}));
        let answer = solve_body(&body, &limits, &stop).unwrap_or_else(|e| panic!("{e:?}"));
        let answer: Value = serde_json::from_slice(&answer).expect("json");
        for (&(a, b), result) in pairs
            .iter()
            .zip(answer["results"].as_array().expect("results"))
        {
            let (ka, kb) = (case.board.cells[a], case.board.cells[b]);
            let want = if a == b {
                json!({"connected": false, "reason": "same_cell"})
            } else if ka == 0 || kb == 0 {
                json!({"connected": false, "reason": "not_a_tile"})
            } else if !case.matches(ka, kb) {
                json!({"connected": false, "reason": "type_mismatch"})
            } else {
                match case.segments(&case.board, a, b) {
                    Some(s) => json!({"connected": true, "segments": s}),
                    None => json!({"connected": false, "reason": "no_path"}),
                }
            };
            assert_eq!(result, &want, "seed {seed}, {a} -> {b}: {case:?}");
        }
    }
}

#[test]
fn clear_agrees_with_every_order_tried_and_its_sequence_replays() {
    let (limits, stop) = (Limits::default(), Stop::never());
    let (mut solvable, mut unsolvable) = (0, 0);
    for seed in 0..1500 {
        let mut rng = SplitMix64::new(seed);
        let case = Case::random(&mut rng, 4, 45, 3);
        if case.board.cells.iter().filter(|&&c| c != 0).count() > 8 {
            continue;
        }
        let answer = mechanics::clear(
            &case.body(json!({"gravity": case.gravity})),
            &limits,
            &stop,
            Instant::now(),
            Duration::from_secs(60),
        )
        .unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
        let want = case.clearable(&case.board, &mut HashMap::new());
        let answer = value(&answer);
        let context = format!("seed {seed}: {case:?}, {answer}");
        if want {
            solvable += 1;
            assert_eq!(
                answer["outcome"],
                value(&ClearOutcome::Solvable),
                "{context}"
            );
            let end = case.replay(&case.pairs(&answer["moves"])).expect(&context);
            assert!(end.cells.iter().all(|&c| c == 0), "{context}");
        } else {
            unsolvable += 1;
            assert_eq!(
                answer["outcome"],
                value(&ClearOutcome::Unsolvable),
                "{context}"
            );
        }
    }
    assert!(
        solvable >= 300 && unsolvable >= 100,
        "{solvable} solvable, {unsolvable} not"
    );
}

#[test]
fn play_takes_two_members_of_a_group_and_refuses_the_rest() {
    let (limits, stop) = (Limits::default(), Stop::never());
    let (mut mixed, mut refused) = (0, 0);
    for seed in 0..1500 {
        let mut rng = SplitMix64::new(seed);
        let case = Case::random(&mut rng, 5, 60, 4);
        let cells = &case.board.cells;
        let moves = case.moves(&case.board);
        // A pair of two types of one group that the reference removes, then
        // any move it can make next.
        if let Some(&(a, b, _)) = moves.iter().find(|&&(a, b, _)| cells[a] != cells[b]) {
            let after = case.remove(&case.board, a, b);
            let mut list = vec![(a, b)];
            if let Some(&(c, d, _)) = case.moves(&after).first() {
                list.push((c, d));
            }
            let body = case.body(json!({
                "gravity": case.gravity,
                "moves": list.iter().map(|&(a, b)| json!({"from": case.point(a), "to": case.point(b)})).collect::<Vec<_>>(),
            }));
            let answer = value(&mechanics::play(&body, &limits, &stop).expect("played"));
            let end = case.replay(&list).expect("the reference plays them");
            assert_eq!(answer.get("stopped_at"), None, "seed {seed}: {answer}");
            assert_eq!(case.read(&answer["board"]), end, "seed {seed}: {case:?}");
            let cleared = end.cells.iter().all(|&c| c == 0);
            assert_eq!(answer["cleared"], cleared, "seed {seed}");
            assert_eq!(answer["stuck"], !cleared && case.moves(&end).is_empty());
            mixed += 1;
        }
        // Two tiles that match by no group: refused whether or not a path
        // joins them.
        let tiles: Vec<usize> = (0..cells.len()).filter(|&i| cells[i] != 0).collect();
        let odd = tiles
            .iter()
            .flat_map(|&a| tiles.iter().map(move |&b| (a, b)));
        if let Some((a, b)) = odd
            .filter(|&(a, b)| !case.matches(cells[a], cells[b]))
            .nth(rng.below(3))
        {
            let body = case.body(json!({
                "moves": [{"from": case.point(a), "to": case.point(b)}],
            }));
            let answer = value(&mechanics::play(&body, &limits, &stop).expect("played"));
            assert_eq!(
                answer["stopped_at"]["reason"], "type_mismatch",
                "seed {seed}"
            );
            assert_eq!(case.read(&answer["board"]), case.board, "seed {seed}");
            refused += 1;
        }
    }
    assert!(
        mixed >= 300 && refused >= 300,
        "{mixed} mixed, {refused} refused"
    );
}

#[test]
fn deals_give_each_type_its_copies_and_replay_under_the_groups() {
    let (limits, stop) = (Limits::default(), Stop::never());
    let mut mixed = 0;
    for seed in 0..400 {
        let mut rng = SplitMix64::new(seed);
        let mut case = Case::random(&mut rng, 1, 0, 1);
        // Rules under which every set of cells has a removal sequence.
        (case.max_segments, case.outside) = if rng.below(2) == 0 {
            (Some(3), true)
        } else {
            (None, rng.below(2) == 0)
        };
        let (width, height) = (2 + rng.below(5), 2 + rng.below(4));
        let copies = 2 * (1 + rng.below(2));
        let types = (1 + rng.below(5)).min(width * height / copies).max(1);
        let difficulty = ["easy", "medium", "hard"][rng.below(3)];
        let body = json!({
            "width": width, "height": height, "types": types, "copies": copies,
            "rules": case.rules(), "gravity": case.gravity, "seed": seed,
            "encoding": if case.numbers { "numbers" } else { "text" },
            "difficulty": difficulty,
        });
        let answer = mechanics::deal(&serde_json::to_vec(&body).expect("json"), &limits, &stop)
            .unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
        let again = mechanics::deal(&serde_json::to_vec(&body).expect("json"), &limits, &stop)
            .expect("dealt again");
        let answer = value(&answer);
        assert_eq!(answer, value(&again), "seed {seed}: the same deal");
        case.board = case.read(&answer["board"]);
        let want: BTreeMap<u32, usize> = (1..=types as u32).map(|k| (k, copies)).collect();
        assert_eq!(counts(&case.board), want, "seed {seed}: {answer}");
        let pairs = case.pairs(&answer["moves"]);
        let end = case
            .replay(&pairs)
            .unwrap_or_else(|i| panic!("seed {seed}: move {i}"));
        assert!(end.cells.iter().all(|&c| c == 0), "seed {seed}");
        // The first removal is on the dealt board: count the ones that
        // join two types.
        let (a, b) = pairs[0];
        mixed += usize::from(case.board.cells[a] != case.board.cells[b]);
    }
    assert!(
        mixed >= 40,
        "only {mixed} deals open with two types of a group"
    );
}

#[test]
fn shuffles_keep_the_tiles_and_solvable_ones_replay_under_the_groups() {
    let (limits, stop) = (Limits::default(), Stop::never());
    let (mut solvable, mut odd, mut open) = (0, 0, 0);
    for seed in 0..800 {
        let mut rng = SplitMix64::new(seed);
        let mut case = Case::random(&mut rng, 5, 50, 4);
        // Each class's tiles counted by the groups' own lists; on every
        // other board a tile of each odd class is taken off.
        let class_of = |case: &Case, c: u32| {
            case.groups
                .iter()
                .find(|g| g.contains(&c))
                .cloned()
                .unwrap_or_else(|| vec![c])
        };
        let mut by_class: BTreeMap<Vec<u32>, Vec<usize>> = BTreeMap::new();
        for (i, &c) in case
            .board
            .cells
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c != 0)
        {
            by_class.entry(class_of(&case, c)).or_default().push(i);
        }
        for cells in by_class.values_mut() {
            if seed % 2 == 0 && cells.len() % 2 != 0 {
                case.board.cells[cells.pop().expect("a cell")] = 0;
            }
        }
        let body = case.body(json!({"gravity": case.gravity, "seed": seed, "solvable": true}));
        match mechanics::shuffle(&body, &limits, &stop) {
            Ok(answer) => {
                let answer = value(&answer);
                let shuffled = case.read(&answer["board"]);
                assert_eq!(counts(&shuffled), counts(&case.board), "seed {seed}");
                let empties = |c: &Cells| c.cells.iter().map(|&c| c == 0).collect::<Vec<_>>();
                assert_eq!(empties(&shuffled), empties(&case.board), "seed {seed}");
                let replayed = Case {
                    board: shuffled,
                    ..case.clone()
                };
                let end = replayed
                    .replay(&replayed.pairs(&answer["moves"]))
                    .unwrap_or_else(|i| panic!("seed {seed}: move {i}, {answer}"));
                assert!(end.cells.iter().all(|&c| c == 0), "seed {seed}");
                solvable += 1;
            }
            Err(e) if by_class.values().any(|cells| cells.len() % 2 != 0) => {
                assert!(e.message.contains("an odd number"), "seed {seed}: {e:?}");
                odd += 1;
            }
            // Not every set of cells can be cleared in any arrangement.
            Err(e) => assert!(e.message.contains("no arrangement"), "seed {seed}: {e:?}"),
        }
        let plain = case.body(json!({"seed": seed}));
        if let Ok(answer) = mechanics::shuffle(&plain, &limits, &stop) {
            let shuffled = case.read(&value(&answer)["board"]);
            assert_eq!(counts(&shuffled), counts(&case.board), "seed {seed}");
            assert!(!case.moves(&shuffled).is_empty(), "seed {seed}: no move");
            open += 1;
        }
    }
    assert!(
        solvable >= 200 && odd >= 100 && open >= 500,
        "{solvable}, {odd}, {open}"
    );
}

/// One copy of each type deals when groups of an even number of types pair
/// them, as the four flowers and the four seasons of a Mahjong set; a type
/// left without a partner of its group is refused, naming `copies`.
#[test]
fn single_copies_deal_in_groups_of_an_even_number_of_types() {
    let (limits, stop) = (Limits::default(), Stop::never());
    for seed in 0..60 {
        let mut rng = SplitMix64::new(seed);
        let mut case = Case::random(&mut rng, 1, 0, 1);
        case.groups = vec![vec![1, 2, 3, 4], vec![5, 6]];
        (case.max_segments, case.outside) = (Some(3), true);
        let body = json!({
            "width": 3, "height": 2, "types": 6, "copies": 1,
            "rules": case.rules(), "gravity": case.gravity, "seed": seed,
            "encoding": if case.numbers { "numbers" } else { "text" },
        });
        let answer = mechanics::deal(&serde_json::to_vec(&body).expect("json"), &limits, &stop)
            .unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
        let answer = value(&answer);
        case.board = case.read(&answer["board"]);
        let want: BTreeMap<u32, usize> = (1..=6).map(|k| (k, 1)).collect();
        assert_eq!(counts(&case.board), want, "seed {seed}: {answer}");
        let end = case
            .replay(&case.pairs(&answer["moves"]))
            .unwrap_or_else(|i| panic!("seed {seed}: move {i}"));
        assert!(end.cells.iter().all(|&c| c == 0), "seed {seed}");
    }
    let refused = |groups: Value| {
        let body = json!({
            "width": 3, "height": 2, "types": 6, "copies": 1,
            "rules": {"preset": "shisen-sho", "match": {"groups": groups}},
        });
        let e = mechanics::deal(&serde_json::to_vec(&body).expect("json"), &limits, &stop)
            .expect_err("refused");
        (e.message, e.field)
    };
    assert_eq!(
        refused(json!(["ABC", "DEF"])),
        (
            "`copies` is 1 and the group of \"A\" has 3 tiles in all, an odd number, expected an even `copies` or groups of an even number of the dealt types".to_owned(),
            Some("copies".to_owned())
        )
    );
    assert_eq!(
        refused(json!(["ABCD"])),
        (
            "`copies` is 1 and type \"E\" is in no group, expected an even `copies` or every dealt type in a group".to_owned(),
            Some("copies".to_owned())
        )
    );
}
