//! Many-to-many relationship pairs: an entity holds `(Likes, a)` and `(Likes, b)` at once, each
//! pair with a value (flecs' pairs and its relationships manual, "Relationships" in the flecs
//! docs, with the traits `Exclusive`, `Symmetric` and the `OnDeleteTarget` cleanup policies).
//!
//! A relation kind is a type implementing [`PairRelation`]; the type is also each pair's value
//! (a unit struct `Likes` for a plain pair, `Owes { amount: u32 }` for one that carries data),
//! so one type parameter names both and a plain pair costs nothing to store.
//!
//! Where the state lives:
//! - the forward side, source -> its targets and values, is the component [`Targets<R>`] on the
//!   source, so queries fetch it (`Query<(Entity, &Targets<Likes>)>`); only the world changes it
//!   (it is immutable to users and has no public constructor);
//! - the reverse side, target -> its sources, is plain data in a field of the world (one map per
//!   kind), with each forward entry holding its slot in the target's list, so adding or removing
//!   one pair is O(1) amortised in the target's sources;
//! - a private marker on every target makes its despawn reach the cleanup: the world's despawn
//!   and remove paths call into this module as a row subscriber (`world/row_events.rs`), and only
//!   the pools of `Targets<R>` and of the marker are flagged, so other types pay nothing.
//!
//! The one-target relations of [`World::relate`](crate::World::relate)
//! ([`Relation`](super::Relation), [`Pair`](super::Pair)) stay as they are: they are the
//! exclusive kind with their own API. A [`PairRelation`] may also be exclusive
//! ([`PairRelation::EXCLUSIVE`]): adding a pair then replaces the source's other target.

#[cfg(feature = "serialize")]
mod load;
mod ops;
mod store;
#[cfg(feature = "rollback")]
mod store_image;
mod traverse;

use crate::Component;
use crate::entity::Entity;

pub(crate) use store::PairIndex;
#[cfg(feature = "rollback")]
pub(crate) use store_image::PairsImage;

/// What happens to the pairs `(R, target)` when `target` is despawned (flecs' `OnDeleteTarget`
/// policies: `Remove`, `Delete`, `Panic`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnDeleteTarget {
    /// Remove the pair from each source; the sources live on.
    RemovePair,
    /// Despawn each source (which cascades if a source is itself a target of such a kind).
    DespawnSource,
    /// Refuse the despawn: [`World::despawn`](crate::World::despawn) and
    /// [`World::try_despawn`](crate::World::try_despawn) panic, before anything changed, while a
    /// pair of this kind names the entity as its target (also when the despawn is part of a
    /// [`DespawnSource`](OnDeleteTarget::DespawnSource) cascade, which is checked whole first).
    /// Check first with [`World::despawn_refused_by`](crate::World::despawn_refused_by), or remove
    /// the pairs.
    Refuse,
}

/// A kind of many-to-many relationship, e.g. `Likes`, `Owes`, `DockedAt`: the type is the
/// relation's name and each pair's value. Implement it on a `Clone` type and add pairs with
/// [`World::add_pair`](crate::World::add_pair) (for a `Default` value) or
/// [`World::add_pair_with`](crate::World::add_pair_with).
///
/// `Clone` is what rollback saves values with, and what a symmetric pair's mirror gets.
///
/// # Examples
/// ```
/// use mosaic::World;
/// use mosaic::hierarchy::PairRelation;
///
/// #[derive(Clone, Default)]
/// struct Likes;
/// impl PairRelation for Likes {}
///
/// let mut world = World::new();
/// let [alice, bob, carol] = [(); 3].map(|()| world.spawn_empty());
/// world.add_pair::<Likes>(alice, bob);
/// world.add_pair::<Likes>(alice, carol);
/// assert!(world.has_pair::<Likes>(alice, bob) && world.has_pair::<Likes>(alice, carol));
/// assert_eq!(world.sources::<Likes>(bob), [alice]);
/// world.remove_pair::<Likes>(alice, bob);
/// assert_eq!(world.targets::<Likes>(alice).collect::<Vec<_>>(), [carol]);
/// ```
pub trait PairRelation: Clone + Send + Sync + 'static {
    /// At most one target per source (flecs' `Exclusive`): adding `(R, b)` to a source that has
    /// `(R, a)` removes `(R, a)` first. `false` unless overridden.
    const EXCLUSIVE: bool = false;
    /// Pairs go both ways (flecs' `Symmetric`): adding `(R, b)` on `a` adds `(R, a)` on `b` with a
    /// clone of the value, removing either removes both. `false` unless overridden.
    const SYMMETRIC: bool = false;
    /// What despawning a target does to its pairs; [`OnDeleteTarget::RemovePair`] unless
    /// overridden.
    const ON_DELETE_TARGET: OnDeleteTarget = OnDeleteTarget::RemovePair;
}

