//! Spawning entities and inserting bundles.

use std::any::TypeId;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::World;
use super::component_sets::{ComponentSets, EMPTY, SetId};
use super::group::GroupJoins;
use super::row_events::{Ids, RowChange, RowSubscriber};
use crate::component::{Bundle, BundleSink, Component, ComponentId, Components};
use crate::entity::{Entities, Entity, EntityError, ReservedIter};
use crate::storage::{RowEvents, SparseSet};
use crate::world::ComponentError;

/// Most entities a batch spawn reserves up front from the iterator's size hint; beyond this the
/// pools grow by doubling. Bounds what a lying size hint can make us allocate.
const MAX_BATCH_RESERVE: usize = 1 << 20;

/// Writes a bundle's components into their pools by precomputed id.
struct InsertSink<'a> {
    pools: &'a mut [SparseSet],
    ids: &'a [ComponentId],
    next: usize,
    entity: Entity,
    sets: &'a mut ComponentSets,
}

impl BundleSink for InsertSink<'_> {
    #[inline]
    fn put<T: Component>(&mut self, value: T) {
        let id = self.ids[self.next];
        self.next += 1;
        if T::insert(&mut self.pools[id.index()], self.entity, value).is_none() {
            self.sets.add(self.entity.index(), id);
        }
    }
}

/// Writes a bundle's components into their pools by precomputed id, for a new entity: its
/// component set is the bundle's, set once before the writes.
struct SpawnSink<'a> {
    pools: &'a mut [SparseSet],
    ids: &'a [ComponentId],
    next: usize,
    entity: Entity,
}

impl BundleSink for SpawnSink<'_> {
    #[inline(always)]
    fn put<T: Component>(&mut self, value: T) {
        let id = self.ids[self.next];
        self.next += 1;
        // A pool's row matches a whole handle, generation included, so a new entity is never
        // found: every value is pushed.
        T::push_new(&mut self.pools[id.index()], self.entity, value);
    }
}

/// What a world caches per bundle type.
#[derive(Debug)]
pub(crate) struct BundleInfo {
    /// The component ids, in bundle order.
    ids: SmallVec<[ComponentId; 8]>,
    /// The component set of an entity spawned with the bundle.
    set: SetId,
}

/// The ids of bundle `B` in bundle order, registered and checked for duplicates on first use,
/// and the component set of an entity spawned with it.
///
/// # Panics
/// If `B` holds the same component type twice.
#[track_caller]
fn bundle_ids<'a, B: Bundle>(
    bundles: &'a mut FxHashMap<TypeId, BundleInfo>,
    components: &mut Components,
    sets: &mut ComponentSets,
) -> (&'a [ComponentId], SetId) {
    let info = bundles.entry(TypeId::of::<B>()).or_insert_with(|| {
        let mut ids = SmallVec::new();
        B::register_ids(components, &mut |id| ids.push(id));
        for (i, id) in ids.iter().enumerate() {
            if ids[..i].contains(id) {
                let mut names = Vec::new();
                B::type_names(&mut |name| names.push(name));
                panic!(
                    "bundle `{}` contains component `{}` twice; a bundle may hold each type once",
                    std::any::type_name::<B>(),
                    names[i]
                );
            }
        }
        let set = sets.set_with_all(EMPTY, &ids);
        BundleInfo { ids, set }
    });
    (&info.ids, info.set)
}

/// Writes `bundle` (component ids `ids`) into `entity`'s rows and component set: a `new` entity
/// (no component yet) gets set `set`, the bundle's, first; an existing one follows an edge per
/// component it gains. A free function over the two fields it touches, so callers can hold a
/// bundle's cached ids meanwhile.
#[inline(always)]
fn write_bundle<B: Bundle>(
    components: &mut Components,
    sets: &mut ComponentSets,
    entity: Entity,
    new: bool,
    bundle: B,
    ids: &[ComponentId],
    set: SetId,
) {
    if new {
        // The set first: should an insert panic part-way (a pool past `u32::MAX` rows), the set
        // names a component too many, which despawn passes over, and never leaves a value out of
        // it, which despawn would leave behind.
        sets.replace(entity.index(), set);
        bundle.put_each(&mut SpawnSink { pools: components.pools_mut(), ids, next: 0, entity });
    } else {
        bundle.put_each(&mut InsertSink { pools: components.pools_mut(), ids, next: 0, entity, sets });
    }
}

