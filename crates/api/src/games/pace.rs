//! How fast a game was played, against the fastest a person plays: a win
//! whose moves came faster than a server's floor is not ranked. The
//! measure is the median play time between one move and the next (the
//! first from the deal), so that a few quick pairs a person sees at once
//! do not count, and a bot that waits once does not pass.

use super::game::Game;
use super::log::{ActionKind, Logged};

/// The median play time, in milliseconds, between the moves of `log`
/// (the whole log, from the deal), the first counted from the deal; none
/// for a log without a move. Play time leaves out the server's downtime
/// given back to the game.
pub fn median_move_gap_ms(log: &[Logged]) -> Option<u64> {
    let times: Vec<u64> = log
        .iter()
        .filter(|entry| matches!(entry.action, ActionKind::Create | ActionKind::Move))
        .map(|entry| entry.at_ms.saturating_sub(entry.given_back_ms))
        .collect();
    let mut gaps: Vec<u64> = times
        .windows(2)
        .map(|w| w[1].saturating_sub(w[0]))
        .collect();
    if gaps.is_empty() {
        return None;
    }
    gaps.sort_unstable();
    // The lower middle of an even count: the faster of the two.
    Some(gaps[(gaps.len() - 1) / 2])
}

impl Game {
    /// Marks the game too fast to rank if the median gap between its
    /// moves in `log` (its whole log) is under `floor_ms`; a floor of 0
    /// marks nothing.
    pub fn judge_pace(&mut self, log: &[Logged], floor_ms: u64) {
        if floor_ms == 0 {
            return;
        }
        if let Some(median) = median_move_gap_ms(log)
            && median < floor_ms
        {
            self.too_fast_ms = Some(median);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(action: ActionKind, at_ms: u64) -> Logged {
        Logged::new(action, at_ms, 0)
    }

    #[test]
    fn the_median_gap_counts_moves_from_the_deal() {
        assert_eq!(median_move_gap_ms(&[entry(ActionKind::Create, 0)]), None);
        let log = [
            entry(ActionKind::Create, 1_000),
            entry(ActionKind::Move, 1_100),
            // A pause and a hint are not moves: the gap runs on.
            entry(ActionKind::Hint, 1_500),
            entry(ActionKind::Move, 2_100),
            entry(ActionKind::Move, 2_150),
            entry(ActionKind::Move, 5_150),
        ];
        // Gaps 100, 1000, 50, 3000: the lower middle is 100.
        assert_eq!(median_move_gap_ms(&log), Some(100));
        let mut given_back = entry(ActionKind::Move, 9_000);
        given_back.given_back_ms = 3_800;
        // 9000 less 3800 given back is 5200: 50 after the last move.
        let with_downtime = [&log[..], &[given_back]].concat();
        assert_eq!(median_move_gap_ms(&with_downtime), Some(100));
    }
}
