//! The [`Relationship`] component and the link surgery every hierarchy operation is made of.

use crate::Component;
use crate::entity::Entity;
use crate::storage::SparseSet;
use crate::world::World;

/// An entity's place in a hierarchy: its parent, its first and last child and child count, and
/// its previous and next sibling. Siblings form a doubly linked list, so attaching, detaching and
/// reparenting are O(1) with no per-parent heap vector.
///
/// Shape: 44 bytes (five links and a count) per entity that has a parent or children (an entity with
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
//
// The links are plain fields: only the hierarchy writes them, through `&mut World` (its own
// operations and its row subscriber, `HierarchyState` in `ops.rs`), so readers through `&World`
// (queries, the `Hierarchy` system parameter) never see a write in progress.
pub struct Relationship {
    parent: Option<Entity>,
    first: Option<Entity>,
    last: Option<Entity>,
    prev: Option<Entity>,
    next: Option<Entity>,
    children: u32,
}

impl Relationship {
    /// An empty relationship: no parent, no children, no siblings.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The parent, if any.
    #[inline]
    pub fn parent(&self) -> Option<Entity> {
        self.parent
    }

    /// The first child in sibling order (the earliest attached), if any.
    #[inline]
    pub fn first_child(&self) -> Option<Entity> {
        self.first
    }

    /// The last child in sibling order (the latest attached), if any.
    #[inline]
    pub fn last_child(&self) -> Option<Entity> {
        self.last
    }

    /// The sibling before this entity under the same parent, if any.
    #[inline]
    pub fn prev_sibling(&self) -> Option<Entity> {
        self.prev
    }

    /// The sibling after this entity under the same parent, if any.
    #[inline]
    pub fn next_sibling(&self) -> Option<Entity> {
        self.next
    }

    /// Number of children, in entities.
    #[inline]
    pub fn child_count(&self) -> u32 {
        self.children
    }

    /// A copy of every link and the count, for rollback images (not a public `Clone`: a copy
    /// inserted elsewhere would break the links' invariants).
    #[cfg(feature = "rollback")]
    pub(crate) fn duplicate(&self) -> Self {
        let Self { parent, first, last, prev, next, children } = *self;
        Self { parent, first, last, prev, next, children }
    }

    /// The links as `index | generation << 32` words (0 for none; the world tag left out) and the
    /// child count, in field order: what the rollback hash and desync finder compare.
    #[cfg(feature = "rollback")]
    pub(crate) fn words(&self) -> [u64; 6] {
        let word =
            |l: Option<Entity>| l.map_or(0, |e| u64::from(e.index()) | (u64::from(e.generation()) << 32));
        [
            word(self.parent),
            word(self.first),
            word(self.last),
            word(self.prev),
            word(self.next),
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

/// The relationship of `entity` in `pool` (the pool of [`Relationship`]) mutably, if it has one.
#[inline]
fn rel_mut(pool: &mut SparseSet, entity: Entity) -> Option<&mut Relationship> {
    pool.get_mut::<Relationship>(entity)
}

/// Unlinks `child` from its parent's child list, if it has a relationship and a parent. `pool`
/// is the pool of [`Relationship`]. O(1). Returns the former parent.
pub(crate) fn unlink(pool: &mut SparseSet, child: Entity) -> Option<Entity> {
    let rc = rel_in(pool, child)?;
    let parent = rc.parent?;
    let (prev, next) = (rc.prev, rc.next);
    match prev.and_then(|p| rel_mut(pool, p)) {
        Some(r) => r.next = next,
        None => {
            if let Some(rp) = rel_mut(pool, parent) {
                rp.first = next;
            }
        }
    }
    match next.and_then(|n| rel_mut(pool, n)) {
        Some(r) => r.prev = prev,
        None => {
            if let Some(rp) = rel_mut(pool, parent) {
                rp.last = prev;
            }
        }
    }
    if let Some(rp) = rel_mut(pool, parent) {
        rp.children = rp.children.wrapping_sub(1);
    }
    let rc = rel_mut(pool, child).expect("read above");
    rc.parent = None;
    rc.prev = None;
    rc.next = None;
    Some(parent)
}

/// Appends `child` (which has a relationship and no parent) to the child list of `parent` (which
/// has a relationship). `pool` is the pool of [`Relationship`]. O(1).
pub(crate) fn link_last(pool: &mut SparseSet, parent: Entity, child: Entity) {
    let last = rel_in(pool, parent).expect("link_last needs a parent with a Relationship").last;
    let rc = rel_mut(pool, child).expect("link_last needs a child with a Relationship");
    debug_assert!(rc.parent.is_none(), "link_last needs a detached child");
    rc.parent = Some(parent);
    rc.prev = last;
    rc.next = None;
    let first = match last.and_then(|l| rel_mut(pool, l)) {
        Some(rl) => {
            rl.next = Some(child);
            None
        }
        None => Some(child),
    };
    let rp = rel_mut(pool, parent).expect("read above");
    if first.is_some() {
        rp.first = first;
    }
    rp.last = Some(child);
    rp.children = rp.children.wrapping_add(1);
}

/// Puts `child` (which has a relationship and no parent) into the child list of `parent` just
/// before its child `next`; all three have relationships in `pool`, the pool of
/// [`Relationship`]. O(1).
pub(crate) fn link_before(pool: &mut SparseSet, parent: Entity, child: Entity, next: Entity) {
    let rn = rel_mut(pool, next).expect("link_before needs a sibling with a Relationship");
    debug_assert_eq!(rn.parent, Some(parent), "link_before needs a child of `parent` to go before");
    let prev = rn.prev;
    rn.prev = Some(child);
    let rc = rel_mut(pool, child).expect("link_before needs a child with a Relationship");
    debug_assert!(rc.parent.is_none(), "link_before needs a detached child");
    rc.parent = Some(parent);
    rc.prev = prev;
    rc.next = Some(next);
    let first = match prev.and_then(|p| rel_mut(pool, p)) {
        Some(rprev) => {
            rprev.next = Some(child);
            false
        }
        None => true,
    };
    let rp = rel_mut(pool, parent).expect("link_before needs a parent with a Relationship");
    if first {
        rp.first = Some(child);
    }
    rp.children = rp.children.wrapping_add(1);
}

/// Detaches every child of `parent` (if it has a relationship in `pool`, the pool of
/// [`Relationship`]): each becomes a root (no parent, no siblings) and is passed to `detached`.
/// O(children).
pub(crate) fn detach_children(pool: &mut SparseSet, parent: Entity, mut detached: impl FnMut(Entity)) {
    let Some(rp) = rel_in(pool, parent) else { return };
    let mut next = rp.first;
    // Bounded by the count, so a corrupted list can never loop forever.
    let mut budget = rp.children;
    while let Some(child) = next {
        if budget == 0 {
            break;
        }
        budget -= 1;
        let Some(rc) = rel_mut(pool, child) else { break };
        next = rc.next;
        rc.parent = None;
        rc.prev = None;
        rc.next = None;
        detached(child);
    }
    let rp = rel_mut(pool, parent).expect("read above");
    rp.first = None;
    rp.last = None;
    rp.children = 0;
}

// The documented shape: five 8-byte links (`Option<Entity>` uses the generation's niche) and a
// 4-byte count, 4-byte aligned.
const _: () = assert!(std::mem::size_of::<Relationship>() == 44);
