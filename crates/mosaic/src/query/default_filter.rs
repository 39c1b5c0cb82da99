//! Default query filters: the disabling components ([`Disabled`] and those registered with
//! [`World::register_disabling_component`]) whose entities a query skips unless it names them.
//!
//! bevy's rule (`DefaultQueryFilters`, bevy 0.16): a query that mentions a disabling component
//! in any term sees the entities it disables, and its own terms decide. A query decides once,
//! when it is built, which disabling pools it skips ([`Skip::of`]): only those that are not
//! empty and that it does not name. With none (no entity disabled), every path is the one it
//! was before disabling existed; with some, the walks treat the driver as gated (as they treat
//! a lazily cleaned pool) and test each row against the skipped pools.

use std::any::TypeId;

use smallvec::SmallVec;

use super::{QueryData, QueryFilter};
use crate::entity::{Entities, Entity};
use crate::storage::SparseSet;
use crate::world::{Disabled, MAX_DISABLING_COMPONENTS, World};

/// The disabling pools a query skips: the non-empty ones it does not name, packed first.
//
// Invariant: `pools[..n]` are `Some` and `pools[n..]` are `None`, for some `n`.
#[derive(Clone, Copy, Default)]
pub(crate) struct Skip<'w> {
    pools: [Option<&'w SparseSet>; MAX_DISABLING_COMPONENTS],
}

impl<'w> Skip<'w> {
    /// The pools a query of data `Q` and filter `F` over `world` skips. O(1) when no disabling
    /// pool holds an entity (the common case: one type-slot lookup per disabling type); else
    /// O(t) in the query's t terms, to see which disabling types it names.
    #[inline]
    pub(crate) fn of<Q: QueryData, F: QueryFilter>(world: &'w World) -> Self {
        // The common case first, inline: no disabling type registered besides `Disabled`, and no
        // entity holds `Disabled`. Every query pays this when it is built, so it is kept to a
        // slot lookup and a length test: with the general walk below inline, the peer suite's
        // frag_iter (one query over 520 rows) ran 827 -> 887 instructions per query.
        let disabled = world.components().pool_of::<Disabled>();
        if world.disabling_components().is_empty() && disabled.is_none_or(SparseSet::is_empty) {
            return Self::default();
        }
        Self::of_any::<Q, F>(world)
    }

    /// [`Skip::of`] when some disabling pool may hold an entity. O(t) in the query's t terms.
    #[cold]
    #[inline(never)]
    fn of_any<Q: QueryData, F: QueryFilter>(world: &'w World) -> Self {
        let components = world.components();
        let mut skip = Self::default();
        let mut n = 0;
        let disabled = components.pool_of::<Disabled>().map(|pool| (TypeId::of::<Disabled>(), pool));
        let others = world.disabling_components().iter().map(|&(type_id, id)| (type_id, components.pool(id)));
        let mut mentioned = None::<SmallVec<[TypeId; 8]>>;
        for (type_id, pool) in disabled.into_iter().chain(others) {
            if pool.is_empty() {
                continue;
            }
            let mentioned = mentioned.get_or_insert_with(|| {
                let mut types = SmallVec::new();
                Q::visit_mentioned(&mut |t| types.push(t));
                F::visit_mentioned(&mut |t| types.push(t));
                types
            });
            if !mentioned.contains(&type_id) {
                skip.pools[n] = Some(pool);
                n += 1;
            }
        }
        skip
    }

    /// Whether any pool is skipped: the walks then test each row with [`Skip::admits`].
    #[inline(always)]
    pub(crate) fn is_active(&self) -> bool {
        self.pools[0].is_some()
    }

    /// Whether `entity` is in none of the skipped pools. O(p) lookups for p skipped pools.
    #[inline(always)]
    pub(crate) fn admits(&self, entity: Entity) -> bool {
        self.pools.iter().map_while(|pool| *pool).all(|pool| !pool.contains_alive(entity))
    }
}

/// What a walk over a driver's rows tests besides the filter: liveness, when the driver is
/// lazily cleaned, and the skipped disabling pools.
#[derive(Clone, Copy)]
pub(crate) struct Gate<'w> {
    /// The world's entities, for the liveness test of a lazily cleaned driver.
    pub(crate) alive: &'w Entities,
    /// The disabling pools the query skips.
    pub(crate) skip: Skip<'w>,
}

impl Gate<'_> {
    /// Whether rows of a driver (lazily cleaned or not, `lazy`) need [`Gate::admits`].
    #[inline(always)]
    pub(crate) fn is_needed(&self, lazy: bool) -> bool {
        lazy || self.skip.is_active()
    }

    /// Whether `entity`, a row of a driver that is lazily cleaned or not (`lazy`), is alive and
    /// not disabled for this query.
    #[inline(always)]
    pub(crate) fn admits(&self, lazy: bool, entity: Entity) -> bool {
        (!lazy || self.alive.is_alive(entity)) && self.skip.admits(entity)
    }
}
