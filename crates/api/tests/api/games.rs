//! Held games without a server: each action on a small board with its
//! exact board, version, clock, score and assists after it; refusals that
//! change nothing; and a game's replay checked again to the same end.

use linkpath_api::Limits;
use linkpath_api::games::Point;
use linkpath_api::games::{
    Action, ActionKind, Game, GameLimits, GameView, Logged, Replay, ReplayCheck, Status,
    check_replay, create, stored,
};
use linkpath_api::{ApiError, ErrorCode};
use linkpath_engine::Stop;
use serde_json::json;

const LIMITS: GameLimits = GameLimits {
    max_actions: 100,
    max_log_bytes: 1 << 20,
};

/// A game with its whole log, as the store keeps the two.
#[derive(Clone, Debug, PartialEq)]
struct Held {
    game: Game,
    log: Vec<Logged>,
}

impl std::ops::Deref for Held {
    type Target = Game;
    fn deref(&self) -> &Game {
        &self.game
    }
}

impl std::ops::DerefMut for Held {
    fn deref_mut(&mut self) -> &mut Game {
        &mut self.game
    }
}

impl Held {
    /// [`Game::expire`], its entry logged; whether the time ran out.
    fn expire(&mut self, now_ms: u64) -> bool {
        let logged = self.game.expire(now_ms);
        self.log.extend(logged.clone());
        logged.is_some()
    }

    fn replay(&self) -> Replay {
        Replay::of(&self.game, &self.log).expect("a log from the deal")
    }
}

fn new_game(body: serde_json::Value, now_ms: u64) -> Held {
    let (game, created) = create(
        body.to_string().as_bytes(),
        "g1".into(),
        None,
        now_ms,
        &Limits::default(),
        &Stop::never(),
    )
    .expect("a game");
    Held {
        game,
        log: vec![created],
    }
}

fn try_act(held: &mut Held, action: Action, now_ms: u64) -> Result<(), ApiError> {
    let logged = held.game.act(
        &action,
        now_ms,
        held.log.as_slice(),
        &LIMITS,
        &Limits::default(),
        &Stop::never(),
    )?;
    held.log.push(logged);
    Ok(())
}

fn act(held: &mut Held, action: Action, now_ms: u64) -> Result<(), ErrorCode> {
    try_act(held, action, now_ms).map_err(|e| e.code)
}

fn step(from: (i64, i64), to: (i64, i64)) -> Action {
    Action::Move {
        from: Point(from.0, from.1),
        to: Point(to.0, to.1),
    }
}

fn rows(game: &Held) -> serde_json::Value {
    let view = GameView::new(game, game.updated_at_ms, 0);
    serde_json::to_value(view).expect("a view")["board"].clone()
}

#[test]
fn a_game_is_won_move_by_move_on_the_servers_clock() {
    let mut game = new_game(
        json!({"board": ["A.A", "B.B"], "rules": "lianliankan"}),
        1_000,
    );
    assert_eq!(game.version, 0);
    assert_eq!(game.status, Status::Playing);
    assert_eq!((game.tiles_left, game.moves_open), (4, 2));
    act(&mut game, step((0, 0), (2, 0)), 3_000).unwrap();
    assert_eq!(rows(&game), json!(["...", "B.B"]));
    assert_eq!((game.version, game.tiles_left, game.moves_open), (1, 2, 1));
    // 2 tiles in 2 s.
    assert_eq!(game.score, 110);
    let last = game.last.clone().unwrap();
    assert_eq!(last.action, ActionKind::Move);
    assert_eq!(last.path, Some(vec![Point(0, 0), Point(2, 0)]));
    act(&mut game, Action::Pause, 4_000).unwrap();
    assert_eq!(game.status, Status::Paused);
    let paused = GameView::new(&game, 9_000, 0);
    assert_eq!(paused.elapsed_ms, 3_000);
    assert!(paused.board.is_none());
    act(&mut game, Action::Resume, 10_000).unwrap();
    act(&mut game, step((2, 1), (0, 1)), 11_000).unwrap();
    assert_eq!(game.status, Status::Won);
    assert_eq!(game.version, 4);
    assert_eq!(game.clock.at(99_000), 4_000);
    // 4 tiles in 4 s of play.
    assert_eq!(game.score, 155);
    assert!(game.ranked());
    assert_eq!(
        act(&mut game, step((0, 0), (2, 0)), 12_000),
        Err(ErrorCode::GameOver)
    );
}

