//! Component lifecycle hooks: callbacks run when a component is added to, replaced on, or removed
//! from an entity.
//!
//! Hooks are a row subscriber (`world/row_events.rs`): a pool is flagged with the kinds of hooks
//! its component has, so hooks on one type cost nothing to the structural changes of another.
//! They run synchronously inside the world operation that fires them, with read access to the
//! world and a [`CommandBuffer`](crate::CommandBuffer) for changes, which the world applies as
//! soon as the operation returns. EnTT's `on_construct`/`on_update`/`on_destroy` signals and
//! bevy's component hooks.

use std::sync::Arc;

use super::row_events::{Needs, RowChange, RowSubscriber, WorldUse};
use super::{CommandBuffer, World};
use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::storage::RowEvents;

/// What a hook or watch callback receives.
///
/// The world is read-only inside a hook: structural changes go through `commands`, and a hook
/// that keeps a tally should write it to a resource with interior mutability (an atomic counter)
/// or record an insert through `commands`.
pub struct HookContext<'a> {
    /// The entity the operation is on.
    pub entity: Entity,
    /// The world, read-only: no structural change can happen inside a hook.
    pub world: &'a World,
    /// Changes to make; applied in order right after the operation that fired the hook.
    pub commands: &'a mut CommandBuffer,
}

/// A hook or watch callback.
pub type Hook = Arc<dyn Fn(&mut HookContext<'_>) + Send + Sync>;

/// Which lifecycle event a hook is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum HookKind {
    /// After a value is added to an entity that had none.
    Add,
    /// After any insert: an add or a replace.
    Insert,
    /// Before a value is overwritten by an insert.
    Replace,
    /// Before a value goes: overwritten, removed, or despawned with its entity.
    Discard,
    /// Before a value is removed (remove, despawn).
    Remove,
}

/// Every kind, in the order a component's hooks of each kind are stored.
const KINDS: [HookKind; 5] =
    [HookKind::Add, HookKind::Insert, HookKind::Replace, HookKind::Discard, HookKind::Remove];

impl HookKind {
    /// The row events that fire hooks of this kind.
    fn events(self) -> RowEvents {
        match self {
            Self::Add => RowEvents::ADD,
            Self::Insert => RowEvents::ADD | RowEvents::REPLACE,
            Self::Replace => RowEvents::REPLACE,
            Self::Discard => RowEvents::REPLACE | RowEvents::REMOVE,
            Self::Remove => RowEvents::REMOVE,
        }
    }
}

/// The hooks of one component type, per kind (in [`KINDS`] order), each list in registration
/// order (with their serials).
#[derive(Clone, Default)]
struct ComponentHooks([Vec<(u32, Hook)>; 5]);

impl ComponentHooks {
    fn get(&self, kind: HookKind) -> &[(u32, Hook)] {
        &self.0[kind as usize]
    }

    fn get_mut(&mut self, kind: HookKind) -> &mut Vec<(u32, Hook)> {
        &mut self.0[kind as usize]
    }

    /// The row events these hooks want.
    fn events(&self) -> RowEvents {
        let mut events = RowEvents::NONE;
        for kind in KINDS {
            if !self.get(kind).is_empty() {
                events |= kind.events();
            }
        }
        events
    }
}

/// Identifies a hook made by [`World::on_add`], [`World::on_insert`], [`World::on_replace`],
/// [`World::on_discard`] or [`World::on_remove`], for [`World::remove_hook`]. Unique within its
/// world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HookId {
    component: ComponentId,
    kind: HookKind,
    serial: u32,
}

/// Every component's hooks.
#[derive(Default)]
pub(crate) struct Hooks {
    /// Indexed by component id; shorter than the registry when later types have no hooks.
    of: Vec<ComponentHooks>,
    /// The next hook serial.
    next: u32,
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count: usize = self.of.iter().flat_map(|h| &h.0).map(Vec::len).sum();
        f.debug_struct("Hooks").field("count", &count).finish()
    }
}

