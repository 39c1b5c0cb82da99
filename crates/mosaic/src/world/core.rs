//! The `World` type and its per-entity operations (batches of one type: `world/batch.rs`).

use std::any::TypeId;

use rustc_hash::FxHashMap;

use super::component_sets::ComponentSets;
use super::deferred::Deferred;
use super::group::Groups;
use super::hooks::Hooks;
use super::observers::Observers;
use super::required::Required;
use super::row_events::{Ids, RowChange};
use super::watches::Watches;
use super::{ComponentError, Resources};
use crate::component::{Component, ComponentId, Components, MutableComponent};
use crate::entity::{Entities, Entity, EntityError};
use crate::storage::RowEvents;

/// The container of entities, their components, and resources.
///
/// Every component type has its own packed pool (a sparse set, see
/// [`SparseSet`](crate::storage::SparseSet)); the world also keeps, per entity, the set of
/// component types it has (a 4-byte id into a table of the distinct sets seen, as bevy's
/// archetype graph without the tables), so despawning costs O(k) in the entity's k components,
/// however many component types the world knows.
///
/// Mutation needs `&mut World`, so no entity can be spawned, despawned or changed while a query
/// borrows the world; record such changes in a [`CommandBuffer`](crate::CommandBuffer) and apply
/// it after the loop.
///
/// # Examples
/// ```
/// use mosaic::{Component, World};
///
/// #[derive(Component, Debug, PartialEq)]
/// struct Health(i32);
///
/// let mut world = World::new();
/// let e = world.spawn(Health(10));
/// world.get_mut::<Health>(e).unwrap().0 -= 3;
/// assert_eq!(world.get::<Health>(e), Ok(&Health(7)));
/// world.despawn(e);
/// assert!(!world.is_alive(e));
/// ```
#[derive(Debug)]
pub struct World {
    pub(super) entities: Entities,
    pub(super) components: Components,
    /// Per entity index: the components the slot's live entity has (empty when free).
    pub(super) component_sets: ComponentSets,
    /// Per bundle type, its component ids in bundle order, checked free of duplicates, and the
    /// component set of an entity spawned with it.
    pub(super) bundles: FxHashMap<TypeId, super::spawn::BundleInfo>,
    pub(super) resources: Resources,
    /// Component hooks (a row subscriber).
    pub(super) hooks: Hooks,
    /// Watches (a row subscriber).
    pub(super) watches: Watches,
    /// Observers (a row subscriber for lifecycle events; custom events are triggered).
    pub(super) observers: Observers,
    /// Required components (a row subscriber for adds).
    pub(super) required: Required,
    /// The commands hooks and watches record, applied when the change that fired them ends.
    pub(super) deferred: Deferred,
    /// Owning groups (a row subscriber).
    pub(super) groups: Groups,
    /// Value indexes (a row subscriber).
    pub(super) indexes: super::Indexes,
    /// State of the lazy collector's sampling sequence.
    pub(super) sampler: u64,
    /// The ticks change readers (systems, removal readers) last read at.
    pub(super) reader_ticks: super::reader_ticks::ReaderTicks,
    /// Many-to-many pairs: each kind's reverse index (a row subscriber).
    pub(super) pairs: crate::hierarchy::PairIndex,
    /// One-target relations (`World::relate`): each kind's target index (a row subscriber).
    pub(super) relations: crate::hierarchy::RelationIndex,
    /// The parent-child hierarchy's bookkeeping (a row subscriber of the `Relationship` pool).
    pub(super) hierarchy: crate::hierarchy::HierarchyState,
    /// The component types besides `Disabled` that queries skip by default.
    pub(super) disabling: super::disabled::DisablingComponents,
    /// What each registered type supports ([`World::register`]): declarations, not state.
    pub(crate) types: crate::types::TypeRegistry,
    /// The buffers of [`World::despawn_batch`], kept warm: scratch, not state (empty between
    /// calls).
    pub(super) despawn_run: super::despawn_run::DespawnRun,
}

impl Default for World {
    fn default() -> Self {
        Self {
            entities: Entities::default(),
            components: Components::default(),
            component_sets: ComponentSets::default(),
            bundles: FxHashMap::default(),
            resources: Resources::default(),
            hooks: Hooks::default(),
            watches: Watches::default(),
            observers: Observers::default(),
            required: Required::default(),
            deferred: Deferred::default(),
            despawn_run: Default::default(),
            groups: Groups::default(),
            indexes: super::Indexes::default(),
            sampler: 0x2545_f491_4f6c_dd1d,
            reader_ticks: Default::default(),
            pairs: Default::default(),
            relations: Default::default(),
            hierarchy: Default::default(),
            disabling: Default::default(),
            types: Default::default(),
        }
    }
}

