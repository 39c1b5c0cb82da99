//! The iteration plan of a query, and the loop bodies every form of iteration shares.
//!
//! A query decides once what it walks ([`Plan`]): nothing, the driving pool's rows, the
//! candidates of a change log (when its filter names `Added<T>` / `Changed<T>` and few rows
//! changed), or every live entity. Each way of walking has one loop body here, over a range of
//! its items: [`visit_rows`], [`visit_candidates`], [`visit_entities`]. `for_each` runs a body
//! over the whole range, `par_for_each`, `par_for_each_deferred` and `par_fold` over disjoint
//! chunks on rayon's threads, so the parallel forms walk a change log in O(changed) as the
//! sequential ones do (bevy's `fold_over_storage_range`, which its `par_iter` reuses, is the
//! model). `QueryIter` and chunk iteration take the same plan.

use super::data::Driving;
use super::default_filter::Gate;
use super::{QueryData, QueryFilter};
use crate::component::Components;
use crate::entity::Entity;
use crate::storage::{SparseSet, Ticks};

/// What a query walks.
pub(crate) enum Plan<'w> {
    /// A required component was never registered: nothing matches.
    Empty,
    /// The driving pool's rows (or its owning group's).
    Rows(Driving<'w>),
    /// The candidates of a change log, driven by the tracked pool.
    Changed(ChangedWalk<'w>),
    /// No component is required: every live entity.
    All,
}

/// A walk over the part of a change log newer than a query's window: the candidates of a query
/// with an `Added` / `Changed` term, confirmed one by one.
pub(crate) struct ChangedWalk<'w> {
    /// The tracked pool, driving the walk.
    pub(crate) driving: Driving<'w>,
    pub(crate) changes: &'w crate::storage::ChangeTracker,
    pub(crate) lookup: crate::storage::RowLookup<'w>,
    pub(crate) entries: std::slice::Iter<'w, crate::storage::LogEntry>,
    /// The log index one past the last entry (the log index of an entry follows from the
    /// entries left; only debug builds use it).
    pub(crate) end: usize,
    /// The window candidates are confirmed against.
    pub(crate) window: crate::storage::TickWindow,
}

impl ChangedWalk<'_> {
    /// Entries left: an upper bound of the rows still to come.
    pub(crate) fn remaining(&self) -> usize {
        self.entries.len()
    }

    /// The driver row (and entity) of the next entity whose latest change is in the window, each
    /// entity once.
    #[inline(always)]
    pub(crate) fn next_row(&mut self) -> Option<(usize, Entity)> {
        let window = self.window;
        while let Some(entry) = self.entries.next() {
            let index = self.end - self.entries.len() - 1;
            if let Some((row, changed)) = self.changes.live_row_changed(entry, index, self.lookup)
                && window.is_newer(changed)
            {
                return Some((row, entry.entity));
            }
        }
        None
    }
}

impl<'w> ChangedWalk<'w> {
    /// Every candidate `(driver row, entity)` left, in walk order. O(log entries + changed).
    pub(crate) fn collect_rows(mut self) -> (Driving<'w>, Vec<(usize, Entity)>) {
        let mut rows = Vec::with_capacity(self.remaining());
        while let Some(candidate) = self.next_row() {
            rows.push(candidate);
        }
        (self.driving, rows)
    }
}

/// Calls `f` with the item of each matching entity among driver rows `first..first +
/// entities.len()` (`entities` being those rows of `driving.rows()`), in row order.
///
/// # Safety
/// - `driving` is the driver a query over `components` (with `gate`) picked, and the world has
///   not changed since; the caller holds that query's access;
/// - no other call, running or with items still in use, visits any of these rows (chunks are
///   disjoint).
#[inline]
pub(crate) unsafe fn visit_rows<'w, Q: QueryData, F: QueryFilter>(
    components: &'w Components,
    gate: Gate<'w>,
    ticks: Ticks,
    driving: Driving<'w>,
    first: usize,
    entities: &'w [Entity],
    f: impl FnMut(Q::Item<'w>),
) {
    let data = Q::init_fetch(components, Some(driving), ticks);
    let filter = F::init_fetch(components, ticks);
    // SAFETY: forwarded from the caller; the fetches were just made for this driver.
    unsafe { visit_rows_in::<Q, F>(&data, &filter, gate, driving, first, entities, f) }
}

