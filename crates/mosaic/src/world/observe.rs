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

/// The hooks of one component type.
#[derive(Clone, Default)]
pub(crate) struct ComponentHooks {
    pub(crate) on_add: Option<Hook>,
    pub(crate) on_replace: Option<Hook>,
    pub(crate) on_remove: Option<Hook>,
}

/// Which lifecycle event a hook is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HookKind {
    Add,
    Replace,
    Remove,
}

impl ComponentHooks {
    pub(crate) fn get(&self, kind: HookKind) -> Option<&Hook> {
        match kind {
            HookKind::Add => self.on_add.as_ref(),
            HookKind::Replace => self.on_replace.as_ref(),
            HookKind::Remove => self.on_remove.as_ref(),
        }
    }
}

/// Identifies a watch made by [`World::add_watch`].
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
    watches: Vec<Watch>,
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
        f.debug_struct("Observers").field("watches", &self.watches.len()).finish()
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
    #[inline]
    pub(crate) fn hook(&self, id: ComponentId, kind: HookKind) -> Option<&Hook> {
        self.hooks.get(id.index())?.get(kind)
    }

    #[inline]
    pub(crate) fn has_hook(&self, id: ComponentId, kind: HookKind) -> bool {
        self.hook(id, kind).is_some()
    }
}

impl World {
    fn hooks_of<T: Component>(&mut self) -> &mut ComponentHooks {
        let id = self.components.register::<T>();
        let hooks = &mut self.observers.hooks;
        if hooks.len() <= id.index() {
            hooks.resize_with(id.index() + 1, ComponentHooks::default);
        }
        self.observers.any = true;
        &mut hooks[id.index()]
    }

    /// Registers the hook run right after a `T` is added to an entity (insert of a new value,
    /// spawn, bundle insert, command buffer). The hook can read the new value.
    ///
    /// # Panics
    /// If `T` already has an add hook.
    #[track_caller]
    pub fn on_add<T: Component>(&mut self, hook: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static) {
        let slot = &mut self.hooks_of::<T>().on_add;
        assert!(slot.is_none(), "component `{}` already has an on_add hook", std::any::type_name::<T>());
        *slot = Some(Arc::new(hook));
    }

    /// Registers the hook run right before an entity's `T` is overwritten by an insert (the
    /// replace signal). The hook can read the old value.
    ///
    /// # Panics
    /// If `T` already has a replace hook.
    #[track_caller]
    pub fn on_replace<T: Component>(&mut self, hook: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static) {
        let slot = &mut self.hooks_of::<T>().on_replace;
        assert!(slot.is_none(), "component `{}` already has an on_replace hook", std::any::type_name::<T>());
        *slot = Some(Arc::new(hook));
    }

    /// Registers the hook run right before a `T` leaves an entity (remove, or despawn, where the
    /// entity still has all its components while its hooks run). The hook can read the value.
    ///
    /// # Panics
    /// If `T` already has a remove hook.
    #[track_caller]
    pub fn on_remove<T: Component>(&mut self, hook: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static) {
        let slot = &mut self.hooks_of::<T>().on_remove;
        assert!(slot.is_none(), "component `{}` already has an on_remove hook", std::any::type_name::<T>());
        *slot = Some(Arc::new(hook));
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
        let index = self.observers.watches.len() as u32;
        for &id in required.iter().chain(excluded) {
            let watches_of = &mut self.observers.watches_of;
            if watches_of.len() <= id.index() {
                watches_of.resize_with(id.index() + 1, SmallVec::new);
            }
            if !watches_of[id.index()].contains(&index) {
                watches_of[id.index()].push(index);
            }
        }
        self.observers.watches.push(Watch {
            required: required.into(),
            excluded: excluded.into(),
            on_enter,
            on_leave,
        });
        self.observers.any = true;
        WatchId(index)
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
                let watch = &observers.watches[w as usize];
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
                if let Some(hook) = world.observers.hook(id, kind) {
                    hook(ctx);
                }
            });
        }
    }

    /// Runs the enter (`enter == true`) or leave callbacks of `transitions` for `entity`.
    pub(crate) fn fire_watches(&mut self, entity: Entity, transitions: &Transitions, enter: bool) {
        for t in transitions.iter().filter(|t| t.enter == enter) {
            self.call(entity, |world, ctx| {
                let watch = &world.observers.watches[t.watch as usize];
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
