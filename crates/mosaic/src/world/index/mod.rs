//! Value indexes: for a component type, the entities whose value has a given key, in O(1).
//!
//! An index follows its component lazily: it is brought up to date at each lookup, from two
//! records of what changed since the last one:
//! - **structural changes** (spawn, insert that adds or replaces, remove, despawn, `clear`, and
//!   every batch, bundle, command and template form of them) reach it as a row subscriber
//!   (`world/row_events.rs`) that takes batches: the pool of an indexed type is flagged, and the
//!   index notes the entities whose rows changed on a pending list (a copy of the batch's
//!   entities, no hashing); the lookup files each by its value then, or unfiles it when its row
//!   is gone. Past a bound (twice the rows of the pool plus 1,024) the list is dropped and the
//!   index rebuilt from the pool at the next lookup instead, which costs less by then;
//! - **in-place writes** (`World::get_mut`, `EntityMut`, queries with `&mut T` or `Mut<T>`) cannot
//!   be seen when they happen (the value is written after the borrow is handed out), so the
//!   lookup walks the pool's change log from the tick it last caught up at
//!   (`ChangeTracker::changed_since`), refiling each entity changed since. `add_index` turns
//!   change tracking on for the type at run time if its derive did not.
//!
//! A lookup is so O(log n + changes since), and an entity added and removed between two lookups
//! costs the index two list entries and one slot check, never a hash.
//!
//! The state is plain data in a world field. Restores that rewrite pools behind the subscribers'
//! back (a rollback restore, a snapshot load) mark every index stale, and a stale index is
//! rebuilt from its pool on its next lookup: O(n).
//!
//! Why not eager refresh through a hook per write: in-place writes have no hook (bevy's
//! component hooks do not fire on `Mut` either), and `bevy_mod_index` refreshes by policy (each
//! lookup, or once a frame), which can read stale keys; the change log makes the lazy refresh both
//! exact and O(changed).

mod map;

use std::any::{Any, TypeId};
use std::cell::UnsafeCell;
use std::hash::Hash;

pub use self::map::ComponentIndex;
use super::row_events::{Needs, RowChange, RowSubscriber, WorldUse};
use super::{IndexError, World};
use crate::component::{AosComponent, ComponentId};
use crate::entity::Entity;
use crate::storage::{Clock, RowEvents, SparseSet, Tick};

/// One index, type-erased: what the world calls without knowing the component or key type.
trait ErasedIndex: Any + Send + Sync {
    /// Notes that `entities`' rows of the indexed component were added, replaced or removed
    /// (in a pool now `pool_len` rows long): the next catch-up refiles or unfiles them.
    fn note(&mut self, entities: &[Entity], pool_len: usize);
    /// Brings the index up to date with `pool`'s in-place writes (or rebuilds it when stale).
    fn catch_up(&mut self, pool: &SparseSet, clock: &Clock);
    /// Marks the index stale: its next lookup rebuilds it.
    fn invalidate(&mut self);
    /// For downcasting to the typed index.
    fn as_any(&self) -> &dyn Any;
}

/// The index of component `T` by key `K`, with its catch-up state.
struct KeyedIndex<T, K> {
    /// Computes an entity's key from its value.
    key: fn(&T) -> K,
    map: ComponentIndex<K>,
    /// The tick of the last catch-up: every in-place write stamped at it or later may be unseen.
    caught: Tick,
    /// Whether the pool may have changed behind the index's back (a restore): rebuild on lookup.
    stale: bool,
    /// Entities whose row was added, replaced or removed since the last catch-up, in event
    /// order (an entity may appear more than once). Bounded: past the rows a rebuild would
    /// read, the index goes stale instead (see `ErasedIndex::note`).
    pending: Vec<Entity>,
}

impl<T: AosComponent, K: Eq + Hash + Clone + Send + Sync + 'static> KeyedIndex<T, K> {
    /// Refiles every entity of `pool`. O(n).
    fn rebuild(&mut self, pool: &SparseSet) {
        self.map.clear();
        self.pending.clear();
        for (&entity, value) in pool.entities().iter().zip(pool.values::<T>()) {
            self.map.file(entity, (self.key)(value));
        }
        self.stale = false;
    }
}

