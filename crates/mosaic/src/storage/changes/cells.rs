//! The per-row state of a change tracker: each row's changed tick and change-log slot, each
//! field's changed tick (struct-of-arrays components), and the pending flags queries set.

use std::cell::UnsafeCell;
use std::sync::atomic::AtomicU8;

/// Per row, the changed tick and the change-log slot (the index of the row's live entry), side by
/// side. A query may write them through a shared borrow of the pool, one row per thread. Readers
/// walking the log do not read them: a live entry carries its row and tick.
#[derive(Debug, Default)]
pub(super) struct RowCells(pub(super) Vec<RowCell>);

#[derive(Debug)]
pub(super) struct RowCell {
    pub(super) changed: UnsafeCell<u32>,
    pub(super) slot: UnsafeCell<u32>,
}

// SAFETY: a `changed` cell is written through `&RowCells` only by `ChangeMarker::mark` (its own
// row, which the marker's caller holds exclusively), and a `slot` cell only by `drain` and
// `compact`, which hold the log exclusively (its mutex, or `&mut` to the tracker) while no query
// stamps rows; `mark` never touches slots (distinct memory locations, so the two never race).
// Every other write needs `&mut RowCells`. Reads through `&RowCells` happen on the thread that
// holds the row (filters and marks of the same query item), while holding the log, or by a
// reader holding read access to the component, when no marker can run (the scheduler's access
// rules). So no two threads touch one cell unsynchronised.
unsafe impl Sync for RowCells {}

impl RowCells {
    #[inline(always)]
    pub(super) fn changed(&self, row: usize) -> u32 {
        // SAFETY: see the `Sync` argument: no write to this cell races with this read.
        unsafe { *self.0[row].changed.get() }
    }
    #[inline(always)]
    pub(super) fn slot(&self, row: usize) -> u32 {
        // SAFETY: as above.
        unsafe { *self.0[row].slot.get() }
    }
    #[inline]
    pub(super) fn set_changed_mut(&mut self, row: usize, value: u32) {
        *self.0[row].changed.get_mut() = value;
    }
    #[inline]
    pub(super) fn set_slot_mut(&mut self, row: usize, value: u32) {
        *self.0[row].slot.get_mut() = value;
    }
    /// Writes row `row`'s slot through a shared borrow.
    ///
    /// # Safety
    /// The caller holds the change log's mutex (slots are written only under it).
    #[inline]
    pub(super) unsafe fn set_slot(&self, row: usize, value: u32) {
        // SAFETY: slot cells are written only under the log's mutex, which the caller holds, and
        // read elsewhere only when no writer can run (see `Sync`).
        unsafe { *self.0[row].slot.get() = value };
    }
    #[inline]
    pub(super) fn push(&mut self, changed: u32, slot: u32) {
        self.0.push(RowCell { changed: UnsafeCell::new(changed), slot: UnsafeCell::new(slot) });
    }
}

/// Per row and per field of a struct-of-arrays component, the tick the field last changed at:
/// `stride` cells per row, row-major, so one row's fields share a cache line. Empty (`stride`
/// 0) for array-of-structs pools. Written through a shared borrow only by the holder of the row
/// (see `ChangeMarker`), like `RowCell::changed`.
//
// Invariant: `ticks.len() == stride * rows` of the tracker.
#[derive(Debug, Default)]
pub(super) struct FieldCells {
    pub(super) stride: usize,
    pub(super) ticks: Vec<UnsafeCell<u32>>,
}

// SAFETY: as for `RowCells`: a cell is written through `&FieldCells` only by
// `ChangeMarker::mark` / `mark_field` for a row the marker's caller holds exclusively, and read
// through it only by that holder or by readers with read access to the component, when no
// marker can run. Every other write needs `&mut FieldCells`.
unsafe impl Sync for FieldCells {}

