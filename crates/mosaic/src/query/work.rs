//! How much work a parallel loop holds and whether the pool has paid for it, learned per call
//! site: the estimates that keep a loop on the calling thread unless splitting it has been seen
//! to be faster.
//!
//! Waking rayon's workers and handing them chunks costs tens of microseconds, more on a busy or
//! virtual machine (a worker idle for a millisecond took 30-100 us to pick up a task on the
//! 2-CPU VM, median, against under 1 us when it was already running); a loop of 20,000 cheap
//! rows is done in less on the calling thread. The rows' count is known before a loop starts but
//! their cost is not, so each call site ([`Location`] of the `par_*` call) remembers two running
//! averages of nanoseconds per row: its **work** (the loop's time on the calling thread, or the
//! sum of its chunks' times on the pool) and its **wall time on the pool**. A site's first run,
//! with no estimate yet, runs on the calling thread and measures. A run then goes to the pool
//! when:
//! - rows x the work estimate reaches [`MIN_PARALLEL_WORK_NS`] (else the hand-off cannot pay),
//!   and
//! - the pool has not been measured yet, or its wall time per row has not exceeded the work
//!   estimate by more than [`POOL_SLOWER_MARGIN`]: a loop the pool makes slower than its own
//!   work (hand-offs and waiting for a late worker's chunk cost more than the split saves) stays
//!   on the calling thread. A pool run merely no faster is kept: in a schedule that runs
//!   systems side by side, each worker busy with its own system's loop, a loop's chunks stay on
//!   its worker (wall time = work) until the other system ends and its worker steals what is
//!   left, which evens the two systems out; run alone, the loop could not be helped at all
//!   (the arena's movement and count-down run side by side so; a first version of this rule,
//!   which kept a loop on the pool only if it was 10% faster there, took both off it, and two
//!   threads went from 0.93x to 1.09x of one at 10^6 in four interleaved rounds).
//!
//! A site that leaves the pool tries it again after 2 runs, then 4, 8, 16 and every
//! [`REPROBE_POOL_EVERY`] while it stays slower, so one slow sample (a cold first frame, a busy
//! moment) costs a few runs on the calling thread and a machine where the pool never pays one
//! run in 32 (the schedule's executor re-probes its segments the same way); a re-probe's wall
//! time replaces the stale one. A site on the pool keeps its work estimate current from its
//! chunks' times, so it never has to run alone to check (a run alone would cost ten parallel
//! ones on 16 cores).
//!
//! The table is process-wide, direct-mapped (256 slots keyed by the call site's address), two
//! `AtomicU64`s per slot: a site that shares a slot with another only loses its estimates and
//! runs once more on the calling thread. Which path a loop takes never changes its result: the
//! `par_*` loops it guards visit rows independently (`par_for_each`) or apply their commands in
//! chunk order (`par_for_each_deferred`).

use std::panic::Location;
use std::sync::atomic::{AtomicU64, Ordering};

/// Estimated work, in nanoseconds, below which a parallel loop runs on the calling thread: about
/// ten thread hand-offs on a machine whose workers wake quickly.
pub(crate) const MIN_PARALLEL_WORK_NS: f64 = 50_000.0;

/// A site leaves the pool when its wall time per row there exceeds its work per row by more than
/// this factor: slower than running alone, beyond the noise of a busy machine.
pub(crate) const POOL_SLOWER_MARGIN: f64 = 1.1;

/// At most this many runs apart, a site kept on the calling thread tries the pool again.
pub(crate) const REPROBE_POOL_EVERY: u32 = 32;

/// Weight of the newest sample in the running averages.
const WEIGHT: f64 = 0.25;

/// Slots of the table.
const SLOTS: usize = 256;

/// One call site's estimates: `work` holds the site's tag (high 32 bits) and its work in
/// nanoseconds per row as `f32` bits (low 32 bits), 0 when empty; `pool` holds the pool's
/// wall nanoseconds per row as `f32` bits (high 32 bits, 0 when not measured), the runs left
/// before the pool's next re-probe (bits 0-15) and the re-probe back-off level (bits 16-23).
struct Slot {
    work: AtomicU64,
    pool: AtomicU64,
}

static TABLE: [Slot; SLOTS] = [const { Slot { work: AtomicU64::new(0), pool: AtomicU64::new(0) } }; SLOTS];