#[test]
fn illegal_moves_are_refused_with_their_reason_and_change_nothing() {
    let game = new_game(json!({"board": ["A.A", "B.B"], "rules": "lianliankan"}), 0);
    for (from, to, reason) in [
        ((0, 0), (0, 1), "type_mismatch"),
        ((1, 0), (0, 0), "not_a_tile"),
        ((0, 0), (0, 0), "same_cell"),
        ((0, 0), (5, 5), "off_board"),
    ] {
        let mut tried = game.clone();
        let e = try_act(&mut tried, step(from, to), 10).unwrap_err();
        assert_eq!((e.code, e.reason), (ErrorCode::IllegalMove, Some(reason)));
        assert_eq!(tried, game);
    }
}

#[test]
fn undo_and_redo_restore_the_exact_boards_with_gravity() {
    let mut game = new_game(
        json!({"board": ["AB", "CA", "CB"], "rules": "mahjong", "gravity": "down"}),
        0,
    );
    let dealt = rows(&game);
    act(&mut game, step((0, 1), (0, 2)), 1_000).unwrap();
    let after = rows(&game);
    assert_eq!(after, json!([".B", ".A", "AB"]));
    let last = game.last.clone().unwrap();
    assert_eq!(last.moved.len(), 1);
    act(&mut game, Action::Undo, 2_000).unwrap();
    assert_eq!(rows(&game), dealt);
    assert_eq!((game.assists.undos, game.ranked()), (1, false));
    act(&mut game, Action::Redo, 3_000).unwrap();
    assert_eq!(rows(&game), after);
    assert_eq!(game.version, 3);
    assert_eq!(
        act(&mut game, Action::Redo, 4_000),
        Err(ErrorCode::ActionRefused)
    );
    assert_eq!(game.version, 3);
}

#[test]
fn a_hint_and_a_shuffle_are_assists() {
    let mut game = new_game(
        json!({"width": 6, "height": 4, "types": 6, "rules": "shisen-sho", "seed": 3}),
        0,
    );
    act(&mut game, Action::Hint, 100).unwrap();
    let hint = game.last.clone().unwrap().hint.expect("a hint");
    assert!(hint.segments.is_some());
    act(
        &mut game,
        Action::Shuffle {
            seed: None,
            moved: None,
        },
        200,
    )
    .unwrap();
    assert_eq!(game.tiles_left, 24);
    assert_eq!(
        (game.assists.hints, game.assists.shuffles, game.ranked()),
        (1, 1, false)
    );
}

#[test]
fn time_runs_out_at_the_moment_it_passes() {
    let mut game = new_game(
        json!({"board": ["A.A", "B.B"], "rules": "lianliankan", "time_limit_ms": 5_000}),
        1_000,
    );
    assert!(!game.expire(5_999));
    assert!(game.expire(9_000));
    assert_eq!(game.status, Status::OutOfTime);
    assert_eq!((game.updated_at_ms, game.clock.at(20_000)), (6_000, 5_000));
    assert_eq!(game.version, 1);
}

