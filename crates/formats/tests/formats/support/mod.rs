//! What the format tests share: the judge samples in the workspace's
//! `tests/data`. The malformed inputs and the byte mutator of the fuzz
//! tests are the test kit's, as other suites use them too.

/// The Mahjong sample of docs/rules.md.
pub const MAHJONG_SAMPLE: &str =
    "5 4\nXXXXX\nX   X\nXXX X\n XXX \n2 3 5 3\n1 3 4 4\n2 3 3 4\n0 0 0 0\n";

/// A file of `tests/data`.
pub fn data(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
