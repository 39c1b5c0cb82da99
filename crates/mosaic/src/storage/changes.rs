//! Change tracking of one pool: per-row added and changed ticks, a log of changed entities that
//! readers walk in O(changed), and a log of removals.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use super::sparse_set::RowLookup;
use super::tick::{Clock, ReaderTick, Tick, Ticks};
use crate::entity::Entity;

/// A change tracker's state, saved by [`ChangeTracker::save_image`] for rollback: its buffers are
/// reused by the next save.
#[cfg(feature = "rollback")]
#[derive(Clone, Debug, Default)]
pub struct TrackerImage {
    added: Vec<Tick>,
    changed: Vec<u32>,
    slots: Vec<u32>,
    fields: Vec<u32>,
    log: Vec<LogEntry>,
    removed: Vec<LogEntry>,
    removed_trimmed: usize,
}

#[cfg(feature = "rollback")]
impl TrackerImage {
    /// Bytes saved: the per-row and per-field ticks and both logs.
    pub fn bytes(&self) -> usize {
        self.added.len() * size_of::<Tick>()
            + (self.changed.len() + self.slots.len() + self.fields.len()) * size_of::<u32>()
            + (self.log.len() + self.removed.len()) * size_of::<LogEntry>()
    }
}

/// Marks a row whose change has no entry in the log.
const NO_SLOT: u32 = u32::MAX;

/// The `row` of a change-log entry superseded by a later change of its row, or whose row left
/// the pool; and the `row` of every removal entry.
const DEAD_ROW: u32 = u32::MAX;

/// One entry of a change or removal log: `entity` changed (or lost the component) at `tick`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogEntry {
    /// When, as the log orders entries: never older than the entry before (see `drain`).
    pub tick: Tick,
    /// The tick the row changed at, which readers judge: `tick` or older.
    pub changed: Tick,
    /// The entity's row, kept exact as rows move; `DEAD_ROW` once the entry is superseded or
    /// the row left the pool (removal entries: always `DEAD_ROW`).
    pub row: u32,
    /// Which entity.
    pub entity: Entity,
}

/// Per row, the changed tick and the change-log slot (the index of the row's live entry), side by
/// side. A query may write them through a shared borrow of the pool, one row per thread. Readers
/// walking the log do not read them: a live entry carries its row and tick.
#[derive(Debug, Default)]
struct RowCells(Vec<RowCell>);

