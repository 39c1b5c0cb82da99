//! Unit tests of the change tracker: a bounded log, and a model-based property test.

use std::num::NonZeroU32;
use std::sync::Arc;

use super::super::{SparseSet, StorageInfo};
use super::*;

fn entity(index: u32) -> Entity {
    Entity::new(index, NonZeroU32::new(1).unwrap(), 1)
}

#[test]
fn log_stays_bounded_and_lists_each_entity_once() {
    let clock = Arc::new(Clock::new(32));
    let mut pool = SparseSet::new(StorageInfo::aos::<u32>());
    pool.track_changes(&clock);
    for i in 0..100 {
        pool.insert(entity(i), i);
    }
    let start = clock.now();
    for round in 0..50u32 {
        clock.advance();
        for i in (round % 7..100).step_by(3) {
            pool.mark_changed(entity(i));
        }
        // Swaps and removals move rows; the log follows entities.
        pool.swap_rows((round % 100) as usize, 99 - (round % 100) as usize);
        assert!(pool.changes().unwrap().log_len() <= 2 * pool.len() + 64 + 1);
    }
    pool.remove::<u32>(entity(5));
    pool.assert_invariants();
    let mut out = Vec::new();
    let changes = pool.changes().unwrap();
    changes.changed_since(clock.ticks(start, clock.now()), pool.lookup(), &mut out);
    let mut sorted = out.clone();
    sorted.sort_by_key(|e| e.index());
    sorted.dedup();
    assert_eq!(sorted.len(), out.len(), "each entity once");
    assert_eq!(out.len(), 99, "every entity but the removed one changed since `start`");
    assert_eq!(changes.removed_since(clock.ticks(start, clock.now())).len(), 1);
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u32),
    Remove(u32),
    Swap(usize, usize),
    /// A write through `&mut` (`World::get_mut`): logged at once.
    MarkMut(u32),
    /// A write by a query: stamped, drained into the log by the next reader or row move.
    Stamp(u32),
    Advance,
    Read,
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    prop_oneof![
        3 => (0u32..24).prop_map(Op::Insert),
        2 => (0u32..24).prop_map(Op::Remove),
        2 => (0usize..24, 0usize..24).prop_map(|(a, b)| Op::Swap(a, b)),
        2 => (0u32..24).prop_map(Op::MarkMut),
        3 => (0u32..24).prop_map(Op::Stamp),
        2 => Just(Op::Advance),
        2 => Just(Op::Read),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 256 }))]

    /// Entries stay exact through inserts, removals, swaps, `&mut` writes and query stamps,
    /// and a reader sees exactly the entities whose latest change is in its window, once
    /// each.
    #[test]
    fn the_log_follows_rows_and_readers_see_each_latest_change_once(
        ops in proptest::collection::vec(op(), 1..if cfg!(miri) { 24 } else { 120 })
    ) {
        let clock = Arc::new(Clock::new(32));
        let mut pool = SparseSet::new(StorageInfo::aos::<u32>());
        pool.track_changes(&clock);
        let mut model: std::collections::BTreeMap<u32, u32> = Default::default();
        let mut last_read = clock.now();
        for op in ops {
            let now = clock.now();
            match op {
                Op::Insert(i) => {
                    pool.insert(entity(i), i);
                    model.insert(i, now.get());
                }
                Op::Remove(i) => {
                    assert_eq!(pool.remove::<u32>(entity(i)).is_some(), model.remove(&i).is_some());
                }
                Op::Swap(a, b) => {
                    if a < pool.len() && b < pool.len() {
                        pool.swap_rows(a, b);
                    }
                }
                Op::MarkMut(i) => {
                    pool.mark_changed(entity(i));
                    if let Some(tick) = model.get_mut(&i) {
                        *tick = now.get();
                    }
                }
                Op::Stamp(i) => {
                    if let Some(row) = pool.lookup().row_of(entity(i)) {
                        let marker = pool.changes().unwrap().marker(now);
                        // SAFETY: `row` is a row of the pool, and nothing else touches it
                        // while this single-threaded test stamps it.
                        unsafe { marker.mark(row) };
                        model.insert(i, now.get());
                    }
                }
                Op::Advance => {
                    clock.advance();
                }
                Op::Read => {
                    let ticks = clock.ticks(last_read, now);
                    let mut seen = Vec::new();
                    pool.changes().unwrap().changed_since(ticks, pool.lookup(), &mut seen);
                    let mut seen: Vec<u32> = seen.iter().map(|e| e.index()).collect();
                    let count = seen.len();
                    seen.sort();
                    seen.dedup();
                    assert_eq!(seen.len(), count, "each entity once");
                    let expected: Vec<u32> =
                        model.iter().filter(|&(_, &t)| ticks.is_newer(Tick::new(t))).map(|(&i, _)| i).collect();
                    assert_eq!(seen, expected);
                    last_read = now;
                }
            }
            pool.assert_invariants();
        }
    }
}