impl World {
    /// An empty world. Allocates nothing until used.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty world whose allocator hands out at most `max_entities` indices and retires a slot
    /// once its generation reaches `max_generation`.
    ///
    /// For tests of exhaustion and retirement, which the full 32-bit spaces make impractical.
    ///
    /// # Panics
    /// If `max_generation` is 0.
    #[track_caller]
    pub fn with_entity_limits(max_entities: u32, max_generation: u32) -> Self {
        Self { entities: Entities::with_limits(max_entities, max_generation), ..Self::default() }
    }

    /// The entity allocator (read-only): live count, iteration over live entities.
    #[inline]
    pub fn entities(&self) -> &Entities {
        &self.entities
    }

    /// The registered component types and their pools (read-only).
    #[inline]
    pub fn components(&self) -> &Components {
        &self.components
    }

    /// The registered component types and their pools, mutably: for the layers above the world
    /// (queries, hierarchy, rollback, snapshots), which keep the world's invariants themselves.
    #[inline]
    pub(crate) fn components_mut(&mut self) -> &mut Components {
        &mut self.components
    }

    /// The entity allocator, mutably (rollback and snapshot loading replace its state).
    #[cfg(feature = "rollback")]
    #[inline]
    pub(crate) fn entities_mut(&mut self) -> &mut Entities {
        &mut self.entities
    }

    /// The owning groups (queries look for one holding exactly their components).
    #[inline]
    pub(crate) fn groups(&self) -> &Groups {
        &self.groups
    }

    /// The owning groups, mutably (rollback restores their lengths with the pools).
    #[cfg(feature = "rollback")]
    #[inline]
    pub(crate) fn groups_mut(&mut self) -> &mut Groups {
        &mut self.groups
    }

    /// The observer registry.
    #[inline]
    pub(crate) fn observers(&self) -> &Observers {
        &self.observers
    }

    /// The many-to-many pairs' reverse index and kinds. O(1).
    #[inline]
    pub(crate) fn pair_index(&self) -> &crate::hierarchy::PairIndex {
        &self.pairs
    }

    /// The many-to-many pairs' reverse index and kinds, mutably. O(1).
    #[inline]
    pub(crate) fn pair_index_mut(&mut self) -> &mut crate::hierarchy::PairIndex {
        &mut self.pairs
    }

    /// The pairs' reverse index and the pools at once (the forward side of pairs is a pool).
    #[inline]
    pub(crate) fn pairs_and_components_mut(&mut self) -> (&mut crate::hierarchy::PairIndex, &mut Components) {
        (&mut self.pairs, &mut self.components)
    }

    /// The one-target relations' kinds and target index. O(1).
    #[inline]
    pub(crate) fn relation_index(&self) -> &crate::hierarchy::RelationIndex {
        &self.relations
    }

    /// The one-target relations' kinds and target index, mutably. O(1).
    #[inline]
    pub(crate) fn relation_index_mut(&mut self) -> &mut crate::hierarchy::RelationIndex {
        &mut self.relations
    }

    /// The relations' index, the pools (where the pairs' targets are) and the deferred command
    /// buffer (where the relations' row subscriber queues cleanup) at once. O(1).
    #[inline]
    pub(crate) fn relation_parts_mut(
        &mut self,
    ) -> (&mut crate::hierarchy::RelationIndex, &mut Components, &mut super::CommandBuffer) {
        (&mut self.relations, &mut self.components, self.deferred.buffer_mut())
    }

    /// The hierarchy's bookkeeping. O(1).
    #[inline]
    pub(crate) fn hierarchy_state(&self) -> &crate::hierarchy::HierarchyState {
        &self.hierarchy
    }

    /// The hierarchy's bookkeeping, mutably. O(1).
    #[inline]
    pub(crate) fn hierarchy_state_mut(&mut self) -> &mut crate::hierarchy::HierarchyState {
        &mut self.hierarchy
    }

    /// The hierarchy's bookkeeping and the pools (where the links are) at once. O(1).
    #[inline]
    pub(crate) fn hierarchy_parts_mut(&mut self) -> (&mut crate::hierarchy::HierarchyState, &mut Components) {
        (&mut self.hierarchy, &mut self.components)
    }

    /// The resource map, for system parameters that reach a resource through `&World` under the
    /// scheduler's access rules.
    #[inline]
    pub(crate) fn resource_map(&self) -> &Resources {
        &self.resources
    }

