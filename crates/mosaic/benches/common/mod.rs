//! Helpers of the benchmark binaries that time interleaved rounds themselves (`compose`,
//! `commands`, `resort`, `buffered`).

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

/// A xorshift generator (Marsaglia's 13/7/17 triple): the same random choices for every way a
/// benchmark times.
#[allow(dead_code, reason = "used by the benchmarks that make random changes, not by every one")]
pub struct Rng(pub u64);

#[allow(dead_code, reason = "used by the benchmarks that make random changes, not by every one")]
impl Rng {
    /// A number below `n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}
