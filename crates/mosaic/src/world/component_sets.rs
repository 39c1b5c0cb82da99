//! Which component types each entity has: one interned set id per entity.
//!
//! Every distinct set of component types the world has seen is stored once, sorted, in a table;
//! an entity holds only the 4-byte id of its set. Adding or removing a component moves the entity
//! along a cached edge of the set graph (bevy's archetype graph, `Edges`, without the tables:
//! values stay in the per-type sparse sets). Despawn walks the set's ids, so it stays O(k) in the
//! entity's k components, as a per-entity list made it, at 4 bytes per entity instead of 24.

#[cfg(feature = "rollback")]
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rustc_hash::FxHashMap;

use crate::component::ComponentId;
use crate::storage::RowEvents;

/// The id of one interned set of component types; [`EMPTY`] is the set with none.
pub(crate) type SetId = u32;

/// The empty set, always id 0: every new or dead entity's set.
pub(crate) const EMPTY: SetId = 0;

/// An edge not followed yet.
const UNKNOWN: SetId = SetId::MAX;

/// The last edge a batch took ([`ComponentSets::step`]): from one set to another, for one
/// component id and direction, fixed for the batch. Valid while the table is not replaced
/// (edges, once followed, never change).
#[derive(Clone, Copy, Debug)]
pub(crate) struct EdgeMemo {
    from: SetId,
    to: SetId,
}

impl EdgeMemo {
    /// No edge taken yet ([`UNKNOWN`] is no set's id).
    pub(crate) const fn new() -> Self {
        Self { from: UNKNOWN, to: UNKNOWN }
    }
}

/// Source of [`ComponentSets::lineage`] values. Starts at 1: 0 names no table (an image never
/// saved).
#[cfg(feature = "rollback")]
static LINEAGES: AtomicU64 = AtomicU64::new(1);

/// One interned set and its cached edges.
#[derive(Debug, Clone)]
struct SetEntry {
    /// The set's ids, ascending.
    ids: Box<[ComponentId]>,
    /// By component index: the set with that component added ([`UNKNOWN`] until first
    /// followed; the set itself when the component is already in it).
    with: Vec<SetId>,
    /// By component index: the set with that component removed, likewise.
    without: Vec<SetId>,
    /// The union of the row events its components' pools' subscribers want: what an operation
    /// on a whole entity (spawn of a bundle, despawn) tests to take the plain path.
    events: RowEvents,
}

/// Per entity index, the set of component types it has; and the table of sets.
///
/// Complexity: [`ComponentSets::add`] and [`ComponentSets::remove`] are O(1) along a cached edge,
/// and O(k) (plus a hash of the k ids) the first time an edge is followed; [`ComponentSets::ids`]
/// is O(1). Memory: 4 bytes per entity slot, plus per distinct set its ids and two edge arrays
/// of at most one entry per registered component type. Sets are never freed: the table holds
/// every set any entity of the world ever had, as bevy keeps every archetype.
//
// Invariants:
// - `sets[EMPTY]` is the empty set; every set's ids are ascending and distinct, and `index` maps
//   each set's ids to its id, one entry per set;
// - every known edge is right: `with[c]` of set `s` names `s ∪ {c}`, `without[c]` names `s ∖ {c}`;
// - every entry of `of` names a set of the table; a slot with no live entity holds `EMPTY`.
#[derive(Debug)]
pub(crate) struct ComponentSets {
    /// Per entity index, its set.
    of: Vec<SetId>,
    sets: Vec<SetEntry>,
    index: FxHashMap<Box<[ComponentId]>, SetId>,
    /// By component index: the row events its pool's subscribers want (a copy of the pool's
    /// flag, from which each set's union is computed). Shorter than the registry when later
    /// types have none.
    component_events: Vec<RowEvents>,
    /// Names this table: set ids saved from it mean the same sets in it later (the table only
    /// grows), and in no other table. Only rollback images need it.
    #[cfg(feature = "rollback")]
    lineage: u64,
}

