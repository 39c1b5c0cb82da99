//! Relationship pairs (flecs' `(Relation, target)`): a component on the source naming its target,
//! an index from each target to its sources, and cleanup when a target dies. The index and the
//! cleanup live in the world's relation index (`relation_index.rs`), a row subscriber.

use std::marker::PhantomData;

use rustc_hash::FxHashMap;

use super::HierarchyError;
use super::relation_index::{RelationKind, RelationOps};
use crate::Component;
use crate::entity::Entity;
use crate::world::World;

/// What happens to the sources of a relation when their target is despawned (flecs'
/// `OnDeleteTarget` policies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cleanup {
    /// Remove the pair from each source; the sources live on.
    RemovePair,
    /// Despawn each source (which cascades if a source is itself a target of such a relation).
    DespawnSource,
}

/// A kind of relationship between a source entity and one target entity, e.g. `Likes`,
/// `OwnedBy`, `DockedAt`. Implement it on a marker type and relate entities with
/// [`World::relate`].
///
/// # Examples
/// ```
/// use mosaic::World;
/// use mosaic::hierarchy::{Cleanup, Relation};
///
/// struct OwnedBy;
/// impl Relation for OwnedBy {
///     const CLEANUP: Cleanup = Cleanup::DespawnSource;
/// }
///
/// let mut world = World::new();
/// let [owner, sword, shield] = [(); 3].map(|()| world.spawn_empty());
/// world.relate::<OwnedBy>(sword, owner).unwrap();
/// world.relate::<OwnedBy>(shield, owner).unwrap();
/// assert_eq!(world.related::<OwnedBy>(owner), [sword, shield]);
/// assert_eq!(world.target::<OwnedBy>(sword), Some(owner));
/// world.despawn(owner);
/// assert!(!world.is_alive(sword) && !world.is_alive(shield));
/// ```
pub trait Relation: Send + Sync + 'static {
    /// What happens to the sources when the target is despawned; [`Cleanup::RemovePair`] unless
    /// overridden.
    const CLEANUP: Cleanup = Cleanup::RemovePair;
    /// Whether an entity may be related to itself (`Likes` may, `ChildOf` may not): `false`
    /// unless overridden, and then [`World::relate`] refuses it with
    /// [`HierarchyError::SelfRelation`].
    const ALLOW_SELF: bool = false;
}

/// The pair `(R, target)` on a source entity: a component keyed by its target. An entity has at
/// most one pair per relation kind `R` (relating it again moves the pair to the new target).
///
/// Made only by [`World::relate`], and immutable (no `&mut` access: the target index would go
/// stale); removing it (`World::remove`, [`World::unrelate`], despawning
/// the source) takes the source out of the target's index, and the value handed back by
/// `World::remove` is empty (no target). Query all sources of `R` with `Query<(Entity,
/// &Pair<R>)>`; the sources of one target with [`World::related`], which reads the index.
#[derive(Component)]
#[component(immutable)]
pub struct Pair<R: Relation> {
    /// The target; `None` once the value has left the world (the world's row subscriber for
    /// relations empties it as the pair is removed, through `&mut World`).
    target: Option<Entity>,
    _relation: PhantomData<fn() -> R>,
}

impl<R: Relation> Pair<R> {
    /// The target, or `None` for a value taken out of the world. O(1).
    #[inline]
    pub fn target(&self) -> Option<Entity> {
        self.target
    }

    /// A pair naming `target`, for [`World::relate`] and snapshot loading only (a pair inserted
    /// any other way is dropped unless the index is told, which only the world does).
    fn new(target: Entity) -> Self {
        Self { target: Some(target), _relation: PhantomData }
    }
}

impl<R: Relation> std::fmt::Debug for Pair<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pair<{}>({:?})", std::any::type_name::<R>(), self.target())
    }
}

/// Marks an entity that is (or was) the target of some `Pair<R>`: its pool is flagged so that
/// the entity's despawn reaches the cleanup.
#[derive(Component)]
struct Targeted<R: Relation>(PhantomData<fn() -> R>);

