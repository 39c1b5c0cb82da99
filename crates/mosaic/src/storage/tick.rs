//! Change ticks: the world's clock and the wrapping comparison of its readings.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// A reading of a world's change clock: when a component was added or changed, or when a system
/// last ran.
///
/// The clock counts system runs (each run takes the current reading and advances it by one) and
/// [`World::clear_trackers`](crate::World::clear_trackers) calls. It wraps: ticks are compared by
/// age relative to the present (see [`Ticks::is_newer`]), and every stored tick older than the
/// maximum age is clamped to it by the periodic check, as bevy's `Tick` and
/// `check_change_ticks` do, so a system that has not run for 2^32 frames sees every change kept
/// within the maximum age rather than a wrapped comparison.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tick(u32);

impl Tick {
    /// The tick with raw value `value`.
    #[inline]
    pub const fn new(value: u32) -> Self {
        Self(value)
    }

    /// The raw value (wrapping: compare ticks with [`Ticks::is_newer`], not with `<`).
    #[inline]
    pub const fn get(self) -> u32 {
        self.0
    }
}

/// The window a reader looks through: changes after `last_run`, up to `this_run`.
///
/// A system's `last_run` is the tick of its previous run (or the oldest age for its first run, so
/// it sees everything); `this_run` is the tick its current run was given. World-level queries use
/// the ticks of the last [`World::clear_trackers`](crate::World::clear_trackers) and the present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticks {
    /// Changes at ticks newer than this are seen.
    pub last_run: Tick,
    /// The present of the reader; writes it makes are stamped with it.
    pub this_run: Tick,
    /// The clock's width: ticks are compared modulo `mask + 1`.
    pub(crate) mask: u32,
}

impl Ticks {
    /// Whether `tick` is newer than `last_run`, as seen from `this_run`: its age
    /// (`this_run - tick`, wrapping) is below the age of `last_run`, which is capped at the
    /// maximum age. O(1).
    #[inline(always)]
    pub fn is_newer(&self, tick: Tick) -> bool {
        let age = self.this_run.0.wrapping_sub(tick.0) & self.mask;
        let since = (self.this_run.0.wrapping_sub(self.last_run.0) & self.mask).min(max_age(self.mask));
        age < since
    }

    /// The window with its span worked out once, for loops that test many ticks.
    #[inline]
    pub fn window(&self) -> TickWindow {
        let since = (self.this_run.0.wrapping_sub(self.last_run.0) & self.mask).min(max_age(self.mask));
        TickWindow { this_run: self.this_run.0, mask: self.mask, since }
    }
}

/// A [`Ticks`] window prepared for many tests: [`TickWindow::is_newer`] is a subtraction, a mask
/// and a compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TickWindow {
    this_run: u32,
    mask: u32,
    /// The age of `last_run` from `this_run`, capped at the maximum age.
    since: u32,
}

impl TickWindow {
    /// As [`Ticks::is_newer`]. O(1).
    #[inline(always)]
    pub fn is_newer(&self, tick: Tick) -> bool {
        (self.this_run.wrapping_sub(tick.0) & self.mask) < self.since
    }
}

/// Ticks older than this (in clock steps) are clamped to it by the periodic check.
#[inline(always)]
pub(crate) const fn max_age(mask: u32) -> u32 {
    mask - 2 * check_interval(mask) + 1
}

/// The clock runs the periodic check at least this often (in clock steps): an eighth of its
/// period, so no stored tick can age past the period between two checks.
#[inline(always)]
pub(crate) const fn check_interval(mask: u32) -> u32 {
    (mask >> 3) + 1
}

/// A world's change clock, shared with its pools' change trackers so that writes made through
/// `&mut World` are stamped with the present without passing it down.
///
/// Shape: the present tick (atomic, so systems running on several threads can each take a tick
/// through `&World`), the tick of the last `clear_trackers`, and the tick of the last check.
#[derive(Debug)]
pub struct Clock {
    now: AtomicU32,
    last_clear: AtomicU32,
    last_check: AtomicU32,
    mask: u32,
}

