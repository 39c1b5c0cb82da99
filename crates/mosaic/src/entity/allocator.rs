//! The entity allocator: generations per slot and a free list.

use std::num::NonZeroU32;
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};

use super::tag::TagLease;
use super::{Entity, EntityError};

/// One slot of the allocator, in one 4-byte word.
///
/// A live slot holds its occupant's packed generation (`world tag << 24 | generation`, as in
/// [`Entity`]); a free or retired slot holds the generation alone, tag bits zero. World tags are
/// never 0, so the tag bits tell the two apart and liveness needs no flag of its own (a flag
/// beside the word made the slot 8 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot(NonZeroU32);

impl Slot {
    /// A live slot for the handle whose packed generation is `packed` (world tag nonzero).
    #[inline]
    fn live(packed: NonZeroU32) -> Self {
        debug_assert!(packed.get() > Entity::MAX_GENERATION, "a live slot carries a world tag");
        Self(packed)
    }

    /// A slot that is not alive, whose next occupant gets `generation`.
    #[inline]
    fn vacant(generation: NonZeroU32) -> Self {
        Self(NonZeroU32::new(generation.get() & Entity::MAX_GENERATION).unwrap_or(NonZeroU32::MIN))
    }

    /// Whether a live entity holds the slot.
    #[inline]
    fn is_alive(self) -> bool {
        self.0.get() > Entity::MAX_GENERATION
    }

    /// The generation proper, without the tag, in `1..=`[`Entity::MAX_GENERATION`].
    #[inline]
    fn generation(self) -> NonZeroU32 {
        // Every word holds a generation of at least 1 in its low bits.
        NonZeroU32::new(self.0.get() & Entity::MAX_GENERATION).unwrap_or(NonZeroU32::MIN)
    }

    /// The handle in slot `index` with world tag `tag`: the occupant if alive, else the next one.
    #[inline]
    fn entity(self, index: u32, tag: u8) -> Entity {
        Entity::new(index, self.generation(), tag)
    }
}

/// Hands out and frees [`Entity`] ids.
///
/// Freed slots go on a free list (last freed, first reused, as EnTT and hecs do) and their
/// generation is bumped, so a stale handle never matches the new occupant. A slot whose generation
/// would pass the maximum is retired: it is never reused, so a stale handle can never be revived by
/// wrap-around. Spawning fails with [`EntityError::Exhausted`] once every index is in use or
/// retired.
///
/// Every allocator holds a world tag (see [`Entity::world_tag`]) for its lifetime and stamps it
/// into its handles, so [`Entities::check`] tells a handle from another allocator from a stale
/// one.
///
/// Ids can also be reserved through `&self` ([`Entities::reserve_entity`]), from any number of
/// threads at once: a reserved id is unique and final but not alive until [`Entities::flush`]
/// makes it a live entity. Every `&mut self` operation that allocates or frees flushes first.
/// The design is hecs' `Entities::reserve_entity` / `flush`: one atomic cursor into the free list
/// that runs negative to hand out fresh slots past the end.
///
/// Complexity: `alloc`, `free`, `is_alive`, `reserve_entity` are O(1); `flush` is O(reserved);
/// memory is 4 bytes per slot ever used plus 4 bytes per free slot.
//
// Invariants:
// - every index on `free` is < slots.len(), names a vacant slot (`!is_alive()`), and appears once;
// - a slot that is neither alive nor on `free` is retired;
// - `alive_count` == number of live slots;
// - `free_cursor <= free.len()`; `free[max(free_cursor, 0)..]` are reserved (not yet alive), and
//   so are the `max(-free_cursor, 0)` fresh indices from `slots.len()` on; with nothing reserved,
//   `free_cursor == free.len()`;
// - `slots.len() + max(-free_cursor, 0) <= max_slots`.
#[derive(Debug)]
pub struct Entities {
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Free-list entries not reserved yet; below zero, minus the number of fresh slots reserved
    /// past `slots.len()`.
    free_cursor: AtomicI64,
    alive_count: u32,
    /// Largest number of slots (indices `0..max_slots`).
    max_slots: u32,
    /// Largest generation a slot may reach before it is retired.
    max_generation: u32,
    /// The world tag stamped into every handle.
    tag: TagLease,
}

