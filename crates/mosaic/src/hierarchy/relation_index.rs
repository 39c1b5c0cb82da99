//! The target index of the one-target relations ([`World::relate`]) as plain data in a world
//! field, and the row subscriber that keeps it as pairs come and go and runs the cleanup when a
//! target is despawned.
//!
//! Only the pools of each kind's `Pair<R>` and target marks are flagged (`ADD`, `REPLACE`,
//! `REMOVE` on the pairs, `REMOVE` on the marks), so other types pay nothing; the library
//! registers no hooks for relations.

use rustc_hash::FxHashMap;

use super::relation::Cleanup;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::storage::{RowEvents, SparseSet};
use crate::world::row_events::{Needs, RowChange, RowSubscriber, WorldUse};
use crate::world::{CommandBuffer, World};

/// Every one-target relation kind a world has set up, and each one's target index. A field of
/// `World`, reached through `World::parts` by rollback (the `RelationsPart`) and snapshots.
///
/// Invariant, between structural changes: for each kind, `sources[t]` lists exactly the sources
/// whose `Pair<R>` names `t`, each once, in the order they were related; no list is empty. While
/// a target's cleanup is queued (the commands of the change that despawned it), its list still
/// names the sources those commands will unrelate or despawn.
#[derive(Default)]
pub(crate) struct RelationIndex {
    /// In set-up order; a kind is never removed.
    pub(crate) kinds: Vec<RelationKind>,
}

/// One relation kind, type-erased.
pub(crate) struct RelationKind {
    /// `R`'s type name: orders relations in the hash and names them in reports.
    pub(crate) name: &'static str,
    /// The pool of `Pair<R>`: the key the kind is found by.
    pub(crate) pair: ComponentId,
    /// The pool of `R`'s target marks.
    pub(crate) mark: ComponentId,
    /// `R::CLEANUP`.
    pub(crate) cleanup: Cleanup,
    /// Target -> its sources, in the order they were related.
    pub(crate) sources: FxHashMap<Entity, Vec<Entity>>,
    /// The typed operations.
    pub(crate) ops: RelationOps,
}

/// A kind's typed operations, as plain function pointers (filled in by
/// `hierarchy::relation`, which knows `R`).
#[derive(Clone, Copy)]
pub(crate) struct RelationOps {
    /// The target of the `Pair<R>` of an entity in the pool (`None`: no pair, or an empty one).
    pub(crate) target: fn(&SparseSet, Entity) -> Option<Entity>,
    /// Empties the `Pair<R>` of an entity in the pool; returns the target it had.
    pub(crate) take_target: fn(&mut SparseSet, Entity) -> Option<Entity>,
    /// Records the removal of an entity's `Pair<R>`.
    pub(crate) remove_pair: fn(&mut CommandBuffer, Entity),
    /// Copies the kind's state (pools and index) out of a world.
    #[cfg(feature = "rollback")]
    pub(crate) save: fn(&World, &RelationKind, &mut super::RelationImage),
    /// Puts a saved state back in the kind at the given slot (an empty one for a kind the image
    /// does not know).
    #[cfg(feature = "rollback")]
    pub(crate) restore: fn(&mut World, usize, Option<&super::RelationImage>),
    /// Feeds the kind's state to the sink as 64-bit words: each pair's source and target, the
    /// target marks, and the index in target order.
    #[cfg(feature = "rollback")]
    pub(crate) hash: fn(&World, &RelationKind, &mut dyn FnMut(u64)),
}

impl std::fmt::Debug for RelationIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.kinds.iter().map(|k| k.name).collect();
        f.debug_struct("RelationIndex").field("kinds", &names).finish()
    }
}

impl RelationIndex {
    /// The slot of the kind whose `Pair<R>` pool is `pair`, if set up. O(kinds).
    #[inline]
    pub(crate) fn kind_of(&self, pair: ComponentId) -> Option<usize> {
        self.kinds.iter().position(|k| k.pair == pair)
    }

    /// The slot of the kind whose target marks' pool is `mark`, if set up. O(kinds).
    #[inline]
    fn kind_of_mark(&self, mark: ComponentId) -> Option<usize> {
        self.kinds.iter().position(|k| k.mark == mark)
    }

