//! Adding observers and triggering events: the `World` and `CommandBuffer` side.

use std::any::TypeId;

use smallvec::SmallVec;

use super::event::lifecycle_of;
use super::function::ObserverSystem;
use super::{Event, ObserverFunction};
use crate::Component;
use crate::component::{Bundle, ComponentId};
use crate::entity::Entity;
use crate::schedule::{ScheduleError, SystemParam};
use crate::world::{CommandBuffer, ObserverKey, World};

/// The component that makes an entity an observer: what it observes, for tools. Despawning the
/// entity (or removing this component) removes the observer. Made only by
/// [`World::add_observer`] and [`World::observe`].
#[derive(Component, Debug)]
#[component(immutable)]
pub struct Observer {
    event: &'static str,
    components: SmallVec<[ComponentId; 2]>,
    entities: SmallVec<[Entity; 2]>,
}

impl Observer {
    /// The type name of the event observed.
    pub fn event_name(&self) -> &'static str {
        self.event
    }

    /// For a lifecycle observer, the components watched, in bundle order; empty otherwise.
    pub fn components(&self) -> &[ComponentId] {
        &self.components
    }

    /// The entities watched; empty for an observer of every entity.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// Drops `entity` from the entities watched (it was despawned; the registry forgot it).
    pub(crate) fn forget(&mut self, entity: Entity) {
        self.entities.retain(|&mut e| e != entity);
    }
}

/// Marks an entity that an observer of that one entity watches: the registry hears of its
/// despawn through this component's pool, and removes (despawns) those observers. Added by
/// [`World::observe`].
#[derive(Component, Debug, Default)]
#[component(immutable)]
pub struct Observed;

/// The entities a trigger is at: one [`Entity`], or a list (array, slice, `Vec`).
pub trait TriggerTargets {
    /// Calls `f` for each target, in order.
    fn for_each_target(&self, f: impl FnMut(Entity));
}

impl TriggerTargets for Entity {
    fn for_each_target(&self, mut f: impl FnMut(Entity)) {
        f(*self)
    }
}

impl TriggerTargets for [Entity] {
    fn for_each_target(&self, f: impl FnMut(Entity)) {
        self.iter().copied().for_each(f)
    }
}

impl<const N: usize> TriggerTargets for [Entity; N] {
    fn for_each_target(&self, f: impl FnMut(Entity)) {
        self.iter().copied().for_each(f)
    }
}

impl TriggerTargets for Vec<Entity> {
    fn for_each_target(&self, f: impl FnMut(Entity)) {
        self.iter().copied().for_each(f)
    }
}

impl<T: TriggerTargets + ?Sized> TriggerTargets for &T {
    fn for_each_target(&self, f: impl FnMut(Entity)) {
        (**self).for_each_target(f)
    }
}

