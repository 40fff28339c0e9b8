//! `floor FORMAT` (`mahjong`, `hdu1175` or `poj3009`): the floor of a judge
//! run. Reads all of stdin and parses it into the structures a solver needs
//! (a flat cell array per board, the list of queries), with the same fast
//! byte-level reader the contestant uses, and does nothing else. It prints
//! one checksum line so that the parsing cannot be optimised away.
//!
//! No solver can answer a judge input faster than it can read it, so the
//! time of this process is what "as fast as reading the input" means.

use linkpath_baselines::{Scanner, read_hdu1175, read_mahjong, read_poj3009, read_stdin};

fn main() {
    let format = std::env::args().nth(1).unwrap_or_default();
    let input = read_stdin();
    let mut sc = Scanner::new(&input);
    let mut sum: u64 = 0;
    let mut mix = |value: u64| sum = sum.wrapping_mul(31).wrapping_add(value);
    match format.as_str() {
        "mahjong" => {
            if let Some(board) = read_mahjong(&mut sc) {
                mix(board.tiles.iter().map(|&t| u64::from(t)).sum());
                board.pairs.iter().flatten().for_each(|&v| mix(v as u64));
            }
        }
        "hdu1175" => {
            while let Some(case) = read_hdu1175(&mut sc) {
                mix(case.cells.iter().map(|&c| u64::from(c)).sum());
                case.queries.iter().flatten().for_each(|&v| mix(v as u64));
            }
        }
        "poj3009" => {
            while let Some(board) = read_poj3009(&mut sc) {
                mix(board.blocks.iter().map(|&b| u64::from(b)).sum());
                mix(board.start as u64);
                mix(board.goal as u64);
            }
        }
        _ => {
            eprintln!("usage: floor mahjong|hdu1175|poj3009 < input");
            std::process::exit(2);
        }
    }
    println!("checksum {sum}");
}
