//! Reads of the live world: a server thread queues a job and waits; the frame loop runs queued
//! jobs against its world at the publish point, within the inspector's share of its time, and
//! sends each answer back. Nothing of the world is copied beyond what one answer holds.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use crate::error::ApiError;
use crate::inspector::{Shared, lock};
use crate::view::Live;

/// How long a read waits for the frame loop to reach its publish point and answer it.
pub(crate) const READ_WAIT: Duration = Duration::from_secs(3);

/// The most reads waiting for the frame loop at once; more are refused with 503.
pub(crate) const MAX_WAITING: usize = 64;

/// One publish point answers queued reads until this much time has gone to them (the first is
/// always answered), leaving the rest to the next publish.
pub(crate) const SLICE: Duration = Duration::from_millis(4);

/// A read waiting for the frame loop.
pub(crate) struct Job {
    run: Box<dyn FnOnce(&mut Live<'_>) + Send>,
    /// Cleared when the reader stops waiting: the job is then dropped unrun.
    waiting: Arc<AtomicBool>,
}

/// The queue of reads between the server threads and the frame loop.
pub(crate) type Queue = VecDeque<Job>;

/// Runs `read` against the live world at the frame loop's next publish point and returns its
/// answer. Blocks the calling (server) thread for up to [`READ_WAIT`].
///
/// # Errors
/// `read`'s error; [`ApiError::ReadsQueued`] past [`MAX_WAITING`] waiting reads;
/// [`ApiError::NoPublish`] if the frame loop does not answer within [`READ_WAIT`] (it is not
/// calling [`Inspector::publish`](crate::Inspector::publish)); [`ApiError::ReadFailed`] if
/// `read` panicked (a component's `Serialize` impl, say: the frame loop goes on) or the
/// inspector was dropped with the read queued.
pub(crate) fn read<T, F>(shared: &Shared, read: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&mut Live<'_>) -> Result<T, ApiError> + Send + 'static,
{
    let (tx, rx) = mpsc::sync_channel(1);
    let waiting = Arc::new(AtomicBool::new(true));
    {
        let mut queue = lock(&shared.reads);
        if queue.len() >= MAX_WAITING {
            return Err(ApiError::ReadsQueued(MAX_WAITING));
        }
        queue.push_back(Job {
            run: Box::new(move |live| {
                // The reader may have given up; the answer is then dropped.
                let _ = tx.send(read(live));
            }),
            waiting: Arc::clone(&waiting),
        });
    }
    let answer = rx.recv_timeout(READ_WAIT);
    waiting.store(false, Ordering::Release);
    match answer {
        Ok(answer) => answer,
        Err(mpsc::RecvTimeoutError::Timeout) => Err(ApiError::NoPublish(READ_WAIT)),
        // The job was dropped unanswered: it panicked, or the queue was cleared.
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(ApiError::ReadFailed),
    }
}

/// Whether reads are waiting for the frame loop.
pub(crate) fn pending(shared: &Shared) -> bool {
    !lock(&shared.reads).is_empty()
}

/// Answers the queued reads against `live` in the order they came, until [`SLICE`] has gone to
/// them (at least one is answered). Returns the time the reads that completed took: what the
/// read budget charges. Reads whose client stopped waiting are dropped unrun. A read that panics
/// is caught here (it only read the world, so the world is whole): its client gets
/// [`ApiError::ReadFailed`], the frame loop goes on, and its time is not charged (the panic
/// hook's report, a backtrace under `RUST_BACKTRACE`, can take longer than the read budget's
/// wait, which would refuse the next clients for a failure that was not theirs).
pub(crate) fn answer(shared: &Shared, live: &mut Live<'_>) -> Duration {
    let start = Instant::now();
    let mut ran = 0;
    let mut charged = Duration::ZERO;
    while ran == 0 || start.elapsed() < SLICE {
        let Some(job) = lock(&shared.reads).pop_front() else { break };
        if job.waiting.load(Ordering::Acquire) {
            let run = job.run;
            let began = Instant::now();
            // The panic was reported by the panic hook; dropping the job answers its client.
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(live))).is_ok() {
                charged += began.elapsed();
            }
            ran += 1;
        }
    }
    charged
}