impl<R: Relation> Pair<R> {
    /// A copy for rollback images (not a public `Clone`: a copy inserted elsewhere would break
    /// the index).
    #[cfg(feature = "rollback")]
    fn duplicate(&self) -> Self {
        Self { target: self.target, _relation: PhantomData }
    }
}

impl RelationOps {
    /// The operations of relation `R`.
    fn of<R: Relation>() -> Self {
        Self {
            target: |pool, source| pool.get::<Pair<R>>(source).and_then(Pair::target),
            take_target: |pool, source| pool.get_mut::<Pair<R>>(source).and_then(|p| p.target.take()),
            remove_pair: |commands, source| commands.remove::<Pair<R>>(source),
            #[cfg(feature = "rollback")]
            save: save_relation::<R>,
            #[cfg(feature = "rollback")]
            restore: restore_relation::<R>,
            #[cfg(feature = "rollback")]
            hash: hash_relation::<R>,
        }
    }
}

impl World {
    /// Sets up relation `R` once per world: registers `Pair<R>` and the target marks and files
    /// the kind in the world's relation index, which flags those two pools for its row
    /// subscriber. Returns the kind's slot. O(kinds).
    fn init_relation<R: Relation>(&mut self) -> usize {
        let pair = self.register_component::<Pair<R>>();
        if let Some(k) = self.relation_index().kind_of(pair) {
            return k;
        }
        let mark = self.register_component::<Targeted<R>>();
        let index = self.relation_index_mut();
        index.kinds.push(RelationKind {
            name: std::any::type_name::<R>(),
            pair,
            mark,
            cleanup: R::CLEANUP,
            sources: FxHashMap::default(),
            ops: RelationOps::of::<R>(),
        });
        let k = index.kinds.len() - 1;
        self.refresh_row_events(pair);
        self.refresh_row_events(mark);
        k
    }

    /// Relates `source` to `target` by `R`: adds the pair `(R, target)` to `source`, replacing
    /// the pair it had with another target. O(1) amortised, plus O(k) in the old target's
    /// sources when moving.
    ///
    /// # Errors
    /// [`HierarchyError::Entity`] if either entity is not alive;
    /// [`HierarchyError::SelfRelation`] if `source` is `target` and `R` does not allow it
    /// ([`Relation::ALLOW_SELF`]).
    pub fn relate<R: Relation>(&mut self, source: Entity, target: Entity) -> Result<(), HierarchyError> {
        for entity in [source, target] {
            self.check_alive_in_hierarchy(entity)?;
        }
        if source == target && !R::ALLOW_SELF {
            return Err(HierarchyError::SelfRelation {
                entity: source,
                relation: std::any::type_name::<R>(),
            });
        }
        self.init_relation::<R>();
        if self.target::<R>(source) == Some(target) {
            return Ok(());
        }
        self.remove::<Pair<R>>(source);
        if !self.contains::<Targeted<R>>(target) {
            self.insert(target, Targeted::<R>(PhantomData));
        }
        self.insert(source, Pair::<R>::new(target));
        Ok(())
    }

    /// Removes `source`'s pair of relation `R`; returns its target, or `None` if it had none
    /// (or is not alive). O(k) in the target's sources.
    pub fn unrelate<R: Relation>(&mut self, source: Entity) -> Option<Entity> {
        let target = self.target::<R>(source)?;
        self.remove::<Pair<R>>(source);
        Some(target)
    }

    /// The target of `source`'s pair of relation `R`, if any. O(1).
    pub fn target<R: Relation>(&self, source: Entity) -> Option<Entity> {
        self.get::<Pair<R>>(source).ok().and_then(Pair::target)
    }

