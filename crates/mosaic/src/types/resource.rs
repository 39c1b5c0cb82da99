//! [`ResourceDecl`]: what [`World::register_resource`] returns, to declare what a resource
//! supports.

use std::marker::PhantomData;

use super::{TypeEntry, TypeKind};
use crate::world::World;

/// The declaration of resource type `R` in a world's [`TypeRegistry`](super::TypeRegistry),
/// returned by [`World::register_resource`]. As [`ComponentDecl`](super::ComponentDecl): each
/// method records one thing at once, O(types), and exists only when `R` has the traits it needs.
///
/// Resources are opt-in: only registered ones are saved by snapshots and rollback and covered by
/// the world hash.
///
/// # Examples
/// ```
/// use mosaic::World;
///
/// #[derive(Clone, Hash, Default)]
/// struct Score(u32);
///
/// let mut world = World::new();
/// world.register_resource::<Score>().name("score").hash();
/// world.insert_resource(Score(3));
/// let before = world.state_hash().unwrap();
/// world.resource_mut::<Score>().0 += 1;
/// assert_ne!(world.state_hash().unwrap(), before, "the score is hashed");
/// ```
pub struct ResourceDecl<'w, R: Send + Sync + 'static> {
    world: &'w mut World,
    _type: PhantomData<fn() -> R>,
}

impl<R: Send + Sync + 'static> std::fmt::Debug for ResourceDecl<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ResourceDecl").field(&self.world.types().resource::<R>()).finish()
    }
}

impl<'w, R: Send + Sync + 'static> ResourceDecl<'w, R> {
    /// Adds `R`'s entry under its default name and starts its declaration.
    #[track_caller]
    pub(super) fn new(world: &'w mut World) -> Self {
        world.types_mut().entry::<R>(TypeKind::Resource);
        Self { world, _type: PhantomData }
    }

    #[cfg_attr(
        not(any(feature = "serialize", feature = "rollback")),
        expect(dead_code, reason = "lean core")
    )]
    fn entry(&mut self) -> &mut TypeEntry {
        self.world.types_mut().entry::<R>(TypeKind::Resource)
    }

    /// Names `R` `name` (default: the type's name without its module path).
    ///
    /// # Panics
    /// If another resource type has the name.
    #[track_caller]
    pub fn name(self, name: &str) -> Self {
        self.world.types_mut().rename::<R>(TypeKind::Resource, name);
        self
    }
}

#[cfg(feature = "rollback")]
impl<R: Send + Sync + 'static> ResourceDecl<'_, R> {
    /// `R` is `Clone`: rollback saves and restores it by `clone_from` (a world without one saves
    /// "none", and restoring that removes the world's), but the world hash leaves it out (state
    /// that is not the simulation's identity, such as statistics). A later or earlier
    /// [`ResourceDecl::hash`] hashes it as well.
    pub fn clone(mut self) -> Self
    where
        R: Clone,
    {
        let entry = self.entry();
        entry.supports.clone = true;
        if entry.rollback.resource.is_none() {
            entry.rollback.resource = Some(crate::rollback::ResourceEntry::new::<R>(&entry.name, None));
        }
        self
    }

    /// `R` is `Clone` and hashes deterministically through [`Hash`](std::hash::Hash): rollback
    /// saves it and the world hash covers it.
    pub fn hash(self) -> Self
    where
        R: Clone + std::hash::Hash,
    {
        self.hash_with(|value: &R, hasher| std::hash::Hash::hash(value, hasher))
    }

    /// As [`ResourceDecl::hash`], hashed by `hash` (for a type without `Hash`, such as a random
    /// generator whose state is private: hash what a clone of it would draw next).
    pub fn hash_with(
        mut self,
        hash: impl Fn(&R, &mut crate::rollback::StableHasher) + Send + Sync + 'static,
    ) -> Self
    where
        R: Clone,
    {
        let entry = self.entry();
        entry.supports.clone = true;
        entry.supports.hash = true;
        let hash = crate::rollback::ResourceEntry::hash_fn(hash);
        entry.rollback.resource = Some(crate::rollback::ResourceEntry::new::<R>(&entry.name, Some(hash)));
        self
    }

    /// `R` is an input: what the outside world injects each frame (a player's buttons). A
    /// rollback [`Recording`](crate::rollback::Recording) made with the world's registry stores
    /// it per frame and puts it back on replay; inputs are neither saved in the ring nor hashed.
    pub fn input(mut self) -> Self
    where
        R: serde::Serialize + serde::de::DeserializeOwned,
    {
        let entry = self.entry();
        entry.supports.input = true;
        entry.rollback.input = Some(crate::rollback::InputEntry::new::<R>(&entry.name));
        self
    }
}

#[cfg(feature = "serialize")]
impl<R: Send + Sync + 'static> ResourceDecl<'_, R> {
    /// `R` is serde: snapshots save it when the world has one, and insert it (replacing any) on
    /// load. Entity handles inside a resource are not remapped.
    pub fn serde(mut self) -> Self
    where
        R: serde::Serialize + serde::de::DeserializeOwned,
    {
        let entry = self.entry();
        entry.supports.serde = true;
        entry.snapshot = Some(crate::serialize::SnapshotEntry::resource::<R>(&entry.name));
        self
    }
}
