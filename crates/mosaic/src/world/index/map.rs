//! [`ComponentIndex`]: the buckets of one value index, and the O(1) moves that keep them exact.

use std::hash::Hash;

use rustc_hash::FxHashMap;

use crate::entity::Entity;

/// Where an indexed entity is: its bucket and its place in it.
#[derive(Clone, Copy, Debug)]
struct Slot {
    /// The entity (the slot is per entity index; the generation tells a reused index apart).
    entity: Entity,
    /// The bucket (index in `ComponentIndex::buckets`) the entity is filed in.
    bucket: u32,
    /// Its position in that bucket.
    at: u32,
}

/// One key's bucket: the key and its entities. A bucket whose list is empty is free (its id is
/// on the free list, its key no longer in the key map).
#[derive(Clone, Debug)]
struct Bucket<K> {
    key: K,
    entities: Vec<Entity>,
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
/// Shape: a hash map from key to a bucket id, the buckets (each a key and a list of entities,
/// each live and holding the component), and per entity index the bucket and position its
/// entity is filed at, so taking an entity out needs no hashing, and filing hashes the new key
/// once (not at all when it is the key filed last). Every indexed entity is in exactly one
/// bucket; a key with no entity left is dropped from the map (so [`ComponentIndex::len`]
/// counts the distinct keys present) and its bucket is reused by the next new key.
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
// - `ids` maps each key present to a bucket id b with buckets[b].key == key and
//   buckets[b].entities non-empty; every other bucket id is in `free` and its list is empty;
// - for every live bucket b and i < buckets[b].entities.len(), with e = buckets[b].entities[i]:
//   slots[e.index()] is Some(Slot { entity: e, bucket: b, at: i });
// - every Some slot is reached that way (slots and bucket entries are in bijection);
// - `last`, when set, names a live bucket.
#[derive(Clone, Debug)]
pub struct ComponentIndex<K> {
    /// Key -> bucket id.
    ids: FxHashMap<K, u32>,
    /// Buckets by id; free ones (empty lists) are listed in `free`.
    buckets: Vec<Bucket<K>>,
    /// Ids of free buckets, reused by the next new key (their vectors keep their capacity).
    free: Vec<u32>,
    /// Per entity index.
    slots: Vec<Option<Slot>>,
    /// Number of entities filed.
    entities: usize,
    /// The bucket filed into last: a run of entities with one key (a catch-up over rows written
    /// alike) skips the key's hash.
    last: Option<u32>,
}

impl<K> Default for ComponentIndex<K> {
    fn default() -> Self {
        Self {
            ids: FxHashMap::default(),
            buckets: Vec::new(),
            free: Vec::new(),
            slots: Vec::new(),
            entities: 0,
            last: None,
        }
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
        self.ids.get(key).map_or(&[], |&id| self.buckets[id as usize].entities.as_slice())
    }

    /// The key `entity` is filed under, or `None` if it has no indexed component (or is not
    /// alive). O(1).
    pub fn key_of(&self, entity: Entity) -> Option<&K> {
        match self.slots.get(entity.index() as usize) {
            Some(Some(slot)) if slot.entity == entity => Some(&self.buckets[slot.bucket as usize].key),
            _ => None,
        }
    }

    /// Whether some entity has key `key`. O(1) expected.
    pub fn contains_key(&self, key: &K) -> bool {
        self.ids.contains_key(key)
    }

    /// Number of distinct keys present (non-empty buckets). O(1).
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no entity is filed. O(1).
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Number of entities filed (the component's pool length). O(1).
    pub fn entity_count(&self) -> usize {
        self.entities
    }

    /// The distinct keys present, each once, in no particular order. O(keys) to walk.
    pub fn keys(&self) -> impl Iterator<Item = &K> + '_ {
        self.ids.keys()
    }

    /// Every key with its bucket (never empty), in no particular order; each bucket in bucket
    /// order. O(keys) to walk, plus the buckets read.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &[Entity])> + '_ {
        self.ids.iter().map(|(key, &id)| (key, self.buckets[id as usize].entities.as_slice()))
    }

    /// Files `entity` under `key`, moving it out of the bucket it was in. O(1) expected: one
    /// hash of `key`, none when it is the key filed last; nothing moves when the key is
    /// unchanged.
    pub(crate) fn file(&mut self, entity: Entity, key: K) {
        let index = entity.index() as usize;
        match self.slots.get(index) {
            Some(&Some(Slot { entity: filed, bucket, at })) => {
                if filed == entity && self.buckets[bucket as usize].key == key {
                    return;
                }
                // Another key, or a dead entity of the same index still filed: out first.
                self.take_out(index, bucket, at);
            }
            Some(None) => {}
            None => self.slots.resize_with(index + 1, || None),
        }
        let bucket = match self.last {
            Some(last) if self.buckets[last as usize].key == key => last,
            _ => self.bucket_of(key),
        };
        self.last = Some(bucket);
        let entities = &mut self.buckets[bucket as usize].entities;
        let at = u32::try_from(entities.len()).expect("more than 2^32 entities under one key");
        entities.push(entity);
        self.slots[index] = Some(Slot { entity, bucket, at });
        self.entities += 1;
    }