    /// The sources of `target` in the kind whose `Pair<R>` pool is `pair`, in relate order;
    /// empty when there are none or the kind is not set up. O(kinds).
    pub(crate) fn sources(&self, pair: ComponentId, target: Entity) -> &[Entity] {
        self.kind_of(pair).and_then(|k| self.kinds[k].sources.get(&target)).map_or(&[], Vec::as_slice)
    }
}

/// Takes `source` out of its target's list in kind `k`, and empties its `Pair<R>` (so the value
/// a removal hands back names no target). O(k) in the target's sources, keeping relate order.
fn unlink(world: &mut World, k: usize, source: Entity) {
    let (index, components, _) = world.relation_parts_mut();
    let kind = &mut index.kinds[k];
    let Some(target) = (kind.ops.take_target)(components.pool_mut(kind.pair), source) else { return };
    if let Some(list) = kind.sources.get_mut(&target) {
        if let Some(at) = list.iter().position(|&s| s == source) {
            list.remove(at);
        }
        if list.is_empty() {
            kind.sources.remove(&target);
        }
    }
}

/// Queues kind `k`'s cleanup of the sources of `target`, whose mark goes (it is being
/// despawned): each source loses its pair or is despawned, as the kind's [`Cleanup`] says. The
/// commands apply when the change is complete, and unlink the sources as they go.
fn queue_cleanup(world: &mut World, k: usize, target: Entity) {
    let (index, _, commands) = world.relation_parts_mut();
    let kind = &index.kinds[k];
    for &source in kind.sources.get(&target).map_or(&[][..], Vec::as_slice) {
        match kind.cleanup {
            Cleanup::RemovePair => (kind.ops.remove_pair)(commands, source),
            Cleanup::DespawnSource => commands.despawn(source),
        }
    }
}

/// Files a newly added `Pair<R>` of `source` under its target; a pair that names no live target
/// (a value taken out of a world) is queued for removal instead. O(1) amortised.
fn link(world: &mut World, k: usize, source: Entity) {
    let kind = &world.relation_index().kinds[k];
    let target = (kind.ops.target)(world.components().pool(kind.pair), source);
    let target = target.filter(|&t| world.is_alive(t));
    let (index, _, commands) = world.relation_parts_mut();
    let kind = &mut index.kinds[k];
    match target {
        Some(target) => kind.sources.entry(target).or_default().push(source),
        None => (kind.ops.remove_pair)(commands, source),
    }
}

impl RowSubscriber for RelationIndex {
    const NEEDS: Needs =
        Needs { name: "one-target relations", old_value: true, world: WorldUse::Deferred, batch: false };

    fn events(world: &World, id: ComponentId) -> RowEvents {
        let index = world.relation_index();
        if index.kind_of(id).is_some() {
            RowEvents::ADD | RowEvents::REPLACE | RowEvents::REMOVE
        } else if index.kind_of_mark(id).is_some() {
            RowEvents::REMOVE
        } else {
            RowEvents::NONE
        }
    }

    /// In the change's order: a replaced pair is unlinked and queued for removal (only an empty
    /// value, taken out of a world, can replace a pair); a removed pair is unlinked and emptied;
    /// a removed target mark (its entity is despawned) queues the kind's cleanup.
    fn before(world: &mut World, change: &RowChange<'_>) {
        if world.relation_index().kinds.is_empty() {
            return;
        }
        for &id in change.replaced {
            if let Some(k) = world.relation_index().kind_of(id) {
                unlink(world, k, change.entity);
                let (index, _, commands) = world.relation_parts_mut();
                (index.kinds[k].ops.remove_pair)(commands, change.entity);
            }
        }
        for &id in change.removed {
            let index = world.relation_index();
            if let Some(k) = index.kind_of(id) {
                unlink(world, k, change.entity);
            } else if let Some(k) = index.kind_of_mark(id) {
                queue_cleanup(world, k, change.entity);
            }
        }
    }

    /// Files each added pair under its target (or queues an empty one's removal).
    fn after(world: &mut World, change: &RowChange<'_>) {
        if world.relation_index().kinds.is_empty() {
            return;
        }
        for &id in change.added {
            if let Some(k) = world.relation_index().kind_of(id) {
                link(world, k, change.entity);
            }
        }
    }
}