    /// Number of live entities.
    #[inline]
    pub fn len(&self) -> u32 {
        self.entities.len()
    }

    /// Whether no entity is alive.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// Whether `entity` is alive in this world. O(1).
    #[inline]
    pub fn is_alive(&self, entity: Entity) -> bool {
        self.entities.is_alive(entity)
    }

    /// Registers component type `T` (creating its empty pool) and returns its id. Reads `T`'s
    /// `#[require(...)]` declarations (and those of the types they name), as bevy does.
    ///
    /// Happens implicitly on first insert; calling it early fixes the id order.
    ///
    /// # Panics
    /// If the `#[require(...)]` declarations reached form a cycle (`A` requires `B` requires
    /// `A`, or `A` requires itself), naming it.
    #[track_caller]
    pub fn register_component<T: Component>(&mut self) -> ComponentId {
        let id = self.components.register::<T>();
        self.settle_registrations();
        id
    }

    /// Reserves room for `additional` more entities in the allocator.
    ///
    /// Pools grow separately; reserve them with [`World::reserve_component`].
    pub fn reserve(&mut self, additional: usize) {
        self.entities.reserve(additional);
        self.component_sets.reserve_slots(self.entities.slot_count() as usize + additional);
    }

    /// Reserves room for `additional` more `T` values in `T`'s pool, registering `T` if needed.
    pub fn reserve_component<T: Component>(&mut self, additional: usize) {
        let id = self.components.register::<T>();
        self.components.pool_mut(id).reserve(additional);
    }

    /// Releases spare capacity of the allocator and of every pool.
    pub fn shrink_to_fit(&mut self) {
        self.entities.shrink_to_fit();
        self.component_sets.shrink_to_fit();
        for pool in self.components.pools_mut() {
            pool.shrink_to_fit();
        }
    }

    /// Checks `entity` is alive.
    #[inline]
    pub(crate) fn check_alive(&self, entity: Entity) -> Result<(), EntityError> {
        self.entities.check(entity)
    }

    /// Despawns `entity`, dropping all its components. O(k) in its k components.
    ///
    /// # Panics
    /// If `entity` is not alive (already despawned, stale, or never spawned here); see
    /// [`World::try_despawn`] for the fallible form. Also if a component's `Drop` panics: the
    /// entity is then still fully despawned (the remaining components are dropped during the
    /// unwind), and a second panicking drop in the same despawn aborts.
    #[track_caller]
    pub fn despawn(&mut self, entity: Entity) {
        if let Err(error) = self.try_despawn(entity) {
            panic!("cannot despawn: {error}");
        }
    }