impl Default for Entities {
    fn default() -> Self {
        Self::new()
    }
}

impl Clone for Entities {
    /// A copy of the allocator, reservations included (they are flushed in each copy separately),
    /// holding another lease on the same world tag.
    fn clone(&self) -> Self {
        Self {
            slots: self.slots.clone(),
            free: self.free.clone(),
            free_cursor: AtomicI64::new(self.free_cursor.load(Relaxed)),
            alive_count: self.alive_count,
            max_slots: self.max_slots,
            max_generation: self.max_generation,
            tag: self.tag.clone(),
        }
    }
}

impl Entities {
    /// An empty allocator with the full 32-bit index space and generations up to
    /// [`Entity::MAX_GENERATION`], holding a fresh world tag.
    pub fn new() -> Self {
        Self::with_limits(u32::MAX, Entity::MAX_GENERATION)
    }

    /// An empty allocator limited to `max_slots` indices and generations up to `max_generation`
    /// (clamped to [`Entity::MAX_GENERATION`]), holding a fresh world tag.
    ///
    /// Narrow limits let tests reach index exhaustion and slot retirement in milliseconds.
    ///
    /// # Panics
    /// If `max_generation` is 0.
    #[track_caller]
    pub fn with_limits(max_slots: u32, max_generation: u32) -> Self {
        assert!(max_generation >= 1, "max_generation must be at least 1");
        Self {
            slots: Vec::new(),
            free: Vec::new(),
            free_cursor: AtomicI64::new(0),
            alive_count: 0,
            max_slots,
            max_generation: max_generation.min(Entity::MAX_GENERATION),
            tag: TagLease::new(),
        }
    }

    /// The world tag stamped into this allocator's handles, in `1..=255`.
    #[inline]
    pub fn world_tag(&self) -> u8 {
        self.tag.get()
    }

