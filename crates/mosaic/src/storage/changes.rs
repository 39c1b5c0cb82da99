//! Change tracking of one pool: per-row added and changed ticks, a log of changed entities that
//! readers walk in O(changed), and a log of removals.

use std::cell::{RefCell, UnsafeCell};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use super::sparse_set::RowLookup;
use super::tick::{Clock, Tick, Ticks};
use crate::entity::Entity;

/// Marks a row whose change has no entry in the log.
const NO_SLOT: u32 = u32::MAX;

/// One entry of a change or removal log: `entity` changed (or lost the component) at `tick`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogEntry {
    /// When.
    pub tick: Tick,
    /// Which entity.
    pub entity: Entity,
}

/// A column of `u32` cells that a query may write through a shared borrow of the pool, one row
/// per thread.
#[derive(Debug, Default)]
struct Cells(Vec<UnsafeCell<u32>>);

// SAFETY: a cell is written through `&Cells` only by `ChangeMarker::mark` (its own row, which the
// marker's caller holds exclusively) and by the marker's flush and compaction (under the log's
// mutex, and only the `slots` column, which `mark` never touches); every other write needs
// `&mut Cells`. Reads through `&Cells` of a row happen only on the thread that holds the row
// (filters and marks of the same query item) or under the log's mutex (slots). So no two threads
// touch one cell unsynchronised.
unsafe impl Sync for Cells {}

impl Cells {
    #[inline(always)]
    fn get(&self, row: usize) -> u32 {
        // SAFETY: see the `Sync` argument: no write to this cell races with this read.
        unsafe { *self.0[row].get() }
    }
    #[inline(always)]
    fn set_mut(&mut self, row: usize, value: u32) {
        *self.0[row].get_mut() = value;
    }
    fn push(&mut self, value: u32) {
        self.0.push(UnsafeCell::new(value));
    }
}

/// The change state of one tracked pool, kept in step with its rows by the pool.
///
/// Shape: for each row, the tick it was added at, the tick it last changed at, and the index of
/// its latest entry in the change log (`slots`). The change log holds `(tick, entity)` in the
/// order changes were made, so ticks never decrease along it; an entry is *live* when its
/// entity is still in the pool and that row's slot points back at it, so each entity has at most
/// one live entry, at its latest change. Readers binary-search the first entry newer than their
/// last run and walk from there: O(log n + entries since). The log is compacted to its live
/// entries when it outgrows twice the pool (amortised O(1) per change), so its length stays
/// O(rows). Removals are logged as `(tick, entity)` too, kept while a registered reader (or the
/// world's own window) has not seen them.
//
// Invariants:
// - `added.len() == changed.len() == slots.len() ==` the pool's row count, row for row;
// - ticks along `log` and along `removed` never decrease in age order (older first);
// - for every row r with `slots[r] != NO_SLOT`: `log[slots[r]].entity` is the row's entity, and
//   that entry's tick is `changed[r]` or newer (see `ChangeMarker`'s drop): the log is a
//   superset of the changes, and readers confirm each candidate with `changed`.
#[derive(Debug)]
pub struct ChangeTracker {
    clock: Arc<Clock>,
    added: Vec<Tick>,
    changed: Cells,
    slots: Cells,
    log: Mutex<Vec<LogEntry>>,
    removed: Vec<LogEntry>,
    /// Length of `removed` after its last trim; the next trim waits until it doubles.
    removed_trimmed: usize,
    /// Cursors of the removal readers (the tick each last read at); dropped readers are pruned.
    readers: Vec<Weak<AtomicU32>>,
}

impl ChangeTracker {
    /// Starts tracking a pool whose rows hold `entities`: every row counts as added and changed
    /// now (what came before is unknown).
    pub fn new(clock: Arc<Clock>, entities: &[Entity]) -> Self {
        let now = clock.now();
        let mut tracker = Self {
            clock,
            added: vec![now; entities.len()],
            changed: Cells::default(),
            slots: Cells::default(),
            log: Mutex::new(Vec::with_capacity(entities.len())),
            removed: Vec::new(),
            removed_trimmed: 0,
            readers: Vec::new(),
        };
        let log = tracker.log.get_mut().unwrap_or_else(|e| e.into_inner());
        for (row, &entity) in entities.iter().enumerate() {
            tracker.changed.push(now.get());
            tracker.slots.push(row as u32);
            log.push(LogEntry { tick: now, entity });
        }
        tracker
    }

    fn log_mut(&mut self) -> &mut Vec<LogEntry> {
        self.log.get_mut().unwrap_or_else(|e| e.into_inner())
    }

    fn lock(&self) -> MutexGuard<'_, Vec<LogEntry>> {
        self.log.lock().unwrap_or_else(|e| e.into_inner())
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

