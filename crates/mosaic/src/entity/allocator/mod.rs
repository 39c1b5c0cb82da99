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

    /// Hints the CPU to fetch slot `index` (nothing past the table), for a batch that checks
    /// entities ahead of time. O(1).
    #[inline]
    pub(crate) fn prefetch_slot(&self, index: u32) {
        if let Some(slot) = self.slots.get(index as usize) {
            crate::storage::prefetch(slot);
        }
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

#[cfg(feature = "rollback")]
mod image;
#[cfg(test)]
mod tests;

#[cfg(feature = "rollback")]
pub(crate) use image::EntitiesImage;
