//! What the format tests share: the judge samples and malformed inputs in
//! the workspace's `tests/data`, and the byte mutator of the fuzz tests.

pub mod mutate;

/// The Mahjong sample of docs/rules.md.
pub const MAHJONG_SAMPLE: &str =
    "5 4\nXXXXX\nX   X\nXXX X\n XXX \n2 3 5 3\n1 3 4 4\n2 3 3 4\n0 0 0 0\n";

/// Each malformed input, its format and the line the error must name.
pub const MALFORMED: &[(&str, &str, usize)] = include!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/malformed.rs"
));

/// A file of `tests/data`.
pub fn data(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
