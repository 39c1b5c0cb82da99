//! Despawns in runs: a run of despawns applied as one batch per pool, the pools on every core.
//!
//! [`World::despawn_batch`], and the command buffers' runs of despawns when applied on a rayon
//! pool of several threads, go through a [`DespawnRun`]: each entity is checked and its id freed on the calling thread, in command
//! order (a second despawn of one entity in a run is skipped, as one by one); its rows stay in
//! their pools until the run is finished. Finishing removes them pool by pool: for each pool,
//! the run's entities that have a row there, in command order, each taken out of the owning
//! groups of the pool (innermost first) then swap-removed, exactly the operations one despawn
//! at a time does to that pool. Pools are independent, so the pools whose values need no drop
//! are done as one task each on the rayon pool for a large run; the others drop their values on
//! the calling thread, entity by entity in command order, as one by one. The world afterwards is
//! the same, bit for bit, as despawning the entities one by one, on every thread count.
//!
//! Only entities whose components have no listener that needs each removal as it happens (a
//! hook, an observer, a watch, a relation, the hierarchy: anything but owning groups, replayed
//! per pool, and value indexes, which take the run's entities at once) join a run; an entity with
//! such a listener finishes the run first and is despawned alone. Per-row listeners are what
//! make a despawn observable between two others; without them, nothing can tell a run from
//! the same despawns one by one.

use smallvec::SmallVec;

use super::World;
use super::component_sets::{EMPTY, SetId};
use super::prefetch::DISTANCE;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::storage::{RowEvents, SparseSet};

/// Below this many rows in all, a run's pools are emptied on the calling thread: a task per
/// pool costs more than it saves.
#[cfg(feature = "parallel")]
const PARALLEL_RUN_ROWS: usize = 4096;

/// Despawns whose rows are still to be removed: the entities (already dead) with the component
/// set they had, in command order. Kept by its owner between runs, so a warm run allocates
/// nothing on one thread (the tasks of a parallel finish take two small vectors).
#[derive(Debug, Default)]
pub(crate) struct DespawnRun {
    /// The entities in command order, each with its component set before the despawn.
    pending: Vec<(Entity, SetId)>,
    /// Per component set met in this run: whether its despawn may join a run.
    batchable: SmallVec<[(SetId, bool); 8]>,
    /// Per pool touched: the pool and the run's entities with a row there, in command order.
    lists: Vec<(ComponentId, Vec<Entity>)>,
    /// Per pool, its list's index in `lists`, for pools touched by this run.
    list_of: Vec<u32>,
}

/// One pool's part of finishing a run: the owning groups of the pool (innermost first) and their
/// lengths as this pool's removals move them.
#[derive(Clone, Debug)]
struct GroupSteps {
    chain: SmallVec<[(u32, usize); 2]>,
}

impl GroupSteps {
    /// [`GroupSteps::despawn_row`] for each of `entities` in order, asking for the memory of
    /// the ones a few steps ahead (their sparse entries, then their rows, and the rows the
    /// swaps will move in: each group's last members and the pool's last rows), so the cache
    /// misses of a large pool overlap. The hints change nothing.
    fn despawn_rows(&mut self, pool: &mut SparseSet, entities: &[Entity]) {
        let (far, near) = (4 * DISTANCE, 2 * DISTANCE);
        for (i, &entity) in entities.iter().enumerate() {
            if let Some(ahead) = entities.get(i + far) {
                pool.prefetch_entry(ahead.index());
            }
            if let Some(ahead) = entities.get(i + near) {
                pool.prefetch_row_of(ahead.index());
                let dense = pool.entities();
                let partner = |end: usize| end.checked_sub(1 + near).and_then(|row| dense.get(row));
                for &(_, len) in &self.chain {
                    if let Some(moved) = partner(len) {
                        pool.prefetch_entry(moved.index());
                    }
                }
                if let Some(moved) = partner(dense.len()) {
                    pool.prefetch_entry(moved.index());
                }
            }
            self.despawn_row(pool, entity);
        }
    }

    /// Takes `entity` out of every group of the chain that holds it (innermost first, as
    /// `World::groups_before_remove` does), then removes and drops its row.
    fn despawn_row(&mut self, pool: &mut SparseSet, entity: Entity) {
        if let Some(mut row) = pool.row_of(entity) {
            for (_, len) in &mut self.chain {
                if row < *len {
                    let last = *len - 1;
                    pool.swap_rows(row, last);
                    row = last;
                    *len = last;
                }
            }
        }
        pool.remove_and_drop(entity);
    }
}

