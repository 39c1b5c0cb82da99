//! Changing a hierarchy: attach, detach, reparent, recursive despawn, and the row subscriber
//! that keeps links valid through plain `World::despawn`, `World::remove` and `World::insert`.

use super::component::{detach_children, link_last, rel, unlink};
use super::{HierarchyError, Relationship};
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::storage::RowEvents;
use crate::world::World;
use crate::world::row_events::{Needs, RowChange, RowSubscriber, WorldUse};

/// Dirty entries past which marking stops and the next ordering pass sorts the whole pool: keeps
/// the list bounded when nothing orders the pool for a long time.
const DIRTY_CAP: usize = 1 << 16;

/// Per-world hierarchy bookkeeping, a field of `World` (reached through `World::parts` by
/// rollback's `Hierarchy` part): the entities whose place in the relationship pool may break the
/// parents-before-children order (or that may have become empty), and (feature `transform`)
/// what transform propagation keeps between runs. Written only through `&mut World`: by the
/// hierarchy's operations, by its row subscriber (this type's [`RowSubscriber`] impl, which
/// keeps the links valid through plain `World::despawn`, `World::remove` and `World::insert`)
/// and by propagation.
#[derive(Debug, Default)]
pub(crate) struct HierarchyState {
    /// The id of [`Relationship`] once the world set hierarchies up (`World::init_hierarchy`):
    /// from then on its pool is flagged for the row subscriber. `None` before.
    pub(crate) relationship: Option<ComponentId>,
    /// Entities to re-place, in marking order.
    pub(crate) dirty: Vec<Entity>,
    /// Set when `dirty` overflowed (and was cleared): the next ordering pass sorts everything.
    pub(crate) overflow: bool,
    /// Between a change's `before` and `after`: the entity losing its relationship and the row
    /// it had, to mark whatever the pool moves into that row.
    removing: Option<(Entity, usize)>,
    /// Global transforms by relationship row, reused by every propagation.
    #[cfg(feature = "transform")]
    pub(crate) scratch: Vec<glam::Affine2>,
    /// Rows of the local and global transform pools lined up with the relationship pool right
    /// after propagation last reordered them (+ 1; 0: never): a later, shorter alignment means
    /// they drifted.
    #[cfg(feature = "transform")]
    pub(crate) aligned: [usize; 2],
    /// Global 3D transforms by relationship row, reused by every full propagation.
    #[cfg(feature = "transform")]
    pub(crate) scratch3: Vec<glam::Affine3A>,
    /// As `aligned`, for the 3D transform pools (not kept by snapshots: a loaded world may
    /// reorder those pools once more than the saved one would have).
    #[cfg(feature = "transform")]
    pub(crate) aligned3: [usize; 2],
    /// Per transform kind (2D, 3D), what incremental propagation needs beside change ticks.
    #[cfg(feature = "transform")]
    pub(crate) propagation: [super::propagate::PropagationLog; 2],
}

impl HierarchyState {
    /// Gives an emptied list's capacity back to the dirty list if that is still unallocated.
    pub(crate) fn recycle(&mut self, mut list: Vec<Entity>) {
        list.clear();
        if self.dirty.capacity() == 0 {
            self.dirty = list;
        }
    }

    /// Takes the dirty list out (leaving an empty one) and whether it overflowed.
    pub(crate) fn take_dirty(&mut self) -> (Vec<Entity>, bool) {
        (std::mem::take(&mut self.dirty), std::mem::take(&mut self.overflow))
    }

    /// Marks `entity` for the next ordering pass (nothing before hierarchies are set up).
    pub(crate) fn mark(&mut self, entity: Entity) {
        if self.relationship.is_none() {
            return;
        }
        if self.dirty.len() >= DIRTY_CAP {
            self.dirty.clear();
            self.overflow = true;
        }
        if !self.overflow {
            self.dirty.push(entity);
        }
    }

