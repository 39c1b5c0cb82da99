//! Component lifecycle hooks (add, replace, remove) and watches (an entity starts or stops matching
//! a set of components).
//!
//! Both run synchronously inside the world operation that fires them, with read access to the
//! world and a [`CommandBuffer`] for changes, which the world applies as soon as the operation
//! returns. Hooks come from EnTT's `on_construct`/`on_update`/`on_destroy` signals and bevy's
//! component hooks; watches from the founding design's `onManagedEntityAdded` /
//! `onManagedEntityRemoved`.

use std::sync::Arc;

use smallvec::SmallVec;

use super::{CommandBuffer, World};
use crate::component::{Component, ComponentId};
use crate::entity::Entity;

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

/// The hooks of one component type, per kind, in registration order.
#[derive(Clone, Default)]
pub(crate) struct ComponentHooks {
    on_add: Vec<(u32, Hook)>,
    on_replace: Vec<(u32, Hook)>,
    on_remove: Vec<(u32, Hook)>,
}

/// Which lifecycle event a hook is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum HookKind {
    Add,
    Replace,
    Remove,
}

impl ComponentHooks {
    pub(crate) fn get(&self, kind: HookKind) -> &[(u32, Hook)] {
        match kind {
            HookKind::Add => &self.on_add,
            HookKind::Replace => &self.on_replace,
            HookKind::Remove => &self.on_remove,
        }
    }

    fn get_mut(&mut self, kind: HookKind) -> &mut Vec<(u32, Hook)> {
        match kind {
            HookKind::Add => &mut self.on_add,
            HookKind::Replace => &mut self.on_replace,
            HookKind::Remove => &mut self.on_remove,
        }
    }
}

/// Identifies a hook made by [`World::on_add`], [`World::on_replace`] or [`World::on_remove`],
/// for [`World::remove_hook`]. Unique within its world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HookId {
    component: ComponentId,
    kind: HookKind,
    serial: u32,
}

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

/// Hooks, watches, and the deferred command buffer they record into.
#[derive(Default)]
pub(crate) struct Observers {
    /// Indexed by component id; shorter than the registry when later types have no hooks.
    hooks: Vec<ComponentHooks>,
    /// Indexed by watch id; `None` once removed (ids are never reused).
    watches: Vec<Option<Watch>>,
    /// The next hook serial.
    next_hook: u32,
    /// Hooks and watches registered and not removed.
    live: usize,
    /// Indexed by component id: the watches that mention the component.
    watches_of: Vec<SmallVec<[u32; 2]>>,
    /// Whether any hook or watch exists: the fast path of every operation checks only this.
    pub(crate) any: bool,
    /// Commands recorded by hooks, applied when the firing operation returns.
    pub(crate) deferred: CommandBuffer,
    /// An empty buffer swapped in while `deferred` is applied, keeping both capacities.
    spare: CommandBuffer,
    flushing: bool,
}

impl std::fmt::Debug for Observers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observers").field("live", &self.live).finish()
    }
}

/// A watch transition found before an operation.
#[derive(Clone, Copy)]
pub(crate) struct Transition {
    watch: u32,
    enter: bool,
}

/// Transitions of one operation; inline for the common few.
pub(crate) type Transitions = SmallVec<[Transition; 4]>;

impl Observers {
    /// The `kind` hooks of component `id`, in registration order.
    #[inline]
    pub(crate) fn hooks(&self, id: ComponentId, kind: HookKind) -> &[(u32, Hook)] {
        self.hooks.get(id.index()).map_or(&[], |hooks| hooks.get(kind))
    }

    #[inline]
    pub(crate) fn has_hook(&self, id: ComponentId, kind: HookKind) -> bool {
        !self.hooks(id, kind).is_empty()
    }

    /// One more hook or watch.
    fn added(&mut self) {
        self.live += 1;
        self.any = true;
    }

    /// One fewer; the fast paths come back when none is left.
    fn removed(&mut self) {
        self.live -= 1;
        self.any = self.live > 0;
    }
}

impl World {
    /// Registers `hook` as a `kind` hook of `T`, after the ones it already has.
    fn add_hook<T: Component>(&mut self, kind: HookKind, hook: Hook) -> HookId {
        let component = self.components.register::<T>();
        let observers = &mut self.observers;
        if observers.hooks.len() <= component.index() {
            observers.hooks.resize_with(component.index() + 1, ComponentHooks::default);
        }
        let serial = observers.next_hook;
        observers.next_hook = serial.checked_add(1).expect("more than 2^32 hooks registered in one world");
        observers.hooks[component.index()].get_mut(kind).push((serial, hook));
        observers.added();
        HookId { component, kind, serial }
    }

    /// Registers a hook run right after a `T` is added to an entity (insert of a new value,
    /// spawn, bundle insert, command buffer). The hook can read the new value. A component may
    /// have any number of hooks of each kind; they run in registration order (EnTT's
    /// `on_construct` signal, bevy's component hooks and observers). Returns the id that
    /// [`World::remove_hook`] takes.
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