    /// Allocates an id, reusing the most recently freed slot if there is one. Flushes pending
    /// reservations first.
    ///
    /// # Errors
    /// [`EntityError::Exhausted`] when every index is in use or retired.
    #[inline]
    pub fn alloc(&mut self) -> Result<Entity, EntityError> {
        self.flush();
        let entity = if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            debug_assert!(!slot.is_alive(), "free list names a live slot");
            let entity = slot.entity(index, self.tag.get());
            *slot = Slot::live(entity.packed_generation());
            entity
        } else {
            let index = self.slots.len();
            if index >= self.max_slots as usize {
                return Err(EntityError::Exhausted { limit: self.max_slots });
            }
            let entity = Entity::new(index as u32, NonZeroU32::MIN, self.tag.get());
            self.slots.push(Slot::live(entity.packed_generation()));
            entity
        };
        self.alive_count += 1;
        *self.free_cursor.get_mut() = self.free.len() as i64;
        Ok(entity)
    }

    /// Allocates `count` live entities at once, appending them to `out` in the order `count`
    /// calls of [`Entities::alloc`] would return them (the free list first, most recently freed
    /// first, then fresh slots). All or nothing. O(count).
    ///
    /// # Errors
    /// [`EntityError::Exhausted`] if fewer than `count` indices are left; nothing is allocated.
    pub fn alloc_many(&mut self, count: usize, out: &mut Vec<Entity>) -> Result<(), EntityError> {
        self.flush();
        let fresh_left = (self.max_slots as usize).saturating_sub(self.slots.len());
        if count > self.free.len().saturating_add(fresh_left) {
            return Err(EntityError::Exhausted { limit: self.max_slots });
        }
        out.reserve(count);
        let from_free = count.min(self.free.len());
        let tag = self.tag.get();
        for index in self.free.drain(self.free.len() - from_free..).rev() {
            let slot = &mut self.slots[index as usize];
            debug_assert!(!slot.is_alive(), "free list names a live slot");
            let entity = slot.entity(index, tag);
            *slot = Slot::live(entity.packed_generation());
            out.push(entity);
        }
        let first = self.slots.len();
        let fresh = count - from_free;
        self.slots.reserve(fresh);
        for index in first..first + fresh {
            let entity = Entity::new(index as u32, NonZeroU32::MIN, tag);
            self.slots.push(Slot::live(entity.packed_generation()));
            out.push(entity);
        }
        self.alive_count += count as u32;
        *self.free_cursor.get_mut() = self.free.len() as i64;
        Ok(())
    }

    /// Reserves one id through `&self`, atomically: the id is this allocator's and unique, but
    /// not alive until [`Entities::flush`] (or any `&mut self` operation that allocates or
    /// frees) makes it a live entity. Reuses the most recently freed slot not yet reserved, as
    /// [`Entities::alloc`] does, else a fresh slot. O(1), lock-free.
    ///
    /// # Errors
    /// [`EntityError::Exhausted`] when every index is in use, reserved or retired.
    #[inline]
    pub fn reserve_entity(&self) -> Result<Entity, EntityError> {
        let mut reserved = self.reserve_entities(1)?;
        Ok(reserved.next().expect("one id was reserved"))
    }

    /// Reserves `count` ids through `&self`, atomically, as [`Entities::reserve_entity`] does
    /// `count` times (the same ids, in the same order). All or nothing. O(1) to reserve; the
    /// iterator yields the ids in O(1) each.
    ///
    /// # Errors
    /// [`EntityError::Exhausted`] when fewer than `count` indices are left; nothing is reserved.
    pub fn reserve_entities(&self, count: u32) -> Result<ReservedIter<'_>, EntityError> {
        let mut current = self.free_cursor.load(Relaxed);
        let next = loop {
            let next = current - i64::from(count);
            if next < 0 && self.slots.len() as i64 - next > i64::from(self.max_slots) {
                return Err(EntityError::Exhausted { limit: self.max_slots });
            }
            // Relaxed is enough: the cursor only partitions the free list and the fresh indices,
            // and the list and slots change only through `&mut self`.
            match self.free_cursor.compare_exchange_weak(current, next, Relaxed, Relaxed) {
                Ok(_) => break next,
                Err(actual) => current = actual,
            }
        };
        let fresh_start = self.slots.len() as u64 + (-current).max(0) as u64;
        let fresh_end = self.slots.len() as u64 + (-next).max(0) as u64;
        Ok(ReservedIter {
            entities: self,
            free: (next.max(0) as usize..current.max(0) as usize).rev(),
            fresh: fresh_start as u32..fresh_end as u32,
        })
    }

    /// Whether ids were reserved since the last flush.
    #[inline]
    pub fn needs_flush(&self) -> bool {
        self.free_cursor.load(Relaxed) != self.free.len() as i64
    }

    /// Makes every reserved id a live entity; returns how many. O(reserved); a compare when
    /// nothing is reserved (every structural change calls it, so that case is inlined).
    #[inline]
    pub fn flush(&mut self) -> u32 {
        if *self.free_cursor.get_mut() == self.free.len() as i64 {
            return 0;
        }
        self.flush_reserved()
    }

    /// [`Entities::flush`] when ids were reserved: out of line, off the common path.
    #[cold]
    #[inline(never)]
    fn flush_reserved(&mut self) -> u32 {
        let cursor = *self.free_cursor.get_mut();
        let start = cursor.max(0) as usize;
        let mut flushed = 0;
        let tag = self.tag.get();
        for &index in &self.free[start..] {
            let slot = &mut self.slots[index as usize];
            *slot = Slot::live(slot.entity(index, tag).packed_generation());
            flushed += 1;
        }
        self.free.truncate(start);
        for _ in 0..(-cursor).max(0) {
            let entity = Entity::new(self.slots.len() as u32, NonZeroU32::MIN, self.tag.get());
            self.slots.push(Slot::live(entity.packed_generation()));
            flushed += 1;
        }
        self.alive_count += flushed;
        *self.free_cursor.get_mut() = self.free.len() as i64;
        flushed
    }

    /// Frees a live entity's slot. Flushes pending reservations first.
    ///
    /// # Errors
    /// As [`Entities::check`]: [`EntityError::ForeignEntity`] for a handle of another world,
    /// else [`EntityError::NoSuchEntity`] if `entity` is not alive (double free, stale handle).
    #[inline]
    pub fn free(&mut self, entity: Entity) -> Result<(), EntityError> {
        self.flush();
        self.check(entity)?;
        let slot = &mut self.slots[entity.index() as usize];
        self.alive_count -= 1;
        // A slot whose next generation would pass the maximum is retired: never put back, and
        // left at its last generation.
        let generation = entity.packed_generation();
        if entity.generation() < self.max_generation {
            *slot = Slot::vacant(generation.saturating_add(1));
            self.free.push(entity.index());
        } else {
            *slot = Slot::vacant(generation);
        }
        *self.free_cursor.get_mut() = self.free.len() as i64;
        Ok(())
    }

    /// Whether `entity` names a live entity of this allocator. O(1): one compare of the packed
    /// generation, which also rejects handles of other worlds, and one of the slot's tag bits
    /// (a handle with tag 0, from [`Entity::from_bits`], never matches a vacant slot).
    #[inline]
    pub fn is_alive(&self, entity: Entity) -> bool {
        self.slots
            .get(entity.index() as usize)
            .is_some_and(|slot| slot.0 == entity.packed_generation() && slot.is_alive())
    }

    /// `Ok` if `entity` is alive, else the reason it is not. O(1).
    ///
    /// # Errors
    /// [`EntityError::ForeignEntity`] if the handle carries another world's tag;
    /// [`EntityError::NoSuchEntity`] if it carries this world's tag but is stale, despawned, or
    /// was never handed out.
    #[inline]
    pub fn check(&self, entity: Entity) -> Result<(), EntityError> {
        if self.is_alive(entity) {
            Ok(())
        } else if entity.world_tag() != self.tag.get() {
            Err(EntityError::ForeignEntity { entity, world_tag: self.tag.get() })
        } else {
            Err(EntityError::NoSuchEntity(entity))
        }
    }

    /// The live entity in slot `index`, if any.
    #[inline]
    pub fn alive_at(&self, index: u32) -> Option<Entity> {
        let slot = *self.slots.get(index as usize)?;
        slot.is_alive().then(|| Entity::from_packed(index, slot.0))
    }

    /// Number of live entities (reserved ids count once flushed).
    #[inline]
    pub fn len(&self) -> u32 {
        self.alive_count
    }

    /// Whether no entity is alive.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.alive_count == 0
    }

    /// Number of slots ever used (live, free and retired): one past the largest index handed out.
    #[inline]
    pub fn slot_count(&self) -> u32 {
        self.slots.len() as u32
    }

    /// Number of slots retired because their generation reached the maximum.
    pub fn retired_count(&self) -> u32 {
        self.slot_count() - self.alive_count - self.free.len() as u32
    }

    /// Reserves room for `additional` more entities beyond the free slots, in slots.
    pub fn reserve(&mut self, additional: usize) {
        let fresh = additional.saturating_sub(self.free.len());
        self.slots.reserve(fresh);
    }

    /// Releases spare capacity of the slot table and free list.
    pub fn shrink_to_fit(&mut self) {
        self.slots.shrink_to_fit();
        self.free.shrink_to_fit();
    }

    /// The largest generation a slot may reach before it is retired ([`Entity::MAX_GENERATION`]
    /// unless narrowed by [`Entities::with_limits`]).
    #[inline]
    pub fn max_generation(&self) -> u32 {
        self.max_generation
    }

    /// The largest number of slots (indices `0..max_slots`) this allocator hands out.
    #[inline]
    pub fn max_slots(&self) -> u32 {
        self.max_slots
    }

    /// Per slot, in index order: the generation its live occupant carries, or the next occupant
    /// will carry when free (a retired slot keeps its last). For snapshots; length
    /// [`Entities::slot_count`].
    pub fn slot_generations(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.slots.iter().map(|slot| slot.generation().get())
    }

    /// The free list, in the order it is kept (the last entry is reused first), reserved entries
    /// included until flushed. For snapshots, which flush first.
    pub fn free_list(&self) -> &[u32] {
        &self.free
    }

    /// An allocator with this one's limits and the given state: world tag `world_tag` (shared
    /// with whichever allocator holds it now), slot `i` has generation `generations[i]`, the
    /// slots in `live` (strictly increasing indices) hold live entities, the free list is `free`
    /// (reused from its end), and every other slot is retired. The inverse of
    /// [`Entities::world_tag`], [`Entities::slot_generations`], [`Entities::iter`] and
    /// [`Entities::free_list`], for loading snapshots. O(slots).
    ///
    /// Returns `None`, changing nothing, if the state breaks an invariant: world tag 0; more slots than
    /// `max_slots`; a generation of 0 or above `max_generation`; `live` not strictly increasing or
    /// out of range; a free entry out of range, repeated, or live; a dead slot neither on the free
    /// list nor retired (below `max_generation`: a free list that lost a slot). A snapshot of a
    /// world with narrower limits whose slots were retired loads only into a world with the
    /// same limits.
    pub fn restored(&self, world_tag: u8, generations: &[u32], live: &[u32], free: &[u32]) -> Option<Self> {
        if generations.len() > self.max_slots as usize || world_tag == 0 {
            return None;
        }
        let mut slots = Vec::with_capacity(generations.len());
        for &generation in generations {
            let generation = NonZeroU32::new(generation).filter(|g| g.get() <= self.max_generation)?;
            slots.push(Slot::vacant(generation));
        }
        let mut previous = None;
        for &index in live {
            if previous.is_some_and(|p| p >= index) {
                return None;
            }
            previous = Some(index);
            let slot = slots.get_mut(index as usize)?;
            *slot = Slot::live(slot.entity(index, world_tag).packed_generation());
        }
        let mut on_free = vec![false; slots.len()];
        for &index in free {
            let i = index as usize;
            if i >= slots.len() || slots[i].is_alive() || std::mem::replace(&mut on_free[i], true) {
                return None;
            }
        }
        // A dead slot off the free list is retired, which only a slot at the last generation is:
        // any other was dropped from the free list and would never be reused.
        let lost = slots
            .iter()
            .zip(&on_free)
            .any(|(slot, &free)| !slot.is_alive() && !free && slot.generation().get() != self.max_generation);
        if lost {
            return None;
        }
        Some(Self {
            slots,
            free: free.to_vec(),
            free_cursor: AtomicI64::new(free.len() as i64),
            alive_count: live.len() as u32,
            max_slots: self.max_slots,
            max_generation: self.max_generation,
            tag: TagLease::on(world_tag),
        })
    }

    /// Iterates the live entities in index order. The iterator borrows the allocator.
    pub fn iter(&self) -> AliveIter<'_> {
        AliveIter { slots: self.slots.iter().enumerate(), left: self.alive_count as usize }
    }
}