    /// Records that `entity`'s parent changed, for incremental transform propagation.
    #[inline]
    pub(crate) fn reparented(&mut self, entity: Entity) {
        #[cfg(feature = "transform")]
        if self.relationship.is_some() {
            for log in &mut self.propagation {
                log.push(entity);
            }
        }
        #[cfg(not(feature = "transform"))]
        let _ = entity;
    }
}

/// The part of [`HierarchyState`] that decides how later ordering passes and transform
/// propagations reorder pools (everything but the scratch space): what a snapshot must carry, with
/// the links and the relationship pool's row order, for a loaded world to continue exactly.
#[cfg(any(feature = "serialize", feature = "rollback"))]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct OrderState {
    /// Entities marked for the next ordering pass, in marking order (the pass takes them last
    /// first); may name entities despawned since.
    pub(crate) dirty: Vec<Entity>,
    /// Whether the dirty list overflowed since the last pass.
    pub(crate) overflow: bool,
    /// `HierarchyState::aligned`, in rows (+ 1); zeros without the `transform` feature.
    pub(crate) aligned: [usize; 2],
    /// Per transform kind (2D, 3D), what the next propagation is (see `PropagationLog::mode`);
    /// zeros without the `transform` feature.
    pub(crate) propagation: [u8; 2],
    /// `HierarchyState::aligned3`: kept by rollback, not by snapshots (zeros there and without
    /// the `transform` feature).
    pub(crate) aligned3: [usize; 2],
    /// Per transform kind, the whole propagation log: kept by rollback, which restores change
    /// ticks too (snapshots keep only `propagation`'s modes).
    #[cfg(all(feature = "rollback", feature = "transform"))]
    pub(crate) logs: [super::propagate::PropagationImage; 2],
}

#[cfg(any(feature = "serialize", feature = "rollback"))]
impl World {
    /// The hierarchy ordering bookkeeping, or `None` if this world never set hierarchies up (no
    /// hooks on `Relationship` either). O(dirty entries).
    #[cfg(feature = "serialize")]
    #[allow(clippy::needless_update, reason = "the rollback-only fields, when that feature is on")]
    pub(crate) fn hierarchy_order_state(&self) -> Option<OrderState> {
        let state = self.hierarchy_state();
        state.relationship?;
        Some(OrderState {
            dirty: state.dirty.clone(),
            overflow: state.overflow,
            #[cfg(feature = "transform")]
            aligned: state.aligned,
            #[cfg(not(feature = "transform"))]
            aligned: [0, 0],
            #[cfg(feature = "transform")]
            propagation: [state.propagation[0].mode(), state.propagation[1].mode()],
            #[cfg(not(feature = "transform"))]
            propagation: [0, 0],
            aligned3: [0, 0],
            ..OrderState::default()
        })
    }

    /// Sets hierarchies up (hooks included) if needed, and replaces the ordering bookkeeping with
    /// `order`, as a loaded snapshot's.
    #[cfg(feature = "serialize")]
    pub(crate) fn set_hierarchy_order_state(&mut self, order: OrderState) {
        self.init_hierarchy();
        #[cfg(feature = "transform")]
        let oldest = self.components().clock().oldest();
        let state = self.hierarchy_state_mut();
        state.dirty = order.dirty;
        state.overflow = order.overflow;
        #[cfg(feature = "transform")]
        {
            state.aligned = order.aligned;
            for (log, mode) in state.propagation.iter_mut().zip(order.propagation) {
                log.set_mode(mode, oldest);
            }
        }
    }