#[test]
fn a_replay_checks_again_to_the_same_game() {
    let mut game = new_game(
        json!({"board": ["AB", "CA", "CB"], "rules": "mahjong", "gravity": "down"}),
        500,
    );
    act(&mut game, step((0, 1), (0, 2)), 1_500).unwrap();
    act(&mut game, Action::Undo, 2_000).unwrap();
    act(
        &mut game,
        Action::Shuffle {
            seed: None,
            moved: None,
        },
        2_500,
    )
    .unwrap();
    act(&mut game, Action::Pause, 3_000).unwrap();
    act(&mut game, Action::Resume, 4_000).unwrap();
    let replay = serde_json::to_vec(&game.replay()).unwrap();
    let check = check_replay(&replay, &LIMITS, &Limits::default(), &Stop::never()).unwrap();
    assert_eq!(check.status, game.status);
    assert_eq!(check.version, game.version);
    assert_eq!(check.score, game.score);
    assert_eq!(check.elapsed_ms, game.clock.at(4_000));
    assert_eq!(check.assists, game.assists);
    assert_eq!(json!(check.board), rows(&game));
}

/// `replay` checked again under the default limits.
fn check(replay: &serde_json::Value) -> Result<ReplayCheck, ApiError> {
    check_replay(
        replay.to_string().as_bytes(),
        &LIMITS,
        &Limits::default(),
        &Stop::never(),
    )
}

#[test]
fn a_replay_with_an_action_the_game_refuses_names_it() {
    let game = new_game(json!({"board": ["A.A", "B.B"], "rules": "lianliankan"}), 0);
    let mut replay = serde_json::to_value(game.replay()).unwrap();
    replay["actions"] = json!([{"action": "move", "after_ms": 10, "from": [0, 0], "to": [0, 1]}]);
    let e = check(&replay).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidRequest);
    assert_eq!(e.field.as_deref(), Some("actions[0]"));
}

#[test]
fn a_replay_whose_layout_is_not_the_boards_shape_is_refused() {
    let game = new_game(json!({"board": ["A.A", "B.B"], "rules": "lianliankan"}), 0);
    for layout in [json!([]), json!(["###"]), json!(["###", "##"])] {
        let mut replay = serde_json::to_value(game.replay()).unwrap();
        replay["settings"]["layout"] = layout.clone();
        let e = check(&replay).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidRequest, "{layout}");
        assert_eq!(e.field.as_deref(), Some("settings.layout"), "{layout}");
        assert_eq!(
            e.message,
            "`settings.layout` is not a 3 x 2 shape, expected the rows of the layout the game was dealt onto, as many and as long as the board's"
        );
    }
    let mut replay = serde_json::to_value(game.replay()).unwrap();
    replay["settings"]["layout"] = json!(["#.#", "#.#"]);
    assert!(check(&replay).is_ok());
}

/// A replay checked past the server's deadline is that deadline, a 504
/// like every other route's, never an action the game refused: an honest
/// replay is not called forged because the server ran out of time.
#[test]
fn a_replay_past_its_deadline_is_deadline_exceeded_not_a_refusal() {
    let mut game = new_game(json!({"board": ["A.A", "B.B"], "rules": "lianliankan"}), 0);
    act(&mut game, step((0, 0), (2, 0)), 1_000).unwrap();
    let replay = serde_json::to_vec(&game.replay()).unwrap();
    let passed = Stop::never().with_deadline(std::time::Instant::now());
    let e = check_replay(&replay, &LIMITS, &Limits::default(), &passed).unwrap_err();
    assert_eq!(
        (
            e.code,
            e.code.status(),
            e.field.as_deref(),
            e.message.as_str()
        ),
        (
            ErrorCode::DeadlineExceeded,
            504,
            None,
            "the play did not finish within the server's deadline; send fewer moves or a smaller board"
        )
    );
}

#[test]
fn resuming_a_stuck_game_finds_it_stuck_again() {
    let mut game = new_game(json!({"board": ["AB", "BA"], "rules": "lianliankan"}), 0);
    assert_eq!((game.status, game.moves_open), (Status::Stuck, 0));
    act(&mut game, Action::Pause, 1_000).unwrap();
    assert_eq!(game.status, Status::Paused);
    act(&mut game, Action::Resume, 2_000).unwrap();
    assert_eq!((game.status, game.moves_open), (Status::Stuck, 0));
    assert_eq!(game.version, 2);
}

