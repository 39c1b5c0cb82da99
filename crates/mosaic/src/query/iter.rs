//! The query iterator.

use super::default_filter::Gate;
use super::{QueryData, QueryFilter};
use crate::component::Components;
use crate::entity::{AliveIter, Entity};
use crate::storage::Ticks;

/// Iterator over the items of a [`Query`](crate::Query), from [`Query::iter`](crate::Query::iter)
/// or by value.
///
/// Yields one item per matching entity, in the row order of the driving pool (see
/// [`Query`](crate::Query); entity index order when the query requires no component):
/// arbitrary, but the same for the same sequence of world operations, and the order
/// [`Query::for_each`](crate::Query::for_each) visits. The world cannot change while the
/// iterator lives.
///
/// Cost: rows that every required pool holds at the same position (the aligned run, which pools
/// filled by the same spawns share) cost an index computation each, as in `for_each`; the rest a
/// lookup per component.
pub struct QueryIter<'w, Q: QueryData, F: QueryFilter> {
    pub(crate) data: Q::Fetch<'w>,
    pub(crate) filter: F::Fetch<'w>,
    /// The driving pool's entities (empty when walking all live entities).
    pub(crate) entities: &'w [Entity],
    /// Next row of `entities`.
    pub(crate) row: usize,
    /// Rows below this are yielded with no filter, liveness check or lookup: the aligned run when
    /// the filter is trivial and the driver is not lazily cleaned, else 0.
    pub(crate) fast: usize,
    /// Rows below this are aligned in every required pool (see `QueryData::aligned_rows`).
    pub(crate) aligned: usize,
    /// Every live entity, for queries that require no component.
    pub(crate) all: Option<AliveIter<'w>>,
    /// Set when the driving pool is lazily cleaned (`lazy`: rows of dead entities are skipped)
    /// or the query skips disabled entities (the gate's pools): each row is tested.
    //
    // The gate alone, not `Option<(bool, Gate)>`: this way `None` is the null world pointer, as
    // it was the null `&Entities` before disabling existed, rather than a third value of the
    // flag; with the flag's niche, `simple_iter_for`'s fast loop gained two register moves per
    // item (190,709 -> 210,749 instructions per 10,000 items).
    pub(crate) live_check: Option<Gate<'w>>,
    /// Whether the driving pool is lazily cleaned (read only with `live_check`).
    pub(crate) lazy: bool,
    /// A change log's candidates, walked instead of `entities` (which is then empty, as `all` is
    /// `None`), with the window they are confirmed against.
    ///
    /// Held inline: boxed, every item of a walk reloaded the walk's state through the box
    /// (`Changed<T>` over 10^6 rows with 1% changed: 0.020-0.026 of a full iteration inline,
    /// 0.030-0.033 boxed). An earlier version of this iterator measured `simple_iter_for` 15%
    /// slower with the walk inline; the current one shows no difference there in seven
    /// interleaved rounds (5.56 against 5.58 us, the same instruction count), and filter_iter ran
    /// faster (8.6 against 10.1 us).
    pub(crate) changed: Option<super::plan::ChangedWalk<'w>>,
    /// The world's components and the reader's change window, for the sorts
    /// (`query/sorted.rs`), which fetch their keys through a query data of their own.
    pub(crate) components: &'w Components,
    pub(crate) ticks: Ticks,
}
// Invariant: `fast <= aligned <= entities.len()`, and `fast == 0` unless `F::TRIVIAL`,
// `live_check.is_none()` and the fetch stamps no change ticks (`QueryData::marks_changes`), so
// the fast run uses the unstamped fetch with no branch; set by the one constructor
// (`query::core::make_iter`).

