//! A sparse set: the per-component-type pool.
//!
//! `mod.rs` holds the pool and its per-entity operations; `rows.rs` the operations that move or
//! drop rows (swap, permute, swap-remove, clear); `lookup.rs` the entity-to-row view queries
//! copy into their loops.

use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::changes::ChangeTracker;
use super::sparse::EMPTY as EMPTY_ROW;
use super::tick::Clock;
use super::{Column, ColumnInfo, FieldColumn, RowEvents, SoaColumns, SoaLayout, SparseArray, StorageInfo};
use crate::entity::Entity;

/// The pool of one component type: which entities have it and their values, packed.
///
/// Shape: `len` rows; row `r` holds entity `dense[r]` and its value. Rows are in insertion order
/// until a removal moves the last row into the hole (swap-remove), so iteration order is arbitrary
/// but deterministic for the same sequence of operations. Rows and pointers stay valid until the
/// next insert or remove on this pool.
///
/// Lookups compare the whole entity (index and generation), so a stale handle never reaches the
/// value of the entity that reused its slot.
///
/// Complexity: `insert`, `remove`, `get`, `contains` are O(1) (insert amortised).
///
/// Design: EnTT's `basic_sparse_set` / `basic_storage` and shipyard's `SparseSet`.
//
// Invariants:
// - `dense.len()` equals the number of values in `data`;
// - for every row r < len: `sparse.get(dense[r].index()) == Some(r)`;
// - every index with a sparse entry is the index of exactly one dense entity;
// - in a lazy pool, rows of dead entities may also remain ("stale" rows): their index's sparse
//   entry may point elsewhere (to the row of the index's live entity) or be empty.
#[derive(Debug)]
pub struct SparseSet {
    sparse: SparseArray,
    dense: Vec<Entity>,
    data: PoolData,
    /// Unique among all pools of the process, so caches keyed by pools never mix worlds.
    uid: u64,
    /// Bumped by every change to `dense` (insert of a new entity, remove, swap, clear).
    version: u64,
    /// Lazy cleanup: despawn leaves dead entities' rows here until a collector removes them.
    lazy: bool,
    /// Per-row change ticks and the change and removal logs, once change tracking is on.
    changes: Option<Box<ChangeTracker>>,
    /// The row events the pool's subscribers outside storage want (set by the world).
    events: RowEvents,
}

/// The values of a pool, in either layout.
#[derive(Debug)]
enum PoolData {
    Aos(Column),
    Soa(SoaColumns),
}

impl PoolData {
    /// The array-of-structs column.
    ///
    /// # Panics
    /// If the pool is struct-of-arrays.
    #[inline]
    #[track_caller]
    fn column_mut(&mut self) -> &mut Column {
        match self {
            Self::Aos(column) => column,
            Self::Soa(columns) => {
                panic!("the pool of `{}` is struct-of-arrays, not a column", columns.info().type_name())
            }
        }
    }

    /// The struct-of-arrays columns.
    ///
    /// # Panics
    /// If the pool is array-of-structs.
    #[inline]
    #[track_caller]
    fn soa_mut(&mut self) -> &mut SoaColumns {
        match self {
            Self::Soa(columns) => columns,
            Self::Aos(column) => panic!("the pool of `{}` is array-of-structs", column.info().type_name()),
        }
    }
}

/// Source of pool uids.
static NEXT_POOL_UID: AtomicU64 = AtomicU64::new(1);

mod batch;
#[cfg(feature = "rollback")]
mod image_parts;
mod lookup;
mod rows;
#[cfg(test)]
mod tests;

use lookup::common_prefix;
pub use lookup::{IndexOrder, RowLookup};
pub(crate) use rows::PermuteScratch;

impl SparseSet {
    /// An empty pool with the layout `info`. Allocates nothing.
    ///
    /// `info` must describe a `Send + Sync` type (see [`Column::new`]).
    pub fn new(info: StorageInfo) -> Self {
        let data = match info {
            StorageInfo::Aos(info) => PoolData::Aos(Column::new(info)),
            StorageInfo::Soa(info) => PoolData::Soa(SoaColumns::new(info)),
        };
        Self {
            sparse: SparseArray::new(),
            dense: Vec::new(),
            data,
            uid: NEXT_POOL_UID.fetch_add(1, Ordering::Relaxed),
            version: 0,
            lazy: false,
            changes: None,
            events: RowEvents::NONE,
        }
    }

