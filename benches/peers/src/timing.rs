//! Interleaved timing: every library of a workload takes one sample per round, in an order that
//! rotates each round, so slow drift on a shared machine spreads over all of them; the figure kept
//! is the median of the per-run times of the samples.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use crate::library::Bench;

/// How long and how often to measure.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Aim for samples this long (runs per sample are calibrated to it, at least one).
    pub sample: Duration,
    /// Rounds to take at least, whatever the budget.
    pub min_rounds: usize,
    /// Rounds to take at most.
    pub max_rounds: usize,
    /// Stop starting new rounds once a group has run this long (after `min_rounds`).
    pub budget: Duration,
}

impl Config {
    /// The full run: 10 ms samples, 21 to 101 rounds, 20 s per group.
    pub const FULL: Config = Config {
        sample: Duration::from_millis(10),
        min_rounds: 21,
        max_rounds: 101,
        budget: Duration::from_secs(20),
    };
    /// `--quick`: 1 ms samples, 3 to 7 rounds, 0.6 s per group.
    pub const QUICK: Config = Config {
        sample: Duration::from_millis(1),
        min_rounds: 3,
        max_rounds: 7,
        budget: Duration::from_millis(600),
    };
    /// The scaling grid: 36 cells, some of 10^6 entities, so fewer rounds and a quarter of the
    /// budget per cell.
    pub fn scaled(self) -> Config {
        Config {
            sample: self.sample,
            min_rounds: (self.min_rounds / 2).clamp(3, 9),
            max_rounds: self.max_rounds.min(31),
            budget: self.budget / 4,
        }
    }
}

/// One contender in a group: a label and its prepared bench.
pub struct Entry {
    /// The library's row label.
    pub label: String,
    bench: Option<Box<dyn Bench>>,
    iters: usize,
    /// Per-run times of each sample, in nanoseconds.
    pub samples: Vec<f64>,
    /// The panic message, if the library panicked (its samples stop there).
    pub failure: Option<String>,
}

impl Entry {
    /// A contender, ready to be measured.
    pub fn new(label: impl Into<String>, bench: Box<dyn Bench>) -> Entry {
        Entry { label: label.into(), bench: Some(bench), iters: 1, samples: Vec::new(), failure: None }
    }

    /// The median per-run time in nanoseconds, if any sample was taken.
    pub fn median(&self) -> Option<f64> {
        median(&self.samples)
    }

    /// Runs are per sample after calibration.
    pub fn iters(&self) -> usize {
        self.iters
    }

    /// One sample of `iters` runs; returns its wall time. A panic marks the entry failed.
    fn sample(&mut self, iters: usize) -> Option<Duration> {
        let bench = self.bench.as_mut()?;
        let result = catch_unwind(AssertUnwindSafe(|| {
            bench.prepare(iters);
            let start = Instant::now();
            for _ in 0..iters {
                bench.run();
            }
            let elapsed = start.elapsed();
            bench.settle();
            elapsed
        }));
        match result {
            Ok(elapsed) => Some(elapsed),
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "panicked".to_string());
                self.failure = Some(message);
                self.bench = None;
                None
            }
        }
    }

    /// Warms up (a few runs, at least 20 ms or 3 runs) and picks the runs per sample.
    fn calibrate(&mut self, config: &Config) {
        let start = Instant::now();
        let mut runs = 0u32;
        let mut fastest = Duration::MAX;
        while runs < 3 || (start.elapsed() < Duration::from_millis(20) && runs < 50) {
            match self.sample(1) {
                Some(t) => fastest = fastest.min(t),
                None => return,
            }
            runs += 1;
        }
        let per_run = fastest.as_secs_f64().max(1e-9);
        self.iters = ((config.sample.as_secs_f64() / per_run).ceil() as usize).clamp(1, 1_000_000);
    }
}

/// The median of `values` (the mean of the middle two for an even count); `None` when empty.
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    Some(if sorted.len() % 2 == 1 { sorted[mid] } else { (sorted[mid - 1] + sorted[mid]) / 2.0 })
}

/// Measures a group: calibrates each entry, then takes rounds of one sample per entry, rotating
/// the order each round, until `max_rounds` or the budget (after `min_rounds`).
pub fn measure(entries: &mut [Entry], config: &Config) {
    for entry in entries.iter_mut() {
        entry.calibrate(config);
    }
    let start = Instant::now();
    let n = entries.len();
    for round in 0..config.max_rounds {
        if round >= config.min_rounds && start.elapsed() > config.budget {
            break;
        }
        for k in 0..n {
            let entry = &mut entries[(k + round) % n];
            let iters = entry.iters;
            if let Some(t) = entry.sample(iters) {
                entry.samples.push(t.as_secs_f64() * 1e9 / iters as f64);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }

    #[test]
    fn measure_takes_rounds_and_survives_a_panic() {
        let mut entries = vec![
            Entry::new("counts", crate::library::repeat(0u64, |n| *n += 1)),
            Entry::new("panics", crate::library::repeat((), |_| panic!("boom"))),
        ];
        let config = Config {
            sample: Duration::from_micros(50),
            min_rounds: 3,
            max_rounds: 3,
            budget: Duration::ZERO,
        };
        measure(&mut entries, &config);
        assert_eq!(entries[0].samples.len(), 3);
        assert!(entries[0].median().is_some());
        assert_eq!(entries[1].failure.as_deref(), Some("boom"));
        assert!(entries[1].samples.is_empty());
    }
}
