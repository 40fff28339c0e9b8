//! The judges' parser, which reads untrusted bytes, fed arbitrary bytes,
//! token soup and mangled samples: `judge::run` may not panic, and what it
//! refuses names a line the input has.

use linkpath_formats::judge::{self, Format};
use linkpath_testkit::mutate::{mutate, mutations};
use proptest::prelude::*;

/// Each format's sample input (tests/data) and its expected output.
fn samples() -> [(Format, &'static [u8], &'static str); 4] {
    [
        (
            Format::Mahjong,
            include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../tests/data/mahjong.in"
            )),
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../tests/data/mahjong.out"
            )),
        ),
        (
            Format::Poj1101,
            include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../tests/data/poj1101.in"
            )),
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../tests/data/poj1101.out"
            )),
        ),
        (
            Format::Hdu1175,
            include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../tests/data/hdu1175.in"
            )),
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../tests/data/hdu1175.out"
            )),
        ),
        (
            Format::Poj3009,
            include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../tests/data/poj3009.in"
            )),
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../tests/data/poj3009.out"
            )),
        ),
    ]
}

/// Pieces of judge input. Numbers stay small: the formats take boards "of
/// any size memory allows", and `536870911 8` over eight empty lines is a
/// 17 GB board that a fuzz run on a shared machine must not build.
const JUDGE_TOKENS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "12",
    "-1",
    "999",
    "2147483647",
    "99999999999999999999",
    " ",
    "\t",
    "\n",
    "\r\n",
    "\n\n",
    "X",
    "XXXXX",
    " XX ",
    "0 0",
    "0 0 0 0",
    "1 1 2 1",
    "中",
    "\u{0}",
    "\u{FEFF}",
    "\u{FFFD}",
];

/// No number above 9999 that a judge would take as a size: see
/// [`JUDGE_TOKENS`]. Ten digits or more without a leading zero are over
/// every size limit and refused as such.
fn small_numbers(input: &[u8]) -> bool {
    input
        .split(|b| !b.is_ascii_digit())
        .all(|run| run.len() <= 4 || (run.len() >= 10 && run[0] != b'0'))
}

/// Runs every format on `input`: no panic, and an error names a line the
/// input has.
fn check_judged(input: &[u8]) -> Result<(), TestCaseError> {
    let lines = input.iter().filter(|&&b| b == b'\n').count() + 1;
    for format in Format::ALL {
        if let Err(e) = judge::run(format, input) {
            prop_assert!(
                (1..=lines).contains(&e.line),
                "{}: line {} of {lines}: {}",
                format.name(),
                e.line,
                e.message
            );
            prop_assert!(!e.message.is_empty());
        }
    }
    Ok(())
}

#[test]
fn the_judge_seeds_answer_their_samples() {
    for (format, input, output) in samples() {
        assert_eq!(
            judge::run(format, input).as_deref(),
            Ok(output),
            "{}",
            format.name()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 5_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic_a_judge(
        input in prop::collection::vec(any::<u8>(), 0..512).prop_filter("small numbers", |i| small_numbers(i)),
    ) {
        check_judged(&input)?;
    }

    #[test]
    fn judge_token_soup_never_panics_a_judge(
        input in prop::collection::vec(prop::sample::select(JUDGE_TOKENS), 0..80)
            .prop_map(|t| t.concat().into_bytes())
            .prop_filter("small numbers", |i| small_numbers(i)),
    ) {
        check_judged(&input)?;
    }

    #[test]
    fn mangled_judge_samples_never_panic_a_judge(
        input in (0..4usize, mutations(JUDGE_TOKENS.len()))
            .prop_map(|(s, m)| mutate(samples()[s].1.to_vec(), &m, JUDGE_TOKENS))
            .prop_filter("small numbers", |i| small_numbers(i)),
    ) {
        check_judged(&input)?;
    }
}