impl Default for ComponentSets {
    fn default() -> Self {
        let empty =
            SetEntry { ids: Box::default(), with: Vec::new(), without: Vec::new(), events: RowEvents::NONE };
        let mut index = FxHashMap::default();
        index.insert(Box::default(), EMPTY);
        Self {
            of: Vec::new(),
            sets: vec![empty],
            index,
            component_events: Vec::new(),
            #[cfg(feature = "rollback")]
            lineage: LINEAGES.fetch_add(1, Relaxed),
        }
    }
}

impl ComponentSets {
    /// The component ids of the entity in slot `index`, ascending. O(1).
    #[inline]
    pub(crate) fn ids(&self, index: u32) -> &[ComponentId] {
        &self.sets[self.of[index as usize] as usize].ids
    }

    /// The ids of set `set`, ascending.
    #[inline]
    pub(crate) fn set_ids(&self, set: SetId) -> &[ComponentId] {
        &self.sets[set as usize].ids
    }

    /// The row events some component of set `set` has subscribers for. O(1).
    #[inline(always)]
    pub(crate) fn events(&self, set: SetId) -> RowEvents {
        self.sets[set as usize].events
    }

    /// Records that the subscribers of component `id`'s pool now want `events`, and recomputes
    /// every set's union. O(total ids of all sets): subscribers come and go rarely.
    pub(crate) fn set_component_events(&mut self, id: ComponentId, events: RowEvents) {
        if self.component_events.len() <= id.index() {
            self.component_events.resize(id.index() + 1, RowEvents::NONE);
        }
        self.component_events[id.index()] = events;
        for entry in &mut self.sets {
            entry.events = union_of(&self.component_events, &entry.ids);
        }
    }

    /// The set of the entity in slot `index`.
    #[inline]
    pub(crate) fn set_of(&self, index: u32) -> SetId {
        self.of[index as usize]
    }

    /// The set of every slot, by index.
    #[inline]
    pub(crate) fn sets_of(&self) -> &[SetId] {
        &self.of
    }

    /// Hints the CPU to fetch the set entry of slot `index` (nothing past the table). O(1).
    #[inline]
    pub(crate) fn prefetch_set_of(&self, index: u32) {
        if let Some(set) = self.of.get(index as usize) {
            crate::storage::prefetch(set);
        }
    }

    /// Adds `id` to the set of the entity in slot `index` (no change if it is there already).
    #[inline]
    pub(crate) fn add(&mut self, index: u32, id: ComponentId) {
        self.of[index as usize] = self.edge(self.of[index as usize], id, true);
    }

    /// Takes `id` out of the set of the entity in slot `index` (no change if it is not there).
    #[inline]
    pub(crate) fn remove(&mut self, index: u32, id: ComponentId) {
        self.of[index as usize] = self.edge(self.of[index as usize], id, false);
    }

    /// Adds `id` to (`add`) or takes it out of the set of the entity in slot `index`, as
    /// [`Self::add`] / [`Self::remove`], remembering the edge taken in `last`: a batch moves
    /// most of its entities between the same two sets, so it looks the edge up once and then
    /// pays a compare per entity. Start a batch with [`EdgeMemo::new`].
    #[inline(always)]
    pub(crate) fn step(&mut self, index: u32, id: ComponentId, add: bool, last: &mut EdgeMemo) {
        let from = self.of[index as usize];
        let to = if from == last.from {
            last.to
        } else {
            let to = self.edge(from, id, add);
            *last = EdgeMemo { from, to };
            to
        };
        self.of[index as usize] = to;
    }

    /// Gives the entity in slot `index` set `set` (an id of this table) and returns its old set.
    #[inline]
    pub(crate) fn replace(&mut self, index: u32, set: SetId) -> SetId {
        debug_assert!((set as usize) < self.sets.len(), "set {set} is not in the table");
        std::mem::replace(&mut self.of[index as usize], set)
    }

    /// The set of `from` with every id of `ids` added, following (and caching) the edges.
    pub(crate) fn set_with_all(&mut self, from: SetId, ids: &[ComponentId]) -> SetId {
        ids.iter().fold(from, |set, &id| self.edge(set, id, true))
    }

    /// The set of `from` with `id` added (`add`) or removed: the cached edge, else [`Self::follow`].
    #[inline(always)]
    fn edge(&mut self, from: SetId, id: ComponentId, add: bool) -> SetId {
        let entry = &self.sets[from as usize];
        let edges = if add { &entry.with } else { &entry.without };
        match edges.get(id.index()) {
            Some(&to) if to != UNKNOWN => to,
            _ => self.follow(from, id, add),
        }
    }

