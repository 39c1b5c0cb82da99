//! The world's list of event channels, for tools that show them without knowing their types.

use std::any::TypeId;

use super::channel::{Events, Retention};
use crate::world::World;

/// What one event channel holds at the moment it was read: a type-erased, read-only summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventChannelInfo {
    /// The event type's name, as [`std::any::type_name`] gives it (not stable across compiler
    /// versions: for display).
    pub type_name: &'static str,
    /// The event type's id.
    pub type_id: TypeId,
    /// The backlog: events held (sent and not yet released), in events. Under
    /// [`Retention::UntilRead`] these are the events some registered reader has not read yet.
    pub len: usize,
    /// Events ever sent on the channel (the sequence number the next one will get), in events.
    pub sent: u64,
    /// Capacity of the channel's buffer, in events.
    pub capacity: usize,
    /// Registered readers.
    pub readers: usize,
    /// The channel's retention.
    pub retention: Retention,
}

/// One entry of the list: the type's id, and how to read its channel through `&World`.
#[derive(Clone, Copy, Debug)]
struct ChannelEntry {
    type_id: TypeId,
    info: fn(&World) -> Option<EventChannelInfo>,
}

/// The channels added with [`World::add_event`], in the order they were first added: a resource
/// kept by `add_event`, read by [`World::event_channels`].
///
/// Invariant: no two entries share a `type_id`.
#[derive(Debug, Default)]
pub(crate) struct EventChannels(Vec<ChannelEntry>);

impl EventChannels {
    /// Records the channel of `E` unless it is already listed. O(channels).
    pub(crate) fn add<E: Send + Sync + 'static>(&mut self) {
        let type_id = TypeId::of::<E>();
        if !self.0.iter().any(|entry| entry.type_id == type_id) {
            self.0.push(ChannelEntry { type_id, info: info::<E> });
        }
    }
}

/// Reads the summary of the channel of `E`, if the world still holds it.
fn info<E: Send + Sync + 'static>(world: &World) -> Option<EventChannelInfo> {
    let events = world.get_resource::<Events<E>>()?;
    Some(EventChannelInfo {
        type_name: std::any::type_name::<E>(),
        type_id: TypeId::of::<E>(),
        len: events.len(),
        sent: events.next_seq(),
        capacity: events.capacity(),
        readers: events.reader_count(),
        retention: events.retention(),
    })
}

impl World {
    /// The event channels of this world: one summary per channel added with
    /// [`add_event`](World::add_event), [`add_event_with`](World::add_event_with) or
    /// [`send_event`](World::send_event), in the order they were first added, read now.
    ///
    /// Shape: each channel once; a channel whose [`Events`] resource was removed since is left
    /// out, and one inserted only with [`insert_resource`](World::insert_resource) is not listed.
    /// O(channels) time (each summary is O(1): it reads lengths, not events); allocates nothing.
    /// For tools such as an inspector, which show the channels without knowing their types.
    ///
    /// # Examples
    /// ```
    /// use mosaic::World;
    ///
    /// struct Hit(u32);
    ///
    /// let mut world = World::new();
    /// world.send_event(Hit(3));
    /// world.send_event(Hit(4));
    /// let channels: Vec<_> = world.event_channels().collect();
    /// assert_eq!(channels.len(), 1);
    /// assert!(channels[0].type_name.ends_with("Hit"));
    /// assert_eq!((channels[0].len, channels[0].sent), (2, 2));
    /// ```
    pub fn event_channels(&self) -> impl Iterator<Item = EventChannelInfo> + '_ {
        let entries = self.get_resource::<EventChannels>().map_or(&[][..], |channels| &channels.0[..]);
        entries.iter().filter_map(|entry| (entry.info)(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_each_channel_once_in_order() {
        let mut world = World::new();
        world.add_event::<u32>();
        world.add_event_with::<&'static str>(Retention::Frames(3));
        world.add_event::<u32>();
        world.send_event(7u32);
        world.send_event("a");
        world.send_event("b");
        let channels: Vec<_> = world.event_channels().collect();
        assert_eq!(channels.len(), 2);
        assert_eq!((channels[0].type_name, channels[0].len, channels[0].sent), ("u32", 1, 1));
        assert_eq!(channels[1].type_id, TypeId::of::<&'static str>());
        assert_eq!((channels[1].len, channels[1].retention), (2, Retention::Frames(3)));
    }

    #[test]
    fn removed_channel_is_left_out() {
        let mut world = World::new();
        world.add_event::<u8>();
        world.add_event::<u16>();
        world.remove_resource::<Events<u8>>();
        let names: Vec<_> = world.event_channels().map(|c| c.type_name).collect();
        assert_eq!(names, ["u16"]);
    }

    #[test]
    fn empty_world_has_no_channels() {
        assert_eq!(World::new().event_channels().count(), 0);
    }
}
