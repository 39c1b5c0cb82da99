//! Owning groups: entity subsets kept packed at the front of their components' pools.

use smallvec::SmallVec;

use super::World;
use super::row_events::{Needs, RowChange, RowSubscriber, WorldUse};
use crate::component::{Bundle, ComponentId};
use crate::entity::Entity;
use crate::storage::RowEvents;

/// Identifies an owning group of a world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupId(u32);

impl GroupId {
    /// The group's index among the world's groups.
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

/// Why a group could not be created.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GroupError {
    /// The new group would own a pool another group owns, and neither group's components include
    /// the other's, so no single order of that pool serves both.
    #[error(
        "group ({}) conflicts with existing group ({}): they own a pool in common but neither is nested in \
         the other; groups sharing a component must be nested, like (A, B) inside (A, B, C)",
        .requested.join(", "), .existing.join(", ")
    )]
    Conflict {
        /// The requested group's component names.
        requested: Vec<&'static str>,
        /// The existing group's component names.
        existing: Vec<&'static str>,
    },
    /// A lazily cleaned pool keeps dead rows, which a group cannot pack around.
    #[error("group ({}) would own the lazily cleaned pool of `{component}`; use eager cleanup for grouped components", .requested.join(", "))]
    LazyPool {
        /// The requested group's component names.
        requested: Vec<&'static str>,
        /// The lazily cleaned component.
        component: &'static str,
    },
    /// A group needs at least two different component types.
    #[error("a group needs at least two different component types, got ({})", .requested.join(", "))]
    TooFewComponents {
        /// The requested group's component names.
        requested: Vec<&'static str>,
    },
}

/// One owning group.
#[derive(Debug)]
pub(crate) struct OwningGroup {
    /// Owned component ids, sorted.
    pub(crate) owned: SmallVec<[ComponentId; 4]>,
    names: Vec<&'static str>,
    /// Members occupy rows `0..len` of every owned pool, in the same order.
    pub(crate) len: usize,
}

impl OwningGroup {
    /// The owned components' type names, in component-id order.
    pub(crate) fn names(&self) -> &[&'static str] {
        &self.names
    }
}

/// The world's groups.
#[derive(Debug, Default)]
pub(crate) struct Groups {
    pub(crate) owning: Vec<OwningGroup>,
    /// Per component id: the groups owning it, from the fewest owned types (outermost range) to
    /// the most (innermost range). Groups sharing a pool are nested, so this is a chain.
    chain_of: Vec<SmallVec<[u32; 2]>>,
    /// Buffers of [`World::sort_group_by_key`], kept so a sort of a warm world allocates
    /// nothing. Not state: rollback and snapshots ignore it.
    pub(crate) sort_scratch: super::sort::SortScratch,
    /// The entity list of [`GroupJoins`], kept so a warm world's batches allocate nothing. Not
    /// state either.
    pub(crate) join_scratch: Vec<Entity>,
}

impl Groups {
    /// The chain of groups owning component `id`.
    #[inline]
    pub(crate) fn chain(&self, id: ComponentId) -> &[u32] {
        self.chain_of.get(id.index()).map_or(&[], |c| c)
    }

    /// Whether any group exists.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.owning.is_empty()
    }
}

/// Groups follow the pools they own: an entity joins a group after a change gives it the last
/// owned component it lacked, and leaves before a change takes one away, so every owned pool's
/// swap-remove happens outside the packed range.
impl RowSubscriber for Groups {
    const NEEDS: Needs =
        Needs { name: "owning groups", old_value: false, world: WorldUse::RowOnly, batch: false };

    fn events(world: &World, id: ComponentId) -> RowEvents {
        if world.groups.chain(id).is_empty() { RowEvents::NONE } else { RowEvents::ADD | RowEvents::REMOVE }
    }

    fn before(world: &mut World, change: &RowChange<'_>) {
        if !change.removed.is_empty() {
            world.groups_before_remove(change.entity, change.removed);
        }
    }

    fn after(world: &mut World, change: &RowChange<'_>) {
        if !change.added.is_empty() && !world.groups.is_empty() {
            world.groups_after_add(change.entity, change.added);
        }
    }
}