#[derive(Debug)]
struct RowCell {
    changed: UnsafeCell<u32>,
    slot: UnsafeCell<u32>,
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
    fn changed(&self, row: usize) -> u32 {
        // SAFETY: see the `Sync` argument: no write to this cell races with this read.
        unsafe { *self.0[row].changed.get() }
    }
    #[inline(always)]
    fn slot(&self, row: usize) -> u32 {
        // SAFETY: as above.
        unsafe { *self.0[row].slot.get() }
    }
    fn set_changed_mut(&mut self, row: usize, value: u32) {
        *self.0[row].changed.get_mut() = value;
    }
    fn set_slot_mut(&mut self, row: usize, value: u32) {
        *self.0[row].slot.get_mut() = value;
    }
    /// Writes row `row`'s slot through a shared borrow.
    ///
    /// # Safety
    /// The caller holds the change log's mutex (slots are written only under it).
    #[inline]
    unsafe fn set_slot(&self, row: usize, value: u32) {
        // SAFETY: slot cells are written only under the log's mutex, which the caller holds, and
        // read elsewhere only when no writer can run (see `Sync`).
        unsafe { *self.0[row].slot.get() = value };
    }
    fn push(&mut self, changed: u32, slot: u32) {
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
struct FieldCells {
    stride: usize,
    ticks: Vec<UnsafeCell<u32>>,
}

// SAFETY: as for `RowCells`: a cell is written through `&FieldCells` only by
// `ChangeMarker::mark` / `mark_field` for a row the marker's caller holds exclusively, and read
// through it only by that holder or by readers with read access to the component, when no
// marker can run. Every other write needs `&mut FieldCells`.
unsafe impl Sync for FieldCells {}

impl FieldCells {
    fn new(stride: usize, rows: usize, now: u32) -> Self {
        Self { stride, ticks: (0..stride * rows).map(|_| UnsafeCell::new(now)).collect() }
    }
    #[inline(always)]
    fn get(&self, row: usize, field: usize) -> u32 {
        debug_assert!(field < self.stride, "field {field} of {}", self.stride);
        // SAFETY: see the `Sync` argument: no write to this cell races with this read.
        unsafe { *self.ticks[row * self.stride + field].get() }
    }
    /// Writes one field's tick through a shared borrow.
    ///
    /// # Safety
    /// The caller holds row `row` exclusively (no other access to its cells runs meanwhile).
    #[inline(always)]
    unsafe fn set(&self, row: usize, field: usize, tick: u32) {
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
    unsafe fn set_row(&self, row: usize, tick: u32) {
        if self.stride == 0 {
            return;
        }
        for cell in &self.ticks[row * self.stride..(row + 1) * self.stride] {
            // SAFETY: the caller holds the row, so no other access to its cells runs.
            unsafe { *cell.get() = tick };
        }
    }
    #[inline]
    fn set_row_mut(&mut self, row: usize, tick: u32) {
        if self.stride == 0 {
            return;
        }
        for cell in &mut self.ticks[row * self.stride..(row + 1) * self.stride] {
            *cell.get_mut() = tick;
        }
    }
    /// Every field tick, row by row.
    #[cfg(feature = "rollback")]
    fn values(&self) -> impl Iterator<Item = u32> + '_ {
        // SAFETY: see the `Sync` argument: no write to these cells races with these reads.
        self.ticks.iter().map(|cell| unsafe { *cell.get() })
    }
    #[inline]
    fn push(&mut self, tick: u32) {
        if self.stride != 0 {
            self.ticks.extend((0..self.stride).map(|_| UnsafeCell::new(tick)));
        }
    }
    fn swap_remove(&mut self, row: usize) {
        if self.stride == 0 {
            return;
        }
        let last = self.ticks.len() / self.stride - 1;
        for field in 0..self.stride {
            self.ticks.swap(row * self.stride + field, last * self.stride + field);
        }
        self.ticks.truncate(last * self.stride);
    }
    fn swap(&mut self, a: usize, b: usize) {
        for field in 0..self.stride {
            self.ticks.swap(a * self.stride + field, b * self.stride + field);
        }
    }
    fn reset(&mut self, rows: usize, tick: u32) {
        self.ticks.clear();
        self.ticks.extend((0..self.stride * rows).map(|_| UnsafeCell::new(tick)));
    }
}

/// Rows stamped by queries and not yet in the change log: a flag byte per row and per block of
/// 64 rows (atomics written with plain stores; drained with swaps under the log's lock).
#[derive(Debug, Default)]
struct Pending {
    rows: Vec<AtomicU8>,
    blocks: Vec<AtomicU8>,
}

impl Pending {
    fn new(rows: usize) -> Self {
        let mut pending = Self::default();
        pending.resize(rows);
        pending
    }

    /// Sets the row count (flags of new rows clear; the pool settles before rows go away).
    fn resize(&mut self, rows: usize) {
        self.rows.resize_with(rows, || AtomicU8::new(0));
        self.blocks.resize_with(rows.div_ceil(64), || AtomicU8::new(0));
    }
}

/// The change state of one tracked pool, kept in step with its rows by the pool.
///
/// Shape: for each row, the tick it was added at, the tick it last changed at, and the index of
/// its latest entry in the change log (`slots`). The change log holds `(tick, changed, row,
/// entity)` in the order changes were made, so ticks never decrease along it. An entry is
/// *live* until a later change of its row supersedes it or its row leaves the pool; both mark it
/// dead (`row == DEAD_ROW`) at once, and a row that moves updates its live entry's `row`. So
/// each entity has at most one live entry, at its latest change, and a reader confirms an entry
/// from the entry alone, without touching the rows' ticks: one sequential stream, then the
/// value. Readers binary-search the first entry newer than their last run and walk from there:
/// O(log n + entries since). The log is compacted to its live entries when it outgrows twice
/// the pool (amortised O(1) per change), so its length stays O(rows). Removals are logged as
/// `(tick, entity)` too, kept while a registered reader (or the world's own window) has not seen
/// them.
//
// Invariants:
// - `added.len() == cells.len() == pending.rows.len() ==` the pool's row count, row for row, and
//   `pending.blocks` has `ceil(rows / 64)` flags; `fields` holds `fields.stride` ticks per row;
//   every pending flag is drained into the log before a reader reads it and before the pool's
//   rows move (`settle`);
// - ticks along `log` and along `removed` never decrease in age order (older first);
// - for every row r with `slots[r] != NO_SLOT`: `log[slots[r]]` is live, its `row` is r, its
//   `entity` the row's entity, its `changed` is `changed[r]` unless r is pending (stamped since),
//   and its `tick` is `changed[r]` or newer (see `drain`);
// - every live entry is `log[slots[r]]` for its row r: every other entry is dead, so the live
//   entries are exactly each row's latest logged change;
// - every field tick of a row is `changed[r]` or older: a field stamp stamps its row too, so
//   walking the row log finds every changed field.
#[derive(Debug)]
pub struct ChangeTracker {
    clock: Arc<Clock>,
    added: Vec<Tick>,
    /// Per row: changed tick and log slot.
    cells: RowCells,
    /// Per row and field of a struct-of-arrays component: the field's changed tick.
    fields: FieldCells,
    /// Stamped by a query (`ChangeMarker::mark`) and not yet in the log: one flag byte per row,
    /// and one per block of 64 rows, set with plain (relaxed) stores, so stamping needs no
    /// read-modify-write and parallel chunks never contend.
    pending: Pending,
    /// Whether any bit of `pending` may be set.
    any_pending: AtomicBool,
    log: Mutex<Vec<LogEntry>>,
    removed: Vec<LogEntry>,
    /// Length of `removed` after its last trim; the next trim waits until it doubles.
    removed_trimmed: usize,
    /// Cursors of the removal readers (the tick each last read at); dropped readers are pruned.
    readers: Vec<Weak<ReaderTick>>,
}

impl ChangeTracker {
    /// Starts tracking a pool whose rows hold `entities`: every row counts as added and changed
    /// now (what came before is unknown). `fields` is the number of per-field ticks kept per
    /// row: the field count of a struct-of-arrays component, 0 for array-of-structs.
    pub fn new(clock: Arc<Clock>, entities: &[Entity], fields: usize) -> Self {
        let now = clock.now();
        let mut tracker = Self {
            fields: FieldCells::new(fields, entities.len(), now.get()),
            clock,
            added: vec![now; entities.len()],
            cells: RowCells::default(),
            pending: Pending::new(entities.len()),
            any_pending: AtomicBool::new(false),
            log: Mutex::new(Vec::with_capacity(entities.len())),
            removed: Vec::new(),
            removed_trimmed: 0,
            readers: Vec::new(),
        };
        let log = tracker.log.get_mut().unwrap_or_else(|e| e.into_inner());
        for (row, &entity) in entities.iter().enumerate() {
            tracker.cells.push(now.get(), row as u32);
            log.push(LogEntry { tick: now, changed: now, row: row as u32, entity });
        }
        tracker
    }

    fn log_mut(&mut self) -> &mut Vec<LogEntry> {
        self.log.get_mut().unwrap_or_else(|e| e.into_inner())
    }

    fn lock(&self) -> MutexGuard<'_, Vec<LogEntry>> {
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The log, locked, with every pending stamp moved in. Readers call it: they hold read
    /// access to the component, so no query stamps rows meanwhile.
    fn lock_settled(&self, lookup: RowLookup<'_>) -> MutexGuard<'_, Vec<LogEntry>> {
        let mut log = self.lock();
        if self.any_pending.load(Ordering::Acquire) {
            drain(
                &mut log,
                &self.cells,
                &self.pending,
                &self.any_pending,
                &self.clock,
                self.added.len(),
                lookup,
            );
        }
        log
    }

    /// Number of rows tracked (the pool's length).
    pub fn len(&self) -> usize {
        self.added.len()
    }

    /// Length of the change log (live entries and superseded ones not yet compacted away).
    pub fn log_len(&self) -> usize {
        self.lock().len()
    }

    /// The clock this tracker stamps with.
    pub fn clock(&self) -> &Arc<Clock> {
        &self.clock
    }

    /// Moves every row a query stamped into the log (needs `&mut`: no query runs). Called by
    /// the pool before its rows move, with its lookup as it is before the move. O(rows / 64 +
    /// stamped) when something is pending, O(1) otherwise.
    pub fn settle(&mut self, lookup: RowLookup<'_>) {
        if *self.any_pending.get_mut() {
            let log = self.log.get_mut().unwrap_or_else(|e| e.into_inner());
            drain(log, &self.cells, &self.pending, &self.any_pending, &self.clock, self.added.len(), lookup);
        }
    }

    /// Records a new last row holding `entity`, added and changed now. The pool settles first.
    pub fn push_row(&mut self, entity: Entity) {
        debug_assert!(!*self.any_pending.get_mut(), "settle before the rows change");
        let now = self.clock.now();
        let row = self.added.len() as u32;
        let log = self.log_mut();
        let slot = log.len() as u32;
        log.push(LogEntry { tick: now, changed: now, row, entity });
        self.added.push(now);
        self.cells.push(now.get(), slot);
        self.fields.push(now.get());
        self.pending.resize(self.added.len());
    }

    /// Records that row `row` (holding `entity`) changed now. O(1) amortised; compacts the log
    /// (O(log + rows) through `lookup`) when it outgrew the pool.
    pub fn mark_mut(&mut self, row: usize, entity: Entity, lookup: RowLookup<'_>) {
        self.settle(lookup);
        let now = self.clock.now();
        self.fields.set_row_mut(row, now.get());
        if self.cells.changed(row) == now.get() && self.cells.slot(row) != NO_SLOT {
            return;
        }
        self.cells.set_changed_mut(row, now.get());
        let log = self.log.get_mut().unwrap_or_else(|e| e.into_inner());
        supersede(log, self.cells.slot(row));
        let slot = log.len() as u32;
        log.push(LogEntry { tick: now, changed: now, row: row as u32, entity });
        self.cells.set_slot_mut(row, slot);
        if log.len() > 2 * self.added.len() + 64 {
            let log = self.log.get_mut().unwrap_or_else(|e| e.into_inner());
            // SAFETY: `&mut self` holds the log exclusively.
            unsafe { compact(log, &self.cells) };
        }
    }

    /// Records that `entity`, at row `row`, left the pool, and removes the row's ticks the way
    /// the pool removes its values (the last row moves into `row`).
    pub fn swap_remove(&mut self, row: usize, entity: Entity) {
        debug_assert!(!*self.any_pending.get_mut(), "settle before the rows change");
        let log = self.log.get_mut().unwrap_or_else(|e| e.into_inner());
        supersede(log, self.cells.slot(row));
        let last = self.added.len() - 1;
        if row != last {
            follow(log, self.cells.slot(last), row);
        }
        self.added.swap_remove(row);
        self.cells.0.swap_remove(row);
        self.fields.swap_remove(row);
        self.pending.resize(self.added.len());
        self.record_removal(entity);
    }

    /// Exchanges the ticks of rows `a` and `b`, as the pool exchanges their values.
    pub fn swap(&mut self, a: usize, b: usize) {
        debug_assert!(!*self.any_pending.get_mut(), "settle before the rows change");
        let log = self.log.get_mut().unwrap_or_else(|e| e.into_inner());
        let (slot_a, slot_b) = (self.cells.slot(a), self.cells.slot(b));
        follow(log, slot_a, b);
        follow(log, slot_b, a);
        self.added.swap(a, b);
        self.cells.0.swap(a, b);
        self.fields.swap(a, b);
    }

    /// Records that every entity of `entities` left the pool, which is now empty.
    pub fn clear(&mut self, entities: &[Entity]) {
        debug_assert!(!*self.any_pending.get_mut(), "settle before the rows change");
        self.added.clear();
        self.cells.0.clear();
        self.fields.reset(0, 0);
        self.pending.resize(0);
        self.log_mut().clear();
        for &entity in entities {
            self.record_removal(entity);
        }
    }

    /// Copies the tracker's whole state into `image` (drawing pending stamps into the log first,
    /// through `lookup`, the pool's): the per-row and per-field ticks, the change log with its
    /// slots, and the removal log. Reuses the image's buffers. O(rows + log + removals).
    ///
    /// The caller holds read access to the pool's component (a shared borrow of the world with no
    /// query running, as rollback's save has), so no query stamps rows meanwhile.
    #[cfg(feature = "rollback")]
    pub fn save_image(&self, lookup: RowLookup<'_>, image: &mut TrackerImage) {
        let log = self.lock_settled(lookup);
        image.added.clone_from(&self.added);
        image.changed.clear();
        image.changed.extend((0..self.added.len()).map(|row| self.cells.changed(row)));
        image.slots.clear();
        image.slots.extend((0..self.added.len()).map(|row| self.cells.slot(row)));
        image.fields.clear();
        image.fields.extend(self.fields.values());
        image.log.clone_from(&log);
        image.removed.clone_from(&self.removed);
        image.removed_trimmed = self.removed_trimmed;
    }

    /// Puts a state saved by [`ChangeTracker::save_image`] back, for a pool whose rows were just
    /// restored from the same save: afterwards every reader sees exactly what it saw at the save.
    /// Reuses every buffer. O(rows + log + removals).
    ///
    /// # Panics
    /// If the image's row count or field stride is not the tracker's rows' (the pool and the
    /// tracker come from different saves).
    #[cfg(feature = "rollback")]
    #[track_caller]
    pub fn restore_image(&mut self, rows: usize, image: &TrackerImage) {
        assert_eq!(image.added.len(), rows, "a tracker image restores the rows of its own save");
        assert_eq!(image.fields.len(), rows * self.fields.stride, "a tracker image of another layout");
        self.added.clone_from(&image.added);
        self.cells.0.clear();
        for (&changed, &slot) in image.changed.iter().zip(&image.slots) {
            self.cells.push(changed, slot);
        }
        self.fields.ticks.clear();
        self.fields.ticks.extend(image.fields.iter().map(|&tick| UnsafeCell::new(tick)));
        *self.any_pending.get_mut() = false;
        self.pending.resize(0);
        self.pending.resize(rows);
        self.log_mut().clone_from(&image.log);
        self.removed.clone_from(&image.removed);
        self.removed_trimmed = image.removed_trimmed;
    }

    /// Starts over after a rollback restored the pool to `entities` (its rows now): every row
    /// counts as added and changed now, as in [`ChangeTracker::new`], and the change log lists
    /// each row once. Reuses every buffer. Removals made by the restore are not logged.
    /// O(rows).
    #[cfg(feature = "rollback")]
    pub fn restored(&mut self, entities: &[Entity]) {
        let now = self.clock.now();
        self.added.clear();
        self.added.resize(entities.len(), now);
        self.cells.0.clear();
        self.fields.reset(entities.len(), now.get());
        // Stamps pending from before the restore name rows that no longer mean the same.
        *self.any_pending.get_mut() = false;
        self.pending.resize(0);
        self.pending.resize(entities.len());
        let mut log = std::mem::take(self.log_mut());
        log.clear();
        for (row, &entity) in entities.iter().enumerate() {
            self.cells.push(now.get(), row as u32);
            log.push(LogEntry { tick: now, changed: now, row: row as u32, entity });
        }
        *self.log_mut() = log;
    }

    fn record_removal(&mut self, entity: Entity) {
        let now = self.clock.now();
        self.removed.push(LogEntry { tick: now, changed: now, row: DEAD_ROW, entity });
        if self.removed.len() > 64 && self.removed.len() >= 2 * self.removed_trimmed {
            self.trim_removals();
        }
    }

    /// Drops the removals every reader has seen: those not newer than the oldest registered
    /// reader's cursor nor than the world's last `clear_trackers`. O(removals + readers).
    fn trim_removals(&mut self) {
        let now = self.clock.now();
        self.readers.retain(|reader| reader.strong_count() > 0);
        // A reader that has not read yet (after a rollback to before it existed) wants them all.
        let windows = self
            .readers
            .iter()
            .filter_map(Weak::upgrade)
            .map(|cursor| cursor.get())
            .chain([Some(self.clock.last_clear())]);
        let seen = windows
            .map(|last| match last {
                Some(last) => {
                    let ticks = self.clock.ticks(last, now);
                    self.removed.partition_point(|e| !ticks.is_newer(e.tick))
                }
                None => 0,
            })
            .min()
            .unwrap_or(0);
        self.removed.drain(..seen);
        self.removed_trimmed = self.removed.len().max(32);
    }

    /// Registers a removal reader's cursor (which the world made, at the present tick, so the
    /// reader sees no earlier removal): removals it has not read are kept until it moves on.
    pub fn register_reader(&mut self, cursor: &Arc<ReaderTick>) {
        self.readers.retain(|reader| reader.strong_count() > 0);
        self.readers.push(Arc::downgrade(cursor));
    }

    /// The removals newer than `ticks.last_run`, oldest first. O(log removals).
    pub fn removed_since(&self, ticks: Ticks) -> &[LogEntry] {
        let start = self.removed.partition_point(|e| !ticks.is_newer(e.tick));
        &self.removed[start..]
    }

    /// The tick row `row` was added at.
    #[inline(always)]
    pub fn added(&self, row: usize) -> Tick {
        self.added[row]
    }

    /// The tick row `row` last changed at.
    #[inline(always)]
    pub fn changed(&self, row: usize) -> Tick {
        Tick::new(self.cells.changed(row))
    }

    /// The tick field `field` of row `row` last changed at: for struct-of-arrays components,
    /// whose fields are tracked one by one. Any whole-row change (an insert, `&mut T`,
    /// `World::get_mut`) counts as a change of every field.
    ///
    /// # Panics
    /// If `field` is not below [`ChangeTracker::field_count`] (in debug builds; in release
    /// builds a wrong field reads another field's tick or panics out of bounds).
    #[inline(always)]
    pub fn field_changed(&self, row: usize, field: usize) -> Tick {
        Tick::new(self.fields.get(row, field))
    }

    /// Number of per-field ticks kept per row: the field count of a struct-of-arrays
    /// component, 0 for array-of-structs.
    #[inline]
    pub fn field_count(&self) -> usize {
        self.fields.stride
    }

    /// The change-log entries newer than `ticks.last_run` (live or superseded), in place, with the
    /// log index of the first: what a query walks, confirming each with
    /// [`ChangeTracker::live_row`]. O(log n + stamped rows drained in).
    ///
    /// # Safety
    /// The log must not change while the returned slice is alive. It changes only when pending
    /// stamps are drained (by a reader, and stamps come only from queries writing the
    /// component) or through `&mut` to the pool. So the caller holds read access to the
    /// component for the slice's life: no query writing it runs meanwhile (the scheduler's
    /// access rules, or the world's borrow), and this reader drains before it reads.
    pub unsafe fn entries_since(&self, ticks: Ticks, lookup: RowLookup<'_>) -> (usize, &[LogEntry]) {
        let log = self.lock_settled(lookup);
        let start = log.partition_point(|e| !ticks.is_newer(e.tick));
        let tail = &log[start..];
        let (ptr, len) = (tail.as_ptr(), tail.len());
        drop(log);
        // SAFETY: `ptr..ptr + len` is inside the log's buffer, which lives in `self` (borrowed
        // for the returned lifetime) and, by the caller's guarantee, is neither reallocated nor
        // written while the slice is alive; every element is initialised (it was under the
        // lock).
        (start, unsafe { std::slice::from_raw_parts(ptr, len) })
    }

    /// The row of `entry` (at `index` in the log) if it is live: neither superseded by a later
    /// change of its row nor left behind by a removal. O(1), from the entry alone (a live entry's
    /// row is kept exact as rows move). `index` and `lookup` serve debug assertions only.
    ///
    /// Callers hold read access to the component, so no drain rewrites entries meanwhile.
    #[inline(always)]
    pub fn live_row(&self, entry: &LogEntry, index: usize, lookup: RowLookup<'_>) -> Option<usize> {
        live_row(&self.cells, entry, index, lookup)
    }

    /// [`ChangeTracker::live_row`] and the row's changed tick, both read from the entry. O(1).
    #[inline(always)]
    pub fn live_row_changed(
        &self,
        entry: &LogEntry,
        index: usize,
        lookup: RowLookup<'_>,
    ) -> Option<(usize, Tick)> {
        live_row_changed(&self.cells, entry, index, lookup)
    }

    /// Appends to `out` each entity whose latest change is newer than `ticks.last_run`, once, in
    /// the order of those changes. O(log n + entries since), through `lookup` (the pool's).
    pub fn changed_since(&self, ticks: Ticks, lookup: RowLookup<'_>, out: &mut Vec<Entity>) {
        let log = self.lock_settled(lookup);
        let start = log.partition_point(|e| !ticks.is_newer(e.tick));
        for (index, entry) in log.iter().enumerate().skip(start) {
            if let Some(row) = self.live_row(entry, index, lookup)
                && ticks.is_newer(self.changed(row))
            {
                out.push(entry.entity);
            }
        }
    }

    /// Checks the change log against the rows (`dense`, the pool's entities): every live entry
    /// is its row's latest, names the row's entity and, unless the row is pending, carries the
    /// row's changed tick; every row's slot names a live entry of that row. O(rows + log).
    ///
    /// # Panics
    /// If any of these fails (the message names the entry or row).
    pub fn assert_log_exact(&self, dense: &[Entity]) {
        let log = self.lock();
        for (index, entry) in log.iter().enumerate() {
            if entry.row == DEAD_ROW {
                continue;
            }
            let row = entry.row as usize;
            assert!(row < dense.len(), "log entry {index} names row {row} of {}", dense.len());
            assert_eq!(dense[row], entry.entity, "log entry {index} names row {row} of another entity");
            assert_eq!(
                self.cells.slot(row),
                index as u32,
                "log entry {index} is live but not row {row}'s latest"
            );
            if self.pending.rows[row].load(Ordering::Relaxed) == 0 {
                assert_eq!(
                    entry.changed.get(),
                    self.cells.changed(row),
                    "log entry {index}'s tick is not row {row}'s"
                );
            }
        }
        for row in 0..dense.len() {
            let slot = self.cells.slot(row);
            if slot != NO_SLOT {
                assert_eq!(log[slot as usize].row, row as u32, "row {row}'s slot {slot} names another row");
            }
        }
    }

    /// A marker for a query that hands out rows of this pool mutably at `tick`.
    pub fn marker(&self, tick: Tick) -> ChangeMarker<'_> {
        ChangeMarker { tracker: self, tick }
    }

    /// Clamps every tick older than the maximum age to it, and drops log entries and removals
    /// that old (no reader can tell them from older ones). O(rows + log + removals).
    pub fn check(&mut self, lookup: RowLookup<'_>) {
        self.settle(lookup);
        let clock = Arc::clone(&self.clock);
        for tick in &mut self.added {
            *tick = clock.clamp(*tick);
        }
        for cell in &mut self.cells.0 {
            let tick = cell.changed.get_mut();
            *tick = clock.clamp(Tick::new(*tick)).get();
        }
        for cell in &mut self.fields.ticks {
            let tick = cell.get_mut();
            *tick = clock.clamp(Tick::new(*tick)).get();
        }
        let log = self.log.get_mut().unwrap_or_else(|e| e.into_inner());
        for entry in log.iter_mut() {
            entry.changed = clock.clamp(entry.changed);
        }
        let stale = log.partition_point(|e| clock.too_old(e.tick));
        if stale > 0 {
            log.drain(..stale);
            for cell in &mut self.cells.0 {
                let slot = cell.slot.get_mut();
                *slot =
                    if *slot == NO_SLOT || (*slot as usize) < stale { NO_SLOT } else { *slot - stale as u32 };
            }
        }
        let stale = self.removed.partition_point(|e| clock.too_old(e.tick));
        self.removed.drain(..stale);
    }
}

/// The row of `entry` (at `index` in a log over `cells`) if it is live; see
/// [`ChangeTracker::live_row`].
#[inline(always)]
fn live_row(cells: &RowCells, entry: &LogEntry, index: usize, lookup: RowLookup<'_>) -> Option<usize> {
    live_row_changed(cells, entry, index, lookup).map(|(row, _)| row)
}

/// [`live_row`] and the row's changed tick, both read from the entry: a live entry's row is
/// exact and its `changed` is the row's (see the invariants of [`ChangeTracker`]).
#[inline(always)]
fn live_row_changed(
    cells: &RowCells,
    entry: &LogEntry,
    index: usize,
    lookup: RowLookup<'_>,
) -> Option<(usize, Tick)> {
    if entry.row == DEAD_ROW {
        return None;
    }
    let row = entry.row as usize;
    debug_assert_eq!(cells.slot(row), index as u32, "a live entry is its row's latest");
    debug_assert_eq!(lookup.entity_at(row), entry.entity, "a live entry's row holds its entity");
    Some((row, entry.changed))
}

/// Marks the entry at `slot` (a row's slot, or `NO_SLOT`) dead: its row changed again or left.
#[inline]
fn supersede(log: &mut [LogEntry], slot: u32) {
    if slot != NO_SLOT {
        log[slot as usize].row = DEAD_ROW;
    }
}

/// Points the entry at `slot` (a row's slot, or `NO_SLOT`) at the row's new place `row`.
#[inline]
fn follow(log: &mut [LogEntry], slot: u32, row: usize) {
    if slot != NO_SLOT {
        log[slot as usize].row = row as u32;
    }
}

/// Keeps the live entries of `log`, in order, and renumbers their rows' slots.
///
/// # Safety
/// The caller holds the log exclusively: its mutex, or `&mut` to the tracker.
unsafe fn compact(log: &mut Vec<LogEntry>, cells: &RowCells) {
    let mut kept = 0;
    for index in 0..log.len() {
        let entry = log[index];
        if entry.row != DEAD_ROW {
            log[kept] = entry;
            // SAFETY: the caller holds the log exclusively (its mutex, or `&mut`).
            unsafe { cells.set_slot(entry.row as usize, kept as u32) };
            kept += 1;
        }
    }
    log.truncate(kept);
}

/// Moves the rows stamped in `pending` into `log` (entry, slot), clearing the flags, and
/// compacts the log if it outgrew the pool. O(rows / 64 + 64 per stamped block).
///
/// The caller holds the log exclusively (its mutex, or `&mut` to the tracker) and no query
/// stamps rows meanwhile (readers hold read access to the component; `&mut` excludes queries).
fn drain(
    log: &mut Vec<LogEntry>,
    cells: &RowCells,
    pending: &Pending,
    any_pending: &AtomicBool,
    clock: &Clock,
    rows: usize,
    lookup: RowLookup<'_>,
) {
    if !any_pending.swap(false, Ordering::AcqRel) {
        return;
    }
    let now = clock.now();
    for (block, flag) in pending.blocks.iter().enumerate() {
        // Loads and stores, not swaps (a locked instruction per row): no query stamps rows while
        // a drain runs (see above), so nothing can set a flag between the load and the store.
        if flag.load(Ordering::Acquire) == 0 {
            continue;
        }
        flag.store(0, Ordering::Relaxed);
        let first = block * 64;
        let end = (first + 64).min(pending.rows.len());
        for (row, flag) in pending.rows[first..end].iter().enumerate().map(|(i, f)| (first + i, f)) {
            if flag.load(Ordering::Relaxed) == 0 {
                continue;
            }
            flag.store(0, Ordering::Relaxed);
            let changed = Tick::new(cells.changed(row));
            // Two queries writing disjoint rows of this pool (`With<X>` / `Without<X>`) may run
            // at once with different ticks: an entry never goes in older than the last one, so
            // the log stays ordered. The entry keeps the row's own tick as `changed`, which
            // readers judge.
            let tick = match log.last() {
                Some(last) if clock.ticks(changed, now).is_newer(last.tick) => last.tick,
                _ => changed,
            };
            supersede(log, cells.slot(row));
            let slot = log.len() as u32;
            log.push(LogEntry { tick, changed, row: row as u32, entity: lookup.entity_at(row) });
            // SAFETY: the caller holds the log exclusively, under which slots are written.
            unsafe { cells.set_slot(row, slot) };
        }
    }
    if log.len() > 2 * rows + 64 {
        // SAFETY: the caller holds the log exclusively.
        unsafe { compact(log, cells) };
    }
}

/// Stamps the rows a query hands out mutably: the row's changed tick, and pending flags that the
/// next reader (or the pool, before its rows move) drains into the change log. Copy, no `Drop`,
/// no lock, no read-modify-write: three plain stores per newly stamped row.
#[derive(Clone, Copy, Debug)]
pub struct ChangeMarker<'w> {
    tracker: &'w ChangeTracker,
    tick: Tick,
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
    unsafe fn mark_row(self, row: usize) {
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

#[cfg(test)]
mod tests {
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
}