#[test]
fn undo_and_redo_give_the_pairs_path() {
    let mut game = new_game(
        json!({"board": ["A.B", "B.A", "C.C"], "rules": "lianliankan"}),
        0,
    );
    act(&mut game, step((0, 0), (2, 1)), 1_000).unwrap();
    let path = Some(vec![Point(0, 0), Point(1, 0), Point(1, 1), Point(2, 1)]);
    assert_eq!(game.last.clone().unwrap().path, path);
    act(&mut game, Action::Undo, 2_000).unwrap();
    let undone = game.last.clone().unwrap();
    assert_eq!(undone.action, ActionKind::Undo);
    assert_eq!(
        (undone.from, undone.to, undone.path),
        (Some(Point(0, 0)), Some(Point(2, 1)), path.clone())
    );
    act(&mut game, Action::Redo, 3_000).unwrap();
    let redone = game.last.clone().unwrap();
    assert_eq!(redone.action, ActionKind::Redo);
    assert_eq!(
        (redone.from, redone.to, redone.path),
        (Some(Point(0, 0)), Some(Point(2, 1)), path)
    );
    // A shuffle moves tiles, no pair: its undo has no path.
    act(
        &mut game,
        Action::Shuffle {
            seed: None,
            moved: None,
        },
        4_000,
    )
    .unwrap();
    act(&mut game, Action::Undo, 5_000).unwrap();
    assert_eq!(game.last.clone().unwrap().path, None);
}

#[test]
fn the_score_is_computed_after_every_change_on_its_play_time() {
    let mut game = new_game(
        json!({"board": ["A.A", "B.B", "C.C", "D.D"], "rules": "lianliankan"}),
        0,
    );
    assert_eq!(game.score, 0);
    // 2 tiles in 2 s.
    act(&mut game, step((0, 0), (2, 0)), 2_000).unwrap();
    assert_eq!(game.score, 110);
    // Each later change scores the same 2 tiles at its own play time.
    act(&mut game, Action::Hint, 4_000).unwrap();
    assert_eq!(game.score, 55);
    act(&mut game, Action::Pause, 8_000).unwrap();
    assert_eq!(game.score, 27);
    // Paused, the clock stood at 8 s.
    act(&mut game, Action::Resume, 60_000).unwrap();
    assert_eq!(game.score, 27);
    act(
        &mut game,
        Action::Shuffle {
            seed: None,
            moved: None,
        },
        10_000 + 52_000,
    )
    .unwrap();
    assert_eq!(game.score, 22);
    act(&mut game, Action::Undo, 11_000 + 52_000).unwrap();
    assert_eq!(game.score, 20);
    act(&mut game, Action::Undo, 12_000 + 52_000).unwrap();
    assert_eq!(game.score, 0);
    act(&mut game, Action::Redo, 16_000 + 52_000).unwrap();
    assert_eq!(game.score, 13);
    act(&mut game, Action::Resign, 20_000 + 52_000).unwrap();
    assert_eq!((game.status, game.score), (Status::Resigned, 11));
}

#[test]
fn running_out_of_time_scores_the_time_limit() {
    let mut game = new_game(
        json!({"board": ["A.A", "B.B"], "rules": "lianliankan", "time_limit_ms": 10_000}),
        0,
    );
    act(&mut game, step((0, 0), (2, 0)), 2_000).unwrap();
    assert_eq!(game.score, 110);
    assert!(game.expire(50_000));
    // 2 tiles in the 10 s allowed.
    assert_eq!((game.status, game.score), (Status::OutOfTime, 22));
    assert_eq!(game.clock.at(50_000), 10_000);
}

