//! The standings of a race: who placed where once it is over. The first
//! to clear the board wins, and anyone else who cleared it places after
//! them by time; those still on the board when the race ended (the
//! winner's clear, or the time limit) place by tiles cleared, then by how
//! early their last pair went; those who resigned or left place last, in
//! the same order among themselves. Exactly equal races share a place, as
//! a draw.

use std::cmp::Ordering;

/// How one player's race ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// Cleared the board after `elapsed_ms` of play.
    Cleared { elapsed_ms: u64 },
    /// On the board when the race ended, `tiles` cleared, the last pair
    /// after `at_ms` of play (0 with none).
    Stopped { tiles: u64, at_ms: u64 },
    /// Resigned or left, `tiles` cleared by then, the last pair after
    /// `at_ms` of play.
    Quit { tiles: u64, at_ms: u64 },
}

impl Finish {
    /// Which group it places in, the better first.
    fn group(self) -> u8 {
        match self {
            Finish::Cleared { .. } => 0,
            Finish::Stopped { .. } => 1,
            Finish::Quit { .. } => 2,
        }
    }

    /// Better first: `Less` is the better race.
    fn order(self, other: Finish) -> Ordering {
        let within = |a: Finish, b: Finish| match (a, b) {
            (Finish::Cleared { elapsed_ms: a }, Finish::Cleared { elapsed_ms: b }) => a.cmp(&b),
            (
                Finish::Stopped {
                    tiles: a,
                    at_ms: at_a,
                }
                | Finish::Quit {
                    tiles: a,
                    at_ms: at_a,
                },
                Finish::Stopped {
                    tiles: b,
                    at_ms: at_b,
                }
                | Finish::Quit {
                    tiles: b,
                    at_ms: at_b,
                },
            ) => b.cmp(&a).then(at_a.cmp(&at_b)),
            _ => Ordering::Equal,
        };
        self.group()
            .cmp(&other.group())
            .then_with(|| within(self, other))
    }
}

/// The place of each race in `finishes`, in their order: 1 for the best,
/// and races exactly as good share the better place (1, 2, 2, 4).
pub fn ranks(finishes: &[Finish]) -> Vec<usize> {
    finishes
        .iter()
        .map(|mine| {
            1 + finishes
                .iter()
                .filter(|other| other.order(*mine) == Ordering::Less)
                .count()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn cleared(elapsed_ms: u64) -> Finish {
        Finish::Cleared { elapsed_ms }
    }
    const fn stopped(tiles: u64, at_ms: u64) -> Finish {
        Finish::Stopped { tiles, at_ms }
    }
    const fn quit(tiles: u64, at_ms: u64) -> Finish {
        Finish::Quit { tiles, at_ms }
    }

    #[test]
    fn the_first_to_clear_wins_and_the_rest_place_by_tiles_then_time() {
        assert_eq!(
            ranks(&[
                stopped(40, 90_000),
                cleared(120_000),
                stopped(40, 80_000),
                stopped(60, 100_000),
                stopped(0, 0),
            ]),
            vec![4, 1, 3, 2, 5]
        );
    }

    #[test]
    fn a_player_who_quit_places_below_everyone_still_racing() {
        assert_eq!(
            ranks(&[
                quit(80, 50_000),
                stopped(2, 10_000),
                quit(10, 5_000),
                cleared(99_000)
            ]),
            vec![3, 2, 4, 1]
        );
    }

    #[test]
    fn equal_races_share_a_place() {
        assert_eq!(
            ranks(&[stopped(20, 30_000), stopped(20, 30_000), stopped(10, 5_000)]),
            vec![1, 1, 3]
        );
        assert_eq!(ranks(&[cleared(7), cleared(7)]), vec![1, 1]);
        assert_eq!(ranks(&[]), Vec::<usize>::new());
    }

    #[test]
    fn two_who_cleared_place_by_time() {
        assert_eq!(ranks(&[cleared(9_000), cleared(8_000)]), vec![2, 1]);
    }
}
