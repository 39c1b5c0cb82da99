//! Helpers of the benchmark binaries that time interleaved rounds themselves (`compose`,
//! `commands`).

use std::time::Duration;

/// The median of `samples` (sorts them). Panics if `samples` is empty.
pub fn median(samples: &mut [Duration]) -> Duration {
    samples.sort_unstable();
    samples[samples.len() / 2]
}

/// The value after flag `name` on the command line, if any.
pub fn arg(name: &str) -> Option<String> {
    std::env::args().skip_while(|a| a != name).nth(1)
}