impl World {
    /// Creates (or finds) the owning group of the component types in `G`, a tuple such as
    /// `(Position, Velocity)`, and packs its members: afterwards, every entity that has all of
    /// them sits at rows `0..len` of each of their pools, in the same order, and stays there
    /// through inserts, removes and despawns (kept packed by O(1) swaps per change). A query
    /// whose required components are exactly a group's iterates those rows as slices, with no
    /// lookups. Groups sharing a component must be nested ((A, B) inside (A, B, C)).
    ///
    /// EnTT's owning groups. Complexity: creation O(n) in the smallest pool; each later change to
    /// an owned component costs O(g * c) swaps for the g groups owning it and their c pools.
    ///
    /// # Panics
    /// As [`World::try_group`] returns errors.
    #[track_caller]
    pub fn group<G: Bundle>(&mut self) -> GroupId {
        self.try_group::<G>().unwrap_or_else(|error| panic!("{error}"))
    }

    /// The fallible form of [`World::group`].
    ///
    /// # Errors
    /// [`GroupError::Conflict`] naming both groups if it would share a pool with a group it is
    /// not nested with; [`GroupError::TooFewComponents`] for fewer than two types.
    pub fn try_group<G: Bundle>(&mut self) -> Result<GroupId, GroupError> {
        let mut owned = SmallVec::<[ComponentId; 4]>::new();
        G::register_ids(&mut self.components, &mut |id| owned.push(id));
        owned.sort_unstable();
        owned.dedup();
        // Finding an existing group allocates nothing (systems may ask every frame).
        if let Some(index) = self.groups.owning.iter().position(|group| group.owned == owned) {
            return Ok(GroupId(index as u32));
        }
        let names: Vec<&'static str> = owned.iter().map(|&id| self.components.pool(id).type_name()).collect();
        if owned.len() < 2 {
            return Err(GroupError::TooFewComponents { requested: names });
        }
        if let Some(&lazy) = owned.iter().find(|&&id| self.components.pool(id).is_lazy()) {
            let component = self.components.pool(lazy).type_name();
            return Err(GroupError::LazyPool { requested: names, component });
        }
        for (index, group) in self.groups.owning.iter().enumerate() {
            if group.owned == owned {
                return Ok(GroupId(index as u32));
            }
            let shares = group.owned.iter().any(|id| owned.contains(id));
            let nested = group.owned.iter().all(|id| owned.contains(id))
                || owned.iter().all(|id| group.owned.contains(id));
            if shares && !nested {
                return Err(GroupError::Conflict { requested: names, existing: group.names.clone() });
            }
        }
        let index = self.groups.owning.len() as u32;
        // Existing groups with more types (nested inside this one) hold members of this one at
        // the front of every pool it owns; the outermost of them (the longest) is where this
        // group's packing starts.
        let inner_len = self
            .groups
            .owning
            .iter()
            .filter(|g| owned.iter().all(|id| g.owned.contains(id)))
            .map(|g| g.len)
            .max()
            .unwrap_or(0);
        self.groups.owning.push(OwningGroup { owned: owned.clone(), names, len: inner_len });
        for &id in &owned {
            let chains = &mut self.groups.chain_of;
            if chains.len() <= id.index() {
                chains.resize_with(id.index() + 1, SmallVec::new);
            }
            chains[id.index()].push(index);
        }
        let owning = &self.groups.owning;
        for chain in &mut self.groups.chain_of {
            chain.sort_by_key(|&g| owning[g as usize].owned.len());
        }
        for &id in &owned {
            self.refresh_row_events(id);
        }
        // Pack the remaining members, walking the smallest owned pool.
        let smallest = *owned.iter().min_by_key(|&&id| self.components.pool(id).len()).expect("two or more");
        let candidates: Vec<Entity> = self.components.pool(smallest).entities().to_vec();
        for entity in candidates {
            self.join_group(index, entity);
        }
        Ok(GroupId(index))
    }

    /// Number of entities in the group (its rows `0..len` in each owned pool).
    ///
    /// # Panics
    /// If `group` was not made by this world.
    #[track_caller]
    pub fn group_len(&self, group: GroupId) -> usize {
        self.groups.owning[group.0 as usize].len
    }

