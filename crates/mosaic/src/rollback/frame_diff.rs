//! What changed between two saved frames, entity by entity: the inspector's diff, computed from
//! the ring's images without building either world.

use crate::entity::Entity;
use crate::storage::PoolImage;

use super::registry::ChangedRowsFn;

/// What changed from one saved frame to another ([`RollbackRing::diff`](super::RollbackRing::diff)):
/// the entities spawned and despawned, and per registered component the entities that gained it,
/// lost it, or hold another value. Every list is in entity index order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameDiff {
    /// Entities alive in the later frame and not in the earlier one (a recycled index with a new
    /// generation counts as spawned, and its old handle as despawned).
    pub spawned: Vec<Entity>,
    /// Entities alive in the earlier frame and not in the later one.
    pub despawned: Vec<Entity>,
    /// One per registered component, in the registry's (name) order.
    pub components: Vec<ComponentDiff>,
    /// Names of the registered resources whose stable hash differs (unhashed ones are skipped).
    pub resources_changed: Vec<String>,
}

/// One component's changes in a [`FrameDiff`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ComponentDiff {
    /// The component's registered name.
    pub name: String,
    /// Entities that have it in the later frame only.
    pub added: Vec<Entity>,
    /// Entities that have it in the earlier frame only.
    pub removed: Vec<Entity>,
    /// Entities that have it in both with different values: bytes for plain-data types, the
    /// registered hash for cloned ones.
    pub changed: Vec<Entity>,
}

impl ComponentDiff {
    /// Whether nothing changed for this component.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// Entities in `later` and not in `earlier` (both in index order), and the other way round.
pub(crate) fn live_changes(
    earlier: impl Iterator<Item = Entity>,
    later: impl Iterator<Item = Entity>,
) -> (Vec<Entity>, Vec<Entity>) {
    let same = |a: Entity, b: Entity| a.index() == b.index() && a.generation() == b.generation();
    let (mut spawned, mut despawned) = (Vec::new(), Vec::new());
    let (mut earlier, mut later) = (earlier.peekable(), later.peekable());
    loop {
        match (earlier.peek().copied(), later.peek().copied()) {
            (Some(a), Some(b)) if same(a, b) => {
                earlier.next();
                later.next();
            }
            (Some(a), Some(b)) if a.index() <= b.index() => {
                despawned.push(a);
                earlier.next();
            }
            (_, Some(b)) => {
                spawned.push(b);
                later.next();
            }
            (Some(a), None) => {
                despawned.push(a);
                earlier.next();
            }
            (None, None) => return (spawned, despawned),
        }
    }
}

/// The changes of one component between its images `a` (earlier) and `b` (later). O(rows of
/// both + the largest entity index).
pub(crate) fn component_changes(
    changed_rows: &ChangedRowsFn,
    name: &str,
    a: &PoolImage,
    b: &PoolImage,
) -> ComponentDiff {
    let (ea, eb) = (a.entities(), b.entities());
    let slots = ea.iter().chain(eb).map(|e| e.index() as usize + 1).max().unwrap_or(0);
    let mut row_in_a = vec![u32::MAX; slots];
    for (row, e) in ea.iter().enumerate() {
        row_in_a[e.index() as usize] = row as u32;
    }
    let mut pairs = Vec::new();
    let mut matched = vec![false; ea.len()];
    let mut added = Vec::new();
    for (row_b, e) in eb.iter().enumerate() {
        let row_a = row_in_a[e.index() as usize];
        if row_a != u32::MAX && ea[row_a as usize].generation() == e.generation() {
            pairs.push((row_a, row_b as u32));
            matched[row_a as usize] = true;
        } else {
            added.push(*e);
        }
    }
    let mut removed: Vec<Entity> = ea.iter().zip(&matched).filter(|&(_, &m)| !m).map(|(e, _)| *e).collect();
    let mut differing = Vec::new();
    changed_rows(a, b, &pairs, &mut differing);
    let mut changed: Vec<Entity> = differing.into_iter().map(|i| eb[pairs[i].1 as usize]).collect();
    for list in [&mut added, &mut removed, &mut changed] {
        list.sort_unstable_by_key(|e| e.index());
    }
    ComponentDiff { name: name.to_owned(), added, removed, changed }
}
