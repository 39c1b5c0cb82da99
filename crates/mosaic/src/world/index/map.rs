//! [`ComponentIndex`]: the buckets of one value index, and the O(1) moves that keep them exact.

use std::hash::Hash;

use rustc_hash::FxHashMap;

use crate::entity::Entity;

/// Where an indexed entity is: its key and its place in that key's bucket.
#[derive(Clone, Debug)]
struct Slot<K> {
    /// The entity (the slot is per entity index; the generation tells a reused index apart).
    entity: Entity,
    /// The key the entity is filed under.
    key: K,
    /// Its position in `buckets[key]`.
    at: u32,
}

/// A value index over one component type: for each key, the entities whose component has it.
///
/// Made by [`World::add_index`](crate::World::add_index) (the key is the value) or
/// [`World::add_index_by_key`](crate::World::add_index_by_key) (the key is computed from the
/// value), read through [`World::index`](crate::World::index),
/// [`World::index_by_key`](crate::World::index_by_key) or the [`Index`](crate::Index) system
/// parameter, each of which brings it up to date first. The world keeps it exact through every
/// write of the component.
///
/// Shape: a hash map from key to a bucket (a slice of entities, each live and holding the
/// component), and per entity index the key its entity is filed under. Every indexed entity is
/// in exactly one bucket; no bucket is empty (a key with no entity left is dropped, so
/// [`ComponentIndex::len`] counts the distinct keys present).
///
/// Order: buckets are in no particular order (hash order); within a bucket, entities are in the
/// order they were filed, until one leaves: the last entity of the bucket then takes its place
/// (swap-remove, as a sparse set's dense array). A view borrowed from the world stays valid while
/// the borrow lasts (no write can happen meanwhile).
///
/// The source: bevy users get this from the third-party `bevy_mod_index` (refreshed by policy);
/// bevy's core has none (bevy#4513, bevy#17608). Here it is exact at every lookup.
//
// Invariants:
// - for every key k and i < buckets[k].len(): slots[buckets[k][i].index()] is
//   Some(Slot { entity: buckets[k][i], key: k, at: i });
// - every Some slot is reached that way (slots and bucket entries are in bijection);
// - no bucket is empty.
#[derive(Clone, Debug)]
pub struct ComponentIndex<K> {
    buckets: FxHashMap<K, Vec<Entity>>,
    /// Per entity index.
    slots: Vec<Option<Slot<K>>>,
    /// Number of entities filed.
    entities: usize,
    /// Emptied buckets' vectors, kept for the next new key (at most [`SPARE_BUCKETS`]): values
    /// that move from key to key then reuse memory instead of growing a vector each time.
    spare: Vec<Vec<Entity>>,
}

/// How many emptied bucket vectors an index keeps for reuse.
const SPARE_BUCKETS: usize = 8;

impl<K> Default for ComponentIndex<K> {
    fn default() -> Self {
        Self { buckets: FxHashMap::default(), slots: Vec::new(), entities: 0, spare: Vec::new() }
    }
}

