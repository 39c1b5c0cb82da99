//! Relations (`World::relate`) in a snapshot: each registered relation kind's pairs, target marks
//! and index, by entity index.

use std::any::TypeId;

use serde::{Deserialize, Serialize};

use super::{SnapshotError, SnapshotRegistry};
use crate::entity::Entity;
use crate::hierarchy::{Pair, Relation, RelationState, relation_state, set_relation_state};
use crate::world::World;

/// One relation kind as written and read. Field order is the format.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename = "Relation")]
pub(crate) struct SavedRelation {
    /// The registered name.
    pub(crate) name: String,
    /// `(source index, target index)` per pair, in the pairs' pool row order.
    pub(crate) pairs: Vec<(u32, u32)>,
    /// The target marks' entity indices, in their pool's row order.
    pub(crate) marks: Vec<u32>,
    /// Per target index (increasing), its sources' indices in the order they were related.
    pub(crate) index: Vec<(u32, Vec<u32>)>,
}

/// One registered relation kind.
#[derive(Clone)]
pub(crate) struct RelationEntry {
    pub(crate) name: String,
    /// `TypeId` of `Pair<R>`: what ties the entry to the world's relation kinds.
    pair: TypeId,
    type_name: &'static str,
    state: fn(&World) -> RelationState,
    set: fn(&mut World, RelationState),
}

impl RelationEntry {
    /// The entry of relation `R` under `name`.
    pub(crate) fn new<R: Relation>(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            pair: TypeId::of::<Pair<R>>(),
            type_name: std::any::type_name::<R>(),
            state: relation_state::<R>,
            set: set_relation_state::<R>,
        }
    }
}

impl SnapshotRegistry {
    /// Registers relation `R` ([`World::relate`]) under `name`: snapshots carry its pairs, the
    /// marks on its targets and its index (each target's sources in relate order), so a loaded
    /// world answers [`World::related`] in the same order and cleans up as the saved one would.
    /// A world holding pairs of a relation kind not registered is refused by the save
    /// ([`SnapshotError::UnregisteredRelation`]) rather than saved without them.
    ///
    /// # Panics
    /// If `name` or `R` is already registered as a relation.
    ///
    /// # Examples
    /// ```
    /// use mosaic::hierarchy::Relation;
    /// use mosaic::{SnapshotRegistry, World};
    ///
    /// struct DockedAt;
    /// impl Relation for DockedAt {}
    ///
    /// let mut world = World::new();
    /// let [station, ship] = [(); 2].map(|()| world.spawn_empty());
    /// world.relate::<DockedAt>(ship, station).unwrap();
    ///
    /// let mut registry = SnapshotRegistry::new();
    /// registry.register_relation::<DockedAt>("docked_at");
    /// let text = registry.save_ron(&mut world).unwrap();
    /// let mut copy = World::new();
    /// registry.load_ron(&mut copy, &text).unwrap();
    /// assert_eq!(copy.target::<DockedAt>(ship), Some(station));
    /// assert_eq!(copy.related::<DockedAt>(station), [ship]);
    /// ```
    #[track_caller]
    pub fn register_relation<R: Relation>(&mut self, name: &str) -> &mut Self {
        let entry = RelationEntry::new::<R>(name);
        if let Some(other) = self.relations.iter().find(|e| e.pair == entry.pair) {
            panic!(
                "relation `{}` is already registered, as `{}`; register each type once",
                entry.type_name, other.name
            );
        }
        match self.relations.binary_search_by(|e| e.name.as_str().cmp(name)) {
            Ok(at) => panic!(
                "the relation name `{name}` is already taken by `{}`; pick another name for `{}`",
                self.relations[at].type_name, entry.type_name
            ),
            Err(at) => self.relations.insert(at, entry),
        }
        self
    }

    /// The registered relation names, sorted.
    pub fn relation_names(&self) -> impl Iterator<Item = &str> {
        self.relations.iter().map(|e| e.name.as_str())
    }

