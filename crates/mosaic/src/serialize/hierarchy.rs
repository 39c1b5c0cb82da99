//! The hierarchy in a snapshot: the links, the row order of the pool of [`Relationship`], and the
//! ordering bookkeeping, which together decide how later ordering passes and transform
//! propagations reorder pools.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::SnapshotError;
use crate::entity::Entity;
use crate::hierarchy::{OrderState, Relationship};
use crate::world::World;

/// The hierarchy of a world, as written and read. Field order is the format.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename = "Hierarchy")]
pub(crate) struct SavedHierarchy {
    /// `(child index, parent index)` pairs: parents in index order, each one's children in
    /// sibling order, so setting the parents in this order rebuilds the same sibling lists.
    pub(crate) links: Vec<(u32, u32)>,
    /// The entity indices in the row order of the pool of [`Relationship`], every entity that has
    /// one included (an empty one too: it is pruned, and so moves rows, at the next ordering pass).
    pub(crate) order: Vec<u32>,
    /// The ordering bookkeeping; `None` if the world never set hierarchies up.
    pub(crate) state: Option<SavedOrderState>,
}

/// [`OrderState`] as written and read.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename = "OrderState")]
pub(crate) struct SavedOrderState {
    /// Entities marked for the next ordering pass, in marking order (full handles: some may be
    /// dead by the time of the save).
    pub(crate) dirty: Vec<Entity>,
    /// Whether the dirty list overflowed since the last ordering pass.
    overflow: bool,
    /// The transform pools' alignment after propagation last reordered them, in rows (+ 1).
    aligned: (u64, u64),
    /// Per transform kind (2D, 3D), what the next propagation is: 0 full (never ran), 1
    /// incremental, 2 full (its reparent log overflowed).
    propagation: (u8, u8),
}

impl SavedHierarchy {
    /// The hierarchy of `world`. O(relationships + dirty entries).
    pub(crate) fn of(world: &World) -> Self {
        let Some(pool) = world.relationship_pool() else {
            return Self {
                state: world.hierarchy_order_state().map(SavedOrderState::from),
                ..Self::default()
            };
        };
        let mut links = Vec::new();
        if !pool.is_empty() {
            for parent in world.entities().iter() {
                links.extend(world.children(parent).map(|child| (child.index(), parent.index())));
            }
        }
        Self {
            links,
            order: pool.entities().iter().map(|e| e.index()).collect(),
            state: world.hierarchy_order_state().map(SavedOrderState::from),
        }
    }

    /// Checks the links name live entities, give each child one parent and form no cycle, and the
    /// row order lists live entities, each once, every linked one among them. `is_live` tells
    /// whether a saved index is a live entity; `slots` bounds the indices. O(links + order).
    pub(crate) fn validate(&self, is_live: &dyn Fn(u32) -> bool, slots: usize) -> Result<(), SnapshotError> {
        let place = || "the hierarchy".to_owned();
        let mut parent_of: FxHashMap<u32, u32> = FxHashMap::default();
        for &(child, parent) in &self.links {
            for index in [child, parent] {
                if !is_live(index) {
                    return Err(SnapshotError::MissingEntity { index, place: place() });
                }
            }
            if child == parent {
                return Err(SnapshotError::HierarchyCycle { index: child });
            }
            if parent_of.insert(child, parent).is_some() {
                return Err(SnapshotError::DuplicateEntity { index: child, place: place() });
            }
        }
        // Cycle check: walk up from each child; 1 = on the current path, 2 = known to reach a root.
        let mut state: FxHashMap<u32, u8> = FxHashMap::default();
        let mut path = Vec::new();
        for &start in parent_of.keys() {
            let mut node = start;
            loop {
                match state.get(&node) {
                    Some(1) => return Err(SnapshotError::HierarchyCycle { index: node }),
                    Some(_) => break,
                    None => {}
                }
                state.insert(node, 1);
                path.push(node);
                match parent_of.get(&node) {
                    Some(&parent) => node = parent,
                    None => break,
                }
            }
            for done in path.drain(..) {
                state.insert(done, 2);
            }
        }
        let in_order = || "the row order of the hierarchy".to_owned();
        let mut listed = vec![false; slots];
        for &index in &self.order {
            if !is_live(index) {
                return Err(SnapshotError::MissingEntity { index, place: in_order() });
            }
            if std::mem::replace(&mut listed[index as usize], true) {
                return Err(SnapshotError::DuplicateEntity { index, place: in_order() });
            }
        }
        for &(child, parent) in &self.links {
            for index in [child, parent] {
                if !listed[index as usize] {
                    return Err(SnapshotError::MissingEntity { index, place: in_order() });
                }
            }
        }
        Ok(())
    }

    /// Puts the hierarchy into `world`, whose entities for the saved indices `entity_of` gives:
    /// a [`Relationship`] for every listed entity, in the saved row order, then the links. The
    /// bookkeeping is restored when `exact` (loading into a world that never had an entity);
    /// otherwise the world keeps its own, and the relationships just added are marked for the
    /// next ordering pass. Call after [`SavedHierarchy::validate`].
    pub(crate) fn apply(&self, world: &mut World, entity_of: &dyn Fn(u32) -> Entity, exact: bool) {
        if self.state.is_some() {
            // The hooks mark what the inserts below change, as they did in the saved world.
            world.init_hierarchy();
        }
        for &index in &self.order {
            let entity = entity_of(index);
            if !world.contains::<Relationship>(entity) {
                world.insert(entity, Relationship::new());
            }
        }
        for &(child, parent) in &self.links {
            let result = world.set_parent(entity_of(child), entity_of(parent));
            debug_assert!(result.is_ok(), "checked before applying: {result:?}");
        }
        if exact && let Some(state) = &self.state {
            world.set_hierarchy_order_state(state.into());
        }
    }
}

impl From<OrderState> for SavedOrderState {
    fn from(state: OrderState) -> Self {
        let [local, global] = state.aligned;
        Self {
            dirty: state.dirty,
            overflow: state.overflow,
            aligned: (local as u64, global as u64),
            propagation: (state.propagation[0], state.propagation[1]),
        }
    }
}

impl From<&SavedOrderState> for OrderState {
    #[allow(clippy::needless_update, reason = "the rollback-only fields, when that feature is on")]
    fn from(saved: &SavedOrderState) -> Self {
        let rows = |value: u64| usize::try_from(value).unwrap_or(usize::MAX);
        Self {
            dirty: saved.dirty.clone(),
            overflow: saved.overflow,
            aligned: [rows(saved.aligned.0), rows(saved.aligned.1)],
            propagation: [saved.propagation.0.min(2), saved.propagation.1.min(2)],
            aligned3: [0, 0],
            ..OrderState::default()
        }
    }
}
