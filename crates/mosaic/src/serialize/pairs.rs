//! Many-to-many pairs (`World::add_pair`) in a snapshot: each registered kind's pairs with their
//! values and slots, by entity index, and the target marks.

use std::marker::PhantomData;

use rustc_hash::FxHashSet;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::by_name::NamedData;
use super::registry::{Entry, Pending, add, decode_all};
use super::{MapEntities, SnapshotError, SnapshotRegistry};
use crate::entity::Entity;
use crate::hierarchy::{PairEntry, PairRelation, Targets};
use crate::world::World;

/// One kind's pairs as written: `(source index, [(target index, slot, value)])` per source, in
/// the row order of the `Targets<R>` pool, each source's targets in its order.
struct KindRows<'a, R> {
    world: &'a World,
    _marker: PhantomData<fn() -> R>,
}

/// One source's entries as written: `(target index, slot, value)` each.
struct EntriesOut<'a, R>(&'a [PairEntry<R>]);

impl<R: PairRelation + Serialize> Serialize for EntriesOut<'_, R> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|e| (e.target.index(), e.slot, &e.value)))
    }
}

impl<R: PairRelation + Serialize> Serialize for KindRows<'_, R> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(pool) = self.world.components().pool_of::<Targets<R>>() else {
            return serializer.collect_seq(std::iter::empty::<(u32, ())>());
        };
        let rows = pool.entities().iter().zip(pool.values::<Targets<R>>());
        serializer.collect_seq(rows.map(|(source, targets)| (source.index(), EntriesOut(&targets.entries))))
    }
}

fn save_kind<R: PairRelation + Serialize>(world: &World) -> Option<Box<dyn erased_serde::Serialize + '_>> {
    Some(Box::new(KindRows::<R> { world, _marker: PhantomData }))
}

fn save_kind_binary<R: PairRelation + Serialize>(world: &World) -> Option<Result<Vec<u8>, postcard::Error>> {
    let pairs = world.components().pool_of::<Targets<R>>().map_or(0, |pool| pool.len());
    let buffer = Vec::with_capacity(pairs * (size_of::<(u32, u32, u32, R)>() + 2) + 8);
    Some(postcard::to_extend(&KindRows::<R> { world, _marker: PhantomData }, buffer))
}

/// One source's values of one kind, as a sequence in its targets' order.
struct ValuesOut<'a, R>(&'a [PairEntry<R>]);

impl<R: PairRelation + Serialize> Serialize for ValuesOut<'_, R> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|e| &e.value))
    }
}

fn pairs_of_source<R: PairRelation + Serialize>(
    world: &World,
    source: Entity,
) -> Option<(Vec<Entity>, Box<dyn erased_serde::Serialize + '_>)> {
    let targets = world.components().pool_of::<Targets<R>>()?.get::<Targets<R>>(source)?;
    Some((targets.targets().collect(), Box::new(ValuesOut(&targets.entries))))
}

/// One registered pair kind of one source: what an inspector shows on an entity's page.
pub struct NamedPairs<'a> {
    /// The name the kind is registered under.
    pub name: &'a str,
    /// The Rust type name (`std::any::type_name`), for display only: not stable across builds.
    pub type_name: &'static str,
    /// The source's targets of the kind, in the order described on [`Targets`].
    pub targets: Vec<Entity>,
    /// The pairs' values, a sequence in the order of [`NamedPairs::targets`].
    pub values: Box<dyn erased_serde::Serialize + 'a>,
}

impl std::fmt::Debug for NamedPairs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NamedPairs")
            .field("name", &self.name)
            .field("type_name", &self.type_name)
            .field("targets", &self.targets)
            .finish_non_exhaustive()
    }
}

/// One source's pairs as read: its index, and `(target index, slot, value)` per pair.
type SourceRow<R> = (u32, Vec<(u32, u32, R)>);