    /// Moves `entity` into group `index` if it has every owned component and is not a member.
    fn join_group(&mut self, index: u32, entity: Entity) {
        let group = &self.groups.owning[index as usize];
        let first = self.components.pool(group.owned[0]);
        match first.row_of(entity) {
            Some(row) if row >= group.len => {}
            _ => return,
        }
        if !group.owned.iter().all(|&id| self.components.pool(id).contains(entity)) {
            return;
        }
        let target = group.len;
        for &id in &group.owned {
            let pool = self.components.pool_mut(id);
            let row = pool.row_of(entity).expect("checked above");
            pool.swap_rows(row, target);
        }
        self.groups.owning[index as usize].len += 1;
    }

    /// Moves `entity` out of group `index` (to just past its new end) if it is a member.
    fn leave_group(&mut self, index: u32, entity: Entity) {
        let group = &self.groups.owning[index as usize];
        let Some(row) = self.components.pool(group.owned[0]).row_of(entity) else { return };
        if row >= group.len {
            return;
        }
        let last = group.len - 1;
        for &id in &group.owned {
            self.components.pool_mut(id).swap_rows(row, last);
        }
        self.groups.owning[index as usize].len -= 1;
    }

    /// The groups owning any of `ids`, each once, outermost (fewest owned types) first: the
    /// groups sharing a pool are nested, so this order is the nesting order of each chain.
    fn groups_of(&self, ids: &[ComponentId]) -> SmallVec<[u32; 4]> {
        let mut groups: SmallVec<[u32; 4]> = SmallVec::new();
        for &id in ids {
            for &group in self.groups.chain(id) {
                if !groups.contains(&group) {
                    groups.push(group);
                }
            }
        }
        let owning = &self.groups.owning;
        groups.sort_by_key(|&g| (owning[g as usize].owned.len(), g));
        groups
    }

    /// Keeps groups packed after `entity` gained components `added`: joins every group (outermost
    /// first) it now completes, each group looked at once however many of its components came.
    pub(crate) fn groups_after_add(&mut self, entity: Entity, added: &[ComponentId]) {
        for group in self.groups_of(added) {
            self.join_group(group, entity);
        }
    }

    /// Keeps groups packed before `entity` loses components `removed`: leaves every group owning
    /// one of them, innermost first, each once.
    fn groups_before_remove(&mut self, entity: Entity, removed: &[ComponentId]) {
        for &group in self.groups_of(removed).iter().rev() {
            self.leave_group(group, entity);
        }
    }

    /// Checks every group's packing invariant, panicking on the first violation. O(members).
    ///
    /// For tests: rows `0..len` of every owned pool hold the same entities in the same order, and
    /// no entity past `len` in the first pool has every owned component.
    #[track_caller]
    pub fn assert_group_invariants(&self) {
        for group in &self.groups.owning {
            let first = self.components.pool(group.owned[0]);
            for &id in &group.owned[1..] {
                let pool = self.components.pool(id);
                assert_eq!(
                    &first.entities()[..group.len],
                    &pool.entities()[..group.len],
                    "group ({}) rows differ between pools",
                    group.names.join(", ")
                );
            }
            for &e in &first.entities()[group.len..] {
                assert!(
                    !group.owned.iter().all(|&id| self.components.pool(id).contains(e)),
                    "{e} has every component of group ({}) but lies outside it",
                    group.names.join(", ")
                );
            }
        }
    }
}

/// The group joins of a batch of additions, replayed when dropped (also by a panic mid-batch):
/// a batch that writes its rows without running the groups' listener row by row lists each
/// entity that gained components `ids` (in the order it wrote them), and each then joins the
/// groups it completes, in that order. The packing is what row-by-row writes leave: the k-th
/// join swaps the same two rows either way, since the batch's later rows were pushed past both.
pub(crate) struct GroupJoins<'w> {
    pub(crate) world: &'w mut World,
    ids: SmallVec<[ComponentId; 8]>,
    pub(crate) entities: Vec<Entity>,
}

impl<'w> GroupJoins<'w> {
    /// The joins of a batch adding components `ids` to entities of `world`, with the world's
    /// warm entity list.
    pub(crate) fn new(world: &'w mut World, ids: &[ComponentId]) -> Self {
        let entities = std::mem::take(&mut world.groups.join_scratch);
        Self { world, ids: ids.into(), entities }
    }
}

impl Drop for GroupJoins<'_> {
    fn drop(&mut self) {
        for &entity in &self.entities {
            self.world.groups_after_add(entity, &self.ids);
        }
        self.entities.clear();
        self.world.groups.join_scratch = std::mem::take(&mut self.entities);
    }
}
