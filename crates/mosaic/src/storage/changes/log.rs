//! The change log: its entries, and how entries follow rows, die, are compacted and take in the
//! rows queries stamped.

use std::sync::atomic::{AtomicBool, Ordering};

use super::cells::{Pending, RowCells};
use crate::entity::Entity;
use crate::storage::sparse_set::RowLookup;
use crate::storage::tick::{Clock, Tick};

/// Marks a row whose change has no entry in the log.
pub(super) const NO_SLOT: u32 = u32::MAX;

/// The `row` of a change-log entry superseded by a later change of its row, or whose row left
/// the pool; and the `row` of every removal entry.
pub(super) const DEAD_ROW: u32 = u32::MAX;

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

/// The row of `entry` (at `index` in a log over `cells`) if it is live; see
/// [`ChangeTracker::live_row`].
#[inline(always)]
pub(super) fn live_row(
    cells: &RowCells,
    entry: &LogEntry,
    index: usize,
    lookup: RowLookup<'_>,
) -> Option<usize> {
    live_row_changed(cells, entry, index, lookup).map(|(row, _)| row)
}

/// [`live_row`] and the row's changed tick, both read from the entry: a live entry's row is
/// exact and its `changed` is the row's (see the invariants of [`ChangeTracker`]).
#[inline(always)]
pub(super) fn live_row_changed(
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
pub(super) fn supersede(log: &mut [LogEntry], slot: u32) {
    if slot != NO_SLOT {
        log[slot as usize].row = DEAD_ROW;
    }
}

/// Points the entry at `slot` (a row's slot, or `NO_SLOT`) at the row's new place `row`.
#[inline]
pub(super) fn follow(log: &mut [LogEntry], slot: u32, row: usize) {
    if slot != NO_SLOT {
        log[slot as usize].row = row as u32;
    }
}

/// Keeps the live entries of `log`, in order, and renumbers their rows' slots.
///
/// # Safety
/// The caller holds the log exclusively: its mutex, or `&mut` to the tracker.
pub(super) unsafe fn compact(log: &mut Vec<LogEntry>, cells: &RowCells) {
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
pub(super) fn drain(
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