    /// The sources related to `target` by `R`, in the order they were related. Reads the index
    /// the world keeps (a field of the world, kept by its row subscriber for relations): O(k) in
    /// those sources plus O(relation kinds), however many entities the world has. Empty for a
    /// dead target (cleanup runs when it is despawned).
    pub fn related<R: Relation>(&self, target: Entity) -> Vec<Entity> {
        let Some(pair) = self.components().id::<Pair<R>>() else { return Vec::new() };
        self.relation_index().sources(pair, target).to_vec()
    }
}

/// A relation's saved state: the pools of `Pair<R>` and the target marks, and the index.
#[cfg(feature = "rollback")]
#[derive(Default)]
pub(crate) struct RelationImage {
    /// `Pair<R>`'s pool.
    pub(crate) pairs: crate::storage::PoolImage,
    /// Each pair's target as an index-and-generation word, in row order (for comparing runs).
    pub(crate) targets: Vec<u64>,
    /// The target marks' pool.
    pub(crate) targeted: crate::storage::PoolImage,
    /// Per target, its sources in the order they were related, targets sorted by index.
    pub(crate) index: Vec<(Entity, Vec<Entity>)>,
}

#[cfg(feature = "rollback")]
impl RelationImage {
    /// Bytes saved.
    pub(crate) fn bytes(&self) -> usize {
        self.pairs.bytes()
            + self.targeted.bytes()
            + self.index.iter().map(|(_, s)| (s.len() + 1) * size_of::<Entity>()).sum::<usize>()
    }
}

#[cfg(feature = "rollback")]
impl<R: Relation> Targeted<R> {
    fn duplicate(&self) -> Self {
        Self(PhantomData)
    }
}

/// An entity as a hash word: index and generation, world tag left out.
#[cfg(feature = "rollback")]
fn word(entity: Entity) -> u64 {
    u64::from(entity.index()) | (u64::from(entity.generation()) << 32)
}

/// A relation kind's state as snapshots carry it: its pairs `(source, target)` in the pool's
/// row order, the target marks in their pool's row order, and the index (each target's sources
/// in relate order, targets sorted by index).
#[cfg(feature = "serialize")]
#[derive(Debug, Default)]
pub(crate) struct RelationState {
    pub(crate) pairs: Vec<(Entity, Entity)>,
    pub(crate) marks: Vec<Entity>,
    pub(crate) index: Vec<(Entity, Vec<Entity>)>,
}

/// The kind of relation `R` in `world`'s relation index, if set up. O(kinds).
#[cfg(any(feature = "rollback", feature = "serialize"))]
fn kind_in<R: Relation>(world: &World) -> Option<&RelationKind> {
    let index = world.relation_index();
    let pair = world.components().id::<Pair<R>>()?;
    index.kind_of(pair).map(|k| &index.kinds[k])
}

/// The index of `kind` as `(target, sources)`, targets sorted by `key`. O(index log targets).
#[cfg(any(feature = "rollback", feature = "serialize"))]
fn sorted_index(kind: Option<&RelationKind>, key: fn(Entity) -> u64) -> Vec<(Entity, Vec<Entity>)> {
    let mut index: Vec<(Entity, Vec<Entity>)> =
        kind.map(|kind| kind.sources.iter().map(|(&t, s)| (t, s.clone())).collect()).unwrap_or_default();
    index.sort_unstable_by_key(|&(t, _)| key(t));
    index
}

/// The snapshot state of relation `R` in `world`. O(pairs + marks).
#[cfg(feature = "serialize")]
pub(crate) fn relation_state<R: Relation>(world: &World) -> RelationState {
    let components = world.components();
    let pairs = components.pool_of::<Pair<R>>().map_or_else(Vec::new, |pool| {
        let targets = pool.values::<Pair<R>>().iter().map(Pair::target);
        pool.entities().iter().zip(targets).filter_map(|(&s, t)| Some((s, t?))).collect()
    });
    let marks = components.pool_of::<Targeted<R>>().map_or_else(Vec::new, |pool| pool.entities().to_vec());
    let index = sorted_index(kind_in::<R>(world), |t| u64::from(t.index()));
    RelationState { pairs, marks, index }
}

