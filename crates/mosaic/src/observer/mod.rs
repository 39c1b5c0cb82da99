//! Observers: code that runs when an event is triggered, globally or at an entity, or when a
//! component's row changes (bevy's `Observer` and `On`, flecs' observers).
//!
//! - An [`Event`] is any type the user triggers with [`World::trigger`](crate::World::trigger)
//!   (every observer of the type runs) or [`World::trigger_targets`](crate::World::trigger_targets)
//!   (at each target: the observers of every target, then those of that entity), or records with
//!   [`CommandBuffer::trigger`](crate::CommandBuffer::trigger).
//! - An event at an entity may **propagate**: after the observers at one entity ran, it goes on
//!   to the next entity of [`Event::traverse`] (the hierarchy's parent by default) while an
//!   observer asked for it with [`On::propagate`], or unless one stopped it when the type
//!   propagates by default (`#[event(propagate)]`, [`Event::AUTO_PROPAGATE`]).
//! - **Lifecycle events** ([`Add`], [`Insert`], [`Replace`], [`Discard`], [`Remove`], [`Despawn`]) are
//!   triggered by the world when a component's rows change: `On<Add, Health>` runs after a
//!   `Health` is added to an entity, `On<Remove, (Health, Armor)>` before either leaves one.
//! - An observer is a function whose first parameter is [`On<E, B>`](On) and whose others are
//!   system parameters (`Query`, `Res`, `ResMut`, `Commands`, ...). It is an entity carrying an
//!   [`Observer`] component: despawning that entity removes the observer. An observer of one
//!   entity ([`World::observe`](crate::World::observe)) is despawned with that entity, one of
//!   several ([`World::observe_many`](crate::World::observe_many)) with the last of them.
//!
//! # Order
//! - The world runs an operation's observers in the order the operation reaches them: per
//!   component in the operation's component order; `Replace`, `Discard`, `Remove` and `Despawn`
//!   before the rows change (the old value is readable: an overwrite fires `Replace` then
//!   `Discard`, a removal `Discard` then `Remove`, then `Despawn` if the entity goes; bevy fires
//!   `Despawn` first), `Add` then `Insert` after. Hooks of a component
//!   run before its observers (bevy's order), watches' "leave" callbacks before both and their
//!   "enter" callbacks after.
//! - For one event at one entity: the observers of every target, then those of that entity,
//!   each list in registration order (bevy runs them in an unspecified order).
//! - Observers see the world shared (system parameters only; no `&mut World`): what they want
//!   changed goes through `Commands`, applied once the operation that fired them is complete,
//!   in the order the observers ran, before the commands those commands cause (breadth first,
//!   as hooks' commands). A trigger's own commands are applied before `trigger` returns.
//! - All of this is sequential on the calling thread, so the order is the same on every thread
//!   count.
//!
//! # Examples
//! ```
//! use mosaic::{Commands, Component, Event, On, Query, World};
//!
//! #[derive(Component)]
//! struct Health(i32);
//! #[derive(Event)]
//! struct Damage(i32);
//!
//! let mut world = World::new();
//! world.add_observer(|hit: On<Damage>, mut health: Query<&mut Health>, mut commands: Commands| {
//!     let target = hit.entity();
//!     let health = health.get_mut(target).unwrap();
//!     health.0 -= hit.0;
//!     if health.0 <= 0 {
//!         commands.despawn(target);
//!     }
//! });
//! let e = world.spawn(Health(10));
//! world.trigger_targets(Damage(4), e);
//! assert_eq!(world.get::<Health>(e).unwrap().0, 6);
//! world.trigger_targets(Damage(6), e);
//! assert!(!world.is_alive(e));
//! ```

mod event;
mod function;
mod trigger;
mod world;

pub(crate) use event::lifecycle_event;
pub use event::{Add, Despawn, Discard, Event, Insert, Remove, Replace};
pub use function::{Conditional, ConditionalMarker, ObserverFunction};
pub use trigger::On;
pub use world::{Observed, Observer, TriggerTargets};