/// The ids reserved by one [`Entities::reserve_entities`] call, in reservation order: reused
/// slots (most recently freed first), then fresh ones. Exact size.
#[derive(Debug, Clone)]
pub struct ReservedIter<'a> {
    entities: &'a Entities,
    /// Free-list positions, walked from the end.
    free: std::iter::Rev<std::ops::Range<usize>>,
    /// Fresh indices past the slot table.
    fresh: std::ops::Range<u32>,
}

impl Iterator for ReservedIter<'_> {
    type Item = Entity;

    #[inline]
    fn next(&mut self) -> Option<Entity> {
        if let Some(at) = self.free.next() {
            let index = self.entities.free[at];
            return Some(self.entities.slots[index as usize].entity(index, self.entities.tag.get()));
        }
        let index = self.fresh.next()?;
        Some(Entity::new(index, NonZeroU32::MIN, self.entities.tag.get()))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.free.len() + self.fresh.len();
        (n, Some(n))
    }
}

impl ExactSizeIterator for ReservedIter<'_> {}

/// Iterator over live entities in index order, from [`Entities::iter`]. Exact size: it knows
/// how many live entities are left.
#[derive(Debug, Clone)]
pub struct AliveIter<'a> {
    slots: std::iter::Enumerate<std::slice::Iter<'a, Slot>>,
    /// Live entities not yet yielded.
    left: usize,
}