impl<'w, Q: QueryData, F: QueryFilter> QueryIter<'w, Q, F> {
    /// Builds the iterator over `entities` (the driving rows) with captured fetches.
    pub(crate) fn new(
        (components, ticks): (&'w Components, Ticks),
        data: Q::Fetch<'w>,
        filter: F::Fetch<'w>,
        entities: &'w [Entity],
        all: Option<AliveIter<'w>>,
        live_check: Option<(bool, Gate<'w>)>,
    ) -> Self {
        let aligned = Q::aligned_rows(&data).min(entities.len());
        let fast = if F::TRIVIAL && live_check.is_none() && !Q::marks_changes(&data) { aligned } else { 0 };
        let (lazy, live_check) = match live_check {
            Some((lazy, gate)) => (lazy, Some(gate)),
            None => (false, None),
        };
        Self {
            data,
            filter,
            entities,
            row: 0,
            fast,
            aligned,
            all,
            live_check,
            lazy,
            changed: None,
            components,
            ticks,
        }
    }

    #[inline(always)]
    fn live(&self, entity: Entity) -> bool {
        self.live_check.is_none_or(|gate| gate.admits(self.lazy, entity))
    }

    /// The item at aligned row `row`, which the iterator has just stepped past.
    ///
    /// # Safety
    /// `row < self.aligned` and `row` was not fetched before by this iterator.
    #[inline(always)]
    unsafe fn aligned_item(&self, row: usize) -> Q::Item<'w> {
        debug_assert!(row < self.aligned && self.aligned <= self.entities.len());
        // SAFETY: `row < aligned <= entities.len()` (caller and the type's invariant).
        let entity = unsafe { *self.entities.get_unchecked(row) };
        // SAFETY: the fetch was made from the world this iterator borrows, which cannot change
        // for 'w; `entity` is alive (pools hold only live entities, and a lazy driver's rows
        // reach here only after the liveness check or with `fast == 0`); `row` is its row in the
        // driver and below the fetch's aligned rows (caller); rows only advance, so each entity
        // is fetched once (caller).
        unsafe { Q::fetch_aligned(&self.data, entity, row) }
    }

    /// The item at row `row` of the fast run, which the iterator has just stepped past.
    ///
    /// # Safety
    /// `row < self.fast` (so nothing is tracked) and `row` was not fetched before by this
    /// iterator.
    #[inline(always)]
    unsafe fn fast_item(&self, row: usize) -> Q::Item<'w> {
        debug_assert!(row < self.fast && !Q::marks_changes(&self.data));
        // SAFETY: `row < fast <= aligned <= entities.len()` (caller and the type's invariant).
        let entity = unsafe { *self.entities.get_unchecked(row) };
        // SAFETY: as `aligned_item`; `fast > 0` implies `!marks`, which the unstamped fetch needs.
        unsafe { Q::fetch_aligned_unmarked(&self.data, entity, row) }
    }

    /// Everything past the unfiltered aligned run: filtered or lazily cleaned aligned rows, rows
    /// that need lookups, and the walk over all live entities. The sorts walk the same way
    /// without fetching (`next_match` in `query/sorted.rs`): a change here is made there too.
    ///
    /// Inlined into `next`: kept out of line (or given split borrows), it makes the iterator's
    /// fields escape, and a `for` loop then reloads them from the stack per item (10.8 us against
    /// 8.6 us for 10,000 items in the peer suite's simple_iter_for).
    #[inline(always)]
    fn next_slow(&mut self) -> Option<Q::Item<'w>> {
        // A change walk first: its iterator has no rows of its own (`entities` is empty).
        if let Some(walk) = self.changed.as_mut() {
            let dense = walk.driving.pool.entities();
            let (live_check, lazy) = (self.live_check, self.lazy);
            while let Some((row, entity)) = walk.next_row() {
                if live_check.is_none_or(|gate| gate.admits(lazy, entity))
                    && (F::PASSED_BY_CHANGE_WALK || F::matches_at(&self.filter, entity, dense, row))
                {
                    // SAFETY: the fetch was made with this pool as driver from the world this
                    // iterator borrows, unchanged for 'w; `entity` is live (pools hold only live
                    // entities; a lazy pool's dead rows fail the check) and `row` is its row in
                    // the driver; the walk yields each entity's row once (one live log entry per
                    // row), so each row is fetched once.
                    if let Some(item) = unsafe { Q::fetch(&self.data, entity, row) } {
                        return Some(item);
                    }
                }
            }
            return None;
        }
        while self.row < self.aligned {
            let row = self.row;
            self.row += 1;
            let entity = self.entities[row];
            if (F::TRIVIAL || F::matches(&self.filter, entity)) && self.live(entity) {
                // SAFETY: `row < aligned`, and `row` was just stepped past, so it is fetched once.
                return Some(unsafe { self.aligned_item(row) });
            }
        }
        while let Some(&entity) = self.entities.get(self.row) {
            let row = self.row;
            self.row += 1;
            if F::matches(&self.filter, entity) && self.live(entity) {
                // SAFETY: the fetch was made from the world this iterator borrows, which cannot
                // change for 'w; `entity` is alive (pools hold only live entities; a lazy
                // driver's dead rows fail `live`) and `row` is its row in the driver pool; rows
                // only advance, so each entity is fetched once.
                if let Some(item) = unsafe { Q::fetch(&self.data, entity, row) } {
                    return Some(item);
                }
            }
        }
        let live_check = self.live_check;
        let all = self.all.as_mut()?;
        for entity in all.by_ref() {
            // Every entity `all` yields is alive: the gate, when set, tests only disabling pools.
            if F::matches(&self.filter, entity) && live_check.is_none_or(|gate| gate.enabled(entity)) {
                // SAFETY: as above; this fetch has no driver, so `row` is unused, and the
                // allocator yields each live entity once.
                if let Some(item) = unsafe { Q::fetch(&self.data, entity, usize::MAX) } {
                    return Some(item);
                }
            }
        }
        None
    }
}