    /// Records a new last row holding `entity`, added and changed now.
    pub fn push_row(&mut self, entity: Entity) {
        let now = self.clock.now();
        let log = self.log_mut();
        let slot = log.len() as u32;
        log.push(LogEntry { tick: now, entity });
        self.added.push(now);
        self.changed.push(now.get());
        self.slots.push(slot);
    }

    /// Records that row `row` (holding `entity`) changed now. O(1) amortised; compacts the log
    /// (O(log + rows) through `lookup`) when it outgrew the pool.
    pub fn mark_mut(&mut self, row: usize, entity: Entity, lookup: RowLookup<'_>) {
        let now = self.clock.now();
        if self.changed.get(row) == now.get() && self.slots.get(row) != NO_SLOT {
            return;
        }
        self.changed.set_mut(row, now.get());
        let log = self.log.get_mut().unwrap_or_else(|e| e.into_inner());
        let slot = log.len() as u32;
        log.push(LogEntry { tick: now, entity });
        self.slots.set_mut(row, slot);
        if log.len() > 2 * self.added.len() + 64 {
            let log = self.log.get_mut().unwrap_or_else(|e| e.into_inner());
            compact(log, &self.slots, lookup);
        }
    }

    /// Records that `entity`, at row `row`, left the pool, and removes the row's ticks the way
    /// the pool removes its values (the last row moves into `row`).
    pub fn swap_remove(&mut self, row: usize, entity: Entity) {
        self.added.swap_remove(row);
        self.changed.0.swap_remove(row);
        self.slots.0.swap_remove(row);
        self.record_removal(entity);
    }

    /// Exchanges the ticks of rows `a` and `b`, as the pool exchanges their values.
    pub fn swap(&mut self, a: usize, b: usize) {
        self.added.swap(a, b);
        self.changed.0.swap(a, b);
        self.slots.0.swap(a, b);
    }

    /// Records that every entity of `entities` left the pool, which is now empty.
    pub fn clear(&mut self, entities: &[Entity]) {
        self.added.clear();
        self.changed.0.clear();
        self.slots.0.clear();
        self.log_mut().clear();
        for &entity in entities {
            self.record_removal(entity);
        }
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
        self.changed.0.clear();
        self.slots.0.clear();
        let mut log = std::mem::take(self.log_mut());
        log.clear();
        for (row, &entity) in entities.iter().enumerate() {
            self.changed.push(now.get());
            self.slots.push(row as u32);
            log.push(LogEntry { tick: now, entity });
        }
        *self.log_mut() = log;
    }

    fn record_removal(&mut self, entity: Entity) {
        self.removed.push(LogEntry { tick: self.clock.now(), entity });
        if self.removed.len() > 64 && self.removed.len() >= 2 * self.removed_trimmed {
            self.trim_removals();
        }
    }

    /// Drops the removals every reader has seen: those not newer than the oldest registered
    /// reader's cursor nor than the world's last `clear_trackers`. O(removals + readers).
    fn trim_removals(&mut self) {
        let now = self.clock.now();
        self.readers.retain(|reader| reader.strong_count() > 0);
        let windows = self
            .readers
            .iter()
            .filter_map(Weak::upgrade)
            .map(|cursor| Tick::new(cursor.load(Ordering::Relaxed)))
            .chain([self.clock.last_clear()]);
        let seen = windows
            .map(|last| {
                let ticks = self.clock.ticks(last, now);
                self.removed.partition_point(|e| !ticks.is_newer(e.tick))
            })
            .min()
            .unwrap_or(0);
        self.removed.drain(..seen);
        self.removed_trimmed = self.removed.len().max(32);
    }

    /// Registers a removal reader: its cursor starts now (it sees no earlier removal) and holds
    /// back trimming until it moves on.
    pub fn register_reader(&mut self) -> Arc<AtomicU32> {
        let cursor = Arc::new(AtomicU32::new(self.clock.now().get()));
        self.readers.push(Arc::downgrade(&cursor));
        cursor
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
        Tick::new(self.changed.get(row))
    }

    /// Number of change-log entries newer than `ticks.last_run` (live or not): an upper bound of
    /// the entities changed since. O(log n).
    pub fn changes_since(&self, ticks: Ticks) -> usize {
        let log = self.lock();
        log.len() - log.partition_point(|e| !ticks.is_newer(e.tick))
    }

