//! The JSON mutator: valid bodies mangled byte by byte, with pieces of
//! JSON dropped in, so that the decoders meet what a fuzzer would send.

use proptest::prelude::*;

/// Pieces of JSON that a mutation may drop in.
pub const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    "null",
    "true",
    "-1",
    "0",
    "1e999",
    "18446744073709551616",
    "-9223372036854775809",
    "0.5",
    "\"\\ud800\"",
    "\"\\u0000\"",
    "\"board\"",
    "\"rules\"",
    "\"queries\"",
    "\"from\"",
    "\"to\"",
    "\"max_segments\"",
    "\"slide\"",
    "\"curling\"",
    "[[1,[2]]]",
    "{\"a\":1}",
    "\u{1F600}",
    "\u{0}",
    "\u{FEFF}",
];

/// One change to the bytes of a body; positions wrap around its length.
#[derive(Clone, Debug)]
pub enum Mutation {
    Flip(usize, u8),
    Delete(usize, usize),
    Insert(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

/// Any [`Mutation`].
pub fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), 1usize..8).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(i, t)| Mutation::Insert(i, t)),
        (any::<usize>(), 1usize..40).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

/// `body` with `mutations` applied in order.
pub fn mutate(mut body: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        let at = |i: usize| {
            if body.is_empty() {
                0
            } else {
                i % (body.len() + 1)
            }
        };
        match *m {
            Mutation::Flip(i, b) if !body.is_empty() => {
                let i = i % body.len();
                body[i] = b;
            }
            Mutation::Flip(..) => {}
            Mutation::Delete(i, n) => {
                let i = at(i);
                let end = (i + n).min(body.len());
                body.drain(i..end);
            }
            Mutation::Insert(i, t) => {
                let i = at(i);
                body.splice(i..i, TOKENS[t].bytes());
            }
            Mutation::Duplicate(i, n) => {
                let i = at(i);
                let end = (i + n).min(body.len());
                let piece = body[i..end].to_vec();
                body.splice(end..end, piece);
            }
            Mutation::Truncate(i) => {
                let i = at(i);
                body.truncate(i);
            }
        }
    }
    body
}
