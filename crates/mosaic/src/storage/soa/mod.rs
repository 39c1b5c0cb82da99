//! Struct-of-arrays storage: every field of a component in its own column, all columns in one
//! allocation.

use std::alloc::{self, Layout};
use std::any::TypeId;
#[cfg(feature = "rollback")]
use std::mem::MaybeUninit;
use std::ptr::NonNull;

use smallvec::SmallVec;

use super::ColumnInfo;

/// Describes a struct whose fields are stored in separate columns, in declaration order.
///
/// Implemented by `#[derive(Component)]` with `#[component(storage = "soa")]`.
///
/// # Safety
/// `fields` must report exactly one [`ColumnInfo`] per field, in declaration order; `split` must
/// put every field in that order and `join` must take every field in that order, with the same
/// types. (The writer and reader check each type and panic on a mismatch, and every insert or
/// replace checks the count of fields written, before the row counts as filled.)
pub unsafe trait SoaLayout: Sized + Send + Sync + 'static {
    /// Appends the fields' infos in declaration order.
    fn fields(out: &mut Vec<ColumnInfo>);
    /// Moves each field into `writer`, in declaration order.
    fn split(self, writer: &mut SoaWriter<'_>);
    /// Rebuilds a value from `reader`, taking each field in declaration order.
    fn join(reader: &mut SoaReader<'_>) -> Self;
}

/// Rebuilds a struct from its fields at the given pointers (described by the infos) and drops it.
type DropRowFn = unsafe fn(&[*mut u8], &[ColumnInfo]);

/// What a [`SoaColumns`] needs to know about the struct it stores.
///
/// Made only by [`SoaInfo::of`], from a type that implements the `unsafe` [`SoaLayout`]: the
/// fields carry the columns' soundness, so they are private to the storage layer.
//
// Invariant: `fields` are `T::fields()` for the one `T: SoaLayout` whose `TypeId` is `type_id`,
// and `drop_row` is `drop_row::<T>` (or `None` when `T` needs no drop).
#[derive(Clone, Debug)]
pub struct SoaInfo {
    /// One entry per field, in declaration order.
    pub(super) fields: Vec<ColumnInfo>,
    /// Rebuilds the struct from its fields at the given pointers and drops it (so a struct with
    /// its own `Drop` is dropped as a whole); `None` when nothing needs dropping.
    pub(super) drop_row: Option<DropRowFn>,
    /// The struct's type, checked by typed access.
    pub(super) type_id: TypeId,
    /// The struct's name, for messages.
    pub(super) type_name: &'static str,
}

impl SoaInfo {
    /// Whether dropping a row runs code (the struct has drop glue).
    #[inline]
    pub fn needs_drop(&self) -> bool {
        self.drop_row.is_some()
    }

    /// The stored struct's name, for messages.
    #[inline]
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }

    /// Number of fields (columns).
    #[inline]
    pub fn field_count(&self) -> usize {
        self.fields.len()
    }

    /// The info of `T`.
    pub fn of<T: SoaLayout>() -> Self {
        /// # Safety
        /// `ptrs` point to one initialized, owned value per field of `T`, described by `infos`,
        /// none used again.
        unsafe fn drop_row<T: SoaLayout>(ptrs: &[*mut u8], infos: &[ColumnInfo]) {
            drop(T::join(&mut SoaReader { ptrs, infos, next: 0 }));
        }
        let mut fields = Vec::new();
        T::fields(&mut fields);
        Self {
            fields,
            drop_row: std::mem::needs_drop::<T>()
                .then_some(drop_row::<T> as unsafe fn(&[*mut u8], &[ColumnInfo])),
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
        }
    }
}

/// Receives a struct's fields, in order, into one row of struct-of-arrays storage.
pub struct SoaWriter<'a> {
    ptrs: &'a [*mut u8],
    infos: &'a [ColumnInfo],
    next: usize,
}

