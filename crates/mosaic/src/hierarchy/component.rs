//! The [`Relationship`] component and the link surgery every hierarchy operation is made of.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use crate::Component;
use crate::entity::Entity;
use crate::storage::SparseSet;
use crate::world::World;

/// An optional entity handle that can be rewritten through a shared reference.
///
/// Component hooks see the world read-only (`&World`), yet unlinking a despawned entity must fix
/// its neighbours' links at once (a command applied later could compute from a state that another
/// despawn of the same batch has changed). Hence atomics, used with relaxed ordering: every write
/// happens inside an operation that holds `&mut World` (directly or through its hooks), so no two
/// threads ever touch a link at the same time; the atomics only make the write through `&` legal.
/// A relaxed load compiles to a plain load.
#[derive(Default)]
struct Link(AtomicU64);

impl Link {
    /// The stored handle. `0` (generation 0, which no handle has) means none.
    #[inline]
    fn get(&self) -> Option<Entity> {
        Entity::from_bits(self.0.load(Relaxed))
    }

    #[inline]
    fn set(&self, entity: Option<Entity>) {
        self.0.store(entity.map_or(0, Entity::to_bits), Relaxed);
    }
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// An entity's place in a hierarchy: its parent, its first and last child and child count, and
/// its previous and next sibling. Siblings form a doubly linked list, so attaching, detaching and
/// reparenting are O(1) with no per-parent heap vector.
///
/// Shape: 48 bytes (five links and a count) per entity that has a parent or children (an entity with
/// neither may keep an empty one until [`World::update_hierarchy_order`] prunes it). Read it
/// through [`World::parent`], [`World::children`], [`World::ancestors`],
/// [`World::descendants`], or a `Query<&Relationship>` and the accessors below; change it only
/// through [`World::set_parent`], [`World::remove_parent`] and despawning. It is an immutable
/// component: `Query<&mut Relationship>` and `World::get_mut::<Relationship>` do not compile, so
/// links cannot be broken by writing them (e.g. swapping two values). Removing it (`World::remove`) detaches the entity from its
/// parent and children first and hands back an empty value; replacing it (`World::insert`) does the
/// same before the new value lands.
///
/// Design: EnTT's `relationship` component ("ECS back and forth", part 4), with a `last` link
/// added so children keep their attach order with O(1) appends.
//
// Invariants (checked by `World::assert_hierarchy_invariants`):
// - `parent == Some(p)`: p is alive, has a Relationship, and this entity is in p's child list once;
// - walking `first` along `next` visits `children` entities, each with `parent` == this entity,
//   each `prev` naming the one before it (none for the first); the walk ends at `last`;
// - no link names a dead entity, and following `parent` never comes back to the start.
#[derive(Component, Debug, Default)]
#[component(immutable)]
pub struct Relationship {
    parent: Link,
    first: Link,
    last: Link,
    prev: Link,
    next: Link,
    children: AtomicU32,
}

impl Relationship {
    /// An empty relationship: no parent, no children, no siblings.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The parent, if any.
    #[inline]
    pub fn parent(&self) -> Option<Entity> {
        self.parent.get()
    }

    /// The first child in sibling order (the earliest attached), if any.
    #[inline]
    pub fn first_child(&self) -> Option<Entity> {
        self.first.get()
    }

    /// The last child in sibling order (the latest attached), if any.
    #[inline]
    pub fn last_child(&self) -> Option<Entity> {
        self.last.get()
    }

    /// The sibling before this entity under the same parent, if any.
    #[inline]
    pub fn prev_sibling(&self) -> Option<Entity> {
        self.prev.get()
    }

    /// The sibling after this entity under the same parent, if any.
    #[inline]
    pub fn next_sibling(&self) -> Option<Entity> {
        self.next.get()
    }

    /// Number of children, in entities.
    #[inline]
    pub fn child_count(&self) -> u32 {
        self.children.load(Relaxed)
    }

    /// A copy of every link and the count, for rollback images (not a public `Clone`: a copy
    /// inserted elsewhere would break the links' invariants).
    #[cfg(feature = "rollback")]
    pub(crate) fn duplicate(&self) -> Self {
        let link = |l: &Link| Link(AtomicU64::new(l.0.load(Relaxed)));
        Self {
            parent: link(&self.parent),
            first: link(&self.first),
            last: link(&self.last),
            prev: link(&self.prev),
            next: link(&self.next),
            children: AtomicU32::new(self.children.load(Relaxed)),
        }
    }

