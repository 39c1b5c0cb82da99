//! The event channel resource.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::registry::EventChannels;
use crate::schedule::FrameEndTasks;
use crate::world::World;

/// When a channel releases its events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Retention {
    /// An event is kept until every registered reader has read it. With no reader registered,
    /// events are released at the end of the frame they were sent in, so memory stays bounded.
    /// A registered reader that stops reading keeps events alive: pick `Frames` for channels
    /// whose readers run only sometimes.
    UntilRead,
    /// An event is kept for this many frame ends after the frame it was sent in (at least 1),
    /// whether read or not. Readers that fall further behind miss events and can count them
    /// with [`EventReader::missed`](super::EventReader::missed).
    Frames(u32),
}

/// A reader's position in one channel: the sequence number of the next event it will read.
///
/// Registered with the channel, which reads it to know what every reader has consumed.
#[derive(Debug, Clone)]
pub struct EventCursor {
    next: Arc<AtomicU64>,
    missed: u64,
}

impl EventCursor {
    /// Events this cursor's reader never saw because they were released first.
    pub fn missed(&self) -> u64 {
        self.missed
    }
}

/// The channel of events of type `E`: a resource.
///
/// Shape: events in send order, each with a sequence number (`u64`, from 0) and the frame it was
/// sent in. Sending is O(1) amortised; releasing at a frame end is O(released). The buffer keeps
/// its capacity, so steady-state sending and reading allocates nothing once warm.
#[derive(Debug)]
pub struct Events<E> {
    /// (frame sent, event), oldest first; the front has sequence number `first_seq`.
    queue: VecDeque<(u64, E)>,
    first_seq: u64,
    frame: u64,
    retention: Retention,
    readers: Vec<Arc<AtomicU64>>,
}

impl<E> Events<E> {
    /// An empty channel with the given retention.
    ///
    /// # Panics
    /// If the retention is `Frames(0)`.
    #[track_caller]
    pub fn new(retention: Retention) -> Self {
        assert!(retention != Retention::Frames(0), "events must be kept for at least one frame");
        Self { queue: VecDeque::new(), first_seq: 0, frame: 0, retention, readers: Vec::new() }
    }

    /// The retention policy.
    pub fn retention(&self) -> Retention {
        self.retention
    }

    /// Appends an event.
    pub fn send(&mut self, event: E) {
        self.queue.push_back((self.frame, event));
    }

    /// Appends every event of `events`, in order.
    pub fn send_batch(&mut self, events: impl IntoIterator<Item = E>) {
        let frame = self.frame;
        self.queue.extend(events.into_iter().map(|e| (frame, e)));
    }

    /// Number of events held (sent and not yet released).
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no event is held.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Capacity of the buffer, in events: stays flat in steady state.
    pub fn capacity(&self) -> usize {
        self.queue.capacity()
    }

    /// Sequence number the next event sent will get.
    pub fn next_seq(&self) -> u64 {
        self.first_seq + self.queue.len() as u64
    }

    /// Releases every event held now, read or not (bevy's `Events::clear`): readers that had not
    /// read them count them as missed ([`EventCursor::missed`]). Sequence numbers go on from
    /// where they were, so no reader reads an event twice. Keeps the buffer's capacity. O(held).
    ///
    /// # Examples
    /// ```
    /// use mosaic::event::{Events, Retention};
    ///
    /// let mut events = Events::new(Retention::UntilRead);
    /// let mut reader = events.register_reader();
    /// events.send("boom");
    /// events.clear();
    /// assert!(events.is_empty());
    /// assert_eq!(events.read(&mut reader).count(), 0);
    /// assert_eq!(reader.missed(), 1);
    /// events.send("bang");
    /// assert_eq!(events.read(&mut reader).copied().collect::<Vec<_>>(), ["bang"]);
    /// ```
    pub fn clear(&mut self) {
        self.first_seq += self.queue.len() as u64;
        self.queue.clear();
    }

    /// Takes every event held out of the channel, oldest first (bevy's `Events::drain`); readers
    /// that had not read them count them as missed, as with [`Events::clear`]. Events the
    /// iterator has not yielded when it is dropped are dropped with it. Keeps the buffer's
    /// capacity. O(1) to start, O(1) per event.
    ///
    /// # Examples
    /// ```
    /// use mosaic::event::{Events, Retention};
    ///
    /// let mut events = Events::new(Retention::Frames(2));
    /// events.send_batch([1, 2, 3]);
    /// let taken: Vec<i32> = events.drain().collect();
    /// assert_eq!(taken, [1, 2, 3]);
    /// assert!(events.is_empty());
    /// assert_eq!(events.next_seq(), 3, "numbering goes on");
    /// ```
    pub fn drain(&mut self) -> impl ExactSizeIterator<Item = E> + '_ {
        self.first_seq += self.queue.len() as u64;
        self.queue.drain(..).map(|(_, e)| e)
    }

    /// Registers a reader starting at the oldest event held.
    pub fn register_reader(&mut self) -> EventCursor {
        let next = Arc::new(AtomicU64::new(self.first_seq));
        self.readers.push(next.clone());
        EventCursor { next, missed: 0 }
    }

    /// Number of registered readers.
    pub fn reader_count(&self) -> usize {
        self.readers.len()
    }

    /// The events `cursor` has not read yet, oldest first; moves the cursor past them.
    /// O(1) to start, O(1) per event.
    pub fn read<'a>(&'a self, cursor: &mut EventCursor) -> impl ExactSizeIterator<Item = &'a E> + 'a {
        let next = cursor.next.load(Ordering::Relaxed);
        let start = next.max(self.first_seq);
        cursor.missed += start - next;
        cursor.next.store(self.next_seq(), Ordering::Relaxed);
        self.queue.range((start - self.first_seq) as usize..).map(|(_, e)| e)
    }

    /// Ends a frame: releases the events the retention policy no longer keeps. O(released).
    pub fn update(&mut self) {
        self.frame += 1;
        let release_before = match self.retention {
            Retention::Frames(frames) => {
                // Sent in frame f, kept through the ends of frames f .. f + frames - 1.
                let keep_from = (self.frame + 1).saturating_sub(u64::from(frames));
                let old = self.queue.iter().take_while(|(sent, _)| *sent < keep_from).count();
                self.first_seq + old as u64
            }
            Retention::UntilRead => {
                self.readers.iter().map(|r| r.load(Ordering::Relaxed)).min().unwrap_or(self.next_seq())
            }
        };
        while self.first_seq < release_before && self.queue.pop_front().is_some() {
            self.first_seq += 1;
        }
    }
}