impl<T: AosComponent, K: Eq + Hash + Clone + Send + Sync + 'static> ErasedIndex for KeyedIndex<T, K> {
    fn note(&mut self, entities: &[Entity], pool_len: usize) {
        if self.stale {
            return;
        }
        // Refiling the pending entities costs about what a rebuild from the pool does once they
        // outnumber its rows: from there, a rebuild at the next lookup is cheaper (and the list
        // stops growing).
        let bound = 2 * pool_len.max(self.map.entity_count()) + 1024;
        if self.pending.len() + entities.len() > bound {
            self.stale = true;
            self.pending.clear();
        } else {
            self.pending.extend_from_slice(entities);
        }
    }

    fn catch_up(&mut self, pool: &SparseSet, clock: &Clock) {
        let now = clock.now();
        let Some(changes) = pool.changes().filter(|_| !self.stale && !clock.too_old(self.caught)) else {
            // Stale, untracked (a restore into a world that does not track `T`), or not caught up
            // for longer than the change log keeps entries.
            self.rebuild(pool);
            self.caught = now;
            return;
        };
        // Structural changes since the last catch-up, in event order: each entity is filed by
        // its value now, or unfiled when its row is gone (a later note of the same entity finds
        // the same state: nothing moves).
        for &entity in &self.pending {
            match pool.get::<T>(entity) {
                Some(value) => self.map.file(entity, (self.key)(value)),
                None => self.map.unfile(entity),
            }
        }
        self.pending.clear();
        // Writes stamped at the tick of the last catch-up may have come after it: that tick is
        // walked again (its entries refile nothing when the key did not change).
        let since = Tick::new(self.caught.get().wrapping_sub(1) & clock.mask());
        // Rows of the pool as it is now: read in place, no lookup per entity.
        let values = pool.values::<T>();
        let (map, key) = (&mut self.map, self.key);
        changes.for_each_changed(clock.ticks(since, now), pool.lookup(), |row, entity| {
            map.file(entity, key(&values[row]));
        });
        self.caught = now;
    }

    fn invalidate(&mut self) {
        self.stale = true;
        self.pending.clear();
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// One index in its cell: the key type it is by, and the index behind an `UnsafeCell`, so the
/// [`Index`](crate::Index) system parameter can catch it up through `&World` while it holds the
/// index exclusively (a declared write; see `World::index_shared`).
struct IndexCell {
    key: TypeId,
    index: UnsafeCell<Box<dyn ErasedIndex>>,
}

// SAFETY: the index is `Send + Sync` (an `ErasedIndex` supertrait). Through `&IndexCell` it is
// reached mutably only by `World::index_shared`, whose caller holds the index exclusively (the
// scheduler's write access to the index's marker, which two systems never hold at once, and no
// `&mut World` can exist meanwhile); everything else goes through `&mut IndexCell`.
unsafe impl Sync for IndexCell {}

impl IndexCell {
    fn get_mut(&mut self) -> &mut dyn ErasedIndex {
        &mut **self.index.get_mut()
    }
}

/// Every value index of a world, per component id (a row subscriber).
#[derive(Default)]
pub(crate) struct Indexes {
    /// Indexed by component id; shorter than the registry when later types have no index.
    of: Vec<Vec<IndexCell>>,
}

impl std::fmt::Debug for Indexes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Indexes").field("count", &self.of.iter().map(Vec::len).sum::<usize>()).finish()
    }
}

impl Indexes {
    /// The indexes of component `id`.
    #[inline]
    fn of(&self, id: ComponentId) -> &[IndexCell] {
        self.of.get(id.index()).map_or(&[], Vec::as_slice)
    }

    /// The indexes of component `id`, mutably.
    #[inline]
    fn of_mut(&mut self, id: ComponentId) -> &mut [IndexCell] {
        self.of.get_mut(id.index()).map_or(&mut [], Vec::as_mut_slice)
    }

    /// The index of component `id` by key type `key`, if any.
    fn find(&self, id: ComponentId, key: TypeId) -> Option<&IndexCell> {
        self.of(id).iter().find(|cell| cell.key == key)
    }

    /// Marks every index stale: their next lookups rebuild them from the pools. For the paths
    /// that rewrite pools without row events (rollback restore, snapshot load) and for a batch
    /// that panicked midway. O(indexes).
    pub(crate) fn invalidate(&mut self) {
        for cell in self.of.iter_mut().flatten() {
            cell.get_mut().invalidate();
        }
    }
}

