//! The reverse side of every pair kind (target -> sources), as plain data in a world field, and
//! the row subscriber that keeps it when sources and targets go.

use std::any::TypeId;

use rustc_hash::FxHashMap;

use super::{OnDeleteTarget, PairRelation, PairTarget, Targets};
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::storage::{RowEvents, SparseSet};
use crate::world::World;
use crate::world::row_events::{Needs, RowChange, RowSubscriber, WorldUse};

/// Every pair kind a world has set up, and each one's reverse side. A field of `World`.
///
/// Invariant: for each kind, each source `s` with an entry `(t, slot)` in its `Targets<R>`,
/// `kind.sources[t][slot] == s`, and every listed source has such an entry; no list is empty.
#[derive(Default)]
pub(crate) struct PairIndex {
    /// In set-up order; a kind is never removed.
    pub(crate) kinds: Vec<PairKind>,
    /// The pool of the target marker, once a kind is set up.
    pub(crate) mark: Option<ComponentId>,
    /// Mirrors of symmetric pairs to remove after the change that took their source's pairs:
    /// `(kind, source, target)`.
    pending: Vec<(usize, Entity, Entity)>,
}

/// One pair kind, type-erased.
pub(crate) struct PairKind {
    /// `R`'s type name: the kind's name in `(*, a)` answers, reports and the hash order.
    pub(crate) name: &'static str,
    /// `R`'s type id.
    pub(crate) type_id: TypeId,
    /// The pool of `Targets<R>`.
    pub(crate) pool: ComponentId,
    /// `R::ON_DELETE_TARGET`.
    pub(crate) policy: OnDeleteTarget,
    /// Target -> its sources, in the order described on `World::sources`.
    pub(crate) sources: FxHashMap<Entity, Vec<Entity>>,
    /// The typed operations.
    pub(crate) ops: KindOps,
}

/// A kind's typed operations, as plain function pointers.
#[derive(Clone, Copy)]
pub(crate) struct KindOps {
    /// Unlinks every pair of a source whose `Targets<R>` is about to go.
    unlink_source: fn(&mut World, usize, Entity),
    /// Cleans up after a despawned target, given its sources.
    drop_target: fn(&mut World, Entity, Vec<Entity>),
    /// Removes one pair if present (a symmetric pair's mirror).
    remove: fn(&mut World, Entity, Entity),
    #[cfg(feature = "rollback")]
    pub(crate) rollback: super::store_image::ImageOps,
}

impl std::fmt::Debug for PairIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.kinds.iter().map(|k| k.name).collect();
        f.debug_struct("PairIndex").field("kinds", &names).finish()
    }
}

impl PairIndex {
    /// The slot of kind `R`, if set up. O(kinds).
    #[inline]
    pub(crate) fn kind_of<R: 'static>(&self) -> Option<usize> {
        let id = TypeId::of::<R>();
        self.kinds.iter().position(|k| k.type_id == id)
    }

    /// Whether pool `id` is one this index covers (a `Targets<R>` or the target marker).
    pub(crate) fn covers(&self, id: ComponentId) -> bool {
        self.mark == Some(id) || self.kinds.iter().any(|k| k.pool == id)
    }
}

/// Takes `source`'s slot out of `target`'s list: the last source moves into it, and its entry
/// learns its new slot. O(1) plus O(k) in the moved source's targets.
pub(crate) fn unlink_reverse<R: PairRelation>(
    sources: &mut FxHashMap<Entity, Vec<Entity>>,
    pool: &mut SparseSet,
    target: Entity,
    slot: u32,
) {
    let Some(list) = sources.get_mut(&target) else { return };
    let slot = slot as usize;
    debug_assert!(slot < list.len(), "a pair's slot is inside its target's list");
    list.swap_remove(slot);
    if let Some(&moved) = list.get(slot)
        && let Some(targets) = pool.get_mut::<Targets<R>>(moved)
        && let Some(entry) = targets.entries.iter_mut().find(|e| e.target == target)
    {
        entry.slot = slot as u32;
    }
    if list.is_empty() {
        sources.remove(&target);
    }
}

impl World {
    /// Sets up pair kind `R` once per world; returns its slot. O(kinds).
    pub(crate) fn init_pairs<R: PairRelation>(&mut self) -> usize {
        if let Some(k) = self.pair_index().kind_of::<R>() {
            return k;
        }
        let pool = self.register_component::<Targets<R>>();
        self.init_pair_mark();
        let index = self.pair_index_mut();
        index.kinds.push(PairKind {
            name: std::any::type_name::<R>(),
            type_id: TypeId::of::<R>(),
            pool,
            policy: R::ON_DELETE_TARGET,
            sources: FxHashMap::default(),
            ops: KindOps {
                unlink_source: unlink_source::<R>,
                drop_target: drop_target::<R>,
                remove: |world, s, t| {
                    world.remove_pair::<R>(s, t);
                },
                #[cfg(feature = "rollback")]
                rollback: super::store_image::ImageOps::of::<R>(),
            },
        });
        self.refresh_row_events(pool);
        index_len(self) - 1
    }

    /// Sets up the target marker's pool once per world (flagged for the despawn cleanup).
    /// O(1) after the first call.
    pub(crate) fn init_pair_mark(&mut self) {
        if self.pair_index().mark.is_some() {
            return;
        }
        let mark = self.register_component::<PairTarget>();
        self.pair_index_mut().mark = Some(mark);
        self.refresh_row_events(mark);
    }