impl Clock {
    /// A clock of `bits` bits (32 for every world; fewer only in tests of wraparound), at 1.
    ///
    /// # Panics
    /// If `bits` is not in `4..=32`.
    #[track_caller]
    pub fn new(bits: u32) -> Self {
        assert!((4..=32).contains(&bits), "a change clock has 4 to 32 bits, not {bits}");
        let mask = if bits == 32 { u32::MAX } else { (1 << bits) - 1 };
        Self { now: AtomicU32::new(1), last_clear: AtomicU32::new(0), last_check: AtomicU32::new(1), mask }
    }

    /// The present tick: what writes through `&mut World` are stamped with.
    #[inline]
    pub fn now(&self) -> Tick {
        Tick(self.now.load(Ordering::Relaxed) & self.mask)
    }

    /// Takes the present tick for a system run and advances the clock by one step.
    #[inline]
    pub fn advance(&self) -> Tick {
        Tick(self.now.fetch_add(1, Ordering::Relaxed) & self.mask)
    }

    /// [`Clock::advance`] for a caller that holds its world exclusively (`&mut World`), so no
    /// other thread advances this clock meanwhile: a load and a store instead of an atomic
    /// read-modify-write (what one observer trigger pays). Were another thread to advance the
    /// clock concurrently, one step could be lost (a repeated tick), never undefined behaviour.
    #[inline]
    pub fn advance_exclusive(&self) -> Tick {
        let now = self.now.load(Ordering::Relaxed);
        self.now.store(now.wrapping_add(1), Ordering::Relaxed);
        Tick(now & self.mask)
    }

    /// Sets the present (for `clear_trackers`, which holds the world exclusively).
    pub(crate) fn set_now(&self, tick: Tick) {
        self.now.store(tick.0 & self.mask, Ordering::Relaxed);
    }

    /// The tick of the last `clear_trackers`.
    #[inline]
    pub fn last_clear(&self) -> Tick {
        Tick(self.last_clear.load(Ordering::Relaxed))
    }

    /// Records a `clear_trackers` at `tick`.
    pub(crate) fn set_last_clear(&self, tick: Tick) {
        self.last_clear.store(tick.0 & self.mask, Ordering::Relaxed);
    }

    /// The window of world-level readers: since the last `clear_trackers`, up to now.
    #[inline]
    pub fn world_ticks(&self) -> Ticks {
        self.ticks(self.last_clear(), self.now())
    }

    /// The window from `last_run` to `this_run` on this clock.
    #[inline]
    pub fn ticks(&self, last_run: Tick, this_run: Tick) -> Ticks {
        Ticks { last_run, this_run, mask: self.mask }
    }

    /// The oldest tick a reader can still tell apart from the present: `now - max age`. New
    /// systems start with it as their `last_run`, so their first run sees every change kept.
    pub fn oldest(&self) -> Tick {
        Tick(self.now().0.wrapping_sub(max_age(self.mask)) & self.mask)
    }

    /// Whether the periodic check is due (the clock has moved a check interval since the last).
    pub fn check_due(&self) -> bool {
        let since = self.now().0.wrapping_sub(self.last_check.load(Ordering::Relaxed)) & self.mask;
        since >= check_interval(self.mask)
    }

    /// Records that the check ran now.
    pub(crate) fn checked(&self) {
        self.last_check.store(self.now().0, Ordering::Relaxed);
    }

    /// `tick` clamped so that its age is at most the maximum age (the periodic check's rule).
    #[inline]
    pub fn clamp(&self, tick: Tick) -> Tick {
        let now = self.now().0;
        let age = now.wrapping_sub(tick.0) & self.mask;
        if age > max_age(self.mask) { self.oldest() } else { tick }
    }

