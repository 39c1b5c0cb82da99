//! Changing a hierarchy: attach, detach, reparent, recursive despawn, and the hooks that keep
//! links valid through plain `World::despawn` and `World::remove`.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Mutex, PoisonError};

use super::component::{detach_children, link_last, rel, unlink};
use super::{HierarchyError, Relationship};
use crate::entity::Entity;
use crate::world::World;

/// Dirty entries past which marking stops and the next ordering pass sorts the whole pool: keeps
/// the list bounded when nothing orders the pool for a long time.
const DIRTY_CAP: usize = 1 << 16;

/// Per-world hierarchy bookkeeping, kept as a resource: the entities whose place in the
/// relationship pool may break the parents-before-children order (or that may have become empty),
/// and (feature `transform`) scratch space for transform propagation.
#[derive(Default)]
pub(crate) struct HierarchyState {
    /// Entities to re-place; hooks push here through `&World`, hence the mutex.
    pub(crate) dirty: Mutex<Vec<Entity>>,
    /// Set when `dirty` overflowed (and was cleared): the next ordering pass sorts everything.
    pub(crate) overflow: AtomicBool,
    /// Global transforms by relationship row, reused by every propagation.
    #[cfg(feature = "transform")]
    pub(crate) scratch: Mutex<Vec<glam::Affine2>>,
    /// Rows of the local and global transform pools lined up with the relationship pool right
    /// after propagation last reordered them: a later, shorter alignment means they drifted.
    #[cfg(feature = "transform")]
    pub(crate) aligned: [std::sync::atomic::AtomicUsize; 2],
    /// Global 3D transforms by relationship row, reused by every full propagation.
    #[cfg(feature = "transform")]
    pub(crate) scratch3: Mutex<Vec<glam::Affine3A>>,
    /// As `aligned`, for the 3D transform pools (not kept by snapshots: a loaded world may
    /// reorder those pools once more than the saved one would have).
    #[cfg(feature = "transform")]
    pub(crate) aligned3: [std::sync::atomic::AtomicUsize; 2],
    /// Per transform kind (2D, 3D), what incremental propagation needs beside change ticks.
    #[cfg(feature = "transform")]
    pub(crate) propagation: [super::propagate::PropagationLog; 2],
}

impl HierarchyState {
    /// Gives an emptied list's capacity back to the dirty list if that is still unallocated.
    pub(crate) fn recycle(&self, mut list: Vec<Entity>) {
        list.clear();
        let mut dirty = self.dirty.lock().unwrap_or_else(PoisonError::into_inner);
        if dirty.capacity() == 0 {
            *dirty = list;
        }
    }

