//! Row events: how the parts of the world that keep per-row bookkeeping hear about row changes.
//!
//! A component's rows change only in its pool. Beside the pool's own bookkeeping (its index and,
//! when tracked, its change ticks and logs, kept by the pool itself), two kinds of parts follow
//! every row change:
//! - the **component sets** (which components each entity has): every pool has them, so the
//!   world's row primitives update them directly, at the cost of one cached edge;
//! - **subscribers** ([`RowSubscriber`]): owning groups, component hooks, watches, value
//!   indexes, observers, required components, many-to-many pairs, one-target relations and the
//!   parent-child hierarchy; each
//!   says which [`RowEvents`] it wants of which pools, and each pool carries the union of what its
//!   subscribers want. A change of a pool that nobody listens to tests that one byte and takes the
//!   plain path; only the pools a subscriber names pay for it (EnTT's per-storage signals,
//!   `sigh_mixin` in `entity/mixin.hpp`; bevy's per-archetype hook and observer flags).
//!
//! Every structural change of the world (spawn, insert, remove, despawn, their batch and bundle
//! forms, commands, hooks' commands) reaches rows through the primitives of `core.rs` and
//! `spawn.rs`, which describe it as one [`RowChange`] per entity: the components added, replaced
//! and removed. When the pools involved have subscribers, they are called with it twice:
//! [`World::emit_before`] while the entity is untouched (old values readable), then the rows
//! change, then [`World::emit_after`] (new values readable), after which the commands subscribers
//! recorded are applied. A new per-row feature is one more [`RowSubscriber`] impl and one line in
//! each of the three lists below (watches, hooks, groups, pairs).

use smallvec::SmallVec;

use super::World;
use super::group::Groups;
use super::hooks::Hooks;
use super::index::Indexes;
use super::observers::Observers;
use super::required::Required;
use super::watches::Watches;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::hierarchy::{HierarchyState, PairIndex, RelationIndex};
use crate::storage::RowEvents;

/// One structural change of one entity, as its subscribers see it.
///
/// Shape: the entity and three disjoint lists of component ids: those it gains, those whose
/// values are overwritten, those it loses. `despawn` marks a despawn, after which the entity is
/// dead (its `removed` list holds every component it had).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowChange<'a> {
    /// The entity changed.
    pub(crate) entity: Entity,
    /// Components it gains (rows added).
    pub(crate) added: &'a [ComponentId],
    /// Components whose values are replaced.
    pub(crate) replaced: &'a [ComponentId],
    /// Components it loses (rows removed).
    pub(crate) removed: &'a [ComponentId],
    /// Whether the entity is despawned by the change.
    pub(crate) despawn: bool,
}

impl<'a> RowChange<'a> {
    /// `entity` gains the components `added` and has those of `replaced` overwritten.
    pub(crate) fn insert(entity: Entity, added: &'a [ComponentId], replaced: &'a [ComponentId]) -> Self {
        Self { entity, added, replaced, removed: &[], despawn: false }
    }

    /// `entity` loses the components `removed`; `despawn` when the entity dies with them.
    pub(crate) fn remove(entity: Entity, removed: &'a [ComponentId], despawn: bool) -> Self {
        Self { entity, added: &[], replaced: &[], removed, despawn }
    }

    /// Whether, after the change, the entity has component `id`; `None` when the change does not
    /// touch `id`.
    #[inline]
    pub(crate) fn has_after(&self, id: ComponentId) -> Option<bool> {
        if self.added.contains(&id) {
            Some(true)
        } else if self.removed.contains(&id) {
            Some(false)
        } else {
            None
        }
    }

    /// The row events the change makes on the pools it touches.
    pub(crate) fn events(&self) -> RowEvents {
        let mut events = RowEvents::NONE;
        if !self.added.is_empty() {
            events |= RowEvents::ADD;
        }
        if !self.replaced.is_empty() {
            events |= RowEvents::REPLACE;
        }
        if !self.removed.is_empty() {
            events |= RowEvents::REMOVE;
        }
        events
    }
}

/// What a listener does with the world when a row changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WorldUse {
    /// Only the row: the entity and component ids, and the listener's own state (it may move
    /// rows, as groups do).
    RowOnly,
    /// Runs user code with the world shared, which queues structural changes as commands,
    /// applied once the operation is complete.
    Deferred,
    /// Changes the world itself through `&mut World` (required components insert what is
    /// missing).
    Exclusive,
}