impl Hooks {
    /// The `kind` hooks of component `id`, in registration order.
    #[inline]
    fn of(&self, id: ComponentId, kind: HookKind) -> &[(u32, Hook)] {
        self.of.get(id.index()).map_or(&[], |hooks| hooks.get(kind))
    }
}

impl RowSubscriber for Hooks {
    const NEEDS: Needs = Needs { name: "hooks", old_value: true, world: WorldUse::Deferred, batch: false };

    fn events(world: &World, id: ComponentId) -> RowEvents {
        world.hooks.of.get(id.index()).map_or(RowEvents::NONE, ComponentHooks::events)
    }

    /// For each replaced component its replace, then discard hooks; then for each removed one its
    /// discard, then remove hooks; each in the change's order (bevy's order: `on_replace` before
    /// `on_remove`).
    fn before(world: &mut World, change: &RowChange<'_>) {
        for &id in change.replaced {
            world.fire_hooks(change.entity, id, HookKind::Replace);
            world.fire_hooks(change.entity, id, HookKind::Discard);
        }
        for &id in change.removed {
            world.fire_hooks(change.entity, id, HookKind::Discard);
            world.fire_hooks(change.entity, id, HookKind::Remove);
        }
    }

    /// For each added component its add, then insert hooks; then the insert hooks of the
    /// replaced ones; each in the change's order (bevy's order: `on_add` before `on_insert`).
    fn after(world: &mut World, change: &RowChange<'_>) {
        for &id in change.added {
            world.fire_hooks(change.entity, id, HookKind::Add);
            world.fire_hooks(change.entity, id, HookKind::Insert);
        }
        for &id in change.replaced {
            world.fire_hooks(change.entity, id, HookKind::Insert);
        }
    }
}

impl World {
    /// Registers `hook` as a `kind` hook of `T`, after the ones it already has.
    fn add_hook<T: Component>(&mut self, kind: HookKind, hook: Hook) -> HookId {
        let component = self.components.register::<T>();
        self.add_hook_by_id(component, kind, hook)
    }

    /// Registers `hook` of `kind` for component `component` (registered: the caller checked).
    pub(crate) fn add_hook_by_id(&mut self, component: ComponentId, kind: HookKind, hook: Hook) -> HookId {
        let hooks = &mut self.hooks;
        if hooks.of.len() <= component.index() {
            hooks.of.resize_with(component.index() + 1, ComponentHooks::default);
        }
        let serial = hooks.next;
        hooks.next = serial.checked_add(1).expect("more than 2^32 hooks registered in one world");
        hooks.of[component.index()].get_mut(kind).push((serial, hook));
        self.refresh_row_events(component);
        HookId { component, kind, serial }
    }

    /// Registers a hook run right after a `T` is added to an entity (insert of a new value,
    /// spawn, bundle insert, command buffer). The hook can read the new value, and the rest of a
    /// bundle inserted with it. A component may have any number of hooks of each kind; they run
    /// in registration order (EnTT's `on_construct` signal, bevy's component hooks and
    /// observers). Returns the id that [`World::remove_hook`] takes.
    ///
    /// Cost: structural changes of `T`'s pool take the path that runs subscribers; other pools'
    /// are not affected.
    ///
    /// # Examples
    /// ```
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// use std::sync::Arc;
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Hull;
    ///
    /// let mut world = World::new();
    /// let added = Arc::new(AtomicU32::new(0));
    /// let (a, b) = (added.clone(), added.clone());
    /// let first = world.on_add::<Hull>(move |_| { a.fetch_add(1, Ordering::Relaxed); });
    /// world.on_add::<Hull>(move |_| { b.fetch_add(10, Ordering::Relaxed); });
    /// world.spawn(Hull);
    /// assert_eq!(added.load(Ordering::Relaxed), 11);
    /// assert!(world.remove_hook(first));
    /// world.spawn(Hull);
    /// assert_eq!(added.load(Ordering::Relaxed), 21);
    /// ```
    pub fn on_add<T: Component>(
        &mut self,
        hook: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static,
    ) -> HookId {
        self.add_hook::<T>(HookKind::Add, Arc::new(hook))
    }

