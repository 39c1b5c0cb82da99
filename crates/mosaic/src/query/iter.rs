//! The query iterator.

use super::{QueryData, QueryFilter};
use crate::entity::{AliveIter, Entities, Entity};

/// Iterator over the items of a [`Query`](crate::Query), from [`Query::iter`](crate::Query::iter)
/// or by value.
///
/// Yields one item per matching entity, in the row order of the smallest required pool (or entity
/// index order when the query requires no component): arbitrary, but the same for the same
/// sequence of world operations. The world cannot change while the iterator lives.
pub struct QueryIter<'w, Q: QueryData, F: QueryFilter> {
    pub(crate) data: Q::Fetch<'w>,
    pub(crate) filter: F::Fetch<'w>,
    /// The driving pool's entities (empty when walking all live entities).
    pub(crate) entities: &'w [Entity],
    /// Next row of `entities`.
    pub(crate) row: usize,
    /// Rows below this are aligned in every required pool (see `QueryData::aligned_rows`).
    pub(crate) aligned: usize,
    /// Every live entity, for queries that require no component.
    pub(crate) all: Option<AliveIter<'w>>,
    /// Set when the driving pool is lazily cleaned: rows of dead entities are skipped.
    pub(crate) live_check: Option<&'w Entities>,
}

impl<Q: QueryData, F: QueryFilter> QueryIter<'_, Q, F> {
    #[inline(always)]
    fn live(&self, entity: Entity) -> bool {
        self.live_check.is_none_or(|entities| entities.is_alive(entity))
    }
}

impl<'w, Q: QueryData, F: QueryFilter> Iterator for QueryIter<'w, Q, F> {
    type Item = Q::Item<'w>;

    #[inline]
    fn next(&mut self) -> Option<Q::Item<'w>> {
        while self.row < self.aligned {
            let row = self.row;
            self.row += 1;
            let entity = self.entities[row];
            if (F::TRIVIAL || F::matches(&self.filter, entity)) && self.live(entity) {
                // SAFETY: as below, and `row` is below the fetch's aligned rows.
                return Some(unsafe { Q::fetch_aligned(&self.data, entity, row) });
            }
        }
        while let Some(&entity) = self.entities.get(self.row) {
            let row = self.row;
            self.row += 1;
            if F::matches(&self.filter, entity) && self.live(entity) {
                // SAFETY: the fetch was made from the world this iterator borrows, which cannot
                // change for 'w; `entity` is alive (pools hold only live entities) and `row` is its
                // row in the driver pool; rows only advance, so each entity is fetched once.
                if let Some(item) = unsafe { Q::fetch(&self.data, entity, row) } {
                    return Some(item);
                }
            }
        }
        let all = self.all.as_mut()?;
        for entity in all.by_ref() {
            if F::matches(&self.filter, entity) {
                // SAFETY: as above; this fetch has no driver, so `row` is unused, and the
                // allocator yields each live entity once.
                if let Some(item) = unsafe { Q::fetch(&self.data, entity, usize::MAX) } {
                    return Some(item);
                }
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let rows = self.entities.len() - self.row;
        match &self.all {
            None => (0, Some(rows)),
            Some(all) => (0, all.size_hint().1.map(|n| n + rows)),
        }
    }
}
