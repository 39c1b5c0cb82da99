//! Placing children at a position of a parent's list: [`World::insert_children`] and
//! [`World::replace_children`] (bevy's).

use super::component::{link_before, link_last, unlink};
use super::iter::Children;
use super::{HierarchyError, Relationship};
use crate::entity::Entity;
use crate::world::World;

impl World {
    /// Checks `parent` and every child are alive and none would close a cycle under `parent`.
    fn check_children(&self, parent: Entity, children: &[Entity]) -> Result<(), HierarchyError> {
        self.check_alive_in_hierarchy(parent)?;
        for &child in children {
            self.check_alive_in_hierarchy(child)?;
            if child == parent || self.ancestors(parent).any(|a| a == child) {
                return Err(HierarchyError::Cycle { child, parent });
            }
        }
        Ok(())
    }

    /// Makes `children` children of `parent`, placed in order from position `index` of its child
    /// list (clamped to its length), each moved from wherever it was (with its subtree): the
    /// children already there from `index` on come after them. A child listed twice ends at its
    /// last place. O(depth of `parent` * children) for the cycle checks, O(index + children) for
    /// the links. bevy's `insert_children`.
    ///
    /// # Errors
    /// [`HierarchyError::Entity`] if `parent` or a child is not alive; [`HierarchyError::Cycle`]
    /// if a child is `parent` or one of its ancestors. Checked for all first: on error nothing
    /// changes.
    ///
    /// # Examples
    /// ```
    /// use mosaic::World;
    ///
    /// let mut world = World::new();
    /// let [list, a, b, c, d] = [(); 5].map(|()| world.spawn_empty());
    /// world.set_parent(a, list).unwrap();
    /// world.set_parent(d, list).unwrap();
    /// world.insert_children(list, 1, &[b, c]).unwrap();
    /// assert_eq!(world.children(list).collect::<Vec<_>>(), [a, b, c, d]);
    /// ```
    pub fn insert_children(
        &mut self,
        parent: Entity,
        index: usize,
        children: &[Entity],
    ) -> Result<(), HierarchyError> {
        self.check_children(parent, children)?;
        for (offset, &child) in children.iter().enumerate() {
            self.set_parent(child, parent)?;
            self.move_child(parent, child, index.saturating_add(offset));
        }
        Ok(())
    }

    /// Makes `children`, in this order, exactly the children of `parent`: children it had that
    /// are not listed become roots (keeping their own children), the listed ones move under it
    /// (with their subtrees). O(old children + depth of `parent` * children). bevy's
    /// `replace_children`.
    ///
    /// # Errors
    /// As [`World::insert_children`]; on error nothing changes.
    ///
    /// # Examples
    /// ```
    /// use mosaic::World;
    ///
    /// let mut world = World::new();
    /// let [ui, a, b, c] = [(); 4].map(|()| world.spawn_empty());
    /// world.set_parent(a, ui).unwrap();
    /// world.set_parent(b, ui).unwrap();
    /// world.replace_children(ui, &[c, a]).unwrap();
    /// assert_eq!(world.children(ui).collect::<Vec<_>>(), [c, a]);
    /// assert_eq!(world.parent(b), None);
    /// ```
    pub fn replace_children(&mut self, parent: Entity, children: &[Entity]) -> Result<(), HierarchyError> {
        self.check_children(parent, children)?;
        let old: Vec<Entity> = self.children(parent).filter(|c| !children.contains(c)).collect();
        for child in old {
            self.remove_parent(child)?;
        }
        for (index, &child) in children.iter().enumerate() {
            self.set_parent(child, parent)?;
            self.move_child(parent, child, index);
        }
        Ok(())
    }

    /// Moves `child`, a child of `parent`, to position `index` of its list (last when `index`
    /// is past the others). Sibling order decides no row order, so nothing is marked. O(index).
    fn move_child(&mut self, parent: Entity, child: Entity, index: usize) {
        let id = self.components().id::<Relationship>().expect("a parent has a Relationship");
        let pool = self.components_mut().pool_mut(id);
        unlink(pool, child);
        match Children::in_pool(Some(&*pool), parent).nth(index) {
            Some(at) => link_before(pool, parent, child, at),
            None => link_last(pool, parent, child),
        }
    }
}
