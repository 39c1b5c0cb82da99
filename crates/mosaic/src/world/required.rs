//! Required components (bevy 0.15's `#[require]`): a component declares the components an
//! entity holding it must also have, each with a way to make a value; spawn and insert add the
//! ones missing, recursively.
//!
//! A listener on the pools of components that require others (a row subscriber for adds): once
//! a component is added, each of its required components the entity lacks is inserted before the
//! component's hooks and observers run (so they see them), with the requirements of those
//! (recursively). A requirement the entity already has is left as it is (the bundle's value wins,
//! as in bevy). When several paths require one component, bevy 0.17's depth-first rule picks the
//! constructor: a component's own requirement wins over inherited ones, then the one reached
//! through its earlier requirement (or the earlier component of the bundle), however deep.
//! Only an add brings requirements: an insert that replaces a component's value does not add
//! those the entity lost since (bevy does: its bundle insert adds every missing requirement of
//! the bundle, new or replaced; here a replace is not a lifecycle event of the requirer's
//! listener, which keeps replaces of requiring types off the per-row path). Declared with the
//! derive (`#[require(Velocity, Health = Health(100))]`) or at run time
//! ([`World::register_required_components`]); a cycle is an error at registration.

use std::any::TypeId;
use std::sync::Arc;

use super::World;
use super::row_events::{Needs, RowChange, RowSubscriber, WorldUse};
use crate::component::{Bundle, Component, ComponentId};
use crate::entity::Entity;
use crate::storage::RowEvents;

/// Inserts one required component's value into an entity that lacks it.
type Insert = Arc<dyn Fn(&mut World, Entity) + Send + Sync>;

/// One requirement being declared: the required type and how to make its value.
struct Declared {
    type_id: TypeId,
    name: &'static str,
    register: fn(&mut crate::component::Components) -> ComponentId,
    insert: Insert,
}

/// The components a component requires, as its `#[require(...)]` declares them: filled by
/// [`Component::register_required`], which the derive writes. User code rarely names it.
#[derive(Default)]
pub struct RequiredComponents {
    declared: Vec<Declared>,
}

impl RequiredComponents {
    /// Declares that the component requires `R`, made by `make` when an entity lacks one.
    /// A second declaration of the same `R` is ignored (the first wins).
    pub fn require<R: Component>(&mut self, make: impl Fn() -> R + Send + Sync + 'static) {
        if self.declared.iter().any(|d| d.type_id == TypeId::of::<R>()) {
            return;
        }
        self.declared.push(Declared {
            type_id: TypeId::of::<R>(),
            name: std::any::type_name::<R>(),
            register: |components| components.register::<R>(),
            insert: Arc::new(move |world: &mut World, entity: Entity| {
                if !world.contains::<R>(entity) {
                    world.insert(entity, make());
                }
            }),
        });
    }

    /// Whether nothing is required.
    pub fn is_empty(&self) -> bool {
        self.declared.is_empty()
    }
}

/// Why a requirement could not be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequiredComponentsError {
    /// The requirement would close a cycle: `required` already requires `component`, directly
    /// or through others.
    #[error(
        "`{component}` cannot require `{required}`: `{required}` already requires `{component}` (through \
         {path}); required components may not form a cycle"
    )]
    Cycle {
        /// The component given the requirement.
        component: &'static str,
        /// The component it was to require.
        required: &'static str,
        /// The existing chain from `required` back to `component`, names joined by ` -> `.
        path: String,
    },
    /// `component` already requires `required` (from its derive or an earlier registration).
    #[error("`{component}` already requires `{required}`; a requirement is registered once")]
    Duplicate {
        /// The component.
        component: &'static str,
        /// The component it already requires.
        required: &'static str,
    },
}

/// One requirement of a component, resolved in a world.
#[derive(Clone)]
struct Requirement {
    id: ComponentId,
    name: &'static str,
    insert: Insert,
}

/// Every component's requirements in one world (a world part: registrations, not state).
#[derive(Default)]
pub(crate) struct Required {
    /// By component id: its direct requirements, in declaration order.
    of: Vec<Vec<Requirement>>,
    /// By component id: whether its derive's declarations were read.
    read: Vec<bool>,
    /// By component id: every requirement, direct and inherited, in precedence order (see
    /// [`Required::all`]); `None` until asked for, and all emptied when a requirement is added.
    all: Vec<Option<Arc<[Requirement]>>>,
    /// Whether requirements are being inserted now: the inserted components' own requirements
    /// are already in the closure being applied, so their adds do not start another.
    applying: bool,
}

impl std::fmt::Debug for Required {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Required")
            .field("components", &self.of.iter().filter(|r| !r.is_empty()).count())
            .finish()
    }
}

