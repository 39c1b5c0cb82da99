//! Whether and how many entities a query matches, found by presence checks: nothing is fetched,
//! so no change is stamped.

use smallvec::SmallVec;

use super::core::Driver;
use super::{Query, QueryData, QueryFilter};
use crate::entity::Entity;
use crate::storage::SparseSet;

impl<'w, Q: QueryData, F: QueryFilter> Query<'w, Q, F> {
    /// Number of entities the query matches, without fetching any item.
    ///
    /// O(1) when the filter is trivial and the walked pool alone decides the match: a query
    /// requiring one component (e.g. `&T`, or `(Entity, &T, Option<&U>)`) is its pool's length,
    /// one driven by an owning group holding exactly its components is the group's length, and
    /// one requiring nothing is the live entity count. Otherwise O(n_min * c) presence checks
    /// over the smallest required pool (or the live entities), with no item fetched. A lazily
    /// cleaned driving pool is always walked, since it may hold dead rows, and so are the rows
    /// of a query that skips disabled entities (see [`Disabled`](crate::Disabled)).
    pub fn count(&self) -> usize {
        if Q::SELECTIVE || self.skip.is_active() {
            return self.count_up_to(usize::MAX);
        }
        let filter = F::init_fetch(self.components(), self.ticks);
        if let Some(mut walk) = self.change_candidates() {
            return std::iter::from_fn(|| walk.next_row())
                .filter(|&(_, entity)| self.contains(entity))
                .count();
        }
        let Driver::Pool(driving) = self.driver else {
            return match self.driver {
                Driver::Empty => 0,
                _ if F::TRIVIAL => self.entities().len() as usize,
                _ => self.entities().iter().filter(|&e| F::matches(&filter, e)).count(),
            };
        };
        let owned: &[crate::component::ComponentId] = driving.group.map_or(&[], |(_, owned)| owned);
        // The required pools the walk does not vouch for: neither the driver nor owned by its group.
        let mut others = SmallVec::<[&SparseSet; 8]>::new();
        let mut visit = |pool: Option<&'w SparseSet>| {
            if let Some(pool) = pool {
                let vouched = std::ptr::eq(pool, driving.pool)
                    || owned.iter().any(|&id| std::ptr::eq(self.components().pool(id), pool));
                if !vouched && !others.iter().any(|&p| std::ptr::eq(p, pool)) {
                    others.push(pool);
                }
            }
        };
        Q::visit_required(self.components(), &mut visit);
        F::visit_required(self.components(), &mut visit);
        let rows = driving.rows();
        let lazy = driving.pool.is_lazy();
        if F::TRIVIAL && !lazy && others.is_empty() {
            return rows.len();
        }
        rows.iter()
            .filter(|&&e| {
                (!lazy || self.entities().is_alive(e))
                    && (F::TRIVIAL || F::matches(&filter, e))
                    && others.iter().all(|p| p.contains(e))
            })
            .count()
    }

    /// Whether the query matches no entity: as [`Query::count`] `== 0`, but stops at the first
    /// match, and fetches nothing (so no change is stamped). O(rows walked up to the first match
    /// * c) presence checks.
    pub fn is_empty(&self) -> bool {
        match self.driver {
            Driver::Empty => true,
            Driver::Pool(driving) => !driving.rows().iter().any(|&e| self.contains(e)),
            Driver::All => !self.entities().iter().any(|e| self.contains(e)),
        }
    }

    /// How many entities the query matches, counting no further than `limit`: `Single` asks for
    /// up to 2, `Populated` for 1. Presence checks only (nothing fetched, no change stamped);
    /// O(rows walked until `limit` matches * c).
    pub(crate) fn count_up_to(&self, limit: usize) -> usize {
        if let Some(mut walk) = self.change_candidates() {
            return std::iter::from_fn(|| walk.next_row())
                .filter(|&(_, entity)| self.contains(entity))
                .take(limit)
                .count();
        }
        match self.driver {
            Driver::Empty => 0,
            Driver::Pool(driving) => driving.rows().iter().filter(|&&e| self.contains(e)).take(limit).count(),
            Driver::All => self.entities().iter().filter(|&e| self.contains(e)).take(limit).count(),
        }
    }

    /// Whether `entity` is alive and matches the query (and is not disabled, unless the query
    /// names the disabling component; see [`Disabled`](crate::Disabled)). O(c).
    pub fn contains(&self, entity: Entity) -> bool {
        self.entities().is_alive(entity)
            && self.gate().enabled(entity)
            && F::matches(&F::init_fetch(self.components(), self.ticks), entity)
            && {
                let mut all = true;
                Q::visit_required(self.components(), &mut |pool| {
                    all &= pool.is_some_and(|pool| pool.contains(entity));
                });
                // An enum query may still refuse it: ask the terms, without a driver (`row` unused).
                all && (!Q::SELECTIVE
                    || Q::matches(&Q::init_fetch(self.components(), None, self.ticks), entity, usize::MAX))
            }
    }
}

/// The entities `query` matches, in the walked pool's row order (entity index order when it
/// requires nothing), found by presence checks: nothing is fetched, so no change is stamped.
pub(crate) fn matching_entities<Q: QueryData, F: QueryFilter>(query: &Query<'_, Q, F>) -> Vec<Entity> {
    match query.driver {
        Driver::Empty => Vec::new(),
        Driver::Pool(driving) => driving.rows().iter().copied().filter(|&e| query.contains(e)).collect(),
        Driver::All => query.entities().iter().filter(|&e| query.contains(e)).collect(),
    }
}
