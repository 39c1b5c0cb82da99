//! Events: typed channels buffered per frame.
//!
//! [`Events<E>`] is a resource holding the events of type `E` sent so far and not yet released.
//! Systems send with [`EventWriter`] and read with [`EventReader`], each reader with its own
//! cursor. When events are released is the channel's [`Retention`]: once every registered reader
//! has read them, or after a number of frames. A frame ends with each
//! [`Schedule::run`](crate::schedule::Schedule::run), which updates every channel added with
//! [`World::add_event`](crate::World::add_event). [`World::event_channels`](crate::World::event_channels)
//! lists those channels with their backlog, without knowing their types (for inspectors).

mod channel;
mod params;
mod registry;

pub use channel::{EventCursor, Events, Retention};
pub use params::{EventReader, EventWriter};
pub use registry::EventChannelInfo;
