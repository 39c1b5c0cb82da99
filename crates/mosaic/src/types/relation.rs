//! [`RelationDecl`] and [`PairDecl`]: the declarations of one-target relation kinds and
//! many-to-many pair kinds in a world's type registry.

use std::marker::PhantomData;

use super::{TypeEntry, TypeKind};
use crate::hierarchy::{PairRelation, Relation};
use crate::world::World;

/// The declaration of one-target relation kind `R` ([`World::relate`]), returned by
/// [`World::register_relation`]. Registering it is what snapshots need (a relation's pairs, its
/// targets' marks and its index carry no value); rollback and the world hash cover every
/// relation kind whether registered or not. O(types) per call.
///
/// # Examples
/// ```
/// use mosaic::World;
/// use mosaic::hierarchy::Relation;
///
/// struct DockedAt;
/// impl Relation for DockedAt {}
///
/// let mut world = World::new();
/// world.register_relation::<DockedAt>().name("docked_at");
/// let [ship, station] = [(); 2].map(|()| world.spawn_empty());
/// world.relate::<DockedAt>(ship, station).unwrap();
/// let text = world.save_ron().unwrap();
///
/// let mut copy = World::new();
/// copy.register_relation::<DockedAt>().name("docked_at");
/// copy.load_ron(&text).unwrap();
/// assert_eq!(copy.target::<DockedAt>(ship), Some(station));
/// ```
pub struct RelationDecl<'w, R: Relation> {
    world: &'w mut World,
    _type: PhantomData<fn() -> R>,
}

impl<R: Relation> std::fmt::Debug for RelationDecl<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let info = self.world.types().info(TypeKind::Relation, std::any::TypeId::of::<R>());
        f.debug_tuple("RelationDecl").field(&info).finish()
    }
}

impl<'w, R: Relation> RelationDecl<'w, R> {
    #[track_caller]
    pub(super) fn new(world: &'w mut World) -> Self {
        let _entry = world.types_mut().entry::<R>(TypeKind::Relation);
        #[cfg(feature = "serialize")]
        if _entry.snapshot_relation.is_none() {
            _entry.supports.serde = true;
            _entry.snapshot_relation = Some(crate::serialize::RelationEntry::new::<R>(&_entry.name));
        }
        Self { world, _type: PhantomData }
    }

    /// Names `R` `name` (default: the type's name without its module path).
    ///
    /// # Panics
    /// If another relation kind has the name.
    #[track_caller]
    pub fn name(self, name: &str) -> Self {
        self.world.types_mut().rename::<R>(TypeKind::Relation, name);
        self
    }
}

/// The declaration of many-to-many pair kind `R` ([`World::add_pair`]), returned by
/// [`World::register_pair`]. Rollback and the world hash cover every pair kind's pairs whether
/// registered or not; their values need `.hash()` to be hashed and `.serde()` to be saved by
/// snapshots (a world holding pairs of a kind not declared `serde` is refused by
/// [`World::save_ron`]). O(types) per call.
///
/// # Examples
/// ```
/// use mosaic::World;
/// use mosaic::hierarchy::PairRelation;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Clone, Hash, Serialize, Deserialize)]
/// struct Owes(u32);
/// impl PairRelation for Owes {}
///
/// let mut world = World::new();
/// world.register_pair::<Owes>().name("owes").serde().hash();
/// let [ann, ben] = [(); 2].map(|()| world.spawn_empty());
/// world.add_pair_with(ann, ben, Owes(10));
/// let before = world.state_hash().unwrap();
/// world.add_pair_with(ann, ben, Owes(11));
/// assert_ne!(world.state_hash().unwrap(), before, "values are hashed");
/// ```
pub struct PairDecl<'w, R: PairRelation> {
    world: &'w mut World,
    _type: PhantomData<fn() -> R>,
}

impl<R: PairRelation> std::fmt::Debug for PairDecl<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let info = self.world.types().info(TypeKind::Pair, std::any::TypeId::of::<R>());
        f.debug_tuple("PairDecl").field(&info).finish()
    }
}

impl<'w, R: PairRelation> PairDecl<'w, R> {
    #[track_caller]
    pub(super) fn new(world: &'w mut World) -> Self {
        world.types_mut().entry::<R>(TypeKind::Pair);
        Self { world, _type: PhantomData }
    }

    #[cfg_attr(
        not(any(feature = "serialize", feature = "rollback")),
        expect(dead_code, reason = "lean core")
    )]
    fn entry(&mut self) -> &mut TypeEntry {
        self.world.types_mut().entry::<R>(TypeKind::Pair)
    }

    /// Names `R` `name` (default: the type's name without its module path).
    ///
    /// # Panics
    /// If another pair kind has the name.
    #[track_caller]
    pub fn name(self, name: &str) -> Self {
        self.world.types_mut().rename::<R>(TypeKind::Pair, name);
        self
    }

    /// `R`'s values are serde: snapshots save the kind's pairs with their values.
    #[cfg(feature = "serialize")]
    pub fn serde(mut self) -> Self
    where
        R: serde::Serialize + serde::de::DeserializeOwned,
    {
        let entry = self.entry();
        entry.supports.serde = true;
        if !entry.supports.map_entities {
            entry.snapshot = Some(crate::serialize::SnapshotEntry::pair_kind::<R>(&entry.name));
        }
        self
    }

    /// `R`'s values are serde and hold entity handles: as [`PairDecl::serde`], and when a
    /// snapshot loads into a world that already has entities, each handle inside a value is
    /// rewritten to its entity's new id ([`MapEntities`](crate::MapEntities)).
    #[cfg(feature = "serialize")]
    pub fn map_entities(mut self) -> Self
    where
        R: serde::Serialize + serde::de::DeserializeOwned + crate::MapEntities,
    {
        let entry = self.entry();
        entry.supports.serde = true;
        entry.supports.map_entities = true;
        entry.snapshot = Some(crate::serialize::SnapshotEntry::mapped_pair_kind::<R>(&entry.name));
        self
    }

    /// `R`'s values hash deterministically through [`Hash`](std::hash::Hash): the world hash
    /// covers them (without it, the pairs count but not their values).
    #[cfg(feature = "rollback")]
    pub fn hash(mut self) -> Self
    where
        R: std::hash::Hash,
    {
        let entry = self.entry();
        entry.supports.hash = true;
        entry.rollback.pair = Some(crate::rollback::PairEntry::new::<R>(&entry.name));
        self
    }
}

impl World {
    /// Registers relation kind `R` in this world's type registry (what snapshots need to save
    /// its pairs) and returns its declaration. See [`RelationDecl`]. O(types).
    #[track_caller]
    pub fn register_relation<R: Relation>(&mut self) -> RelationDecl<'_, R> {
        RelationDecl::new(self)
    }

    /// Registers many-to-many pair kind `R` in this world's type registry and returns its
    /// declaration. See [`PairDecl`]. O(types).
    #[track_caller]
    pub fn register_pair<R: PairRelation>(&mut self) -> PairDecl<'_, R> {
        PairDecl::new(self)
    }
}