impl SoaWriter<'_> {
    /// Writes the next field.
    ///
    /// # Panics
    /// If `F` is not the next field's type or every field was already written.
    #[track_caller]
    pub fn put<F: 'static>(&mut self, value: F) {
        let info = self.infos.get(self.next).expect("more fields written than the layout declares");
        assert!(
            info.type_id == TypeId::of::<F>(),
            "SoA field {} is `{}`, not `{}`",
            self.next,
            info.type_name,
            std::any::type_name::<F>()
        );
        // SAFETY: the pointer is the uninitialized slot of this row in field `next`'s column,
        // aligned for `F` (the column is laid out with the field's alignment) and `F` is the
        // field's type (checked above).
        unsafe { self.ptrs[self.next].cast::<F>().write(value) };
        self.next += 1;
    }
}

/// Hands out a row's fields, in order, to rebuild a struct.
pub struct SoaReader<'a> {
    ptrs: &'a [*mut u8],
    infos: &'a [ColumnInfo],
    next: usize,
}

impl SoaReader<'_> {
    /// Moves the next field out.
    ///
    /// # Panics
    /// If `F` is not the next field's type or every field was already taken.
    #[track_caller]
    pub fn take<F: 'static>(&mut self) -> F {
        let info = self.infos.get(self.next).expect("more fields taken than the layout declares");
        assert!(
            info.type_id == TypeId::of::<F>(),
            "SoA field {} is `{}`, not `{}`",
            self.next,
            info.type_name,
            std::any::type_name::<F>()
        );
        // SAFETY: the pointer is this row's initialized value in field `next`'s column, of type
        // `F` (checked above); the column owner treats the row as moved out and never reads it
        // again.
        let value = unsafe { self.ptrs[self.next].cast::<F>().read() };
        self.next += 1;
        value
    }
}

/// Typed base pointer of one field column, captured once per query by the derived code.
#[derive(Debug)]
pub struct FieldColumn<'a, F> {
    ptr: NonNull<F>,
    _marker: std::marker::PhantomData<&'a F>,
}

impl<F> Clone for FieldColumn<'_, F> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<F> Copy for FieldColumn<'_, F> {}

// SAFETY: a field column pointer is a shared capability to read (and, through the unsafe
// accessors, write) values of `F`, which components require to be `Send + Sync`.
unsafe impl<F: Send + Sync> Send for FieldColumn<'_, F> {}
// SAFETY: as above.
unsafe impl<F: Send + Sync> Sync for FieldColumn<'_, F> {}

impl<'a, F> FieldColumn<'a, F> {
    /// Wraps a column's base pointer.
    pub(crate) fn from_ptr(ptr: NonNull<F>) -> Self {
        Self { ptr, _marker: std::marker::PhantomData }
    }

    /// The value at `row`.
    ///
    /// # Safety
    /// - `row` is below the pool's length, and the pool is not changed for `'a`;
    /// - no `&mut` to this value exists for `'a`.
    #[inline(always)]
    pub unsafe fn get(self, row: usize) -> &'a F {
        // SAFETY: forwarded from the caller: an initialized value, shared for 'a.
        unsafe { &*self.ptr.as_ptr().add(row) }
    }

    /// The value at `row`, mutably.
    ///
    /// # Safety
    /// - `row` is below the pool's length, and the pool is not changed for `'a`;
    /// - no other reference to this value exists or is created for `'a`.
    #[inline(always)]
    pub unsafe fn get_mut(self, row: usize) -> &'a mut F {
        // SAFETY: forwarded from the caller: an initialized value, exclusive for 'a.
        unsafe { &mut *self.ptr.as_ptr().add(row) }
    }

    /// Rows `start..start + len` as a slice.
    ///
    /// # Safety
    /// As [`FieldColumn::get`] for every row of the range.
    #[inline(always)]
    pub unsafe fn slice(self, start: usize, len: usize) -> &'a [F] {
        // SAFETY: forwarded from the caller: `len` initialized, shared values.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().add(start), len) }
    }

    /// Rows `start..start + len` as a mutable slice.
    ///
    /// # Safety
    /// As [`FieldColumn::get_mut`] for every row of the range.
    #[inline(always)]
    pub unsafe fn slice_mut(self, start: usize, len: usize) -> &'a mut [F] {
        // SAFETY: forwarded from the caller: `len` initialized, exclusive values.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(start), len) }
    }
}