    /// The set of `from` with `id` added (`add`) or removed, interned, and the edge cached.
    #[cold]
    #[inline(never)]
    fn follow(&mut self, from: SetId, id: ComponentId, add: bool) -> SetId {
        let ids = &self.sets[from as usize].ids;
        let to = match (ids.binary_search(&id), add) {
            (Ok(_), true) | (Err(_), false) => from,
            (Err(at), true) => {
                let mut next = Vec::with_capacity(ids.len() + 1);
                next.extend_from_slice(&ids[..at]);
                next.push(id);
                next.extend_from_slice(&ids[at..]);
                self.intern(next.into())
            }
            (Ok(at), false) => {
                let mut next = ids.to_vec();
                next.remove(at);
                self.intern(next.into())
            }
        };
        let edges = &mut self.sets[from as usize];
        let edges = if add { &mut edges.with } else { &mut edges.without };
        if edges.len() <= id.index() {
            edges.resize(id.index() + 1, UNKNOWN);
        }
        edges[id.index()] = to;
        to
    }

    /// The id of the set holding exactly `ids` (ascending, distinct), added to the table if new.
    fn intern(&mut self, ids: Box<[ComponentId]>) -> SetId {
        debug_assert!(ids.windows(2).all(|w| w[0] < w[1]), "set ids must be ascending and distinct");
        if let Some(&set) = self.index.get(&ids) {
            return set;
        }
        let set = SetId::try_from(self.sets.len())
            .ok()
            .filter(|&set| set != UNKNOWN)
            .expect("more than 2^32 - 1 distinct component sets");
        self.index.insert(ids.clone(), set);
        let events = union_of(&self.component_events, &ids);
        self.sets.push(SetEntry { ids, with: Vec::new(), without: Vec::new(), events });
        set
    }

    /// Makes sure every slot below `slots` has an entry (new slots hold [`EMPTY`]).
    #[inline]
    pub(crate) fn fit(&mut self, slots: usize) {
        let len = self.of.len();
        if len < slots {
            // One new slot (an entity allocated after the last) is the common case: a push.
            if len + 1 == slots {
                self.of.push(EMPTY);
            } else {
                self.of.resize(slots, EMPTY);
            }
        }
    }

    /// Reserves room for entries up to slot count `slots`.
    pub(crate) fn reserve_slots(&mut self, slots: usize) {
        self.of.reserve(slots.saturating_sub(self.of.len()));
    }

    /// Releases spare capacity of the per-entity entries.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.of.shrink_to_fit();
    }

    /// Empties every entity's set (the table of sets stays).
    pub(crate) fn clear_all(&mut self) {
        self.of.fill(EMPTY);
    }

    /// Number of distinct sets in the table, the empty one included.
    #[cfg(test)]
    fn set_count(&self) -> usize {
        self.sets.len()
    }
}

/// The union of `events` over `ids` (a component past the end of `events` wants none).
fn union_of(events: &[RowEvents], ids: &[ComponentId]) -> RowEvents {
    let mut union = RowEvents::NONE;
    for id in ids {
        union |= events.get(id.index()).copied().unwrap_or_default();
    }
    union
}

/// A copy of the per-entity set ids, saved and restored by rollback with no allocation once its
/// buffer is warm.
#[cfg(feature = "rollback")]
#[derive(Clone, Debug, Default)]
pub(crate) struct SetsImage {
    of: Vec<SetId>,
    /// The table the ids index (0, which names no table, before the first save).
    lineage: u64,
}

#[cfg(feature = "rollback")]
impl SetsImage {
    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.of.len() * size_of::<SetId>()
    }
}

#[cfg(feature = "rollback")]
impl ComponentSets {
    /// Copies the per-entity set ids into `image`. O(slots).
    pub(crate) fn save_image(&self, image: &mut SetsImage) {
        image.of.clear();
        image.of.extend_from_slice(&self.of);
        image.lineage = self.lineage;
    }

