//! Mangled copies of valid inputs for the parsers' fuzz tests: the
//! mutated bytes stay close to what a parser expects, so they get past its
//! first checks. The format tests fuzz the judge parsers with it, the API
//! tests the JSON decoder, each with tokens of its own.

use proptest::prelude::*;

/// A mutation of a valid input: the mutated byte strings stay close to
/// what the parser expects, so they get past its first checks.
#[derive(Clone, Debug)]
pub enum Mutation {
    /// Overwrites a byte.
    Set(usize, u8),
    /// Drops up to n bytes.
    Delete(usize, usize),
    /// Inserts one of the tokens.
    Insert(usize, usize),
    /// Repeats up to n bytes in place.
    Duplicate(usize, usize),
    /// Cuts the input short.
    Truncate(usize),
}

pub fn mutations(tokens: usize) -> impl Strategy<Value = Vec<Mutation>> {
    let one = prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Set(i, b)),
        (any::<usize>(), 1usize..8).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<usize>(), 0..tokens).prop_map(|(i, t)| Mutation::Insert(i, t)),
        (any::<usize>(), 1usize..40).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ];
    prop::collection::vec(one, 1..5)
}

pub fn mutate(mut input: Vec<u8>, mutations: &[Mutation], tokens: &[&str]) -> Vec<u8> {
    for mutation in mutations {
        let at = |i: usize| i % (input.len() + 1);
        match *mutation {
            Mutation::Set(i, b) => {
                if !input.is_empty() {
                    let i = i % input.len();
                    input[i] = b;
                }
            }
            Mutation::Delete(i, n) => {
                let i = at(i);
                input.drain(i..(i + n).min(input.len()));
            }
            Mutation::Insert(i, t) => {
                let i = at(i);
                input.splice(i..i, tokens[t].bytes());
            }
            Mutation::Duplicate(i, n) => {
                let i = at(i);
                let end = (i + n).min(input.len());
                let piece = input[i..end].to_vec();
                input.splice(end..end, piece);
            }
            Mutation::Truncate(i) => input.truncate(at(i)),
        }
    }
    input
}
