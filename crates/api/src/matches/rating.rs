//! Players' ratings, moved by each finished match with Glicko-2
//! (Glickman, "Example of the Glicko-2 system", 2013), as lichess rates
//! its games; the skillratings crate does the arithmetic.
//!
//! A match of several players is one rating period in which each player
//! met every other once: the one who placed better won, an equal place
//! is a draw. So a two-player race is exactly one Glicko-2 game, and in a
//! race of six the winner has beaten five.

use serde::{Deserialize, Serialize};
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2_rating_period};
use utoipa::ToSchema;

/// A player's Glicko-2 rating: the estimate, how uncertain it is (a
/// deviation; about 95% of the time the player's strength is within two
/// of it), and how erratic the player's results are.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

impl Default for Rating {
    /// Where a new player starts, as the paper suggests: 1500, deviation
    /// 350, volatility 0.06.
    fn default() -> Rating {
        let start = Glicko2Rating::new();
        Rating {
            rating: start.rating,
            deviation: start.deviation,
            volatility: start.volatility,
        }
    }
}

impl From<Rating> for Glicko2Rating {
    fn from(r: Rating) -> Glicko2Rating {
        Glicko2Rating {
            rating: r.rating,
            deviation: r.deviation,
            volatility: r.volatility,
        }
    }
}

impl From<Glicko2Rating> for Rating {
    fn from(r: Glicko2Rating) -> Rating {
        Rating {
            rating: r.rating,
            deviation: r.deviation,
            volatility: r.volatility,
        }
    }
}

/// Each player's rating after a match in which `players` (their rating
/// before, and their place: 1 the best) met, in their order. Every
/// rating is computed from the ratings before the match, and each
/// player's opponents are taken in one order (the sums of floating point
/// numbers depend on it), so the order of `players` changes nothing, to
/// the bit. The system constant τ is the paper's 0.5.
pub fn after_match(players: &[(Rating, usize)]) -> Vec<Rating> {
    let config = Glicko2Config::new();
    players
        .iter()
        .enumerate()
        .map(|(me, &(mine, my_place))| {
            let mut opponents: Vec<(Rating, usize)> = players
                .iter()
                .enumerate()
                .filter(|&(other, _)| other != me)
                .map(|(_, &opponent)| opponent)
                .collect();
            opponents.sort_by(|(a, a_place), (b, b_place)| {
                (a.rating.total_cmp(&b.rating))
                    .then(a.deviation.total_cmp(&b.deviation))
                    .then(a.volatility.total_cmp(&b.volatility))
                    .then(a_place.cmp(b_place))
            });
            let results: Vec<(Glicko2Rating, Outcomes)> = opponents
                .into_iter()
                .map(|(theirs, their_place)| {
                    let outcome = match my_place.cmp(&their_place) {
                        std::cmp::Ordering::Less => Outcomes::WIN,
                        std::cmp::Ordering::Greater => Outcomes::LOSS,
                        std::cmp::Ordering::Equal => Outcomes::DRAW,
                    };
                    (theirs.into(), outcome)
                })
                .collect();
            glicko2_rating_period(&mine.into(), &results, &config).into()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rating(rating: f64, deviation: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    /// The paper's worked example: a 1500 player (deviation 200) beats a
    /// 1400 (30) and loses to a 1550 (100) and a 1700 (300), and ends at
    /// r' = 1464.06, RD' = 151.52, σ' = 0.05999. The paper rounds as it
    /// goes; unrounded, r' is 1464.0507, within its last printed digit.
    #[test]
    fn the_papers_worked_example() {
        let player = rating(1500.0, 200.0);
        let opponents = [
            (rating(1400.0, 30.0), Outcomes::WIN),
            (rating(1550.0, 100.0), Outcomes::LOSS),
            (rating(1700.0, 300.0), Outcomes::LOSS),
        ];
        let results: Vec<_> = opponents.iter().map(|&(r, o)| (r.into(), o)).collect();
        let after: Rating =
            glicko2_rating_period(&player.into(), &results, &Glicko2Config::new()).into();
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    }

    #[test]
    fn a_two_player_race_is_one_game_each_way() {
        let before = [(Rating::default(), 1), (Rating::default(), 2)];
        let after = after_match(&before);
        // Equal ratings: the winner gains what the loser loses.
        assert!(after[0].rating > 1500.0 && after[1].rating < 1500.0);
        assert_eq!(
            format!("{:.6}", after[0].rating - 1500.0),
            format!("{:.6}", 1500.0 - after[1].rating)
        );
        assert_eq!(format!("{:.2}", after[0].rating), "1662.31");
        assert_eq!(format!("{:.2}", after[0].deviation), "290.32");
        // Each is the paper's one-game update.
        let one_game = glicko2_rating_period(
            &Glicko2Rating::new(),
            &[(Glicko2Rating::new(), Outcomes::WIN)],
            &Glicko2Config::new(),
        );
        assert_eq!(after[0], one_game.into());
    }

    #[test]
    fn in_a_race_of_several_each_met_every_other() {
        let before = [
            (rating(1500.0, 200.0), 2),
            (rating(1400.0, 30.0), 3),
            (rating(1550.0, 100.0), 1),
            (rating(1700.0, 300.0), 1),
        ];
        let after = after_match(&before);
        // The first is the paper's player: beat the 1400, lost to the two
        // who shared first place.
        assert_eq!(format!("{:.2}", after[0].rating), "1464.05");
        // The two who shared first place drew with each other.
        let mut shared = glicko2_rating_period(
            &rating(1550.0, 100.0).into(),
            &[
                (rating(1400.0, 30.0).into(), Outcomes::WIN),
                (rating(1500.0, 200.0).into(), Outcomes::WIN),
                (rating(1700.0, 300.0).into(), Outcomes::DRAW),
            ],
            &Glicko2Config::new(),
        );
        assert_eq!(after[2], shared.into());
        shared = glicko2_rating_period(
            &rating(1400.0, 30.0).into(),
            &[
                (rating(1500.0, 200.0).into(), Outcomes::LOSS),
                (rating(1550.0, 100.0).into(), Outcomes::LOSS),
                (rating(1700.0, 300.0).into(), Outcomes::LOSS),
            ],
            &Glicko2Config::new(),
        );
        assert_eq!(after[1], shared.into());
        // The order of the players changes nothing.
        let mut reversed = before;
        reversed.reverse();
        let mut again = after_match(&reversed);
        again.reverse();
        assert_eq!(again, after);
    }
}