    /// The relations of `world` as written: every registered kind with a pair, a mark or an index
    /// entry, by name.
    ///
    /// # Errors
    /// [`SnapshotError::UnregisteredRelation`] if the world holds pairs of a kind not registered.
    pub(crate) fn saved_relations(&self, world: &World) -> Result<Vec<SavedRelation>, SnapshotError> {
        let components = world.components();
        for kind in &world.relation_index().kinds {
            let has_pairs = !components.pool(kind.pair).is_empty();
            let registered =
                || self.relations.iter().any(|e| components.id_by_type(e.pair) == Some(kind.pair));
            if has_pairs && !registered() {
                return Err(SnapshotError::UnregisteredRelation { relation: kind.name });
            }
        }
        let index = Entity::index;
        Ok(self
            .relations
            .iter()
            .map(|entry| ((entry.state)(world), entry))
            .filter(|(state, _)| {
                !(state.pairs.is_empty() && state.marks.is_empty() && state.index.is_empty())
            })
            .map(|(state, entry)| SavedRelation {
                name: entry.name.clone(),
                pairs: state.pairs.iter().map(|&(s, t)| (s.index(), t.index())).collect(),
                marks: state.marks.iter().copied().map(index).collect(),
                index: state
                    .index
                    .iter()
                    .map(|(t, s)| (t.index(), s.iter().copied().map(index).collect()))
                    .collect(),
            })
            .collect())
    }

    /// Checks loaded relations: known names, in increasing order, each once; every index names a
    /// live saved entity; each source has at most one pair and every pair's target is marked;
    /// the index lists exactly the pairs. O(pairs log pairs).
    ///
    /// # Errors
    /// The first problem, naming the relation.
    pub(crate) fn check_relations(
        &self,
        relations: &[SavedRelation],
        is_live: &dyn Fn(u32) -> bool,
    ) -> Result<(), SnapshotError> {
        for pair in relations.windows(2) {
            if pair[0].name >= pair[1].name {
                return Err(SnapshotError::DuplicateName { kind: "relation", name: pair[1].name.clone() });
            }
        }
        for saved in relations {
            if !self.relations.iter().any(|e| e.name == saved.name) {
                return Err(SnapshotError::Unknown { kind: "relation", name: saved.name.clone() });
            }
            let place = || format!("relation `{}`", saved.name);
            let live = |index: u32| {
                if is_live(index) {
                    Ok(())
                } else {
                    Err(SnapshotError::MissingEntity { index, place: place() })
                }
            };
            let mut sources: Vec<(u32, u32)> = Vec::with_capacity(saved.pairs.len());
            for &(source, target) in &saved.pairs {
                live(source)?;
                live(target)?;
                if !saved.marks.contains(&target) {
                    return Err(SnapshotError::Relation {
                        relation: saved.name.clone(),
                        index: target,
                        problem: "a pair's target is not marked",
                    });
                }
                sources.push((source, target));
            }
            sources.sort_unstable();
            if let Some(w) = sources.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(SnapshotError::DuplicateEntity { index: w[1].0, place: place() });
            }
            let mut marks = saved.marks.clone();
            marks.sort_unstable();
            if let Some(w) = marks.windows(2).find(|w| w[0] == w[1]) {
                return Err(SnapshotError::DuplicateEntity { index: w[1], place: place() });
            }
            for &mark in &saved.marks {
                live(mark)?;
            }
            // The index lists each pair once, under its target, and nothing else.
            let mut listed: Vec<(u32, u32)> = Vec::with_capacity(sources.len());
            for pair in saved.index.windows(2) {
                if pair[0].0 >= pair[1].0 {
                    return Err(SnapshotError::DuplicateEntity { index: pair[1].0, place: place() });
                }
            }
            for (target, from) in &saved.index {
                live(*target)?;
                listed.extend(from.iter().map(|&source| (source, *target)));
            }
            listed.sort_unstable();
            if listed != sources {
                return Err(SnapshotError::Relation {
                    relation: saved.name.clone(),
                    index: listed.iter().zip(&sources).find(|(a, b)| a != b).map_or(0, |(a, _)| a.0),
                    problem: "the index does not list exactly the pairs",
                });
            }
        }
        Ok(())
    }

    /// Gives `world` the loaded relations; `entity_of` maps saved indices to the world's
    /// entities. Checked by [`SnapshotRegistry::check_relations`] first.
    pub(crate) fn apply_relations(
        &self,
        world: &mut World,
        relations: Vec<SavedRelation>,
        entity_of: &dyn Fn(u32) -> Entity,
    ) {
        for saved in relations {
            let Some(entry) = self.relations.iter().find(|e| e.name == saved.name) else { continue };
            let state = RelationState {
                pairs: saved.pairs.iter().map(|&(s, t)| (entity_of(s), entity_of(t))).collect(),
                marks: saved.marks.iter().map(|&m| entity_of(m)).collect(),
                index: saved
                    .index
                    .iter()
                    .map(|(t, s)| (entity_of(*t), s.iter().map(|&i| entity_of(i)).collect()))
                    .collect(),
            };
            (entry.set)(world, state);
        }
    }
}