/// Marks every index stale if dropped during a panic: a batch primitive that panics midway
/// (a dead entity in `insert_batch`) has changed rows it will not report.
pub(crate) struct InvalidateOnUnwind<'a>(Option<&'a mut Indexes>);

impl<'a> InvalidateOnUnwind<'a> {
    pub(crate) fn new(indexes: &'a mut Indexes) -> Self {
        Self(Some(indexes))
    }

    /// The indexes, once the batch is through (no invalidation then).
    pub(crate) fn into_inner(mut self) -> &'a mut Indexes {
        self.0.take().expect("taken once")
    }
}

impl Drop for InvalidateOnUnwind<'_> {
    fn drop(&mut self) {
        if let Some(indexes) = self.0.take()
            && std::thread::panicking()
        {
            indexes.invalidate();
        }
    }
}

impl Indexes {
    /// Notes that `entities`' rows of component `id` (in `pool`) were added, replaced or removed
    /// (a batch): each index of `id` refiles them at its next lookup. O(entities) per index of
    /// `id` (a copy of the slice), or O(1) for an index already stale.
    pub(crate) fn note_rows(&mut self, pool: &SparseSet, id: ComponentId, entities: &[Entity]) {
        for cell in self.of_mut(id) {
            cell.get_mut().note(entities, pool.len());
        }
    }
}

impl RowSubscriber for Indexes {
    const NEEDS: Needs =
        Needs { name: "value indexes", old_value: false, world: WorldUse::RowOnly, batch: true };

    fn events(world: &World, id: ComponentId) -> RowEvents {
        if world.indexes.of(id).is_empty() {
            RowEvents::NONE
        } else {
            RowEvents::ADD | RowEvents::REPLACE | RowEvents::REMOVE
        }
    }

    /// Nothing: an index files by entity, so it needs no old value.
    fn before(_: &mut World, _: &RowChange<'_>) {}

    /// Notes the entity in the indexes of each added, replaced or removed indexed component:
    /// they refile it at their next lookup.
    fn after(world: &mut World, change: &RowChange<'_>) {
        let World { indexes, components, .. } = world;
        if indexes.of.is_empty() {
            return;
        }
        for &id in change.added.iter().chain(change.replaced).chain(change.removed) {
            indexes.note_rows(components.pool(id), id, std::slice::from_ref(&change.entity));
        }
    }
}

impl World {
    /// Adds an index of component `T` by its value: afterwards [`World::index`] answers "which
    /// entities have this `T`?" in O(1). Shorthand for
    /// [`World::add_index_by_key::<T, T>(T::clone)`](World::add_index_by_key), with the same
    /// costs and rules. The source: bevy users reach for `bevy_mod_index` (bevy#4513,
    /// bevy#17608); here the index is part of the world and exact at every lookup.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component, Clone, PartialEq, Eq, Hash, Debug)]
    /// enum Team { Red, Blue }
    ///
    /// let mut world = World::new();
    /// world.add_index::<Team>();
    /// let a = world.spawn(Team::Red);
    /// let b = world.spawn(Team::Red);
    /// *world.get_mut::<Team>(a).unwrap() = Team::Blue; // an in-place write
    /// let teams = world.index::<Team>();
    /// assert_eq!(teams.get(&Team::Red), [b]);
    /// assert_eq!(teams.get(&Team::Blue), [a]);
    /// assert_eq!(teams.key_of(a), Some(&Team::Blue));
    /// assert_eq!(teams.len(), 2);
    /// ```
    pub fn add_index<T: AosComponent + Eq + Hash + Clone>(&mut self) {
        self.add_index_by_key::<T, T>(T::clone);
    }