/// One pair on a source: the target, its slot in the target's list of sources, the value.
#[derive(Clone)]
pub(crate) struct PairEntry<R> {
    pub(crate) target: Entity,
    /// Where this source sits in `sources(target)`.
    pub(crate) slot: u32,
    pub(crate) value: R,
}

/// The forward side of relation `R` on a source: its targets, each with the pair's value.
///
/// Shape: one entry per target, in the order they were added, except that removing one moves
/// the last entry into its place (swap remove, O(1)). A source with no pair of `R` has no
/// `Targets<R>` (the last removal takes the component off), so `Query<(Entity, &Targets<R>)>`
/// visits exactly the sources of `R`: the `(R, *)` wildcard as a query term.
///
/// Made and changed only by the world (immutable, no public constructor); a value handed back
/// by `World::remove::<Targets<R>>` is empty, its pairs having been removed with it.
///
/// Invariant: for each entry `(t, slot)` of source `s`, `world.sources::<R>(t)[slot] == s`.
///
/// # Examples
/// ```
/// use mosaic::hierarchy::{PairRelation, Targets};
/// use mosaic::{Entity, Query, World};
///
/// #[derive(Clone, Default)]
/// struct Likes;
/// impl PairRelation for Likes {}
///
/// let mut world = World::new();
/// let [a, b, c] = [(); 3].map(|()| world.spawn_empty());
/// world.add_pair::<Likes>(a, b);
/// world.add_pair::<Likes>(a, c);
/// let mut query = world.query::<(Entity, &Targets<Likes>)>();
/// let seen: Vec<(Entity, usize)> = query.iter().map(|(e, t)| (e, t.len())).collect();
/// assert_eq!(seen, [(a, 2)]);
/// ```
#[derive(Component)]
#[component(immutable)]
pub struct Targets<R: PairRelation> {
    pub(crate) entries: Vec<PairEntry<R>>,
}

impl<R: PairRelation> Targets<R> {
    /// How many targets, in pairs. O(1).
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none (only for a value taken out of the world). O(1).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Each target with its pair's value, in the order described on [`Targets`].
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Entity, &R)> + '_ {
        self.entries.iter().map(|e| (e.target, &e.value))
    }

    /// The targets, in the order described on [`Targets`].
    pub fn targets(&self) -> impl ExactSizeIterator<Item = Entity> + '_ {
        self.entries.iter().map(|e| e.target)
    }

    /// The value of the pair with `target`, if any. O(k) in this source's targets.
    pub fn get(&self, target: Entity) -> Option<&R> {
        self.entries.iter().find(|e| e.target == target).map(|e| &e.value)
    }

    /// Whether `target` is one of the targets. O(k) in this source's targets.
    pub fn contains(&self, target: Entity) -> bool {
        self.entries.iter().any(|e| e.target == target)
    }

    /// A copy for rollback images (not a public `Clone`: a copy inserted elsewhere would break
    /// the reverse side).
    #[cfg(feature = "rollback")]
    pub(crate) fn duplicate(&self) -> Self {
        Self { entries: self.entries.clone() }
    }
}

impl<R: PairRelation> std::fmt::Debug for Targets<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Targets<{}>", std::any::type_name::<R>())?;
        f.debug_list().entries(self.targets()).finish()
    }
}

/// Marks an entity that is (or was) the target of a pair of some kind: its pool is flagged so
/// that the entity's despawn reaches the cleanup.
#[derive(Component, Clone, Copy)]
#[component(immutable)]
pub(crate) struct PairTarget;