/// A time when no server served, in ms on the server's clock.
fn outage(from: u64, to: u64) -> std::ops::Range<u64> {
    from..to
}

#[test]
fn the_servers_downtime_is_given_back_to_a_running_clock() {
    let mut game = new_game(
        json!({"board": ["A.A", "B.B", "C.C"], "rules": "lianliankan", "time_limit_ms": 10_000}),
        1_000,
    );
    act(&mut game, step((0, 0), (2, 0)), 3_000).unwrap();
    // No server served from 5 s to 65 s; the game is read at 66 s.
    let outages = [outage(5_000, 65_000)];
    game.give_back(&outages, 66_000);
    assert_eq!(game.clock.at(66_000), 5_000);
    assert!(!game.expire(66_000));
    // Given back again, nothing more is skipped.
    let before = game.clone();
    game.give_back(&outages, 66_000);
    assert_eq!(game, before);
    // 4 tiles in 5 s of play.
    act(&mut game, step((0, 1), (2, 1)), 66_000).unwrap();
    assert_eq!(
        (game.version, game.status, game.score),
        (2, Status::Playing, 124)
    );
    // The limit passes 10 s into play: at 71 s on the server's clock.
    assert!(!game.expire(70_999));
    assert!(game.expire(80_000));
    assert_eq!(
        (game.updated_at_ms, game.clock.at(99_000)),
        (71_000, 10_000)
    );
    assert_eq!(game.score, 62);
    // The replay skips the downtime too, and checks again to the game.
    let replay = game.replay();
    let after: Vec<u64> = replay.actions.iter().map(|a| a.after_ms).collect();
    assert_eq!(after, vec![2_000, 5_000, 10_000]);
    let check = check(&serde_json::to_value(&replay).unwrap()).unwrap();
    assert_eq!(
        (check.status, check.score, check.elapsed_ms),
        (Status::OutOfTime, game.score, 10_000)
    );
}

#[test]
fn a_paused_clock_has_no_downtime_to_give_back() {
    let mut game = new_game(json!({"board": ["A.A", "B.B"], "rules": "lianliankan"}), 0);
    act(&mut game, Action::Pause, 2_000).unwrap();
    let paused = game.clone();
    game.give_back(&[outage(3_000, 50_000)], 60_000);
    assert_eq!(game, paused);
    // Resumed after the outage, the clock runs from the resume.
    act(&mut game, Action::Resume, 60_000).unwrap();
    game.give_back(&[outage(3_000, 50_000)], 61_000);
    assert_eq!(game.clock.at(61_000), 3_000);
}

#[test]
fn a_limit_that_passed_before_an_outage_ended_the_game_then() {
    let mut game = new_game(
        json!({"board": ["A.A", "B.B"], "rules": "lianliankan", "time_limit_ms": 5_000}),
        0,
    );
    // Two outages: the limit passes between them, at 6 s.
    game.give_back(&[outage(1_000, 2_000), outage(10_000, 20_000)], 30_000);
    assert!(game.expire(30_000));
    assert_eq!((game.updated_at_ms, game.clock.at(30_000)), (6_000, 5_000));
    assert_eq!(game.clock.given_back_ms, 1_000);
}