    /// The first pair that refuses the despawn of `entity` ([`OnDeleteTarget::Refuse`]), as
    /// `(kind name, source, target)`: the target is `entity` or, when the despawn would cascade
    /// through [`OnDeleteTarget::DespawnSource`] pairs, an entity it would despawn. `None` when
    /// [`World::despawn`] may go ahead. O(entities in the cascade * kinds).
    pub fn despawn_refused_by(&self, entity: Entity) -> Option<(&'static str, Entity, Entity)> {
        let index = self.pair_index();
        let refusing = index.kinds.iter().any(|k| k.policy == OnDeleteTarget::Refuse);
        if !refusing {
            return None;
        }
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![entity];
        while let Some(x) = stack.pop() {
            if !seen.insert(x) {
                continue;
            }
            for kind in &index.kinds {
                let Some(list) = kind.sources.get(&x) else { continue };
                match kind.policy {
                    OnDeleteTarget::Refuse => return Some((kind.name, list[0], x)),
                    OnDeleteTarget::DespawnSource => stack.extend(list.iter().copied()),
                    OnDeleteTarget::RemovePair => {}
                }
            }
        }
        None
    }
}

fn index_len(world: &World) -> usize {
    world.pair_index().kinds.len()
}

/// Unlinks every pair of `source` (its `Targets<R>` is about to go) and queues the mirrors of
/// symmetric ones. The value left behind is empty. O(pairs of the source).
fn unlink_source<R: PairRelation>(world: &mut World, k: usize, source: Entity) {
    let (index, components) = world.pairs_and_components_mut();
    let kind = &mut index.kinds[k];
    let pool = components.pool_mut(kind.pool);
    let Some(targets) = pool.get_mut::<Targets<R>>(source) else { return };
    let entries = std::mem::take(&mut targets.entries);
    for entry in &entries {
        unlink_reverse::<R>(&mut kind.sources, pool, entry.target, entry.slot);
        if R::SYMMETRIC && entry.target != source {
            index.pending.push((k, entry.target, source));
        }
    }
}

/// After `target`'s despawn: applies `R`'s policy to the sources that named it.
/// O(sources * their targets).
fn drop_target<R: PairRelation>(world: &mut World, target: Entity, sources: Vec<Entity>) {
    match R::ON_DELETE_TARGET {
        OnDeleteTarget::DespawnSource => {
            for source in sources {
                if world.is_alive(source) {
                    world.despawn(source);
                }
            }
        }
        // `Refuse` was checked before the despawn began; a pair that appears meanwhile goes.
        OnDeleteTarget::RemovePair | OnDeleteTarget::Refuse => {
            let Some(k) = world.pair_index().kind_of::<R>() else { return };
            let id = world.pair_index().kinds[k].pool;
            for source in sources {
                let pool = world.components_mut().pool_mut(id);
                let Some(targets) = pool.get_mut::<Targets<R>>(source) else { continue };
                if let Some(at) = targets.entries.iter().position(|e| e.target == target) {
                    targets.entries.swap_remove(at);
                }
                if targets.entries.is_empty() {
                    world.remove::<Targets<R>>(source);
                }
            }
        }
    }
}

impl RowSubscriber for PairIndex {
    const NEEDS: Needs =
        Needs { name: "many-to-many pairs", old_value: false, world: WorldUse::RowOnly, batch: false };

    fn events(world: &World, id: ComponentId) -> RowEvents {
        if world.pair_index().covers(id) { RowEvents::REMOVE } else { RowEvents::NONE }
    }

    /// Refuses a despawn a pair forbids (panics before anything changed), then unlinks the pairs
    /// of each `Targets<R>` that goes.
    fn before(world: &mut World, change: &RowChange<'_>) {
        let index = world.pair_index();
        if index.kinds.is_empty() {
            return;
        }
        if change.despawn
            && index.mark.is_some_and(|m| change.removed.contains(&m))
            && let Some((kind, source, target)) = world.despawn_refused_by(change.entity)
        {
            panic!(
                "cannot despawn {}: the pair ({kind}, {target}) on {source} refuses it \
                 (OnDeleteTarget::Refuse); remove the pair first",
                change.entity
            );
        }
        for k in 0..world.pair_index().kinds.len() {
            let kind = &world.pair_index().kinds[k];
            if change.removed.contains(&kind.pool) {
                (kind.ops.unlink_source)(world, k, change.entity);
            }
        }
    }

    /// After a target's despawn, applies each kind's policy to its sources; then removes the
    /// mirrors of symmetric pairs that went.
    fn after(world: &mut World, change: &RowChange<'_>) {
        let index = world.pair_index();
        if index.kinds.is_empty() {
            return;
        }
        if change.despawn && index.mark.is_some_and(|m| change.removed.contains(&m)) {
            for k in 0..world.pair_index().kinds.len() {
                let kind = &mut world.pair_index_mut().kinds[k];
                if let Some(sources) = kind.sources.remove(&change.entity) {
                    let drop = kind.ops.drop_target;
                    drop(world, change.entity, sources);
                }
            }
        }
        while let Some((k, source, target)) = world.pair_index_mut().pending.pop() {
            let remove = world.pair_index().kinds[k].ops.remove;
            remove(world, source, target);
        }
    }
}