/// One kind's pairs as read, per source, and how to rewrite the entity handles inside a value
/// (kinds registered with [`SnapshotRegistry::register_mapped_pair`]).
struct PendingPairs<R> {
    rows: Vec<SourceRow<R>>,
    map: Option<MapValue<R>>,
}

/// Rewrites the entity handles inside one pair value.
type MapValue<R> = fn(&mut R, &mut dyn FnMut(Entity) -> Entity);

fn load_kind<R: PairRelation + DeserializeOwned>(
    deserializer: &mut dyn erased_serde::Deserializer<'_>,
) -> Result<Box<dyn Pending>, erased_serde::Error> {
    Ok(Box::new(PendingPairs::<R> { rows: erased_serde::deserialize(deserializer)?, map: None }))
}

fn load_kind_binary<R: PairRelation + DeserializeOwned>(
    bytes: &[u8],
) -> Result<Box<dyn Pending>, SnapshotError> {
    Ok(Box::new(PendingPairs::<R> { rows: decode_all(bytes)?, map: None }))
}

fn load_mapped_kind<R: PairRelation + DeserializeOwned + MapEntities>(
    deserializer: &mut dyn erased_serde::Deserializer<'_>,
) -> Result<Box<dyn Pending>, erased_serde::Error> {
    let rows = erased_serde::deserialize(deserializer)?;
    Ok(Box::new(PendingPairs::<R> { rows, map: Some(<R as MapEntities>::map_entities) }))
}

fn load_mapped_kind_binary<R: PairRelation + DeserializeOwned + MapEntities>(
    bytes: &[u8],
) -> Result<Box<dyn Pending>, SnapshotError> {
    Ok(Box::new(PendingPairs::<R> { rows: decode_all(bytes)?, map: Some(<R as MapEntities>::map_entities) }))
}

impl<R: PairRelation> Pending for PendingPairs<R> {
    fn indices(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        Box::new(self.rows.iter().map(|&(source, _)| source))
    }

    /// Each source and target live, each source once with at least one target, no pair twice,
    /// at most one target per source for an exclusive kind, both directions of each pair of a
    /// symmetric kind, every target marked, and each target's slots `0..n` once each.
    /// O(pairs * log pairs).
    fn check(
        &self,
        name: &str,
        is_live: &dyn Fn(u32) -> bool,
        is_marked: &dyn Fn(u32) -> bool,
    ) -> Result<(), SnapshotError> {
        let place = || format!("pair kind `{name}`");
        let corrupt = |index: u32, problem: &'static str| SnapshotError::Relation {
            relation: name.to_owned(),
            index,
            problem,
        };
        let live = |index: u32| {
            if is_live(index) { Ok(()) } else { Err(SnapshotError::MissingEntity { index, place: place() }) }
        };
        let mut sources = FxHashSet::default();
        let mut pairs = FxHashSet::default();
        // (target, slot) of every pair, to check each target's slots.
        let mut slots: Vec<(u32, u32)> = Vec::new();
        for (source, entries) in &self.rows {
            live(*source)?;
            if !sources.insert(*source) {
                return Err(SnapshotError::DuplicateEntity { index: *source, place: place() });
            }
            if entries.is_empty() {
                return Err(corrupt(*source, "a source is listed with no target"));
            }
            if R::EXCLUSIVE && entries.len() > 1 {
                return Err(corrupt(*source, "a source of an exclusive kind has more than one target"));
            }
            for &(target, slot, _) in entries {
                live(target)?;
                if !pairs.insert((*source, target)) {
                    return Err(corrupt(*source, "the same pair is listed twice"));
                }
                if !is_marked(target) {
                    return Err(corrupt(target, "a pair's target is not marked"));
                }
                slots.push((target, slot));
            }
        }
        if R::SYMMETRIC
            && let Some(&(source, _)) = pairs.iter().find(|&&(s, t)| !pairs.contains(&(t, s)))
        {
            return Err(corrupt(source, "a pair of a symmetric kind has no mirror"));
        }
        slots.sort_unstable();
        for group in slots.chunk_by(|a, b| a.0 == b.0) {
            if group.iter().enumerate().any(|(i, &(_, slot))| slot as usize != i) {
                return Err(corrupt(group[0].0, "a target's sources do not have the slots 0..n once each"));
            }
        }
        Ok(())
    }

    fn apply(
        self: Box<Self>,
        world: &mut World,
        entity_of: &dyn Fn(u32) -> Entity,
        mut remap: Option<&mut dyn FnMut(Entity) -> Entity>,
    ) {
        let map_fn = self.map;
        let rows = self
            .rows
            .into_iter()
            .map(|(source, entries)| {
                let entries = entries
                    .into_iter()
                    .map(|(target, slot, mut value)| {
                        if let (Some(map_fn), Some(remap)) = (map_fn, remap.as_deref_mut()) {
                            map_fn(&mut value, remap);
                        }
                        PairEntry { target: entity_of(target), slot, value }
                    })
                    .collect();
                (entity_of(source), entries)
            })
            .collect();
        world.load_pairs::<R>(rows);
    }
}