    /// Whether `tick` is older than the maximum age.
    #[inline]
    pub fn too_old(&self, tick: Tick) -> bool {
        (self.now().0.wrapping_sub(tick.0) & self.mask) > max_age(self.mask)
    }

    /// The clock's width mask.
    #[inline]
    pub fn mask(&self) -> u32 {
        self.mask
    }

    /// The clock's state: the present, the last `clear_trackers` and the last periodic check,
    /// for rollback images.
    pub fn state(&self) -> [u32; 3] {
        [
            self.now.load(Ordering::Relaxed),
            self.last_clear.load(Ordering::Relaxed),
            self.last_check.load(Ordering::Relaxed),
        ]
    }

    /// Puts a state saved by [`Clock::state`] back (the world is held exclusively meanwhile).
    #[cfg(feature = "rollback")]
    pub(crate) fn set_state(&self, [now, last_clear, last_check]: [u32; 3]) {
        self.now.store(now & self.mask, Ordering::Relaxed);
        self.last_clear.store(last_clear & self.mask, Ordering::Relaxed);
        self.last_check.store(last_check & self.mask, Ordering::Relaxed);
    }
}

/// The tick a change reader last read at (a system's last run, a removal reader's cursor), shared
/// between the reader, which reads and moves it through a shared borrow while it runs, and the
/// world, which saves and restores every live one with a rollback frame and clamps them in the
/// periodic wraparound check.
///
/// Shape: a slot number, unique in its world and never reused (what an image keys the value
/// by), and the tick, or none before the reader's first read.
#[derive(Debug)]
pub struct ReaderTick {
    slot: u64,
    /// The tick, or [`ReaderTick::NEVER`].
    value: AtomicU64,
}

impl ReaderTick {
    /// The stored value of a reader that has not read yet.
    const NEVER: u64 = u64::MAX;

    /// A reader tick with slot `slot`, holding `tick` (`None`: not read yet).
    pub fn new(slot: u64, tick: Option<Tick>) -> Self {
        Self { slot, value: AtomicU64::new(Self::encode(tick)) }
    }

    fn encode(tick: Option<Tick>) -> u64 {
        tick.map_or(Self::NEVER, |t| u64::from(t.get()))
    }

    /// The slot number.
    #[inline]
    pub fn slot(&self) -> u64 {
        self.slot
    }

    /// The tick last read at, or `None` before the first read.
    #[inline]
    pub fn get(&self) -> Option<Tick> {
        match self.value.load(Ordering::Relaxed) {
            Self::NEVER => None,
            value => Some(Tick(value as u32)),
        }
    }

    /// Records a read at `tick` (`None`: as if never read).
    #[inline]
    pub fn set(&self, tick: Option<Tick>) {
        self.value.store(Self::encode(tick), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_wraps_with_the_clock() {
        let clock = Clock::new(8);
        let t = |v| Tick::new(v);
        // 250 -> 5 crosses the 8-bit wrap: 253 is newer than 250 as seen from 5.
        let ticks = clock.ticks(t(250), t(5));
        assert!(ticks.is_newer(t(253)));
        assert!(ticks.is_newer(t(5)));
        assert!(!ticks.is_newer(t(250)));
        assert!(!ticks.is_newer(t(200)));
        // A reader older than the maximum age sees ticks up to that age.
        let old = clock.ticks(t(6), t(5)); // last_run 255 steps ago
        assert!(old.is_newer(t(5u32.wrapping_sub(max_age(255) - 1) & 255)));
        assert!(!old.is_newer(t(5u32.wrapping_sub(max_age(255)) & 255)));
    }

    #[test]
    fn advance_takes_the_present() {
        let clock = Clock::new(4);
        for expected in 1..16 {
            assert_eq!(clock.advance(), Tick::new(expected));
        }
        assert_eq!(clock.advance(), Tick::new(0), "wraps at 4 bits");
        assert_eq!(clock.now(), Tick::new(1));
    }
}
