//! The observer registry: which observers listen to which events, and how a trigger reaches them.
//!
//! Observers (bevy's `Observer`, flecs' observers) are entities carrying an
//! [`Observer`](crate::observer::Observer) component; what runs lives here, type-erased behind
//! [`ObserverRunner`], one slot per observer. The typed front (the `Event` trait, `On`, observer
//! functions) is in [`crate::observer`]; this module is the world's part of it:
//! - custom events: per event type, the observers of every target and those of one entity;
//! - lifecycle events (add, insert, replace, discard, remove, despawn of a component): per component and
//!   kind, the observers, found by the pool's row events (a row subscriber: a pool is flagged only
//!   while some observer watches its component, so observers cost nothing to other types);
//! - the bookkeeping that removes an observer when its entity, or the one entity it watches,
//!   is despawned.
//!
//! State is plain data in the world (no lock, no atomic): a slot's runner is taken out while it
//! runs and put back after, so an observer never sees itself borrowed.

use std::any::{Any, TypeId};

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::World;
use super::row_events::{Needs, RowChange, RowSubscriber, WorldUse};
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::storage::{RowEvents, SparseArray, Tick};

/// The lifecycle events an observer can watch a component for, in the order a change fires them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Lifecycle {
    /// A component added to an entity that had none.
    Add,
    /// Any insert: an add or a replace.
    Insert,
    /// A value about to be overwritten by an insert.
    Replace,
    /// A value about to go, whichever way: overwritten, removed or despawned.
    Discard,
    /// A value about to leave (remove or despawn).
    Remove,
    /// A value about to leave with its despawned entity.
    Despawn,
}

impl Lifecycle {
    /// Every kind, in declaration order (the index of each is `kind as usize`).
    pub(crate) const ALL: [Self; 6] =
        [Self::Add, Self::Insert, Self::Replace, Self::Discard, Self::Remove, Self::Despawn];

    /// The row events that fire this kind.
    fn events(self) -> RowEvents {
        match self {
            Self::Add => RowEvents::ADD,
            Self::Insert => RowEvents::ADD | RowEvents::REPLACE,
            Self::Replace => RowEvents::REPLACE,
            Self::Discard => RowEvents::REPLACE | RowEvents::REMOVE,
            Self::Remove | Self::Despawn => RowEvents::REMOVE,
        }
    }
}

/// What one observer run receives, type-erased: the typed front downcasts `event` to its `E`.
pub(crate) struct TriggerContext<'a> {
    /// The event (`&mut E`).
    pub(crate) event: &'a mut dyn Any,
    /// The entity the event is at now (`None` for a global trigger).
    pub(crate) target: Option<Entity>,
    /// The entity the event was triggered at, before any propagation.
    pub(crate) original: Option<Entity>,
    /// For lifecycle events: the component whose row changed.
    pub(crate) component: Option<ComponentId>,
    /// The observer's own entity (set by the registry as it runs each observer).
    pub(crate) observer: Option<Entity>,
    /// Whether the event goes on to the next entity of its traversal after this level.
    pub(crate) propagate: bool,
    /// The tick the observers of this trigger run at (one per trigger or lifecycle event).
    pub(crate) this_run: Tick,
}

/// A type-erased observer: a function of system parameters (made by `crate::observer`).
pub(crate) trait ObserverRunner: Send + Sync {
    /// Runs the observer once, lending its parameters the world shared (nothing else runs
    /// meanwhile), then moves the work they deferred (commands) into the world's deferred buffer.
    /// One dynamic call per observer run.
    fn run(&mut self, world: &mut World, trigger: &mut TriggerContext<'_>);
}

/// Which events an observer is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ObserverKey {
    /// A custom event type.
    Custom(TypeId),
    /// A lifecycle event of one or more components.
    Lifecycle(Lifecycle, SmallVec<[ComponentId; 2]>),
}

/// One registered observer.
struct Slot {
    /// The observer's entity.
    entity: Entity,
    /// What runs; `None` while it runs.
    runner: Option<Box<dyn ObserverRunner>>,
    /// The entities it watches; empty: every entity (and global triggers).
    watched: SmallVec<[Entity; 2]>,
    /// The events it is for.
    key: ObserverKey,
}

