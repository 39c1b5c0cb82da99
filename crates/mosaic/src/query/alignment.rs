//! How a fetched pool lines up with the pool a query walks, remembered between queries.
//!
//! A query reads the rows it walks by index, with no lookup, as far as each other fetched pool
//! holds the same entities in the same order ([`SparseSet::aligned_with`], a scan). Pools change
//! rarely compared with how often they are iterated, so the answer is remembered per pair of
//! pools and their structural versions ([`SparseSet::uid`], [`SparseSet::version`]): O(1) while
//! neither pool changed, else one scan. The cache is the query layer's, one small table per
//! thread (no lock, no contention between systems on different threads); uids are unique in the
//! process, so an entry can never answer for another world's pool.

use std::cell::RefCell;

use crate::storage::{IndexOrder, SparseSet};

/// Entries per thread. Direct-mapped by the pair of pools.
const ENTRIES: usize = 64;

/// One remembered alignment: pool `uid` at `version` against driver `driver_uid` at
/// `driver_version` lines up from row `offset` for `len` rows.
#[derive(Clone, Copy, Default)]
struct Entry {
    uid: u64,
    version: u64,
    driver_uid: u64,
    driver_version: u64,
    offset: usize,
    len: usize,
}

/// One remembered [`IndexOrder`]: of pool `uid` at `version`.
#[derive(Clone, Copy, Default)]
struct OrderEntry {
    uid: u64,
    version: u64,
    order: IndexOrder,
}

thread_local! {
    static CACHE: RefCell<[Entry; ENTRIES]> = RefCell::new([Entry::default(); ENTRIES]);
    static ORDERS: RefCell<[OrderEntry; ENTRIES]> = RefCell::new([OrderEntry::default(); ENTRIES]);
}

/// `pool.index_order()`, remembered per pool version as alignments are. O(1) while the pool
/// has not changed structurally since this thread last asked, else O(n) (a scan).
pub(crate) fn index_order(pool: &SparseSet) -> IndexOrder {
    // Pool uids start at 1, so a default (zero) entry never matches.
    let slot = pool.uid() as usize % ENTRIES;
    let hit = ORDERS.with_borrow(|cache| {
        let e = cache[slot];
        (e.uid == pool.uid() && e.version == pool.version()).then_some(e.order)
    });
    if let Some(order) = hit {
        return order;
    }
    let order = pool.index_order();
    ORDERS.with_borrow_mut(|cache| {
        cache[slot] = OrderEntry { uid: pool.uid(), version: pool.version(), order }
    });
    order
}

/// `pool.aligned_with(driver.entities())`, remembered per pair of pool versions: `(offset, len)`
/// such that for every `r < len`, `pool.entities()[offset + r] == driver.entities()[r]`. O(1)
/// while neither pool has changed structurally since this thread last asked, else O(len + 1).
#[cfg(any(feature = "transform", test))]
pub(crate) fn aligned(pool: &SparseSet, driver: &SparseSet) -> (usize, usize) {
    aligned_from(pool, driver, 0)
}

/// [`aligned`] when the first `known` rows of both pools are known to hold the same entities
/// (both owned by one owning group of `known` members): only the rows after them are scanned,
/// O(1) on a hit, else O(len - known + 1). The answer is the same as [`aligned`]'s.
pub(crate) fn aligned_from(pool: &SparseSet, driver: &SparseSet, known: usize) -> (usize, usize) {
    // Pool uids start at 1, so a default (zero) entry never matches.
    let slot = (pool.uid().wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ driver.uid()) as usize % ENTRIES;
    let hit = CACHE.with_borrow(|cache| {
        let e = cache[slot];
        (e.uid == pool.uid()
            && e.version == pool.version()
            && e.driver_uid == driver.uid()
            && e.driver_version == driver.version())
        .then_some((e.offset, e.len))
    });
    if let Some(hit) = hit {
        return hit;
    }
    let (offset, len) = pool.aligned_with_from(driver.entities(), known);
    CACHE.with_borrow_mut(|cache| {
        cache[slot] = Entry {
            uid: pool.uid(),
            version: pool.version(),
            driver_uid: driver.uid(),
            driver_version: driver.version(),
            offset,
            len,
        };
    });
    (offset, len)
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroU32;

    use super::aligned;
    use crate::entity::Entity;
    use crate::storage::{SparseSet, StorageInfo};

    fn entity(index: u32) -> Entity {
        Entity::new(index, NonZeroU32::MIN, 1)
    }

    #[test]
    fn the_cached_answer_follows_every_change() {
        let mut a = SparseSet::new(StorageInfo::aos::<u8>());
        let mut b = SparseSet::new(StorageInfo::aos::<u8>());
        for i in 0..100 {
            a.insert(entity(i), 0u8);
        }
        for i in 40..100 {
            b.insert(entity(i), 0u8);
        }
        assert_eq!(aligned(&a, &b), (40, 60));
        assert_eq!(aligned(&a, &b), (40, 60), "the cached answer");
        b.remove::<u8>(entity(70));
        assert_eq!(aligned(&a, &b), a.aligned_with(b.entities()), "after a change of the driver");
        a.swap_rows(50, 51);
        assert_eq!(aligned(&a, &b), a.aligned_with(b.entities()), "after a swap in the pool");
        a.clear();
        assert_eq!(aligned(&a, &b), (0, 0));
        // Another pair in another slot does not disturb this one.
        let c = SparseSet::new(StorageInfo::aos::<u8>());
        assert_eq!(aligned(&b, &c), (0, 0));
        assert_eq!(aligned(&a, &b), (0, 0));
    }
}