/// Values of one struct type stored field by field: column `i` holds field `i` of every row.
///
/// Shape: one allocation of `capacity` rows; field `i`'s column starts at `offsets[i]` (each
/// offset aligned to its field, computed from the capacity), so a field's values are contiguous
/// and a loop over one field touches no other field's bytes. Growth allocates a block for the new
/// capacity and copies each column once (amortised O(1) per push). Rows move only by swap-remove.
///
/// The founding design's component manager layout (one buffer, one array per field).
//
// Invariants:
// - `block` was allocated with `block_layout` when its size is non-zero, else it is dangling;
// - for every field i, rows `0..len` of column i are initialized, rows `len..capacity` are not;
// - `offsets[i] + capacity * size_i <= block_layout.size()` and `offsets[i]` is aligned to field i.
pub struct SoaColumns {
    block: NonNull<u8>,
    block_layout: Layout,
    offsets: SmallVec<[usize; 8]>,
    len: usize,
    capacity: usize,
    info: SoaInfo,
}

// SAFETY: the columns own values of a `Send + Sync` struct's fields, like a `Vec` of them: the
// `SoaInfo` can only come from `SoaInfo::of::<T>` with `T: SoaLayout: Send + Sync`, and each field's
// `ColumnInfo` from `ColumnInfo::of`, which requires the field type to be `Send + Sync` too.
unsafe impl Send for SoaColumns {}
// SAFETY: as above; shared access hands out shared references only.
unsafe impl Sync for SoaColumns {}

impl std::fmt::Debug for SoaColumns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SoaColumns")
            .field("type", &self.info.type_name)
            .field("fields", &self.info.fields.len())
            .field("len", &self.len)
            .field("capacity", &self.capacity)
            .finish()
    }
}

/// The block layout and column offsets for `capacity` rows of `fields`.
fn block_layout(fields: &[ColumnInfo], capacity: usize) -> (Layout, SmallVec<[usize; 8]>) {
    let mut offsets = SmallVec::new();
    let mut size = 0usize;
    let mut align = 1usize;
    for field in fields {
        let field_align = field.layout.align();
        let offset = size.checked_next_multiple_of(field_align).expect("SoA block size overflow");
        offsets.push(offset);
        let bytes = field.layout.size().checked_mul(capacity).expect("SoA block size overflow");
        size = offset.checked_add(bytes).expect("SoA block size overflow");
        align = align.max(field_align);
    }
    (Layout::from_size_align(size, align).expect("SoA block size overflow"), offsets)
}

impl SoaColumns {
    /// Empty columns for the struct described by `info`. Allocates nothing.
    pub fn new(info: SoaInfo) -> Self {
        let (block_layout, offsets) = block_layout(&info.fields, 0);
        Self { block: dangling(block_layout.align()), block_layout, offsets, len: 0, capacity: 0, info }
    }

    /// The stored struct's description.
    pub fn info(&self) -> &SoaInfo {
        &self.info
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Rows the block holds before it reallocates.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Makes room for at least `additional` more rows (at least doubling).
    pub fn reserve(&mut self, additional: usize) {
        let required = self.len.checked_add(additional).expect("SoA capacity overflow");
        if required > self.capacity {
            self.grow_to(required.max(self.capacity * 2).max(4));
        }
    }

    /// Shrinks the block to the length.
    pub fn shrink_to_fit(&mut self) {
        if self.capacity > self.len {
            self.grow_to(self.len);
        }
    }

    /// Moves the columns into a block for `capacity` rows.
    fn grow_to(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len);
        let (layout, offsets) = block_layout(&self.info.fields, capacity);
        let block = if layout.size() == 0 {
            dangling(layout.align())
        } else {
            // SAFETY: the layout has non-zero size.
            NonNull::new(unsafe { alloc::alloc(layout) }).unwrap_or_else(|| alloc::handle_alloc_error(layout))
        };
        for (i, field) in self.info.fields.iter().enumerate() {
            let bytes = field.layout.size() * self.len;
            // SAFETY: the old column i holds `len` initialized values at `offsets[i]`; the new
            // block has room for `capacity >= len` of them at `offsets[i]` (new); the blocks are
            // distinct allocations (or the copy is empty).
            unsafe {
                std::ptr::copy_nonoverlapping(
                    self.block.as_ptr().add(self.offsets[i]),
                    block.as_ptr().add(offsets[i]),
                    bytes,
                );
            }
        }
        self.free_block();
        self.block = block;
        self.block_layout = layout;
        self.offsets = offsets;
        self.capacity = capacity;
    }