impl Entry {
    /// The entry of pair kind `R` under `name`.
    pub(crate) fn pair_kind<R>(name: &str) -> Self
    where
        R: PairRelation + Serialize + DeserializeOwned,
    {
        let mut entry = Entry::new::<R>(
            name,
            (save_kind::<R>, load_kind::<R>),
            (save_kind_binary::<R>, load_kind_binary::<R>),
            load_kind::<R>,
        );
        entry.pairs_of = Some(pairs_of_source::<R>);
        entry
    }

    /// The entry of pair kind `R`, whose values hold entity handles, under `name`.
    pub(crate) fn mapped_pair_kind<R>(name: &str) -> Self
    where
        R: PairRelation + Serialize + DeserializeOwned + MapEntities,
    {
        let mut entry = Entry::new::<R>(
            name,
            (save_kind::<R>, load_mapped_kind::<R>),
            (save_kind_binary::<R>, load_mapped_kind_binary::<R>),
            load_kind::<R>,
        );
        entry.pairs_of = Some(pairs_of_source::<R>);
        entry
    }
}

impl SnapshotRegistry {
    /// Registers the many-to-many pair kind `R` ([`World::add_pair`]) under `name`: snapshots
    /// carry its pairs with their values, in the order [`World::pairs`] visits them, and each
    /// pair's place in its target's [`World::sources`], so a loaded world answers
    /// [`World::targets`], [`World::sources`], [`World::pairs`] and [`World::pairs_to`] in the
    /// saved order (into a world that already had the kind set up, `pairs_to` lists kinds in
    /// that world's order), and applies `R`'s cleanup policy and rollback as the saved one would.
    /// Loading into a world with entities remaps sources and targets alike; entity handles
    /// inside the values are kept as saved (see [`SnapshotRegistry::register_mapped_pair`]).
    ///
    /// A world holding pairs of a kind not registered is refused by the save
    /// ([`SnapshotError::UnregisteredPair`]) rather than saved without them. Saving costs
    /// O(pairs), loading O(pairs * log pairs).
    ///
    /// # Panics
    /// If `name` or `R` is already registered as a pair kind.
    ///
    /// # Examples
    /// ```
    /// use mosaic::hierarchy::PairRelation;
    /// use mosaic::{SnapshotRegistry, World};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    /// struct Owes(u32);
    /// impl PairRelation for Owes {}
    ///
    /// let mut world = World::new();
    /// let [ann, ben, cid] = [(); 3].map(|()| world.spawn_empty());
    /// world.add_pair_with(ann, ben, Owes(10));
    /// world.add_pair_with(cid, ben, Owes(5));
    ///
    /// let mut registry = SnapshotRegistry::new();
    /// registry.register_pair::<Owes>("owes");
    /// let bytes = registry.save_binary(&mut world).unwrap();
    /// let mut copy = World::new();
    /// registry.load_binary(&mut copy, &bytes).unwrap();
    /// assert_eq!(copy.pair_value::<Owes>(cid, ben), Some(&Owes(5)));
    /// assert_eq!(copy.sources::<Owes>(ben), [ann, cid]);
    /// ```
    #[track_caller]
    pub fn register_pair<R>(&mut self, name: &str) -> &mut Self
    where
        R: PairRelation + Serialize + DeserializeOwned,
    {
        add(&mut self.pairs, Entry::pair_kind::<R>(name), "pair kind");
        self
    }

