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

/// The disabling pools a query skips, as a mask over the world's disabling slots: bit 0 is
/// [`Disabled`], bit `i + 1` the `i`th type of [`World::disabling_components`]. One byte, so the
/// query, its gate and its iterator are as small as before disabling existed, with the pools
/// looked up only when a bit is set (some entity is disabled).
//
// Invariant: a set bit names a slot the world has, whose pool exists (it was not empty when the
// query was built, and the world cannot change while the query borrows it).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Skip(u8);

const _: () = assert!(MAX_DISABLING_COMPONENTS <= 8, "a `Skip` mask has 8 bits");

impl Skip {
    /// The pools a query of data `Q` and filter `F` over `world` skips. O(1) when no disabling
    /// pool holds an entity (the common case: one type-slot lookup per disabling type); else
    /// O(t) in the query's t terms, to see which disabling types it names.
    #[inline]
    pub(crate) fn of<Q: QueryData, F: QueryFilter>(world: &World) -> Self {
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
    fn of_any<Q: QueryData, F: QueryFilter>(world: &World) -> Self {
        let mut mentioned = None::<SmallVec<[TypeId; 8]>>;
        let mut mask = 0u8;
        let slots = std::iter::once(TypeId::of::<Disabled>())
            .chain(world.disabling_components().iter().map(|&(type_id, _)| type_id));
        for (slot, type_id) in slots.enumerate() {
            if Self::pool(world, slot).is_none_or(SparseSet::is_empty) {
                continue;
            }
            let mentioned = mentioned.get_or_insert_with(|| {
                let mut types = SmallVec::new();
                Q::visit_mentioned(&mut |t| types.push(t));
                F::visit_mentioned(&mut |t| types.push(t));
                types
            });
            if !mentioned.contains(&type_id) {
                mask |= 1 << slot;
            }
        }
        Self(mask)
    }

    /// The pool of disabling slot `slot` of `world` (see [`Skip`]), if the slot exists and has
    /// a pool.
    #[inline]
    fn pool(world: &World, slot: usize) -> Option<&SparseSet> {
        let components = world.components();
        match slot {
            0 => components.pool_of::<Disabled>(),
            _ => world.disabling_components().get(slot - 1).map(|&(_, id)| components.pool(id)),
        }
    }

    /// Whether any pool is skipped: the walks then test each row with [`Skip::admits`].
    #[inline(always)]
    pub(crate) fn is_active(self) -> bool {
        self.0 != 0
    }

    /// Whether `entity` is in none of the skipped pools of `world`, the world the query was
    /// built over. O(p) lookups for p skipped pools; no work when none is skipped.
    #[inline(always)]
    pub(crate) fn admits(self, world: &World, entity: Entity) -> bool {
        !self.is_active() || self.admits_any(world, entity)
    }

    /// [`Skip::admits`] with some pool skipped: the pools are looked up here, per call, so a
    /// query that skips none carries none. Out of line, to keep the callers' loops small.
    #[inline(never)]
    fn admits_any(self, world: &World, entity: Entity) -> bool {
        let mut mask = self.0;
        while mask != 0 {
            let slot = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            if Self::pool(world, slot).is_some_and(|pool| pool.contains_alive(entity)) {
                return false;
            }
        }
        true
    }
}

/// What a walk over a driver's rows tests besides the filter: liveness, when the driver is
/// lazily cleaned, and the skipped disabling pools. Two words: the world and the skip mask.
#[derive(Clone, Copy)]
pub(crate) struct Gate<'w> {
    /// The world the query borrows: its entities for the liveness test of a lazily cleaned
    /// driver, its disabling pools for the skip test.
    pub(crate) world: &'w World,
    /// The disabling pools the query skips.
    pub(crate) skip: Skip,
}

impl<'w> Gate<'w> {
    /// The world's entities.
    #[inline(always)]
    pub(crate) fn alive(&self) -> &'w Entities {
        self.world.entities()
    }

    /// Whether rows of a driver (lazily cleaned or not, `lazy`) need [`Gate::admits`].
    #[inline(always)]
    pub(crate) fn is_needed(&self, lazy: bool) -> bool {
        lazy || self.skip.is_active()
    }

    /// Whether `entity`, a row of a driver that is lazily cleaned or not (`lazy`), is alive and
    /// not disabled for this query.
    #[inline(always)]
    pub(crate) fn admits(&self, lazy: bool, entity: Entity) -> bool {
        (!lazy || self.alive().is_alive(entity)) && self.skip.admits(self.world, entity)
    }

    /// Whether `entity`, known to be alive, is not disabled for this query.
    #[inline(always)]
    pub(crate) fn enabled(&self, entity: Entity) -> bool {
        self.skip.admits(self.world, entity)
    }
}