/// The observers of one custom event type.
#[derive(Default)]
struct CustomEntry {
    /// Observers of every target and of global triggers, in registration order.
    global: Vec<u32>,
    /// Target entity index -> the index in `lists` of its observers: a trigger finds them with
    /// one paged-array read per level (no hashing), then walks the list by position.
    by_target: SparseArray,
    /// Per observed entity: the entity (its generation checked on lookup) and its observers,
    /// in registration order; entries with an empty list are free (`free`).
    lists: Vec<(Entity, SmallVec<[u32; 2]>)>,
    /// Indices of free entries in `lists`, reused by the next target.
    free: Vec<u32>,
}

impl CustomEntry {
    /// Adds observer `slot` to the observers of `target`. O(1) amortised.
    fn watch(&mut self, target: Entity, slot: u32) {
        let list = match self.list_of(target) {
            Some(list) => list,
            None => {
                let list = match self.free.pop() {
                    Some(list) => {
                        self.lists[list as usize].0 = target;
                        list
                    }
                    None => {
                        self.lists.push((target, SmallVec::new()));
                        u32::try_from(self.lists.len() - 1).expect("more than 2^32 observed entities")
                    }
                };
                self.by_target.insert(target.index(), list);
                list
            }
        };
        self.lists[list as usize].1.push(slot);
    }

    /// Removes observer `slot` from the observers of `target` (all of them when `slot` is
    /// `None`). O(observers of `target`).
    fn unwatch(&mut self, target: Entity, slot: Option<u32>) {
        let Some(list) = self.list_of(target) else { return };
        let observers = &mut self.lists[list as usize].1;
        match slot {
            Some(slot) => observers.retain(|&mut s| s != slot),
            None => observers.clear(),
        }
        if observers.is_empty() {
            self.by_target.remove(target.index());
            self.free.push(list);
        }
    }

    /// The index in `lists` of `target`'s observers. O(1): one paged-array read.
    #[inline]
    fn list_of(&self, target: Entity) -> Option<u32> {
        let list = self.by_target.get(target.index())?;
        (self.lists[list as usize].0 == target).then_some(list)
    }
}

/// Every observer of a world (a world part: registrations, not simulation state; rollback checks
/// that the set of observer entities matches the frame it restores).
#[derive(Default)]
pub(crate) struct Observers {
    /// Slots by index; `None` for a removed observer (reused by the next one).
    slots: Vec<Option<Slot>>,
    /// Free slot indices.
    free: Vec<u32>,
    /// Observer entity -> slot.
    by_entity: FxHashMap<Entity, u32>,
    /// Custom event type -> its index in `events`.
    custom: FxHashMap<TypeId, usize>,
    /// The event type triggered last and its index in `events`: a program triggering one type
    /// in a loop skips the hash lookup. (`events` only grows, so the index stays right.)
    last_custom: Option<(TypeId, usize)>,
    /// The observers of each custom event type seen (by the index `custom` gives).
    events: Vec<CustomEntry>,
    /// Per component id, per [`Lifecycle`] kind (as `usize`): the observers, in registration order.
    lifecycle: Vec<[Vec<u32>; Lifecycle::ALL.len()]>,
    /// Watched entity -> the observers that watch it (removed with it when it is despawned).
    watchers: FxHashMap<Entity, SmallVec<[u32; 2]>>,
}

impl std::fmt::Debug for Observers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observers").field("count", &self.by_entity.len()).finish()
    }
}

impl Observers {
    /// Number of observers registered. O(1).
    pub(crate) fn len(&self) -> usize {
        self.by_entity.len()
    }

    /// The observer entities, in no particular order. O(observers).
    #[cfg_attr(not(feature = "rollback"), allow(dead_code, reason = "rollback checks them"))]
    pub(crate) fn entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.by_entity.keys().copied()
    }

    /// Whether `entity` is an observer. O(1).
    #[cfg_attr(not(feature = "rollback"), allow(dead_code, reason = "rollback checks them"))]
    pub(crate) fn contains(&self, entity: Entity) -> bool {
        self.by_entity.contains_key(&entity)
    }

    /// The lifecycle observers of component `id` and `kind`.
    #[inline]
    fn of(&self, id: ComponentId, kind: Lifecycle) -> &[u32] {
        self.lifecycle.get(id.index()).map_or(&[], |kinds| &kinds[kind as usize])
    }
}