impl World {
    /// Adds an observer of every entity: `observer` runs each time an `E` is triggered (globally
    /// or at any entity), or, for a lifecycle event, each time a component of `B` changes on any
    /// entity. Returns the observer's entity; despawn it to remove the observer. bevy's
    /// `World::add_observer`.
    ///
    /// Observers run in registration order; see the [module docs](crate::observer) for the
    /// order around a world operation. O(components of `B`).
    ///
    /// # Panics
    /// If two of the observer's parameters alias (e.g. `Query<&mut A>` and `Query<&A>`), with a
    /// message naming them; see [`World::try_add_observer`].
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Add, Component, On, ResMut, World};
    ///
    /// #[derive(Component)]
    /// struct Health(u32);
    /// #[derive(Default)]
    /// struct Spawned(u32);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Spawned::default());
    /// world.add_observer(|_: On<Add, Health>, mut spawned: ResMut<Spawned>| spawned.0 += 1);
    /// world.spawn(Health(3));
    /// world.spawn_batch((0..4).map(Health));
    /// assert_eq!(world.resource::<Spawned>().0, 5);
    /// ```
    #[track_caller]
    pub fn add_observer<E: Event, B: Bundle, M: 'static>(
        &mut self,
        observer: impl ObserverFunction<E, B, M>,
    ) -> Entity {
        self.try_add_observer(observer).unwrap_or_else(|error| panic!("cannot add observer: {error}"))
    }

    /// Adds an observer of every entity; the fallible form of [`World::add_observer`].
    ///
    /// # Errors
    /// [`ScheduleError::ConflictingParams`] naming the two parameters that alias.
    pub fn try_add_observer<E: Event, B: Bundle, M: 'static, F: ObserverFunction<E, B, M>>(
        &mut self,
        observer: F,
    ) -> Result<Entity, ScheduleError> {
        self.spawn_observer::<E, B, M, F>(observer, SmallVec::new(), None)
    }

    /// Adds an observer of one entity: `observer` runs when an `E` is triggered at `entity`
    /// (or reaches it by propagation), or, for a lifecycle event, when a component of `B` changes
    /// on `entity`; `On<Despawn>` with no component runs when `entity` is despawned. The
    /// observer is despawned with `entity`. Returns the observer's entity. bevy's
    /// `EntityWorldMut::observe`.
    ///
    /// # Panics
    /// If `entity` is not alive, or the observer's parameters alias.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Event, On, ResMut, World};
    ///
    /// #[derive(Event)]
    /// struct Ping;
    /// #[derive(Default)]
    /// struct Pongs(u32);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Pongs::default());
    /// let [a, b] = [(); 2].map(|()| world.spawn_empty());
    /// let observer = world.observe(a, |_: On<Ping>, mut pongs: ResMut<Pongs>| pongs.0 += 1);
    /// world.trigger_targets(Ping, [a, b, a]);
    /// assert_eq!(world.resource::<Pongs>().0, 2);
    /// world.despawn(a);
    /// assert!(!world.is_alive(observer), "an entity's observers go with it");
    /// ```
    #[track_caller]
    pub fn observe<E: Event, B: Bundle, M: 'static>(
        &mut self,
        entity: Entity,
        observer: impl ObserverFunction<E, B, M>,
    ) -> Entity {
        if let Err(error) = self.check_alive(entity) {
            panic!("cannot observe {entity}: {error}");
        }
        if !self.contains::<Observed>(entity) {
            self.insert(entity, Observed);
        }
        let watched = SmallVec::from_slice(&[entity]);
        self.spawn_observer(observer, watched, None)
            .unwrap_or_else(|error| panic!("cannot add observer: {error}"))
    }

    /// Adds one observer of several entities: `observer` runs when an `E` is triggered at any of
    /// `entities` (or reaches one by propagation), or, for a lifecycle event, when a component of
    /// `B` changes on one of them. An entity listed twice counts once. As each watched entity is
    /// despawned the observer forgets it, and it is despawned with the last. Returns the
    /// observer's entity. bevy's `Observer::with_entities`; [`World::observe`] for one entity.
    ///
    /// O(entities + components of `B`).
    ///
    /// # Panics
    /// If `entities` is empty (an observer of every entity is [`World::add_observer`]), if one
    /// of them is not alive, or if the observer's parameters alias.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Event, On, ResMut, World};
    ///
    /// #[derive(Event)]
    /// struct Ping;
    ///
    /// let mut world = World::new();
    /// world.insert_resource(0u32);
    /// let [a, b, c] = [(); 3].map(|()| world.spawn_empty());
    /// let observer = world.observe_many([a, b], |_: On<Ping>, mut pings: ResMut<u32>| *pings += 1);
    /// world.trigger_targets(Ping, [a, b, c]);
    /// assert_eq!(*world.resource::<u32>(), 2);
    /// world.despawn(a);
    /// assert!(world.is_alive(observer), "it still watches b");
    /// world.despawn(b);
    /// assert!(!world.is_alive(observer));
    /// ```
    #[track_caller]
    pub fn observe_many<E: Event, B: Bundle, M: 'static>(
        &mut self,
        entities: impl IntoIterator<Item = Entity>,
        observer: impl ObserverFunction<E, B, M>,
    ) -> Entity {
        let mut watched = SmallVec::<[Entity; 2]>::new();
        for entity in entities {
            if let Err(error) = self.check_alive(entity) {
                panic!("cannot observe {entity}: {error}");
            }
            if !watched.contains(&entity) {
                watched.push(entity);
            }
        }
        assert!(
            !watched.is_empty(),
            "`observe_many` was given no entity; use `add_observer` to observe every entity"
        );
        for &entity in &watched {
            if !self.contains::<Observed>(entity) {
                self.insert(entity, Observed);
            }
        }
        self.spawn_observer(observer, watched, None)
            .unwrap_or_else(|error| panic!("cannot add observer: {error}"))
    }

    /// Spawns the observer entity of `observer`, watching `watched`, and registers its runner.
    /// A lifecycle observer observes the components of `B`, or those of `ids` when given (the
    /// run-time form: `B` is then `()`).
    pub(crate) fn spawn_observer<E: Event, B: Bundle, M: 'static, F: ObserverFunction<E, B, M>>(
        &mut self,
        observer: F,
        watched: SmallVec<[Entity; 2]>,
        ids: Option<SmallVec<[ComponentId; 2]>>,
    ) -> Result<Entity, ScheduleError> {
        let mut access = crate::schedule::Access::default();
        if let Err(pair) = F::Param::add_access(&mut access) {
            return Err(ScheduleError::ConflictingParams {
                system: crate::schedule::short_name(std::any::type_name::<F>()).to_string(),
                first: crate::schedule::pretty_type_name(pair.0.param),
                second: crate::schedule::pretty_type_name(pair.1.param),
                component: pair.1.name,
            });
        }
        let key = match lifecycle_of::<E>() {
            Some(kind) => {
                let ids = ids.unwrap_or_else(|| {
                    let mut ids = SmallVec::new();
                    B::register_ids(self.components_mut(), &mut |id| ids.push(id));
                    ids
                });
                ObserverKey::Lifecycle(kind, ids)
            }
            None => ObserverKey::Custom(TypeId::of::<E>()),
        };
        self.register_component::<Observer>();
        self.register_component::<Observed>();
        let components = match &key {
            ObserverKey::Lifecycle(_, ids) => ids.clone(),
            ObserverKey::Custom(_) => SmallVec::new(),
        };
        let entity =
            self.spawn(Observer { event: std::any::type_name::<E>(), components, entities: watched.clone() });
        let runner = Box::new(ObserverSystem::<E, B, M, F>::new(observer, self));
        self.register_observer(entity, key, watched, runner);
        Ok(entity)
    }

    /// Triggers `event` globally: every observer of `E` that watches every entity runs, in
    /// registration order, with no target ([`On::target`](super::On::target) is `None`); then
    /// the commands they recorded are applied. bevy's `World::trigger`.
    ///
    /// O(observers of `E`); O(1) when `E` has none.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Event, On, ResMut, World};
    ///
    /// #[derive(Event)]
    /// struct Tick(u32);
    /// #[derive(Default)]
    /// struct Total(u32);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Total::default());
    /// world.add_observer(|tick: On<Tick>, mut total: ResMut<Total>| total.0 += tick.0);
    /// world.trigger(Tick(2));
    /// world.trigger(Tick(5));
    /// assert_eq!(world.resource::<Total>().0, 7);
    /// ```
    pub fn trigger<E: Event>(&mut self, mut event: E) {
        self.trigger_ref(&mut event);
    }

    /// Triggers `event` globally, as [`World::trigger`], lending it to the observers instead of
    /// giving it: what they change in it (through [`On::event_mut`](super::On::event_mut)) is
    /// there after the call. bevy's `World::trigger_ref`.
    ///
    /// O(observers of `E`); O(1) when `E` has none.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Event, On, World};
    ///
    /// #[derive(Event)]
    /// struct Poll(Vec<&'static str>);
    ///
    /// let mut world = World::new();
    /// world.add_observer(|mut poll: On<Poll>| poll.0.push("first"));
    /// world.add_observer(|mut poll: On<Poll>| poll.0.push("second"));
    /// let mut poll = Poll(Vec::new());
    /// world.trigger_ref(&mut poll);
    /// assert_eq!(poll.0, ["first", "second"]);
    /// ```
    pub fn trigger_ref<E: Event>(&mut self, event: &mut E) {
        self.trigger_erased(TypeId::of::<E>(), event, None, false, E::traverse);
    }

    /// Triggers `event` at each of `targets` in turn (one entity, or a list): at each, the
    /// observers of every entity, then those of that target, each in registration order; then,
    /// while an observer asks for it (or by default for an `#[event(propagate)]` type, until
    /// one stops it), again at the next entity of [`Event::traverse`] (the parent). The commands
    /// observers record are applied after each target. bevy's `World::trigger_targets`.
    ///
    /// A target that is not alive is still passed to the observers of every entity (they may
    /// check); propagation from it stops where the traversal finds no next entity.
    ///
    /// O(observers run + levels) per target.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Event, On, World};
    ///
    /// #[derive(Event)]
    /// struct Bubble(Vec<&'static str>);
    ///
    /// let mut world = World::new();
    /// let root = world.spawn_empty();
    /// let leaf = world.spawn_empty();
    /// world.set_parent(leaf, root).unwrap();
    /// world.observe(leaf, |mut e: On<Bubble>| {
    ///     e.0.push("leaf");
    ///     e.propagate(true);
    /// });
    /// world.observe(root, |e: On<Bubble>| assert_eq!(e.0, ["leaf"]));
    /// world.trigger_targets(Bubble(Vec::new()), leaf);
    /// ```
    pub fn trigger_targets<E: Event>(&mut self, mut event: E, targets: impl TriggerTargets) {
        self.trigger_targets_ref(&mut event, targets);
    }

    /// Triggers `event` at each of `targets`, as [`World::trigger_targets`], lending it to the
    /// observers instead of giving it: every target and level sees the changes made before it,
    /// and the caller sees them all after the call. bevy's `World::trigger_targets_ref`.
    ///
    /// O(observers run + levels) per target.
    pub fn trigger_targets_ref<E: Event>(&mut self, event: &mut E, targets: impl TriggerTargets) {
        targets.for_each_target(|target| {
            self.trigger_erased(TypeId::of::<E>(), event, Some(target), E::AUTO_PROPAGATE, E::traverse);
        });
    }

    /// Number of observers the world has. O(1).
    pub fn observer_count(&self) -> usize {
        self.observers().len()
    }
}