    /// Registers a hook run right before an entity's `T` is overwritten by an insert (the
    /// replace signal). The hook can read the old value. Any number per component, run in
    /// registration order; see [`World::on_add`].
    pub fn on_replace<T: Component>(
        &mut self,
        hook: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static,
    ) -> HookId {
        self.add_hook::<T>(HookKind::Replace, Arc::new(hook))
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
    /// already). The other hooks keep their order. O(hooks of that component and kind).
    pub fn remove_hook(&mut self, id: HookId) -> bool {
        let Some(hooks) = self.observers.hooks.get_mut(id.component.index()) else { return false };
        let list = hooks.get_mut(id.kind);
        let Some(at) = list.iter().position(|&(serial, _)| serial == id.serial) else { return false };
        list.remove(at);
        self.observers.removed();
        true
    }

    /// Watches the set of entities that have every `required` component and none of the
    /// `excluded` ones: `on_enter` runs right after an operation makes an entity match, `on_leave`
    /// right before an operation makes it stop matching (despawn included), while its components
    /// are still readable.
    ///
    /// Entities that already match when the watch is added do not fire `on_enter`.
    /// Cost: operations on the watched component types evaluate the watch (O(r + x) lookups).
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
        let index = u32::try_from(self.observers.watches.len()).expect("more than 2^32 watches in one world");
        for &id in required.iter().chain(excluded) {
            let watches_of = &mut self.observers.watches_of;
            if watches_of.len() <= id.index() {
                watches_of.resize_with(id.index() + 1, SmallVec::new);
            }
            if !watches_of[id.index()].contains(&index) {
                watches_of[id.index()].push(index);
            }
        }
        self.observers.watches.push(Some(Watch {
            required: required.into(),
            excluded: excluded.into(),
            on_enter,
            on_leave,
        }));
        self.observers.added();
        WatchId(index)
    }

    /// Removes the watch `id` names: its callbacks no longer run. Returns whether it was
    /// registered (false if removed already). O(r + x) in its components.
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
        let Some(watch) = self.observers.watches.get_mut(id.0 as usize).and_then(Option::take) else {
            return false;
        };
        for component in watch.required.iter().chain(&watch.excluded) {
            if let Some(list) = self.observers.watches_of.get_mut(component.index()) {
                list.retain(|w| *w != id.0);
            }
        }
        self.observers.removed();
        true
    }

    /// Whether `entity` has component `id`, or, if `id` is in `changed`, whether it will have it
    /// after the operation (`present`).
    #[inline]
    fn has_after(&self, entity: Entity, id: ComponentId, changed: &[ComponentId], present: bool) -> bool {
        if changed.contains(&id) { present } else { self.components.pool(id).contains(entity) }
    }

    /// The watch transitions that adding (`present`) or removing the components `changed` from
    /// `entity` causes. Call before the operation.
    pub(crate) fn watch_transitions(
        &self,
        entity: Entity,
        changed: &[ComponentId],
        present: bool,
    ) -> Transitions {
        let mut out = Transitions::new();
        let observers = &self.observers;
        if observers.watches.is_empty() {
            return out;
        }
        let mut seen = SmallVec::<[u32; 8]>::new();
        for &id in changed {
            for &w in observers.watches_of.get(id.index()).map_or(&[][..], |v| v) {
                if seen.contains(&w) {
                    continue;
                }
                seen.push(w);
                let Some(watch) = &observers.watches[w as usize] else { continue };
                let matches = |changed: &[ComponentId]| {
                    watch.required.iter().all(|&r| self.has_after(entity, r, changed, present))
                        && !watch.excluded.iter().any(|&x| self.has_after(entity, x, changed, present))
                };
                let before = matches(&[]);
                let after = matches(changed);
                if before != after {
                    out.push(Transition { watch: w, enter: after });
                }
            }
        }
        out
    }

    /// Runs `hook` for `entity` with the world read-only and the deferred buffer.
    fn call(&mut self, entity: Entity, hook: impl FnOnce(&World, &mut HookContext<'_>)) {
        let mut commands = std::mem::take(&mut self.observers.deferred);
        let world: &World = self;
        hook(world, &mut HookContext { entity, world, commands: &mut commands });
        self.observers.deferred = commands;
    }

    /// Runs the `kind` hook of component `id` on `entity`, if there is one.
    #[inline]
    pub(crate) fn fire_hook(&mut self, entity: Entity, id: ComponentId, kind: HookKind) {
        if self.observers.has_hook(id, kind) {
            self.call(entity, |world, ctx| {
                for (_, hook) in world.observers.hooks(id, kind) {
                    hook(ctx);
                }
            });
        }
    }

    /// Runs the enter (`enter == true`) or leave callbacks of `transitions` for `entity`.
    pub(crate) fn fire_watches(&mut self, entity: Entity, transitions: &Transitions, enter: bool) {
        for t in transitions.iter().filter(|t| t.enter == enter) {
            self.call(entity, |world, ctx| {
                let Some(watch) = &world.observers.watches[t.watch as usize] else { return };
                let callback = if enter { &watch.on_enter } else { &watch.on_leave };
                if let Some(callback) = callback {
                    callback(ctx);
                }
            });
        }
    }

    /// Applies the commands hooks recorded, repeatedly, until none are left. Nested calls (from
    /// the operations being applied) return at once; the outer loop picks their commands up.
    ///
    /// # Panics
    /// If hooks keep recording commands for 10,000 rounds (a hook feeding itself).
    pub(crate) fn flush_deferred(&mut self) {
        if self.observers.flushing || self.observers.deferred.is_empty() {
            return;
        }
        /// Clears the flag when flushing ends, also by panic.
        struct Flushing<'a>(&'a mut World);
        impl Drop for Flushing<'_> {
            fn drop(&mut self) {
                self.0.observers.flushing = false;
            }
        }
        self.observers.flushing = true;
        let guard = Flushing(self);
        let mut rounds = 0;
        while !guard.0.observers.deferred.is_empty() {
            rounds += 1;
            assert!(rounds <= 10_000, "hooks kept recording commands for 10,000 rounds; a hook feeds itself");
            let spare = std::mem::take(&mut guard.0.observers.spare);
            let mut batch = std::mem::replace(&mut guard.0.observers.deferred, spare);
            batch.apply(guard.0);
            guard.0.observers.spare = batch;
        }
    }
}
