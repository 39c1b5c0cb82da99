//! The [`Entity`] handle.

use std::fmt;
use std::num::NonZeroU32;

/// A generational entity id: a slot index, the generation of that slot when it was handed out,
/// and the tag of the world that made it.
///
/// Shape: 8 bytes, so `Option<Entity>` is also 8 bytes: a `u32` index, and a `NonZeroU32` whose
/// low 24 bits are the generation (`1..=`[`Entity::MAX_GENERATION`]) and whose high 8 bits are
/// the world tag (see [`Entity::world_tag`]). Two handles are equal only when all three match;
/// once an entity is despawned its slot's generation moves on, so the old handle never refers to
/// the slot's next occupant.
///
/// Handles are plain `Copy` data: they do not keep the entity alive and are meaningful only for
/// the [`World`](crate::World) that made them. A handle used in another world is reported as
/// [`EntityError::ForeignEntity`](super::EntityError::ForeignEntity) (unless more than 255
/// worlds are alive at once, when tags are shared: see [`Entity::world_tag`]).
///
/// Displayed as `index v generation`, e.g. `12v3`; `{:#?}` adds the world tag, `12v3@w2`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Entity {
    // Field order makes the derived `Ord` sort by index first.
    index: u32,
    /// `world tag << 24 | generation`; nonzero because the generation is.
    generation: NonZeroU32,
}

/// Bits of the packed generation that hold the generation proper.
const GENERATION_BITS: u32 = 24;
const GENERATION_MASK: u32 = (1 << GENERATION_BITS) - 1;

impl Entity {
    /// The largest generation a slot reaches, `2^24 - 1`; a slot freed at it is retired (never
    /// reused), so handles never repeat.
    pub const MAX_GENERATION: u32 = GENERATION_MASK;

    /// Builds a handle from its parts: `generation` in `1..=MAX_GENERATION`, any `world` tag.
    #[inline]
    pub(crate) const fn new(index: u32, generation: NonZeroU32, world: u8) -> Self {
        debug_assert!(generation.get() <= GENERATION_MASK);
        let packed = (world as u32) << GENERATION_BITS | generation.get();
        // `packed` is nonzero because `generation` is, so the `None` arm is never taken.
        match NonZeroU32::new(packed) {
            Some(generation) => Self { index, generation },
            None => unreachable!(),
        }
    }

    /// The slot index, in `0..u32::MAX`. Stable for the entity's lifetime; reused after despawn.
    #[inline]
    pub const fn index(self) -> u32 {
        self.index
    }

    /// The generation of the slot when this handle was made, in `1..=`[`Entity::MAX_GENERATION`].
    #[inline]
    pub const fn generation(self) -> u32 {
        self.generation.get() & GENERATION_MASK
    }

    /// The tag of the world that made this handle, in `1..=255` (0 for handles built by
    /// [`Entity::from_bits`] from a packed value without one).
    ///
    /// Worlds alive at the same time have distinct tags while there are at most 255 of them;
    /// past that, tags are shared round-robin and a handle from a world sharing the tag is not
    /// told apart. Loading a snapshot into an empty world gives it the saved world's tag.
    #[inline]
    pub const fn world_tag(self) -> u8 {
        (self.generation.get() >> GENERATION_BITS) as u8
    }

    /// A handle from an index and a packed generation and tag, as the allocator stores it.
    #[inline]
    pub(crate) const fn from_packed(index: u32, generation: NonZeroU32) -> Self {
        Self { index, generation }
    }

    /// The packed generation and tag, as the allocator stores it per slot.
    #[inline]
    pub(crate) const fn packed_generation(self) -> NonZeroU32 {
        self.generation
    }

    /// Packs the handle into 64 bits: world tag in the top 8, generation in the next 24, index in
    /// the low 32.
    ///
    /// Round-trips through [`Entity::from_bits`]. Useful for hashing, logging and FFI.
    #[inline]
    pub const fn to_bits(self) -> u64 {
        ((self.generation.get() as u64) << 32) | self.index as u64
    }

    /// Unpacks a handle made by [`Entity::to_bits`].
    ///
    /// Returns `None` when the generation bits are 0, which no real handle has. A handle made
    /// this way is checked against the world like any other: a forged or stale one reaches
    /// nothing.
    #[inline]
    pub const fn from_bits(bits: u64) -> Option<Self> {
        let packed = (bits >> 32) as u32;
        match NonZeroU32::new(packed) {
            Some(generation) if packed & GENERATION_MASK != 0 => {
                Some(Self { index: bits as u32, generation })
            }
            _ => None,
        }
    }
}

impl fmt::Debug for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}v{}", self.index, self.generation())?;
        if f.alternate() {
            write!(f, "@w{}", self.world_tag())?;
        }
        Ok(())
    }
}

impl fmt::Display for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(size_of::<Entity>(), 8);
        assert_eq!(size_of::<Option<Entity>>(), 8);
    }

    #[test]
    fn bits_round_trip() {
        let e = Entity::new(7, NonZeroU32::new(3).unwrap(), 200);
        assert_eq!((e.index(), e.generation(), e.world_tag()), (7, 3, 200));
        assert_eq!(Entity::from_bits(e.to_bits()), Some(e));
        assert_eq!(Entity::from_bits(5), None);
        assert_eq!(Entity::from_bits(200 << 56 | 7), None, "a tag without a generation");
        assert_eq!(format!("{e}"), "7v3");
        assert_eq!(format!("{e:#?}"), "7v3@w200");
        let max = Entity::new(0, NonZeroU32::new(Entity::MAX_GENERATION).unwrap(), 255);
        assert_eq!((max.generation(), max.world_tag()), (Entity::MAX_GENERATION, 255));
    }
}
