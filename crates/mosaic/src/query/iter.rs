//! The query iterator.

use super::{QueryData, QueryFilter};
use crate::entity::{AliveIter, Entity};

/// Where the entities a query visits come from.
pub(crate) enum Source<'w> {
    /// The rows of the smallest required pool (`entities` is its dense array).
    Rows { entities: &'w [Entity], next: usize },
    /// Every live entity, for queries that require no component.
    All(AliveIter<'w>),
}

/// Iterator over the items of a [`Query`](crate::Query), from [`Query::iter`](crate::Query::iter)
/// or by value.
///
/// Yields one item per matching entity, in the row order of the smallest required pool (or entity
/// index order when the query requires no component): arbitrary, but the same for the same
/// sequence of world operations. The world cannot change while the iterator lives.
pub struct QueryIter<'w, Q: QueryData, F: QueryFilter> {
    pub(crate) data: Q::Fetch<'w>,
    pub(crate) filter: F::Fetch<'w>,
    pub(crate) source: Source<'w>,
}

impl<'w, Q: QueryData, F: QueryFilter> Iterator for QueryIter<'w, Q, F> {
    type Item = Q::Item<'w>;

    #[inline]
    fn next(&mut self) -> Option<Q::Item<'w>> {
        match &mut self.source {
            Source::Rows { entities, next } => {
                while let Some(&entity) = entities.get(*next) {
                    let row = *next;
                    *next += 1;
                    if F::matches(&self.filter, entity) {
                        // SAFETY: the fetch was made from the world this iterator borrows, which
                        // cannot change for 'w; `entity` is alive (pools hold only live entities)
                        // and `row` is its row in the driver pool; rows advance monotonically, so
                        // each entity is fetched once.
                        if let Some(item) = unsafe { Q::fetch(&self.data, entity, row) } {
                            return Some(item);
                        }
                    }
                }
                None
            }
            Source::All(alive) => {
                for entity in alive.by_ref() {
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
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.source {
            Source::Rows { entities, next } => (0, Some(entities.len() - next)),
            Source::All(alive) => alive.size_hint(),
        }
    }
}