    /// Copies the ordering bookkeeping into `out` (`None` if hierarchies were never set up),
    /// reusing its buffer: the allocation-free form of [`World::hierarchy_order_state`], for
    /// rollback. O(dirty entries).
    #[cfg(feature = "rollback")]
    pub(crate) fn save_hierarchy_order_into(&self, out: &mut Option<OrderState>) {
        let state = self.parts().hierarchy;
        if state.relationship.is_none() {
            *out = None;
            return;
        }
        let saved = out.get_or_insert_with(OrderState::default);
        saved.dirty.clone_from(&state.dirty);
        saved.overflow = state.overflow;
        #[cfg(feature = "transform")]
        {
            saved.aligned = state.aligned;
            saved.propagation = [state.propagation[0].mode(), state.propagation[1].mode()];
            saved.aligned3 = state.aligned3;
            for (log, out) in state.propagation.iter().zip(&mut saved.logs) {
                log.save(out);
            }
        }
    }

    /// Puts saved ordering bookkeeping back, reusing the world's buffer; `None` (saved before
    /// hierarchies were set up) resets it to empty if it exists now. The hooks stay. O(dirty).
    #[cfg(feature = "rollback")]
    pub(crate) fn restore_hierarchy_order_from(&mut self, saved: Option<&OrderState>) {
        if saved.is_some() {
            self.init_hierarchy();
        }
        let state = self.parts_mut().hierarchy;
        if state.relationship.is_none() {
            return;
        }
        let empty = OrderState::default();
        let saved = saved.unwrap_or(&empty);
        state.dirty.clone_from(&saved.dirty);
        state.overflow = saved.overflow;
        #[cfg(feature = "transform")]
        {
            state.aligned = saved.aligned;
            state.aligned3 = saved.aligned3;
            // Change ticks are restored with the frame, so the logs are put back whole: the next
            // propagation does what it would have done in the straight run.
            for (log, saved) in state.propagation.iter_mut().zip(&saved.logs) {
                log.restore(saved);
            }
        }
    }
}

/// Detaches `entity` from its parent and its children (they become roots), marking everything
/// touched. O(1 + children).
fn detach_all(world: &mut World, entity: Entity) {
    let (state, components) = world.hierarchy_parts_mut();
    let Some(id) = state.relationship else { return };
    let pool = components.pool_mut(id);
    if let Some(parent) = unlink(pool, entity) {
        state.mark(parent);
        state.reparented(entity);
    }
    detach_children(pool, entity, |child| {
        state.mark(child);
        state.reparented(child);
    });
}

impl RowSubscriber for HierarchyState {
    const NEEDS: Needs = Needs { name: "hierarchy", old_value: true, world: WorldUse::RowOnly, batch: false };

    fn events(world: &World, id: ComponentId) -> RowEvents {
        if world.hierarchy_state().relationship == Some(id) {
            RowEvents::ADD | RowEvents::REPLACE | RowEvents::REMOVE
        } else {
            RowEvents::NONE
        }
    }

    /// A replaced relationship detaches the entity from its parent and children first (the new
    /// value lands unlinked) and marks it; a removed one detaches it (the value handed back is
    /// empty) and remembers its row for [`HierarchyState::after`].
    fn before(world: &mut World, change: &RowChange<'_>) {
        let Some(id) = world.hierarchy_state().relationship else { return };
        if change.replaced.contains(&id) {
            detach_all(world, change.entity);
            world.hierarchy_state_mut().mark(change.entity);
        }
        if change.removed.contains(&id) {
            detach_all(world, change.entity);
            let row = world.components().pool(id).row_of(change.entity);
            world.hierarchy_state_mut().removing = row.map(|row| (change.entity, row));
        }
    }

    /// An added relationship marks its entity (it may sit before its parent once linked); a
    /// removed one marks the entity the pool moved into its row (it may now sit before its
    /// parent).
    fn after(world: &mut World, change: &RowChange<'_>) {
        let Some(id) = world.hierarchy_state().relationship else { return };
        if change.added.contains(&id) {
            world.hierarchy_state_mut().mark(change.entity);
        }
        if let Some((entity, row)) = world.hierarchy_state_mut().removing.take() {
            debug_assert_eq!(entity, change.entity, "a removal's before and after come in pairs");
            let moved = world.components().pool(id).entities().get(row).copied();
            if let Some(moved) = moved.filter(|&moved| moved != entity) {
                world.hierarchy_state_mut().mark(moved);
            }
        }
    }
}

