//! Parents before children: ordering the relationship pool for one linear propagation pass.

use super::component::rel_in;
use super::iter::Descendants;
use super::{HierarchyError, Relationship};
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::world::World;

/// What an ordering pass did, from [`World::update_hierarchy_order`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OrderReport {
    /// Dirty entries taken from the list (an entity marked twice counts twice), in entries.
    pub dirty: usize,
    /// Row swaps made to re-place them, in swaps.
    pub swaps: usize,
    /// Whether the whole pool was sorted instead (first pass after an overflow, or many dirty
    /// entries).
    pub full_sort: bool,
    /// Empty relationships removed (entities left with neither parent nor children).
    pub pruned: usize,
}

impl World {
    /// The id of [`Relationship`] if registered and its pool may be reordered.
    fn orderable_relationship(&self) -> Result<Option<ComponentId>, HierarchyError> {
        let Some(id) = self.components().id::<Relationship>() else { return Ok(None) };
        if self.groups().chain(id).is_empty() { Ok(Some(id)) } else { Err(HierarchyError::OwnedByGroup) }
    }

    /// Sorts the pool of [`Relationship`] depth first: each root (in its current pool order) is
    /// followed by its subtree in pre-order, children in sibling order. Afterwards every parent
    /// precedes its children, each subtree is contiguous, and queries over `Relationship` visit
    /// entities in that order. Also removes empty relationships and clears the dirty list.
    /// O(n) in the pool (one permutation).
    ///
    /// # Errors
    /// [`HierarchyError::OwnedByGroup`] if a group owns the pool.
    pub fn sort_hierarchy(&mut self) -> Result<(), HierarchyError> {
        let Some(id) = self.orderable_relationship()? else { return Ok(()) };
        self.init_hierarchy();
        self.hierarchy_state_mut().take_dirty();
        self.prune_all(id);
        self.hierarchy_state_mut().take_dirty();
        let pool = self.components().pool(id);
        let len = pool.len();
        let mut order = Vec::with_capacity(len);
        let mut placed = vec![false; len];
        for (row, r) in pool.values::<Relationship>().iter().enumerate() {
            if r.parent().is_some() {
                continue;
            }
            let root = pool.entities()[row];
            for entity in std::iter::once(root).chain(Descendants::in_pool(Some(pool), root)) {
                if let Some(at) = pool.row_of(entity).filter(|&at| !placed[at]) {
                    placed[at] = true;
                    order.push(at);
                }
            }
        }
        // Only a broken hierarchy (not reachable from a root) leaves rows out; keep them anyway.
        order.extend((0..len).filter(|&row| !placed[row]));
        self.components_mut().pool_mut(id).permute(&order);
        Ok(())
    }

    /// Restores parents-before-children order in the pool of [`Relationship`] after changes,
    /// re-placing only the dirty entries (entities whose parent changed, that joined the pool, or
    /// that a removal moved) instead of sorting the whole pool. Also removes relationships left
    /// empty. `propagate_transforms` (feature `transform`) calls it every frame.
    ///
    /// Each dirty entity that sits before its parent is swapped with it; the parent is then checked
    /// against its own parent and the moved entity's children against it, until no pair is out of
    /// order. Every swap removes at least one ancestor-after-descendant pair and adds none, so the
    /// cost is O(d + s * c) for d dirty entries, s swaps (at most the number of out-of-order
    /// ancestor/descendant pairs: about subtree size times depth for a reparent under a later
    /// parent) and c children per moved entity. Falls back to [`World::sort_hierarchy`] (O(n))
    /// when the dirty list overflowed or holds more than a quarter of the pool, or after 4n swaps.
    /// The pass keeps parents before children but not subtree contiguity; sort in full for that.
    ///
    /// # Errors
    /// [`HierarchyError::OwnedByGroup`] if a group owns the pool.
    pub fn update_hierarchy_order(&mut self) -> Result<OrderReport, HierarchyError> {
        let Some(id) = self.orderable_relationship()? else { return Ok(OrderReport::default()) };
        self.init_hierarchy();
        let mut report = OrderReport::default();
        let (mut work, overflow) = self.hierarchy_state_mut().take_dirty();
        report.dirty = work.len();
        // Prune first: removals move rows and mark the moved entities, so gather those too.
        let mut checked = 0;
        while checked < work.len() {
            let entity = work[checked];
            checked += 1;
            if rel_in(self.components().pool(id), entity).is_some_and(Relationship::is_empty) {
                self.remove::<Relationship>(entity);
                report.pruned += 1;
                let (more, more_overflow) = self.hierarchy_state_mut().take_dirty();
                if more_overflow {
                    return self.full_sort_report(report);
                }
                work.extend(more);
            }
        }
        let len = self.components().pool(id).len();
        if overflow || work.len() > len / 4 + 16 {
            return self.full_sort_report(report);
        }
        let budget = 4 * len + 64;
        while let Some(entity) = work.pop() {
            let pool = self.components().pool(id);
            let Some(row) = pool.row_of(entity) else { continue };
            let r = &pool.values::<Relationship>()[row];
            let Some(parent) = r.parent() else { continue };
            let Some(parent_row) = pool.row_of(parent) else { continue };
            if parent_row < row {
                continue;
            }
            let first = r.first_child();
            self.components_mut().pool_mut(id).swap_rows(row, parent_row);
            report.swaps += 1;
            if report.swaps > budget {
                return self.full_sort_report(report);
            }
            // The parent moved up: check it against its own parent. The entity moved down: check
            // its children against it.
            work.push(parent);
            let pool = self.components().pool(id);
            let mut child = first;
            while let Some(c) = child {
                work.push(c);
                child = rel_in(pool, c).and_then(Relationship::next_sibling);
            }
        }
        // Hand the (empty) buffer back, so a steady frame does not allocate a new list.
        self.hierarchy_state_mut().recycle(work);
        Ok(report)
    }

    fn full_sort_report(&mut self, mut report: OrderReport) -> Result<OrderReport, HierarchyError> {
        let before = self.relationship_pool().map_or(0, |p| p.len());
        self.sort_hierarchy()?;
        let after = self.relationship_pool().map_or(0, |p| p.len());
        report.pruned += before - after;
        report.full_sort = true;
        Ok(report)
    }

    /// Removes every empty relationship. O(n) in the pool.
    fn prune_all(&mut self, id: ComponentId) {
        let pool = self.components().pool(id);
        let empty: Vec<Entity> = pool
            .entities()
            .iter()
            .zip(pool.values::<Relationship>())
            .filter(|(_, r)| r.is_empty())
            .map(|(&e, _)| e)
            .collect();
        for entity in empty {
            self.remove::<Relationship>(entity);
        }
    }

    /// Whether every parent precedes its children in the pool of [`Relationship`]. O(n).
    ///
    /// For tests and debugging; [`World::update_hierarchy_order`] keeps it true.
    pub fn hierarchy_is_ordered(&self) -> bool {
        let Some(pool) = self.relationship_pool() else { return true };
        pool.values::<Relationship>()
            .iter()
            .enumerate()
            .all(|(row, r)| r.parent().is_none_or(|p| pool.row_of(p).is_some_and(|at| at < row)))
    }
}