    /// Frees the block without dropping values (they were moved or dropped already).
    fn free_block(&mut self) {
        if self.block_layout.size() != 0 {
            // SAFETY: a block of non-zero size was allocated with `block_layout` (invariant).
            unsafe { alloc::dealloc(self.block.as_ptr(), self.block_layout) };
        }
    }

    /// Pointers to row `row` of every field column.
    ///
    /// # Safety
    /// `row <= capacity`.
    unsafe fn row_ptrs(&self, row: usize) -> SmallVec<[*mut u8; 8]> {
        self.info
            .fields
            .iter()
            .zip(&self.offsets)
            // SAFETY: row <= capacity keeps the address inside (or one past) column i.
            .map(|(field, &offset)| unsafe { self.block.as_ptr().add(offset + row * field.layout.size()) })
            .collect()
    }

    #[track_caller]
    fn check_type<T: 'static>(&self) {
        assert!(
            self.info.type_id == TypeId::of::<T>(),
            "SoA columns hold `{}` but were accessed as `{}`",
            self.info.type_name,
            std::any::type_name::<T>()
        );
    }

    /// Appends `value`, split into its fields.
    ///
    /// # Panics
    /// If `T` is not the stored type, or its layout writes the wrong number of fields.
    #[track_caller]
    pub fn push<T: SoaLayout>(&mut self, value: T) {
        self.check_type::<T>();
        if self.len == self.capacity {
            self.reserve(1);
        }
        // SAFETY: len < capacity.
        let ptrs = unsafe { self.row_ptrs(self.len) };
        self.split_into(&ptrs, value);
        self.len += 1;
    }

    /// Reads row `row` out as a value; the row is then uninitialized.
    ///
    /// # Safety
    /// `row < len`, and the caller treats the row as moved out.
    unsafe fn read_row<T: SoaLayout>(&self, row: usize) -> T {
        // SAFETY: row < len <= capacity.
        let ptrs = unsafe { self.row_ptrs(row) };
        T::join(&mut SoaReader { ptrs: &ptrs, infos: &self.info.fields, next: 0 })
    }

    /// Moves the last row into row `row` (when they differ), field by field.
    ///
    /// # Safety
    /// `row < len`, and row `row`'s values were moved out or dropped.
    unsafe fn fill_from_last(&mut self, row: usize) {
        let last = self.len - 1;
        if row != last {
            for (field, &offset) in self.info.fields.iter().zip(&self.offsets) {
                let size = field.layout.size();
                // SAFETY: rows `row` and `last` are distinct rows of column i, inside the block.
                unsafe {
                    let base = self.block.as_ptr().add(offset);
                    std::ptr::copy_nonoverlapping(base.add(last * size), base.add(row * size), size);
                }
            }
        }
        self.len = last;
    }

    /// Reorders rows `start..start + order.len()` of every field column so that row `start + i`
    /// holds what row `order[i]` held. O(n * fields) byte copies through `scratch`.
    ///
    /// # Safety
    /// `order` is a permutation of `start..start + order.len()`, and that range is inside
    /// `0..len`.
    pub(crate) unsafe fn gather_range(
        &mut self,
        start: usize,
        order: &[usize],
        scratch: &mut Vec<std::mem::MaybeUninit<u8>>,
    ) {
        debug_assert!(start + order.len() <= self.len);
        for (field, &offset) in self.info.fields.iter().zip(&self.offsets) {
            // SAFETY: column `i` starts at `offset` in the block and holds `len` initialized
            // values of the field's size; the range and `order` lie inside them (caller).
            unsafe {
                super::column::gather_bytes(
                    self.block.as_ptr().add(offset),
                    field.layout.size(),
                    start,
                    order,
                    scratch,
                )
            };
        }
    }

    /// Removes row `row` by moving the last row into it, and returns its value. O(fields).
    ///
    /// # Panics
    /// If `T` is not the stored type or `row >= len`.
    #[track_caller]
    pub fn swap_remove<T: SoaLayout>(&mut self, row: usize) -> T {
        self.check_type::<T>();
        assert!(row < self.len, "SoA row {row} out of bounds (len {})", self.len);
        // SAFETY: row < len; the row is refilled from the last row right after.
        let value = unsafe { self.read_row::<T>(row) };
        // SAFETY: row < len and its values were just moved out.
        unsafe { self.fill_from_last(row) };
        value
    }

    /// Overwrites row `row` with `value`, returning the old value. O(fields).
    ///
    /// The new value is split into the spare row at `len` first and checked like a push, then
    /// moved into place, so a layout that writes the wrong fields panics while row `row` still
    /// holds the old value whole.
    ///
    /// # Panics
    /// If `T` is not the stored type, `row >= len`, or its layout writes the wrong fields.
    #[track_caller]
    pub fn replace<T: SoaLayout>(&mut self, row: usize, value: T) -> T {
        self.check_type::<T>();
        assert!(row < self.len, "SoA row {row} out of bounds (len {})", self.len);
        if self.len == self.capacity {
            self.reserve(1);
        }
        // SAFETY: len < capacity after the reserve, so row `len` is inside the block.
        let spare = unsafe { self.row_ptrs(self.len) };
        self.split_into(&spare, value);
        // SAFETY: row < len; its values are moved out here and the slots refilled right below.
        let old = unsafe { self.read_row::<T>(row) };
        for (field, &offset) in self.info.fields.iter().zip(&self.offsets) {
            let size = field.layout.size();
            // SAFETY: rows `len` (just written, past `len` so owned by no one else) and `row`
            // (just moved out) are distinct rows of column i inside the block; moving the bytes
            // hands the new field values to row `row`, and row `len` is uninitialized again.
            unsafe {
                let base = self.block.as_ptr().add(offset);
                std::ptr::copy_nonoverlapping(base.add(self.len * size), base.add(row * size), size);
            }
        }
        old
    }

    /// Splits `value` into the slots at `ptrs` (a row at or past `len`) and checks every field was
    /// written.
    ///
    /// # Panics
    /// If the layout writes a field of the wrong type, or too many or too few fields. The fields
    /// written so far are then leaked, never dropped twice: the row is past `len`.
    #[track_caller]
    fn split_into<T: SoaLayout>(&self, ptrs: &[*mut u8], value: T) {
        let mut writer = SoaWriter { ptrs, infos: &self.info.fields, next: 0 };
        value.split(&mut writer);
        assert_eq!(
            writer.next,
            self.info.fields.len(),
            "SoA layout of `{}` wrote too few fields",
            self.info.type_name
        );
    }

    /// Removes row `row` by moving the last row into it, dropping its value. O(fields).
    ///
    /// Panic safety: the columns are consistent before the value's `Drop` runs.
    ///
    /// # Panics
    /// If `row >= len`, or if the value's `Drop` panics.
    #[track_caller]
    pub fn swap_remove_and_drop(&mut self, row: usize) {
        assert!(row < self.len, "SoA row {row} out of bounds (len {})", self.len);
        let last = self.len - 1;
        // Swap the victim to the last row, shorten, then drop it there.
        if row != last {
            for (field, &offset) in self.info.fields.iter().zip(&self.offsets) {
                let size = field.layout.size();
                // SAFETY: rows `row` and `last` are distinct initialized rows of column i.
                unsafe {
                    let base = self.block.as_ptr().add(offset);
                    std::ptr::swap_nonoverlapping(base.add(row * size), base.add(last * size), size);
                }
            }
        }
        self.len = last;
        if let Some(drop_row) = self.info.drop_row {
            // SAFETY: row `last` (now past len) holds the victim's initialized fields, owned by
            // no one else; they are dropped once, as a rebuilt value.
            unsafe { drop_row(&self.row_ptrs(last), &self.info.fields) };
        }
    }

    /// Exchanges rows `a` and `b`, field by field. O(fields).
    ///
    /// # Panics
    /// If either row is out of bounds.
    #[track_caller]
    pub fn swap(&mut self, a: usize, b: usize) {
        assert!(a < self.len && b < self.len, "SoA rows {a}, {b} out of bounds (len {})", self.len);
        if a == b {
            return;
        }
        for (field, &offset) in self.info.fields.iter().zip(&self.offsets) {
            let size = field.layout.size();
            // SAFETY: rows `a` and `b` are distinct initialized rows of column i.
            unsafe {
                let base = self.block.as_ptr().add(offset);
                std::ptr::swap_nonoverlapping(base.add(a * size), base.add(b * size), size);
            }
        }
    }

    /// Hints the CPU to fetch row `row` of every field column (nothing past the end). O(fields).
    #[inline]
    pub(crate) fn prefetch_row(&self, row: usize) {
        if row >= self.len {
            return;
        }
        for (field, &offset) in self.info.fields.iter().zip(&self.offsets) {
            // SAFETY: `row < len`, so `offset + row * size` lies inside field column i of the
            // block.
            let at = unsafe { self.block.as_ptr().add(offset + row * field.layout.size()) };
            crate::storage::prefetch::prefetch_ptr(at);
        }
    }

    /// Drops every row, keeping the capacity.
    ///
    /// # Panics
    /// If a value's `Drop` panics: the remaining rows are still dropped (during the unwind), none
    /// twice.
    ///
    /// # Aborts
    /// If a second value's `Drop` panics during that unwind.
    pub fn clear(&mut self) {
        let len = self.len;
        self.len = 0;
        let Some(drop_row) = self.info.drop_row else { return };
        /// Drops rows `next..len` when dropped, so an unwind from one row still drops the rest.
        struct Rest<'a> {
            columns: &'a SoaColumns,
            drop_row: DropRowFn,
            next: usize,
            len: usize,
        }
        impl Rest<'_> {
            fn run(&mut self) {
                while self.next < self.len {
                    let row = self.next;
                    self.next += 1;
                    // SAFETY: row < the old len holds initialized fields; `len` is 0, so the
                    // columns no longer own them, and `next` moved past the row first, so it is
                    // dropped once even if its drop panics.
                    unsafe { (self.drop_row)(&self.columns.row_ptrs(row), &self.columns.info.fields) };
                }
            }
        }
        impl Drop for Rest<'_> {
            fn drop(&mut self) {
                self.run();
            }
        }
        let mut rest = Rest { columns: self, drop_row, next: 0, len };
        rest.run();
    }

    /// Typed base pointer of field `index`'s column, for derived query code.
    ///
    /// # Panics
    /// If `index` is out of range or `F` is not that field's type.
    #[track_caller]
    pub fn field<F: 'static>(&self, index: usize) -> FieldColumn<'_, F> {
        let info = &self.info.fields[index];
        assert!(
            info.type_id == TypeId::of::<F>(),
            "SoA field {index} is `{}`, not `{}`",
            info.type_name,
            std::any::type_name::<F>()
        );
        // SAFETY: the offset is inside the block (or the block is dangling and aligned, valid for
        // an empty or zero-sized column).
        let ptr = unsafe { self.block.as_ptr().add(self.offsets[index]) };
        FieldColumn {
            ptr: NonNull::new(ptr.cast::<F>()).expect("block pointers are non-null"),
            _marker: std::marker::PhantomData,
        }
    }
}