    /// The id of `key`'s bucket, made (or a free one reused) when the key is new. One hash.
    fn bucket_of(&mut self, key: K) -> u32 {
        let (buckets, free) = (&mut self.buckets, &mut self.free);
        *self.ids.entry(key).or_insert_with_key(|key| match free.pop() {
            Some(id) => {
                buckets[id as usize].key = key.clone();
                id
            }
            None => {
                buckets.push(Bucket { key: key.clone(), entities: Vec::new() });
                u32::try_from(buckets.len() - 1).expect("more than 2^32 keys in one index")
            }
        })
    }

    /// Takes `entity` out of its bucket, if filed; the bucket's last entity takes its place.
    /// O(1), no hashing unless the bucket empties (its key then leaves the map).
    pub(crate) fn unfile(&mut self, entity: Entity) {
        let index = entity.index() as usize;
        if let Some(&Some(Slot { entity: filed, bucket, at })) = self.slots.get(index)
            && filed == entity
        {
            self.take_out(index, bucket, at);
        }
    }

    /// Takes the entity of slot `index`, filed at `at` in `bucket`, out of it: the bucket's last
    /// entity takes its place, and an emptied bucket is freed (its key leaves the map).
    fn take_out(&mut self, index: usize, bucket: u32, at: u32) {
        self.slots[index] = None;
        self.entities -= 1;
        let entities = &mut self.buckets[bucket as usize].entities;
        entities.swap_remove(at as usize);
        if let Some(&moved) = entities.get(at as usize) {
            let moved_slot = self.slots[moved.index() as usize].as_mut().expect("a bucket entry has a slot");
            moved_slot.at = at;
        } else if entities.is_empty() {
            self.ids.remove(&self.buckets[bucket as usize].key);
            self.free.push(bucket);
            if self.last == Some(bucket) {
                self.last = None;
            }
        }
    }

    /// Empties the index, keeping its allocations. O(slots + keys).
    pub(crate) fn clear(&mut self) {
        self.free.clear();
        for (id, bucket) in self.buckets.iter_mut().enumerate() {
            bucket.entities.clear();
            self.free.push(u32::try_from(id).expect("bucket ids fit u32"));
        }
        self.ids.clear();
        self.slots.clear();
        self.entities = 0;
        self.last = None;
    }

    /// Checks the invariants. O(entities + slots).
    ///
    /// # Panics
    /// If one fails.
    #[cfg(test)]
    pub(crate) fn assert_invariants(&self) {
        let mut seen = 0;
        for (key, &id) in &self.ids {
            let bucket = &self.buckets[id as usize];
            assert!(bucket.key == *key, "a key maps to another key's bucket");
            assert!(!bucket.entities.is_empty(), "an empty bucket is kept");
            for (at, &entity) in bucket.entities.iter().enumerate() {
                let slot = self.slots[entity.index() as usize].as_ref().expect("bucket entry without slot");
                assert!(slot.entity == entity && slot.bucket == id && slot.at as usize == at);
                seen += 1;
            }
        }
        assert_eq!(self.ids.len() + self.free.len(), self.buckets.len(), "a bucket is neither live nor free");
        assert!(self.free.iter().all(|&id| self.buckets[id as usize].entities.is_empty()));
        assert!(self.last.is_none_or(|id| !self.buckets[id as usize].entities.is_empty()));
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

    #[test]
    fn freed_buckets_are_reused_and_the_last_key_cache_follows() {
        let mut index = ComponentIndex::default();
        index.file(entity(0), "a");
        index.file(entity(1), "b");
        // "b" is the key filed last; emptying its bucket frees it and forgets the cache.
        index.unfile(entity(1));
        index.assert_invariants();
        // A new key takes the freed bucket; the cache must not send "c" to "b"'s old id.
        index.file(entity(2), "c");
        index.file(entity(3), "b");
        index.file(entity(4), "c");
        index.assert_invariants();
        assert_eq!(index.get(&"c"), [entity(2), entity(4)]);
        assert_eq!(index.get(&"b"), [entity(3)]);
        assert_eq!(index.key_of(entity(2)), Some(&"c"));
        // Refiling under the same key moves nothing; under another, the old bucket shrinks.
        index.file(entity(2), "c");
        assert_eq!(index.get(&"c"), [entity(2), entity(4)]);
        index.file(entity(2), "a");
        assert_eq!((index.get(&"a"), index.get(&"c")), (&[entity(0), entity(2)][..], &[entity(4)][..]));
        // A newer entity of a filed index replaces the dead one.
        let reborn = Entity::new(0, std::num::NonZeroU32::MIN.saturating_add(1), 0);
        index.file(reborn, "b");
        assert_eq!(index.key_of(entity(0)), None);
        assert_eq!(index.get(&"a"), [entity(2)]);
        assert_eq!(index.get(&"b"), [entity(3), reborn]);
        index.clear();
        index.assert_invariants();
        index.file(entity(5), "z");
        assert_eq!((index.len(), index.get(&"z")), (1, &[entity(5)][..]));
        index.assert_invariants();
    }
}