/// The slot and tag of a call site.
fn key(site: &'static Location<'static>) -> (usize, u32) {
    let hash = (std::ptr::from_ref(site) as usize as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    ((hash >> 56) as usize % SLOTS, (hash >> 16) as u32 | 1)
}

/// What a site has learned: work and wall time on the pool in nanoseconds per row (`None` until
/// measured), the runs on the calling thread left before the pool is tried again, and how far
/// those re-probes have backed off.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Estimates {
    work: Option<f64>,
    wall: Option<f64>,
    wait: u16,
    level: u8,
}

impl Estimates {
    const EMPTY: Self = Self { work: None, wall: None, wait: 0, level: 0 };

    /// Whether the estimates pick the pool: no wall time on it measured yet, or one not above
    /// the work by more than [`POOL_SLOWER_MARGIN`].
    fn pick_pool(&self) -> bool {
        match (self.work, self.wall) {
            (Some(work), Some(wall)) => wall <= POOL_SLOWER_MARGIN * work,
            _ => true,
        }
    }
}

/// The site's estimates; all empty when the site has not run or lost its slot to another.
fn estimates(site: &'static Location<'static>) -> Estimates {
    let (slot, tag) = key(site);
    let slot = &TABLE[slot];
    let work = slot.work.load(Ordering::Relaxed);
    if (work >> 32) as u32 != tag {
        return Estimates::EMPTY;
    }
    let pool = slot.pool.load(Ordering::Relaxed);
    let wall = f32::from_bits((pool >> 32) as u32);
    Estimates {
        work: Some(f64::from(f32::from_bits(work as u32))),
        wall: (wall > 0.0).then_some(f64::from(wall)),
        wait: pool as u16,
        level: (pool >> 16) as u8,
    }
}

/// The site's estimated work in nanoseconds per row, if it has run.
#[cfg(test)]
pub(crate) fn ns_per_row(site: &'static Location<'static>) -> Option<f64> {
    estimates(site).work
}

/// Whether a loop of `rows` rows at `site` should run on the thread pool (see the module docs).
pub(crate) fn worth_parallel(site: &'static Location<'static>, rows: usize) -> bool {
    let estimates = estimates(site);
    let Some(work) = estimates.work else { return false };
    work * (rows as f64) >= MIN_PARALLEL_WORK_NS && (estimates.pick_pool() || estimates.wait == 0)
}

/// A running average: a quarter of the new sample, or the sample itself for a new estimate.
fn blend(old: Option<f64>, sample: f64) -> f32 {
    old.map_or(sample, |old| (1.0 - WEIGHT) * old + WEIGHT * sample) as f32
}

/// Runs on the calling thread before the pool's next re-probe at back-off `level`: the pool is
/// tried every 2, 4, 8, 16, then [`REPROBE_POOL_EVERY`] runs.
fn pool_reprobe_wait(level: u8) -> u16 {
    ((2u32 << level).min(REPROBE_POOL_EVERY) - 1) as u16
}

