//! Placeholder; replaced by the criterion benches.
fn main() {}