    /// Despawns `entity`, dropping all its components; the fallible form of [`World::despawn`].
    ///
    /// # Errors
    /// [`EntityError::NoSuchEntity`] if `entity` is not alive.
    pub fn try_despawn(&mut self, entity: Entity) -> Result<(), EntityError> {
        self.flush();
        self.check_alive(entity)?;
        let set = self.component_sets.set_of(entity.index());
        // Subscribers run before the rows go, while the entity is whole.
        let observed = self.component_sets.events(set).contains(RowEvents::REMOVE);
        let ids: Ids = if observed { self.component_sets.set_ids(set).into() } else { Ids::new() };
        if observed {
            self.emit_before(&RowChange::remove(entity, &ids, true));
        }
        // Callbacks may have reserved ids: `free` flushes them, and they need component sets.
        self.entities.free(entity)?;
        self.fit_sets();
        /// Removes the remaining components even if one of their drops panics, so a panic never
        /// leaves a dead entity's values in a pool.
        struct Finish<'a> {
            ids: std::slice::Iter<'a, ComponentId>,
            components: &'a mut Components,
            entity: Entity,
        }
        impl Finish<'_> {
            fn remove_rest(&mut self) {
                for &id in self.ids.by_ref() {
                    let pool = self.components.pool_mut(id);
                    // A lazily cleaned pool keeps the dead row for the collector.
                    if !pool.is_lazy() {
                        pool.remove_and_drop(self.entity);
                    }
                }
            }
        }
        impl Drop for Finish<'_> {
            fn drop(&mut self) {
                self.remove_rest();
            }
        }
        let set = self.component_sets.replace(entity.index(), super::component_sets::EMPTY);
        let rows = self.component_sets.set_ids(set).iter();
        let mut finish = Finish { ids: rows, components: &mut self.components, entity };
        finish.remove_rest();
        drop(finish);
        if observed {
            self.emit_after(&RowChange::remove(entity, &ids, true));
        }
        Ok(())
    }

    /// Despawns every entity, keeping component registrations, groups, hooks, watches,
    /// resources and the capacity of every pool and of the allocator. Every handle of the world
    /// is stale afterwards (generations move on as for [`World::despawn`]), and the next spawns
    /// reuse the lowest indices first.
    ///
    /// Hooks, observers and watches fire for each entity as for [`World::despawn`] (entities
    /// are despawned from the highest index down); entities that hooks spawn meanwhile stay.
    /// Observers are entities, so they are despawned too (bevy's `clear_entities` does the
    /// same): add them again after a clear. With no hook, observer, watch, group, value index or
    /// pair on any component, the pools are emptied wholesale: O(slots + components), no
    /// per-entity lookups; otherwise O(sum of the entities' components). Also drops the dead
    /// rows lazily cleaned pools keep.
    ///
    /// # Panics
    /// If a component's `Drop` panics: every entity is still despawned and every pool emptied
    /// (the rest are dropped during the unwind; a second panicking drop aborts).
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Bullet;
    ///
    /// let mut world = World::new();
    /// let old = world.spawn_batch((0..100).map(|_| Bullet));
    /// world.clear();
    /// assert!(world.is_empty() && !world.is_alive(old[0]));
    /// assert!(world.components().id::<Bullet>().is_some(), "still registered");
    /// assert_eq!(world.spawn(Bullet).index(), 0);
    /// ```
    pub fn clear(&mut self) {
        self.flush();
        if self.any_row_subscriber() {
            let live: Vec<Entity> = self.entities.iter().collect();
            for &entity in live.iter().rev() {
                // A hook may have despawned it already (a relation's cleanup).
                let _ = self.try_despawn(entity);
            }
            return;
        }
        for index in (0..self.entities.slot_count()).rev() {
            if let Some(entity) = self.entities.alive_at(index) {
                self.entities.free(entity).expect("alive_at yields live entities");
            }
        }
        self.component_sets.clear_all();
        /// Empties the remaining pools even if a drop panics, so no value of a dead entity is
        /// left behind.
        struct ClearRest<'a>(std::slice::IterMut<'a, crate::storage::SparseSet>);
        impl Drop for ClearRest<'_> {
            fn drop(&mut self) {
                for pool in self.0.by_ref() {
                    pool.clear();
                }
            }
        }
        let mut rest = ClearRest(self.components.pools_mut().iter_mut());
        for pool in rest.0.by_ref() {
            pool.clear();
        }
    }

    /// Adds or replaces `entity`'s `T`; returns the replaced value. O(1) amortised.
    ///
    /// # Panics
    /// If `entity` is not alive; see [`World::try_insert`].
    #[track_caller]
    pub fn insert<T: Component>(&mut self, entity: Entity, value: T) -> Option<T> {
        match self.try_insert(entity, value) {
            Ok(old) => old,
            Err(error) => panic!("cannot insert `{}`: {error}", std::any::type_name::<T>()),
        }
    }

    /// Adds or replaces `entity`'s `T`; the fallible form of [`World::insert`].
    ///
    /// # Errors
    /// [`ComponentError::Entity`] if `entity` is not alive (the value is dropped).
    pub fn try_insert<T: Component>(
        &mut self,
        entity: Entity,
        value: T,
    ) -> Result<Option<T>, ComponentError> {
        self.flush();
        self.check_alive(entity)?;
        // The lookup inlined, registration (once per type) through the call: measured 5% of
        // add_remove's instructions. Inlining it inside `register` instead changed the code of
        // unrelated query loops (option_iter 9.8 -> 17.7 us).
        let id = match self.components.id::<T>() {
            Some(id) => id,
            None => {
                let id = self.components.register::<T>();
                self.settle_registrations();
                id
            }
        };
        Ok(self.insert_row(id, entity, value))
    }

    /// Adds or replaces live `entity`'s `T` (component `id`), returning the replaced value: the
    /// row primitive every single insert goes through. The plain path when `T`'s pool has no
    /// subscriber for this event; else [`World::insert_row_observed`].
    #[inline]
    pub(crate) fn insert_row<T: Component>(
        &mut self,
        id: ComponentId,
        entity: Entity,
        value: T,
    ) -> Option<T> {
        let events = self.components.pool(id).row_events();
        if !events.is_empty() {
            return self.insert_row_observed(id, entity, value, events);
        }
        let old = T::insert(self.components.pool_mut(id), entity, value);
        if old.is_none() {
            self.component_sets.add(entity.index(), id);
        }
        old
    }

    /// [`World::insert_row`] for a pool with subscribers: they run around the write if they want
    /// its event (an add or a replace).
    #[inline(never)]
    fn insert_row_observed<T: Component>(
        &mut self,
        id: ComponentId,
        entity: Entity,
        value: T,
        events: RowEvents,
    ) -> Option<T> {
        let ids = [id];
        let change = if self.components.pool(id).contains(entity) {
            RowChange::insert(entity, &[], &ids)
        } else {
            RowChange::insert(entity, &ids, &[])
        };
        let observed = events.intersects(change.events());
        if observed {
            self.emit_before(&change);
        }
        let old = T::insert(self.components.pool_mut(id), entity, value);
        if old.is_none() {
            self.component_sets.add(entity.index(), id);
        }
        if observed {
            self.emit_after(&change);
        }
        old
    }

    /// Removes live `entity`'s `T` (component `id`) and returns it, or `None` if it has none:
    /// the row primitive every single removal goes through. The plain path when `T`'s pool has
    /// no subscriber for removals.
    #[inline]
    pub(crate) fn remove_row<T: Component>(&mut self, id: ComponentId, entity: Entity) -> Option<T> {
        if self.components.pool(id).row_events().contains(RowEvents::REMOVE) {
            return self.remove_row_observed(id, entity);
        }
        let value = T::remove(self.components.pool_mut(id), entity)?;
        self.component_sets.remove(entity.index(), id);
        Some(value)
    }

    /// [`World::remove_row`] for a pool whose subscribers want removals.
    #[inline(never)]
    fn remove_row_observed<T: Component>(&mut self, id: ComponentId, entity: Entity) -> Option<T> {
        if !self.components.pool(id).contains(entity) {
            return None;
        }
        let ids = [id];
        let change = RowChange::remove(entity, &ids, false);
        self.emit_before(&change);
        let value = T::remove(self.components.pool_mut(id), entity)?;
        self.component_sets.remove(entity.index(), id);
        self.emit_after(&change);
        Some(value)
    }

    /// `entity`'s `T`: `&T`, or the generated `TRef` view for a struct-of-arrays component. O(1).
    ///
    /// # Errors
    /// [`ComponentError::Entity`] if `entity` is not alive;
    /// [`ComponentError::MissingComponent`] if it has no `T`.
    #[inline]
    pub fn get<T: Component>(&self, entity: Entity) -> Result<T::Ref<'_>, ComponentError> {
        self.check_alive(entity)?;
        self.components
            .pool_of::<T>()
            .and_then(|pool| T::get(pool, entity))
            .ok_or(ComponentError::MissingComponent { entity, component: std::any::type_name::<T>() })
    }

    /// `entity`'s `T`, mutably: `&mut T`, or the generated `TMut` view. O(1).
    ///
    /// Not available for immutable components (`#[component(immutable)]`): replace those with
    /// [`World::insert`].
    ///
    /// Counts as a change of the value for [`Changed`](crate::Changed) (when `T`'s changes are
    /// tracked), whether or not the caller writes through it.
    ///
    /// # Errors
    /// As [`World::get`].
    #[inline]
    pub fn get_mut<T: MutableComponent>(&mut self, entity: Entity) -> Result<T::Mut<'_>, ComponentError> {
        self.check_alive(entity)?;
        self.components
            .pool_of_mut::<T>()
            .and_then(|pool| {
                pool.mark_changed(entity);
                T::get_mut(pool, entity)
            })
            .ok_or(ComponentError::MissingComponent { entity, component: std::any::type_name::<T>() })
    }

    /// Whether `entity` is alive and has a `T`. O(1).
    #[inline]
    pub fn contains<T: Component>(&self, entity: Entity) -> bool {
        self.is_alive(entity) && self.components.pool_of::<T>().is_some_and(|p| p.contains(entity))
    }

    /// The ids of the components `entity` has, ascending (the order the types were registered
    /// in), each once. O(1): the slice is the entity's interned component set.
    ///
    /// # Errors
    /// [`EntityError::NoSuchEntity`] if `entity` is not alive.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Health(u32);
    /// #[derive(Component)]
    /// struct Burning;
    ///
    /// let mut world = World::new();
    /// let health = world.register_component::<Health>();
    /// let burning = world.register_component::<Burning>();
    /// let e = world.spawn((Burning, Health(3)));
    /// assert_eq!(world.component_ids(e), Ok(&[health, burning][..]));
    /// world.remove::<Health>(e);
    /// assert_eq!(world.component_ids(e), Ok(&[burning][..]));
    /// ```
    pub fn component_ids(&self, entity: Entity) -> Result<&[ComponentId], EntityError> {
        self.check_alive(entity)?;
        Ok(self.component_sets.ids(entity.index()))
    }
}