/// What a listener declares it needs of a row change (issue 39's lifecycle layer, after EnTT's
/// per-storage signals): read by [`World::refresh_row_events`] (a listener that takes batches
/// does not make its pools per-row) and checked against the table in `docs/design.md` by a test,
/// so the table says what the code does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Needs {
    /// The listener's row in the design table (the start of its first cell).
    pub(crate) name: &'static str,
    /// It reads old values: it runs before the rows change, with the value readable.
    pub(crate) old_value: bool,
    /// What it does with the world.
    pub(crate) world: WorldUse,
    /// It takes a run of changes at once, after the rows changed, instead of each change as it
    /// happens.
    pub(crate) batch: bool,
}

/// A part of the world that follows row changes of the pools it names.
///
/// Implementations keep their state in the world and are called through it (`&mut World`), so a
/// subscriber may read any pool, move rows (groups) or run user callbacks with the world
/// read-only and a command buffer (hooks, watches).
pub(crate) trait RowSubscriber {
    /// What the subscriber needs of a change (see [`Needs`]).
    const NEEDS: Needs;

    /// The row events of component `id`'s pool this subscriber wants ([`RowEvents::NONE`] when it
    /// does not follow that pool). The pool's flag is the union over every subscriber.
    fn events(world: &World, id: ComponentId) -> RowEvents;