impl RowSubscriber for Observers {
    const NEEDS: Needs =
        Needs { name: "observers", old_value: true, world: WorldUse::Deferred, batch: false };

    fn events(world: &World, id: ComponentId) -> RowEvents {
        let observers = &world.observers;
        let mut events = RowEvents::NONE;
        if let Some(kinds) = observers.lifecycle.get(id.index()) {
            for kind in Lifecycle::ALL {
                if !kinds[kind as usize].is_empty() {
                    events |= kind.events();
                }
            }
        }
        // The registry's own markers: an observer's despawn removes it, a watched entity's
        // despawn removes its observers.
        let own = [
            world.components.id::<crate::observer::Observer>(),
            world.components.id::<crate::observer::Observed>(),
        ];
        if own.contains(&Some(id)) {
            events |= RowEvents::REMOVE;
        }
        events
    }

    /// Replace then discard observers of each replaced component; discard, remove (and, for a
    /// despawn, despawn) observers of each removed one, while the values are still readable.
    fn before(world: &mut World, change: &RowChange<'_>) {
        if change.despawn && world.observers.watchers.contains_key(&change.entity) {
            world.fire_entity_despawn(change.entity);
        }
        if world.observers.lifecycle.is_empty() {
            return;
        }
        for &id in change.replaced {
            world.fire_lifecycle(change.entity, id, Lifecycle::Replace);
            world.fire_lifecycle(change.entity, id, Lifecycle::Discard);
        }
        for &id in change.removed {
            world.fire_lifecycle(change.entity, id, Lifecycle::Discard);
            world.fire_lifecycle(change.entity, id, Lifecycle::Remove);
            if change.despawn {
                world.fire_lifecycle(change.entity, id, Lifecycle::Despawn);
            }
        }
    }

    /// Add then insert observers of each added component, insert observers of each replaced
    /// one; then forgets observers whose entity or watched entity just went.
    fn after(world: &mut World, change: &RowChange<'_>) {
        if !world.observers.lifecycle.is_empty() {
            for &id in change.added {
                world.fire_lifecycle(change.entity, id, Lifecycle::Add);
                world.fire_lifecycle(change.entity, id, Lifecycle::Insert);
            }
            for &id in change.replaced {
                world.fire_lifecycle(change.entity, id, Lifecycle::Insert);
            }
        }
        if change.removed.is_empty() {
            return;
        }
        let observer = world.components.id::<crate::observer::Observer>();
        if observer.is_some_and(|id| change.removed.contains(&id)) {
            world.forget_observer(change.entity);
        }
        let observed = world.components.id::<crate::observer::Observed>();
        if observed.is_some_and(|id| change.removed.contains(&id))
            && let Some(slots) = world.observers.watchers.remove(&change.entity)
        {
            // Observers of that one entity go with it (bevy despawns them too); observers of
            // several entities only forget it.
            for slot in slots {
                let Some(Some(entry)) = world.observers.slots.get_mut(slot as usize) else { continue };
                entry.watched.retain(|&mut e| e != change.entity);
                let observer_entity = entry.entity;
                if entry.watched.is_empty() {
                    world.deferred_despawn(observer_entity);
                    continue;
                }
                if let ObserverKey::Custom(event) = entry.key
                    && let Some(&index) = world.observers.custom.get(&event)
                {
                    world.observers.events[index].unwatch(change.entity, None);
                }
                // The observer's component lists what it still watches.
                if let Some(id) = observer
                    && let Some(component) =
                        world.components.pool_mut(id).get_mut::<crate::observer::Observer>(observer_entity)
                {
                    component.forget(change.entity);
                }
            }
        }
    }
}