impl Required {
    /// The direct requirements of `id`.
    fn of(&self, id: ComponentId) -> &[Requirement] {
        self.of.get(id.index()).map_or(&[], Vec::as_slice)
    }

    /// Every requirement of `id`, direct and inherited, each once, in precedence order (bevy
    /// 0.17's depth-first rule): its direct requirements in declaration order, then, for each of
    /// them in that order, that one's own list. The first entry for a component is the one whose
    /// constructor makes it: a component's own requirement wins over one it inherits, and of two
    /// inherited ones, the one reached through the earlier direct requirement, however deep.
    /// Cached; O(requirements reachable from `id`) the first time.
    fn all(&mut self, id: ComponentId) -> Arc<[Requirement]> {
        if let Some(Some(list)) = self.all.get(id.index()) {
            return list.clone();
        }
        let direct = self.of(id).to_vec();
        let mut list = direct.clone();
        for requirement in &direct {
            for inherited in self.all(requirement.id).iter() {
                if !list.iter().any(|r| r.id == inherited.id) {
                    list.push(inherited.clone());
                }
            }
        }
        let list: Arc<[Requirement]> = list.into();
        if self.all.len() <= id.index() {
            self.all.resize(id.index() + 1, None);
        }
        self.all[id.index()] = Some(list.clone());
        list
    }

    fn of_mut(&mut self, id: ComponentId) -> &mut Vec<Requirement> {
        if self.of.len() <= id.index() {
            self.of.resize_with(id.index() + 1, Vec::new);
        }
        &mut self.of[id.index()]
    }

    /// The chain of requirements from `from` to `to`, if `to` is reachable (depth first).
    fn path(&self, from: ComponentId, to: ComponentId, names: &mut Vec<&'static str>) -> bool {
        if from == to {
            return true;
        }
        for requirement in self.of(from) {
            names.push(requirement.name);
            if self.path(requirement.id, to, names) {
                return true;
            }
            names.pop();
        }
        false
    }
}

impl RowSubscriber for Required {
    const NEEDS: Needs =
        Needs { name: "required components", old_value: false, world: WorldUse::Exclusive, batch: false };

    fn events(world: &World, id: ComponentId) -> RowEvents {
        if world.required.of(id).is_empty() { RowEvents::NONE } else { RowEvents::ADD }
    }

    fn before(_: &mut World, _: &RowChange<'_>) {}

    /// Inserts the missing requirements of the added components, in bevy's (0.17) depth-first
    /// order: for each added component in the change's order, its requirements in precedence
    /// order ([`Required::all`]); the first entry for a component makes it. So a component's
    /// own requirement wins over one it inherits, and between two added components the earlier
    /// one's requirements win, however deep.
    fn after(world: &mut World, change: &RowChange<'_>) {
        if world.required.applying || change.added.iter().all(|&id| world.required.of(id).is_empty()) {
            return;
        }
        // The closure in precedence order, each component once.
        let mut order: Vec<Requirement> = Vec::new();
        for &id in change.added {
            for requirement in world.required.all(id).iter() {
                if !change.added.contains(&requirement.id) && !order.iter().any(|r| r.id == requirement.id) {
                    order.push(requirement.clone());
                }
            }
        }
        /// Clears the flag when the inserts end, also by panic.
        struct Applying<'a>(&'a mut World);
        impl Drop for Applying<'_> {
            fn drop(&mut self) {
                self.0.required.applying = false;
            }
        }
        world.required.applying = true;
        let guard = Applying(world);
        for requirement in order {
            if !guard.0.is_alive(change.entity) {
                break;
            }
            (requirement.insert)(guard.0, change.entity);
        }
    }
}

impl World {
    /// Reads the `#[require]` declarations of the components registered since the last call
    /// and flags their pools. Called right after the row primitives register types. O(1) when
    /// nothing new declares requirements.
    ///
    /// # Panics
    /// If the declarations form a cycle (`A` requires `B` requires `A`), naming it.
    #[inline]
    pub(crate) fn settle_registrations(&mut self) {
        if self.components.has_pending_required() {
            self.read_declared_requirements();
        }
    }

    #[inline(never)]
    #[track_caller]
    fn read_declared_requirements(&mut self) {
        while let Some((id, declare)) = self.components.take_pending_required() {
            if self.required.read.get(id.index()).copied().unwrap_or(false) {
                continue;
            }
            if self.required.read.len() <= id.index() {
                self.required.read.resize(id.index() + 1, false);
            }
            self.required.read[id.index()] = true;
            let mut declared = RequiredComponents::default();
            declare(&mut declared);
            for d in declared.declared {
                let required = (d.register)(&mut self.components);
                if let Err(error) = self.add_requirement(id, required, d.name, d.insert) {
                    match error {
                        RequiredComponentsError::Duplicate { .. } => {}
                        error => panic!("{error}"),
                    }
                }
            }
        }
    }

