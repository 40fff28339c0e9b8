//! The solver pool: at most `workers` solves at once on tokio's blocking
//! pool, each with the server's deadline. A request that finds every slot
//! taken gets 503 at once instead of queueing. Every route that searches,
//! deals or judges a large board takes its slot here.

use crate::metrics;
use linkpath_api::{ApiError, ErrorCode, Work};
use linkpath_engine::Stop;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The solver slots and the deadline of the work run in them; cheap to
/// clone, every clone the same pool.
#[derive(Clone)]
pub(crate) struct Solvers {
    /// One permit per solve that may run at once.
    slots: Arc<Semaphore>,
    workers: usize,
    /// How long one solve may run.
    pub timeout: Duration,
    /// Bodies up to this size are parsed on the request's own thread.
    pub inline_max_bytes: usize,
}

impl Solvers {
    pub fn new(workers: usize, timeout: Duration, inline_max_bytes: usize) -> Self {
        Solvers {
            slots: Arc::new(Semaphore::new(workers)),
            workers,
            timeout,
            inline_max_bytes,
        }
    }

    /// A solver slot, or 503 when all are taken.
    pub fn slot(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        self.slots
            .clone()
            .try_acquire_owned()
            .map_err(|_| self.no_slot())
    }

    /// 503 when every solver slot is taken now: a body is not read that
    /// could not be worked on.
    pub fn any_slot(&self) -> Result<(), ApiError> {
        if self.slots.available_permits() == 0 {
            return Err(self.no_slot());
        }
        Ok(())
    }

    fn no_slot(&self) -> ApiError {
        ApiError::new(
            ErrorCode::Overloaded,
            format!("all {} solver slots are busy, retry shortly", self.workers),
        )
        .retry_after(1)
    }

    /// A [`Stop`] at the deadline of work started now, for work run on
    /// the request's own thread.
    pub fn stop_now(&self) -> Stop<'static> {
        Stop::never().with_deadline(Instant::now() + self.timeout)
    }

    /// Runs `work` on the blocking pool holding `permit`, with a [`Stop`]
    /// that passes the deadline or is cancelled when the client goes away.
    /// The permit is released only when the work has really stopped.
    pub async fn run_blocking<T: Send + 'static>(
        &self,
        permit: OwnedSemaphorePermit,
        what: Work,
        work: impl FnOnce(&Stop) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let timeout = self.timeout;
        let deadline = Instant::now() + timeout;
        let cancel = CancelOnDrop(Arc::new(AtomicBool::new(false)));
        let flag = cancel.0.clone();
        let task = tokio::task::spawn_blocking(move || {
            let _in_flight = metrics::InFlight::start();
            let _permit = permit;
            let stop = Stop::never().with_deadline(deadline).with_flag(&flag);
            work(&stop)
        });
        // The search polls its deadline; parsing a large body does not, so
        // the wait is bounded too, and the flag stops whatever comes next.
        let waited = tokio::time::timeout(timeout + Duration::from_millis(50), task).await;
        match waited {
            Ok(Ok(result)) => result,
            Ok(Err(join)) => {
                metrics::record_panic();
                tracing::error!(error = %join, "a solve panicked");
                Err(ApiError::new(ErrorCode::Internal, "internal error"))
            }
            Err(_) => Err(what.stopped(linkpath_engine::Interrupted::Deadline)),
        }
    }
}

/// Sets the flag when the request's future is dropped (client gone, or the
/// wait timed out), so the blocking search stops too.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}
