//! Watches: callbacks run when an entity starts or stops matching a set of components (the
//! founding design's `onManagedEntityAdded` / `onManagedEntityRemoved`).
//!
//! Watches are a row subscriber (`world/row_events.rs`) of the pools of the components they name.

use smallvec::SmallVec;

use super::row_events::{Needs, RowChange, RowSubscriber, WorldUse};
use super::{Hook, World};
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::storage::RowEvents;

/// Identifies a watch made by [`World::add_watch`] or [`World::watch`](crate::World::watch), for
/// [`World::remove_watch`]. Unique within its world; never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WatchId(u32);

/// An entity set defined by components it must have and must not have.
struct Watch {
    required: SmallVec<[ComponentId; 4]>,
    excluded: SmallVec<[ComponentId; 2]>,
    on_enter: Option<Hook>,
    on_leave: Option<Hook>,
}

/// A watch transition found before a change: the entity enters (`enter`) or leaves the set.
#[derive(Clone, Copy)]
struct Transition {
    watch: u32,
    enter: bool,
}

/// Every watch of a world.
#[derive(Default)]
pub(crate) struct Watches {
    /// Indexed by watch id; `None` once removed (ids are never reused).
    all: Vec<Option<Watch>>,
    /// Indexed by component id: the watches that mention the component.
    of: Vec<SmallVec<[u32; 2]>>,
    /// The transitions of the change under way, found by `before` and finished by `after` (no
    /// change starts between the two: callbacks cannot change the world structurally).
    pending: SmallVec<[Transition; 4]>,
}

impl std::fmt::Debug for Watches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watches").field("live", &self.all.iter().flatten().count()).finish()
    }
}

impl RowSubscriber for Watches {
    const NEEDS: Needs = Needs { name: "watches", old_value: true, world: WorldUse::Deferred, batch: false };

    fn events(world: &World, id: ComponentId) -> RowEvents {
        match world.watches.of.get(id.index()) {
            Some(list) if !list.is_empty() => RowEvents::ADD | RowEvents::REMOVE,
            _ => RowEvents::NONE,
        }
    }

    /// Finds the transitions `change` causes and runs the leave callbacks (the entity still whole).
    fn before(world: &mut World, change: &RowChange<'_>) {
        let transitions = world.watch_transitions(change);
        world.watches.pending = transitions;
        world.fire_watches(change.entity, false);
    }

    /// Runs the enter callbacks (none for a despawned entity).
    fn after(world: &mut World, change: &RowChange<'_>) {
        if !change.despawn {
            world.fire_watches(change.entity, true);
        }
        world.watches.pending.clear();
    }
}

impl World {
    /// Watches the set of entities that have every `required` component and none of the
    /// `excluded` ones: `on_enter` runs right after an operation makes an entity match, `on_leave`
    /// right before an operation makes it stop matching (despawn included), while its components
    /// are still readable.
    ///
    /// Entities that already match when the watch is added do not fire `on_enter`.
    /// Cost: structural changes of the watched component types evaluate the watch (O(r + x)
    /// lookups); other types are not affected.
    /// [`World::watch`](crate::World::watch) derives the sets from a query type.
    ///
    /// # Panics
    /// If `required` is empty.
    #[track_caller]
    pub fn add_watch(
        &mut self,
        required: &[ComponentId],
        excluded: &[ComponentId],
        on_enter: Option<Hook>,
        on_leave: Option<Hook>,
    ) -> WatchId {
        assert!(!required.is_empty(), "a watch needs at least one required component");
        let index = u32::try_from(self.watches.all.len()).expect("more than 2^32 watches in one world");
        for &id in required.iter().chain(excluded) {
            let of = &mut self.watches.of;
            if of.len() <= id.index() {
                of.resize_with(id.index() + 1, SmallVec::new);
            }
            if !of[id.index()].contains(&index) {
                of[id.index()].push(index);
            }
        }
        self.watches.all.push(Some(Watch {
            required: required.into(),
            excluded: excluded.into(),
            on_enter,
            on_leave,
        }));
        for &id in required.iter().chain(excluded) {
            self.refresh_row_events(id);
        }
        WatchId(index)
    }

    /// Removes the watch `id` names: its callbacks no longer run. Returns whether it was
    /// registered (false if removed already). O(r + x) in its components, plus the distinct
    /// component sets.
    ///
    /// # Examples
    /// ```
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// use std::sync::Arc;
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Body;
    ///
    /// let mut world = World::new();
    /// let entered = Arc::new(AtomicU32::new(0));
    /// let counter = entered.clone();
    /// let id = world.watch::<&Body, ()>(move |_| { counter.fetch_add(1, Ordering::Relaxed); }, |_| {});
    /// world.spawn(Body);
    /// assert!(world.remove_watch(id));
    /// world.spawn(Body);
    /// assert_eq!(entered.load(Ordering::Relaxed), 1);
    /// assert!(!world.remove_watch(id));
    /// ```
    pub fn remove_watch(&mut self, id: WatchId) -> bool {
        let Some(watch) = self.watches.all.get_mut(id.0 as usize).and_then(Option::take) else {
            return false;
        };
        for component in watch.required.iter().chain(&watch.excluded) {
            if let Some(list) = self.watches.of.get_mut(component.index()) {
                list.retain(|w| *w != id.0);
            }
            self.refresh_row_events(*component);
        }
        true
    }

    /// The watch transitions `change` causes. Call before the rows change.
    fn watch_transitions(&self, change: &RowChange<'_>) -> SmallVec<[Transition; 4]> {
        let mut out = SmallVec::new();
        let watches = &self.watches;
        if watches.all.is_empty() {
            return out;
        }
        let entity = change.entity;
        let has_now = |id: ComponentId| self.components.pool(id).contains(entity);
        let has_after = |id: ComponentId| change.has_after(id).unwrap_or_else(|| has_now(id));
        let mut seen = SmallVec::<[u32; 8]>::new();
        for &id in change.added.iter().chain(change.removed) {
            for &w in watches.of.get(id.index()).map_or(&[][..], |v| v) {
                if seen.contains(&w) {
                    continue;
                }
                seen.push(w);
                let Some(watch) = &watches.all[w as usize] else { continue };
                let matches = |has: &dyn Fn(ComponentId) -> bool| {
                    watch.required.iter().all(|&r| has(r)) && !watch.excluded.iter().any(|&x| has(x))
                };
                let (before, after) = (matches(&has_now), matches(&has_after));
                if before != after {
                    out.push(Transition { watch: w, enter: after });
                }
            }
        }
        out
    }

    /// Runs the enter (`enter == true`) or leave callbacks of the pending transitions for `entity`.
    fn fire_watches(&mut self, entity: Entity, enter: bool) {
        for i in 0..self.watches.pending.len() {
            let t = self.watches.pending[i];
            if t.enter != enter {
                continue;
            }
            self.call(entity, |world, ctx| {
                let Some(watch) = &world.watches.all[t.watch as usize] else { return };
                let callback = if enter { &watch.on_enter } else { &watch.on_leave };
                if let Some(callback) = callback {
                    callback(ctx);
                }
            });
        }
    }
}
