//! Relationship pairs (flecs' `(Relation, target)`): a component on the source naming its target,
//! an index from each target to its sources kept by hooks, and cleanup when a target dies.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, PoisonError};

use rustc_hash::FxHashMap;

use super::HierarchyError;
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
    /// The target's bits (`0`: none); atomic so the remove hook can empty the value through
    /// `&World`.
    target: AtomicU64,
    _relation: PhantomData<fn() -> R>,
}

impl<R: Relation> Pair<R> {
    /// The target, or `None` for a value taken out of the world.
    #[inline]
    pub fn target(&self) -> Option<Entity> {
        Entity::from_bits(self.target.load(Relaxed))
    }
}

impl<R: Relation> std::fmt::Debug for Pair<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pair<{}>({:?})", std::any::type_name::<R>(), self.target())
    }
}

/// Marks an entity that is (or was) the target of some `Pair<R>`: its remove hook runs the
/// cleanup when the target is despawned.
#[derive(Component)]
struct Targeted<R: Relation>(PhantomData<fn() -> R>);

impl<R: Relation> Pair<R> {
    /// A copy for rollback images (not a public `Clone`: a copy inserted elsewhere would break
    /// the index).
    #[cfg(feature = "rollback")]
    fn duplicate(&self) -> Self {
        Self { target: AtomicU64::new(self.target.load(Relaxed)), _relation: PhantomData }
    }
}

/// Per relation kind: target -> its sources, in the order they were related. A resource; hooks
/// update it through `&World`, hence the mutex.
pub(super) struct RelationIndex<R> {
    sources: Mutex<FxHashMap<Entity, Vec<Entity>>>,
    _relation: PhantomData<fn() -> R>,
}

