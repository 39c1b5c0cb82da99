//! The row primitives of components defined at run time: insert, remove and take by
//! [`ComponentId`], moving values as bytes. The subscribers of the pool (hooks, observers,
//! watches, pairs...) see these changes as they see a typed insert or remove.

use super::World;
use super::row_events::RowChange;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::storage::RowEvents;

impl World {
    /// Adds or replaces live `entity`'s component `id` with the value whose bytes are at `src`
    /// (moved in); returns whether a value was replaced (and dropped). Runs the pool's
    /// subscribers around the write as [`World::insert_row`] does. O(1) amortised.
    ///
    /// # Safety
    /// `id` is a component of this world whose pool is array-of-structs, `entity` is alive, and
    /// `src` holds one value of the pool's type, which the caller neither uses nor drops after.
    pub(crate) unsafe fn insert_row_raw(&mut self, id: ComponentId, entity: Entity, src: *const u8) -> bool {
        let events = self.components.pool(id).row_events();
        let ids = [id];
        let present = self.components.pool(id).contains(entity);
        let change =
            if present { RowChange::insert(entity, &[], &ids) } else { RowChange::insert(entity, &ids, &[]) };
        let observed = !events.is_empty() && events.intersects(change.events());
        if observed {
            self.emit_before(&change);
        }
        // SAFETY: forwarded from the caller (the subscribers above cannot change the world's
        // pools: they see it shared and defer their changes).
        let replaced = unsafe { self.components.pool_mut(id).insert_raw(entity, src) };
        if !replaced {
            self.component_sets.add(entity.index(), id);
        }
        if observed {
            self.emit_after(&change);
        }
        replaced
    }

    /// Removes live `entity`'s component `id` (a Rust type or a run-time one), dropping the
    /// value; returns whether it had one. Runs the pool's subscribers around the removal as
    /// [`World::remove_row`] does. O(1).
    ///
    /// # Panics
    /// If `id` is not a component of this world, or the value's drop panics (the entity has
    /// lost the component then).
    pub(crate) fn remove_row_by_id(&mut self, id: ComponentId, entity: Entity) -> bool {
        self.remove_row_with(id, entity, |pool| pool.remove_and_drop(entity))
    }

    /// Removes live `entity`'s component `id`, moving the value's bytes to `dst`; returns
    /// whether it had one (`dst` is untouched otherwise). O(1).
    ///
    /// # Safety
    /// `id` is a component of this world whose pool is array-of-structs, and `dst` is valid for
    /// writes of one value's size.
    pub(crate) unsafe fn take_row_raw(&mut self, id: ComponentId, entity: Entity, dst: *mut u8) -> bool {
        // SAFETY: forwarded from the caller.
        self.remove_row_with(id, entity, |pool| unsafe { pool.remove_raw(entity, dst) })
    }

    /// The removal of `entity`'s component `id` by `remove` (which takes the row out of the
    /// pool and says whether it was there), with the pool's subscribers run around it and the
    /// entity's component set updated.
    fn remove_row_with(
        &mut self,
        id: ComponentId,
        entity: Entity,
        remove: impl FnOnce(&mut crate::storage::SparseSet) -> bool,
    ) -> bool {
        if !self.components.pool(id).contains(entity) {
            return false;
        }
        let ids = [id];
        let change = RowChange::remove(entity, &ids, false);
        let observed = self.components.pool(id).row_events().contains(RowEvents::REMOVE);
        if observed {
            self.emit_before(&change);
        }
        let removed = remove(self.components.pool_mut(id));
        if removed {
            self.component_sets.remove(entity.index(), id);
        }
        if observed {
            self.emit_after(&change);
        }
        removed
    }
}
