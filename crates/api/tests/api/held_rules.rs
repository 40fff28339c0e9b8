//! A held game's rules: read once when it is created, kept and written
//! back in the form they were sent in (a preset's name, or an object's
//! fields in their order, `null` where sent), through the store's record
//! and into the leaderboard's name, which does not depend on the order.

use linkpath_api::Limits;
use linkpath_api::games::{Game, create, stored};
use linkpath_engine::Stop;
use sha2::{Digest, Sha256};

/// A game created from `body`, as written.
fn created(body: &str) -> Game {
    create(
        body.as_bytes(),
        "g1".into(),
        None,
        0,
        &Limits::default(),
        &Stop::never(),
    )
    .unwrap_or_else(|e| panic!("{body}: {e:?}"))
    .0
}

/// The rules of `game` as its answers and its record write them.
fn written(game: &Game) -> String {
    serde_json::to_string(&game.settings.rules).unwrap()
}

/// Rules as a client may send them, and as they are written back: the
/// same JSON, compact.
const SENT: [(&str, &str, &str); 8] = [
    ("text", r#""shisen-sho""#, r#""shisen-sho""#),
    (
        "text",
        r#"{"preset": "lianliankan"}"#,
        r#"{"preset":"lianliankan"}"#,
    ),
    (
        "text",
        r#"{"max_segments": null, "preset": "shisen-sho"}"#,
        r#"{"max_segments":null,"preset":"shisen-sho"}"#,
    ),
    (
        "text",
        r#"{"outside": null, "movement": "line", "match": "any", "preset": null, "max_segments": 3}"#,
        r#"{"outside":null,"movement":"line","match":"any","preset":null,"max_segments":3}"#,
    ),
    (
        "text",
        r#"{"match": null, "outside": false}"#,
        r#"{"match":null,"outside":false}"#,
    ),
    (
        "text",
        r#"{"match": {"groups": ["\u0041\u00e9", "b\"c"]}, "preset": "shisen-sho"}"#,
        r#"{"match":{"groups":["Aé","b\"c"]},"preset":"shisen-sho"}"#,
    ),
    (
        "numbers",
        r#"{"preset": "mahjong", "match": {"groups": [[1, 2], [3], [4294967295]]}}"#,
        r#"{"preset":"mahjong","match":{"groups":[[1,2],[3],[4294967295]]}}"#,
    ),
    ("numbers", r#"{}"#, r#"{}"#),
];

#[test]
fn rules_are_written_back_as_they_were_sent() {
    for (encoding, sent, expected) in SENT {
        let body = format!(
            r#"{{"width": 4, "height": 2, "types": 2, "encoding": "{encoding}", "rules": {sent}}}"#
        );
        let game = created(&body);
        assert_eq!(written(&game), expected, "{sent}");

        // The record holds them so, and reads back to the same game.
        let loaded = stored::decode(&stored::encode(&game)).unwrap().game;
        assert_eq!(loaded, game, "{sent}");
        assert_eq!(written(&loaded), expected, "{sent}");
        let record = String::from_utf8(stored::encode(&game)).unwrap();
        assert!(
            record.contains(&format!(r#""rules":{expected},"#)),
            "{record}"
        );
    }
}

#[test]
fn rules_sent_as_null_or_not_at_all_are_left_out() {
    for body in [
        r#"{"width": 4, "height": 2, "types": 2}"#,
        r#"{"width": 4, "height": 2, "types": 2, "rules": null}"#,
    ] {
        let game = created(body);
        assert_eq!(game.settings.rules, None, "{body}");
        let record = String::from_utf8(stored::encode(&game)).unwrap();
        assert!(!record.contains("rules"), "{record}");
    }
}

/// The board's name as docs/games.md gives it, for a 4 x 2 deal of two
/// types with `rules` written as given (every object's keys in order).
fn board_named_by(rules: &str) -> String {
    let deal = format!(
        r#"{{"width":4,"height":2,"layout":null,"types":2,"copies":4,"difficulty":"easy","seed":0,"rules":{rules},"gravity":"none","settle":false}}"#
    );
    let digest = Sha256::digest(deal.as_bytes());
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_leaderboard_is_named_by_the_rules_whatever_the_order_of_their_fields() {
    let sorted = r#"{"match":{"groups":["ab"]},"max_segments":null,"preset":"shisen-sho"}"#;
    let expected = board_named_by(sorted);
    for rules in [
        r#"{"preset": "shisen-sho", "max_segments": null, "match": {"groups": ["ab"]}}"#,
        r#"{"max_segments": null, "match": {"groups": ["ab"]}, "preset": "shisen-sho"}"#,
        sorted,
    ] {
        let game = created(&format!(
            r#"{{"width": 4, "height": 2, "types": 2, "rules": {rules}}}"#
        ));
        assert_eq!(
            game.leaderboard.as_deref(),
            Some(expected.as_str()),
            "{rules}"
        );
    }
    let by_name = created(r#"{"width": 4, "height": 2, "types": 2, "rules": "lianliankan"}"#);
    assert_eq!(
        by_name.leaderboard,
        Some(board_named_by(r#""lianliankan""#))
    );
    let without = created(r#"{"width": 4, "height": 2, "types": 2}"#);
    assert_eq!(without.leaderboard, Some(board_named_by(r#""mahjong""#)));
}
