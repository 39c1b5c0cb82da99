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

/// Per relation kind: target -> its sources, in the order they were related. A resource; hooks
/// update it through `&World`, hence the mutex.
struct RelationIndex<R> {
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
    /// [`HierarchyError::Entity`] if either entity is not alive.
    pub fn relate<R: Relation>(&mut self, source: Entity, target: Entity) -> Result<(), HierarchyError> {
        for entity in [source, target] {
            self.check_alive_in_hierarchy(entity)?;
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