    /// The links as `index | generation << 32` words (0 for none; the world tag left out) and the
    /// child count, in field order: what the rollback hash and desync finder compare.
    #[cfg(feature = "rollback")]
    pub(crate) fn words(&self) -> [u64; 6] {
        let word = |l: &Link| l.get().map_or(0, |e| u64::from(e.index()) | (u64::from(e.generation()) << 32));
        [
            word(&self.parent),
            word(&self.first),
            word(&self.last),
            word(&self.prev),
            word(&self.next),
            u64::from(self.child_count()),
        ]
    }

    /// Whether the entity has neither a parent nor children.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.parent().is_none() && self.child_count() == 0
    }
}

/// The relationship of `entity` in `pool` (the pool of [`Relationship`]), if it has one.
#[inline]
pub(crate) fn rel_in(pool: &SparseSet, entity: Entity) -> Option<&Relationship> {
    pool.get::<Relationship>(entity)
}

/// The relationship of `entity`, if it is alive and has one.
#[inline]
pub(crate) fn rel(world: &World, entity: Entity) -> Option<&Relationship> {
    world.get::<Relationship>(entity).ok()
}

/// Unlinks `child` (whose relationship is `rc`) from its parent's child list, if it has a parent.
/// O(1). Returns the former parent.
pub(crate) fn unlink(world: &World, rc: &Relationship) -> Option<Entity> {
    let parent = rc.parent()?;
    let (prev, next) = (rc.prev.get(), rc.next.get());
    let rp = rel(world, parent);
    match prev.and_then(|p| rel(world, p)) {
        Some(r) => r.next.set(next),
        None => {
            if let Some(rp) = rp {
                rp.first.set(next);
            }
        }
    }
    match next.and_then(|n| rel(world, n)) {
        Some(r) => r.prev.set(prev),
        None => {
            if let Some(rp) = rp {
                rp.last.set(prev);
            }
        }
    }
    if let Some(rp) = rp {
        rp.children.fetch_sub(1, Relaxed);
    }
    rc.parent.set(None);
    rc.prev.set(None);
    rc.next.set(None);
    Some(parent)
}

/// Appends `child` (relationship `rc`, no parent) to the child list of `parent` (relationship
/// `rp`). O(1).
pub(crate) fn link_last(world: &World, parent: Entity, rp: &Relationship, child: Entity, rc: &Relationship) {
    debug_assert!(rc.parent().is_none(), "link_last needs a detached child");
    let last = rp.last.get();
    rc.parent.set(Some(parent));
    rc.prev.set(last);
    rc.next.set(None);
    match last.and_then(|l| rel(world, l)) {
        Some(rl) => rl.next.set(Some(child)),
        None => rp.first.set(Some(child)),
    }
    rp.last.set(Some(child));
    rp.children.fetch_add(1, Relaxed);
}

/// Puts `child` (relationship `rc`, no parent) into the child list of `parent` (relationship
/// `rp`) just before its child `next` (relationship `rn`). O(1).
pub(crate) fn link_before(
    world: &World,
    parent: Entity,
    rp: &Relationship,
    child: Entity,
    rc: &Relationship,
    next: Entity,
    rn: &Relationship,
) {
    debug_assert!(rc.parent().is_none(), "link_before needs a detached child");
    debug_assert_eq!(rn.parent(), Some(parent), "link_before needs a child of `parent` to go before");
    let prev = rn.prev.get();
    rc.parent.set(Some(parent));
    rc.prev.set(prev);
    rc.next.set(Some(next));
    rn.prev.set(Some(child));
    match prev.and_then(|p| rel(world, p)) {
        Some(rprev) => rprev.next.set(Some(child)),
        None => rp.first.set(Some(child)),
    }
    rp.children.fetch_add(1, Relaxed);
}

/// Detaches every child of the entity whose relationship is `rp`: each becomes a root (no parent,
/// no siblings) and is passed to `detached`. O(children).
pub(crate) fn detach_children(world: &World, rp: &Relationship, mut detached: impl FnMut(Entity)) {
    let mut next = rp.first.get();
    // Bounded by the count, so a corrupted list can never loop forever.
    let mut budget = rp.child_count();
    while let Some(child) = next {
        if budget == 0 {
            break;
        }
        budget -= 1;
        let Some(rc) = rel(world, child) else { break };
        next = rc.next.get();
        rc.parent.set(None);
        rc.prev.set(None);
        rc.next.set(None);
        detached(child);
    }
    rp.first.set(None);
    rp.last.set(None);
    rp.children.store(0, Relaxed);
}