    /// Registers pair kind `R`, whose values hold entity handles, under `name`: as
    /// [`SnapshotRegistry::register_pair`], and when a snapshot loads into a world that already
    /// has entities, each handle inside a value is rewritten to its entity's new id
    /// ([`MapEntities::map_entities`]; handles to entities not in the snapshot become dead).
    ///
    /// # Panics
    /// If `name` or `R` is already registered as a pair kind.
    #[track_caller]
    pub fn register_mapped_pair<R>(&mut self, name: &str) -> &mut Self
    where
        R: PairRelation + Serialize + DeserializeOwned + MapEntities,
    {
        add(&mut self.pairs, Entry::mapped_pair_kind::<R>(name), "pair kind");
        self
    }

    /// The registered pair kind names, sorted.
    pub fn pair_names(&self) -> impl Iterator<Item = &str> {
        self.pairs.iter().map(|e| e.name.as_str())
    }

    /// Each registered pair kind `world` has set up, sorted by name: [`NamedData::rows`] is its
    /// sources (entities with at least one pair of it), [`NamedData::value_bytes`] the size of
    /// one value, and the data serializes as in a snapshot (per source index, its `(target
    /// index, slot, value)`s). Nothing is serialized until a [`NamedData::data`] is.
    /// O(registered pair kinds) to yield them all.
    pub fn pair_data<'a>(&'a self, world: &'a World) -> impl Iterator<Item = NamedData<'a>> + 'a {
        self.pairs.iter().filter_map(move |entry| {
            let kind = world.pair_index().kinds.iter().find(|k| k.type_id == entry.type_id)?;
            Some(NamedData {
                name: &entry.name,
                type_name: entry.type_name,
                rows: world.components().pool(kind.pool).len(),
                value_bytes: entry.size,
                data: (entry.save)(world)?,
            })
        })
    }

    /// The pairs `source` has, one [`NamedPairs`] per registered kind it has any of, sorted by
    /// name: the targets and the values. Kinds not registered are left out. O(registered pair
    /// kinds + pairs of `source`).
    ///
    /// # Examples
    /// ```
    /// use mosaic::hierarchy::PairRelation;
    /// use mosaic::{SnapshotRegistry, World};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Clone, Serialize, Deserialize)]
    /// struct Owes(u32);
    /// impl PairRelation for Owes {}
    ///
    /// let mut world = World::new();
    /// let [ann, ben, cid] = [(); 3].map(|()| world.spawn_empty());
    /// world.add_pair_with(ann, ben, Owes(10));
    /// world.add_pair_with(ann, cid, Owes(5));
    /// let mut registry = SnapshotRegistry::new();
    /// registry.register_pair::<Owes>("owes");
    /// let pairs: Vec<_> = registry.pairs_of(&world, ann).collect();
    /// assert_eq!((pairs[0].name, pairs[0].targets.as_slice()), ("owes", &[ben, cid][..]));
    /// assert_eq!(ron::to_string(&pairs[0].values).unwrap(), "[(10),(5)]");
    /// assert_eq!(registry.pairs_of(&world, ben).count(), 0);
    /// ```
    pub fn pairs_of<'a>(
        &'a self,
        world: &'a World,
        source: Entity,
    ) -> impl Iterator<Item = NamedPairs<'a>> + 'a {
        self.pairs.iter().filter_map(move |entry| {
            let (targets, values) = (entry.pairs_of?)(world, source)?;
            Some(NamedPairs { name: &entry.name, type_name: entry.type_name, targets, values })
        })
    }
}
