//! Entity handles in snapshots: serde for [`Entity`], [`MapEntities`], and [`EntityMap`].

use rustc_hash::FxHashMap;
use std::num::NonZeroU32;

use serde::ser::SerializeTupleStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::entity::Entity;

/// An entity is written as the tuple struct `Entity(index, generation, world_tag)`.
impl Serialize for Entity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut tuple = serializer.serialize_tuple_struct("Entity", 3)?;
        tuple.serialize_field(&self.index())?;
        tuple.serialize_field(&self.generation())?;
        tuple.serialize_field(&self.world_tag())?;
        tuple.end()
    }
}

/// Reads the `Entity(index, generation, world_tag)` written by `Serialize`; a generation of 0
/// or above [`Entity::MAX_GENERATION`] (which no handle has) is an error.
impl<'de> Deserialize<'de> for Entity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename = "Entity")]
        struct Parts(u32, u32, u8);
        let Parts(index, generation, world_tag) = Parts::deserialize(deserializer)?;
        NonZeroU32::new(generation)
            .filter(|g| g.get() <= Entity::MAX_GENERATION)
            .map(|generation| Entity::new(index, generation, world_tag))
            .ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "entity {index}v{generation} has a generation outside 1..={}, which no handle has",
                    Entity::MAX_GENERATION
                ))
            })
    }
}

/// A value holding entity handles that must follow their entities when a snapshot is loaded
/// into a world that already has entities (where every loaded entity gets a new id).
///
/// Register such components with
/// [`SnapshotRegistry::register_mapped`](super::SnapshotRegistry::register_mapped). Handles to
/// entities that are not in the snapshot (e.g. already stale when it was saved) are mapped to a
/// handle that is dead in the target world, so they never reach an unrelated entity.
///
/// # Examples
/// ```
/// use mosaic::Entity;
/// use mosaic::serialize::MapEntities;
///
/// struct Target { entity: Entity, backup: Option<Entity> }
///
/// impl MapEntities for Target {
///     fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
///         self.entity.map_entities(map);
///         self.backup.map_entities(map);
///     }
/// }
/// ```
pub trait MapEntities {
    /// Replaces every entity handle in `self` by `map(handle)`.
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity);
}

impl MapEntities for Entity {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        *self = map(*self);
    }
}

impl<T: MapEntities> MapEntities for Option<T> {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        if let Some(value) = self {
            value.map_entities(map);
        }
    }
}

impl<T: MapEntities> MapEntities for Vec<T> {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        for value in self {
            value.map_entities(map);
        }
    }
}

impl<T: MapEntities, const N: usize> MapEntities for [T; N] {
    fn map_entities(&mut self, map: &mut dyn FnMut(Entity) -> Entity) {
        for value in self {
            value.map_entities(map);
        }
    }
}

/// Where a load put each entity of the snapshot: the handle it had when saved -> its handle in
/// the world now. Loading into an empty world keeps every handle, so the map is the identity.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EntityMap {
    map: FxHashMap<Entity, Entity>,
}

impl EntityMap {
    pub(crate) fn insert(&mut self, saved: Entity, now: Entity) {
        self.map.insert(saved, now);
    }

    pub(crate) fn reserve(&mut self, additional: usize) {
        self.map.reserve(additional);
    }

    /// The handle in the world of the entity saved as `saved`, if it was in the snapshot. O(1).
    pub fn get(&self, saved: Entity) -> Option<Entity> {
        self.map.get(&saved).copied()
    }

    /// Number of entities loaded.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the snapshot held no entity.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Every (saved, now) pair, in arbitrary order.
    pub fn iter(&self) -> impl Iterator<Item = (Entity, Entity)> + '_ {
        self.map.iter().map(|(&saved, &now)| (saved, now))
    }
}