    /// Takes the dirty list out (leaving an empty one) and whether it overflowed.
    pub(crate) fn take_dirty(&self) -> (Vec<Entity>, bool) {
        let list = std::mem::take(&mut *self.dirty.lock().unwrap_or_else(PoisonError::into_inner));
        (list, self.overflow.swap(false, Relaxed))
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
        let state = self.get_resource::<HierarchyState>()?;
        Some(OrderState {
            dirty: state.dirty.lock().unwrap_or_else(PoisonError::into_inner).clone(),
            overflow: state.overflow.load(Relaxed),
            #[cfg(feature = "transform")]
            aligned: [state.aligned[0].load(Relaxed), state.aligned[1].load(Relaxed)],
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
        let state = self.resource::<HierarchyState>();
        *state.dirty.lock().unwrap_or_else(PoisonError::into_inner) = order.dirty;
        state.overflow.store(order.overflow, Relaxed);
        #[cfg(feature = "transform")]
        for (slot, value) in state.aligned.iter().zip(order.aligned) {
            slot.store(value, Relaxed);
        }
        #[cfg(feature = "transform")]
        for (log, mode) in state.propagation.iter().zip(order.propagation) {
            log.set_mode(mode, self.components().clock().oldest());
        }
    }

    /// Copies the ordering bookkeeping into `out` (`None` if hierarchies were never set up),
    /// reusing its buffer: the allocation-free form of [`World::hierarchy_order_state`], for
    /// rollback. O(dirty entries).
    #[cfg(feature = "rollback")]
    pub(crate) fn save_hierarchy_order_into(&self, out: &mut Option<OrderState>) {
        let Some(state) = self.get_resource::<HierarchyState>() else {
            *out = None;
            return;
        };
        let saved = out.get_or_insert_with(OrderState::default);
        saved.dirty.clone_from(&state.dirty.lock().unwrap_or_else(PoisonError::into_inner));
        saved.overflow = state.overflow.load(Relaxed);
        #[cfg(feature = "transform")]
        {
            saved.aligned = [state.aligned[0].load(Relaxed), state.aligned[1].load(Relaxed)];
            saved.propagation = [state.propagation[0].mode(), state.propagation[1].mode()];
            saved.aligned3 = [state.aligned3[0].load(Relaxed), state.aligned3[1].load(Relaxed)];
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
        let Some(state) = self.get_resource::<HierarchyState>() else { return };
        let empty = OrderState::default();
        let saved = saved.unwrap_or(&empty);
        state.dirty.lock().unwrap_or_else(PoisonError::into_inner).clone_from(&saved.dirty);
        state.overflow.store(saved.overflow, Relaxed);
        #[cfg(feature = "transform")]
        for (slot, value) in state.aligned.iter().zip(saved.aligned) {
            slot.store(value, Relaxed);
        }
        #[cfg(feature = "transform")]
        for (slot, value) in state.aligned3.iter().zip(saved.aligned3) {
            slot.store(value, Relaxed);
        }
        // Change ticks are restored with the frame, so the logs are put back whole: the next
        // propagation does what it would have done in the straight run.
        #[cfg(feature = "transform")]
        for (log, saved) in state.propagation.iter().zip(&saved.logs) {
            log.restore(saved);
        }
    }
}

/// Marks `entity` for the next ordering pass.
pub(crate) fn mark(world: &World, entity: Entity) {
    let Some(state) = world.get_resource::<HierarchyState>() else { return };
    let mut dirty = state.dirty.lock().unwrap_or_else(PoisonError::into_inner);
    if dirty.len() >= DIRTY_CAP {
        dirty.clear();
        state.overflow.store(true, Relaxed);
    }
    if !state.overflow.load(Relaxed) {
        dirty.push(entity);
    }
}

/// Records that `entity`'s parent changed, for incremental transform propagation.
#[inline]
pub(crate) fn reparented(world: &World, entity: Entity) {
    #[cfg(feature = "transform")]
    if let Some(state) = world.get_resource::<HierarchyState>() {
        for log in &state.propagation {
            log.push(entity);
        }
    }
    #[cfg(not(feature = "transform"))]
    let _ = (world, entity);
}

/// Detaches `entity` from its parent and its children (they become roots), marking everything
/// touched. O(1 + children).
fn detach_all(world: &World, entity: Entity) {
    let Some(r) = rel(world, entity) else { return };
    if let Some(parent) = unlink(world, r) {
        mark(world, parent);
        reparented(world, entity);
    }
    detach_children(world, r, |child| {
        mark(world, child);
        reparented(world, child);
    });
}

impl World {
    /// Sets up hierarchy bookkeeping and the hooks on [`Relationship`], once per world. Every
    /// hierarchy operation calls it; O(1) after the first call. Hooks users put on
    /// `Relationship` run beside these, in registration order.
    pub(crate) fn init_hierarchy(&mut self) {
        if self.contains_resource::<HierarchyState>() {
            return;
        }
        self.insert_resource(HierarchyState::default());
        self.on_add::<Relationship>(|ctx| mark(ctx.world, ctx.entity));
        self.on_replace::<Relationship>(|ctx| {
            detach_all(ctx.world, ctx.entity);
            mark(ctx.world, ctx.entity);
        });
        self.on_remove::<Relationship>(|ctx| {
            detach_all(ctx.world, ctx.entity);
            // The pool's last row moves into the hole (swap-remove): it may now sit before its
            // parent.
            let last = ctx.world.relationship_pool().and_then(|pool| pool.entities().last().copied());
            if let Some(last) = last.filter(|&last| last != ctx.entity) {
                mark(ctx.world, last);
            }
        });
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
        let world: &World = self;
        let (rc, rp) =
            (rel(world, child).expect("inserted above"), rel(world, parent).expect("inserted above"));
        let old = unlink(world, rc);
        link_last(world, parent, rp, child, rc);
        // The child may sit before its new parent in the pool now.
        mark(world, child);
        reparented(world, child);
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
        let Some(rc) = rel(self, child) else { return Ok(None) };
        let Some(old) = unlink(self, rc) else { return Ok(None) };
        reparented(self, child);
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
