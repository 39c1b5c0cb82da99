//! How much work a parallel loop holds, learned per call site: the estimate that keeps small
//! loops off the thread pool.
//!
//! Waking rayon's workers and handing them chunks costs tens of microseconds, more on a busy
//! machine; a loop of 20,000 cheap rows is done in less on the calling thread. The rows' count is
//! known before a loop starts but their cost is not, so each call site ([`Location`] of the
//! `par_*` call) remembers its recent nanoseconds per row, measured on every run (sequential:
//! the loop's time; parallel: the sum of its chunks' times), and the next run goes to the pool
//! only when rows x that estimate reaches [`MIN_PARALLEL_WORK_NS`]. A site's first run, with no
//! estimate yet, runs on the calling thread and measures. The schedule's executor decides the
//! same way for whole segments (`Schedule::set_parallel_threshold`).
//!
//! The table is process-wide, direct-mapped (256 slots keyed by the call site's address), one
//! `AtomicU64` per slot: a site that shares a slot with another only loses its estimate and runs
//! once more on the calling thread. Which path a loop takes never changes its result: the
//! `par_*` loops it guards visit rows independently (`par_for_each`) or apply their commands in
//! chunk order (`par_for_each_deferred`).

use std::panic::Location;
use std::sync::atomic::{AtomicU64, Ordering};

/// Estimated work, in nanoseconds, below which a parallel loop runs on the calling thread: about
/// ten thread hand-offs.
pub(crate) const MIN_PARALLEL_WORK_NS: f64 = 50_000.0;

/// Slots of the table.
const SLOTS: usize = 256;

/// Per slot: the call site's tag (high 32 bits) and its nanoseconds per row as `f32` bits (low
/// 32 bits); 0 is empty.
static TABLE: [AtomicU64; SLOTS] = [const { AtomicU64::new(0) }; SLOTS];

/// The slot and tag of a call site.
fn key(site: &'static Location<'static>) -> (usize, u32) {
    let hash = (std::ptr::from_ref(site) as usize as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    ((hash >> 56) as usize % SLOTS, (hash >> 16) as u32 | 1)
}

/// The site's estimated nanoseconds per row, if it has run before.
pub(crate) fn ns_per_row(site: &'static Location<'static>) -> Option<f64> {
    let (slot, tag) = key(site);
    let entry = TABLE[slot].load(Ordering::Relaxed);
    ((entry >> 32) as u32 == tag).then(|| f64::from(f32::from_bits(entry as u32)))
}

/// Whether a loop of `rows` rows at `site` holds enough work for the thread pool.
pub(crate) fn worth_parallel(site: &'static Location<'static>, rows: usize) -> bool {
    ns_per_row(site).is_some_and(|ns| ns * rows as f64 >= MIN_PARALLEL_WORK_NS)
}

/// Records that `rows` rows at `site` took `nanos` nanoseconds of work: the new estimate is a
/// running average (a quarter of the new sample), or the sample itself for a new site.
pub(crate) fn record(site: &'static Location<'static>, rows: usize, nanos: u64) {
    if rows == 0 {
        return;
    }
    let sample = nanos as f64 / rows as f64;
    let estimate = ns_per_row(site).map_or(sample, |old| 0.75 * old + 0.25 * sample);
    let (slot, tag) = key(site);
    TABLE[slot].store(u64::from(tag) << 32 | u64::from((estimate as f32).to_bits()), Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::float_cmp)]
    fn a_site_learns_its_cost_and_crosses_the_threshold() {
        let site = Location::caller();
        assert_eq!(ns_per_row(site), None);
        assert!(!worth_parallel(site, 1_000_000), "no estimate: the calling thread measures first");
        record(site, 1_000, 2_000);
        assert_eq!(ns_per_row(site), Some(2.0));
        assert!(!worth_parallel(site, 20_000), "40 us of work stays on the calling thread");
        assert!(worth_parallel(site, 30_000));
        record(site, 1_000, 6_000);
        assert_eq!(ns_per_row(site), Some(3.0), "a running average");
        record(site, 0, 5);
        assert_eq!(ns_per_row(site), Some(3.0), "an empty run teaches nothing");
    }
}