    /// Records that `component` requires `required` (named `name`), made by `insert`.
    fn add_requirement(
        &mut self,
        component: ComponentId,
        required: ComponentId,
        name: &'static str,
        insert: Insert,
    ) -> Result<(), RequiredComponentsError> {
        let component_name = self.components.pool(component).type_name();
        if self.required.of(component).iter().any(|r| r.id == required) {
            return Err(RequiredComponentsError::Duplicate { component: component_name, required: name });
        }
        let mut names = vec![name];
        if self.required.path(required, component, &mut names) {
            return Err(RequiredComponentsError::Cycle {
                component: component_name,
                required: name,
                path: names.join(" -> "),
            });
        }
        self.required.of_mut(component).push(Requirement { id: required, name, insert });
        // Every component that reaches `component` now reaches more: recompute on demand.
        self.required.all.clear();
        self.refresh_row_events(component);
        Ok(())
    }

    /// Makes `T` require `R`: from now on, adding a `T` to an entity without an `R` adds
    /// `R::default()` too (recursively, with `R`'s own requirements). Entities that have a `T`
    /// already are not changed. bevy's `World::register_required_components`.
    ///
    /// O(requirements reachable from `R`) to check for a cycle.
    ///
    /// # Errors
    /// [`RequiredComponentsError::Cycle`] if `R` already requires `T`, directly or not (`T`
    /// requiring itself included); [`RequiredComponentsError::Duplicate`] if `T` requires `R`
    /// already. Nothing is registered then.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component, Default)]
    /// struct Player;
    /// #[derive(Component, Default, Debug, PartialEq)]
    /// struct Score(u32);
    ///
    /// let mut world = World::new();
    /// world.register_required_components::<Player, Score>().unwrap();
    /// let p = world.spawn(Player);
    /// assert_eq!(world.get::<Score>(p), Ok(&Score(0)));
    /// assert!(world.register_required_components::<Score, Player>().is_err(), "a cycle");
    /// ```
    pub fn register_required_components<T: Component, R: Component + Default>(
        &mut self,
    ) -> Result<(), RequiredComponentsError> {
        self.register_required_components_with::<T, R>(R::default)
    }

    /// Makes `T` require `R`, made by `make` when an entity lacks one; see
    /// [`World::register_required_components`]. bevy's `register_required_components_with`.
    ///
    /// # Errors
    /// As [`World::register_required_components`].
    pub fn register_required_components_with<T: Component, R: Component>(
        &mut self,
        make: impl Fn() -> R + Send + Sync + 'static,
    ) -> Result<(), RequiredComponentsError> {
        let component = self.components.register::<T>();
        let required = self.components.register::<R>();
        self.settle_registrations();
        let mut declared = RequiredComponents::default();
        declared.require::<R>(make);
        let insert = declared.declared.pop().expect("declared above").insert;
        self.add_requirement(component, required, std::any::type_name::<R>(), insert)
    }

    /// The components `T` requires directly, in declaration order (ids in this world).
    /// O(requirements).
    pub fn required_components<T: Component>(&mut self) -> Vec<ComponentId> {
        let id = self.components.register::<T>();
        self.settle_registrations();
        self.required.of(id).iter().map(|r| r.id).collect()
    }

    /// Removes (and drops) whichever components of bundle `B` `entity` has, and with them every
    /// component they require, directly or not, whether or not another component still requires
    /// it; returns how many it removed. bevy's `EntityWorldMut::remove_with_requires`. Hooks,
    /// observers and watches see each removal; commands they record are applied once all are out.
    ///
    /// O(components of `B` + their requirements).
    ///
    /// # Panics
    /// If `entity` is not alive, or `B` holds a type twice.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// #[require(Velocity)]
    /// struct Ship;
    /// #[derive(Component, Default)]
    /// struct Velocity(f32);
    /// #[derive(Component)]
    /// struct Name(&'static str);
    ///
    /// let mut world = World::new();
    /// let e = world.spawn((Ship, Name("Argo")));
    /// assert_eq!(world.remove_with_requires::<Ship>(e), 2);
    /// assert!(!world.contains::<Velocity>(e) && world.contains::<Name>(e));
    /// ```
    #[track_caller]
    pub fn remove_with_requires<B: Bundle>(&mut self, entity: Entity) -> usize {
        if let Err(error) = self.check_alive(entity) {
            panic!("cannot remove `{}`: {error}", std::any::type_name::<B>());
        }
        super::spawn::check_bundle::<B>(self);
        let mut ids = Vec::new();
        B::register_ids(&mut self.components, &mut |id| ids.push(id));
        self.settle_registrations();
        for at in 0..ids.len() {
            for requirement in self.required.all(ids[at]).iter() {
                if !ids.contains(&requirement.id) {
                    ids.push(requirement.id);
                }
            }
        }
        self.holding_deferred(|world| ids.iter().filter(|&&id| world.remove_row_by_id(id, entity)).count())
    }