impl Iterator for AliveIter<'_> {
    type Item = Entity;

    #[inline]
    fn next(&mut self) -> Option<Entity> {
        if self.left == 0 {
            return None;
        }
        let found = self
            .slots
            .by_ref()
            .find(|(_, slot)| slot.is_alive())
            .map(|(index, slot)| Entity::from_packed(index as u32, slot.0));
        self.left -= usize::from(found.is_some());
        found
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for AliveIter<'_> {}

/// A copy of an allocator's state (slots, free list, live count), saved and restored in place by
/// rollback with no allocation once its buffers are warm. Holds no world tag lease: it can only be
/// restored into the allocator it was saved from (same tag and limits).
#[cfg(feature = "rollback")]
#[derive(Clone, Debug, Default)]
pub(crate) struct EntitiesImage {
    slots: Vec<Slot>,
    free: Vec<u32>,
    alive_count: u32,
    tag: u8,
    limits: (u32, u32),
}

#[cfg(feature = "rollback")]
impl EntitiesImage {
    /// The world tag of the allocator saved (0 before the first save).
    pub(crate) fn world_tag(&self) -> u8 {
        self.tag
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

#[cfg(feature = "rollback")]
impl Slot {
    /// The slot as one word for the rollback hash: `generation | alive << 32`, the world tag left
    /// out.
    #[inline]
    pub(crate) fn word(&self) -> u64 {
        u64::from(self.generation().get()) | (u64::from(self.is_alive()) << 32)
    }
}

#[cfg(feature = "rollback")]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recycles_with_new_generation() {
        let mut entities = Entities::new();
        let a = entities.alloc().unwrap();
        entities.free(a).unwrap();
        let b = entities.alloc().unwrap();
        assert_eq!(a.index(), b.index());
        assert_eq!(b.generation(), a.generation() + 1);
        assert!(!entities.is_alive(a));
        assert!(entities.is_alive(b));
        assert_eq!(entities.free(a), Err(EntityError::NoSuchEntity(a)));
    }

    #[test]
    fn retires_slot_at_max_generation() {
        let mut entities = Entities::with_limits(2, 3);
        let mut seen = Vec::new();
        for _ in 0..3 {
            let e = entities.alloc().unwrap();
            assert_eq!(e.index(), 0);
            seen.push(e);
            entities.free(e).unwrap();
        }
        assert_eq!(entities.retired_count(), 1);
        let e = entities.alloc().unwrap();
        assert_eq!(e.index(), 1, "retired slot 0 must not be reused");
        for old in seen {
            assert!(!entities.is_alive(old));
        }
    }

    #[test]
    fn alloc_many_gives_what_repeated_alloc_gives() {
        let script = |entities: &mut Entities| {
            let made: Vec<Entity> = (0..6).map(|_| entities.alloc().unwrap()).collect();
            for &e in [made[1], made[4], made[2]].iter() {
                entities.free(e).unwrap();
            }
            let reserved = entities.reserve_entity().unwrap();
            (made, reserved)
        };
        let (mut one, mut many) = (Entities::with_limits(12, 100), Entities::with_limits(12, 100));
        script(&mut one);
        script(&mut many);
        let singly: Vec<Entity> = (0..5).map(|_| one.alloc().unwrap()).collect();
        let mut batch = Vec::new();
        many.alloc_many(5, &mut batch).unwrap();
        let ids = |v: &[Entity]| v.iter().map(|e| (e.index(), e.generation())).collect::<Vec<_>>();
        assert_eq!(ids(&batch), ids(&singly), "free list first, most recent first, then fresh slots");
        assert_eq!(many.len(), one.len());
        assert!(batch.iter().all(|&e| many.is_alive(e)));
        // All or nothing: asking for one more than is left allocates nothing.
        let before = many.len();
        let left = 12 - many.slot_count() as usize;
        assert_eq!(many.alloc_many(left + 1, &mut batch), Err(EntityError::Exhausted { limit: 12 }));
        assert_eq!(many.len(), before, "nothing allocated");
        many.alloc_many(left, &mut batch).unwrap();
        assert_eq!(many.alloc(), Err(EntityError::Exhausted { limit: 12 }));
    }

    #[test]
    fn exhaustion_is_an_error() {
        let mut entities = Entities::with_limits(2, u32::MAX);
        assert_eq!(entities.max_generation(), Entity::MAX_GENERATION, "clamped");
        entities.alloc().unwrap();
        entities.alloc().unwrap();
        assert_eq!(entities.alloc(), Err(EntityError::Exhausted { limit: 2 }));
    }

    #[test]
    fn handles_of_another_allocator_are_foreign_not_stale() {
        let mut ours = Entities::new();
        let mut theirs = Entities::new();
        assert_ne!(ours.world_tag(), theirs.world_tag());
        let mine = ours.alloc().unwrap();
        let other = theirs.alloc().unwrap();
        assert_eq!((mine.index(), mine.generation()), (other.index(), other.generation()));
        assert!(!ours.is_alive(other));
        let foreign = EntityError::ForeignEntity { entity: other, world_tag: ours.world_tag() };
        assert_eq!(ours.check(other), Err(foreign));
        assert_eq!(ours.free(other), Err(foreign));
        ours.free(mine).unwrap();
        assert_eq!(ours.check(mine), Err(EntityError::NoSuchEntity(mine)));
        assert_eq!(ours.alloc().unwrap().world_tag(), ours.world_tag(), "recycled slots keep the tag");
    }

    #[test]
    fn a_slot_is_one_word_and_tells_live_from_vacant() {
        assert_eq!(size_of::<Slot>(), 4);
        let mut entities = Entities::new();
        let e = entities.alloc().unwrap();
        entities.free(e).unwrap();
        // A handle with tag 0 and the vacant slot's next generation: the word matches, the slot
        // is not alive.
        let forged = Entity::from_bits(u64::from(e.generation() + 1) << 32).unwrap();
        assert_eq!((forged.index(), forged.world_tag()), (0, 0));
        assert!(!entities.is_alive(forged));
        let next = entities.alloc().unwrap();
        assert_eq!(next.generation(), e.generation() + 1);
        assert!(entities.is_alive(next) && !entities.is_alive(forged));
    }

    #[test]
    fn retirement_at_the_full_generation_range() {
        let mut entities = Entities::new();
        let e = entities.alloc().unwrap();
        // Jump the slot to the last generation, as if it had been reused 2^24 - 2 times.
        entities.slots[0] = Slot::live(
            Entity::new(0, NonZeroU32::new(Entity::MAX_GENERATION).unwrap(), entities.world_tag())
                .packed_generation(),
        );
        let last = entities.alive_at(0).unwrap();
        assert_ne!(last, e);
        assert_eq!(last.generation(), Entity::MAX_GENERATION);
        entities.free(last).unwrap();
        assert_eq!(entities.retired_count(), 1, "the generation never wraps into the tag");
        assert_eq!(entities.alloc().unwrap().index(), 1);
    }

    #[test]
    fn restored_round_trips_and_refuses_inconsistent_state() {
        let mut entities = Entities::with_limits(10, 5);
        let all: Vec<_> = (0..4).map(|_| entities.alloc().unwrap()).collect();
        entities.free(all[2]).unwrap();
        entities.free(all[0]).unwrap();
        let generations: Vec<u32> = entities.slot_generations().collect();
        let live: Vec<u32> = entities.iter().map(Entity::index).collect();
        let tag = entities.world_tag();
        let copy = entities.restored(tag, &generations, &live, entities.free_list()).unwrap();
        assert_eq!(copy.world_tag(), tag);
        assert_eq!(copy.slot_generations().collect::<Vec<_>>(), generations);
        assert_eq!(copy.iter().collect::<Vec<_>>(), entities.iter().collect::<Vec<_>>());
        assert_eq!(copy.free_list(), entities.free_list());
        assert_eq!((copy.len(), copy.max_slots(), copy.max_generation()), (2, 10, 5));
        assert!(entities.restored(tag, &[1; 11], &[], &[]).is_none(), "too many slots");
        assert!(entities.restored(tag, &[0], &[], &[]).is_none(), "generation 0");
        assert!(entities.restored(tag, &[6], &[], &[]).is_none(), "generation above the maximum");
        assert!(entities.restored(tag, &[1, 1], &[1, 0], &[]).is_none(), "live not increasing");
        assert!(entities.restored(tag, &[1, 1], &[0], &[0]).is_none(), "a live slot on the free list");
        assert!(entities.restored(tag, &[1, 1], &[], &[1, 1]).is_none(), "a free slot listed twice");
        assert!(entities.restored(tag, &[1], &[3], &[]).is_none(), "live out of range");
        assert!(entities.restored(tag, &[1, 2], &[0], &[]).is_none(), "a dead slot lost from the free list");
        assert!(
            entities.restored(tag, &[1, 5], &[0], &[]).is_some(),
            "a dead slot at the last generation is retired"
        );
    }

    #[test]
    fn iter_yields_live_in_index_order() {
        let mut entities = Entities::new();
        let all: Vec<_> = (0..5).map(|_| entities.alloc().unwrap()).collect();
        entities.free(all[1]).unwrap();
        entities.free(all[3]).unwrap();
        let live: Vec<_> = entities.iter().collect();
        assert_eq!(live, vec![all[0], all[2], all[4]]);
        assert_eq!(entities.len(), 3);
    }

    #[test]
    fn reserved_ids_match_what_alloc_would_give_and_flush_makes_them_alive() {
        let mut entities = Entities::with_limits(10, 5);
        let all: Vec<_> = (0..3).map(|_| entities.alloc().unwrap()).collect();
        entities.free(all[0]).unwrap();
        entities.free(all[2]).unwrap();
        let mut twin = entities.clone();
        let reserved: Vec<_> = (0..4).map(|_| entities.reserve_entity().unwrap()).collect();
        let allocated: Vec<_> = (0..4).map(|_| twin.alloc().unwrap()).collect();
        assert_eq!(reserved, allocated, "same ids, same order, same generations and tag");
        assert!(entities.needs_flush());
        assert!(reserved.iter().all(|&e| !entities.is_alive(e)), "reserved is not alive yet");
        assert_eq!(entities.len(), 1);
        assert_eq!(entities.flush(), 4);
        assert!(!entities.needs_flush());
        assert!(reserved.iter().all(|&e| entities.is_alive(e)));
        assert_eq!((entities.len(), entities.slot_count(), entities.free_list().len()), (5, 5, 0));
        assert_eq!(entities.flush(), 0);
    }

    #[test]
    fn reserve_entities_is_all_or_nothing_and_alloc_flushes_first() {
        let mut entities = Entities::with_limits(4, 5);
        let first = entities.alloc().unwrap();
        entities.free(first).unwrap();
        let batch: Vec<_> = entities.reserve_entities(3).unwrap().collect();
        assert_eq!(batch.iter().map(|e| e.index()).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(batch[0].generation(), 2, "the freed slot's next generation");
        assert_eq!(entities.reserve_entities(2).err(), Some(EntityError::Exhausted { limit: 4 }));
        let last = entities.reserve_entity().unwrap();
        assert_eq!(last.index(), 3);
        assert_eq!(entities.reserve_entity(), Err(EntityError::Exhausted { limit: 4 }));
        // A free flushes the reservations before it touches the free list.
        entities.free(batch[1]).unwrap();
        assert_eq!(entities.len(), 3);
        assert!(entities.is_alive(last));
        assert_eq!(entities.alloc().unwrap().index(), 1);
    }

    #[test]
    fn reservations_from_many_threads_are_distinct() {
        let mut entities = Entities::new();
        let freed: Vec<_> = (0..100).map(|_| entities.alloc().unwrap()).collect();
        for e in freed.iter().step_by(2) {
            entities.free(*e).unwrap();
        }
        let shared = &entities;
        let mut all: Vec<Entity> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..4)
                .map(|_| {
                    scope
                        .spawn(move || (0..100).map(|_| shared.reserve_entity().unwrap()).collect::<Vec<_>>())
                })
                .collect();
            workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
        });
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 400);
        assert_eq!(entities.flush(), 400);
        assert!(all.iter().all(|&e| entities.is_alive(e)));
        assert_eq!(entities.len(), 450);
    }
}
