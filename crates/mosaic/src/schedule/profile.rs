//! The frame profiler: per system, the run times of the last N frames.

use std::fmt;
use std::time::Duration;

/// Run times of one system over a window of recent frames, kept in a ring buffer.
#[derive(Clone, Debug)]
pub(crate) struct Samples {
    times: Vec<Duration>,
    next: usize,
    runs: u64,
}

impl Samples {
    pub(crate) fn new(window: usize) -> Self {
        Self { times: Vec::with_capacity(window), next: 0, runs: 0 }
    }

    /// Records one run. Allocation-free once the window is full.
    pub(crate) fn record(&mut self, time: Duration) {
        if self.times.len() < self.times.capacity() {
            self.times.push(time);
        } else if let Some(slot) = self.times.get_mut(self.next) {
            *slot = time;
        }
        self.next = (self.next + 1) % self.times.capacity().max(1);
        self.runs += 1;
    }

    pub(crate) fn summary(&self, name: &str) -> SystemProfile {
        let mut sorted = self.times.clone();
        sorted.sort_unstable();
        SystemProfile {
            name: name.to_string(),
            median: sorted.get(sorted.len() / 2).copied().unwrap_or_default(),
            max: sorted.last().copied().unwrap_or_default(),
            runs: self.runs,
        }
    }
}

/// One system's row of a [`FrameProfile`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemProfile {
    /// The system's name.
    pub name: String,
    /// Median run time over the window.
    pub median: Duration,
    /// Longest run time over the window.
    pub max: Duration,
    /// Runs recorded since profiling began (skipped runs are not counted).
    pub runs: u64,
}

/// Per-system run times over the last N frames, in schedule order, from
/// [`Schedule::profile`](super::Schedule::profile). `Display` prints an aligned table in ms.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameProfile {
    /// One row per system, in run order.
    pub systems: Vec<SystemProfile>,
    /// The window, in frames.
    pub window: usize,
}

impl fmt::Display for FrameProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.systems.iter().map(|s| s.name.len()).max().unwrap_or(6).max(6);
        writeln!(f, "{:<width$}  {:>11}  {:>11}  {:>7}", "system", "median ms", "max ms", "runs")?;
        for s in &self.systems {
            writeln!(
                f,
                "{:<width$}  {:>11.4}  {:>11.4}  {:>7}",
                s.name,
                s.median.as_secs_f64() * 1e3,
                s.max.as_secs_f64() * 1e3,
                s.runs
            )?;
        }
        write!(f, "(last {} frames)", self.window)
    }
}
