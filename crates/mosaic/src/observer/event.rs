//! The [`Event`] trait and the lifecycle events the world triggers itself.

use std::any::Any;

use crate::entity::Entity;
use crate::world::{Lifecycle, World};

/// A type that can be triggered for observers: `#[derive(Event)]`, or an impl by hand to choose
/// the traversal. Any `Send + Sync + 'static` type qualifies.
///
/// - [`AUTO_PROPAGATE`](Self::AUTO_PROPAGATE): whether an event triggered at an entity goes on to
///   the next entity of [`traverse`](Self::traverse) after each level unless an observer stops it
///   ([`On::propagate`](super::On::propagate)(false)); `#[event(propagate)]` sets it. Without
///   it, an observer may still ask for the next level with `propagate(true)`.
/// - [`traverse`](Self::traverse): the next entity up, the hierarchy's parent by default
///   (bevy's `Traversal`, `&ChildOf` by default).
///
/// # Examples
/// ```
/// use mosaic::{Event, On, ResMut, World};
///
/// #[derive(Event)]
/// #[event(propagate)]
/// struct Clicked;
///
/// let mut world = World::new();
/// world.insert_resource(0u32);
/// let window = world.spawn_empty();
/// let button = world.spawn_empty();
/// world.set_parent(button, window).unwrap();
/// world.observe(window, |_: On<Clicked>, mut heard: ResMut<u32>| *heard += 1);
/// world.trigger_targets(Clicked, button); // goes on from the button to the window
/// assert_eq!(*world.resource::<u32>(), 1);
/// ```
pub trait Event: Send + Sync + 'static {
    /// Whether a targeted trigger propagates along [`Event::traverse`] by default (an observer
    /// may stop it). `false` unless overridden.
    const AUTO_PROPAGATE: bool = false;

    /// The entity a propagating event goes to after `entity`, or `None` to stop: by default
    /// `entity`'s parent in the hierarchy. A traversal that loops stops after 65,536 levels.
    fn traverse(world: &World, entity: Entity) -> Option<Entity> {
        world.parent(entity)
    }

    /// Which lifecycle kind this is (the world's own events); `u8::MAX` for user events.
    #[doc(hidden)]
    const LIFECYCLE: u8 = u8::MAX;
}

/// Defines one lifecycle event type.
macro_rules! lifecycle_event {
    ($(#[$doc:meta])* $name:ident, $kind:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name {
            /// The entity whose component changed.
            pub entity: Entity,
        }

        impl Event for $name {
            const LIFECYCLE: u8 = Lifecycle::$kind as u8;
        }
    };
}

lifecycle_event!(
    /// Triggered right after a component is added to an entity that had none (spawn, insert,
    /// bundle insert, commands): `On<Add, Health>`. bevy's `Add` (`OnAdd` before 0.17).
    Add,
    Add
);
lifecycle_event!(
    /// Triggered right after every insert of a component, an add or a replace (after the `Add`
    /// observers): `On<Insert, Health>`. bevy's `Insert`.
    Insert,
    Insert
);
lifecycle_event!(
    /// Triggered right before a component's value is overwritten by an insert, with the old
    /// value readable: `On<Replace, Health>`. Unlike bevy's `Replace` (now `Discard`), not on
    /// removal: see [`Discard`] for every way a value goes, [`Remove`] for removals.
    Replace,
    Replace
);
lifecycle_event!(
    /// Triggered right before a component's value goes, whichever way, with the value readable:
    /// overwritten by an insert (after the `Replace` observers), removed or despawned (before the
    /// `Remove` observers): `On<Discard, Health>`. bevy's `Discard` (`Replace` before 0.19), and
    /// the observer twin of [`World::on_discard`](crate::World::on_discard).
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, Discard, On, Query, ResMut, World};
    ///
    /// #[derive(Component)]
    /// struct Ticket(u32);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Vec::<u32>::new());
    /// world.add_observer(|on: On<Discard, Ticket>, tickets: Query<&Ticket>, mut gone: ResMut<Vec<u32>>| {
    ///     gone.push(tickets.get(on.entity()).unwrap().0);
    /// });
    /// let e = world.spawn(Ticket(1));
    /// world.insert(e, Ticket(2)); // 1 is discarded
    /// world.remove::<Ticket>(e); // 2 is discarded
    /// let f = world.spawn(Ticket(3));
    /// world.despawn(f); // 3 is discarded
    /// assert_eq!(*world.resource::<Vec<u32>>(), [1, 2, 3]);
    /// ```
    Discard,
    Discard
);
lifecycle_event!(
    /// Triggered right before a component leaves an entity (remove, or despawn), with the value
    /// readable: `On<Remove, Health>`. bevy's `Remove`.
    Remove,
    Remove
);
lifecycle_event!(
    /// Triggered right before an entity is despawned, once per watched component it has
    /// (`On<Despawn, Health>`, after that component's `Discard` and `Remove` observers; bevy runs
    /// `Despawn` first), or, for an observer of
    /// one entity with no component (`world.observe(e, |_: On<Despawn>| ..)`), once for that
    /// entity. bevy's `Despawn`.
    Despawn,
    Despawn
);

/// Calls `f` with the lifecycle event of `kind` at `entity`, as `&mut dyn Any`.
pub(crate) fn lifecycle_event(kind: Lifecycle, entity: Entity, f: impl FnOnce(&mut dyn Any)) {
    match kind {
        Lifecycle::Add => f(&mut Add { entity }),
        Lifecycle::Insert => f(&mut Insert { entity }),
        Lifecycle::Replace => f(&mut Replace { entity }),
        Lifecycle::Discard => f(&mut Discard { entity }),
        Lifecycle::Remove => f(&mut Remove { entity }),
        Lifecycle::Despawn => f(&mut Despawn { entity }),
    }
}

/// The [`Lifecycle`] kind of event `E`, if it is one of the world's own.
pub(crate) fn lifecycle_of<E: Event>() -> Option<Lifecycle> {
    Lifecycle::ALL.into_iter().find(|&kind| kind as u8 == E::LIFECYCLE)
}
