//! Group commit: one thread owns the file's write transactions. A write
//! waits in a bounded queue with a channel for its answer; the thread
//! takes every write waiting (up to [`BATCH`]), applies each in order in
//! one transaction, each with its own checks, commits once with an fsync,
//! then answers them all. While one batch is being synced the next one
//! gathers, so the fsyncs a second stay about constant as writers grow
//! and the writes a second grow with them.

use std::sync::Arc;
use std::thread::{self, JoinHandle};

use tokio::sync::{mpsc, oneshot};

use super::handle::Handle;
use super::in_write;
use crate::rules;
use crate::{
    Keep, MatchOutcome, MatchWrite, Outcome, PlayerOutcome, PlayerWrite, StoreError, StoreLimits,
    Write,
};

/// The most writes one transaction applies.
const BATCH: usize = 256;
/// The most writes waiting; past it a writer waits for room (within its
/// timeout).
const QUEUE: usize = 4 * BATCH;

/// What a job changes: a game (and its key), a key alone, a player, or a
/// match (with its key and players).
pub(super) enum Change {
    // Boxed: a game's write is several times the size of the others.
    Write(Box<Write>),
    Keep(Keep),
    Player(PlayerWrite),
    Erase { id: String, expected: u64 },
    // Boxed, as a game's write.
    Match(Box<MatchWrite>),
}

/// What became of a job's change.
pub(super) enum Done {
    Game(Outcome),
    Player(PlayerOutcome),
    Match(MatchOutcome),
}

pub(super) struct Job {
    pub change: Change,
    pub now_ms: u64,
    pub reply: oneshot::Sender<Result<Done, StoreError>>,
}

/// Starts the writer thread; it stops once every sender is dropped.
pub(super) fn start(
    db: Arc<Handle>,
    limits: StoreLimits,
) -> Result<(mpsc::Sender<Job>, JoinHandle<()>), StoreError> {
    let (sender, mut queue) = mpsc::channel::<Job>(QUEUE);
    let thread = thread::Builder::new()
        .name("linkpath-store-writer".into())
        .spawn(move || {
            while let Some(first) = queue.blocking_recv() {
                let mut jobs = vec![first];
                while jobs.len() < BATCH {
                    let Ok(job) = queue.try_recv() else { break };
                    jobs.push(job);
                }
                commit(&db, jobs, &limits);
            }
        })
        .map_err(|err| StoreError::Unavailable(format!("cannot start the writer thread: {err}")))?;
    Ok((sender, thread))
}

/// Applies and commits one batch, then answers each write: its outcome, or
/// the batch's error for all of them when nothing was committed.
fn commit(db: &Handle, mut jobs: Vec<Job>, limits: &StoreLimits) {
    // A caller that timed out no longer waits: its write is left out.
    jobs.retain(|job| !job.reply.is_closed());
    if jobs.is_empty() {
        return;
    }
    match apply(db, &jobs, limits) {
        Ok(outcomes) => {
            for (job, outcome) in jobs.into_iter().zip(outcomes) {
                // A caller gone since has nobody left to tell.
                let _ = job.reply.send(Ok(outcome));
            }
        }
        Err(err) => {
            for job in jobs {
                let _ = job.reply.send(Err(err.clone()));
            }
        }
    }
}

/// An I/O error fails the whole batch, none of it committed; the file is
/// opened again before the next batch (see `handle.rs`).
fn apply(db: &Handle, jobs: &[Job], limits: &StoreLimits) -> Result<Vec<Done>, StoreError> {
    db.with(|db| {
        in_write(db, |tables| {
            jobs.iter()
                .map(|job| {
                    let now_ms = job.now_ms;
                    Ok(match &job.change {
                        Change::Write(write) => {
                            Done::Game(rules::apply(tables, write, now_ms, limits)?)
                        }
                        Change::Keep(keep) => {
                            Done::Game(rules::keep(tables, keep, now_ms, limits)?)
                        }
                        Change::Player(write) => {
                            Done::Player(rules::apply_player(tables, write, now_ms, limits)?)
                        }
                        Change::Erase { id, expected } => {
                            Done::Player(rules::erase_player(tables, id, *expected, now_ms)?)
                        }
                        Change::Match(write) => {
                            Done::Match(rules::apply_match(tables, write, now_ms, limits)?)
                        }
                    })
                })
                .collect()
        })
    })
}
