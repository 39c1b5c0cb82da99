//! Pool images: a pool's index and values copied aside and copied back, for rollback.
//!
//! A [`PoolImage`] holds everything a [`SparseSet`] is (its sparse pages, its dense entities in
//! row order, its values), so restoring one puts the pool back exactly, stale rows of a lazily
//! cleaned pool and row order included. `Copy` values move by `memcpy` (per column for
//! struct-of-arrays); `Clone` values (array-of-structs only) by `clone_from`, which reuses their
//! heap buffers. Every buffer of the image is reused by the next save, so once the image has held
//! the largest pool it sees, saving and restoring allocate nothing.

use std::any::{Any, TypeId};
use std::mem::MaybeUninit;

use super::{Column, SoaColumns, SparseArray, SparseSet, TrackerImage};
use crate::entity::Entity;

/// A pool's values, read-only, as [`SparseSet::image_parts`] hands them out.
pub enum Values<'a> {
    /// Array of structs.
    Aos(&'a Column),
    /// Struct of arrays.
    Soa(&'a SoaColumns),
}

/// A pool's values, mutably, as [`SparseSet::image_parts_mut`] hands them out.
pub enum ValuesMut<'a> {
    /// Array of structs.
    Aos(&'a mut Column),
    /// Struct of arrays.
    Soa(&'a mut SoaColumns),
}

impl Values<'_> {
    fn type_id(&self) -> TypeId {
        match self {
            Values::Aos(column) => column.info().type_id,
            Values::Soa(columns) => columns.info().type_id,
        }
    }
}

/// The saved values of an image.
#[derive(Default)]
enum ImageValues {
    /// Nothing saved yet.
    #[default]
    Empty,
    /// A `Vec<T>` of the pool's values in row order (array of structs).
    Typed(Box<dyn Any + Send + Sync>),
    /// Per field, the bytes of the pool's values in row order (struct of arrays, `Copy` only).
    Fields(Vec<Vec<MaybeUninit<u8>>>),
    /// The bytes of a plain column's values in row order (a run-time component with a schema).
    Bytes(Vec<u8>),
}

/// A copy of one pool: its sparse index, its entities in row order and its values.
///
/// Shape: [`PoolImage::len`] rows, in the pool's row order at the save. Saving again overwrites
/// the image and reuses its buffers.
///
/// Complexity: saving and restoring are O(rows + sparse pages); a `Copy` type's values move by one
/// `memcpy` per column.
//
// Invariants (the fields are private; only `save_*` write them):
// - if `type_id == Some(t)`, `dense`, `sparse` and `values` are one save of a pool of type `t`:
//   `values` is `Typed` holding a `Vec<t>` of `dense.len()` values, or `Fields` as written by
//   `SoaColumns::copy_fields_out::<t>` for `dense.len()` rows, with `t: Copy`;
// - `dense` and `sparse` satisfy the pool invariants of `SparseSet` together.
#[derive(Default)]
pub struct PoolImage {
    type_id: Option<TypeId>,
    type_name: &'static str,
    dense: Vec<Entity>,
    sparse: SparseArray,
    values: ImageValues,
    /// Bytes of the values saved (`len * size_of::<T>()`, heap data of cloned values not counted).
    value_bytes: usize,
    /// The pool's change tracker, when it had one: restored with the rows, so change readers see
    /// after a restore exactly what they saw at the save.
    changes: Option<TrackerImage>,
}

impl std::fmt::Debug for PoolImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoolImage").field("type", &self.type_name).field("rows", &self.dense.len()).finish()
    }
}

/// Aborts the process if dropped during an unwind: guards a restore that user code (`Clone`,
/// `Drop`) could interrupt between changing a pool's index and its values.
struct AbortOnUnwind;

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        eprintln!(
            "mosaic: a component's Clone or Drop panicked while a rollback restored its pool; aborting"
        );
        std::process::abort();
    }
}

impl PoolImage {
    /// An empty image. Allocates nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of rows saved, in entities.
    #[inline]
    pub fn len(&self) -> usize {
        self.dense.len()
    }