impl crate::EntityMut<'_> {
    /// Adds an observer of this entity: [`World::observe`] on it. Returns `self` for chaining;
    /// the observer's entity is not returned (use [`World::observe`] to keep it). bevy's
    /// `EntityWorldMut::observe`.
    ///
    /// # Panics
    /// If the observer's parameters alias.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Event, On, ResMut, World};
    ///
    /// #[derive(Event)]
    /// struct Poke;
    ///
    /// let mut world = World::new();
    /// world.insert_resource(0u32);
    /// let e = world.spawn_empty();
    /// world.entity_mut(e).observe(|_: On<Poke>, mut n: ResMut<u32>| *n += 1);
    /// world.trigger_targets(Poke, e);
    /// assert_eq!(*world.resource::<u32>(), 1);
    /// ```
    #[track_caller]
    pub fn observe<E: Event, B: Bundle, M: 'static>(
        &mut self,
        observer: impl ObserverFunction<E, B, M>,
    ) -> &mut Self {
        let (world, entity) = self.world_and_id();
        world.observe(entity, observer);
        self
    }
}

impl CommandBuffer {
    /// Records [`World::add_observer`], run when the buffer is applied (bevy's
    /// `Commands::add_observer`).
    ///
    /// # Panics
    /// When applied, if the observer's parameters alias.
    pub fn add_observer<E: Event, B: Bundle, M: 'static>(
        &mut self,
        observer: impl ObserverFunction<E, B, M>,
    ) {
        self.queue(move |world: &mut World| {
            world.add_observer(observer);
        });
    }

    /// Records [`World::observe`] of `entity`, run when the buffer is applied; skipped if
    /// `entity` is not alive by then.
    ///
    /// # Panics
    /// When applied, if the observer's parameters alias.
    pub fn observe<E: Event, B: Bundle, M: 'static>(
        &mut self,
        entity: Entity,
        observer: impl ObserverFunction<E, B, M>,
    ) {
        self.queue(move |world: &mut World| {
            if world.is_alive(entity) {
                world.observe(entity, observer);
            }
        });
    }

    /// Records [`World::trigger`] of `event`, run when the buffer is applied.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{CommandBuffer, Event, On, ResMut, World};
    ///
    /// #[derive(Event)]
    /// struct Alarm;
    /// #[derive(Default)]
    /// struct Rung(bool);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Rung::default());
    /// world.add_observer(|_: On<Alarm>, mut rung: ResMut<Rung>| rung.0 = true);
    /// let mut commands = CommandBuffer::new();
    /// commands.trigger(Alarm);
    /// assert!(!world.resource::<Rung>().0);
    /// commands.apply(&mut world);
    /// assert!(world.resource::<Rung>().0);
    /// ```
    pub fn trigger<E: Event>(&mut self, event: E) {
        self.queue(move |world: &mut World| world.trigger(event));
    }

    /// Records [`World::trigger_targets`] of `event` at `targets`, run when the buffer is
    /// applied.
    pub fn trigger_targets<E: Event>(
        &mut self,
        event: E,
        targets: impl TriggerTargets + Send + Sync + 'static,
    ) {
        self.queue(move |world: &mut World| world.trigger_targets(event, targets));
    }
}
