//! Random boards from fixed seeds, so every failure names the seed that
//! reproduces it.

use linkpath_engine::SplitMix64;
use linkpath_engine::{Board, EMPTY};

/// The engine's own generator, its numbers reduced to a range by `%`
/// rather than the engine's multiply-shift: the fixed seeds of these tests
/// name their boards through this reduction.
pub struct Rng(SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(SplitMix64::new(seed))
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.0.next_u64() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A `w × h` board, `density` percent tiles of `1..=types` types.
pub fn random_board(rng: &mut Rng, w: usize, h: usize, density: usize, types: usize) -> Board {
    let cells = (0..w * h)
        .map(|_| {
            if rng.chance(density) {
                1 + rng.below(types) as u32
            } else {
                EMPTY
            }
        })
        .collect();
    Board::new(w, h, cells).expect("a valid board")
}