impl World {
    /// Registers `runner` as the observer of `key` on `entity` (already spawned with its
    /// `Observer` component), watching `watched` (empty: every entity). Refreshes the row events
    /// of the components a lifecycle observer watches. O(watched + components).
    pub(crate) fn register_observer(
        &mut self,
        entity: Entity,
        key: ObserverKey,
        watched: SmallVec<[Entity; 2]>,
        runner: Box<dyn ObserverRunner>,
    ) {
        let observers = &mut self.observers;
        let slot = match observers.free.pop() {
            Some(slot) => slot,
            None => {
                observers.slots.push(None);
                u32::try_from(observers.slots.len() - 1).expect("more than 2^32 observers in one world")
            }
        };
        observers.by_entity.insert(entity, slot);
        for &target in &watched {
            observers.watchers.entry(target).or_default().push(slot);
        }
        let mut refresh = SmallVec::<[ComponentId; 2]>::new();
        match &key {
            ObserverKey::Custom(event) => {
                let events = &mut observers.events;
                let index = *observers.custom.entry(*event).or_insert_with(|| {
                    events.push(CustomEntry::default());
                    events.len() - 1
                });
                let entry = &mut events[index];
                if watched.is_empty() {
                    entry.global.push(slot);
                } else {
                    for &target in &watched {
                        entry.watch(target, slot);
                    }
                }
            }
            ObserverKey::Lifecycle(kind, ids) => {
                for &id in ids {
                    if observers.lifecycle.len() <= id.index() {
                        observers.lifecycle.resize_with(id.index() + 1, Default::default);
                    }
                    observers.lifecycle[id.index()][*kind as usize].push(slot);
                    refresh.push(id);
                }
            }
        }
        observers.slots[slot as usize] = Some(Slot { entity, runner: Some(runner), watched, key });
        for id in refresh {
            self.refresh_row_events(id);
        }
        for id in [
            self.components.id::<crate::observer::Observer>(),
            self.components.id::<crate::observer::Observed>(),
        ]
        .into_iter()
        .flatten()
        {
            self.refresh_row_events(id);
        }
    }

    /// Removes the observer whose entity is `entity` from every list (its entity is being
    /// despawned, or lost its `Observer` component). O(observers of its event).
    fn forget_observer(&mut self, entity: Entity) {
        let observers = &mut self.observers;
        let Some(slot) = observers.by_entity.remove(&entity) else { return };
        let Some(entry) = observers.slots[slot as usize].take() else { return };
        observers.free.push(slot);
        for &target in &entry.watched {
            if let Some(list) = observers.watchers.get_mut(&target) {
                list.retain(|&mut s| s != slot);
                if list.is_empty() {
                    observers.watchers.remove(&target);
                    // No observer watches `target` any more: its marker goes (bevy removes
                    // `ObservedBy` the same way) once the operation under way is complete,
                    // unless an observer of it was added meanwhile.
                    self.deferred.buffer_mut().queue(move |world: &mut World| {
                        if world.is_alive(target) && !world.observers.watchers.contains_key(&target) {
                            world.remove_present::<crate::observer::Observed>(target);
                        }
                    });
                }
            }
        }
        let mut refresh = SmallVec::<[ComponentId; 2]>::new();
        match entry.key {
            ObserverKey::Custom(event) => {
                if let Some(&index) = observers.custom.get(&event) {
                    let custom = &mut observers.events[index];
                    custom.global.retain(|&s| s != slot);
                    for &target in &entry.watched {
                        custom.unwatch(target, Some(slot));
                    }
                }
            }
            ObserverKey::Lifecycle(kind, ids) => {
                for id in ids {
                    observers.lifecycle[id.index()][kind as usize].retain(|&s| s != slot);
                    refresh.push(id);
                }
            }
        }
        for id in refresh {
            self.refresh_row_events(id);
        }
    }

    /// Despawns `entity` once the operation under way is complete (through the deferred buffer).
    fn deferred_despawn(&mut self, entity: Entity) {
        self.deferred.buffer_mut().despawn(entity);
    }

    /// Runs observer `slot` for one trigger: takes its runner out, runs it on the world shared,
    /// puts it back and queues what it deferred. A slot removed meanwhile is passed over.
    fn run_observer(&mut self, slot: u32, trigger: &mut TriggerContext<'_>) {
        let Some(Some(entry)) = self.observers.slots.get_mut(slot as usize) else { return };
        let Some(mut runner) = entry.runner.take() else { return };
        trigger.observer = Some(entry.entity);
        runner.run(self, trigger);
        if let Some(Some(entry)) = self.observers.slots.get_mut(slot as usize) {
            entry.runner = Some(runner);
        }
    }