    /// Registers a hook run right after every insert of a `T`: an add (after the add hooks) or
    /// a replace of the value an entity had (bevy's `on_insert`). The hook can read the new value.
    /// Any number per component, run in registration order; see [`World::on_add`].
    ///
    /// # Examples
    /// ```
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// use std::sync::Arc;
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Target(u32);
    ///
    /// let mut world = World::new();
    /// let inserts = Arc::new(AtomicU32::new(0));
    /// let counter = inserts.clone();
    /// world.on_insert::<Target>(move |_| { counter.fetch_add(1, Ordering::Relaxed); });
    /// let e = world.spawn(Target(1));
    /// world.insert(e, Target(2)); // a replace is an insert too
    /// assert_eq!(inserts.load(Ordering::Relaxed), 2);
    /// ```
    pub fn on_insert<T: Component>(
        &mut self,
        hook: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static,
    ) -> HookId {
        self.add_hook::<T>(HookKind::Insert, Arc::new(hook))
    }

    /// Registers a hook run right before an entity's `T` is overwritten by an insert (the
    /// replace signal), and only then: see [`World::on_discard`] for every way a value goes. The
    /// hook can read the old value. Any number per component, run in registration order; see
    /// [`World::on_add`].
    pub fn on_replace<T: Component>(
        &mut self,
        hook: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static,
    ) -> HookId {
        self.add_hook::<T>(HookKind::Replace, Arc::new(hook))
    }

    /// Registers a hook run right before an entity's `T` goes, whichever way: overwritten by an
    /// insert (after the replace hooks), removed or despawned (before the remove hooks). The hook
    /// can read the old value. What bevy's `on_replace` does (bevy fires it on removal too; our
    /// [`World::on_replace`] is for overwrites alone). Any number per component, run in
    /// registration order; see [`World::on_add`].
    ///
    /// # Examples
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Ticket(u32);
    ///
    /// let mut world = World::new();
    /// let gone = Arc::new(Mutex::new(Vec::new()));
    /// let log = gone.clone();
    /// world.on_discard::<Ticket>(move |ctx| {
    ///     log.lock().unwrap().push(ctx.world.get::<Ticket>(ctx.entity).unwrap().0);
    /// });
    /// let e = world.spawn(Ticket(1));
    /// world.insert(e, Ticket(2)); // 1 is discarded
    /// world.remove::<Ticket>(e); // 2 is discarded
    /// let f = world.spawn(Ticket(3));
    /// world.despawn(f); // 3 is discarded
    /// assert_eq!(*gone.lock().unwrap(), [1, 2, 3]);
    /// ```
    pub fn on_discard<T: Component>(
        &mut self,
        hook: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static,
    ) -> HookId {
        self.add_hook::<T>(HookKind::Discard, Arc::new(hook))
    }

    /// Registers a hook run right before a `T` leaves an entity (remove, or despawn, where the
    /// entity still has all its components while its hooks run). The hook can read the value.
    /// Any number per component, run in registration order; see [`World::on_add`].
    pub fn on_remove<T: Component>(
        &mut self,
        hook: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static,
    ) -> HookId {
        self.add_hook::<T>(HookKind::Remove, Arc::new(hook))
    }

    /// Removes the hook `id` names; returns whether it was registered (false if removed
    /// already). The other hooks keep their order. O(hooks of that component and kind + distinct
    /// component sets).
    pub fn remove_hook(&mut self, id: HookId) -> bool {
        let Some(hooks) = self.hooks.of.get_mut(id.component.index()) else { return false };
        let list = hooks.get_mut(id.kind);
        let Some(at) = list.iter().position(|&(serial, _)| serial == id.serial) else { return false };
        list.remove(at);
        self.refresh_row_events(id.component);
        true
    }

    /// Runs the `kind` hooks of component `id` on `entity`, in registration order.
    #[inline]
    fn fire_hooks(&mut self, entity: Entity, id: ComponentId, kind: HookKind) {
        if !self.hooks.of(id, kind).is_empty() {
            self.call(entity, |world, ctx| {
                for (_, hook) in world.hooks.of(id, kind) {
                    hook(ctx);
                }
            });
        }
    }
}