/// [`visit_rows`] with fetches already made (`Q::init_fetch` and `F::init_fetch` for this
/// driver, from the same world): for a caller that visits several ranges of rows one after
/// another on one thread, so the fetches are set up once.
///
/// # Safety
/// As [`visit_rows`], with `data` and `filter` made for `driving` from the world it walks, and
/// no two calls over the same fetches running at once.
#[inline]
pub(crate) unsafe fn visit_rows_in<'w, Q: QueryData, F: QueryFilter>(
    data: &Q::Fetch<'w>,
    filter: &F::Fetch<'w>,
    gate: Gate<'w>,
    driving: Driving<'w>,
    first: usize,
    entities: &'w [Entity],
    mut f: impl FnMut(Q::Item<'w>),
) {
    let lazy = driving.pool.is_lazy();
    // With no row test (`gated` false) the loops are the ones before disabling existed.
    let gated = gate.is_needed(lazy);
    let end = first + entities.len();
    let aligned_end = Q::aligned_rows(data).clamp(first, end);
    if !F::TRIVIAL
        && let Some(pool) = F::walk_pool(filter)
        && let Some(subset) = Subset::of(pool, driving, first, end)
    {
        // SAFETY: forwarded from the caller; `subset` was found for these rows of this driver,
        // from `pool`.
        return unsafe { visit_subset::<Q, F>(data, filter, gate, pool, subset, aligned_end, f) };
    }
    // The fetch was made from the world the query borrows, unchanged since; each `entity` is
    // `entities[row - first]`, live unless the driver is lazy (checked through the gate), and
    // `row` is its row in the driver pool; rows are disjoint across calls (caller), so each row
    // is fetched once, and components are `Send + Sync`, so references to distinct values may be
    // used on different threads. (Skipping disabled entities is the gate's other test: a rule
    // of what matches, not of soundness.)
    if F::TRIVIAL && !gated && !Q::marks_changes(data) {
        for (row, &entity) in (first..aligned_end).zip(entities) {
            // SAFETY: as above, and `row` is below the fetch's aligned rows; nothing is tracked.
            f(unsafe { Q::fetch_aligned_unmarked(data, entity, row) });
        }
    } else if F::TRIVIAL && !gated {
        for (row, &entity) in (first..aligned_end).zip(entities) {
            // SAFETY: as above, and `row` is below the fetch's aligned rows.
            f(unsafe { Q::fetch_aligned(data, entity, row) });
        }
    } else if !Q::marks_changes(data) {
        for (row, &entity) in (first..aligned_end).zip(entities) {
            if (F::TRIVIAL || F::matches(filter, entity)) && (!gated || gate.admits(lazy, entity)) {
                // SAFETY: as above, and `row` is below the fetch's aligned rows; nothing is
                // tracked.
                f(unsafe { Q::fetch_aligned_unmarked(data, entity, row) });
            }
        }
    } else {
        for (row, &entity) in (first..aligned_end).zip(entities) {
            if (F::TRIVIAL || F::matches(filter, entity)) && (!gated || gate.admits(lazy, entity)) {
                // SAFETY: as above, and `row` is below the fetch's aligned rows.
                f(unsafe { Q::fetch_aligned(data, entity, row) });
            }
        }
    }
    for (row, &entity) in (aligned_end..end).zip(&entities[aligned_end - first..]) {
        if F::matches(filter, entity) && (!gated || gate.admits(lazy, entity)) {
            // SAFETY: as above, through the checked lookup path.
            if let Some(item) = unsafe { Q::fetch(data, entity, row) } {
                f(item);
            }
        }
    }
}

