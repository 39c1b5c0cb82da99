//! The storage protocol of a component type: how its values are laid out and viewed.

use super::{ColumnInfo, RowStamp, SoaInfo, SoaLayout, SparseSet};
use crate::entity::Entity;

/// The row order of `pool` sorted by `compare` on the stored views: element `i` is the row that
/// belongs at position `i`. Stable; O(n log n) comparisons. Pass it to [`SparseSet::permute`].
///
/// # Panics
/// If `pool` does not hold `T`.
pub fn sorted_rows<T: Stored>(
    pool: &SparseSet,
    mut compare: impl FnMut(T::Ref<'_>, T::Ref<'_>) -> std::cmp::Ordering,
) -> Vec<usize> {
    let columns = T::columns(pool);
    let mut order: Vec<usize> = (0..pool.len()).collect();
    // SAFETY: every row in `order` is below the pool's length; the shared borrow of `pool` keeps
    // it unchanged and rules out `&mut` views while the comparisons run.
    order.sort_by(|&a, &b| compare(unsafe { T::row_ref(columns, a) }, unsafe { T::row_ref(columns, b) }));
    order
}

/// Replaces `out` with `(key(view of row r), r)` for every row `r` of `rows`, in row order: the
/// keys a sort of a range of `pool` orders by. O(rows) calls of `key`; allocates only to grow
/// `out`.
///
/// # Panics
/// If `pool` does not hold `T`, or `rows` does not lie inside `0..pool.len()`.
#[track_caller]
pub fn row_keys_into<T: Stored, K>(
    pool: &SparseSet,
    rows: std::ops::Range<usize>,
    mut key: impl FnMut(T::Ref<'_>) -> K,
    out: &mut Vec<(K, usize)>,
) {
    let columns = T::columns(pool);
    assert!(rows.end <= pool.len(), "rows {rows:?} are out of range for a pool of {} rows", pool.len());
    out.clear();
    // SAFETY: every row of `rows` is below the pool's length (checked above); the shared borrow
    // of `pool` keeps it unchanged and rules out `&mut` views while `key` runs, and a view
    // cannot outlive its call.
    out.extend(rows.map(|row| (key(unsafe { T::row_ref(columns, row) }), row)));
}

/// Calls `f(row, view)` for each of `rows` of `pool`, in the order given, stopping at the first
/// error `f` returns. O(rows): no lookup per row.
///
/// # Errors
/// The first error `f` returns.
///
/// # Panics
/// If `pool` does not hold `T`, or a row is not below `pool.len()`.
#[cfg(feature = "serialize")]
pub fn try_for_each_row<T: Stored, E>(
    pool: &SparseSet,
    rows: impl IntoIterator<Item = usize>,
    mut f: impl FnMut(usize, T::Ref<'_>) -> Result<(), E>,
) -> Result<(), E> {
    let columns = T::columns(pool);
    let len = pool.len();
    for row in rows {
        assert!(row < len, "row {row} is out of range for a pool of {len} rows");
        // SAFETY: `row < len` was checked above; the shared borrow of `pool` keeps it unchanged
        // and rules out `&mut` views for as long as the view lives (it cannot outlive `f`'s call).
        f(row, unsafe { T::row_ref(columns, row) })?;
    }
    Ok(())
}

/// How a pool lays out its values.
#[derive(Clone, Debug)]
pub enum StorageInfo {
    /// Array of structs: whole values, one after another, in one type-erased column.
    Aos(ColumnInfo),
    /// Struct of arrays: one column per field, in one allocation.
    Soa(SoaInfo),
}

impl StorageInfo {
    /// Array-of-structs storage of `T`.
    pub fn aos<T: Send + Sync + 'static>() -> Self {
        Self::Aos(ColumnInfo::of::<T>())
    }

    /// Struct-of-arrays storage of `T`.
    pub fn soa<T: SoaLayout>() -> Self {
        Self::Soa(SoaInfo::of::<T>())
    }

    /// The stored type's name.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Aos(info) => info.type_name(),
            Self::Soa(info) => info.type_name(),
        }
    }
}

