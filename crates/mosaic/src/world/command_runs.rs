//! Runs of commands applied as batches: consecutive spawns of one bundle type, inserts of one
//! bundle type, or removals of one bundle type, recorded in a [`CommandBuffer`] and applied as
//! one batch call each, with the same world afterwards as applying them one by one.
//!
//! A run is found by [`CommandBuffer::apply`](super::CommandBuffer::apply): at least
//! [`MIN_RUN`] consecutive commands of one [`RunKind`] on one queue of bundles (or, for
//! removals, naming one [`RemoveOps`]). Its entities are checked for liveness as their turn
//! comes, exactly where the one-by-one commands check them, and every path that runs listeners
//! (hooks, observers, groups, required components) goes row by row through the world's
//! single-row operations, which apply the listeners' deferred commands after each row.
//!
//! [`CommandBuffer`]: super::CommandBuffer

use std::marker::PhantomData;

use super::World;
use crate::component::{BatchSink, Bundle, Component};
use crate::entity::Entity;

/// Commands shorter than this are applied one by one: a batch's set-up (the bundle's ids,
/// the pool found once) is paid back from a few rows on.
pub(super) const MIN_RUN: usize = 4;

/// The kind of the commands of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RunKind {
    /// Spawns into entities reserved at recording time (`CommandBuffer::spawn`).
    Spawn,
    /// Spawns whose entities are allocated now, in command order (`spawn_at_apply`).
    SpawnAtApply,
    /// Inserts of a bundle into existing entities.
    Insert,
    /// Removals of a bundle's components.
    Remove,
}

/// Applies a run of `count` commands of `kind` to a queue's `values` (stored reversed: the next
/// value is the last), naming `entities` (empty for [`RunKind::SpawnAtApply`]); returns how
/// many were skipped because their entity was not alive when its turn came.
pub(super) type ApplyRun<V> = fn(&mut Vec<V>, &mut World, RunKind, &[Entity], usize) -> usize;

/// How a removal command of one bundle type is applied, alone or in a run: one static table
/// per bundle type ([`RemoveOps::of`]), so recording a removal stores one pointer and hashes
/// nothing, and a run is a sequence of removals naming the same table.
pub(super) struct RemoveOps {
    /// Removes the bundle from one live entity ([`World::remove_present`]).
    pub(super) one: fn(&mut World, Entity),
    /// Removes it from a run's entities; returns how many were skipped (not alive).
    pub(super) run: fn(&mut World, &[Entity]) -> usize,
}

/// The table of bundle type `B`.
struct RemoveOpsOf<B>(PhantomData<fn() -> B>);

impl<B: Bundle> RemoveOpsOf<B> {
    const OPS: &'static RemoveOps = &RemoveOps { one: remove_one::<B>, run: removal_run::<B> };
}

impl RemoveOps {
    /// The table of bundle type `B`. Two calls for one type give the same table as a rule
    /// (a run may break where they do not, which changes nothing but speed); tables of two
    /// types always differ, since their functions do.
    pub(super) fn of<B: Bundle>() -> &'static RemoveOps {
        RemoveOpsOf::<B>::OPS
    }
}

fn remove_one<B: Bundle>(world: &mut World, entity: Entity) {
    world.remove_present::<B>(entity);
}

/// The next `count` values of `values`, in command order.
fn take_next<V>(values: &mut Vec<V>, count: usize) -> impl Iterator<Item = V> + '_ {
    let start = values.len().checked_sub(count).expect("a queue holds one value per command");
    values.drain(start..).rev()
}

/// [`ApplyRun`] of a queue of bundles `B`: spawns into reserved entities
/// ([`World::spawn_reserved_rows`]), spawns allocating entities in order
/// ([`World::spawn_each`], which allocates as `spawn_empty` one by one does), or inserts
/// ([`World::insert_rows`] for one component type, the bundle's path row by row otherwise).
pub(super) fn bundle_run<B: Bundle>(
    values: &mut Vec<B>,
    world: &mut World,
    kind: RunKind,
    entities: &[Entity],
    count: usize,
) -> usize {
    let bundles = take_next(values, count);
    match kind {
        RunKind::Spawn => world.spawn_reserved_rows(entities.iter().copied().zip(bundles)),
        RunKind::SpawnAtApply => {
            world.spawn_each(bundles, |_| {});
            0
        }
        RunKind::Insert => {
            let mut sink = Inserting { world, skipped: 0 };
            B::insert_batch(&mut sink, entities.iter().copied().zip(bundles));
            sink.skipped
        }
        RunKind::Remove => unreachable!("removals are applied through their `RemoveOps`"),
    }
}

/// [`RemoveOps::run`] of bundle type `B`: one [`World::remove_rows`] when `B` is one
/// component type, [`World::remove_present`] entity by entity otherwise.
fn removal_run<B: Bundle>(world: &mut World, entities: &[Entity]) -> usize {
    let mut sink = Removing { world, entities, skipped: 0 };
    // `insert_batch` tells the sink whether `B` is one component (and which) or a bundle of
    // several: no row is given, the sink removes.
    B::insert_batch(&mut sink, std::iter::empty());
    sink.skipped
}

/// Inserts rows as [`World::insert_bundle`] one by one would, passing over dead entities.
struct Inserting<'w> {
    world: &'w mut World,
    skipped: usize,
}

impl BatchSink for Inserting<'_> {
    fn component<T: Component>(&mut self, rows: impl Iterator<Item = (Entity, T)>) {
        let skipped = &mut self.skipped;
        self.world.insert_rows(rows, |_, _| *skipped += 1);
    }

    fn bundle<B: Bundle>(&mut self, rows: impl Iterator<Item = (Entity, B)>) {
        for (entity, bundle) in rows {
            if self.world.is_alive(entity) {
                self.world.insert_bundle(entity, bundle);
            } else {
                self.skipped += 1;
            }
        }
    }
}

/// Removes bundle `B` from its entities as [`World::remove_present`] one by one would, passing
/// over dead entities.
struct Removing<'w, 'e> {
    world: &'w mut World,
    entities: &'e [Entity],
    skipped: usize,
}

impl BatchSink for Removing<'_, '_> {
    fn component<T: Component>(&mut self, _: impl Iterator<Item = (Entity, T)>) {
        let skipped = &mut self.skipped;
        self.world.remove_rows::<T>(self.entities.iter().copied(), |_, _| *skipped += 1);
    }

    fn bundle<B: Bundle>(&mut self, _: impl Iterator<Item = (Entity, B)>) {
        for &entity in self.entities {
            if self.world.is_alive(entity) {
                self.world.remove_present::<B>(entity);
            } else {
                self.skipped += 1;
            }
        }
    }
}