/// Registers bundle `B`'s components and checks it holds no type twice (cached per bundle type).
///
/// # Panics
/// If `B` holds the same component type twice.
#[track_caller]
pub(super) fn check_bundle<B: Bundle>(world: &mut World) {
    bundle_ids::<B>(&mut world.bundles, &mut world.components, &mut world.component_sets);
}

/// Allocates an entity id and makes sure its component set entry exists; a free function over
/// the two fields it touches, so callers can hold a bundle's cached ids meanwhile.
#[inline(always)]
fn alloc_entity(entities: &mut Entities, sets: &mut ComponentSets) -> Result<Entity, EntityError> {
    // `alloc` flushes reserved ids first, so more than one slot may have come alive.
    let entity = entities.alloc()?;
    sets.fit(entities.slot_count() as usize);
    debug_assert!(sets.set_of(entity.index()) == EMPTY, "a new entity starts with no components");
    Ok(entity)
}

impl World {
    /// Allocates an entity id and makes sure its component set entry exists.
    #[inline]
    pub(super) fn alloc_entity(&mut self) -> Result<Entity, EntityError> {
        alloc_entity(&mut self.entities, &mut self.component_sets)
    }

    /// Reserves an entity id through `&World`: the handle is final and can be used at once (in a
    /// [`CommandBuffer`](crate::CommandBuffer), stored in a component), but the entity is not
    /// alive until the world next flushes: [`World::flush`], applying a command buffer, or any
    /// structural change (spawn, despawn, insert, remove) does it, and the entity then exists
    /// with no components. Until then [`World::is_alive`] is false for it. Safe to call from many
    /// threads at once (a system's [`Commands`](crate::Commands) does). O(1), lock-free.
    ///
    /// hecs' `World::reserve_entity` and `flush`; bevy's `Entities::reserve_entity`.
    ///
    /// # Panics
    /// If the entity index space is exhausted; see [`World::try_reserve_entity`].
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Hull(u32);
    ///
    /// let mut world = World::new();
    /// let ship = world.reserve_entity();
    /// assert!(!world.is_alive(ship));
    /// world.flush();
    /// assert!(world.is_alive(ship));
    /// world.insert(ship, Hull(100));
    /// ```
    #[track_caller]
    pub fn reserve_entity(&self) -> Entity {
        self.try_reserve_entity().unwrap_or_else(|error| panic!("cannot reserve an entity: {error}"))
    }

    /// Reserves an entity id through `&World`; the fallible form of [`World::reserve_entity`].
    ///
    /// # Errors
    /// [`EntityError::Exhausted`] when every index is in use, reserved or retired.
    pub fn try_reserve_entity(&self) -> Result<Entity, EntityError> {
        self.entities.reserve_entity()
    }