// A game written by a server of the first stored format (its history
// inline), then played on by this one: every board as the first server
// made it when it played on (the fixture holds both).
#[test]
fn a_game_of_the_first_stored_format_plays_on_as_it_would_have() {
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/format-1-game.json")).unwrap();
    let bytes = serde_json::to_vec(&fixture["record"]).unwrap();
    let loaded = stored::decode(&bytes).unwrap();
    let mut held = Held {
        game: loaded.game,
        log: loaded.unsaved,
    };
    assert_eq!((held.version, held.log.len()), (10, 11));
    assert_eq!(rows(&held), fixture["board"]);

    act(&mut held, Action::Undo, 12_000).unwrap();
    assert_eq!(rows(&held), fixture["undone"]);
    act(&mut held, Action::Undo, 13_000).unwrap();
    assert_eq!(rows(&held), fixture["undone_twice"]);
    act(&mut held, Action::Redo, 14_000).unwrap();
    act(&mut held, Action::Redo, 15_000).unwrap();
    assert_eq!(rows(&held), fixture["redone"]);
    assert_eq!(json!(held.score), fixture["score_after"]);
    assert_eq!(json!(held.version), fixture["version_after"]);

    // Written again, it is of today's format, its log apart.
    let again = stored::decode(&stored::encode(&held.game)).unwrap();
    assert_eq!(again.game, held.game);
    assert!(again.unsaved.is_empty());
    // Its replay, the first server's shuffle given as its moves, checks
    // again to the same game.
    let check = check_replay(
        &serde_json::to_vec(&held.replay()).unwrap(),
        &LIMITS,
        &Limits::default(),
        &Stop::never(),
    )
    .unwrap();
    assert_eq!(
        (check.version, check.score, check.tiles_left),
        (held.version, held.score, held.tiles_left)
    );
}

