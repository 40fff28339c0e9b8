//! A small seeded generator (SplitMix64): the same seed gives the same
//! numbers on every platform, which is what makes deals and shuffles
//! reproducible from a request alone. It sits at the engine's root, not in
//! `game`, because the matching groups shuffle with it too, and the tests
//! of every crate draw their random boards from it.

/// SplitMix64 from a seed: [`SplitMix64::new`], then draw.
#[derive(Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`), by multiply-shift.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Up to `count` of `items` drawn at random, without repeats: the
    /// first steps of a Fisher-Yates shuffle, the drawn ones moved to the
    /// front. All of them, in their order, when there are no more.
    pub fn sample<'a, T>(&mut self, items: &'a mut [T], count: usize) -> &'a [T] {
        if items.len() <= count {
            return items;
        }
        for i in 0..count {
            let j = i + self.below(items.len() - i);
            items.swap(i, j);
        }
        &items[..count]
    }

    /// `cells` cells, each a tile (1) with `percent` in 100 odds, else
    /// empty: boards of every shape of occupancy, for tests.
    #[cfg(test)]
    pub fn occupancy(&mut self, cells: usize, percent: usize) -> Vec<u32> {
        (0..cells)
            .map(|_| u32::from(self.below(100) < percent))
            .collect()
    }

    /// Fisher-Yates.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_draws_distinct_items_or_keeps_them_all() {
        let mut rng = SplitMix64::new(7);
        let mut items: Vec<u32> = (0..10).collect();
        assert_eq!(rng.sample(&mut items, 10), (0..10).collect::<Vec<_>>());
        assert_eq!(rng.sample(&mut items, 12).len(), 10);
        let mut seen = [0; 10];
        for _ in 0..1000 {
            let mut drawn = rng.sample(&mut items, 3).to_vec();
            drawn.sort_unstable();
            drawn.dedup();
            assert_eq!(drawn.len(), 3);
            for d in drawn {
                seen[d as usize] += 1;
            }
        }
        // Each item is drawn about 300 times in 1000 draws of 3 of 10.
        assert!(seen.iter().all(|&n| (200..400).contains(&n)), "{seen:?}");
        let mut sorted = items.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..10).collect::<Vec<_>>(), "the same items, moved");
    }
}
