//! Cache prefetch hints, for loops that know which random rows they touch next (a batch of
//! despawns): asking for the lines early lets their misses overlap instead of queueing one after
//! another. A hint only: it never faults, never changes a value, and on targets without an
//! instruction for it does nothing.

/// Asks the CPU to bring the cache line at `address` into its caches.
#[inline(always)]
pub(crate) fn prefetch_ptr(address: *const u8) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: a prefetch is a hint that never faults and reads nothing Rust can observe, whatever
    // the address; SSE (which provides it) is part of the x86_64 baseline.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(address.cast())
    };
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = address;
}

/// Asks the CPU to bring the cache line holding `value` into its caches.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    prefetch_ptr(std::ptr::from_ref(value).cast());
}