/// Updates the channel of `E`; registered as a frame-end task by [`World::add_event`].
fn update_events<E: Send + Sync + 'static>(world: &mut World) {
    if let Some(events) = world.get_resource_mut::<Events<E>>() {
        events.update();
    }
}

impl World {
    /// Adds the channel of `E` with [`Retention::UntilRead`] unless it exists (an existing channel
    /// keeps its retention), has every schedule run update it at the frame's end, and lists it in
    /// [`World::event_channels`].
    pub fn add_event<E: Send + Sync + 'static>(&mut self) -> &mut Events<E> {
        if !self.contains_resource::<Events<E>>() {
            self.insert_resource(Events::<E>::new(Retention::UntilRead));
        }
        if !self.contains_resource::<FrameEndTasks>() {
            self.insert_resource(FrameEndTasks::default());
        }
        self.resource_mut::<FrameEndTasks>().add(update_events::<E>);
        if !self.contains_resource::<EventChannels>() {
            self.insert_resource(EventChannels::default());
        }
        self.resource_mut::<EventChannels>().add::<E>();
        self.resource_mut::<Events<E>>()
    }

    /// Adds the channel of `E` with the given retention (or changes an existing channel's), and
    /// has every schedule run update it at the frame's end.
    ///
    /// # Panics
    /// If the retention is `Frames(0)`.
    #[track_caller]
    pub fn add_event_with<E: Send + Sync + 'static>(&mut self, retention: Retention) -> &mut Events<E> {
        assert!(retention != Retention::Frames(0), "events must be kept for at least one frame");
        let events = self.add_event::<E>();
        events.retention = retention;
        events
    }

    /// Sends an event on the channel of `E`, adding the channel if needed.
    pub fn send_event<E: Send + Sync + 'static>(&mut self, event: E) {
        if let Some(events) = self.get_resource_mut::<Events<E>>() {
            events.send(event);
        } else {
            self.add_event::<E>().send(event);
        }
    }
}

impl crate::world::CommandBuffer {
    /// Records sending `event` on the channel of `E` (added if needed) when the buffer is
    /// applied, in order with the other commands. From `par_for_each_deferred`, each chunk's
    /// buffer is applied in chunk order, so the channel receives the events in the same order
    /// on any number of threads. No allocation per event once the buffer is warm.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{CommandBuffer, Events, World};
    ///
    /// struct Hit(u32);
    ///
    /// let mut world = World::new();
    /// let mut commands = CommandBuffer::new();
    /// commands.send_event(Hit(3));
    /// commands.apply(&mut world);
    /// assert_eq!(world.resource::<Events<Hit>>().len(), 1);
    /// ```
    pub fn send_event<E: Send + Sync + 'static>(&mut self, event: E) {
        self.queue_event(move |world: &mut World| world.send_event(event));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn until_read_waits_for_every_reader() {
        let mut events = Events::new(Retention::UntilRead);
        let mut a = events.register_reader();
        let mut b = events.register_reader();
        events.send(1);
        events.send(2);
        assert_eq!(events.read(&mut a).copied().collect::<Vec<_>>(), [1, 2]);
        events.update();
        assert_eq!(events.len(), 2, "b has not read yet");
        assert_eq!(events.read(&mut b).count(), 2);
        events.update();
        assert!(events.is_empty());
        assert_eq!(events.read(&mut a).count(), 0);
    }

    #[test]
    fn frames_release_and_missed_count() {
        let mut events = Events::new(Retention::Frames(2));
        let mut slow = events.register_reader();
        events.send('a');
        events.update();
        events.send('b');
        events.update();
        assert_eq!(events.len(), 1, "'a' released after two frame ends");
        assert_eq!(events.read(&mut slow).copied().collect::<String>(), "b");
        assert_eq!(slow.missed(), 1);
    }

    #[test]
    fn no_reader_stays_bounded() {
        let mut events = Events::new(Retention::UntilRead);
        for frame in 0..1000 {
            for i in 0..10 {
                events.send(frame * 10 + i);
            }
            events.update();
            assert!(events.is_empty());
        }
        assert!(events.capacity() < 64);
    }
}
