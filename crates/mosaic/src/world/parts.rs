//! The parts of a world that hold state, handed to the layers that save, restore and hash whole
//! worlds (rollback, snapshots).
//!
//! `World`'s fields are private to this module. What a rollback frame, the world hash or a
//! snapshot must carry is reached through [`World::parts`] and [`World::parts_mut`], which take
//! the world apart exhaustively: a field added to `World` does not compile until it is sorted
//! here, as state or not, and a part added to [`Parts`] does not compile until rollback's part
//! list and the snapshot writer say what they do with it.

use super::World;
use super::component_sets::ComponentSets;
use super::group::Groups;
use super::index::Indexes;
use super::reader_ticks::ReaderTicks;
use super::resources::Resources;
use crate::component::Components;
use crate::entity::Entities;
use crate::hierarchy::{HierarchyState, PairIndex, RelationIndex};

/// Shared borrows of every part of a world that holds state.
#[allow(dead_code, reason = "every part is listed, whether or not a given pass reads it")]
pub(crate) struct Parts<'a> {
    /// The allocator: slots, generations, free list, world tag.
    pub(crate) entities: &'a Entities,
    /// The pools (rows, values, per-pool change trackers) and the change clock.
    pub(crate) components: &'a Components,
    /// Each entity's component set (derivable from the pools; kept for speed).
    pub(crate) component_sets: &'a ComponentSets,
    /// The resources.
    pub(crate) resources: &'a Resources,
    /// The owning groups and their lengths.
    pub(crate) groups: &'a Groups,
    /// The value indexes (derived from the pools: rebuilt, not saved).
    pub(crate) indexes: &'a Indexes,
    /// The ticks change readers last read at.
    pub(crate) reader_ticks: &'a ReaderTicks,
    /// The lazy collector's sampling state.
    pub(crate) sampler: u64,
    /// Many-to-many pairs' reverse index (the forward side is in the pools).
    pub(crate) pairs: &'a PairIndex,
    /// One-target relations' kinds and target index (the pairs themselves are in the pools).
    pub(crate) relations: &'a RelationIndex,
    /// The hierarchy's ordering and propagation bookkeeping (the links are in the pools).
    pub(crate) hierarchy: &'a HierarchyState,
}

/// Exclusive borrows of every part of a world that holds state (see [`Parts`]).
#[allow(dead_code, reason = "every part is listed, whether or not a given pass changes it")]
pub(crate) struct PartsMut<'a> {
    /// The allocator.
    pub(crate) entities: &'a mut Entities,
    /// The pools and the change clock.
    pub(crate) components: &'a mut Components,
    /// Each entity's component set.
    pub(crate) component_sets: &'a mut ComponentSets,
    /// The resources.
    pub(crate) resources: &'a mut Resources,
    /// The owning groups.
    pub(crate) groups: &'a mut Groups,
    /// The value indexes: a pass that rewrites pools marks them stale
    /// ([`Indexes::invalidate`]), and each rebuilds from its pool on its next lookup.
    pub(crate) indexes: &'a mut Indexes,
    /// The ticks change readers last read at.
    pub(crate) reader_ticks: &'a mut ReaderTicks,
    /// The lazy collector's sampling state.
    pub(crate) sampler: &'a mut u64,
    /// Many-to-many pairs' reverse index.
    pub(crate) pairs: &'a mut PairIndex,
    /// One-target relations' kinds and target index.
    pub(crate) relations: &'a mut RelationIndex,
    /// The hierarchy's bookkeeping.
    pub(crate) hierarchy: &'a mut HierarchyState,
}

impl World {
    /// Every part of the world that holds state. O(1).
    pub(crate) fn parts(&self) -> Parts<'_> {
        // Exhaustive on purpose: see the module docs.
        let World {
            entities,
            components,
            component_sets,
            // A cache of bundle ids, rebuilt on use.
            bundles: _,
            resources,
            // Hooks and watches are registrations (code), not state a frame carries; the
            // deferred buffer is empty between operations.
            hooks: _,
            watches: _,
            // Observers are registrations too; their entities are checked by rollback against
            // `Observers::entities` (see `rollback::part`).
            observers: _,
            required: _,
            deferred: _,
            // Which types disable entities is a registration too (code, as hooks are).
            disabling: _,
            // Type declarations: what the passes read to know how to save a type, not state.
            types: _,
            // Scratch buffers of despawn runs, empty between operations.
            despawn_run: _,
            groups,
            indexes,
            sampler,
            reader_ticks,
            pairs,
            relations,
            hierarchy,
        } = self;
        Parts {
            entities,
            components,
            component_sets,
            resources,
            groups,
            indexes,
            reader_ticks,
            sampler: *sampler,
            pairs,
            relations,
            hierarchy,
        }
    }

    /// Every part of the world that holds state, mutably. The caller restores the world's
    /// invariants across them (pools and component sets agree, groups are packed). O(1).
    pub(crate) fn parts_mut(&mut self) -> PartsMut<'_> {
        // Exhaustive on purpose: see the module docs.
        let World {
            entities,
            components,
            component_sets,
            bundles: _,
            resources,
            hooks: _,
            watches: _,
            observers: _,
            required: _,
            deferred: _,
            disabling: _,
            types: _,
            despawn_run: _,
            groups,
            indexes,
            sampler,
            reader_ticks,
            pairs,
            relations,
            hierarchy,
        } = self;
        PartsMut {
            entities,
            components,
            component_sets,
            resources,
            groups,
            indexes,
            reader_ticks,
            sampler,
            pairs,
            relations,
            hierarchy,
        }
    }
}
