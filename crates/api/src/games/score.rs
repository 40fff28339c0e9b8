//! The one scoring rule, KShisen's (`App::getScore`, and
//! `doc/score-formula.tex` in its sources): tiles removed a second,
//! scaled so that 0.14 tiles a second on its 14 x 6 board scores 100,
//! grown by the square root of the board's size against that board, and
//! doubled with gravity, which makes a game harder. docs/games.md says
//! it for players.

/// The score of `removed` tiles in `elapsed_ms` of play. Time counts from
/// one second, so a first move at once does not score without bound;
/// no tile removed scores 0.
pub fn score(removed: usize, elapsed_ms: u64, gravity: bool) -> u64 {
    if removed == 0 {
        return 0;
    }
    let tiles = removed as f64;
    let seconds = (elapsed_ms.max(1000) as f64) / 1000.0;
    let per_second = tiles / seconds;
    let size_bonus = (tiles / 84.0).sqrt();
    let points = per_second / 0.14 * 100.0 * size_bonus;
    let points = if gravity { 2.0 * points } else { points };
    // Finite and non-negative by construction; `as` saturates anyway.
    points.floor() as u64
}

#[cfg(test)]
mod tests {
    use super::score;

    #[test]
    fn kshisens_board_at_its_reference_speed_scores_100() {
        // 84 tiles in 600 s is 0.14 tiles a second on a 14 x 6 board.
        assert_eq!(score(84, 600_000, false), 100);
        assert_eq!(score(84, 600_000, true), 200);
    }

    #[test]
    fn faster_and_bigger_score_more() {
        assert_eq!(score(144, 300_000, false), 448);
        assert_eq!(score(144, 150_000, false), 897);
        assert_eq!(score(2, 0, false), 220);
        assert_eq!(score(0, 5_000, true), 0);
    }
}