impl<K: Eq + Hash + Clone> ComponentIndex<K> {
    /// The entities whose key is `key`, in bucket order (see the type's docs); empty if none.
    /// O(1) expected (one hash of `key`).
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component, Clone, PartialEq, Eq, Hash)]
    /// enum Team { Red, Blue }
    ///
    /// let mut world = World::new();
    /// world.add_index::<Team>();
    /// let a = world.spawn(Team::Red);
    /// let b = world.spawn(Team::Blue);
    /// let c = world.spawn(Team::Red);
    /// assert_eq!(world.index::<Team>().get(&Team::Red), [a, c]);
    /// assert_eq!(world.index::<Team>().get(&Team::Blue), [b]);
    /// ```
    pub fn get(&self, key: &K) -> &[Entity] {
        self.buckets.get(key).map_or(&[], Vec::as_slice)
    }

    /// The key `entity` is filed under, or `None` if it has no indexed component (or is not
    /// alive). O(1).
    pub fn key_of(&self, entity: Entity) -> Option<&K> {
        match self.slots.get(entity.index() as usize) {
            Some(Some(slot)) if slot.entity == entity => Some(&slot.key),
            _ => None,
        }
    }

    /// Whether some entity has key `key`. O(1) expected.
    pub fn contains_key(&self, key: &K) -> bool {
        self.buckets.contains_key(key)
    }

    /// Number of distinct keys present (non-empty buckets). O(1).
    pub fn len(&self) -> usize {
        self.buckets.len()
    }

    /// Whether no entity is filed. O(1).
    pub fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }

    /// Number of entities filed (the component's pool length). O(1).
    pub fn entity_count(&self) -> usize {
        self.entities
    }

    /// The distinct keys present, each once, in no particular order. O(keys) to walk.
    pub fn keys(&self) -> impl Iterator<Item = &K> + '_ {
        self.buckets.keys()
    }

    /// Every key with its bucket (never empty), in no particular order; each bucket in bucket
    /// order. O(keys) to walk, plus the buckets read.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &[Entity])> + '_ {
        self.buckets.iter().map(|(key, bucket)| (key, bucket.as_slice()))
    }

    /// Files `entity` under `key`, moving it out of the bucket it was in. O(1) expected; nothing
    /// moves when the key is unchanged.
    pub(crate) fn file(&mut self, entity: Entity, key: K) {
        let index = entity.index() as usize;
        if let Some(Some(slot)) = self.slots.get(index) {
            if slot.entity == entity && slot.key == key {
                return;
            }
            let old = slot.entity;
            self.unfile(old);
        }
        if self.slots.len() <= index {
            self.slots.resize_with(index + 1, || None);
        }
        let spare = &mut self.spare;
        let bucket = self.buckets.entry(key.clone()).or_insert_with(|| spare.pop().unwrap_or_default());
        let at = u32::try_from(bucket.len()).expect("more than 2^32 entities under one key");
        bucket.push(entity);
        self.slots[index] = Some(Slot { entity, key, at });
        self.entities += 1;
    }

    /// Takes `entity` out of its bucket, if filed; the bucket's last entity takes its place.
    /// O(1) expected.
    pub(crate) fn unfile(&mut self, entity: Entity) {
        let index = entity.index() as usize;
        let Some(slot) = self.slots.get_mut(index) else { return };
        if slot.as_ref().is_none_or(|s| s.entity != entity) {
            return;
        }
        let Slot { key, at, .. } = slot.take().expect("checked above");
        self.entities -= 1;
        let bucket = self.buckets.get_mut(&key).expect("a filed entity's bucket exists");
        bucket.swap_remove(at as usize);
        if let Some(&moved) = bucket.get(at as usize) {
            let moved_slot = self.slots[moved.index() as usize].as_mut().expect("a bucket entry has a slot");
            moved_slot.at = at;
        } else if bucket.is_empty()
            && let Some(emptied) = self.buckets.remove(&key)
            && self.spare.len() < SPARE_BUCKETS
        {
            self.spare.push(emptied);
        }
    }

    /// Empties the index, keeping its allocations. O(slots + keys).
    pub(crate) fn clear(&mut self) {
        self.buckets.clear();
        self.slots.clear();
        self.entities = 0;
    }

    /// Checks the invariants. O(entities + slots).
    ///
    /// # Panics
    /// If one fails.
    #[cfg(test)]
    pub(crate) fn assert_invariants(&self) {
        let mut seen = 0;
        for (key, bucket) in &self.buckets {
            assert!(!bucket.is_empty(), "an empty bucket is kept");
            for (at, &entity) in bucket.iter().enumerate() {
                let slot = self.slots[entity.index() as usize].as_ref().expect("bucket entry without slot");
                assert!(slot.entity == entity && slot.key == *key && slot.at as usize == at);
                seen += 1;
            }
        }
        assert_eq!(seen, self.entities);
        assert_eq!(self.slots.iter().flatten().count(), self.entities);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(index: u32) -> Entity {
        Entity::new(index, std::num::NonZeroU32::MIN, 0)
    }

    #[test]
    fn filing_moves_between_buckets_and_drops_empty_ones() {
        let mut index = ComponentIndex::default();
        for i in 0..4 {
            index.file(entity(i), i % 2);
        }
        assert_eq!(index.get(&0), [entity(0), entity(2)]);
        index.file(entity(0), 1);
        assert_eq!(index.get(&0), [entity(2)]);
        assert_eq!(index.get(&1), [entity(1), entity(3), entity(0)]);
        index.unfile(entity(1));
        assert_eq!(index.get(&1), [entity(0), entity(3)], "the last entity takes the hole");
        index.unfile(entity(2));
        assert!(!index.contains_key(&0));
        assert_eq!((index.len(), index.entity_count()), (1, 2));
        assert_eq!(index.key_of(entity(3)), Some(&1));
        assert_eq!(index.key_of(entity(2)), None);
        index.assert_invariants();
    }
}