impl<'w, Q: QueryData, F: QueryFilter> Iterator for QueryIter<'w, Q, F> {
    type Item = Q::Item<'w>;

    /// The unfiltered aligned run is a counter step and an index computation per item, so a
    /// `for` loop over it compiles to the loop `for_each` runs; everything else goes through
    /// the general path.
    #[inline(always)]
    fn next(&mut self) -> Option<Q::Item<'w>> {
        if self.row < self.fast {
            let row = self.row;
            self.row = row + 1;
            // SAFETY: `row < fast <= aligned`, and `row` was just stepped past; `fast > 0` only
            // when nothing is tracked (the type's invariant).
            return Some(unsafe { self.fast_item(row) });
        }
        // Tells the register allocator which loop is hot: without it, a `for` loop over the
        // fast run kept its row counter and column bases in stack slots, spilled in favour of
        // the slow path's state (simple_iter_for: 9.6 us against 5.4 us, 230k against 180k
        // instructions per 10,000 items). Filtered and optional loops lose nothing measurable:
        // they take this path every item, and a branch hint does not slow a taken branch.
        std::hint::cold_path();
        self.next_slow()
    }

    /// Walks the unfiltered aligned run as a counted loop (what `Iterator::for_each`, `sum`
    /// and the like call), then the rest item by item.
    #[inline]
    fn fold<B, G: FnMut(B, Q::Item<'w>) -> B>(mut self, init: B, mut g: G) -> B {
        let mut acc = init;
        let (start, fast) = (self.row, self.fast);
        self.row = fast.max(start);
        for row in start..fast {
            // SAFETY: `row < fast <= aligned`; `self.row` is already past the run, so no row of
            // it is fetched again; `fast > 0` only when nothing is tracked.
            acc = g(acc, unsafe { self.fast_item(row) });
        }
        while let Some(item) = self.next_slow() {
            acc = g(acc, item);
        }
        acc
    }

    /// Exact when the count is known without iterating: every remaining row is in the aligned
    /// run of a trivially filtered query (a query of one component, or of components a group
    /// keeps aligned, with no filter), or the query requires nothing and has no filter (every
    /// live entity). Otherwise a lower bound of the aligned run left and an upper bound of the
    /// rows left.
    fn size_hint(&self) -> (usize, Option<usize>) {
        let rows = self.entities.len() - self.row;
        let sure = self.fast.saturating_sub(self.row);
        if let Some(walk) = &self.changed {
            return (0, Some(walk.remaining()));
        }
        match &self.all {
            None => (sure, Some(rows)),
            // Every live entity passes a trivial filter, unless the query skips disabled ones.
            Some(all) if F::TRIVIAL && !Q::SELECTIVE && self.live_check.is_none() => {
                (all.len() + sure, Some(all.len() + rows))
            }
            Some(all) => (sure, Some(all.len() + rows)),
        }
    }
}
