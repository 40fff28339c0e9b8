//! Malformed judge inputs, each with its format and the line the error
//! must name: the format tests check the library's error on each, the
//! command-line tests the binary's message and exit code.

/// Each malformed input: (format, input, the line the error must name).
pub const MALFORMED: &[(&str, &str, usize)] = &[
    // A row longer than the width.
    ("mahjong", "3 2\nXXXX\nXX\n1 1 2 1\n0 0 0 0\n", 2),
    (
        "poj1101",
        "3 2\nXXX\nXX\n1 1 2 1\n0 0 0 0\n2 2\nXX\nXXX\n0 0 0 0\n0 0\n",
        8,
    ),
    // A token that is not a number.
    ("mahjong", "2 1\nXX\n1 a 2 1\n0 0 0 0\n", 3),
    ("mahjong", "2 1\nXX\n1 1 2 1x\n0 0 0 0\n", 3),
    ("mahjong", "five 4\n", 1),
    ("hdu1175", "2 2\n1 x\n1 1\n1\n1 1 2 2\n0 0\n", 2),
    ("poj3009", "3 1\n2 0 3\n2 1\n2 three\n0 0\n", 4),
    // A square code out of range.
    ("poj3009", "3 1\n2 4 3\n0 0\n", 2),
    // A board without a goal, or with two starts.
    ("poj3009", "3 1\n2 0 0\n0 0\n", 1),
    ("poj3009", "1 1\n0 0\n", 1),
    ("poj3009", "3 1\n2 2 3\n0 0\n", 2),
    // A pair off the board (coordinates are 1-based).
    ("mahjong", "2 1\nXX\n1 1 3 1\n0 0 0 0\n", 3),
    ("mahjong", "2 1\nXX\n0 1 2 1\n0 0 0 0\n", 3),
    ("poj1101", "2 1\nXX\n1 1 2 2\n0 0 0 0\n0 0\n", 3),
    ("hdu1175", "1 2\n1 1\n1\n1 1 1 3\n0 0\n", 4),
    ("hdu1175", "1 2\n1 1\n1\n1 1 2 1\n0 0\n", 4),
    // A board with no rows or no columns.
    ("mahjong", "0 3\n", 1),
    ("hdu1175", "2 0\n", 1),
    // Truncated input.
    ("mahjong", "5 4\nXXXXX\nX   X\n", 4),
    ("mahjong", "3 2\nXXX\n", 3),
    ("mahjong", "3 2\nXXX", 2),
    ("mahjong", "2 1\nXX\n1 1 2", 3),
    ("poj1101", "2 1\nXX\n1 1 2 1\n0 0 0 0\n2 1\n", 6),
    ("hdu1175", "2 2\n1 0\n", 3),
    ("hdu1175", "2 2\n1 0\n0 1\n2\n1 1 2 2\n", 6),
    ("poj3009", "3 2\n2 0 3\n", 3),
    // A control character in a row: no tile anyone can see.
    (
        "mahjong",
        "5 4\nXXXXX\nX\t  X\nXXX X\n XXX \n2 3 5 3\n0 0 0 0\n",
        3,
    ),
    ("poj1101", "2 2\nXX\nX\u{7f}\n1 1 2 1\n0 0 0 0\n0 0\n", 3),
    (
        "poj1101",
        "2 1\nXX\n0 0 0 0\n2 1\n\u{85}X\n0 0 0 0\n0 0\n",
        5,
    ),
    // Negative sizes, and text after the single Mahjong board.
    ("poj3009", "-3 1\n2 0 3\n0 0\n", 1),
    ("mahjong", "2 1\nXX\n1 1 2 1\n0 0 0 0\n5\n", 5),
];
