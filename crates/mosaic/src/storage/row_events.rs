//! Which row events a pool's subscribers listen to.
//!
//! A pool's rows change in three ways that other parts of the world care about: a row is added
//! for an entity that had none, an entity's value is replaced, or a row leaves (remove, despawn).
//! Each pool carries the union of the kinds its subscribers want (hooks, watches, groups, ...;
//! see `world/row_events.rs`), so a structural change of a pool nobody listens to tests one byte
//! and takes the plain path, however many subscribers other pools have: the cost of a feature is
//! paid by the pools it is used on (bevy keeps its hook and observer flags per archetype the same
//! way, `archetype.rs`; EnTT gives each storage its own signals, `entity/mixin.hpp`).

/// A set of row event kinds: one bit per kind, combined with `|`.
///
/// Shape: one byte. [`RowEvents::NONE`] is the set a pool with no subscriber has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RowEvents(u8);

impl RowEvents {
    /// No event: nobody listens.
    pub const NONE: Self = Self(0);
    /// A row added for an entity that had none (spawn, insert of a new component): subscribers
    /// run before the write (the entity without it) and after (with it).
    pub const ADD: Self = Self(1);
    /// An entity's value overwritten by an insert: subscribers run before the write, with the old
    /// value readable.
    pub const REPLACE: Self = Self(1 << 1);
    /// A row leaving (remove, despawn): subscribers run before it goes, with the value readable,
    /// and after.
    pub const REMOVE: Self = Self(1 << 2);
    /// Some subscriber wants its events one row at a time, around the write. Without it, every
    /// subscriber of the pool takes a batch after the rows changed (value indexes), so the batch
    /// primitives (`insert_batch`, `remove_batch`, spawn batches) keep their plain loops and
    /// hand the subscribers the rows once.
    pub const PER_ROW: Self = Self(1 << 3);

    /// Whether no kind is in the set.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every kind of `other` is in the set.
    #[inline(always)]
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether some kind of `other` is in the set.
    #[inline(always)]
    pub const fn intersects(self, other: Self) -> bool {
        self.0 & other.0 != 0
    }
}

impl std::ops::BitOr for RowEvents {
    type Output = Self;

    #[inline(always)]
    fn bitor(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
}

impl std::ops::BitOrAssign for RowEvents {
    #[inline(always)]
    fn bitor_assign(&mut self, other: Self) {
        self.0 |= other.0;
    }
}

#[cfg(test)]
mod tests {
    use super::RowEvents;

    #[test]
    fn sets_combine_and_test() {
        let both = RowEvents::ADD | RowEvents::REMOVE;
        assert!(both.contains(RowEvents::ADD) && both.contains(RowEvents::REMOVE));
        assert!(!both.contains(RowEvents::REPLACE));
        assert!(both.intersects(RowEvents::REMOVE | RowEvents::REPLACE));
        assert!(!both.intersects(RowEvents::REPLACE));
        assert!(RowEvents::NONE.is_empty() && !both.is_empty());
        assert!(both.contains(RowEvents::NONE), "every set contains the empty set");
    }
}
