//! Stamping rows handed out mutably: [`ChangeMarker`] and [`RowStamp`].

use std::sync::atomic::Ordering;

use super::ChangeTracker;
use crate::storage::tick::{Tick, Ticks};

/// Stamps the rows a query hands out mutably: the row's changed tick, and pending flags that the
/// next reader (or the pool, before its rows move) drains into the change log. Copy, no `Drop`,
/// no lock, no read-modify-write: three plain stores per newly stamped row.
#[derive(Clone, Copy, Debug)]
pub struct ChangeMarker<'w> {
    pub(super) tracker: &'w ChangeTracker,
    pub(super) tick: Tick,
}

impl ChangeMarker<'_> {
    /// The tick row `row` last changed at.
    #[inline(always)]
    pub fn changed(&self, row: usize) -> Tick {
        self.tracker.changed(row)
    }

    /// The tick row `row` was added at.
    #[inline(always)]
    pub fn added(&self, row: usize) -> Tick {
        self.tracker.added(row)
    }

    /// The tick field `field` of row `row` last changed at (see
    /// [`ChangeTracker::field_changed`]).
    #[inline(always)]
    pub fn field_changed(&self, row: usize, field: usize) -> Tick {
        self.tracker.field_changed(row, field)
    }

    /// Number of per-field ticks per row (see [`ChangeTracker::field_count`]).
    #[inline(always)]
    pub fn field_count(&self) -> usize {
        self.tracker.fields.stride
    }

    /// Records that row `row` is handed out mutably now: its changed tick and, for a
    /// struct-of-arrays component, every field's. O(1) (O(fields) for struct-of-arrays).
    ///
    /// # Safety
    /// - `row` is a row of the tracked pool;
    /// - the caller holds the row exclusively: no other thread reads or writes its value or
    ///   ticks while this call runs (the query's access to the component is exclusive, and each
    ///   row is handed out once per walk).
    ///
    /// Takes the marker by value (it is `Copy`), so a query's fetch, which holds it, never has
    /// its address taken here: a fetch whose address escapes is reloaded from the stack on every
    /// row of the hot loops (measured: option_iter 11.0 -> 15.8 us).
    #[inline(always)]
    pub unsafe fn mark(self, row: usize) {
        // SAFETY: the caller holds the row exclusively; then forwarded from the caller.
        unsafe {
            self.tracker.fields.set_row(row, self.tick.get());
            self.mark_row(row);
        }
    }

    /// Records that field `field` of row `row` (of a struct-of-arrays component) is written
    /// now: the field's tick and the row's changed tick, not the other fields'. O(1).
    ///
    /// # Safety
    /// As [`ChangeMarker::mark`]; and `field` is below [`ChangeMarker::field_count`] (checked:
    /// a wrong field panics out of bounds or stamps a neighbouring field of the same row).
    #[inline(always)]
    pub unsafe fn mark_field(self, row: usize, field: usize) {
        // SAFETY: the caller holds the row exclusively.
        unsafe {
            self.tracker.fields.set(row, field, self.tick.get());
            self.mark_row(row);
        }
    }

    /// Stamps the row's changed tick and pending flags (not the field ticks).
    ///
    /// # Safety
    /// As [`ChangeMarker::mark`].
    #[inline(always)]
    pub(super) unsafe fn mark_row(self, row: usize) {
        let cell = &self.tracker.cells.0[row].changed;
        // SAFETY: the caller holds the row exclusively, so no other access to this cell runs.
        unsafe {
            if *cell.get() != self.tick.get() {
                *cell.get() = self.tick.get();
                self.tracker.pending.rows[row].store(1, Ordering::Relaxed);
                self.tracker.pending.blocks[row / 64].store(1, Ordering::Relaxed);
                if !self.tracker.any_pending.load(Ordering::Relaxed) {
                    self.tracker.any_pending.store(true, Ordering::Release);
                }
            }
        }
    }
}

/// Where a change-detecting view records its writes: one row of a pool, its marker when the
/// pool is tracked, and the reader's window for `is_changed` / `is_added`. Copied into each
/// field view of a struct-of-arrays row.
///
/// Made only by [`RowStamp::new`], which is `unsafe`: marking writes the row's ticks through a
/// shared borrow of the pool, which is sound only for the row's one holder.
#[derive(Clone, Copy, Debug)]
pub struct RowStamp<'w> {
    marker: Option<ChangeMarker<'w>>,
    row: usize,
    ticks: Ticks,
}

impl<'w> RowStamp<'w> {
    /// The stamp of row `row`, recording through `marker` (`None`: the pool is not tracked),
    /// judged against the reader's `ticks`.
    ///
    /// # Safety
    /// - `row` is a row of `marker`'s pool;
    /// - for `'w`, the stamp and its copies are used only by the one holder of the row: no
    ///   other code reads or writes the row's values or ticks meanwhile, and no two copies are
    ///   used on different threads at once (views that split a row hold their copies on one
    ///   thread: they are not `Send`).
    #[inline(always)]
    pub unsafe fn new(marker: Option<ChangeMarker<'w>>, row: usize, ticks: Ticks) -> Self {
        debug_assert!(marker.is_none_or(|m| row < m.tracker.len()), "row {row} out of the pool");
        Self { marker, row, ticks }
    }

    /// Whether the row changed (or was added) within the reader's window; `true` when the
    /// pool is not tracked (no change can be ruled out). O(1).
    #[inline]
    pub fn is_changed(&self) -> bool {
        self.marker.is_none_or(|m| self.ticks.is_newer(m.changed(self.row)))
    }

    /// Whether the row was added within the reader's window; `true` when the pool is not
    /// tracked. O(1).
    #[inline]
    pub fn is_added(&self) -> bool {
        self.marker.is_none_or(|m| self.ticks.is_newer(m.added(self.row)))
    }

    /// Whether field `field` changed within the reader's window; `true` when the pool is not
    /// tracked. O(1).
    ///
    /// # Panics
    /// If the pool keeps per-field ticks and `field` is not below their count.
    #[inline]
    pub fn is_field_changed(&self, field: usize) -> bool {
        self.marker.is_none_or(|m| {
            if m.field_count() == 0 {
                self.ticks.is_newer(m.changed(self.row))
            } else {
                assert!(field < m.field_count(), "field {field} of {}", m.field_count());
                self.ticks.is_newer(m.field_changed(self.row, field))
            }
        })
    }

    /// Records a write of the whole row (every field). O(fields).
    #[inline]
    pub fn mark_row(self) {
        if let Some(marker) = self.marker {
            // SAFETY: `new`'s caller vouched that this stamp's user holds the row exclusively.
            unsafe { marker.mark(self.row) };
        }
    }

    /// Records a write of field `field` (and so of the row). O(1).
    ///
    /// # Panics
    /// If the pool keeps per-field ticks and `field` is not below their count.
    #[inline]
    pub fn mark_field(self, field: usize) {
        if let Some(marker) = self.marker {
            if marker.field_count() == 0 {
                // SAFETY: as in `mark_row`.
                unsafe { marker.mark(self.row) };
            } else {
                assert!(field < marker.field_count(), "field {field} of {}", marker.field_count());
                // SAFETY: as in `mark_row`; `field` is in range (checked).
                unsafe { marker.mark_field(self.row, field) };
            }
        }
    }
}