    /// Adds an index of component `T` by the key `key` computes from each value (a field, a
    /// grid cell of a position): afterwards [`World::index_by_key::<T, K>`](World::index_by_key)
    /// answers "which entities have a `T` whose key is this?" in O(1). An index is identified by
    /// `(T, K)`: adding one for a pair that has one replaces it (rebuilt with the new `key`).
    ///
    /// Named after the standard library's `sort_by_key` / `max_by_key`: `_by_key` is the form
    /// that takes a key function (and not `_by_id`, the house suffix of the runtime-id forms).
    ///
    /// The index is exact at every lookup, through every write of `T`: structural changes are
    /// noted as they happen (the pool of `T` takes the path that runs row subscribers; other
    /// types' pools are not affected) and filed at the next lookup, and in-place writes are
    /// caught up on then too, from `T`'s change log. So this turns change tracking on for `T` if it was off (as
    /// [`World::track_changes`] does; it stays on if the index is removed). `key` should be a
    /// pure function of the value: the index files an entity by what `key` returned when it last
    /// saw the value written.
    ///
    /// Costs: O(n) now, in `T`'s n rows; O(1) per structural change of `T` (an entry on a
    /// pending list, bounded by 2n + 1,024 entries, past which the next lookup rebuilds in
    /// O(n)); the change tracking of `T`'s in-place writes; O(log n + changes since) per
    /// lookup.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Position { x: i32, y: i32 }
    ///
    /// /// The 10x10 cell a position is in.
    /// fn cell(p: &Position) -> (i32, i32) {
    ///     (p.x.div_euclid(10), p.y.div_euclid(10))
    /// }
    ///
    /// let mut world = World::new();
    /// world.add_index_by_key::<Position, (i32, i32)>(cell);
    /// let a = world.spawn(Position { x: 3, y: 4 });
    /// let b = world.spawn(Position { x: 15, y: 4 });
    /// world.query::<&mut Position>().for_each(|p| p.x += 10);
    /// let cells = world.index_by_key::<Position, (i32, i32)>();
    /// assert_eq!(cells.get(&(1, 0)), [a]);
    /// assert_eq!(cells.get(&(2, 0)), [b]);
    /// ```
    pub fn add_index_by_key<T, K>(&mut self, key: fn(&T) -> K)
    where
        T: AosComponent,
        K: Eq + Hash + Clone + Send + Sync + 'static,
    {
        self.flush();
        self.track_changes::<T>();
        let id = self.components.register::<T>();
        let mut index = KeyedIndex::<T, K> {
            key,
            map: ComponentIndex::default(),
            caught: self.components.clock().now(),
            stale: false,
            pending: Vec::new(),
        };
        index.rebuild(self.components.pool(id));
        let cell = IndexCell { key: TypeId::of::<K>(), index: UnsafeCell::new(Box::new(index)) };
        let indexes = &mut self.indexes;
        if indexes.of.len() <= id.index() {
            indexes.of.resize_with(id.index() + 1, Vec::new);
        }
        let list = &mut indexes.of[id.index()];
        match list.iter_mut().find(|c| c.key == cell.key) {
            Some(slot) => *slot = cell,
            None => list.push(cell),
        }
        self.refresh_row_events(id);
    }

    /// Removes the index of `T` by its value; returns whether there was one. `T`'s changes
    /// stay tracked. O(distinct component sets).
    pub fn remove_index<T: AosComponent + Eq + Hash + Clone>(&mut self) -> bool {
        self.remove_index_by_key::<T, T>()
    }

    /// Removes the index of `T` by key type `K`; returns whether there was one. `T`'s changes
    /// stay tracked. O(distinct component sets).
    pub fn remove_index_by_key<T: AosComponent, K: 'static>(&mut self) -> bool {
        let Some(id) = self.components.id::<T>() else { return false };
        let Some(list) = self.indexes.of.get_mut(id.index()) else { return false };
        let Some(at) = list.iter().position(|c| c.key == TypeId::of::<K>()) else { return false };
        list.remove(at);
        self.refresh_row_events(id);
        true
    }

    /// The index of `T` by its value, brought up to date: see [`ComponentIndex`] for the
    /// lookups (entities of a key, key of an entity, keys). O(log n + changes of `T` since the
    /// last lookup), O(n) after a restore.
    ///
    /// Takes `&mut self` because catching up on in-place writes changes the index; in a system,
    /// take an [`Index<T>`](crate::Index) parameter instead.
    ///
    /// # Panics
    /// If `T` has no value index; see [`World::try_index`] for the fallible form.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component, Clone, Copy, PartialEq, Eq, Hash)]
    /// struct Owner(u32);
    ///
    /// let mut world = World::new();
    /// world.add_index::<Owner>();
    /// let ships: Vec<_> = (0..6).map(|i| world.spawn(Owner(i % 3))).collect();
    /// world.despawn(ships[0]);
    /// assert_eq!(world.index::<Owner>().get(&Owner(0)), [ships[3]]);
    /// assert_eq!(world.index::<Owner>().entity_count(), 5);
    /// ```
    #[track_caller]
    pub fn index<T: AosComponent + Eq + Hash + Clone>(&mut self) -> &ComponentIndex<T> {
        match self.try_index_by_key::<T, T>() {
            Ok(index) => index,
            Err(error) => panic!("{error}"),
        }
    }