impl FieldCells {
    pub(super) fn new(stride: usize, rows: usize, now: u32) -> Self {
        Self { stride, ticks: (0..stride * rows).map(|_| UnsafeCell::new(now)).collect() }
    }
    #[inline(always)]
    pub(super) fn get(&self, row: usize, field: usize) -> u32 {
        debug_assert!(field < self.stride, "field {field} of {}", self.stride);
        // SAFETY: see the `Sync` argument: no write to this cell races with this read.
        unsafe { *self.ticks[row * self.stride + field].get() }
    }
    /// Writes one field's tick through a shared borrow.
    ///
    /// # Safety
    /// The caller holds row `row` exclusively (no other access to its cells runs meanwhile).
    #[inline(always)]
    pub(super) unsafe fn set(&self, row: usize, field: usize, tick: u32) {
        debug_assert!(field < self.stride, "field {field} of {}", self.stride);
        // SAFETY: the caller holds the row, so no other access to the cell runs.
        unsafe { *self.ticks[row * self.stride + field].get() = tick };
    }
    // Array-of-structs pools keep no field ticks (`stride` 0): the methods below return at once
    // for them, so the hot paths of tracked array-of-structs pools pay one compare, not a slice
    // computation (about 10 instructions on every tracked insert and `get_mut`).

    /// Writes every field's tick of row `row` through a shared borrow.
    ///
    /// # Safety
    /// As [`FieldCells::set`].
    #[inline(always)]
    pub(super) unsafe fn set_row(&self, row: usize, tick: u32) {
        if self.stride == 0 {
            return;
        }
        for cell in &self.ticks[row * self.stride..(row + 1) * self.stride] {
            // SAFETY: the caller holds the row, so no other access to its cells runs.
            unsafe { *cell.get() = tick };
        }
    }
    #[inline]
    pub(super) fn set_row_mut(&mut self, row: usize, tick: u32) {
        if self.stride == 0 {
            return;
        }
        for cell in &mut self.ticks[row * self.stride..(row + 1) * self.stride] {
            *cell.get_mut() = tick;
        }
    }
    /// Every field tick, row by row.
    #[cfg(feature = "rollback")]
    pub(super) fn values(&self) -> impl Iterator<Item = u32> + '_ {
        // SAFETY: see the `Sync` argument: no write to these cells races with these reads.
        self.ticks.iter().map(|cell| unsafe { *cell.get() })
    }
    #[inline]
    pub(super) fn push(&mut self, tick: u32) {
        if self.stride != 0 {
            self.ticks.extend((0..self.stride).map(|_| UnsafeCell::new(tick)));
        }
    }
    #[inline]
    pub(super) fn swap_remove(&mut self, row: usize) {
        if self.stride == 0 {
            return;
        }
        let last = self.ticks.len() / self.stride - 1;
        for field in 0..self.stride {
            self.ticks.swap(row * self.stride + field, last * self.stride + field);
        }
        self.ticks.truncate(last * self.stride);
    }
    #[inline]
    pub(super) fn swap(&mut self, a: usize, b: usize) {
        for field in 0..self.stride {
            self.ticks.swap(a * self.stride + field, b * self.stride + field);
        }
    }
    pub(super) fn reset(&mut self, rows: usize, tick: u32) {
        self.ticks.clear();
        self.ticks.extend((0..self.stride * rows).map(|_| UnsafeCell::new(tick)));
    }
}

/// Rows stamped by queries and not yet in the change log: a flag byte per row and per block of
/// 64 rows (atomics written with plain stores; drained with swaps under the log's lock).
#[derive(Debug, Default)]
pub(super) struct Pending {
    pub(super) rows: Vec<AtomicU8>,
    pub(super) blocks: Vec<AtomicU8>,
}

impl Pending {
    pub(super) fn new(rows: usize) -> Self {
        let mut pending = Self::default();
        pending.resize(rows);
        pending
    }

    /// Sets the row count (flags of new rows clear; the pool settles before rows go away).
    #[inline]
    pub(super) fn resize(&mut self, rows: usize) {
        self.rows.resize_with(rows, || AtomicU8::new(0));
        self.blocks.resize_with(rows.div_ceil(64), || AtomicU8::new(0));
    }
}
