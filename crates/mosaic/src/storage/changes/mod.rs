//! Change tracking of one pool: per-row added and changed ticks, a log of changed entities that
//! readers walk in O(changed), and a log of removals.
//!
//! Split by concern: `cells.rs` (each row's changed tick and log slot, per-field ticks, pending
//! stamps), `log.rs` (the change log and how its entries follow rows), `removals.rs` (the removal
//! log and its readers), `marker.rs` (stamping rows handed out mutably), `image.rs` (rollback).

mod cells;
#[cfg(feature = "rollback")]
mod image;
mod log;
mod marker;
mod removals;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use self::cells::{FieldCells, Pending, RowCells};
#[cfg(feature = "rollback")]
pub use self::image::TrackerImage;
pub use self::log::LogEntry;
use self::log::{DEAD_ROW, NO_SLOT, compact, drain, follow, live_row, live_row_changed, supersede};
pub use self::marker::{ChangeMarker, RowStamp};
use super::sparse_set::RowLookup;
use super::tick::{Clock, ReaderTick, Tick, Ticks};
use crate::entity::Entity;

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
    #[inline]
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
        self.for_each_changed(ticks, lookup, |_, entity| out.push(entity));
    }

    /// [`ChangeTracker::changed_since`] giving rows instead of entities: calls `f(row, entity)`
    /// for each entity whose latest change is newer than `ticks.last_run`, once, in the order
    /// of those changes. The rows are the pool's as it is now. O(log n + entries since).
    #[inline]
    pub fn for_each_changed(&self, ticks: Ticks, lookup: RowLookup<'_>, mut f: impl FnMut(usize, Entity)) {
        let log = self.lock_settled(lookup);
        let start = log.partition_point(|e| !ticks.is_newer(e.tick));
        for (index, entry) in log.iter().enumerate().skip(start) {
            if let Some(row) = self.live_row(entry, index, lookup)
                && ticks.is_newer(self.changed(row))
            {
                f(row, entry.entity);
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