impl World {
    /// Despawns every live entity of `entities`, in order, skipping the dead ones (and a
    /// repeat of one already despawned); returns how many it despawned. The world afterwards is
    /// the same as after [`World::try_despawn`] of each in turn, bit for bit (rows, their order,
    /// groups, change ticks), on every thread count.
    ///
    /// Entities with no per-row listener on their components (no hook, observer, watch,
    /// relation or hierarchy; owning groups and value indexes are fine) are despawned as a
    /// batch: ids freed in order, then each pool's rows removed at once, one task per pool on
    /// the rayon pool for large batches (feature `parallel`); values that need dropping are
    /// dropped on the calling thread in the entities' order, as one by one. The others are
    /// despawned one by one in their place in the order. O(n + rows removed).
    ///
    /// # Panics
    /// If a component's `Drop` panics: every entity of the batch being finished is still fully
    /// despawned (the rest of the values are dropped during the unwind; a second panicking drop
    /// aborts), and the entities after it in `entities` are not despawned.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Bullet(u32);
    ///
    /// let mut world = World::new();
    /// let bullets = world.spawn_batch((0..10).map(Bullet));
    /// let gone = world.despawn_batch(bullets.iter().copied().step_by(2).chain([bullets[0]]));
    /// assert_eq!(gone, 5, "the repeat of bullets[0] is skipped");
    /// assert_eq!(world.query::<&Bullet>().iter().count(), 5);
    /// ```
    pub fn despawn_batch(&mut self, entities: impl IntoIterator<Item = Entity>) -> usize {
        let mut run = self.take_despawn_run();
        let mut despawned = 0;
        for entity in entities {
            despawned += usize::from(self.despawn_in_run(&mut run, entity));
        }
        self.finish_despawn_run(&mut run);
        self.put_despawn_run(run);
        despawned
    }

    /// The world's despawn-run buffers (empty), taken out so a run can hold them beside the
    /// world; [`World::put_despawn_run`] gives them back.
    pub(crate) fn take_despawn_run(&mut self) -> DespawnRun {
        std::mem::take(&mut self.despawn_run)
    }

    /// Gives back `run`'s buffers (the run finished) for the next run to reuse.
    pub(crate) fn put_despawn_run(&mut self, run: DespawnRun) {
        debug_assert!(run.pending.is_empty(), "a despawn run is put back unfinished");
        self.despawn_run = run;
    }

    /// Despawns `entity` as part of `run`: a despawn that may be batched frees the id now and
    /// leaves the rows for [`World::finish_despawn_run`]; any other finishes the run and
    /// despawns alone. Returns whether `entity` was alive (and is now despawned).
    pub(crate) fn despawn_in_run(&mut self, run: &mut DespawnRun, entity: Entity) -> bool {
        if run.pending.is_empty() {
            self.flush();
        }
        if !self.is_alive(entity) {
            return false;
        }
        let set = self.component_sets.set_of(entity.index());
        if !self.batchable_set(run, set) {
            self.finish_despawn_run(run);
            return self.try_despawn(entity).is_ok();
        }
        self.entities.free(entity).expect("checked alive above");
        self.component_sets.replace(entity.index(), EMPTY);
        run.pending.push((entity, set));
        true
    }

    /// Whether despawning an entity of component set `set` may join a run: no pool of the set
    /// has a listener other than groups and indexes that follows removals. Memoised per run.
    fn batchable_set(&self, run: &mut DespawnRun, set: SetId) -> bool {
        if !self.component_sets.events(set).contains(RowEvents::REMOVE) {
            return true;
        }
        if let Some(&(_, batchable)) = run.batchable.iter().find(|(s, _)| *s == set) {
            return batchable;
        }
        let batchable = self.component_sets.set_ids(set).iter().all(|&id| self.removal_batchable(id));
        run.batchable.push((set, batchable));
        batchable
    }

    /// Removes the rows of every entity `run` despawned (see the module docs), updates the
    /// groups' lengths and notes the entities in the value indexes; leaves `run` empty. A run
    /// with nothing pending costs one test (inline); the work is out of line.
    #[inline]
    pub(crate) fn finish_despawn_run(&mut self, run: &mut DespawnRun) {
        if !run.pending.is_empty() {
            self.finish_pending_despawns(run);
        }
    }