    /// Removes (and drops) every component of `entity` except those of bundle `B` and the
    /// components they require, directly or not; returns how many it removed. `retain::<()>()`
    /// removes everything (the entity stays, empty). bevy's `EntityWorldMut::retain`. Hooks,
    /// observers and watches see each removal, in the entity's component order; commands they
    /// record are applied once all are out.
    ///
    /// O(components of the entity + requirements of `B`).
    ///
    /// # Panics
    /// If `entity` is not alive, or `B` holds a type twice.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// #[require(Velocity)]
    /// struct Ship;
    /// #[derive(Component, Default)]
    /// struct Velocity(f32);
    /// #[derive(Component)]
    /// struct Cargo(u32);
    ///
    /// let mut world = World::new();
    /// let e = world.spawn((Ship, Cargo(3)));
    /// assert_eq!(world.retain::<Ship>(e), 1);
    /// assert!(world.contains::<Ship>(e) && world.contains::<Velocity>(e));
    /// assert!(!world.contains::<Cargo>(e));
    /// ```
    #[track_caller]
    pub fn retain<B: Bundle>(&mut self, entity: Entity) -> usize {
        if let Err(error) = self.check_alive(entity) {
            panic!("cannot retain `{}`: {error}", std::any::type_name::<B>());
        }
        super::spawn::check_bundle::<B>(self);
        let mut kept = Vec::new();
        B::register_ids(&mut self.components, &mut |id| kept.push(id));
        self.settle_registrations();
        for at in 0..kept.len() {
            for requirement in self.required.all(kept[at]).iter() {
                if !kept.contains(&requirement.id) {
                    kept.push(requirement.id);
                }
            }
        }
        let gone: Vec<ComponentId> = self
            .component_ids(entity)
            .expect("checked alive above")
            .iter()
            .copied()
            .filter(|id| !kept.contains(id))
            .collect();
        self.holding_deferred(|world| gone.iter().filter(|&&id| world.remove_row_by_id(id, entity)).count())
    }
}

impl super::CommandBuffer {
    /// Records [`World::remove_with_requires`]: at apply, `B`'s components and the components
    /// they require are removed from `entity` (bevy's `EntityCommands::remove_with_requires`);
    /// nothing happens if `entity` is dead by then.
    ///
    /// # Panics
    /// At apply, if `B` holds a type twice.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{CommandBuffer, Component, World};
    ///
    /// #[derive(Component)]
    /// #[require(Velocity)]
    /// struct Ship;
    /// #[derive(Component, Default)]
    /// struct Velocity(f32);
    ///
    /// let mut world = World::new();
    /// let e = world.spawn(Ship);
    /// let mut commands = CommandBuffer::new();
    /// commands.remove_with_requires::<Ship>(e);
    /// commands.apply(&mut world);
    /// assert!(!world.contains::<Ship>(e) && !world.contains::<Velocity>(e));
    /// ```
    pub fn remove_with_requires<B: Bundle>(&mut self, entity: Entity) {
        self.queue(move |world: &mut World| {
            if world.is_alive(entity) {
                world.remove_with_requires::<B>(entity);
            }
        });
    }

    /// Records [`World::retain`]: at apply, every component of `entity` except `B`'s and those
    /// they require is removed (bevy's `EntityCommands::retain`); nothing happens if `entity` is
    /// dead by then.
    ///
    /// # Panics
    /// At apply, if `B` holds a type twice.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{CommandBuffer, Component, World};
    ///
    /// #[derive(Component)]
    /// struct Ship;
    /// #[derive(Component)]
    /// struct Cargo(u32);
    ///
    /// let mut world = World::new();
    /// let e = world.spawn((Ship, Cargo(3)));
    /// let mut commands = CommandBuffer::new();
    /// commands.retain::<Ship>(e);
    /// commands.apply(&mut world);
    /// assert!(world.contains::<Ship>(e) && !world.contains::<Cargo>(e));
    /// ```
    pub fn retain<B: Bundle>(&mut self, entity: Entity) {
        self.queue(move |world: &mut World| {
            if world.is_alive(entity) {
                world.retain::<B>(entity);
            }
        });
    }
}