    /// The index of `T` by its value, brought up to date; the fallible form of
    /// [`World::index`].
    ///
    /// # Errors
    /// [`IndexError::NoIndex`] if `T` has no value index.
    pub fn try_index<T: AosComponent + Eq + Hash + Clone>(
        &mut self,
    ) -> Result<&ComponentIndex<T>, IndexError> {
        self.try_index_by_key::<T, T>()
    }

    /// The index of `T` by key type `K`, brought up to date; as [`World::index`].
    ///
    /// # Panics
    /// If `T` has no index by `K`; see [`World::try_index_by_key`].
    #[track_caller]
    pub fn index_by_key<T: AosComponent, K: Eq + Hash + Clone + Send + Sync + 'static>(
        &mut self,
    ) -> &ComponentIndex<K> {
        match self.try_index_by_key::<T, K>() {
            Ok(index) => index,
            Err(error) => panic!("{error}"),
        }
    }

    /// The index of `T` by key type `K`, brought up to date; the fallible form of
    /// [`World::index_by_key`].
    ///
    /// # Errors
    /// [`IndexError::NoIndex`] if `T` has no index by `K`.
    pub fn try_index_by_key<T: AosComponent, K: Eq + Hash + Clone + Send + Sync + 'static>(
        &mut self,
    ) -> Result<&ComponentIndex<K>, IndexError> {
        let missing =
            || IndexError::NoIndex { component: std::any::type_name::<T>(), key: std::any::type_name::<K>() };
        let id = self.components.id::<T>().ok_or_else(missing)?;
        let World { indexes, components, .. } = self;
        let cell = indexes.of_mut(id).iter_mut().find(|c| c.key == TypeId::of::<K>()).ok_or_else(missing)?;
        let index = cell.get_mut();
        index.catch_up(components.pool(id), components.clock());
        Ok(typed::<T, K>(index))
    }

    /// Whether `T` has an index by key type `K`. O(indexes of `T`).
    pub(crate) fn has_index<T: AosComponent, K: 'static>(&self) -> bool {
        self.components.id::<T>().is_some_and(|id| self.indexes.find(id, TypeId::of::<K>()).is_some())
    }

    /// The index of `T` by `K`, brought up to date through `&self`, or `None` if there is none:
    /// for the [`Index`](crate::Index) system parameter.
    ///
    /// # Safety
    /// For `'w`, nothing else reads or writes this index (the scheduler's write access to its
    /// marker), and nothing writes `T` (a declared read of `T`): so the catch-up is the only
    /// access to the index, and the pool's rows and change log hold still while it reads them.
    pub(crate) unsafe fn index_shared<T: AosComponent, K: Eq + Hash + Clone + Send + Sync + 'static>(
        &self,
    ) -> Option<&ComponentIndex<K>> {
        let id = self.components.id::<T>()?;
        let cell = self.indexes.find(id, TypeId::of::<K>())?;
        // SAFETY: by the caller's guarantee no other reference to this index exists for 'w, so
        // the `&mut` made from the cell is unique; it is dropped (reborrowed as shared) before the
        // function returns, and only shared references are handed out after it.
        let index: &mut dyn ErasedIndex = unsafe { &mut **cell.index.get() };
        index.catch_up(self.components.pool(id), self.components.clock());
        Some(typed::<T, K>(index))
    }
}

/// The typed view of an index known to be of `T` by `K` (its cell's key is `K`, and it sits in
/// `T`'s list).
fn typed<T: AosComponent, K: Eq + Hash + Clone + Send + Sync + 'static>(
    index: &dyn ErasedIndex,
) -> &ComponentIndex<K> {
    &index.as_any().downcast_ref::<KeyedIndex<T, K>>().expect("an index cell holds its own types").map
}