    /// Reserves `count` entity ids through `&World` at once, as [`World::reserve_entity`] does
    /// `count` times; the iterator yields them (exact size). O(1) to reserve.
    ///
    /// # Panics
    /// If fewer than `count` indices are left; nothing is reserved then.
    #[track_caller]
    pub fn reserve_entities(&self, count: u32) -> ReservedIter<'_> {
        self.entities
            .reserve_entities(count)
            .unwrap_or_else(|error| panic!("cannot reserve {count} entities: {error}"))
    }

    /// Makes every id reserved through [`World::reserve_entity`] a live entity with no
    /// components. Every structural change calls it first, so calling it by hand is needed only
    /// to see reserved entities as alive before the next change. O(reserved); O(1) when nothing
    /// is reserved.
    #[inline]
    pub fn flush(&mut self) {
        if self.entities.flush() > 0 {
            self.fit_sets();
        }
    }

    /// Gives every slot a component set entry after the allocator flushed by itself (in `free`).
    #[inline]
    pub(crate) fn fit_sets(&mut self) {
        self.component_sets.fit(self.entities.slot_count() as usize);
    }

    /// Spawns an entity with the components of `bundle` and returns its handle.
    /// O(c) in the bundle's c components (amortised).
    ///
    /// # Panics
    /// If the entity index space is exhausted (see [`World::try_spawn`]) or the bundle holds a
    /// component type twice.
    ///
    /// # Examples
    /// ```
    /// # use mosaic::{Component, World};
    /// # #[derive(Component)] struct Position(f32, f32);
    /// let mut world = World::new();
    /// let e = world.spawn((Position(1.0, 2.0),));
    /// assert!(world.contains::<Position>(e));
    /// ```
    #[track_caller]
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> Entity {
        self.try_spawn(bundle).unwrap_or_else(|error| panic!("cannot spawn: {error}"))
    }

    /// Spawns an entity with the components of `bundle`; the fallible form of [`World::spawn`].
    ///
    /// # Errors
    /// [`EntityError::Exhausted`] when no entity index is left (the bundle is dropped).
    ///
    /// # Panics
    /// If the bundle holds a component type twice; the check comes first, so nothing is spawned.
    #[track_caller]
    pub fn try_spawn<B: Bundle>(&mut self, bundle: B) -> Result<Entity, EntityError> {
        self.put_bundle_into(None, bundle)
    }

    /// Inserts `bundle` into live `entity`, firing hooks and watches if any exist.
    #[track_caller]
    fn put_bundle<B: Bundle>(&mut self, entity: Entity, bundle: B) {
        if let Err(error) = self.put_bundle_into(Some(entity), bundle) {
            unreachable!("a bundle put into a live entity allocates nothing, yet failed: {error}");
        }
    }

    /// Inserts `bundle` into live entity `target`, or into a new entity when `target` is `None`,
    /// firing hooks and watches if any exist, and returns the entity.
    ///
    /// The bundle's ids are resolved, and checked for duplicates, before a new entity is
    /// allocated: a bundle that holds a type twice panics with nothing spawned.
    ///
    /// # Errors
    /// [`EntityError::Exhausted`] when `target` is `None` and no index is left.
    #[track_caller]
    fn put_bundle_into<B: Bundle>(
        &mut self,
        target: Option<Entity>,
        bundle: B,
    ) -> Result<Entity, EntityError> {
        self.flush();
        let (ids, set) = bundle_ids::<B>(&mut self.bundles, &mut self.components, &mut self.component_sets);
        if self.components.has_pending_required() {
            // A type just registered declares required components: flag its pool, then start
            // over with the bundle's set seeing the flag.
            self.settle_registrations();
            return self.put_bundle_into(target, bundle);
        }
        let entity = match target {
            Some(entity) => entity,
            None => alloc_entity(&mut self.entities, &mut self.component_sets)?,
        };
        // The bundle's set is the union of its components: whether any of their pools has a
        // subscriber.
        if !self.component_sets.events(set).is_empty() {
            let ids: Ids = ids.into();
            self.put_bundle_observed(entity, target.is_none(), bundle, &ids, set);
            return Ok(entity);
        }
        write_bundle(
            &mut self.components,
            &mut self.component_sets,
            entity,
            target.is_none(),
            bundle,
            ids,
            set,
        );
        Ok(entity)
    }

    /// Writes `bundle` (component ids `ids`, set `set` for a new entity) into `entity` when some
    /// of its components' pools have subscribers: they run before and after the writes if they
    /// want the change's events (adds, replaces).
    #[inline(never)]
    fn put_bundle_observed<B: Bundle>(
        &mut self,
        entity: Entity,
        new: bool,
        bundle: B,
        ids: &[ComponentId],
        set: SetId,
    ) {
        let (added, replaced): (Ids, Ids) = if new {
            (ids.into(), Ids::new())
        } else {
            ids.iter().copied().partition(|&id| !self.components.pool(id).contains(entity))
        };
        let change = RowChange::insert(entity, &added, &replaced);
        let events = self.component_sets.events(set);
        let observed = events.intersects(change.events());
        if observed {
            self.emit_before(&change);
        }
        write_bundle(&mut self.components, &mut self.component_sets, entity, new, bundle, ids, set);
        if observed {
            self.emit_after(&change);
        }
    }

    /// Spawns an entity with no components.
    ///
    /// # Panics
    /// If the entity index space is exhausted.
    #[track_caller]
    pub fn spawn_empty(&mut self) -> Entity {
        self.spawn(())
    }

    /// Spawns one entity per bundle of `iter` and returns their handles in iteration order.
    ///
    /// Reserves the allocator and the pools once from the iterator's lower size hint (capped at
    /// 2^20 entities, so a lying hint costs at most that much spare capacity and a short one only
    /// some regrowth), and resolves the component ids once for the whole batch. Hooks,
    /// observers and watches see each spawn in order; where owning groups (and value indexes)
    /// are the only listeners of the bundle's pools, every entity is written first and joins
    /// its groups after, in spawn order, which leaves the rows where spawns one by one would.
    ///
    /// # Panics
    /// If the entity index space runs out part-way (the entities spawned so far stay) or the
    /// bundle type holds a component type twice.
    #[track_caller]
    pub fn spawn_batch<I>(&mut self, iter: I) -> Vec<Entity>
    where
        I: IntoIterator,
        I::Item: Bundle,
    {
        let iter = iter.into_iter();
        let mut spawned = Vec::with_capacity(iter.size_hint().0.min(MAX_BATCH_RESERVE));
        self.spawn_each(iter, |entity| spawned.push(entity));
        spawned
    }

    /// Spawns the bundles of `iter` as in [`World::spawn_batch`], calling `on_spawn` with each
    /// new handle instead of collecting them.
    #[track_caller]
    pub(crate) fn spawn_each<I>(&mut self, iter: I, mut on_spawn: impl FnMut(Entity))
    where
        I: Iterator,
        I::Item: Bundle,
    {
        self.flush();
        let reserve = iter.size_hint().0.min(MAX_BATCH_RESERVE);
        self.reserve(reserve);
        let (ids, set) =
            bundle_ids::<I::Item>(&mut self.bundles, &mut self.components, &mut self.component_sets);
        let ids = ids.to_vec();
        self.settle_registrations();
        for &id in &ids {
            self.components.pool_mut(id).reserve(reserve);
        }
        let events = self.component_sets.events(set);
        if events.is_empty() {
            // No subscriber can appear during the loop (the iterator has no access to the
            // world), so none is looked for per entity.
            let pools = self.components.pools_mut();
            for bundle in iter {
                let sets = &mut self.component_sets;
                let entity = alloc_entity(&mut self.entities, sets)
                    .unwrap_or_else(|error| panic!("cannot spawn: {error}"));
                sets.replace(entity.index(), set); // first, as in `put_bundle_into`
                bundle.put_each(&mut SpawnSink { pools, ids: &ids, next: 0, entity });
                on_spawn(entity);
            }
            return;
        }
        if !events.contains(RowEvents::PER_ROW) || ids.iter().all(|&id| self.addition_batchable(id)) {
            let mut iter = iter;
            let next = |entities: &mut Entities, sets: &mut ComponentSets| {
                let bundle = iter.next()?;
                Some((
                    alloc_entity(entities, sets).unwrap_or_else(|error| panic!("cannot spawn: {error}")),
                    bundle,
                ))
            };
            self.spawn_batched(&ids, set, next, on_spawn);
            return;
        }
        for bundle in iter {
            let entity = self.alloc_entity().unwrap_or_else(|error| panic!("cannot spawn: {error}"));
            self.put_bundle_observed(entity, true, bundle, &ids, set);
            on_spawn(entity);
        }
    }

    /// Whether any of pools `ids` has a value index (`noted`: a batch lists its rows for them)
    /// and whether any is owned by a group (`grouped`: a batch replays its joins).
    pub(super) fn batch_listeners(&self, ids: &[ComponentId]) -> (bool, bool) {
        let noted = ids.iter().any(|&id| !super::Indexes::events(self, id).is_empty());
        let grouped = ids.iter().any(|&id| !self.groups.chain(id).is_empty());
        (noted, grouped)
    }

    /// The loop of a spawn batch whose pools' listeners all take batches (value indexes) or are
    /// owning groups: each entity `next` yields, with its bundle, gets component set `set` and
    /// its values pushed (`next` gets the allocator and the sets, to allocate or check it); then
    /// the indexes hear of the rows once and the groups' joins are replayed in spawn order
    /// (`GroupJoins`, also when the loop panics). No callback runs in the loop (`next` and the
    /// bundles have no access to the world), so no subscriber appears and no entity ends: the
    /// pools are found once. O(rows * components).
    fn spawn_batched<B: Bundle>(
        &mut self,
        ids: &[ComponentId],
        set: SetId,
        mut next: impl FnMut(&mut Entities, &mut ComponentSets) -> Option<(Entity, B)>,
        mut on_spawn: impl FnMut(Entity),
    ) {
        let (noted, grouped) = self.batch_listeners(ids);
        let mut spawned = Vec::new();
        let mut joins = GroupJoins::new(self, ids);
        let World { components, entities, component_sets: sets, indexes, .. } = &mut *joins.world;
        // A panic mid-loop (exhausted ids, a panicking iterator) marks the indexes stale instead.
        let indexes = super::index::InvalidateOnUnwind::new(indexes);
        let pools = components.pools_mut();
        while let Some((entity, bundle)) = next(entities, sets) {
            sets.replace(entity.index(), set); // first, as in `put_bundle_into`
            bundle.put_each(&mut SpawnSink { pools, ids, next: 0, entity });
            if noted {
                spawned.push(entity);
            }
            if grouped {
                joins.entities.push(entity);
            }
            on_spawn(entity);
        }
        let indexes = indexes.into_inner();
        for &id in ids {
            indexes.note_rows(components.pool(id), id, &spawned);
        }
    }

    /// Gives each entity of `rows` its bundle, in order, as [`World::insert_bundle`] one by one
    /// would, for entities that were reserved and are most likely still empty (the spawns of a
    /// command buffer); returns how many rows were passed over because their entity was not
    /// alive (their bundles dropped). O(rows * components).
    ///
    /// When every listener of the bundle's pools takes batches (value indexes) or is an owning
    /// group, the ids and the set are found once and each empty entity takes the spawn path
    /// (its set assigned, every value pushed, no search for a row to replace), the indexes told
    /// of the rows once and the groups' joins replayed in row order after; an entity that
    /// already has components, and every row when other listeners are present, goes through
    /// [`World::insert_bundle`].
    ///
    /// # Panics
    /// If the bundle holds a component type twice (before any row is written).
    #[track_caller]
    pub(crate) fn spawn_reserved_rows<B: Bundle>(
        &mut self,
        rows: impl Iterator<Item = (Entity, B)>,
    ) -> usize {
        self.flush();
        let mut rows = rows;
        let reserve = rows.size_hint().0.min(MAX_BATCH_RESERVE);
        let (ids, set) = bundle_ids::<B>(&mut self.bundles, &mut self.components, &mut self.component_sets);
        let ids: SmallVec<[ComponentId; 8]> = ids.into();
        self.settle_registrations();
        let mut skipped = 0;
        if ids.iter().all(|&id| self.addition_batchable(id)) {
            for &id in &ids {
                self.components.pool_mut(id).reserve(reserve);
            }
            let mut rest = None;
            let next = |entities: &mut Entities, sets: &mut ComponentSets| {
                for (entity, bundle) in rows.by_ref() {
                    if !entities.is_alive(entity) {
                        skipped += 1;
                    } else if sets.set_of(entity.index()) != EMPTY {
                        // Components already (inserted before its spawn was applied): the
                        // general path, which may run listeners of those, so the rest go that
                        // way too, after the batch's joins.
                        rest = Some((entity, bundle));
                        return None;
                    } else {
                        return Some((entity, bundle));
                    }
                }
                None
            };
            self.spawn_batched(&ids, set, next, |_| {});
            let Some((entity, bundle)) = rest else { return skipped };
            self.insert_bundle(entity, bundle);
        }
        for (entity, bundle) in rows {
            if self.is_alive(entity) {
                self.insert_bundle(entity, bundle);
            } else {
                skipped += 1;
            }
        }
        skipped
    }

    /// Adds or replaces the components of `bundle` on `entity`. Replaced values are dropped.
    ///
    /// # Panics
    /// If `entity` is not alive (see [`World::try_insert_bundle`]) or the bundle holds a component
    /// type twice.
    #[track_caller]
    pub fn insert_bundle<B: Bundle>(&mut self, entity: Entity, bundle: B) {
        if let Err(error) = self.try_insert_bundle(entity, bundle) {
            panic!("cannot insert bundle `{}`: {error}", std::any::type_name::<B>());
        }
    }

    /// Adds or replaces the components of `bundle` on `entity`; the fallible form of
    /// [`World::insert_bundle`].
    ///
    /// # Errors
    /// [`ComponentError::Entity`] if `entity` is not alive (the bundle is dropped).
    ///
    /// # Panics
    /// If the bundle holds a component type twice.
    #[track_caller]
    pub fn try_insert_bundle<B: Bundle>(&mut self, entity: Entity, bundle: B) -> Result<(), ComponentError> {
        self.flush();
        self.check_alive(entity)?;
        self.put_bundle(entity, bundle);
        Ok(())
    }
}

impl<B: Bundle> Extend<B> for World {
    /// Spawns one entity per bundle, like [`World::spawn_batch`] without collecting the handles.
    ///
    /// # Panics
    /// As [`World::spawn_batch`].
    fn extend<I: IntoIterator<Item = B>>(&mut self, iter: I) {
        self.spawn_each(iter.into_iter(), |_| {});
    }
}