#[test]
fn a_record_of_a_newer_format_is_refused_by_name() {
    assert_eq!(
        stored::decode(br#"{"format": 3, "game": {}}"#).unwrap_err(),
        "a record of format 3, newer than this server's 2: run the newer server"
    );
}

// A shuffle is kept as its seed and the board before it; the replay
// gives the seed, and checked again makes the same shuffle.
#[test]
fn a_shuffle_is_kept_and_replayed_by_its_seed() {
    let mut game = new_game(
        json!({"width": 6, "height": 4, "types": 6, "rules": "shisen-sho", "seed": 3}),
        0,
    );
    let dealt = rows(&game);
    let shuffle = Action::Shuffle {
        seed: None,
        moved: None,
    };
    act(&mut game, shuffle, 1_000).unwrap();
    let shuffled = rows(&game);
    let entry = game.log.last().unwrap().clone();
    let seed = entry.seed.expect("a seed");
    assert_eq!(entry.moved, None);
    let replay = serde_json::to_value(game.replay()).unwrap();
    assert_eq!(
        replay["actions"],
        json!([{"action": "shuffle", "after_ms": 1_000, "seed": seed.to_string()}])
    );
    act(&mut game, Action::Undo, 2_000).unwrap();
    assert_eq!(rows(&game), dealt);
    act(&mut game, Action::Redo, 3_000).unwrap();
    assert_eq!(rows(&game), shuffled);
    let check = check(&serde_json::to_value(game.replay()).unwrap()).unwrap();
    assert_eq!(serde_json::to_value(&check.board).unwrap(), shuffled);

    let mut bad = replay.clone();
    bad["actions"][0]["seed"] = json!("x1");
    let e = check_replay(
        &serde_json::to_vec(&bad).unwrap(),
        &LIMITS,
        &Limits::default(),
        &Stop::never(),
    )
    .unwrap_err();
    assert_eq!(e.field.as_deref(), Some("actions[0].seed"));
    assert_eq!(
        e.message,
        "`seed` is \"x1\", expected the decimal digits of a 64-bit number"
    );
    // Whatever the action: a seed out of its form is refused.
    let mut hint = replay.clone();
    hint["actions"] = json!([{"action": "hint", "after_ms": 0, "seed": ""}]);
    let e = check_replay(
        &serde_json::to_vec(&hint).unwrap(),
        &LIMITS,
        &Limits::default(),
        &Stop::never(),
    )
    .unwrap_err();
    assert_eq!(
        (e.field.as_deref(), e.message.as_str()),
        (
            Some("actions[0].seed"),
            "`seed` is \"\", expected the decimal digits of a 64-bit number"
        )
    );
}

// Past the bound on a game's log, every action is refused with the
// game as it was; the end of the game is still logged.
#[test]
fn an_action_past_the_logs_bound_is_refused() {
    let mut game = new_game(json!({"board": ["A.A", "B.B"], "rules": "lianliankan"}), 0);
    let created = game.log_bytes;
    let limits = GameLimits {
        max_actions: 100,
        max_log_bytes: created + 29,
    };
    let e = game
        .game
        .clone()
        .act(
            &Action::Hint,
            1_000,
            game.log.as_slice(),
            &limits,
            &Limits::default(),
            &Stop::never(),
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::ActionRefused);
    assert_eq!(
        e.message,
        format!(
            "the game's log holds {created} bytes and this action's entry 30 more, past this server's limit of {} for one game; start a new game",
            created + 29
        )
    );
    act(&mut game, Action::Hint, 1_000).unwrap();
    assert_eq!(game.log_bytes, created + 30);
}

// Each action of a replay the server writes, every number at its widest
// on the largest board a game may have, fits the bound that sizes
// `POST /v1/replays` against the largest game.
#[test]
fn every_replayed_action_fits_its_bound() {
    use linkpath_api::games::{ReplayAction, replay};
    let far = Some(Point(99_999, 99_999));
    for action in ActionKind::all() {
        let widest = ReplayAction {
            action: *action,
            after_ms: u64::MAX,
            from: far.filter(|_| *action == ActionKind::Move),
            to: far.filter(|_| *action == ActionKind::Move),
            seed: (*action == ActionKind::Shuffle).then(|| u64::MAX.to_string()),
            moved: None,
        };
        let bytes = serde_json::to_vec(&widest).unwrap().len() as u64 + 1;
        assert!(bytes <= replay::ACTION_BYTES, "{action:?}: {bytes}");
    }
}

/// A seat's game of a match: another id, the match's rules.
fn in_match(id: &str, assists: bool) -> Held {
    let mut held = new_game(
        json!({"width": 6, "height": 4, "types": 6, "rules": "shisen-sho", "seed": 11}),
        0,
    );
    held.game.id = id.into();
    held.game.match_id = Some("m".repeat(32));
    held.game.assists_refused = !assists;
    held
}

const SHUFFLE: Action = Action::Shuffle {
    seed: None,
    moved: None,
};

#[test]
fn games_of_a_match_shuffle_equal_boards_equally() {
    let (mut ann, mut bob) = (in_match("a", false), in_match("b", true));
    assert_eq!(rows(&ann), rows(&bob));
    act(&mut ann, SHUFFLE, 1_000).unwrap();
    // Bob shuffles later in his game, at another version: the same board.
    act(&mut bob, Action::Hint, 500).unwrap();
    act(&mut bob, Action::Hint, 600).unwrap();
    act(&mut bob, SHUFFLE, 2_000).unwrap();
    assert_eq!(bob.version, 3);
    assert_eq!(rows(&ann), rows(&bob));
    let once = rows(&ann);
    act(&mut ann, SHUFFLE, 3_000).unwrap();
    act(&mut bob, SHUFFLE, 3_000).unwrap();
    assert_eq!(rows(&ann), rows(&bob));
    assert_ne!(rows(&ann), once, "the second shuffle is another");
    // Games of no match shuffle by their own id.
    let mut lone = new_game(
        json!({"width": 6, "height": 4, "types": 6, "rules": "shisen-sho", "seed": 11}),
        0,
    );
    lone.game.id = "a".into();
    let mut other = lone.clone();
    other.game.id = "b".into();
    act(&mut lone, SHUFFLE, 1_000).unwrap();
    act(&mut other, SHUFFLE, 1_000).unwrap();
    assert_ne!(rows(&lone), rows(&other));
}

#[test]
fn a_match_without_assists_refuses_hints_and_undo_and_no_match_game_pauses() {
    let mut game = in_match("a", false);
    for action in [Action::Hint, Action::Undo, Action::Redo] {
        let e = try_act(&mut game, action, 100).unwrap_err();
        assert_eq!(e.code, ErrorCode::ActionRefused);
        assert!(e.message.starts_with("the match allows no assists"), "{e}");
    }
    assert_eq!(game.version, 0);
    // Nor is a race paused: the others race on.
    for action in [Action::Pause, Action::Resume] {
        let e = try_act(&mut game, action, 100).unwrap_err();
        assert_eq!(e.code, ErrorCode::ActionRefused);
        assert!(
            e.message.starts_with("a game of a match is not paused"),
            "{e}"
        );
    }
    assert_eq!(game.version, 0);
    let mut allowed = in_match("a", true);
    act(&mut allowed, Action::Hint, 100).unwrap();
    let hint = allowed.last.clone().unwrap().hint.unwrap();
    let pair = Action::Move {
        from: hint.from,
        to: hint.to,
    };
    act(&mut allowed, pair, 2_500).unwrap();
    assert_eq!(allowed.last_pair_ms, Some(2_500));
    assert_eq!(allowed.combo, 1);
    act(&mut allowed, Action::Undo, 3_000).unwrap();
    // A game of a match is stored and read back with its match.
    let bytes = serde_json::to_vec(&allowed.game).unwrap();
    let back: Game = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(back, allowed.game);
}

/// A pair `held` may remove now, as a hint gives it.
fn next_pair(held: &mut Held, now_ms: u64) -> Action {
    let mut probe = held.clone();
    act(&mut probe, Action::Hint, now_ms).unwrap();
    let hint = probe.last.clone().unwrap().hint.unwrap();
    Action::Move {
        from: hint.from,
        to: hint.to,
    }
}

#[test]
fn pairs_within_three_seconds_make_a_combo_and_a_longer_wait_or_an_undo_ends_it() {
    let mut game = in_match("a", true);
    let mut combos = Vec::new();
    // Pairs at 1 s, 3 s later (in the window), 3.001 s later (out of it)
    // and at once; then an undo, and one more pair.
    for at in [1_000, 4_000, 7_001, 7_001] {
        let pair = next_pair(&mut game, at);
        act(&mut game, pair, at).unwrap();
        combos.push(game.combo);
    }
    assert_eq!(combos, [1, 2, 1, 2]);
    act(&mut game, Action::Undo, 7_500).unwrap();
    assert_eq!(game.combo, 0);
    let pair = next_pair(&mut game, 8_000);
    act(&mut game, pair, 8_000).unwrap();
    assert_eq!(game.combo, 1);
}

#[test]
fn a_race_that_ends_stops_the_game_and_nothing_applies_after() {
    let mut game = in_match("a", false);
    let pair = next_pair(&mut in_match("a", true), 500);
    act(&mut game, pair, 500).unwrap();
    act(&mut game, Action::EndRace, 2_000).unwrap();
    assert_eq!(game.status, Status::RaceOver);
    assert_eq!(game.clock.at(9_000), 2_000);
    assert_eq!(game.last.as_ref().unwrap().action, ActionKind::RaceOver);
    assert_eq!(
        act(&mut game, Action::EndRace, 2_500),
        Err(ErrorCode::GameOver)
    );
    assert_eq!(
        act(&mut game, Action::Resign, 2_500),
        Err(ErrorCode::GameOver)
    );
}

#[test]
fn an_action_timed_before_the_change_ahead_of_it_counts_as_made_with_it() {
    let mut game = in_match("a", true);
    let pair = next_pair(&mut game, 5_000);
    act(&mut game, pair, 5_000).unwrap();
    // Read at 4 s, applied after the move made at 5 s: made at 5 s.
    act(&mut game, Action::EndRace, 4_000).unwrap();
    assert_eq!(game.updated_at_ms, 5_000);
    let times: Vec<u64> = game.log.iter().map(|l| l.at_ms).collect();
    assert_eq!(times, [0, 5_000, 5_000]);
}