impl<R: Relation> RelationIndex<R> {
    fn with<T>(&self, f: impl FnOnce(&mut FxHashMap<Entity, Vec<Entity>>) -> T) -> T {
        f(&mut self.sources.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Takes `source` out of `target`'s list. O(k) in the target's sources.
    fn unlink(&self, target: Entity, source: Entity) {
        self.with(|map| {
            if let Some(list) = map.get_mut(&target) {
                if let Some(at) = list.iter().position(|&s| s == source) {
                    list.remove(at);
                }
                if list.is_empty() {
                    map.remove(&target);
                }
            }
        });
    }
}

impl World {
    /// Sets up the index and hooks of relation `R`, once per world.
    fn init_relation<R: Relation>(&mut self) {
        if self.contains_resource::<RelationIndex<R>>() {
            return;
        }
        self.insert_resource(RelationIndex::<R> { sources: Mutex::default(), _relation: PhantomData });
        #[cfg(any(feature = "rollback", feature = "serialize"))]
        {
            self.register_component::<Pair<R>>();
            self.register_component::<Targeted<R>>();
            if !self.contains_resource::<RelationKinds>() {
                self.insert_resource(RelationKinds::default());
            }
            self.resource_mut::<RelationKinds>().0.push(RelationKind::of::<R>());
        }
        self.on_add::<Pair<R>>(|ctx| {
            let pair = ctx.world.get::<Pair<R>>(ctx.entity).expect("on_add runs after the insert");
            match pair.target().filter(|&t| ctx.world.is_alive(t)) {
                Some(target) => ctx.world.resource::<RelationIndex<R>>().with(|map| {
                    map.entry(target).or_default().push(ctx.entity);
                }),
                // An empty value (taken out of a world) or a dead target: drop the pair.
                None => ctx.commands.remove::<Pair<R>>(ctx.entity),
            }
        });
        let unlink = |ctx: &mut crate::world::HookContext<'_>| {
            let pair = ctx.world.get::<Pair<R>>(ctx.entity).expect("hooks run while the pair is there");
            if let Some(target) = pair.target() {
                ctx.world.resource::<RelationIndex<R>>().unlink(target, ctx.entity);
            }
            pair.target.store(0, Relaxed);
        };
        self.on_remove::<Pair<R>>(unlink);
        // Only an empty value can replace a pair (no other can be made): unlink, then drop it.
        self.on_replace::<Pair<R>>(move |ctx| {
            unlink(ctx);
            ctx.commands.remove::<Pair<R>>(ctx.entity);
        });
        self.on_remove::<Targeted<R>>(|ctx| {
            let sources = ctx.world.resource::<RelationIndex<R>>().with(|map| map.get(&ctx.entity).cloned());
            for source in sources.unwrap_or_default() {
                match R::CLEANUP {
                    Cleanup::RemovePair => ctx.commands.remove::<Pair<R>>(source),
                    Cleanup::DespawnSource => ctx.commands.despawn(source),
                }
            }
        });
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
        self.insert(source, Pair::<R> { target: AtomicU64::new(target.to_bits()), _relation: PhantomData });
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
        self.get::<Pair<R>>(source).ok().and_then(|pair| pair.target())
    }

    /// The sources related to `target` by `R`, in the order they were related. Reads the index
    /// the hooks keep: O(k) in those sources, however many entities the world has. Empty for a
    /// dead target (cleanup runs when it is despawned).
    pub fn related<R: Relation>(&self, target: Entity) -> Vec<Entity> {
        self.get_resource::<RelationIndex<R>>()
            .and_then(|index| index.with(|map| map.get(&target).cloned()))
            .unwrap_or_default()
    }
}

/// Every relation kind a world has set up, for rollback (which saves, restores and hashes each
/// one's pairs, target marks and index as one part) and snapshots (which refuse a world holding
/// pairs of a kind they were not told how to name). A resource: registrations, not state.
#[cfg(any(feature = "rollback", feature = "serialize"))]
#[derive(Default)]
pub(crate) struct RelationKinds(pub(crate) Vec<RelationKind>);

/// One relation kind, type-erased.
#[cfg(any(feature = "rollback", feature = "serialize"))]
pub(crate) struct RelationKind {
    /// `R`'s type name: orders relations in the hash and names them in reports.
    pub(crate) name: &'static str,
    /// The pools of `Pair<R>` and of the target marks, which this part covers.
    pub(crate) pools: [std::any::TypeId; 2],
    /// Copies the relation's state out of a world.
    #[cfg(feature = "rollback")]
    pub(crate) save: fn(&World, &mut RelationImage),
    /// Puts a saved state back (an empty one for a relation the image does not know).
    #[cfg(feature = "rollback")]
    pub(crate) restore: fn(&mut World, Option<&RelationImage>),
    /// Feeds the relation's state to `word` as 64-bit words: each pair's source and target, the
    /// target marks, and the index in target order.
    #[cfg(feature = "rollback")]
    pub(crate) hash: fn(&World, &mut dyn FnMut(u64)),
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

#[cfg(any(feature = "rollback", feature = "serialize"))]
impl RelationKind {
    fn of<R: Relation>() -> Self {
        Self {
            name: std::any::type_name::<R>(),
            pools: [std::any::TypeId::of::<Pair<R>>(), std::any::TypeId::of::<Targeted<R>>()],
            #[cfg(feature = "rollback")]
            save: save_relation::<R>,
            #[cfg(feature = "rollback")]
            restore: restore_relation::<R>,
            #[cfg(feature = "rollback")]
            hash: hash_relation::<R>,
        }
    }
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

/// The snapshot state of relation `R` in `world`. O(pairs + marks).
#[cfg(feature = "serialize")]
pub(crate) fn relation_state<R: Relation>(world: &World) -> RelationState {
    let components = world.components();
    let pairs = components.pool_of::<Pair<R>>().map_or_else(Vec::new, |pool| {
        let targets = pool.values::<Pair<R>>().iter().map(Pair::target);
        pool.entities().iter().zip(targets).filter_map(|(&s, t)| Some((s, t?))).collect()
    });
    let marks = components.pool_of::<Targeted<R>>().map_or_else(Vec::new, |pool| pool.entities().to_vec());
    let mut index: Vec<(Entity, Vec<Entity>)> = world
        .get_resource::<RelationIndex<R>>()
        .map(|index| index.with(|map| map.iter().map(|(&t, s)| (t, s.clone())).collect()))
        .unwrap_or_default();
    index.sort_unstable_by_key(|&(t, _)| t.index());
    RelationState { pairs, marks, index }
}

/// Gives `world` relation `R`'s snapshot state (entities already in `world`'s handles, every one
/// alive): the marks and pairs are inserted in their saved row order (so the pools' rows come
/// out in it when they started empty), then the index is set to the saved one, relate order
/// included. O(pairs + marks).
#[cfg(feature = "serialize")]
pub(crate) fn set_relation_state<R: Relation>(world: &mut World, state: RelationState) {
    world.init_relation::<R>();
    for mark in state.marks {
        world.insert(mark, Targeted::<R>(PhantomData));
    }
    for (source, target) in state.pairs {
        world.insert(source, Pair::<R> { target: AtomicU64::new(target.to_bits()), _relation: PhantomData });
    }
    world.resource::<RelationIndex<R>>().with(|map| {
        map.clear();
        map.extend(state.index);
    });
}

#[cfg(feature = "rollback")]
fn save_relation<R: Relation>(world: &World, image: &mut RelationImage) {
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
    if let Some(index) = world.get_resource::<RelationIndex<R>>() {
        index.with(|map| image.index.extend(map.iter().map(|(&t, s)| (t, s.clone()))));
        image.index.sort_unstable_by_key(|&(t, _)| word(t));
    }
}

#[cfg(feature = "rollback")]
fn restore_relation<R: Relation>(world: &mut World, image: Option<&RelationImage>) {
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
    if let Some(index) = world.get_resource::<RelationIndex<R>>() {
        index.with(|map| {
            map.clear();
            map.extend(image.into_iter().flat_map(|i| &i.index).map(|(t, s)| (*t, s.clone())));
        });
    }
}

#[cfg(feature = "rollback")]
fn hash_relation<R: Relation>(world: &World, out: &mut dyn FnMut(u64)) {
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
    let mut index: Vec<(Entity, Vec<Entity>)> = world
        .get_resource::<RelationIndex<R>>()
        .map(|index| index.with(|map| map.iter().map(|(&t, s)| (t, s.clone())).collect()))
        .unwrap_or_default();
    index.sort_unstable_by_key(|&(t, _)| word(t));
    out(index.len() as u64);
    for (target, sources) in index {
        out(word(target));
        out(sources.len() as u64);
        sources.into_iter().for_each(|s| out(word(s)));
    }
}
