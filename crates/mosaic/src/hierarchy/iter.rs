//! Reading a hierarchy: parent, children, ancestors, descendants.

use super::Relationship;
use super::component::rel_in;
use crate::entity::Entity;
use crate::storage::SparseSet;
use crate::world::World;

/// The children of one entity in sibling order (attach order), from [`World::children`].
///
/// Borrows the world, so the hierarchy cannot change while it lives. Each step is O(1).
#[derive(Clone, Debug)]
pub struct Children<'w> {
    pool: Option<&'w SparseSet>,
    next: Option<Entity>,
    remaining: usize,
}

impl Iterator for Children<'_> {
    type Item = Entity;

    #[inline]
    fn next(&mut self) -> Option<Entity> {
        if self.remaining == 0 {
            return None;
        }
        let current = self.next?;
        self.remaining -= 1;
        self.next = self.pool.and_then(|pool| rel_in(pool, current)).and_then(Relationship::next_sibling);
        Some(current)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for Children<'_> {}

impl<'w> Children<'w> {
    /// The children of `parent` as stored in `pool`, the pool of [`Relationship`].
    pub(crate) fn in_pool(pool: Option<&'w SparseSet>, parent: Entity) -> Self {
        let rel = pool.and_then(|pool| rel_in(pool, parent));
        Self {
            pool,
            next: rel.and_then(Relationship::first_child),
            remaining: rel.map_or(0, |r| r.child_count() as usize),
        }
    }
}

/// The parent, grandparent, ... of one entity up to its root, from [`World::ancestors`].
///
/// Borrows the world. Each step is O(1); the whole walk is O(depth).
#[derive(Clone, Debug)]
pub struct Ancestors<'w> {
    pool: Option<&'w SparseSet>,
    next: Option<Entity>,
}

impl Iterator for Ancestors<'_> {
    type Item = Entity;

    #[inline]
    fn next(&mut self) -> Option<Entity> {
        let current = self.next?;
        self.next = self.pool.and_then(|pool| rel_in(pool, current)).and_then(Relationship::parent);
        Some(current)
    }
}

/// Every descendant of one entity (not the entity itself), depth first, pre-order: a node comes
/// before its children, and children in sibling order. From [`World::descendants`].
///
/// Walks the links with no stack and no allocation: each step is O(1) amortised (O(depth) at the
/// end of a deep branch); the whole walk is O(size of the subtree). Borrows the world.
#[derive(Clone, Debug)]
pub struct Descendants<'w> {
    pool: Option<&'w SparseSet>,
    root: Entity,
    next: Option<Entity>,
}

impl<'w> Descendants<'w> {
    /// The descendants of `root` as stored in `pool`, the pool of [`Relationship`].
    pub(crate) fn in_pool(pool: Option<&'w SparseSet>, root: Entity) -> Self {
        let next = pool.and_then(|pool| rel_in(pool, root)).and_then(Relationship::first_child);
        Self { pool, root, next }
    }
}

impl Iterator for Descendants<'_> {
    type Item = Entity;

    fn next(&mut self) -> Option<Entity> {
        let current = self.next?;
        let pool = self.pool?;
        let Some(rc) = rel_in(pool, current) else {
            self.next = None;
            return Some(current);
        };
        self.next = match rc.first_child() {
            Some(first) => Some(first),
            None => {
                // Climb until a node on the way up has a next sibling, stopping below the root.
                let mut node = rc;
                loop {
                    if let Some(sibling) = node.next_sibling() {
                        break Some(sibling);
                    }
                    match node.parent() {
                        Some(parent) if parent != self.root => match rel_in(pool, parent) {
                            Some(r) => node = r,
                            None => break None,
                        },
                        _ => break None,
                    }
                }
            }
        };
        Some(current)
    }
}

impl World {
    /// The pool of [`Relationship`], if the type is registered.
    #[inline]
    pub(crate) fn relationship_pool(&self) -> Option<&SparseSet> {
        self.components().pool_of::<Relationship>()
    }

    /// The parent of `entity`, or `None` if it has none (or is not alive). O(1).
    #[inline]
    pub fn parent(&self, entity: Entity) -> Option<Entity> {
        self.relationship_pool().and_then(|pool| rel_in(pool, entity)).and_then(Relationship::parent)
    }

    /// The children of `entity` in sibling order (attach order); empty if it has none or is not
    /// alive. Exact size; each step O(1).
    pub fn children(&self, entity: Entity) -> Children<'_> {
        Children::in_pool(self.relationship_pool(), entity)
    }

    /// The ancestors of `entity`: its parent first, its root last; empty for a root or an entity
    /// that is not alive. O(depth) for the whole walk.
    pub fn ancestors(&self, entity: Entity) -> Ancestors<'_> {
        let pool = self.relationship_pool();
        Ancestors { pool, next: pool.and_then(|pool| rel_in(pool, entity)).and_then(Relationship::parent) }
    }

    /// The descendants of `entity` (not `entity` itself), depth first in pre-order with children in
    /// sibling order; empty for a leaf or an entity that is not alive. O(subtree) for the whole
    /// walk, no allocation.
    ///
    /// # Examples
    /// ```
    /// use mosaic::World;
    ///
    /// let mut world = World::new();
    /// let [root, a, b, a1] = [(); 4].map(|()| world.spawn_empty());
    /// world.set_parent(a, root).unwrap();
    /// world.set_parent(b, root).unwrap();
    /// world.set_parent(a1, a).unwrap();
    /// assert_eq!(world.descendants(root).collect::<Vec<_>>(), [a, a1, b]);
    /// assert_eq!(world.ancestors(a1).collect::<Vec<_>>(), [a, root]);
    /// assert_eq!(world.children(root).collect::<Vec<_>>(), [a, b]);
    /// ```
    pub fn descendants(&self, entity: Entity) -> Descendants<'_> {
        Descendants::in_pool(self.relationship_pool(), entity)
    }
}