    /// Bytes the last save copied: entities, values (their inline part) and sparse pages.
    pub fn bytes(&self) -> usize {
        self.dense.len() * size_of::<Entity>()
            + self.value_bytes
            + self.sparse.page_bytes()
            + self.changes.as_ref().map_or(0, TrackerImage::bytes)
    }

    /// Copies `pool`'s change tracker, if it has one, reusing the image's buffers.
    fn save_changes(&mut self, pool: &SparseSet) {
        match pool.changes() {
            Some(changes) => {
                changes.save_image(pool.lookup(), self.changes.get_or_insert_with(TrackerImage::default))
            }
            None => self.changes = None,
        }
    }

    /// The saved entities, in row order.
    #[inline]
    pub fn entities(&self) -> &[Entity] {
        &self.dense
    }

    /// Whether the image holds a save of a pool of `T`.
    #[inline]
    pub fn holds<T: 'static>(&self) -> bool {
        self.type_id == Some(TypeId::of::<T>())
    }

    /// The saved values of an array-of-structs pool of `T`, in row order; `None` if the image
    /// does not hold such a save.
    pub fn values<T: 'static>(&self) -> Option<&[T]> {
        match &self.values {
            ImageValues::Typed(any) if self.holds::<T>() => any.downcast_ref::<Vec<T>>().map(Vec::as_slice),
            _ => None,
        }
    }

    /// The saved bytes of a struct-of-arrays pool of `T`, one slice per field; `None` if the
    /// image does not hold such a save.
    #[cfg(feature = "rollback")]
    pub fn field_bytes<T: bytemuck::NoUninit>(&self) -> Option<Vec<&[u8]>> {
        match &self.values {
            ImageValues::Fields(fields) if self.holds::<T>() => Some(
                fields
                    .iter()
                    .map(|bytes| {
                        // SAFETY: the image holds a save of `T` (checked), so each buffer holds
                        // bitwise copies of `T`'s fields (invariant); `T: NoUninit` has no
                        // padding, so neither have its fields, and every byte is initialized.
                        // `MaybeUninit<u8>` and `u8` have the same layout.
                        unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<u8>(), bytes.len()) }
                    })
                    .collect(),
            ),
            _ => None,
        }
    }

    /// Copies `pool`, whose values are plain bytes (a run-time component with a schema), into
    /// the image: entities, sparse pages, the values' bytes and the change tracker. O(rows +
    /// pages); allocates only while a buffer is smaller than this pool.
    ///
    /// # Panics
    /// If `pool`'s values are not plain bytes.
    #[track_caller]
    pub fn save_bytes(&mut self, pool: &SparseSet) {
        let (sparse, dense, values) = pool.image_parts();
        let bytes = match values {
            Values::Aos(column) => column.bytes(),
            Values::Soa(_) => None,
        };
        let bytes = bytes.unwrap_or_else(|| panic!("the pool of `{}` is not plain bytes", pool.type_name()));
        self.type_id = None;
        if !matches!(self.values, ImageValues::Bytes(_)) {
            self.values = ImageValues::Bytes(Vec::new());
        }
        let ImageValues::Bytes(saved) = &mut self.values else { unreachable!("set above") };
        saved.clear();
        saved.extend_from_slice(bytes);
        self.value_bytes = bytes.len();
        self.dense.clear();
        self.dense.extend_from_slice(dense);
        self.sparse.copy_from(sparse);
        self.save_changes(pool);
        self.type_name = pool.type_name();
        self.type_id = Some(TypeId::of::<PlainBytes>());
    }

    /// The saved bytes of a [`PoolImage::save_bytes`], in row order; `None` for another save.
    pub fn value_bytes(&self) -> Option<&[u8]> {
        match &self.values {
            ImageValues::Bytes(bytes) if self.holds::<PlainBytes>() => Some(bytes),
            _ => None,
        }
    }

    /// Puts a [`PoolImage::save_bytes`] back into `pool`, whose values are plain bytes of the
    /// same size. O(rows + pages).
    ///
    /// # Panics
    /// If the image does not hold such a save, or `pool`'s values are not plain bytes, or the
    /// saved bytes are not whole values of the pool's size (checked before anything changes).
    #[track_caller]
    pub fn restore_bytes(&self, pool: &mut SparseSet) {
        let saved = self.value_bytes().expect("the image does not hold a byte save");
        let (_, _, values) = pool.image_parts();
        let whole = match values {
            Values::Aos(column) => {
                let size = column.info().layout().size();
                column.info().is_plain() && (size == 0 || saved.len().is_multiple_of(size))
            }
            Values::Soa(_) => false,
        };
        assert!(whole, "the pool of `{}` cannot take these bytes back", pool.type_name());
        let (sparse, dense, values) = pool.image_parts_mut();
        let ValuesMut::Aos(column) = values else { unreachable!("checked above") };
        column.assign_bytes(saved);
        dense.clear();
        dense.extend_from_slice(&self.dense);
        sparse.copy_from(&self.sparse);
        pool.image_restored(self.changes.as_ref());
    }

    /// Makes the image an empty pool of `T` (for a world that has no pool of `T` yet). O(pages).
    pub fn save_empty<T: Send + Sync + 'static>(&mut self) {
        self.type_id = None;
        self.dense.clear();
        self.sparse.clear();
        match &mut self.values {
            ImageValues::Typed(any) if any.is::<Vec<T>>() => {
                any.downcast_mut::<Vec<T>>().expect("checked").clear();
            }
            ImageValues::Fields(fields) => fields.iter_mut().for_each(Vec::clear),
            other => *other = ImageValues::Typed(Box::new(Vec::<T>::new())),
        }
        self.changes = None;
        self.type_name = std::any::type_name::<T>();
        self.value_bytes = self.dense.len() * size_of::<T>();
        self.type_id = Some(TypeId::of::<T>());
    }

    /// Copies `pool`, whose values are `T`, into the image: entities and sparse pages always,
    /// values by `memcpy` (one per column). O(rows + pages); allocates only while a buffer is
    /// smaller than this pool.
    ///
    /// # Panics
    /// If `pool` does not hold `T`.
    #[track_caller]
    pub fn save_copy<T: Copy + Send + Sync + 'static>(&mut self, pool: &SparseSet) {
        let (sparse, dense, values) = pool.image_parts();
        assert!(values.type_id() == TypeId::of::<T>(), "pool does not hold `{}`", std::any::type_name::<T>());
        self.type_id = None;
        self.dense.clear();
        self.dense.extend_from_slice(dense);
        self.sparse.copy_from(sparse);
        match values {
            Values::Aos(column) => {
                if !matches!(&self.values, ImageValues::Typed(any) if any.is::<Vec<T>>()) {
                    self.values = ImageValues::Typed(Box::new(Vec::<T>::new()));
                }
                let ImageValues::Typed(any) = &mut self.values else { unreachable!("set above") };
                let saved = any.downcast_mut::<Vec<T>>().expect("set above");
                saved.clear();
                saved.extend_from_slice(column.as_slice::<T>());
            }
            Values::Soa(columns) => {
                if !matches!(self.values, ImageValues::Fields(_)) {
                    self.values = ImageValues::Fields(Vec::new());
                }
                let ImageValues::Fields(fields) = &mut self.values else { unreachable!("set above") };
                columns.copy_fields_out::<T>(fields);
            }
        }
        self.save_changes(pool);
        self.type_name = std::any::type_name::<T>();
        self.value_bytes = self.dense.len() * size_of::<T>();
        self.type_id = Some(TypeId::of::<T>());
    }

    /// Copies `pool`, an array-of-structs pool of `T`, into the image, cloning each value into the
    /// image's previous value (`clone_from`, which reuses heap buffers). O(rows + pages).
    ///
    /// # Panics
    /// If `pool` does not hold `T`, or holds it struct-of-arrays; if `T::clone_from` panics (the
    /// image is then empty, the pool untouched).
    #[track_caller]
    pub fn save_clone<T: Clone + Send + Sync + 'static>(&mut self, pool: &SparseSet) {
        self.save_clone_with(pool, T::clone, T::clone_from);
    }

    /// [`PoolImage::save_clone`] with the clone functions given: `clone` makes a copy,
    /// `clone_into(dst, src)` overwrites `dst` with a copy of `src`.
    ///
    /// # Panics
    /// As [`PoolImage::save_clone`].
    #[track_caller]
    pub fn save_clone_with<T: Send + Sync + 'static>(
        &mut self,
        pool: &SparseSet,
        clone: fn(&T) -> T,
        clone_into: fn(&mut T, &T),
    ) {
        let (sparse, dense, values) = pool.image_parts();
        let Values::Aos(column) = values else {
            panic!(
                "rollback clones only array-of-structs pools; `{}` is struct-of-arrays",
                std::any::type_name::<T>()
            )
        };
        let src = column.as_slice::<T>();
        self.type_id = None;
        if !matches!(&self.values, ImageValues::Typed(any) if any.is::<Vec<T>>()) {
            self.values = ImageValues::Typed(Box::new(Vec::<T>::new()));
        }
        let ImageValues::Typed(any) = &mut self.values else { unreachable!("set above") };
        let saved = any.downcast_mut::<Vec<T>>().expect("set above");
        saved.truncate(src.len());
        let common = saved.len();
        for (dst, value) in saved.iter_mut().zip(src) {
            clone_into(dst, value);
        }
        saved.extend(src[common..].iter().map(clone));
        self.dense.clear();
        self.dense.extend_from_slice(dense);
        self.sparse.copy_from(sparse);
        self.save_changes(pool);
        self.type_name = std::any::type_name::<T>();
        self.value_bytes = self.dense.len() * size_of::<T>();
        self.type_id = Some(TypeId::of::<T>());
    }

    /// Puts the saved pool back into `pool`, which must hold `T`: afterwards it has the saved
    /// entities in the saved row order, the saved values and the saved sparse index. O(rows +
    /// pages); allocates only if `pool` is smaller than the image.
    ///
    /// # Panics
    /// If the image does not hold a [`PoolImage::save_copy`] of `T`, or `pool` does not hold `T`
    /// (checked before anything changes).
    #[track_caller]
    pub fn restore_copy<T: Copy + Send + Sync + 'static>(&self, pool: &mut SparseSet) {
        assert!(self.holds::<T>(), "the image does not hold `{}`", std::any::type_name::<T>());
        assert!(
            pool.image_parts().2.type_id() == TypeId::of::<T>(),
            "pool does not hold `{}`",
            std::any::type_name::<T>()
        );
        let (sparse, dense, values) = pool.image_parts_mut();
        match (values, &self.values) {
            (ValuesMut::Aos(column), ImageValues::Typed(any)) => {
                let saved = any.downcast_ref::<Vec<T>>().expect("the image holds `T` (invariant)");
                column.assign_copies(saved);
            }
            (ValuesMut::Soa(columns), ImageValues::Fields(fields)) => {
                // SAFETY: the image holds a save of `T` (asserted above), and its `Fields` were
                // written by `copy_fields_out::<T>` for `self.dense.len()` rows and not changed
                // since (invariant: only the save functions write them).
                unsafe { columns.assign_fields::<T>(self.dense.len(), fields) };
            }
            (ValuesMut::Soa(columns), ImageValues::Typed(any)) => {
                // Saved empty (`save_empty`) for a pool that is struct-of-arrays.
                let saved = any.downcast_ref::<Vec<T>>().expect("the image holds `T` (invariant)");
                assert!(saved.is_empty(), "a typed image of a struct-of-arrays pool is an empty one");
                // SAFETY: no field bytes are read for zero rows.
                unsafe { columns.assign_fields::<T>(0, &empty_fields(columns)) };
            }
            (ValuesMut::Aos(_), _) | (ValuesMut::Soa(_), ImageValues::Empty | ImageValues::Bytes(_)) => {
                unreachable!("an image of `T` from an array-of-structs pool is typed")
            }
        }
        dense.clear();
        dense.extend_from_slice(&self.dense);
        sparse.copy_from(&self.sparse);
        pool.image_restored(self.changes.as_ref());
    }

    /// Puts the saved pool back into `pool`, an array-of-structs pool of `T`, cloning each saved
    /// value into the pool's value at the same row (`clone_from`) and dropping the rows past the
    /// saved length. O(rows + pages).
    ///
    /// # Panics
    /// If the image does not hold a [`PoolImage::save_clone`] of `T`, or `pool` does not hold `T`
    /// array-of-structs (checked before anything changes).
    ///
    /// # Aborts
    /// If `T::clone_from`, `T::clone` or `T::drop` panics: the pool's index and values would not
    /// match.
    #[track_caller]
    pub fn restore_clone<T: Clone + Send + Sync + 'static>(&self, pool: &mut SparseSet) {
        self.restore_clone_with(pool, T::clone, T::clone_from);
    }

    /// [`PoolImage::restore_clone`] with the clone functions given, as for
    /// [`PoolImage::save_clone_with`].
    ///
    /// # Panics
    /// As [`PoolImage::restore_clone`].
    ///
    /// # Aborts
    /// If `clone`, `clone_into` or `T::drop` panics.
    #[track_caller]
    pub fn restore_clone_with<T: Send + Sync + 'static>(
        &self,
        pool: &mut SparseSet,
        clone: fn(&T) -> T,
        clone_into: fn(&mut T, &T),
    ) {
        let saved = self
            .values::<T>()
            .unwrap_or_else(|| panic!("the image does not hold a clone of `{}`", std::any::type_name::<T>()));
        let (_, _, values) = pool.image_parts();
        assert!(
            matches!(values, Values::Aos(column) if column.info().type_id == TypeId::of::<T>()),
            "pool does not hold `{}` as an array of structs",
            std::any::type_name::<T>()
        );
        let (sparse, dense, values) = pool.image_parts_mut();
        let ValuesMut::Aos(column) = values else { unreachable!("checked above") };
        let guard = AbortOnUnwind;
        column.truncate(saved.len());
        let common = column.len();
        for (dst, value) in column.as_mut_slice::<T>().iter_mut().zip(saved) {
            clone_into(dst, value);
        }
        for value in &saved[common..] {
            column.push(clone(value));
        }
        dense.clear();
        dense.extend_from_slice(&self.dense);
        sparse.copy_from(&self.sparse);
        pool.image_restored(self.changes.as_ref());
        std::mem::forget(guard);
    }
}