    /// [`World::finish_despawn_run`]'s work, for a run with despawns pending.
    #[inline(never)]
    fn finish_pending_despawns(&mut self, run: &mut DespawnRun) {
        self.fit_sets();
        // Per pool, its entities in command order (lazily cleaned pools keep their dead rows
        // for the collector, as one despawn does).
        let pools = self.components.pools().len();
        run.list_of.clear();
        run.list_of.resize(pools, u32::MAX);
        let mut used = 0;
        for &(entity, set) in &run.pending {
            for &id in self.component_sets.set_ids(set) {
                if self.components.pool(id).is_lazy() {
                    continue;
                }
                let slot = &mut run.list_of[id.index()];
                if *slot == u32::MAX {
                    *slot = used as u32;
                    if run.lists.len() <= used {
                        run.lists.push((id, Vec::new()));
                    }
                    run.lists[used].0 = id;
                    run.lists[used].1.clear();
                    used += 1;
                }
                run.lists[*slot as usize].1.push(entity);
            }
        }
        let lists = &run.lists[..used];
        let steps: SmallVec<[GroupSteps; 8]> = lists
            .iter()
            .map(|(id, _)| GroupSteps {
                chain: self
                    .groups
                    .chain(*id)
                    .iter()
                    .rev()
                    .map(|&g| (g, self.groups.owning[g as usize].len))
                    .collect(),
            })
            .collect();
        let mut finish = Finish { world: self, run, steps, used, next: (0, 0) };
        finish.remove_plain_rows();
        finish.drop_rows_in_order();
        drop(finish);
    }
}

/// Finishing a run, as a guard: if a drop panics, dropping the guard removes the rest of the
/// rows and sets the groups' lengths, so no dead entity's value is left in a pool.
struct Finish<'a> {
    world: &'a mut World,
    run: &'a mut DespawnRun,
    /// Per list of `run.lists[..used]`, its pool's group steps.
    steps: SmallVec<[GroupSteps; 8]>,
    used: usize,
    /// Where the ordered drop is: the entity's position in `run.pending` and the position in
    /// its component set's ids.
    next: (usize, usize),
}

impl Finish<'_> {
    /// The pools whose values need no drop: one task each (large runs, feature `parallel`), or
    /// one after another.
    fn remove_plain_rows(&mut self) {
        let lists = &self.run.lists[..self.used];
        let pools = self.world.components.pools_mut();
        let plain: SmallVec<[bool; 8]> =
            lists.iter().map(|(id, _)| !pools[id.index()].needs_drop()).collect();
        #[cfg(feature = "parallel")]
        {
            let rows: usize =
                lists.iter().zip(&plain).filter(|(_, p)| **p).map(|((_, list), _)| list.len()).sum();
            if rows >= PARALLEL_RUN_ROWS && plain.iter().filter(|&&p| p).count() > 1 {
                use rayon::prelude::*;
                // Each pool with its list and steps, found by pool index: the pools are
                // disjoint `&mut`s out of one slice.
                let mut by_pool: Vec<Option<(usize, &mut GroupSteps)>> = Vec::new();
                by_pool.resize_with(pools.len(), || None);
                for (at, steps) in self.steps.iter_mut().enumerate() {
                    if plain[at] {
                        by_pool[lists[at].0.index()] = Some((at, steps));
                    }
                }
                let mut work: Vec<(&mut SparseSet, &[Entity], &mut GroupSteps)> = pools
                    .iter_mut()
                    .zip(by_pool)
                    .filter_map(|(pool, entry)| {
                        entry.map(|(at, steps)| (pool, lists[at].1.as_slice(), steps))
                    })
                    .collect();
                work.par_iter_mut().for_each(|(pool, entities, steps)| steps.despawn_rows(pool, entities));
                return;
            }
        }
        for (at, (id, entities)) in lists.iter().enumerate() {
            if plain[at] {
                self.steps[at].despawn_rows(&mut pools[id.index()], entities);
            }
        }
    }

    /// The pools whose values need a drop: entity by entity in command order, each entity's
    /// pools in its component set's order, as one despawn at a time drops them. Resumable: a
    /// panicking drop leaves the position just past the row it dropped.
    fn drop_rows_in_order(&mut self) {
        while let Some(&(entity, set)) = self.run.pending.get(self.next.0) {
            let World { components, component_sets, .. } = &mut *self.world;
            let ids = component_sets.set_ids(set);
            while let Some(&id) = ids.get(self.next.1) {
                self.next.1 += 1;
                let at = self.run.list_of[id.index()];
                if at == u32::MAX {
                    continue;
                }
                let pool = components.pool_mut(id);
                if pool.needs_drop() {
                    self.steps[at as usize].despawn_row(pool, entity);
                }
            }
            self.next = (self.next.0 + 1, 0);
        }
    }
}

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        // After a panicking drop: the rest, in the same order (a second panic aborts).
        self.drop_rows_in_order();
        let world = &mut *self.world;
        for steps in &self.steps {
            for &(group, len) in &steps.chain {
                world.groups.owning[group as usize].len = len;
            }
        }
        for (id, entities) in &self.run.lists[..self.used] {
            world.indexes.note_rows(world.components.pool(*id), *id, entities);
        }
        self.run.pending.clear();
        self.run.batchable.clear();
    }
}
