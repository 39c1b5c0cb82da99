//! The [`Entity`] handle.

use std::fmt;
use std::num::NonZeroU32;

/// A generational entity id: a slot index plus the generation of that slot when it was handed out.
///
/// Shape: 8 bytes (`u32` index, `NonZeroU32` generation), so `Option<Entity>` is also 8 bytes.
/// Two handles are equal only when index and generation both match; once an entity is despawned
/// its slot's generation moves on, so the old handle never refers to the slot's next occupant.
///
/// Handles are plain `Copy` data: they do not keep the entity alive and are meaningful only for
/// the [`World`](crate::World) that made them.
///
/// Displayed as `index v generation`, e.g. `12v3`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Entity {
    // Field order makes the derived `Ord` sort by index first.
    index: u32,
    generation: NonZeroU32,
}

impl Entity {
    /// Builds a handle from its parts. Generation 0 does not exist; this is used by the allocator.
    pub(crate) const fn from_parts(index: u32, generation: NonZeroU32) -> Self {
        Self { index, generation }
    }

    /// The slot index, in `0..u32::MAX`. Stable for the entity's lifetime; reused after despawn.
    #[inline]
    pub const fn index(self) -> u32 {
        self.index
    }

    /// The generation of the slot when this handle was made, starting at 1.
    #[inline]
    pub const fn generation(self) -> u32 {
        self.generation.get()
    }

    /// Packs the handle into 64 bits: generation in the high half, index in the low half.
    ///
    /// Round-trips through [`Entity::from_bits`]. Useful for hashing, logging and snapshots.
    #[inline]
    pub const fn to_bits(self) -> u64 {
        ((self.generation.get() as u64) << 32) | self.index as u64
    }

    /// Unpacks a handle made by [`Entity::to_bits`].
    ///
    /// Returns `None` when the generation half is 0, which no real handle has. A handle made this
    /// way is checked against the world like any other: a forged or stale one reaches nothing.
    #[inline]
    pub const fn from_bits(bits: u64) -> Option<Self> {
        match NonZeroU32::new((bits >> 32) as u32) {
            Some(generation) => Some(Self { index: bits as u32, generation }),
            None => None,
        }
    }
}

impl fmt::Debug for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}v{}", self.index, self.generation)
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
        let e = Entity::from_parts(7, NonZeroU32::new(3).unwrap());
        assert_eq!(Entity::from_bits(e.to_bits()), Some(e));
        assert_eq!(Entity::from_bits(5), None);
        assert_eq!(format!("{e}"), "7v3");
    }
}