    /// Runs the `kind` observers of component `id` for `entity`, in registration order; an
    /// observer watching given entities runs only for those.
    fn fire_lifecycle(&mut self, entity: Entity, id: ComponentId, kind: Lifecycle) {
        let count = self.observers.of(id, kind).len();
        if count == 0 {
            return;
        }
        let this_run = self.components.clock().advance_exclusive();
        crate::observer::lifecycle_event(kind, entity, |event| {
            for at in 0..count {
                let Some(&slot) = self.observers.of(id, kind).get(at) else { break };
                let watches = match self.observers.slots.get(slot as usize) {
                    Some(Some(entry)) => entry.watched.is_empty() || entry.watched.contains(&entity),
                    _ => false,
                };
                if watches {
                    self.run_lifecycle_observer(slot, event, entity, Some(id), this_run);
                }
            }
        });
    }

    /// Runs observer `slot` for lifecycle `event` at `entity`.
    fn run_lifecycle_observer(
        &mut self,
        slot: u32,
        event: &mut dyn Any,
        entity: Entity,
        component: Option<ComponentId>,
        this_run: Tick,
    ) {
        let mut trigger = TriggerContext {
            event,
            target: Some(entity),
            original: Some(entity),
            component,
            observer: None,
            propagate: false,
            this_run,
        };
        self.run_observer(slot, &mut trigger);
    }

    /// Runs the `On<Despawn>` observers of `entity` alone (those with no component), in
    /// registration order: `entity` is being despawned.
    fn fire_entity_despawn(&mut self, entity: Entity) {
        let Some(slots) = self.observers.watchers.get(&entity) else { return };
        let slots: SmallVec<[u32; 4]> = slots
            .iter()
            .copied()
            .filter(|&slot| {
                matches!(&self.observers.slots[slot as usize],
                    Some(Slot { key: ObserverKey::Lifecycle(Lifecycle::Despawn, ids), .. }) if ids.is_empty())
            })
            .collect();
        if slots.is_empty() {
            return;
        }
        let this_run = self.components.clock().advance_exclusive();
        crate::observer::lifecycle_event(Lifecycle::Despawn, entity, |event| {
            for slot in slots {
                self.run_lifecycle_observer(slot, event, entity, None, this_run);
            }
        });
    }

    /// Triggers custom event `event` (of type id `event_type`) at `target` (`None`: globally),
    /// following `traverse` while an observer asks to propagate (or `auto_propagate`). Runs the
    /// global observers, then those of the target, each in registration order, level by level;
    /// then applies what they deferred. O(observers run + levels); one hash lookup when `E`
    /// has no observer.
    pub(crate) fn trigger_erased(
        &mut self,
        event_type: TypeId,
        event: &mut dyn Any,
        target: Option<Entity>,
        auto_propagate: bool,
        traverse: fn(&World, Entity) -> Option<Entity>,
    ) {
        let index = match self.observers.last_custom {
            Some((last, index)) if last == event_type => index,
            _ => {
                let Some(&index) = self.observers.custom.get(&event_type) else { return };
                self.observers.last_custom = Some((event_type, index));
                index
            }
        };
        // One tick for the whole trigger: every observer it runs stamps its writes with it.
        let this_run = self.components.clock().advance_exclusive();
        // One context for the whole trigger: each level moves its target and resets its flag.
        let mut trigger = TriggerContext {
            event,
            target,
            original: target,
            component: None,
            observer: None,
            propagate: auto_propagate,
            this_run,
        };
        // A traversal that loops (a relation cycle) stops after this many levels.
        let mut levels = 0u32;
        loop {
            trigger.propagate = auto_propagate;
            // The lists cannot change while observers run (they see the world shared and defer
            // their changes to the end of the trigger), so they are walked by position: the
            // global observers, then those of the entity (found by one hash lookup, skipped when
            // the event type has no observer of one entity).
            let entry = &self.observers.events[index];
            let global = entry.global.len();
            let list = trigger.target.and_then(|entity| entry.list_of(entity));
            for at_slot in 0..global {
                let slot = self.observers.events[index].global[at_slot];
                self.run_observer(slot, &mut trigger);
            }
            if let Some(list) = list {
                let mut at_slot = 0;
                while let Some(&slot) = self.observers.events[index].lists[list as usize].1.get(at_slot) {
                    self.run_observer(slot, &mut trigger);
                    at_slot += 1;
                }
            }
            levels += 1;
            let next = match trigger.target {
                Some(entity) if trigger.propagate && levels < 1 << 16 => traverse(self, entity),
                _ => None,
            };
            match next {
                Some(next) => trigger.target = Some(next),
                None => break,
            }
        }
        self.flush_deferred();
    }
}