/// The storage protocol of a component type: its layout, the views a query or `get` hands out,
/// and how values enter and leave a pool. `#[derive(Component)]` implements it: with `&T` /
/// `&mut T` views over an array of structs by default, or with generated `TRef` / `TMut` views
/// (one reference per field) over a struct of arrays under `#[component(storage = "soa")]`.
///
/// # Safety
/// - `storage_info` describes `Self`'s layout, and `columns` checks (panicking otherwise) that the
///   pool holds `Self` in that layout;
/// - `row_ref`, `row_mut`, `slice`, `slice_mut` only build references to the given rows of the
///   columns captured by `columns`;
/// - `insert` and `remove` keep the pool's invariants (they call the pool's own methods).
pub unsafe trait Stored: Sized + Send + Sync + 'static {
    /// A shared view of one value: `&'a Self`, or a struct of one `&'a` per field.
    type Ref<'a>;
    /// An exclusive view of one value: `&'a mut Self`, or a struct of one `&'a mut` per field.
    type Mut<'a>;
    /// Shared views of consecutive values: `&'a [Self]`, or a struct of one slice per field.
    type Slice<'a>;
    /// Exclusive views of consecutive values: `&'a mut [Self]`, or one mutable slice per field.
    type SliceMut<'a>;
    /// Typed base pointers of a pool's columns, captured once per query.
    type Columns<'a>: Copy + Send + Sync;
    /// The change-detecting exclusive view a `Mut<Self>` query term hands out: `Mut<'a, Self>`,
    /// or a generated struct of one `FieldMut` per field that records writes field by field
    /// (`&'a Self` for immutable components, which have no `Mut` term).
    type Tracked<'a>;

    /// The layout of a pool of `Self`.
    fn storage_info() -> StorageInfo;

    /// Captures `pool`'s columns.
    ///
    /// # Panics
    /// If `pool` does not hold `Self` in this layout.
    fn columns(pool: &SparseSet) -> Self::Columns<'_>;

    /// The view of row `row`.
    ///
    /// # Safety
    /// - `row` is below the pool's length, and the pool is not changed for `'a`;
    /// - no `&mut` to the row's values exists for `'a`.
    unsafe fn row_ref<'a>(columns: Self::Columns<'a>, row: usize) -> Self::Ref<'a>;

    /// The exclusive view of row `row`.
    ///
    /// # Safety
    /// - `row` is below the pool's length, and the pool is not changed for `'a`;
    /// - no other reference to the row's values exists or is created for `'a`.
    unsafe fn row_mut<'a>(columns: Self::Columns<'a>, row: usize) -> Self::Mut<'a>;

    /// The change-detecting view of row `row`, recording writes through `stamp`.
    ///
    /// # Safety
    /// As [`Stored::row_mut`]; and `stamp` was made for this row of this pool.
    unsafe fn row_tracked<'a>(
        columns: Self::Columns<'a>,
        row: usize,
        stamp: RowStamp<'a>,
    ) -> Self::Tracked<'a>;

    /// The views of rows `start..start + len`.
    ///
    /// # Safety
    /// As [`Stored::row_ref`], for every row of the range.
    unsafe fn slice<'a>(columns: Self::Columns<'a>, start: usize, len: usize) -> Self::Slice<'a>;

    /// The exclusive views of rows `start..start + len`.
    ///
    /// # Safety
    /// As [`Stored::row_mut`], for every row of the range.
    unsafe fn slice_mut<'a>(columns: Self::Columns<'a>, start: usize, len: usize) -> Self::SliceMut<'a>;

    /// Inserts or replaces `entity`'s value in `pool`, returning the replaced value.
    fn insert(pool: &mut SparseSet, entity: Entity, value: Self) -> Option<Self>;

    /// Appends `value` for `entity`, which `pool` does not hold (an entity just spawned): what
    /// [`Stored::insert`] does for such an entity, without looking for a row to replace. The
    /// derive's array-of-structs impl calls [`SparseSet::push_new`].
    #[inline(always)]
    fn push_new(pool: &mut SparseSet, entity: Entity, value: Self) {
        let old = Self::insert(pool, entity, value);
        debug_assert!(old.is_none(), "a new entity has no component yet");
    }

    /// Inserts or replaces the values of `rows` in `pool`, as [`Stored::insert`] row by row: a
    /// row whose entity `keep` refuses is passed over (its value dropped), a replaced value is
    /// dropped, and `added` hears of each entity that was not in the pool. The derive's
    /// array-of-structs impl calls [`SparseSet::insert_rows`], which checks the pool once.
    #[inline(always)]
    fn insert_rows(
        pool: &mut SparseSet,
        rows: impl Iterator<Item = (Entity, Self)>,
        mut keep: impl FnMut(Entity) -> bool,
        mut added: impl FnMut(Entity),
    ) {
        for (entity, value) in rows {
            if keep(entity) && Self::insert(pool, entity, value).is_none() {
                added(entity);
            }
        }
    }

    /// Removes the values of `entities` from `pool`, as [`Stored::remove`] each: `check` sees
    /// every entity first, and `removed` takes each one that had a value, with it. The derive's
    /// array-of-structs impl calls [`SparseSet::remove_rows`], which checks the pool once.
    #[inline(always)]
    fn remove_rows(
        pool: &mut SparseSet,
        entities: impl Iterator<Item = Entity>,
        mut check: impl FnMut(Entity),
        mut removed: impl FnMut(Entity, Self),
    ) {
        for entity in entities {
            check(entity);
            if let Some(value) = Self::remove(pool, entity) {
                removed(entity, value);
            }
        }
    }

    /// Removes `entity`'s value from `pool` and returns it.
    fn remove(pool: &mut SparseSet, entity: Entity) -> Option<Self>;

    /// Whether despawn leaves this type's values in place for a collector to remove later
    /// (`#[component(cleanup = "lazy")]`); `false` (eager) by default.
    fn lazy_cleanup() -> bool {
        false
    }

    /// Whether the type's pool tracks changes from its registration
    /// (`#[component(track_changes)]`); `false` by default (tracking then starts only with an
    /// explicit `World::track_changes`).
    fn track_changes() -> bool {
        false
    }

    /// This type's process-wide slot (0 until the first world registers it), which lets a
    /// world find the type's pool by indexing instead of hashing its `TypeId`. The derive gives
    /// every non-generic component one (a `static` in this method); `None`, the default, keeps
    /// the hash lookup (generic types, whose instantiations would share one static, and
    /// hand-written impls). Must return the same slot on every call.
    #[inline(always)]
    fn type_slot() -> Option<&'static std::sync::atomic::AtomicU32> {
        None
    }

    /// `entity`'s value in `pool`, viewed. O(1).
    #[inline]
    fn get(pool: &SparseSet, entity: Entity) -> Option<Self::Ref<'_>> {
        let row = pool.row_of(entity)?;
        // SAFETY: `row` is below the length; the shared borrow of the pool keeps it unchanged and
        // rules out `&mut` views for the returned lifetime.
        Some(unsafe { Self::row_ref(Self::columns(pool), row) })
    }

    /// `entity`'s value in `pool`, viewed exclusively. O(1).
    #[inline]
    fn get_mut(pool: &mut SparseSet, entity: Entity) -> Option<Self::Mut<'_>> {
        let row = pool.row_of(entity)?;
        let pool: &SparseSet = pool;
        // SAFETY: `row` is below the length; the exclusive borrow of the pool (held for the
        // returned lifetime) rules out any other reference to its values.
        Some(unsafe { Self::row_mut(Self::columns(pool), row) })
    }
}
