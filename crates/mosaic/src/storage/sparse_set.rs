//! A sparse set: the per-component-type pool.

use std::ptr::NonNull;

use super::{Column, ColumnInfo, SparseArray, SparseView};
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
// - `dense.len() == column.len()`;
// - for every row r < len: `sparse.get(dense[r].index()) == Some(r)`;
// - every index with a sparse entry is the index of exactly one dense entity.
#[derive(Debug)]
pub struct SparseSet {
    sparse: SparseArray,
    dense: Vec<Entity>,
    column: Column,
}

impl SparseSet {
    /// An empty pool for the type described by `info`. Allocates nothing.
    ///
    /// `info` must describe a `Send + Sync` type (see [`Column::new`]).
    pub fn new(info: ColumnInfo) -> Self {
        Self { sparse: SparseArray::new(), dense: Vec::new(), column: Column::new(info) }
    }

    /// The stored type's description.
    #[inline]
    pub fn info(&self) -> &ColumnInfo {
        self.column.info()
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

    /// A copyable view that answers [`SparseSet::row_of`] without going through `self`, for hot
    /// loops such as query iteration.
    #[inline]
    pub fn lookup(&self) -> RowLookup<'_> {
        RowLookup { sparse: self.sparse.view(), dense: &self.dense }
    }

    /// Whether `entity` is in the pool. O(1).
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.row_of(entity).is_some()
    }

    /// Inserts or replaces `entity`'s value; returns the replaced value. O(1) amortised.
    ///
    /// # Panics
    /// If `T` is not the pool's type.
    #[inline]
    #[track_caller]
    pub fn insert<T: 'static>(&mut self, entity: Entity, value: T) -> Option<T> {
        if let Some(row) = self.row_of(entity) {
            return Some(self.column.replace(row, value));
        }
        self.column.push(value);
        self.sparse.insert(entity.index(), self.dense.len() as u32);
        self.dense.push(entity);
        None
    }

    /// The value of `entity`, if present.
    ///
    /// # Panics
    /// If `T` is not the pool's type.
    #[inline]
    #[track_caller]
    pub fn get<T: 'static>(&self, entity: Entity) -> Option<&T> {
        let row = self.row_of(entity);
        self.column.get(row?)
    }

    /// The value of `entity` mutably, if present.
    ///
    /// # Panics
    /// If `T` is not the pool's type.
    #[inline]
    #[track_caller]
    pub fn get_mut<T: 'static>(&mut self, entity: Entity) -> Option<&mut T> {
        let row = self.row_of(entity);
        self.column.get_mut(row?)
    }

    /// Removes `entity` and returns its value, if present. O(1): the last row moves into the hole.
    ///
    /// # Panics
    /// If `T` is not the pool's type.
    #[inline]
    #[track_caller]
    pub fn remove<T: 'static>(&mut self, entity: Entity) -> Option<T> {
        let row = self.row_of(entity)?;
        let value = self.column.swap_remove::<T>(row);
        self.unlink(entity, row);
        Some(value)
    }

    /// Removes `entity` and drops its value, if present; returns whether it was present. O(1).
    ///
    /// Panic safety: the pool is consistent before the value's `Drop` runs.
    ///
    /// # Panics
    /// If the value's `Drop` panics (the pool is then still consistent and the value dropped).
    pub fn remove_and_drop(&mut self, entity: Entity) -> bool {
        let Some(row) = self.row_of(entity) else {
            return false;
        };
        // Fix the index first, so a panicking drop leaves a consistent pool.
        self.unlink(entity, row);
        self.column.swap_remove_and_drop(row);
        true
    }

    /// Updates `dense` and `sparse` after the value at `row` was swap-removed from the column.
    #[inline]
    fn unlink(&mut self, entity: Entity, row: usize) {
        self.dense.swap_remove(row);
        self.sparse.remove(entity.index());
        if let Some(&moved) = self.dense.get(row) {
            self.sparse.insert(moved.index(), row as u32);
        }
    }

    /// All values as a slice, in row order (matching [`SparseSet::entities`]).
    ///
    /// # Panics
    /// If `T` is not the pool's type.
    #[inline]
    #[track_caller]
    pub fn values<T: 'static>(&self) -> &[T] {
        self.column.as_slice()
    }

    /// All values as a mutable slice, in row order.
    ///
    /// # Panics
    /// If `T` is not the pool's type.
    #[inline]
    #[track_caller]
    pub fn values_mut<T: 'static>(&mut self) -> &mut [T] {
        self.column.as_mut_slice()
    }

    /// Base pointer of the values, for query fetch; see [`Column::typed_ptr`] for its validity.
    ///
    /// # Panics
    /// If `T` is not the pool's type.
    #[inline]
    #[track_caller]
    pub fn typed_ptr<T: 'static>(&self) -> NonNull<T> {
        self.column.typed_ptr()
    }

    /// Reserves room for `additional` more entities.
    pub fn reserve(&mut self, additional: usize) {
        self.dense.reserve(additional);
        self.column.reserve(additional);
    }

    /// Releases spare capacity of the dense arrays.
    pub fn shrink_to_fit(&mut self) {
        self.dense.shrink_to_fit();
        self.column.shrink_to_fit();
    }

    /// Removes and drops every value, keeping capacity and pages.
    pub fn clear(&mut self) {
        // Empty the index first: if a drop panics the pool is empty, and values not yet dropped
        // leak instead of being dropped twice.
        self.sparse.clear();
        self.dense.clear();
        self.column.clear();
    }

    /// Checks the invariants, panicking with a description of the first broken one. O(len).
    ///
    /// For tests and debugging.
    #[track_caller]
    pub fn assert_invariants(&self) {
        assert_eq!(self.dense.len(), self.column.len(), "dense and column lengths differ");
        for (row, entity) in self.dense.iter().enumerate() {
            assert_eq!(
                self.sparse.get(entity.index()),
                Some(row as u32),
                "sparse entry of {entity} does not point at its row {row}"
            );
        }
    }
}