    /// Puts the per-entity set ids of `image` back, if it was saved from this table (which has
    /// only grown since, so its ids still mean the same sets), and returns whether it did. The
    /// caller rebuilds the sets from the pools otherwise. O(slots).
    pub(crate) fn restore_image(&mut self, image: &SetsImage) -> bool {
        if image.lineage != self.lineage {
            return false;
        }
        self.of.clear();
        self.of.extend_from_slice(&image.of);
        true
    }

    /// Every slot below `slots` emptied, for a rebuild from the pools.
    pub(crate) fn reset(&mut self, slots: usize) {
        self.of.clear();
        self.of.resize(slots, EMPTY);
    }
}

#[cfg(feature = "rollback")]
impl super::World {
    /// Recomputes every live entity's component set from the pools (rows of dead entities, which
    /// lazily cleaned pools keep, are passed over). O(slots + rows).
    pub(crate) fn rebuild_component_sets(&mut self) {
        self.component_sets.reset(self.entities.slot_count() as usize);
        for (index, pool) in self.components.pools().iter().enumerate() {
            let id = ComponentId::from_index(index);
            for &entity in pool.entities() {
                if self.entities.is_alive(entity) {
                    self.component_sets.add(entity.index(), id);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(index: usize) -> ComponentId {
        ComponentId::from_index(index)
    }

    #[test]
    fn sets_are_shared_sorted_and_edges_cached() {
        let mut sets = ComponentSets::default();
        sets.fit(3);
        sets.add(0, id(2));
        sets.add(0, id(0));
        sets.add(1, id(0));
        sets.add(1, id(2));
        assert_eq!(sets.ids(0), &[id(0), id(2)]);
        assert_eq!(sets.set_of(0), sets.set_of(1), "one set, whatever the order of adds");
        let count = sets.set_count();
        sets.add(2, id(2));
        sets.add(2, id(0));
        assert_eq!(sets.set_count(), count, "the edges already known lead to the same sets");
        sets.add(2, id(0));
        assert_eq!(sets.ids(2), &[id(0), id(2)], "adding a present id changes nothing");
        sets.remove(2, id(1));
        assert_eq!(sets.ids(2), &[id(0), id(2)], "removing an absent id changes nothing");
        sets.remove(2, id(0));
        sets.remove(2, id(2));
        assert_eq!(sets.set_of(2), EMPTY);
        assert!(sets.ids(2).is_empty());
    }

    #[test]
    fn each_set_carries_the_union_of_its_components_events() {
        let mut sets = ComponentSets::default();
        sets.fit(2);
        sets.add(0, id(1));
        sets.add(0, id(3));
        sets.add(1, id(2));
        let (a, b) = (sets.set_of(0), sets.set_of(1));
        assert!(sets.events(a).is_empty() && sets.events(b).is_empty());
        sets.set_component_events(id(3), RowEvents::REMOVE);
        assert_eq!(sets.events(a), RowEvents::REMOVE);
        assert!(sets.events(b).is_empty(), "a set without the component is not flagged");
        // A set made after the flag was set gets it at creation.
        sets.add(1, id(3));
        assert_eq!(sets.events(sets.set_of(1)), RowEvents::REMOVE);
        sets.set_component_events(id(2), RowEvents::ADD);
        assert_eq!(sets.events(sets.set_of(1)), RowEvents::ADD | RowEvents::REMOVE);
        sets.set_component_events(id(3), RowEvents::NONE);
        assert!(sets.events(a).is_empty(), "a flag taken away clears the unions");
        assert_eq!(sets.events(sets.set_of(1)), RowEvents::ADD);
    }

    #[test]
    fn sets_match_a_model_under_random_adds_and_removes() {
        let mut sets = ComponentSets::default();
        let mut model = vec![std::collections::BTreeSet::new(); 8];
        sets.fit(8);
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..if cfg!(miri) { 500 } else { 4000 } {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let entity = (state % 8) as u32;
            let component = id((state >> 8) as usize % 70);
            if state >> 40 & 1 == 0 {
                sets.add(entity, component);
                model[entity as usize].insert(component);
            } else {
                sets.remove(entity, component);
                model[entity as usize].remove(&component);
            }
            let expected: Vec<_> = model[entity as usize].iter().copied().collect();
            assert_eq!(sets.ids(entity), expected.as_slice());
        }
    }
}