/// The entities of a filter's walk pool (`With<T>`'s) that sit in rows `first..end` of the
/// driver, found by index arithmetic, so a filtered walk visits them and skips the rest without
/// testing each row: for a driver whose rows hold consecutive entity indices (row `r` holds
/// index `base + r`; entities spawned together) and a walk pool whose rows are sorted by index.
/// The driver row of a walked entity is then its index minus `base`, and the walk pool's rows in
/// order are the driver's rows in order, so the items come in the order a walk over the driver
/// yields them. Both orders are remembered per pool version (`alignment::index_order`).
struct Subset<'w> {
    /// The walk pool's rows `lo..` that fall in the driver rows walked, in row order.
    entities: &'w [Entity],
    lo: usize,
    /// The entity index of the driver's row 0.
    base: u32,
}

impl<'w> Subset<'w> {
    /// The entities of `pool` in rows `first..end` of `driving`, when both orders allow finding
    /// them by index (neither pool lazily cleaned, so each holds only live entities and an index
    /// names one entity in both). O(log n) after the first call per pool version.
    fn of(pool: &'w SparseSet, driving: Driving<'w>, first: usize, end: usize) -> Option<Self> {
        if std::ptr::eq(pool, driving.pool) || pool.is_lazy() || driving.pool.is_lazy() {
            return None;
        }
        let base = super::alignment::index_order(driving.pool).base?;
        if !super::alignment::index_order(pool).sorted {
            return None;
        }
        let dense = pool.entities();
        let (from, to) = (u64::from(base) + first as u64, u64::from(base) + end as u64);
        let lo = dense.partition_point(|e| u64::from(e.index()) < from);
        let len = dense[lo..].partition_point(|e| u64::from(e.index()) < to);
        Some(Subset { entities: &dense[lo..lo + len], lo, base })
    }

    /// How many of the entities sit in driver rows below `row`.
    fn below(&self, row: usize) -> usize {
        let to = u64::from(self.base) + row as u64;
        self.entities.partition_point(|e| u64::from(e.index()) < to)
    }
}

/// [`visit_rows_in`] over a [`Subset`] of the rows: each entity of the walk pool in those rows,
/// tested against the rest of the filter, in row order; rows from `aligned_end` on through
/// lookups.
///
/// `pool` is the value `F::walk_pool` returned, passed as is rather than read back from
/// `subset`: the compiler then sees that a lone `With`'s pointer compare in
/// `QueryFilter::matches_walked` always holds, and drops it from the loop.
///
/// # Safety
/// As [`visit_rows_in`] for the driver rows `subset` was made from (from `pool`), with
/// `aligned_end` that call's end of the aligned rows.
#[inline]
unsafe fn visit_subset<'w, Q: QueryData, F: QueryFilter>(
    data: &Q::Fetch<'w>,
    filter: &F::Fetch<'w>,
    gate: Gate<'w>,
    pool: &'w SparseSet,
    subset: Subset<'w>,
    aligned_end: usize,
    mut f: impl FnMut(Q::Item<'w>),
) {
    // Neither pool is lazy (`Subset::of`): the gate tests only disabled entities.
    let gated = gate.is_needed(false);
    let base = subset.base;
    let split = subset.below(aligned_end);
    let (aligned, rest) = subset.entities.split_at(split);
    // Each `entity` is live (the walk pool is not lazy) and sits at driver row `index - base`
    // (the driver holds consecutive indices, and one live entity has a given index), below
    // `aligned_end` in the first loops; rows increase strictly, so each is fetched once.
    if !gated && !Q::marks_changes(data) {
        for (w_row, &entity) in (subset.lo..).zip(aligned) {
            if F::matches_walked(filter, entity, pool, w_row) {
                let row = entity.index().wrapping_sub(base) as usize;
                // SAFETY: as above (the caller's contract for these rows); nothing is tracked.
                f(unsafe { Q::fetch_aligned_unmarked(data, entity, row) });
            }
        }
    } else {
        for (w_row, &entity) in (subset.lo..).zip(aligned) {
            if F::matches_walked(filter, entity, pool, w_row) && (!gated || gate.enabled(entity)) {
                let row = entity.index().wrapping_sub(base) as usize;
                // SAFETY: as above.
                f(unsafe { Q::fetch_aligned(data, entity, row) });
            }
        }
    }
    for (w_row, &entity) in (subset.lo + split..).zip(rest) {
        if F::matches_walked(filter, entity, pool, w_row) && (!gated || gate.enabled(entity)) {
            let row = entity.index().wrapping_sub(base) as usize;
            // SAFETY: as above, through the checked lookup path.
            if let Some(item) = unsafe { Q::fetch(data, entity, row) } {
                f(item);
            }
        }
    }
}