impl World {
    /// Sets up hierarchy bookkeeping and flags the pool of [`Relationship`] for the hierarchy's
    /// row subscriber, once per world. Every hierarchy operation calls it; O(1) after the first
    /// call. The subscriber detaches after the discard and remove hooks users put on
    /// `Relationship` (they see the links), and marks before their add and insert hooks.
    pub(crate) fn init_hierarchy(&mut self) {
        if self.hierarchy_state().relationship.is_some() {
            return;
        }
        let id = self.components_mut().register::<Relationship>();
        self.hierarchy_state_mut().relationship = Some(id);
        self.refresh_row_events(id);
    }

    /// Checks `entity` is alive.
    pub(crate) fn check_alive_in_hierarchy(&self, entity: Entity) -> Result<(), HierarchyError> {
        Ok(self.entities().check(entity)?)
    }

    /// Makes `parent` the parent of `child`, appending `child` to `parent`'s children (last in
    /// sibling order). If `child` had another parent it is moved, with its whole subtree; if
    /// `parent` already is its parent nothing changes. O(depth of `parent`) for the cycle check,
    /// O(1) for the links.
    ///
    /// # Errors
    /// [`HierarchyError::Entity`] if either entity is not alive;
    /// [`HierarchyError::Cycle`] naming both if `parent` is `child` or one of its descendants.
    ///
    /// # Examples
    /// ```
    /// use mosaic::World;
    /// use mosaic::hierarchy::HierarchyError;
    ///
    /// let mut world = World::new();
    /// let [ship, turret, gun] = [(); 3].map(|()| world.spawn_empty());
    /// world.set_parent(turret, ship).unwrap();
    /// world.set_parent(gun, turret).unwrap();
    /// assert_eq!(world.parent(gun), Some(turret));
    /// assert_eq!(world.set_parent(ship, gun), Err(HierarchyError::Cycle { child: ship, parent: gun }));
    /// world.despawn(turret); // its child becomes a root
    /// assert_eq!(world.parent(gun), None);
    /// assert_eq!(world.children(ship).count(), 0);
    /// ```
    pub fn set_parent(&mut self, child: Entity, parent: Entity) -> Result<(), HierarchyError> {
        self.check_alive_in_hierarchy(child)?;
        self.check_alive_in_hierarchy(parent)?;
        if child == parent || self.ancestors(parent).any(|a| a == child) {
            return Err(HierarchyError::Cycle { child, parent });
        }
        if self.parent(child) == Some(parent) {
            return Ok(());
        }
        self.init_hierarchy();
        for entity in [child, parent] {
            if !self.contains::<Relationship>(entity) {
                self.insert(entity, Relationship::new());
            }
        }
        let (state, components) = self.hierarchy_parts_mut();
        let pool = components.pool_mut(state.relationship.expect("set up above"));
        let old = unlink(pool, child);
        link_last(pool, parent, child);
        // The child may sit before its new parent in the pool now.
        state.mark(child);
        state.reparented(child);
        if let Some(old) = old {
            self.prune(old);
        }
        Ok(())
    }

    /// Detaches `child` from its parent, making it a root (its own children stay with it).
    /// Returns the former parent, or `None` if it had none. O(1).
    ///
    /// # Errors
    /// [`HierarchyError::Entity`] if `child` is not alive.
    pub fn remove_parent(&mut self, child: Entity) -> Result<Option<Entity>, HierarchyError> {
        self.check_alive_in_hierarchy(child)?;
        let (state, components) = self.hierarchy_parts_mut();
        let Some(id) = components.id::<Relationship>() else { return Ok(None) };
        let Some(old) = unlink(components.pool_mut(id), child) else { return Ok(None) };
        state.reparented(child);
        self.prune(child);
        self.prune(old);
        Ok(Some(old))
    }

