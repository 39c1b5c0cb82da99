//! The read budget: the share of time answering clients may take
//! ([`InspectorOptions::view_budget_percent`](crate::InspectorOptions::view_budget_percent)),
//! one budget for reads of the live world (answered by the frame loop at its publish point) and
//! reads of saved frames (rebuilt and compared on the server's threads, off the frame loop).
//!
//! After reads took `t`, the next are answered no sooner than `t * (100 / percent - 1)` later:
//! [`Shared::next_view_us`](crate::inspector::Shared) holds that time, pushed back by both kinds.
//! Reads of saved frames also take turns (one at a time), so at most one frame rebuild or diff
//! competes with the game for a core at once.

use std::sync::atomic::Ordering;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::error::ApiError;
use crate::inspector::{Shared, lock};
use crate::live::READ_WAIT;

/// Whether a read of saved frames is under way, and the condition the next waits on.
#[derive(Debug, Default)]
pub(crate) struct Turns {
    busy: Mutex<bool>,
    freed: Condvar,
}

/// A turn taken ([`Turns`]); dropping it frees the turn for the next read.
struct Turn<'t>(&'t Turns);

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        *lock(&self.0.busy) = false;
        self.0.freed.notify_one();
    }
}

/// Takes the turn, waiting for it no later than `deadline`.
///
/// # Errors
/// [`ApiError::ReadBudget`] if another read holds it until `deadline`.
fn take(turns: &Turns, deadline: Instant) -> Result<Turn<'_>, ApiError> {
    let mut busy = lock(&turns.busy);
    while *busy {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ApiError::ReadBudget(READ_WAIT));
        }
        busy = turns.freed.wait_timeout(busy, left).unwrap_or_else(std::sync::PoisonError::into_inner).0;
    }
    *busy = true;
    Ok(Turn(turns))
}

/// Runs `work` (a read of saved frames, on a server thread, never the frame loop) within the
/// budget: once it has the turn and the budget's next time has come, waiting at most
/// [`READ_WAIT`] in all; then pushes the next time back by what `work` took ([`spent`]).
/// Blocks the calling thread while it waits.
///
/// # Errors
/// [`ApiError::ReadBudget`] if the turn or the budget's time does not come within
/// [`READ_WAIT`] (`work` is not run).
pub(crate) fn spend<T>(shared: &Shared, work: impl FnOnce() -> T) -> Result<T, ApiError> {
    let deadline = Instant::now() + READ_WAIT;
    let _turn = take(&shared.turns, deadline)?;
    loop {
        let (now, next) = (shared.now_us(), shared.next_view_us.load(Ordering::Acquire));
        if now >= next {
            break;
        }
        let wait = Duration::from_micros(next - now);
        if Instant::now() + wait > deadline {
            return Err(ApiError::ReadBudget(READ_WAIT));
        }
        std::thread::sleep(wait);
    }
    let start = Instant::now();
    let answer = work();
    spent(shared, start.elapsed());
    Ok(answer)
}

/// Notes that reads took `time`: the next are answered no sooner than `time * (100 / percent
/// - 1)` from now (never sooner than a time already set). O(1).
pub(crate) fn spent(shared: &Shared, time: Duration) {
    let percent = u32::from(shared.options.view_budget_percent.clamp(1, 100));
    let rest = time * (100 / percent - 1);
    let next = shared.now_us().saturating_add(u64::try_from(rest.as_micros()).unwrap_or(u64::MAX));
    shared.next_view_us.fetch_max(next, Ordering::AcqRel);
}
