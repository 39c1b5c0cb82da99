//! System parameters for events.

use std::any::TypeId;

use super::{EventCursor, Events};
use crate::schedule::ParamError;
use crate::schedule::{Access, AccessItem, AccessTarget, ParamConflict, SystemParam};
use crate::storage::Ticks;
use crate::world::World;

/// Sends events of type `E` from a system (writes the channel resource).
pub struct EventWriter<'w, E> {
    events: &'w mut Events<E>,
}

impl<E> EventWriter<'_, E> {
    /// Sends one event.
    pub fn send(&mut self, event: E) {
        self.events.send(event);
    }

    /// Sends every event of `events`, in order.
    pub fn send_batch(&mut self, events: impl IntoIterator<Item = E>) {
        self.events.send_batch(events);
    }
}

/// Reads events of type `E` from a system, with a cursor of its own kept between runs (reads the
/// channel resource, so several readers run in parallel).
pub struct EventReader<'w, 's, E> {
    events: &'w Events<E>,
    cursor: &'s mut EventCursor,
}

impl<'w, E> EventReader<'w, '_, E> {
    /// The events this reader has not read yet, oldest first; they count as read afterwards.
    pub fn read(&mut self) -> impl ExactSizeIterator<Item = &'w E> + 'w {
        self.events.read(self.cursor)
    }

    /// Events this reader never saw because the channel released them first.
    pub fn missed(&self) -> u64 {
        self.cursor.missed()
    }
}

fn channel_item<E: 'static>(write: bool, param: &'static str) -> AccessItem {
    AccessItem {
        target: AccessTarget::Resource(TypeId::of::<Events<E>>()),
        name: std::any::type_name::<Events<E>>(),
        write,
        param,
    }
}

// SAFETY: declares a write of `Events<E>`, the only data it hands out.
unsafe impl<E: Send + Sync + 'static> SystemParam for EventWriter<'_, E> {
    type State = ();
    type Item<'w, 's> = EventWriter<'w, E>;

    fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
        access.add(channel_item::<E>(true, std::any::type_name::<Self>()))
    }
    fn init_state(world: &mut World) {
        world.add_event::<E>();
    }
    fn validate(_: &(), world: &World, _: Ticks) -> Result<(), ParamError> {
        crate::schedule::require_resource::<Events<E>>(world)
    }
    unsafe fn get_param<'w>(_: &mut (), world: &'w World, _: Ticks) -> EventWriter<'w, E> {
        // SAFETY: the declared write of `Events<E>` means no other running system accesses it.
        let events = unsafe { world.resource_map().get_mut_unchecked::<Events<E>>() };
        EventWriter { events: events.expect("validated before the run") }
    }
}

// SAFETY: declares a read of `Events<E>` and only reads it (its cursor is its own state; the
// channel reads cursors through atomics only at frame end, with exclusive access).
unsafe impl<E: Send + Sync + 'static> SystemParam for EventReader<'_, '_, E> {
    type State = EventCursor;
    type Item<'w, 's> = EventReader<'w, 's, E>;

    fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
        access.add(channel_item::<E>(false, std::any::type_name::<Self>()))
    }
    fn init_state(world: &mut World) -> EventCursor {
        world.add_event::<E>().register_reader()
    }
    fn validate(_: &EventCursor, world: &World, _: Ticks) -> Result<(), ParamError> {
        crate::schedule::require_resource::<Events<E>>(world)
    }
    unsafe fn get_param<'w, 's>(
        cursor: &'s mut EventCursor,
        world: &'w World,
        _: Ticks,
    ) -> EventReader<'w, 's, E> {
        EventReader { events: world.get_resource::<Events<E>>().expect("validated before the run"), cursor }
    }
}
