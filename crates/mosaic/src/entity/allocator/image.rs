//! Saving and restoring an allocator's state in place, for rollback: [`EntitiesImage`].

use super::{Entities, Slot, TagLease};
use crate::entity::Entity;

/// A copy of an allocator's state (slots, free list, live count), saved and restored in place by
/// rollback with no allocation once its buffers are warm. Holds no world tag lease: it can only be
/// restored into the allocator it was saved from (same tag and limits).
#[derive(Clone, Debug, Default)]
pub(crate) struct EntitiesImage {
    slots: Vec<Slot>,
    free: Vec<u32>,
    alive_count: u32,
    tag: u8,
    limits: (u32, u32),
}

impl EntitiesImage {
    /// The world tag of the allocator saved (0 before the first save).
    pub(crate) fn world_tag(&self) -> u8 {
        self.tag
    }

    /// The entities alive in the saved allocator, in index order. O(slots).
    pub(crate) fn live(&self) -> impl Iterator<Item = Entity> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, slot)| slot.is_alive())
            .map(|(index, slot)| Entity::from_packed(index as u32, slot.0))
    }

    /// Bytes held: slots and free list.
    pub(crate) fn bytes(&self) -> usize {
        self.slots.len() * size_of::<Slot>() + self.free.len() * size_of::<u32>()
    }

    /// The first slot index where `self` and `other` differ (generation, liveness), or the free
    /// lists or counts differ (`None` index then); `None` overall if they are equal.
    pub(crate) fn first_difference(&self, other: &Self) -> Option<Option<u32>> {
        let mask = |s: &Slot| (s.generation(), s.is_alive());
        let n = self.slots.len().min(other.slots.len());
        if let Some(i) = (0..n).find(|&i| mask(&self.slots[i]) != mask(&other.slots[i])) {
            return Some(Some(i as u32));
        }
        if self.slots.len() != other.slots.len() {
            return Some(Some(n as u32));
        }
        (self.free != other.free || self.alive_count != other.alive_count).then_some(None)
    }
}

impl Slot {
    /// The slot as one word for the rollback hash: `generation | alive << 32`, the world tag left
    /// out.
    #[inline]
    pub(crate) fn word(&self) -> u64 {
        u64::from(self.generation().get()) | (u64::from(self.is_alive()) << 32)
    }
}

impl Entities {
    /// Copies the state into `image`, reusing its buffers. O(slots).
    ///
    /// # Panics
    /// If ids are reserved and not flushed (flush first).
    #[track_caller]
    pub(crate) fn save_image(&self, image: &mut EntitiesImage) {
        assert!(!self.needs_flush(), "flush reserved entities before saving the allocator");
        image.slots.clear();
        image.slots.extend_from_slice(&self.slots);
        image.free.clear();
        image.free.extend_from_slice(&self.free);
        image.alive_count = self.alive_count;
        image.tag = self.tag.get();
        image.limits = (self.max_slots, self.max_generation);
    }

    /// Whether `image` was saved from an allocator with this one's world tag and limits, so
    /// [`Entities::restore_image`] accepts it.
    pub(crate) fn accepts(&self, image: &EntitiesImage) -> bool {
        image.tag == self.tag.get() && image.limits == (self.max_slots, self.max_generation)
    }

    /// An empty allocator that accepts `image` (its world tag, a lease shared with the saved
    /// allocator, and its limits), for a scratch world to restore a saved frame into.
    pub(crate) fn accepting(image: &EntitiesImage) -> Self {
        Self { tag: TagLease::on(image.tag), ..Self::with_limits(image.limits.0, image.limits.1) }
    }

    /// Puts the state of `image` back (reservations are dropped). O(slots).
    ///
    /// # Panics
    /// If `image` is not [accepted](Entities::accepts).
    #[track_caller]
    pub(crate) fn restore_image(&mut self, image: &EntitiesImage) {
        assert!(self.accepts(image), "an allocator image restores only into the allocator it came from");
        self.slots.clear();
        self.slots.extend_from_slice(&image.slots);
        self.free.clear();
        self.free.extend_from_slice(&image.free);
        self.alive_count = image.alive_count;
        *self.free_cursor.get_mut() = self.free.len() as i64;
    }

    /// The slots, in index order, for the rollback hash.
    pub(crate) fn slots(&self) -> &[Slot] {
        &self.slots
    }
}
