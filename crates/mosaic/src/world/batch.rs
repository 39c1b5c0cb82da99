//! Insert and remove one component type on many entities at once: the type and its pool are
//! found once per batch, and pools without per-row subscribers take the whole batch.

use super::World;
use super::component_sets::EdgeMemo;
use crate::component::{BatchSink, Bundle, Component};
use crate::entity::{Entity, EntityError};
use crate::storage::RowEvents;

impl World {
    /// Adds or replaces bundle `B` on many entities: `rows` yields `(entity, bundle)`, a bundle
    /// being a component or several (bevy's `insert_batch`). For one component type the type
    /// lookup is done once, not per row, so this is the fast way to give a component to a known
    /// set of entities; a bundle of several goes row by row as [`World::insert_bundle`]. Hooks,
    /// observers and watches see each row as an insert, in order; where owning groups are the
    /// only listeners of the pool (value indexes aside), the rows are written first and the
    /// entities that gained the component join their groups after, in row order, which leaves
    /// the rows where inserts one by one would. O(rows * components) amortised.
    ///
    /// # Panics
    /// If an entity is not alive (stale, despawned, or of another world), after the rows before
    /// it were inserted; the value is dropped. See [`World::insert`]. Also if `B` holds a type
    /// twice.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Frozen;
    /// #[derive(Component)]
    /// struct Chill(u32);
    ///
    /// let mut world = World::new();
    /// let targets: Vec<_> = (0..3).map(|_| world.spawn_empty()).collect();
    /// world.insert_batch(targets.iter().map(|&e| (e, (Frozen, Chill(5)))));
    /// assert!(targets.iter().all(|&e| world.contains::<Frozen>(e) && world.contains::<Chill>(e)));
    /// ```
    #[track_caller]
    pub fn insert_batch<B: Bundle>(&mut self, rows: impl IntoIterator<Item = (Entity, B)>) {
        /// Both paths, panicking on a dead entity.
        struct Panicking<'a>(&'a mut World);
        impl BatchSink for Panicking<'_> {
            #[track_caller]
            fn component<T: Component>(&mut self, rows: impl Iterator<Item = (Entity, T)>) {
                self.0.insert_rows(rows, |entity, error| {
                    panic!("cannot insert `{}` on {entity}: {error}", std::any::type_name::<T>())
                });
            }
            #[track_caller]
            fn bundle<B: Bundle>(&mut self, rows: impl Iterator<Item = (Entity, B)>) {
                for (entity, bundle) in rows {
                    self.0.insert_bundle(entity, bundle);
                }
            }
        }
        B::insert_batch(&mut Panicking(self), rows.into_iter());
    }

    /// [`World::insert_batch`], calling `on_dead(entity, error)` (and dropping the value) for a
    /// row whose entity is not alive.
    pub(crate) fn insert_rows<T: Component>(
        &mut self,
        rows: impl IntoIterator<Item = (Entity, T)>,
        mut on_dead: impl FnMut(Entity, EntityError),
    ) {
        self.flush();
        let rows = rows.into_iter();
        let id = self.components.register::<T>();
        self.settle_registrations();
        self.components.pool_mut(id).reserve(rows.size_hint().0);
        let events = self.components.pool(id).row_events();
        if events.contains(RowEvents::PER_ROW) && !self.addition_batchable(id) {
            for (entity, value) in rows {
                if let Err(error) = self.check_alive(entity) {
                    on_dead(entity, error);
                    continue;
                }
                self.insert_row(id, entity, value);
            }
            return;
        }
        // No subscriber can appear during the loop (no callback runs: the iterator and the
        // replaced values' drops have no access to the world), so the pool is found once.
        if events.is_empty() {
            let World { components, entities, component_sets, .. } = self;
            let mut memo = EdgeMemo::new();
            T::insert_rows(
                components.pool_mut(id),
                rows,
                |entity| match entities.check(entity) {
                    Ok(()) => true,
                    Err(error) => {
                        on_dead(entity, error);
                        false
                    }
                },
                |entity| component_sets.step(entity.index(), id, true, &mut memo),
            );
            return;
        }
        // The subscribers all take batches (value indexes) or are owning groups: the indexes
        // hear of the rows once, after; the groups' joins are replayed after the rows, in order
        // (`GroupJoins`, also when `on_dead` panics mid-loop).
        let (noted, grouped) = self.batch_listeners(&[id]);
        let mut written = Vec::new();
        let mut joins = super::group::GroupJoins::new(self, &[id]);
        let World { components, entities, component_sets, indexes, .. } = &mut *joins.world;
        // A dead entity panics through `on_dead` mid-loop: the batch listeners are then told
        // nothing, so they are marked stale (rebuilt on next use) instead of left behind.
        let indexes = super::index::InvalidateOnUnwind::new(indexes);
        let pool = components.pool_mut(id);
        for (entity, value) in rows {
            if let Err(error) = entities.check(entity) {
                on_dead(entity, error);
                continue;
            }
            if T::insert(pool, entity, value).is_none() {
                component_sets.add(entity.index(), id);
                if grouped {
                    joins.entities.push(entity);
                }
            }
            if noted {
                written.push(entity);
            }
        }
        indexes.into_inner().note_rows(components.pool(id), id, &written);
    }

    /// Removes `T` from many entities and drops the values; returns how many had one. The type
    /// lookup is done once, not per entity, so this is the fast way to take a component off a
    /// known set of entities (the removing twin of [`World::insert_batch`]). Entities without a
    /// `T` are passed over. Hooks, watches and groups see each removal as a [`World::remove`].
    /// O(entities), each removal as [`World::remove`].
    ///
    /// # Panics
    /// If an entity is not alive (stale, despawned, or of another world), after the entities
    /// before it lost their `T`. See [`World::remove`].
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Stunned;
    ///
    /// let mut world = World::new();
    /// let stunned = world.spawn_batch((0..3).map(|_| Stunned));
    /// let calm = world.spawn_empty();
    /// assert_eq!(world.remove_batch::<Stunned>(stunned.iter().copied().chain([calm])), 3);
    /// assert!(stunned.iter().all(|&e| !world.contains::<Stunned>(e)));
    /// ```
    #[track_caller]
    pub fn remove_batch<T: Component>(&mut self, entities: impl IntoIterator<Item = Entity>) -> usize {
        self.remove_rows::<T>(entities, |entity, error| {
            panic!("cannot remove `{}` from {entity}: {error}", std::any::type_name::<T>())
        })
    }

    /// [`World::remove_batch`], calling `on_dead(entity, error)` for an entity that is not alive
    /// (and passing it over) instead of panicking.
    pub(crate) fn remove_rows<T: Component>(
        &mut self,
        entities: impl IntoIterator<Item = Entity>,
        mut on_dead: impl FnMut(Entity, EntityError),
    ) -> usize {
        self.flush();
        let id = self.components.id::<T>();
        let mut removed = 0;
        if let Some(id) = id
            && !self.components.pool(id).row_events().contains(RowEvents::REMOVE)
        {
            // As in `insert_rows`: nothing that runs in the loop can add a subscriber or end an
            // entity (a removed value's drop has no access to the world), so the pool is found
            // once, and liveness is tested as the entities come.
            let World { components, entities: alive, component_sets, .. } = self;
            let mut memo = EdgeMemo::new();
            let live = entities.into_iter().filter(|&entity| match alive.check(entity) {
                Ok(()) => true,
                Err(error) => {
                    on_dead(entity, error);
                    false
                }
            });
            T::remove_rows(
                components.pool_mut(id),
                live,
                |_| {},
                |entity, value| {
                    component_sets.step(entity.index(), id, false, &mut memo);
                    removed += 1;
                    drop(value);
                },
            );
            return removed;
        }
        if let Some(id) = id
            && !self.components.pool(id).row_events().contains(RowEvents::PER_ROW)
        {
            // Every subscriber takes batches (value indexes): the plain loop, then the removed
            // rows handed to them once.
            let mut gone = Vec::new();
            let World { components, entities: alive, component_sets, indexes, .. } = self;
            // As in `insert_rows`: a panic mid-loop marks the batch listeners stale.
            let indexes = super::index::InvalidateOnUnwind::new(indexes);
            let pool = components.pool_mut(id);
            for entity in entities {
                if let Err(error) = alive.check(entity) {
                    on_dead(entity, error);
                    continue;
                }
                if let Some(value) = T::remove(pool, entity) {
                    component_sets.remove(entity.index(), id);
                    removed += 1;
                    gone.push(entity);
                    drop(value);
                }
            }
            indexes.into_inner().note_rows(components.pool(id), id, &gone);
            return removed;
        }
        for entity in entities {
            if let Err(error) = self.check_alive(entity) {
                on_dead(entity, error);
                continue;
            }
            if let Some(id) = id {
                removed += usize::from(self.remove_row::<T>(id, entity).is_some());
            }
        }
        removed
    }
}