    /// Called before the rows change: the entity still has exactly its old components and
    /// values. Called only when a pool the change touches wants one of its events; the
    /// subscriber passes over the components it does not follow.
    fn before(world: &mut World, change: &RowChange<'_>);

    /// Called after the rows changed (the component sets too), under the same condition.
    fn after(world: &mut World, change: &RowChange<'_>);
}

impl World {
    /// Runs every subscriber's [`RowSubscriber::before`] for `change`: pairs first (a despawn
    /// their cleanup policy refuses panics before anything happened), then watches (their
    /// "leave" callbacks see the entity whole), then hooks and observers (which see the entity
    /// whole too, its relations and hierarchy links included, as bevy's discard and remove
    /// hooks see a `ChildOf` that is going), then one-target relations (unlink the pairs that go
    /// and queue a despawned target's cleanup), then the hierarchy (detach a relationship that
    /// goes or is replaced), then groups (which move the entity's rows out of the packed range
    /// before they go), then indexes (which need nothing before).
    pub(crate) fn emit_before(&mut self, change: &RowChange<'_>) {
        PairIndex::before(self, change);
        Watches::before(self, change);
        Hooks::before(self, change);
        Observers::before(self, change);
        RelationIndex::before(self, change);
        // Tested here, so a world without hierarchies pays a load and a branch, not a call.
        if self.hierarchy.relationship.is_some() {
            HierarchyState::before(self, change);
        }
        Groups::before(self, change);
        Indexes::before(self, change);
    }

    /// Runs every subscriber's [`RowSubscriber::after`] for `change`, in about the reverse order
    /// of [`World::emit_before`]: indexes refile the entity and groups pack the new rows before
    /// relations, hooks and watches see them; required components come next; relations file new
    /// pairs and the hierarchy marks new relationships (and the rows a removal moved) before user
    /// hooks and observers run, so those see the world whole on both sides of a change; pairs
    /// clean up after a despawned target last. Then applies the commands they recorded.
    pub(crate) fn emit_after(&mut self, change: &RowChange<'_>) {
        Indexes::after(self, change);
        Groups::after(self, change);
        Required::after(self, change);
        RelationIndex::after(self, change);
        if self.hierarchy.relationship.is_some() {
            HierarchyState::after(self, change);
        }
        Hooks::after(self, change);
        Observers::after(self, change);
        Watches::after(self, change);
        PairIndex::after(self, change);
        self.flush_deferred();
    }

    /// Every listener's declared needs with the row events it wants of component `id`'s pool
    /// (the one list of listeners both readers below walk, and the design table's test),
    /// in the order of [`World::emit_before`] (`Required`, which runs only after, last).
    /// O(listeners).
    fn listener_events(&self, id: ComponentId) -> [(Needs, RowEvents); 9] {
        [
            (PairIndex::NEEDS, PairIndex::events(self, id)),
            (Watches::NEEDS, Watches::events(self, id)),
            (Hooks::NEEDS, Hooks::events(self, id)),
            (Observers::NEEDS, Observers::events(self, id)),
            (RelationIndex::NEEDS, RelationIndex::events(self, id)),
            (HierarchyState::NEEDS, HierarchyState::events(self, id)),
            (Groups::NEEDS, Groups::events(self, id)),
            (Indexes::NEEDS, Indexes::events(self, id)),
            (Required::NEEDS, Required::events(self, id)),
        ]
    }

    /// Recomputes the row events component `id`'s pool is flagged with, and the component sets'
    /// unions: call whenever a subscriber of that pool comes or goes. O(distinct component sets).
    pub(crate) fn refresh_row_events(&mut self, id: ComponentId) {
        // Each listener's events go to the per-row set, or to the batch set when it declares it
        // takes batches (after the rows changed, once per batch).
        let (mut per_row, mut batch) = (RowEvents::NONE, RowEvents::NONE);
        for (needs, events) in self.listener_events(id) {
            if needs.batch {
                batch |= events;
            } else {
                per_row |= events;
            }
        }
        let mut events = per_row | batch;
        if !per_row.is_empty() {
            events |= RowEvents::PER_ROW;
        }
        if self.components.pool(id).row_events() != events {
            self.components.pool_mut(id).set_row_events(events);
            self.component_sets.set_component_events(id, events);
        }
    }

    /// Whether adding rows to (or replacing values in) component `id`'s pool can be done for a
    /// batch at once: no listener follows its additions or replacements but owning groups
    /// (whose joins the batch replays after the rows are written, `GroupJoins`) and listeners
    /// that take batches (value indexes).
    pub(crate) fn addition_batchable(&self, id: ComponentId) -> bool {
        self.batchable(id, RowEvents::ADD | RowEvents::REPLACE)
    }

    /// Whether removing rows of component `id`'s pool can be done for a run of entities at once:
    /// no listener follows its removals but owning groups (replayed per pool by a despawn run)
    /// and listeners that take batches (value indexes).
    pub(crate) fn removal_batchable(&self, id: ComponentId) -> bool {
        self.batchable(id, RowEvents::REMOVE)
    }

    /// Whether no listener of component `id`'s pool wants any of `kinds` but owning groups and
    /// listeners that take batches. O(listeners).
    fn batchable(&self, id: ComponentId, kinds: RowEvents) -> bool {
        self.listener_events(id)
            .into_iter()
            .filter(|(needs, _)| !needs.batch && *needs != Groups::NEEDS)
            .all(|(_, events)| !events.intersects(kinds))
    }

    /// Whether any pool of the world has a subscriber (`World::clear` despawns entity by entity
    /// then). O(components).
    pub(crate) fn any_row_subscriber(&self) -> bool {
        self.components.pools().iter().any(|pool| !pool.row_events().is_empty())
    }
}

/// The component ids of a bundle or an entity, inline for the common few.
pub(crate) type Ids = SmallVec<[ComponentId; 8]>;

#[cfg(test)]
mod tests {
    use super::WorldUse;
    use crate::World;

    /// `docs/design.md`'s lifecycle table says, for each listener, what it needs ("old value",
    /// "deferred world", "`&mut World`", "row only") and whether it takes a batch: it must say
    /// what the declarations in the code say.
    #[test]
    fn the_design_table_matches_the_declared_needs() {
        let design = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/design.md"))
            .expect("docs/design.md is readable from the crate");
        let header = "| listener / part | follows row changes how | needs | batch |";
        let table = &design[design.find(header).expect("the lifecycle table is in design.md")..];
        // The world's one list of listeners, read for any component.
        let mut world = World::new();
        let id = world.register_component::<crate::Disabled>();
        for (needs, _) in world.listener_events(id) {
            let row = table
                .lines()
                .take_while(|line| line.starts_with('|'))
                .find(|line| line[1..].trim_start().starts_with(needs.name))
                .unwrap_or_else(|| panic!("no row for `{}` in the lifecycle table", needs.name));
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let (said, batch) = (cells[3], cells[4]);
            let name = needs.name;
            assert_eq!(said.contains("old value"), needs.old_value, "`{name}`: old value in `{said}`");
            assert_eq!(
                said.contains("deferred world"),
                needs.world == WorldUse::Deferred,
                "`{name}`: `{said}`"
            );
            assert_eq!(
                said.contains("`&mut World`"),
                needs.world == WorldUse::Exclusive,
                "`{name}`: `{said}`"
            );
            assert_eq!(said.contains("row only"), needs.world == WorldUse::RowOnly, "`{name}`: `{said}`");
            assert_eq!(batch.starts_with("yes"), needs.batch, "`{name}`: batch `{batch}`");
        }
    }
}
