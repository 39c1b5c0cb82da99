//! Unit tests of [`Column`](super::Column).

use super::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counted(Arc<AtomicUsize>);
impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Relaxed);
    }
}

/// A swap-remove of a type with no drop copies the last row over the removed one; values
/// holding references must come out usable (Miri checks their provenance survived), for
/// each inline size and the `memcpy` fallback.
#[test]
fn swap_remove_of_pointer_holding_rows_keeps_them_valid() {
    fn check<T: Copy + PartialEq + std::fmt::Debug + Send + Sync + 'static>(values: [T; 4]) {
        assert!(!std::mem::needs_drop::<T>());
        let mut column = Column::new(ColumnInfo::of::<T>());
        for value in values {
            column.push(value);
        }
        column.swap_remove_and_drop(0); // the last row moves to row 0
        assert_eq!(column.as_slice::<T>(), [values[3], values[1], values[2]]);
    }
    static WORDS: [u32; 4] = [10, 20, 30, 40];
    check::<&u32>([&WORDS[0], &WORDS[1], &WORDS[2], &WORDS[3]]); // 8 bytes
    check::<&str>(["a", "bb", "ccc", "dddd"]); // 16 bytes
    check::<(&u32, u32)>([(&WORDS[0], 1), (&WORDS[1], 2), (&WORDS[2], 3), (&WORDS[3], 4)]); // 16
    check::<[&u32; 3]>([[&WORDS[0]; 3], [&WORDS[1]; 3], [&WORDS[2]; 3], [&WORDS[3]; 3]]); // 24
    check::<u32>([1, 2, 3, 4]); // 4
    check::<[u32; 3]>([[1; 3], [2; 3], [3; 3], [4; 3]]); // 12
    // Each value's references still read.
    let mut column = Column::new(ColumnInfo::of::<&str>());
    column.push("first");
    column.push("last");
    column.swap_remove_and_drop(0);
    assert_eq!(column.get::<&str>(0).map(|s| s.len()), Some(4));
}

#[test]
fn push_get_swap_remove() {
    let mut column = Column::new(ColumnInfo::of::<u64>());
    for i in 0..100u64 {
        column.push(i);
    }
    assert_eq!(column.swap_remove::<u64>(3), 3);
    assert_eq!(column.get::<u64>(3), Some(&99));
    assert_eq!(column.len(), 99);
    column.swap_remove_and_drop(98);
    assert_eq!(column.as_slice::<u64>().len(), 98);
    column.shrink_to_fit();
    assert_eq!(column.capacity(), 98);
    assert_eq!(column.as_slice::<u64>()[..3], [0, 1, 2]);
}

#[test]
fn drops_each_value_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    {
        let mut column = Column::new(ColumnInfo::of::<Counted>());
        for _ in 0..10 {
            column.push(Counted(drops.clone()));
        }
        column.swap_remove_and_drop(0);
        assert_eq!(drops.load(Relaxed), 1);
        let taken = column.swap_remove::<Counted>(0);
        assert_eq!(drops.load(Relaxed), 1);
        drop(taken);
        assert_eq!(drops.load(Relaxed), 2);
        let old = column.replace(0, Counted(drops.clone()));
        drop(old);
        assert_eq!(drops.load(Relaxed), 3);
    }
    // 8 values remained in the column when it dropped.
    assert_eq!(drops.load(Relaxed), 11);
}

#[test]
fn zero_sized_and_over_aligned() {
    #[repr(align(4096))]
    struct Page(#[allow(dead_code)] u8);
    #[repr(align(64))]
    struct Marker;

    let mut zst = Column::new(ColumnInfo::of::<Marker>());
    for _ in 0..1000 {
        zst.push(Marker);
    }
    assert_eq!(zst.typed_ptr::<Marker>().as_ptr() as usize % 64, 0);
    zst.swap_remove_and_drop(5);
    assert_eq!(zst.len(), 999);

    let mut pages = Column::new(ColumnInfo::of::<Page>());
    for i in 0..20 {
        pages.push(Page(i));
        for row in 0..pages.len() {
            let addr = pages.get::<Page>(row).unwrap() as *const Page as usize;
            assert_eq!(addr % 4096, 0);
        }
    }
    pages.shrink_to_fit();
    assert_eq!(pages.get::<Page>(19).unwrap().0, 19);
}

#[test]
#[should_panic(expected = "column holds `u32` but was accessed as `u64`")]
fn wrong_type_panics() {
    let mut column = Column::new(ColumnInfo::of::<u32>());
    column.push(1u64);
}

/// A typed view pushes, replaces and swap-removes like the checked methods, and every value is
/// dropped exactly once (Miri also checks the moves).
#[test]
fn typed_view_owns_each_value_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    let mut column = Column::new(ColumnInfo::of::<Counted>());
    {
        let mut typed = column.typed_mut::<Counted>();
        for _ in 0..5 {
            typed.push(Counted(Arc::clone(&drops)));
        }
        drop(typed.replace(1, Counted(Arc::clone(&drops))));
        assert_eq!(drops.load(Relaxed), 1);
        drop(typed.swap_remove(0)); // the last row moves to row 0
        drop(typed.swap_remove(3)); // the last row itself
        assert_eq!(drops.load(Relaxed), 3);
    }
    assert_eq!(column.len(), 3);
    drop(column);
    assert_eq!(drops.load(Relaxed), 6);
}

#[test]
#[should_panic(expected = "column holds")]
fn typed_view_of_the_wrong_type_panics() {
    let mut column = Column::new(ColumnInfo::of::<u32>());
    column.typed_mut::<u64>();
}

#[test]
#[should_panic(expected = "out of bounds")]
fn typed_swap_remove_past_the_end_panics() {
    let mut column = Column::new(ColumnInfo::of::<u32>());
    let mut typed = column.typed_mut::<u32>();
    typed.push(1);
    typed.swap_remove(1);
}