/// Calls `f` with the item of each matching entity among `candidates`, `(driver row, entity)`
/// pairs a change walk over `driving`'s pool yielded (the walk itself, or a chunk of its
/// collected rows), in the order given.
///
/// # Safety
/// - `driving` is the driver of a query over `components` (with `gate`), whose change walk
///   yielded `candidates` (each row once), and the world has not changed since; the caller holds
///   that query's access;
/// - no other call, running or with items still in use, visits any of these candidates.
#[inline]
pub(crate) unsafe fn visit_candidates<'w, Q: QueryData, F: QueryFilter>(
    components: &'w Components,
    gate: Gate<'w>,
    ticks: Ticks,
    driving: Driving<'w>,
    candidates: impl IntoIterator<Item = (usize, Entity)>,
    f: impl FnMut(Q::Item<'w>),
) {
    let data = Q::init_fetch(components, Some(driving), ticks);
    let filter = F::init_fetch(components, ticks);
    // SAFETY: forwarded from the caller; the fetches were just made for this driver.
    unsafe { visit_candidates_in::<Q, F>(&data, &filter, gate, driving, candidates, f) }
}

/// [`visit_candidates`] with fetches already made for this driver (as [`visit_rows_in`]).
///
/// # Safety
/// As [`visit_candidates`], with `data` and `filter` made for `driving` from the world it
/// walks, and no two calls over the same fetches running at once.
#[inline]
pub(crate) unsafe fn visit_candidates_in<'w, Q: QueryData, F: QueryFilter>(
    data: &Q::Fetch<'w>,
    filter: &F::Fetch<'w>,
    gate: Gate<'w>,
    driving: Driving<'w>,
    candidates: impl IntoIterator<Item = (usize, Entity)>,
    mut f: impl FnMut(Q::Item<'w>),
) {
    let lazy = driving.pool.is_lazy();
    let gated = gate.is_needed(lazy);
    let dense = driving.pool.entities();
    for (row, entity) in candidates {
        if (!gated || gate.admits(lazy, entity))
            && (F::PASSED_BY_CHANGE_WALK || F::matches_at(filter, entity, dense, row))
        {
            // SAFETY: the fetch was made with this pool as driver from the world the query
            // borrows, unchanged since; `entity` is live (pools hold only live entities; a lazy
            // pool's dead rows fail the check), and `row` is its row in the driver; candidates
            // name each row once, and disjoint calls share none (caller).
            if let Some(item) = unsafe { Q::fetch(data, entity, row) } {
                f(item);
            }
        }
    }
}

/// Calls `f` with the item of each of `entities` (live, distinct) that matches, in the order
/// given: the walk of a query that requires no component.
///
/// # Safety
/// - `components` is the world a query borrows, unchanged since; the caller holds that query's
///   access, and every entity of `entities` is alive in it; `gate` is that query's;
/// - no other call, running or with items still in use, visits any of these entities.
#[inline]
pub(crate) unsafe fn visit_entities<'w, Q: QueryData, F: QueryFilter>(
    components: &'w Components,
    gate: Gate<'w>,
    ticks: Ticks,
    entities: impl IntoIterator<Item = Entity>,
    mut f: impl FnMut(Q::Item<'w>),
) {
    let data = Q::init_fetch(components, None, ticks);
    let filter = F::init_fetch(components, ticks);
    let gated = gate.is_needed(false);
    for entity in entities {
        if F::matches(&filter, entity) && (!gated || gate.enabled(entity)) {
            // SAFETY: the fetch has no driver, so `row` is unused and every component is looked
            // up; `entity` is alive and visited once (caller).
            if let Some(item) = unsafe { Q::fetch(&data, entity, usize::MAX) } {
                f(item);
            }
        }
    }
}
