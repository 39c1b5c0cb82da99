//! The monotonic clock the schedule and parallel queries time work with.
//!
//! `std::time::Instant::now` panics on `wasm32-unknown-unknown` (the target has no clock without
//! JavaScript), so there the clock is [web-time](https://crates.io/crates/web-time)'s, which
//! reads the browser's `performance.now()`; everywhere else it is std's.

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub(crate) use std::time::Instant;
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub(crate) use web_time::Instant;