/// Records that `rows` rows at `site` took `work` nanoseconds of work: the loop's time on the
/// calling thread (`wall` `None`), or the sum of its chunks' times on the pool, whose wall time
/// was `wall`; schedules the pool's next re-probe when the estimates leave it.
pub(crate) fn record(site: &'static Location<'static>, rows: usize, work: u64, wall: Option<u64>) {
    if rows == 0 {
        return;
    }
    let per_row = |nanos: u64| nanos as f64 / rows as f64;
    let (slot, tag) = key(site);
    let slot = &TABLE[slot];
    let old = estimates(site);
    if old.work.is_none() && wall.is_some() {
        // Only a site with an estimate goes to the pool; this one lost its slot meanwhile.
        return;
    }
    let was_pool = old.pick_pool();
    let mut new = old;
    new.work = Some(f64::from(blend(old.work, per_row(work))));
    if let Some(wall) = wall {
        // A re-probe's wall time replaces the stale one; on the pool they are averaged.
        new.wall = Some(f64::from(blend(if was_pool { old.wall } else { None }, per_row(wall))));
    }
    (new.wait, new.level) = if new.pick_pool() {
        (0, 0)
    } else if was_pool {
        // Just left the pool: look again soon.
        (pool_reprobe_wait(0), 0)
    } else if old.wait == 0 {
        match wall {
            // The pool was re-probed and is still slower: back off.
            Some(_) => {
                let level = old.level.saturating_add(1).min(4);
                (pool_reprobe_wait(level), level)
            }
            // Due, but the loop was too small for the pool: the next one that is not probes.
            None => (0, old.level),
        }
    } else {
        (old.wait - 1, old.level)
    };
    let (work, wall) = (new.work.unwrap_or(0.0) as f32, new.wall.unwrap_or(0.0) as f32);
    slot.work.store(u64::from(tag) << 32 | u64::from(work.to_bits()), Ordering::Relaxed);
    let state = u64::from(new.wait) | u64::from(new.level) << 16;
    slot.pool.store(u64::from(wall.to_bits()) << 32 | state, Ordering::Relaxed);
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
        record(site, 1_000, 2_000, None);
        assert_eq!(ns_per_row(site), Some(2.0));
        assert!(!worth_parallel(site, 20_000), "40 us of work stays on the calling thread");
        assert!(worth_parallel(site, 30_000), "60 us of work and the pool not measured yet");
        record(site, 1_000, 6_000, None);
        assert_eq!(ns_per_row(site), Some(3.0), "a running average");
        record(site, 0, 5, None);
        assert_eq!(ns_per_row(site), Some(3.0), "an empty run teaches nothing");
    }

    /// Runs `site` as `worth_parallel` decides, `runs` times, over 100,000 rows of `work`
    /// nanoseconds each, taking `wall` nanoseconds a row of wall time on the pool; returns how
    /// many runs went to the pool.
    fn drive(site: &'static Location<'static>, runs: u32, work: u64, wall: u64) -> u32 {
        let rows = 100_000;
        let mut pooled = 0;
        for _ in 0..runs {
            if worth_parallel(site, rows) {
                pooled += 1;
                record(site, rows, work * rows as u64, Some(wall * rows as u64));
            } else {
                record(site, rows, work * rows as u64, None);
            }
        }
        pooled
    }

    #[test]
    fn a_site_the_pool_slows_down_stays_on_the_calling_thread() {
        let site = Location::caller();
        // 2 ns a row alone, 3 ns a row of wall time on the pool (late workers, hand-offs).
        let pooled = drive(site, 320, 2, 3);
        // The first run measures alone, the second tries the pool, then re-probes after 2, 4, 8
        // and 16 runs and every 32 after that: 1 + 4 + 9.
        assert_eq!(pooled, 14, "{pooled} of 320 runs on the pool");
        assert_eq!(worth_parallel(site, 100_000), estimates(site).wait == 0, "only re-probes");
    }

    #[test]
    fn a_site_the_pool_does_not_slow_down_stays_on_the_pool() {
        let site = Location::caller();
        // As fast on the pool as alone: its chunks stayed on one busy worker.
        assert_eq!(drive(site, 64, 2, 2), 63, "kept on the pool, where an idle worker may help");
    }

    #[test]
    fn a_site_the_pool_speeds_up_stays_on_the_pool() {
        let site = Location::caller();
        // 4 ns a row alone, 1 ns a row of wall time on four threads.
        let pooled = drive(site, 320, 4, 1);
        // Every run but the first: the chunks' times keep the work estimate current.
        assert_eq!(pooled, 319, "{pooled} of 320 runs on the pool");
    }

    #[test]
    fn a_site_whose_pool_gets_faster_moves_back_to_it() {
        let site = Location::caller();
        drive(site, 64, 2, 3);
        assert!(drive(site, 8, 2, 3) <= 1, "slower on the pool: mostly the calling thread");
        // The machine quietens: the pool now takes half the time. The next re-probe sees it.
        drive(site, REPROBE_POOL_EVERY, 2, 1);
        assert!(drive(site, 8, 2, 1) >= 7, "the re-probe found the pool faster");
    }

    #[test]
    fn a_site_whose_pool_gets_slower_moves_back_to_the_calling_thread() {
        let site = Location::caller();
        drive(site, 16, 4, 1);
        // The other threads get busy: the pool now takes longer than the work. Each run there
        // moves the wall estimate, which passes 1.1x the work within a few runs.
        drive(site, 8, 4, 8);
        // At most one run of the eight is a re-probe of the pool.
        assert!(drive(site, 8, 4, 8) <= 1, "slower on the pool: the calling thread");
    }

    #[test]
    fn a_parallel_sample_without_a_sequential_estimate_teaches_nothing() {
        let site = Location::caller();
        record(site, 1_000, 1_000, Some(1_000));
        assert_eq!(estimates(site), Estimates::EMPTY);
    }

    #[test]
    fn one_slow_sample_on_the_pool_costs_a_few_runs() {
        let site = Location::caller();
        drive(site, 1, 4, 1);
        // The pool's first run is slow (cold caches), then it is four times faster than alone.
        assert!(worth_parallel(site, 100_000));
        record(site, 100_000, 4 * 100_000, Some(10 * 100_000));
        assert!(!worth_parallel(site, 100_000), "left the pool");
        let pooled = drive(site, 16, 4, 1);
        assert!(pooled >= 13, "back on the pool within three runs: {pooled} of 16");
    }
}