/// The type id a byte save carries (no component's: it cannot be named outside this module).
enum PlainBytes {}

/// One empty byte buffer per field of `columns`.
fn empty_fields(columns: &SoaColumns) -> Vec<Vec<MaybeUninit<u8>>> {
    columns.info().fields.iter().map(|_| Vec::new()).collect()
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroU32;

    use super::super::{SoaLayout, SoaReader, SoaWriter, StorageInfo};
    use super::*;
    use crate::storage::ColumnInfo;

    fn entity(index: u32) -> Entity {
        Entity::new(index, NonZeroU32::MIN, 1)
    }

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Pair {
        a: u32,
        b: u64,
    }

    // SAFETY: `fields`, `split` and `join` list both fields in declaration order, with their types.
    unsafe impl SoaLayout for Pair {
        fn fields(out: &mut Vec<ColumnInfo>) {
            out.push(ColumnInfo::of::<u32>());
            out.push(ColumnInfo::of::<u64>());
        }
        fn split(self, writer: &mut SoaWriter<'_>) {
            writer.put(self.a);
            writer.put(self.b);
        }
        fn join(reader: &mut SoaReader<'_>) -> Self {
            Self { a: reader.take(), b: reader.take() }
        }
    }

    /// The rows of a pool as (entity, value) pairs, read through the typed API.
    fn aos_rows<T: Clone + 'static>(pool: &SparseSet) -> Vec<(Entity, T)> {
        pool.entities().iter().copied().zip(pool.values::<T>().iter().cloned()).collect()
    }

    #[test]
    fn copy_round_trip_restores_rows_order_and_index() {
        let mut pool = SparseSet::new(StorageInfo::aos::<u64>());
        for i in 0..10_000 {
            pool.insert(entity(i * 3), u64::from(i));
        }
        let before = aos_rows::<u64>(&pool);
        let mut image = PoolImage::new();
        image.save_copy::<u64>(&pool);
        for i in 0..5_000 {
            pool.remove::<u64>(entity(i * 3));
        }
        pool.insert(entity(99_999), 7u64);
        image.restore_copy::<u64>(&mut pool);
        pool.assert_invariants();
        assert_eq!(aos_rows::<u64>(&pool), before);
        assert!(!pool.contains(entity(99_999)), "a row added after the save is gone");
        assert_eq!(pool.get::<u64>(entity(300)), Some(&100));
    }

    #[test]
    fn soa_copy_round_trip() {
        let mut pool = SparseSet::new(StorageInfo::soa::<Pair>());
        for i in 0..100 {
            pool.insert_soa(entity(i), Pair { a: i, b: u64::from(i) * 10 });
        }
        let mut image = PoolImage::new();
        image.save_copy::<Pair>(&pool);
        pool.remove_soa::<Pair>(entity(4));
        pool.insert_soa(entity(500), Pair { a: 0, b: 0 });
        image.restore_copy::<Pair>(&mut pool);
        pool.assert_invariants();
        assert_eq!(pool.len(), 100);
        assert_eq!(pool.remove_soa::<Pair>(entity(4)), Some(Pair { a: 4, b: 40 }));
        assert_eq!(pool.remove_soa::<Pair>(entity(99)), Some(Pair { a: 99, b: 990 }));
        assert!(!pool.contains(entity(500)));
    }

    #[test]
    fn clone_round_trip_drops_extra_rows_and_restores_values() {
        let mut pool = SparseSet::new(StorageInfo::aos::<String>());
        for i in 0..50 {
            pool.insert(entity(i), format!("v{i}"));
        }
        let before = aos_rows::<String>(&pool);
        let mut image = PoolImage::new();
        image.save_clone::<String>(&pool);
        for i in 50..80 {
            pool.insert(entity(i), format!("late{i}"));
        }
        *pool.get_mut::<String>(entity(3)).unwrap() = "changed".into();
        image.restore_clone::<String>(&mut pool);
        pool.assert_invariants();
        assert_eq!(aos_rows::<String>(&pool), before);
        // Restoring into a shorter pool pushes the missing rows.
        pool.clear();
        image.restore_clone::<String>(&mut pool);
        assert_eq!(aos_rows::<String>(&pool), before);
    }

    #[test]
    fn buffers_are_reused() {
        let mut pool = SparseSet::new(StorageInfo::aos::<u32>());
        for i in 0..1000 {
            pool.insert(entity(i), i);
        }
        let mut image = PoolImage::new();
        image.save_copy::<u32>(&pool);
        let ptr = image.values::<u32>().unwrap().as_ptr();
        pool.remove::<u32>(entity(0));
        image.save_copy::<u32>(&pool);
        assert_eq!(image.values::<u32>().unwrap().as_ptr(), ptr, "the second save reuses the buffer");
        assert_eq!(image.len(), 999);
    }

    #[test]
    #[should_panic(expected = "the image does not hold `u64`")]
    fn restoring_another_type_panics() {
        let mut pool = SparseSet::new(StorageInfo::aos::<u64>());
        let mut image = PoolImage::new();
        let other = SparseSet::new(StorageInfo::aos::<u32>());
        image.save_copy::<u32>(&other);
        image.restore_copy::<u64>(&mut pool);
    }

    #[test]
    fn empty_image_empties_the_pool() {
        let mut pool = SparseSet::new(StorageInfo::soa::<Pair>());
        pool.insert_soa(entity(1), Pair { a: 1, b: 1 });
        let mut image = PoolImage::new();
        image.save_empty::<Pair>();
        image.restore_copy::<Pair>(&mut pool);
        assert!(pool.is_empty());
        pool.assert_invariants();
    }
}
