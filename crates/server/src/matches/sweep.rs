//! The sweeper: every 100 ms, the matches whose timer is due (a
//! countdown's end, a time limit) are read, which applies the due change.
//! Reading claims nothing, so replicas may both read a due match: the
//! change is a compare-and-set, made once. A sweeper that stops leaves
//! the match due, and the next read of it applies the change.

use super::service::Matches;
use std::sync::Arc;
use std::time::Duration;

/// Matches brought up to date a pass, at most.
const BATCH: usize = 64;

/// Sweeps due matches until the serve loop stops it.
pub async fn sweep_loop(matches: Arc<Matches>) {
    const EVERY: Duration = Duration::from_millis(100);
    let mut tick = tokio::time::interval(EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let now = matches.now();
        let due = match matches.store.due_matches(now, BATCH).await {
            Ok(due) => due,
            Err(e) => {
                tracing::warn!(error = %e, "reading the due matches failed; the next pass retries");
                continue;
            }
        };
        for id in due {
            if let Err(e) = matches.read(&id, now).await {
                tracing::warn!(error = %e, "a due match was not brought up to date; the next pass retries");
            }
        }
    }
}