    /// Turns change tracking on, stamping with `clock`: every present row counts as added and
    /// changed now. Does nothing if it is on already. O(len).
    pub fn track_changes(&mut self, clock: &Arc<Clock>) {
        if self.changes.is_none() {
            let fields = match &self.data {
                PoolData::Aos(_) => 0,
                PoolData::Soa(columns) => columns.info().field_count(),
            };
            self.changes = Some(Box::new(ChangeTracker::new(Arc::clone(clock), &self.dense, fields)));
        }
    }

    /// The change tracker, if tracking is on.
    #[inline]
    pub fn changes(&self) -> Option<&ChangeTracker> {
        self.changes.as_deref()
    }

    /// The change tracker mutably, if tracking is on.
    #[inline]
    pub fn changes_mut(&mut self) -> Option<&mut ChangeTracker> {
        self.changes.as_deref_mut()
    }

    /// Records that `entity`'s value changed now, if tracking is on and the entity is in the
    /// pool. O(1) amortised.
    #[inline]
    pub fn mark_changed(&mut self, entity: Entity) {
        if let Some(changes) = self.changes.as_deref_mut() {
            let lookup = RowLookup { sparse: self.sparse.view(), dense: &self.dense };
            if let Some(row) = lookup.row_of(entity) {
                changes.mark_mut(row, entity, lookup);
            }
        }
    }

    /// Records that the value at `row` changed now (when changes are tracked): what
    /// [`SparseSet::mark_changed`] does once it found the entity's row. O(1) amortised.
    ///
    /// # Panics
    /// If `row` is out of bounds.
    #[track_caller]
    pub fn mark_changed_at(&mut self, row: usize) {
        let entity = self.dense[row];
        if let Some(changes) = self.changes.as_deref_mut() {
            changes.mark_mut(row, entity, RowLookup { sparse: self.sparse.view(), dense: &self.dense });
        }
    }

    /// Drains the rows queries stamped into the change log, before the rows move.
    #[inline]
    fn settle_changes(&mut self) {
        if let Some(changes) = self.changes.as_deref_mut() {
            changes.settle(RowLookup { sparse: self.sparse.view(), dense: &self.dense });
        }
    }

    /// Runs the change tracker's periodic wraparound check (see `ChangeTracker::check`).
    pub fn check_changes(&mut self) {
        if let Some(changes) = self.changes.as_deref_mut() {
            changes.check(RowLookup { sparse: self.sparse.view(), dense: &self.dense });
        }
    }

    /// Records a new row for `entity` (just pushed) in the change tracker.
    #[inline]
    fn track_push(&mut self, entity: Entity) {
        if let Some(changes) = self.changes.as_deref_mut() {
            changes.push_row(entity);
        }
    }

    /// The row events this pool's subscribers want ([`RowEvents::NONE`] when it has none): what
    /// a structural change of the pool tests to choose between the plain path and the one that
    /// runs subscribers. O(1).
    #[inline(always)]
    pub fn row_events(&self) -> RowEvents {
        self.events
    }

    /// Sets the row events this pool's subscribers want (the world recomputes it whenever a
    /// subscriber of the pool comes or goes).
    pub fn set_row_events(&mut self, events: RowEvents) {
        self.events = events;
    }

    /// Marks the pool as lazily cleaned: its owner may leave dead entities' rows in it (see
    /// [`SparseSet::remove_row_and_drop`]), and every operation tolerates such stale rows.
    pub fn set_lazy(&mut self, lazy: bool) {
        self.lazy = lazy;
    }

    /// Whether the pool is lazily cleaned.
    #[inline]
    pub fn is_lazy(&self) -> bool {
        self.lazy
    }