    /// Appends to `out` each entity whose latest change is newer than `ticks.last_run`, once, in
    /// the order of those changes. O(log n + entries since), through `lookup` (the pool's).
    pub fn changed_since(&self, ticks: Ticks, lookup: RowLookup<'_>, out: &mut Vec<Entity>) {
        let log = self.lock();
        let start = log.partition_point(|e| !ticks.is_newer(e.tick));
        for (index, entry) in log.iter().enumerate().skip(start) {
            if let Some(row) = lookup.row_of(entry.entity)
                && self.slots.get(row) == index as u32
            {
                out.push(entry.entity);
            }
        }
    }

    /// A marker for a query that hands out rows of this pool mutably at `tick`.
    pub fn marker<'w>(&'w self, lookup: RowLookup<'w>, tick: Tick) -> ChangeMarker<'w> {
        ChangeMarker { tracker: self, lookup, tick, pending: RefCell::new(Vec::new()) }
    }

    /// Clamps every tick older than the maximum age to it, and drops log entries and removals
    /// that old (no reader can tell them from older ones). O(rows + log + removals).
    pub fn check(&mut self) {
        let clock = Arc::clone(&self.clock);
        for tick in &mut self.added {
            *tick = clock.clamp(*tick);
        }
        for cell in &mut self.changed.0 {
            let tick = cell.get_mut();
            *tick = clock.clamp(Tick::new(*tick)).get();
        }
        let log = self.log.get_mut().unwrap_or_else(|e| e.into_inner());
        let stale = log.partition_point(|e| clock.too_old(e.tick));
        if stale > 0 {
            log.drain(..stale);
            for cell in &mut self.slots.0 {
                let slot = cell.get_mut();
                *slot =
                    if *slot == NO_SLOT || (*slot as usize) < stale { NO_SLOT } else { *slot - stale as u32 };
            }
        }
        let stale = self.removed.partition_point(|e| clock.too_old(e.tick));
        self.removed.drain(..stale);
    }
}

/// Keeps the live entries of `log` (each row's latest), in order, and renumbers the slots.
fn compact(log: &mut Vec<LogEntry>, slots: &Cells, lookup: RowLookup<'_>) {
    let mut kept = 0;
    for index in 0..log.len() {
        let entry = log[index];
        if let Some(row) = lookup.row_of(entry.entity)
            && slots.get(row) == index as u32
        {
            log[kept] = entry;
            // SAFETY: the caller holds the log exclusively (its mutex, or `&mut`); slots are
            // written only under it (see `Cells`), and `mark` never touches them.
            unsafe { *slots.0[row].get() = kept as u32 };
            kept += 1;
        }
    }
    log.truncate(kept);
}

/// Stamps the rows a query hands out mutably, and appends them to the change log when dropped
/// (one lock per query walk, not per row).
#[derive(Debug)]
pub struct ChangeMarker<'w> {
    tracker: &'w ChangeTracker,
    lookup: RowLookup<'w>,
    tick: Tick,
    pending: RefCell<Vec<(u32, Entity)>>,
}

impl ChangeMarker<'_> {
    /// Records that row `row`, holding `entity`, is handed out mutably now. O(1) amortised.
    ///
    /// # Safety
    /// - `row` is a row of the tracked pool, holding `entity`;
    /// - the caller holds the row exclusively: no other thread reads or writes its value or
    ///   ticks while this call runs (the query's access to the component is exclusive, and each
    ///   row is handed out once per walk).
    #[inline]
    pub unsafe fn mark(&self, row: usize, entity: Entity) {
        let cell = &self.tracker.changed.0[row];
        // SAFETY: the caller holds the row exclusively, so no other access to this cell runs.
        unsafe {
            if *cell.get() != self.tick.get() {
                *cell.get() = self.tick.get();
                self.pending.borrow_mut().push((row as u32, entity));
            }
        }
    }
}

impl Drop for ChangeMarker<'_> {
    fn drop(&mut self) {
        let pending = self.pending.get_mut();
        if pending.is_empty() {
            return;
        }
        let mut log = self.tracker.lock();
        // Two queries writing disjoint rows of this pool (filters `With<X>` and `Without<X>`) may
        // run at once and flush in either order: an entry never goes in older than the last one,
        // so the log stays ordered. Readers check each candidate's own changed tick, so a later
        // stamp on the entry only makes it a candidate for a reader that then rejects it.
        let clock = &self.tracker.clock;
        let tick = match log.last() {
            Some(last) if clock.ticks(self.tick, clock.now()).is_newer(last.tick) => last.tick,
            _ => self.tick,
        };
        for &(row, entity) in pending.iter() {
            let slot = log.len() as u32;
            log.push(LogEntry { tick, entity });
            // SAFETY: slots are written through `&self` only under the log's mutex, held here.
            unsafe { *self.tracker.slots.0[row as usize].get() = slot };
        }
        if log.len() > 2 * self.tracker.added.len() + 64 {
            compact(&mut log, &self.tracker.slots, self.lookup);
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
}