#[cfg(feature = "rollback")]
/// Bulk copies for pool images (`storage/image.rs`) and the rollback hash.
impl SoaColumns {
    /// Copies the bytes of each field column's `len` values into `out[i]` (one buffer per field,
    /// reused: allocates only when a buffer is too small). O(bytes).
    ///
    /// # Panics
    /// If `T` is not the stored struct.
    #[track_caller]
    pub fn copy_fields_out<T: Copy + 'static>(&self, out: &mut Vec<Vec<MaybeUninit<u8>>>) {
        self.check_type::<T>();
        out.resize_with(self.info.fields.len(), Vec::new);
        for ((field, &offset), buffer) in self.info.fields.iter().zip(&self.offsets).zip(out.iter_mut()) {
            let bytes = field.layout.size() * self.len;
            buffer.clear();
            buffer.reserve(bytes);
            // SAFETY: column i holds `len` initialized values of `size` bytes from `offset`
            // (invariant), inside the block; the buffer has room for `bytes` after the reserve and
            // is a separate allocation. `MaybeUninit<u8>` accepts any byte, padding included, so
            // `set_len` claims nothing about initialization.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    self.block.as_ptr().add(offset),
                    buffer.as_mut_ptr().cast::<u8>(),
                    bytes,
                );
                buffer.set_len(bytes);
            }
        }
    }

    /// Replaces every row with the `len` rows whose field bytes `fields` holds. Allocates only if
    /// the capacity is below `len`. O(bytes).
    ///
    /// # Panics
    /// If `T` is not the stored struct, or `fields` does not hold `len` values per field
    /// (checked before anything changes).
    ///
    /// # Safety
    /// - `fields` was filled by [`SoaColumns::copy_fields_out::<T>`](SoaColumns::copy_fields_out)
    ///   on columns of the same `T` holding `len` rows, and not changed since, so every field's
    ///   bytes are `len` valid values of that field's type.
    #[track_caller]
    pub unsafe fn assign_fields<T: Copy + 'static>(&mut self, len: usize, fields: &[Vec<MaybeUninit<u8>>]) {
        self.check_type::<T>();
        assert_eq!(fields.len(), self.info.fields.len(), "field count of `{}`", self.info.type_name);
        for (field, buffer) in self.info.fields.iter().zip(fields) {
            assert_eq!(buffer.len(), field.layout.size() * len, "field bytes of `{}`", self.info.type_name);
        }
        // `T: Copy`, so no field needs drop: forgetting the old rows is dropping them.
        self.len = 0;
        self.reserve(len);
        for ((field, &offset), buffer) in self.info.fields.iter().zip(&self.offsets).zip(fields) {
            // SAFETY: after the reserve, column i has room for `len` values of `size` bytes from
            // `offset`; `buffer` holds exactly `len * size` bytes (asserted above) in a separate
            // allocation. The caller guarantees they are valid values of field i's type.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    buffer.as_ptr().cast::<u8>(),
                    self.block.as_ptr().add(offset),
                    field.layout.size() * len,
                );
            }
        }
        self.len = len;
    }

    /// The bytes of each field column's `len` values, in field order: for hashing.
    ///
    /// # Panics
    /// If `T` is not the stored struct.
    #[cfg(feature = "rollback")]
    #[track_caller]
    pub fn field_bytes<T: bytemuck::NoUninit>(&self) -> SmallVec<[&[u8]; 8]> {
        self.check_type::<T>();
        self.info
            .fields
            .iter()
            .zip(&self.offsets)
            .map(|(field, &offset)| {
                // SAFETY: column i holds `len` initialized values from `offset` (invariant), and
                // `&self` keeps them unchanged for the borrow. They are fields of `T`, which
                // `NoUninit` promises has no padding or other uninitialized bytes, so neither has
                // any field: every byte read is initialized.
                unsafe {
                    std::slice::from_raw_parts(
                        self.block.as_ptr().add(offset),
                        field.layout.size() * self.len,
                    )
                }
            })
            .collect()
    }
}

impl Drop for SoaColumns {
    fn drop(&mut self) {
        /// Frees the block when dropped: also when a value's `Drop` panics in `clear`.
        struct Free<'a>(&'a mut SoaColumns);
        impl Drop for Free<'_> {
            fn drop(&mut self) {
                self.0.free_block();
            }
        }
        let free = Free(self);
        free.0.clear();
    }
}

/// A non-null pointer aligned to `align`, valid for zero-sized accesses.
fn dangling(align: usize) -> NonNull<u8> {
    NonNull::new(std::ptr::without_provenance_mut(align)).expect("alignment is never zero")
}

#[cfg(test)]
mod tests;