/// Entity-to-row lookup of one [`SparseSet`], from [`SparseSet::lookup`].
#[derive(Clone, Copy, Debug)]
pub struct RowLookup<'a> {
    sparse: SparseView<'a>,
    dense: &'a [Entity],
}

impl RowLookup<'_> {
    /// The row of `entity`, if it is in the pool. O(1).
    #[inline(always)]
    pub fn row_of(&self, entity: Entity) -> Option<usize> {
        let row = self.sparse.get(entity.index())? as usize;
        // The sparse entry is per index; the dense entity check rejects stale generations.
        (self.dense.get(row) == Some(&entity)).then_some(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::num::NonZeroU32;

    fn entity(index: u32, generation: u32) -> Entity {
        Entity::from_parts(index, NonZeroU32::new(generation).unwrap())
    }

    #[test]
    fn insert_replace_remove() {
        let mut set = SparseSet::new(ColumnInfo::of::<String>());
        let a = entity(1, 1);
        let b = entity(70_000, 1);
        let c = entity(2, 1);
        assert_eq!(set.insert(a, "a".to_string()), None);
        assert_eq!(set.insert(b, "b".to_string()), None);
        assert_eq!(set.insert(c, "c".to_string()), None);
        assert_eq!(set.insert(a, "a2".to_string()).as_deref(), Some("a"));
        set.assert_invariants();
        assert_eq!(set.remove::<String>(a).as_deref(), Some("a2"));
        set.assert_invariants();
        assert_eq!(set.entities(), &[c, b]);
        assert_eq!(set.get::<String>(b).map(String::as_str), Some("b"));
        assert!(set.remove_and_drop(b));
        assert!(!set.remove_and_drop(b));
        set.assert_invariants();
        assert_eq!(set.values::<String>(), &["c".to_string()]);
    }

    #[test]
    fn stale_generation_misses() {
        let mut set = SparseSet::new(ColumnInfo::of::<u8>());
        set.insert(entity(4, 1), 1u8);
        assert!(!set.contains(entity(4, 2)));
        assert_eq!(set.get::<u8>(entity(4, 2)), None);
        assert_eq!(set.remove::<u8>(entity(4, 2)), None);
        assert!(set.contains(entity(4, 1)));
    }
}