    /// Whether dropping a value of the pool runs code (its type has drop glue): a batch that
    /// removes rows of such pools drops them in command order, on the calling thread.
    #[inline]
    pub fn needs_drop(&self) -> bool {
        match &self.data {
            PoolData::Aos(column) => column.info().needs_drop(),
            PoolData::Soa(columns) => columns.info().needs_drop(),
        }
    }

    /// The stored type's name.
    pub fn type_name(&self) -> &'static str {
        match &self.data {
            PoolData::Aos(column) => column.info().type_name(),
            PoolData::Soa(columns) => columns.info().type_name(),
        }
    }

    /// Whether the pool stores its values field by field.
    pub fn is_soa(&self) -> bool {
        matches!(self.data, PoolData::Soa(_))
    }

    #[inline]
    #[track_caller]
    fn aos(&self) -> &Column {
        match &self.data {
            PoolData::Aos(column) => column,
            PoolData::Soa(columns) => {
                panic!("the pool of `{}` is struct-of-arrays, not a column", columns.info().type_name())
            }
        }
    }

    #[inline]
    #[track_caller]
    fn aos_mut(&mut self) -> &mut Column {
        self.data.column_mut()
    }

    /// The struct-of-arrays columns.
    ///
    /// # Panics
    /// If the pool is array-of-structs.
    #[inline]
    #[track_caller]
    pub fn soa(&self) -> &SoaColumns {
        match &self.data {
            PoolData::Soa(columns) => columns,
            PoolData::Aos(column) => {
                panic!("the pool of `{}` is array-of-structs", column.info().type_name())
            }
        }
    }

    /// The values' column as a typed base pointer, for derived query code.
    ///
    /// # Panics
    /// If the pool is struct-of-arrays or `T` is not its type.
    #[inline]
    #[track_caller]
    pub fn aos_column<T: 'static>(&self) -> FieldColumn<'_, T> {
        FieldColumn::from_ptr(self.aos().typed_ptr::<T>())
    }

    /// Number of entities in the pool.
    #[inline]
    pub fn len(&self) -> usize {
        self.dense.len()
    }

    /// Whether the pool is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.dense.is_empty()
    }

    /// The entities of the pool, in row order.
    #[inline]
    pub fn entities(&self) -> &[Entity] {
        &self.dense
    }

    /// The row of `entity`, if it is in the pool. O(1).
    #[inline]
    pub fn row_of(&self, entity: Entity) -> Option<usize> {
        self.lookup().row_of(entity)
    }

    /// The pool's process-wide unique id: with [`SparseSet::version`], what caches of facts about
    /// a pool (the query layer's alignments) key on.
    #[inline]
    pub fn uid(&self) -> u64 {
        self.uid
    }

    /// The pool's structural version: bumped by every change to which entity sits at which row
    /// (insert of a new entity, removal, swap, clear, restore). O(1).
    #[inline]
    pub fn version(&self) -> u64 {
        self.version
    }

    /// How the rows are ordered by entity index (sorted, or a run of consecutive indices). O(n)
    /// (a scan of the entities); the query layer remembers the answer per [`SparseSet::version`].
    pub fn index_order(&self) -> IndexOrder {
        lookup::index_order(&self.dense)
    }

    /// A copyable view that answers [`SparseSet::row_of`] without going through `self`, for hot
    /// loops such as query iteration.
    #[inline]
    pub fn lookup(&self) -> RowLookup<'_> {
        RowLookup { sparse: self.sparse.view(), dense: &self.dense }
    }

    /// Hints the CPU to fetch `index`'s sparse entry: the first step of touching an entity's
    /// row in a batch ([`SparseSet::prefetch_row_of`] once the entry is in cache). O(1).
    #[inline]
    pub(crate) fn prefetch_entry(&self, index: u32) {
        self.sparse.prefetch(index);
    }

    /// Hints the CPU to fetch the row of the entity in slot `index` (its entity and its values),
    /// reading the sparse entry to find it (best fetched first, [`SparseSet::prefetch_entry`]).
    /// Nothing if the slot has no row. O(fields).
    #[inline]
    pub(crate) fn prefetch_row_of(&self, index: u32) {
        let Some(row) = self.sparse.get(index) else { return };
        let row = row as usize;
        if let Some(entity) = self.dense.get(row) {
            crate::storage::prefetch(entity);
        }
        match &self.data {
            PoolData::Aos(column) => column.prefetch_row(row),
            PoolData::Soa(columns) => columns.prefetch_row(row),
        }
    }

    /// Whether `entity` is in the pool. O(1).
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.row_of(entity).is_some()
    }

    /// Whether `entity`, which must be alive, is in the pool. O(1): one sparse entry read.
    ///
    /// A pool that is not lazily cleaned holds only live entities, and only one live entity has a
    /// given index, so for a live `entity` an entry at its index is its own row and the dense
    /// check of [`SparseSet::contains`] can be skipped. A lazy pool takes the full check. For a
    /// dead `entity` the answer is unspecified (never unsafe: it is a `bool`).
    #[inline(always)]
    pub fn contains_alive(&self, entity: Entity) -> bool {
        if self.lazy { self.contains(entity) } else { self.sparse.get(entity.index()).is_some() }
    }

    /// Inserts or replaces `entity`'s value; returns the replaced value. O(1) amortised.
    ///
    /// # Panics
    /// If `T` is not the pool's type.
    #[inline]
    #[track_caller]
    pub fn insert<T: 'static>(&mut self, entity: Entity, value: T) -> Option<T> {
        self.insert_with(
            entity,
            value,
            |data, row, value| data.column_mut().replace(row, value),
            |data, value| data.column_mut().push(value),
        )
    }

    /// Appends `value` for `entity`, which the pool does not hold (an entity just allocated):
    /// [`SparseSet::insert`] without the search for a row to replace. O(1) amortised.
    ///
    /// One page lookup writes the entry; a pool that tracks changes takes the general path.
    ///
    /// # Panics
    /// If `T` is not the pool's type, the pool is struct-of-arrays, or it would pass
    /// `u32::MAX - 1` rows. Debug builds also check that the pool does not hold `entity`.
    #[inline(always)]
    #[track_caller]
    pub fn push_new<T: 'static>(&mut self, entity: Entity, value: T) {
        debug_assert!(!self.contains(entity), "push_new: the entity is already in the pool");
        if self.changes.is_some() {
            let old = self.insert(entity, value);
            debug_assert!(old.is_none(), "push_new: the entity is already in the pool");
            return;
        }
        let len = self.dense.len();
        assert!(
            len < u32::MAX as usize,
            "sparse set row overflow: more than u32::MAX - 1 values in one pool"
        );
        self.data.column_mut().push(value);
        self.dense.push(entity);
        *self.sparse.entry_mut(entity.index()) = len as u32;
        self.version += 1;
    }

    /// Appends `values` for `entities` (the same length, row by row), none of which the pool
    /// holds: an array-of-structs pool moves them with one copy ([`Column::append_vec`]) and
    /// extends its entity list and index; the fastest way to fill a pool for new entities
    /// (hecs' column batches). O(n).
    ///
    /// # Panics
    /// Before anything changes: if the lengths differ, the pool is struct-of-arrays or lazily
    /// cleaned (use [`SparseSet::insert_soa`] / [`SparseSet::insert`] per row there), `T` is not
    /// its type, or the pool would pass `u32::MAX - 1` rows. Debug builds also check that no
    /// entity is already in the pool.
    #[track_caller]
    pub fn append_new<T: 'static>(&mut self, entities: &[Entity], values: Vec<T>) {
        assert_eq!(entities.len(), values.len(), "append_new: one value per entity");
        assert!(!self.lazy, "append_new: a lazily cleaned pool may hold stale rows; insert row by row");
        let len = self.dense.len();
        assert!(
            len + entities.len() < u32::MAX as usize,
            "sparse set row overflow: more than u32::MAX - 1 values in one pool"
        );
        self.data.column_mut().check_type::<T>();
        // The world passes entities it has just allocated, which no pool holds; a repeated
        // entity would leave a stale row (a logic error, not unsoundness: rows stay distinct).
        debug_assert!(
            entities.iter().all(|&e| !self.contains(e)),
            "append_new: an entity is already in the pool"
        );
        self.settle_changes();
        self.data.column_mut().append_vec(values);
        self.dense.extend_from_slice(entities);
        self.sparse.assign_rows(entities, len as u32);
        self.version += 1;
        if self.changes.is_some() {
            for &entity in entities {
                self.track_push(entity);
            }
        }
    }

    /// The value of `entity`, if present.
    ///
    /// # Panics
    /// If `T` is not the pool's type.
    #[inline]
    #[track_caller]
    pub fn get<T: 'static>(&self, entity: Entity) -> Option<&T> {
        let row = self.row_of(entity);
        self.aos().get(row?)
    }

    /// The value of `entity` mutably, if present.
    ///
    /// # Panics
    /// If `T` is not the pool's type.
    #[inline]
    #[track_caller]
    pub fn get_mut<T: 'static>(&mut self, entity: Entity) -> Option<&mut T> {
        let row = self.row_of(entity);
        self.aos_mut().get_mut(row?)
    }

    /// Removes `entity` and returns its value, if present. O(1): the last row moves into the hole.
    ///
    /// # Panics
    /// If `T` is not the pool's type.
    #[inline]
    #[track_caller]
    pub fn remove<T: 'static>(&mut self, entity: Entity) -> Option<T> {
        self.remove_with(entity, |data, row| data.column_mut().swap_remove::<T>(row))
    }

    /// Inserts or replaces `entity`'s value in a struct-of-arrays pool; returns the replaced
    /// value. O(fields) amortised.
    ///
    /// # Panics
    /// If the pool is array-of-structs or `T` is not its type.
    #[track_caller]
    pub fn insert_soa<T: SoaLayout>(&mut self, entity: Entity, value: T) -> Option<T> {
        self.insert_with(
            entity,
            value,
            |data, row, value| data.soa_mut().replace(row, value),
            |data, value| data.soa_mut().push(value),
        )
    }

    /// Removes `entity` from a struct-of-arrays pool and returns its value, rebuilt. O(fields).
    ///
    /// # Panics
    /// If the pool is array-of-structs or `T` is not its type.
    #[track_caller]
    pub fn remove_soa<T: SoaLayout>(&mut self, entity: Entity) -> Option<T> {
        self.remove_with(entity, |data, row| data.soa_mut().swap_remove::<T>(row))
    }

    /// The layout-independent part of [`SparseSet::insert`] and [`SparseSet::insert_soa`]:
    /// `replace` overwrites a present row, `push` appends a value; both do the typed work and
    /// panic on a wrong layout or type before anything changes.
    ///
    /// One page lookup finds the entry and, for a new entity, is where its row goes. The entry
    /// is written only after the value and the entity are in, and only a stored entity's entry
    /// names its row.
    #[inline(always)]
    #[track_caller]
    fn insert_with<T>(
        &mut self,
        entity: Entity,
        value: T,
        replace: impl FnOnce(&mut PoolData, usize, T) -> T,
        push: impl FnOnce(&mut PoolData, T),
    ) -> Option<T> {
        self.settle_changes();
        let len = self.dense.len();
        let entry = self.sparse.entry_mut(entity.index());
        let row = *entry as usize;
        if row < len && self.dense[row] == entity {
            let old = replace(&mut self.data, row, value);
            self.mark_changed(entity);
            return Some(old);
        }
        assert!(
            len < u32::MAX as usize,
            "sparse set row overflow: more than u32::MAX - 1 values in one pool"
        );
        push(&mut self.data, value);
        self.dense.push(entity);
        *entry = len as u32;
        self.version += 1;
        self.track_push(entity);
        None
    }

    /// The layout-independent part of [`SparseSet::remove`], [`SparseSet::remove_soa`] and
    /// [`SparseSet::remove_and_drop`]: `take` swap-removes the value at a row, doing the typed
    /// work and panicking on a wrong layout or type before anything changes (or only reports the
    /// row, leaving the value in the column: unlinking touches the index alone).
    ///
    /// In a pool with no stale rows, one page lookup finds the row and, after `take`, clears the
    /// entry.
    #[inline(always)]
    #[track_caller]
    fn remove_with<T>(&mut self, entity: Entity, take: impl FnOnce(&mut PoolData, usize) -> T) -> Option<T> {
        if self.lazy {
            let row = self.row_of(entity)?;
            let value = take(&mut self.data, row);
            self.unlink(entity, row);
            return Some(value);
        }
        self.settle_changes();
        let entry = self.sparse.get_mut(entity.index())?;
        let row = *entry as usize;
        if row >= self.dense.len() || self.dense[row] != entity {
            return None;
        }
        let value = take(&mut self.data, row);
        *entry = EMPTY_ROW;
        self.unlink_cleared(entity, row);
        Some(value)
    }

    /// Removes `entity` and drops its value, if present; returns whether it was present. O(1).
    ///
    /// Panic safety: the pool is consistent before the value's `Drop` runs.
    ///
    /// # Panics
    /// If the value's `Drop` panics (the pool is then still consistent and the value dropped).
    pub fn remove_and_drop(&mut self, entity: Entity) -> bool {
        // The index is fixed first (the `take` step only reports the row; the value stays in the
        // column until the drop below), so a panicking drop leaves a consistent pool.
        let Some(row) = self.remove_with(entity, |_, row| row) else {
            return false;
        };
        match &mut self.data {
            PoolData::Aos(column) => column.swap_remove_and_drop(row),
            PoolData::Soa(columns) => columns.swap_remove_and_drop(row),
        }
        true
    }

    /// Inserts or replaces `entity`'s value with the one whose bytes are at `src` (moved in);
    /// returns whether a value was replaced (and dropped). For run-time components, which have
    /// no Rust type. O(1) amortised.
    ///
    /// # Safety
    /// As [`Column::push_raw`]: `src` holds one value of the pool's type, which the caller
    /// neither uses nor drops afterwards.
    ///
    /// # Panics
    /// If the pool is struct-of-arrays.
    pub unsafe fn insert_raw(&mut self, entity: Entity, src: *const u8) -> bool {
        self.insert_with(
            entity,
            src,
            // SAFETY: forwarded from the caller.
            |data, row, src| unsafe {
                data.column_mut().replace_raw(row, src);
                src
            },
            // SAFETY: forwarded from the caller.
            |data, src| unsafe { data.column_mut().push_raw(src) },
        )
        .is_some()
    }

    /// Removes `entity`'s value, moving its bytes to `dst` (the caller owns it then); returns
    /// whether it was present. O(1).
    ///
    /// # Safety
    /// As [`Column::swap_remove_raw`]: `dst` is valid for writes of one value's size.
    ///
    /// # Panics
    /// If the pool is struct-of-arrays.
    pub unsafe fn remove_raw(&mut self, entity: Entity, dst: *mut u8) -> bool {
        // SAFETY: forwarded from the caller.
        self.remove_with(entity, |data, row| unsafe { data.column_mut().swap_remove_raw(row, dst) }).is_some()
    }

    /// The address of `entity`'s value, if present (for run-time components).
    ///
    /// # Panics
    /// If the pool is struct-of-arrays.
    #[inline]
    pub fn value_ptr(&self, entity: Entity) -> Option<NonNull<u8>> {
        let row = self.row_of(entity)?;
        Some(self.aos().value_ptr(row))
    }

    /// Every value's bytes in row order, for a pool of plain values (a run-time component with
    /// a schema); `None` otherwise. O(1).
    #[cfg(feature = "rollback")]
    #[inline]
    pub fn column_bytes(&self) -> Option<&[u8]> {
        match &self.data {
            PoolData::Aos(column) => column.bytes(),
            PoolData::Soa(_) => None,
        }
    }

    /// The array-of-structs column's description, or `None` for a struct-of-arrays pool.
    #[inline]
    pub fn column_info(&self) -> Option<&ColumnInfo> {
        match &self.data {
            PoolData::Aos(column) => Some(column.info()),
            PoolData::Soa(_) => None,
        }
    }

    /// The address of row 0 of the array-of-structs column (rows are its layout's size apart).
    ///
    /// # Panics
    /// If the pool is struct-of-arrays.
    #[inline]
    pub fn base_ptr(&self) -> NonNull<u8> {
        self.aos().base_ptr()
    }

    /// All values as a slice, in row order (matching [`SparseSet::entities`]).
    ///
    /// # Panics
    /// If `T` is not the pool's type.
    #[inline]
    #[track_caller]
    pub fn values<T: 'static>(&self) -> &[T] {
        self.aos().as_slice()
    }

    /// All values as a mutable slice, in row order.
    ///
    /// # Panics
    /// If `T` is not the pool's type.
    #[inline]
    #[track_caller]
    pub fn values_mut<T: 'static>(&mut self) -> &mut [T] {
        self.aos_mut().as_mut_slice()
    }

    /// Base pointer of the values, for query fetch; see [`Column::typed_ptr`] for its validity.
    ///
    /// # Panics
    /// If `T` is not the pool's type.
    #[inline]
    #[track_caller]
    pub fn typed_ptr<T: 'static>(&self) -> NonNull<T> {
        self.aos().typed_ptr()
    }

    /// Reserves room for `additional` more entities.
    pub fn reserve(&mut self, additional: usize) {
        self.dense.reserve(additional);
        match &mut self.data {
            PoolData::Aos(column) => column.reserve(additional),
            PoolData::Soa(columns) => columns.reserve(additional),
        }
    }

    /// Releases spare capacity of the dense arrays.
    pub fn shrink_to_fit(&mut self) {
        self.dense.shrink_to_fit();
        match &mut self.data {
            PoolData::Aos(column) => column.shrink_to_fit(),
            PoolData::Soa(columns) => columns.shrink_to_fit(),
        }
    }

    /// Checks the invariants, panicking with a description of the first broken one. O(len).
    ///
    /// For tests and debugging.
    #[track_caller]
    pub fn assert_invariants(&self) {
        let values = match &self.data {
            PoolData::Aos(column) => column.len(),
            PoolData::Soa(columns) => columns.len(),
        };
        assert_eq!(self.dense.len(), values, "dense and value lengths differ");
        if let Some(changes) = self.changes() {
            assert_eq!(changes.len(), self.dense.len(), "change ticks and rows differ in number");
            changes.assert_log_exact(&self.dense);
        }
        for (row, entity) in self.dense.iter().enumerate() {
            let linked = self.sparse.get(entity.index());
            if linked != Some(row as u32) {
                assert!(self.lazy, "sparse entry of {entity} does not point at its row {row}");
                if let Some(other) = linked {
                    assert_eq!(
                        self.dense[other as usize].index(),
                        entity.index(),
                        "sparse entry of index {} is foreign",
                        entity.index()
                    );
                }
            }
        }
    }

    /// How this pool lines up with `rows` (another pool's entities, in row order): returns
    /// `(offset, len)` such that for every `r < len`, `self.entities()[offset + r] == rows[r]`.
    /// `len` is the longest such prefix; `(0, 0)` when `rows[0]` is not in this pool.
    ///
    /// Pools filled by the same spawns hold their common entities in the same order, so queries
    /// use this to read those rows by index instead of looking each entity up. O(len + 1); the
    /// scan stops at the first mismatch.
    pub fn aligned_with(&self, rows: &[Entity]) -> (usize, usize) {
        self.aligned_with_from(rows, 0)
    }

    /// [`SparseSet::aligned_with`] when the caller knows that the first `known` entities of
    /// this pool are `rows[..known]` (both pools owned by one owning group): those rows are not
    /// compared again, so the scan is O(len - known + 1). The claim is checked at its two ends
    /// (first and last known row) and trusted in between; a `known` past either slice is cut to
    /// it, so a wrong claim can give a wrong length but never rows out of bounds.
    pub fn aligned_with_from(&self, rows: &[Entity], known: usize) -> (usize, usize) {
        let known = known.min(rows.len()).min(self.dense.len());
        if known > 0 && self.dense[0] == rows[0] && self.dense[known - 1] == rows[known - 1] {
            return (0, known + common_prefix(&self.dense[known..], &rows[known..]));
        }
        let Some(offset) = rows.first().and_then(|&first| self.row_of(first)) else { return (0, 0) };
        (offset, common_prefix(&self.dense[offset..], rows))
    }
}