    /// Despawns `entity` and all its descendants; returns how many entities were despawned.
    /// O(size of the subtree): leaves go first, so each despawn unlinks in O(1).
    ///
    /// # Panics
    /// If `entity` is not alive; see [`World::try_despawn_recursive`]. Also if a component's
    /// `Drop` panics (as [`World::despawn`]).
    #[track_caller]
    pub fn despawn_recursive(&mut self, entity: Entity) -> usize {
        match self.try_despawn_recursive(entity) {
            Ok(count) => count,
            Err(error) => panic!("cannot despawn recursively: {error}"),
        }
    }

    /// Despawns `entity` and all its descendants; the fallible form of
    /// [`World::despawn_recursive`]. Returns how many entities were despawned.
    ///
    /// # Errors
    /// [`HierarchyError::Entity`] if `entity` is not alive.
    pub fn try_despawn_recursive(&mut self, entity: Entity) -> Result<usize, HierarchyError> {
        self.check_alive_in_hierarchy(entity)?;
        let doomed: Vec<Entity> = std::iter::once(entity).chain(self.descendants(entity)).collect();
        // Reverse pre-order: every entity's descendants are gone before it is.
        Ok(doomed.iter().rev().filter(|&&e| self.try_despawn(e).is_ok()).count())
    }

    /// Removes `entity`'s relationship if it has neither parent nor children.
    pub(crate) fn prune(&mut self, entity: Entity) {
        if rel(self, entity).is_some_and(Relationship::is_empty) {
            self.remove::<Relationship>(entity);
        }
    }

    /// Checks every hierarchy invariant, panicking with a description of the first broken one:
    /// links name live entities with a [`Relationship`], child lists are consistent with their
    /// counts and with each child's parent and sibling links, and no entity is its own ancestor.
    /// O(n) in the relationship pool (times depth for the cycle check).
    ///
    /// For tests and debugging.
    #[track_caller]
    pub fn assert_hierarchy_invariants(&self) {
        let Some(pool) = self.relationship_pool() else { return };
        let live = |e: Entity, what: &str, of: Entity| {
            assert!(self.is_alive(e), "{what} {e} of {of} is not alive");
            assert!(rel(self, e).is_some(), "{what} {e} of {of} has no Relationship");
        };
        for (&entity, r) in pool.entities().iter().zip(pool.values::<Relationship>()) {
            assert!(self.is_alive(entity), "dead entity {entity} has a Relationship");
            if let Some(parent) = r.parent() {
                live(parent, "parent", entity);
                let listed = self.children(parent).filter(|&c| c == entity).count();
                assert_eq!(
                    listed, 1,
                    "{entity} is listed {listed} times among its parent {parent}'s children"
                );
                let mut depth = 0;
                for ancestor in self.ancestors(entity) {
                    assert_ne!(ancestor, entity, "{entity} is its own ancestor");
                    depth += 1;
                    assert!(depth <= pool.len(), "the ancestors of {entity} loop");
                }
            } else {
                assert!(
                    r.prev_sibling().is_none() && r.next_sibling().is_none(),
                    "root {entity} has siblings"
                );
            }
            let mut prev = None;
            let mut count = 0u32;
            let mut next = r.first_child();
            while let Some(child) = next {
                live(child, "child", entity);
                let rc = rel(self, child).expect("checked above");
                assert_eq!(rc.parent(), Some(entity), "child {child} of {entity} names another parent");
                assert_eq!(rc.prev_sibling(), prev, "prev link of {child} (under {entity})");
                count += 1;
                assert!(count <= r.child_count(), "the child list of {entity} is longer than its count");
                prev = Some(child);
                next = rc.next_sibling();
            }
            assert_eq!(count, r.child_count(), "child count of {entity}");
            assert_eq!(r.last_child(), prev, "last child of {entity}");
        }
    }
}
