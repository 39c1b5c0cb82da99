//! [`On`]: what an observer receives about the event that runs it.

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use super::Event;
use crate::component::{Bundle, ComponentId};
use crate::entity::Entity;

/// The first parameter of an observer: the event `E` (by `Deref`, or [`On::event`]) and where it
/// is. For lifecycle events, `B` names the component or bundle of components watched:
/// `On<Add, Health>`, `On<Remove, (Health, Armor)>`; for user events it is left out.
///
/// bevy's `On` (`Trigger` before 0.17).
pub struct On<'w, E: Event, B: Bundle = ()> {
    pub(super) event: &'w mut E,
    pub(super) target: Option<Entity>,
    pub(super) original: Option<Entity>,
    pub(super) component: Option<ComponentId>,
    pub(super) observer: Entity,
    pub(super) propagate: &'w mut bool,
    pub(super) _bundle: PhantomData<fn() -> B>,
}

impl<E: Event, B: Bundle> On<'_, E, B> {
    /// The event.
    #[inline]
    pub fn event(&self) -> &E {
        self.event
    }

    /// The event, mutably: a propagating event carries changes to the observers of the next
    /// levels.
    #[inline]
    pub fn event_mut(&mut self) -> &mut E {
        self.event
    }

    /// The entity the event is at now (it moves up as the event propagates), or `None` for a
    /// global trigger ([`World::trigger`](crate::World::trigger)).
    #[inline]
    pub fn target(&self) -> Option<Entity> {
        self.target
    }

    /// The entity the event is at now; the panicking form of [`On::target`].
    ///
    /// # Panics
    /// If the event was triggered globally, at no entity.
    #[inline]
    #[track_caller]
    pub fn entity(&self) -> Entity {
        self.target.unwrap_or_else(|| {
            panic!("event `{}` was triggered globally: it has no entity", std::any::type_name::<E>())
        })
    }

    /// The entity the event was triggered at, before any propagation (`None` for a global
    /// trigger). bevy's `original_target`.
    #[inline]
    pub fn original_target(&self) -> Option<Entity> {
        self.original
    }

    /// For a lifecycle event, the component whose row changed (one of `B`'s); `None` for user
    /// events.
    #[inline]
    pub fn component(&self) -> Option<ComponentId> {
        self.component
    }

    /// The observer's own entity (despawn it to remove the observer).
    #[inline]
    pub fn observer(&self) -> Entity {
        self.observer
    }

    /// Whether the event goes on to the next entity of [`Event::traverse`] after the observers
    /// of this level: `true` asks for it, `false` stops it (after the other observers of this
    /// level, which still run). Starts at [`Event::AUTO_PROPAGATE`] at each level. Has no effect
    /// on a global trigger or a lifecycle event.
    #[inline]
    pub fn propagate(&mut self, propagate: bool) {
        *self.propagate = propagate;
    }

    /// Whether the event will propagate after this level, as things stand.
    #[inline]
    pub fn will_propagate(&self) -> bool {
        *self.propagate
    }
}

impl<E: Event, B: Bundle> Deref for On<'_, E, B> {
    type Target = E;

    #[inline]
    fn deref(&self) -> &E {
        self.event
    }
}

impl<E: Event, B: Bundle> DerefMut for On<'_, E, B> {
    #[inline]
    fn deref_mut(&mut self) -> &mut E {
        self.event
    }
}

impl<E: Event + std::fmt::Debug, B: Bundle> std::fmt::Debug for On<'_, E, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("On")
            .field("event", &self.event)
            .field("target", &self.target)
            .field("original", &self.original)
            .field("observer", &self.observer)
            .finish()
    }
}