/// Gives `world` relation `R`'s snapshot state (entities already in `world`'s handles, every one
/// alive): the marks and pairs are inserted in their saved row order (so the pools' rows come
/// out in it when they started empty), then the index is set to the saved one, relate order
/// included. O(pairs + marks).
#[cfg(feature = "serialize")]
pub(crate) fn set_relation_state<R: Relation>(world: &mut World, state: RelationState) {
    let k = world.init_relation::<R>();
    for mark in state.marks {
        world.insert(mark, Targeted::<R>(PhantomData));
    }
    for (source, target) in state.pairs {
        world.insert(source, Pair::<R>::new(target));
    }
    let sources = &mut world.relation_index_mut().kinds[k].sources;
    sources.clear();
    sources.extend(state.index);
}

#[cfg(feature = "rollback")]
fn save_relation<R: Relation>(world: &World, kind: &RelationKind, image: &mut RelationImage) {
    let components = world.components();
    match components.pool_of::<Pair<R>>() {
        Some(pool) => {
            image.pairs.save_clone_with::<Pair<R>>(pool, Pair::duplicate, |d, s| *d = s.duplicate())
        }
        None => image.pairs.save_empty::<Pair<R>>(),
    }
    image.targets.clear();
    image.targets.extend(
        image.pairs.values::<Pair<R>>().unwrap_or_default().iter().map(|p| p.target().map_or(0, word)),
    );
    match components.pool_of::<Targeted<R>>() {
        Some(pool) => image
            .targeted
            .save_clone_with::<Targeted<R>>(pool, Targeted::duplicate, |d, s| *d = s.duplicate()),
        None => image.targeted.save_empty::<Targeted<R>>(),
    }
    image.index.clear();
    image.index.extend(kind.sources.iter().map(|(&t, s)| (t, s.clone())));
    image.index.sort_unstable_by_key(|&(t, _)| word(t));
}

#[cfg(feature = "rollback")]
fn restore_relation<R: Relation>(world: &mut World, k: usize, image: Option<&RelationImage>) {
    let pair = world.register_component::<Pair<R>>();
    let targeted = world.register_component::<Targeted<R>>();
    match image {
        Some(image) => {
            image.pairs.restore_clone_with::<Pair<R>>(
                world.components_mut().pool_mut(pair),
                Pair::duplicate,
                |d, s| *d = s.duplicate(),
            );
            image.targeted.restore_clone_with::<Targeted<R>>(
                world.components_mut().pool_mut(targeted),
                Targeted::duplicate,
                |d, s| *d = s.duplicate(),
            );
        }
        None => {
            world.components_mut().pool_mut(pair).clear();
            world.components_mut().pool_mut(targeted).clear();
        }
    }
    let sources = &mut world.relation_index_mut().kinds[k].sources;
    sources.clear();
    sources.extend(image.into_iter().flat_map(|i| &i.index).map(|(t, s)| (*t, s.clone())));
}

#[cfg(feature = "rollback")]
fn hash_relation<R: Relation>(world: &World, kind: &RelationKind, out: &mut dyn FnMut(u64)) {
    let components = world.components();
    match components.pool_of::<Pair<R>>() {
        Some(pool) => {
            out(pool.len() as u64);
            for (&source, pair) in pool.entities().iter().zip(pool.values::<Pair<R>>()) {
                out(word(source));
                out(pair.target().map_or(0, word));
            }
        }
        None => out(0),
    }
    match components.pool_of::<Targeted<R>>() {
        Some(pool) => {
            out(pool.len() as u64);
            pool.entities().iter().for_each(|&e| out(word(e)));
        }
        None => out(0),
    }
    let index = sorted_index(Some(kind), word);
    out(index.len() as u64);
    for (target, sources) in index {
        out(word(target));
        out(sources.len() as u64);
        sources.into_iter().for_each(|s| out(word(s)));
    }
}
