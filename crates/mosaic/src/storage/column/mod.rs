//! A type-erased, growable array of values of one type.

mod raw;
mod typed;

use std::alloc::{self, Layout};
use std::any::TypeId;
use std::ptr::NonNull;

/// What a column of values needs to know about the type it stores, without being generic over it.
///
/// Made only by [`ColumnInfo::of`], from a real type: the fields carry the column's soundness
/// (a wrong size overflows the buffer, a wrong drop fn runs on foreign bytes, a non-`Send` type
/// would cross threads with the column), so they are private to the storage layer and there is
/// no constructor from hand-made parts.
//
// Invariant: `layout`, `drop` and `type_id` all describe one `Send + Sync + 'static` type, whose
// name is `type_name`.
#[derive(Clone, Copy, Debug)]
pub struct ColumnInfo {
    /// Size and alignment of one value.
    pub(super) layout: Layout,
    /// Drops one value in place; `None` when the type needs no drop.
    pub(super) drop: Option<unsafe fn(*mut u8)>,
    /// The Rust type stored, checked by every typed access.
    pub(super) type_id: TypeId,
    /// The type's name, for messages.
    pub(super) type_name: &'static str,
    /// Whether every byte of every value is initialized plain data (a run-time component with a
    /// schema): what lets the column be read and written as bytes.
    pub(super) plain: bool,
}

impl ColumnInfo {
    /// Whether dropping a value runs code (the type has drop glue).
    #[inline]
    pub fn needs_drop(&self) -> bool {
        self.drop.is_some()
    }

    /// The info of type `T`.
    ///
    /// The `Send + Sync` bound is what lets [`Column`] (and every pool) be `Send + Sync`.
    pub fn of<T: Send + Sync + 'static>() -> Self {
        /// # Safety
        /// `ptr` must point to a valid, initialized `T` that is not used again.
        unsafe fn drop_value<T>(ptr: *mut u8) {
            // SAFETY: the caller guarantees `ptr` is a valid, owned `T` that is dropped once.
            unsafe { ptr.cast::<T>().drop_in_place() }
        }
        Self {
            layout: Layout::new::<T>(),
            drop: std::mem::needs_drop::<T>().then_some(drop_value::<T> as unsafe fn(*mut u8)),
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
            plain: false,
        }
    }

    /// The info of a component type known only at run time (`mosaic::dynamic`): values of
    /// `layout` (padded to its alignment), dropped with `drop` (`None`: plain bytes). Typed
    /// access to such a column always panics: its type id is that of a private type no caller
    /// can name.
    ///
    /// With `plain`, the column's values are bytes: it may be read and written as such
    /// ([`Column::bytes`], [`Column::assign_bytes`]).
    ///
    /// # Safety
    /// - every value the column will hold is `layout`-shaped and may be moved by copying its
    ///   bytes, sent to and shared between threads (what `Send + Sync` promise for a Rust type);
    /// - `drop`, if any, may be called once on a pointer to such a value, aligned to `layout`,
    ///   and leaves nothing behind that needs dropping;
    /// - with `plain`: `drop` is `None`, and every byte of every value written (by
    ///   [`Column::push_raw`] and [`Column::replace_raw`] callers, and through pointers the
    ///   column hands out) is initialized, any bit pattern being a valid value.
    pub unsafe fn dynamic(
        layout: Layout,
        drop: Option<unsafe fn(*mut u8)>,
        type_name: &'static str,
        plain: bool,
    ) -> Self {
        debug_assert!(!plain || drop.is_none(), "plain values need no drop");
        Self { layout: layout.pad_to_align(), drop, type_id: TypeId::of::<DynamicValues>(), type_name, plain }
    }

    /// Whether the values are plain bytes (see [`ColumnInfo::dynamic`]).
    #[inline]
    pub fn is_plain(&self) -> bool {
        self.plain
    }

    /// The stored type's name, for messages.
    #[inline]
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }

    /// Size and alignment of one value.
    #[inline]
    pub fn layout(&self) -> Layout {
        self.layout
    }
}

/// The type id a run-time component's column carries: no code outside this module can name the
/// type, so no typed access (`Column::get::<T>` and friends) ever matches such a column.
enum DynamicValues {}

/// A growable array of values of one type, known at run time by its [`ColumnInfo`].
///
/// Shape: `len` values laid out contiguously, each at `ptr + row * size`, aligned to the type's
/// alignment (tested up to 4096). Zero-sized types never allocate. Growth doubles the capacity
/// (amortised O(1) push) and moves values by `realloc`, so pointers into the column are
/// invalidated by any push; rows stay stable until a `swap_remove`.
///
/// Every typed method checks the requested type against the stored one and panics on mismatch,
/// so the safe API cannot reinterpret bytes as the wrong type. `Drop` runs exactly once per value:
/// when it is removed with `swap_remove_and_drop`, overwritten by `replace_and_drop`, or when the
/// column is cleared or dropped.
//
// Invariants:
// - `data` is valid for `capacity * size` bytes, allocated with `array_layout(capacity)`, unless
//   `capacity == 0` or the type is zero-sized, where it is a dangling pointer aligned to `align`;
// - rows `0..len` hold initialized values; rows `len..capacity` are uninitialized;
// - for zero-sized types `capacity == usize::MAX`.
pub struct Column {
    data: NonNull<u8>,
    len: usize,
    capacity: usize,
    info: ColumnInfo,
}

// SAFETY: a column owns its values like a `Vec<T>`. Its `ColumnInfo` can only come from
// `ColumnInfo::of::<T>`, which requires `T: Send + Sync` (the fields are private to storage), so
// moving or sharing the column across threads moves or shares `T`s, which is allowed.
unsafe impl Send for Column {}
// SAFETY: as above; shared access hands out `&T` only, and `T: Sync`.
unsafe impl Sync for Column {}

impl Column {
    /// An empty column for the type described by `info`. Allocates nothing.
    pub fn new(info: ColumnInfo) -> Self {
        let capacity = if info.layout.size() == 0 { usize::MAX } else { 0 };
        Self { data: dangling(info.layout.align()), len: 0, capacity, info }
    }

    /// The stored type's description.
    #[inline]
    pub fn info(&self) -> &ColumnInfo {
        &self.info
    }

    /// Number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Number of values the column can hold before it reallocates.
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Panics unless `T` is the stored type, naming both.
    #[inline]
    #[track_caller]
    pub(super) fn check_type<T: 'static>(&self) {
        assert!(
            self.info.type_id == TypeId::of::<T>(),
            "column holds `{}` but was accessed as `{}`",
            self.info.type_name,
            std::any::type_name::<T>()
        );
    }

    /// Makes room for at least `additional` more values. Amortised: grows to at least double.
    ///
    /// # Panics
    /// If the new size in bytes overflows `isize`; aborts if the allocator fails.
    pub fn reserve(&mut self, additional: usize) {
        let required = self.len.checked_add(additional).expect("column capacity overflow");
        if required > self.capacity {
            let doubled = self.capacity.saturating_mul(2);
            self.grow_to(required.max(doubled).max(4));
        }
    }

    /// Shrinks the capacity to the length, freeing the allocation when empty.
    pub fn shrink_to_fit(&mut self) {
        if self.info.layout.size() == 0 || self.capacity == self.len {
            return;
        }
        let old = self.array_layout(self.capacity);
        if self.len == 0 {
            // SAFETY: capacity > len == 0 and the type is sized, so `data` was allocated with
            // `old` (invariant) and is not used again: it is replaced by a dangling pointer.
            unsafe { alloc::dealloc(self.data.as_ptr(), old) };
            self.data = dangling(self.info.layout.align());
        } else {
            let new = self.array_layout(self.len);
            // SAFETY: `data` was allocated with `old` (invariant, capacity > 0, sized type);
            // `new.size()` is non-zero and fits `isize` since it is smaller than `old.size()`.
            let ptr = unsafe { alloc::realloc(self.data.as_ptr(), old, new.size()) };
            self.data = NonNull::new(ptr).unwrap_or_else(|| alloc::handle_alloc_error(new));
        }
        self.capacity = self.len;
    }

    fn array_layout(&self, capacity: usize) -> Layout {
        let size = self.info.layout.size().checked_mul(capacity).expect("column capacity overflow");
        Layout::from_size_align(size, self.info.layout.align()).expect("column capacity overflow")
    }

    fn grow_to(&mut self, new_capacity: usize) {
        debug_assert!(self.info.layout.size() > 0, "zero-sized columns never grow");
        let new = self.array_layout(new_capacity);
        let ptr = if self.capacity == 0 {
            // SAFETY: `new` has non-zero size: the type is sized and new_capacity > capacity >= 0.
            unsafe { alloc::alloc(new) }
        } else {
            let old = self.array_layout(self.capacity);
            // SAFETY: `data` was allocated with `old` (invariant, capacity > 0); `new.size()` is
            // non-zero and was checked by `Layout::from_size_align` not to overflow `isize`.
            unsafe { alloc::realloc(self.data.as_ptr(), old, new.size()) }
        };
        self.data = NonNull::new(ptr).unwrap_or_else(|| alloc::handle_alloc_error(new));
        self.capacity = new_capacity;
    }

    /// Pointer to row `row`, which may be one past the end.
    ///
    /// # Safety
    /// - `row <= capacity`.
    #[inline]
    unsafe fn row_ptr(&self, row: usize) -> *mut u8 {
        debug_assert!(row <= self.capacity);
        // SAFETY: row <= capacity, so the offset stays inside (or one past) the allocation, and
        // for zero-sized types the offset is 0 bytes.
        unsafe { self.data.as_ptr().add(row * self.info.layout.size()) }
    }

    /// Appends `value`.
    ///
    /// # Panics
    /// If `T` is not the stored type.
    #[inline]
    #[track_caller]
    pub fn push<T: 'static>(&mut self, value: T) {
        self.check_type::<T>();
        if self.len == self.capacity {
            self.reserve(1);
        }
        // SAFETY: len < capacity after the reserve, so row `len` is inside the allocation,
        // uninitialized (invariant) and aligned for `T` (the allocation uses T's alignment);
        // `T` is the stored type (checked above), so the row's offset is `len` values of `T`
        // (what `row_ptr` computes from the layout's size, here known at compile time).
        unsafe { self.data.as_ptr().cast::<T>().add(self.len).write(value) };
        self.len += 1;
    }

    /// Appends every value of `values` in order. An empty column takes the `Vec`'s buffer as
    /// its own (no copy: O(1)); otherwise the values are moved with one copy and the buffer is
    /// freed (O(n) bytes, at most one reallocation).
    ///
    /// # Panics
    /// If `T` is not the stored type (before anything changes), or the capacity overflows.
    #[track_caller]
    pub fn append_vec<T: 'static>(&mut self, mut values: Vec<T>) {
        self.check_type::<T>();
        if self.len == 0 && self.info.layout.size() != 0 && values.capacity() != 0 {
            if self.capacity != 0 {
                let old = self.array_layout(self.capacity);
                // SAFETY: the type is sized and capacity > 0, so `data` was allocated with `old`
                // (invariant); the column is empty, so no value is lost, and `data` is replaced
                // below before any use.
                unsafe { alloc::dealloc(self.data.as_ptr(), old) };
            }
            let mut values = std::mem::ManuallyDrop::new(values);
            // SAFETY: a `Vec<T>` with non-zero capacity of a sized `T` owns a buffer from the
            // global allocator with `Layout::array::<T>(capacity)` (the `Vec` documentation),
            // which is `array_layout(capacity)` for the stored type `T` (checked above): size
            // `size * capacity`, `T`'s alignment. Its first `len` elements are initialized and the
            // rest are not, as the column's invariant wants; `ManuallyDrop` hands the ownership of
            // the buffer and the values to the column, so neither is freed or dropped twice.
            unsafe {
                self.data = NonNull::new_unchecked(values.as_mut_ptr().cast::<u8>());
            }
            self.capacity = values.capacity();
            self.len = values.len();
            return;
        }
        let n = values.len();
        self.reserve(n);
        // SAFETY: after the reserve, rows `len..len + n` are inside the allocation and
        // uninitialized (invariant), aligned for `T` (the stored type, checked above); the source
        // is `values`' n initialized elements, a different allocation. Setting the `Vec`'s length
        // to 0 hands their ownership to the column (they are not dropped twice).
        unsafe {
            std::ptr::copy_nonoverlapping(values.as_ptr(), self.row_ptr(self.len).cast::<T>(), n);
            values.set_len(0);
        }
        self.len += n;
    }

    /// The value at `row`, or `None` if `row >= len`.
    ///
    /// # Panics
    /// If `T` is not the stored type.
    #[inline]
    #[track_caller]
    pub fn get<T: 'static>(&self, row: usize) -> Option<&T> {
        self.check_type::<T>();
        // SAFETY: `as_slice`'s type check just passed.
        self.as_slice::<T>().get(row)
    }

    /// The value at `row` mutably, or `None` if `row >= len`.
    ///
    /// # Panics
    /// If `T` is not the stored type.
    #[inline]
    #[track_caller]
    pub fn get_mut<T: 'static>(&mut self, row: usize) -> Option<&mut T> {
        self.as_mut_slice::<T>().get_mut(row)
    }

    /// All values as a slice, in row order.
    ///
    /// # Panics
    /// If `T` is not the stored type.
    #[inline]
    #[track_caller]
    pub fn as_slice<T: 'static>(&self) -> &[T] {
        self.check_type::<T>();
        // SAFETY: rows 0..len are initialized values of `T` (invariant; type checked), the pointer
        // is aligned and non-null (dangling-but-aligned when nothing is allocated, which is valid
        // for an empty slice or for zero-sized `T`), and `&self` prevents mutation for the
        // slice's lifetime.
        unsafe { std::slice::from_raw_parts(self.data.as_ptr().cast::<T>(), self.len) }
    }

    /// All values as a mutable slice, in row order.
    ///
    /// # Panics
    /// If `T` is not the stored type.
    #[inline]
    #[track_caller]
    pub fn as_mut_slice<T: 'static>(&mut self) -> &mut [T] {
        self.check_type::<T>();
        // SAFETY: as in `as_slice`, and `&mut self` makes the slice the only access.
        unsafe { std::slice::from_raw_parts_mut(self.data.as_ptr().cast::<T>(), self.len) }
    }

    /// Base pointer of the values, typed, for query fetch, which indexes it by row.
    ///
    /// The pointer is valid for reads and writes of rows `0..len` until the column is mutated
    /// through `&mut self` (push, remove, reserve...). Writing through it needs exclusive access
    /// to the rows written, which the query layer guarantees by its access checks.
    ///
    /// # Panics
    /// If `T` is not the stored type.
    #[inline]
    #[track_caller]
    pub fn typed_ptr<T: 'static>(&self) -> NonNull<T> {
        self.check_type::<T>();
        self.data.cast::<T>()
    }

    /// Overwrites the value at `row`, returning the old one.
    ///
    /// # Panics
    /// If `T` is not the stored type or `row >= len`.
    #[inline]
    #[track_caller]
    pub fn replace<T: 'static>(&mut self, row: usize, value: T) -> T {
        let slot = self.get_mut::<T>(row).expect("column row out of bounds");
        std::mem::replace(slot, value)
    }

    /// Removes the value at `row` by moving the last value into its place, and returns it. O(1).
    ///
    /// # Panics
    /// If `T` is not the stored type or `row >= len`.
    #[inline(always)]
    #[track_caller]
    pub fn swap_remove<T: 'static>(&mut self, row: usize) -> T {
        self.check_type::<T>();
        assert!(row < self.len, "column row {row} out of bounds (len {})", self.len);
        let last = self.len - 1;
        // SAFETY: row and last are < len, so both are initialized values of `T` (type checked).
        // The value at `row` is read out (now owned by us), the last value is moved into `row`
        // (when they differ; `copy` allows the equal case), and `len` shrinks by one so the old
        // last row is treated as uninitialized: every value stays owned exactly once.
        unsafe {
            let base = self.data.as_ptr().cast::<T>();
            let value = base.add(row).read();
            std::ptr::copy(base.add(last), base.add(row), 1);
            self.len = last;
            value
        }
    }

    /// Removes the value at `row` by moving the last value into its place, and drops it. O(1).
    ///
    /// Panic safety: the column is consistent before the value's `Drop` runs; if that drop panics
    /// the value counts as dropped and nothing is dropped twice.
    ///
    /// # Panics
    /// If `row >= len`, or if the value's `Drop` panics.
    #[inline]
    #[track_caller]
    pub fn swap_remove_and_drop(&mut self, row: usize) {
        assert!(row < self.len, "column row {row} out of bounds (len {})", self.len);
        let last = self.len - 1;
        let Some(drop) = self.info.drop else {
            // Nothing to drop: the removed value's bytes are simply overwritten by the last row's
            // (a plain copy, not a swap), and `len` shrinks past the stale copy. Kept apart from
            // the swap-and-drop path, whose byte-swap loop made every call save six registers
            // (about 15 instructions per removed component in despawn).
            if row != last {
                // SAFETY: row and last are distinct rows < len <= capacity, so both pointers are
                // inside the allocation, valid for one value's size and disjoint. The value at `row`
                // needs no drop and is overwritten; the old last row is no longer owned once
                // `len` shrinks.
                unsafe { copy_row(self.row_ptr(last), self.row_ptr(row), self.info.layout.size()) };
            }
            self.len = last;
            return;
        };
        self.swap_out_and_drop(row, last, drop);
    }

    /// The dropping half of [`Column::swap_remove_and_drop`]: swaps `row` with `last`, shrinks
    /// the column past it, then drops the removed value with `drop`.
    #[inline(never)]
    fn swap_out_and_drop(&mut self, row: usize, last: usize, drop: unsafe fn(*mut u8)) {
        debug_assert!(row <= last && last + 1 == self.len);
        // SAFETY: row and last are < len <= capacity (caller: `swap_remove_and_drop` checked row
        // and set last = len - 1). When they differ the two values are swapped (non-overlapping:
        // distinct rows of `size` bytes), which keeps every value initialized and owned once.
        // Then `len` shrinks so the removed value, now at `last`, is no longer owned by the
        // column, and it is dropped exactly once through the drop fn of the stored type.
        unsafe {
            let target = self.row_ptr(row);
            let end = self.row_ptr(last);
            if row != last {
                std::ptr::swap_nonoverlapping(target, end, self.info.layout.size());
            }
            self.len = last;
            drop(end);
        }
    }

    /// Exchanges the values at rows `a` and `b`. O(1).
    ///
    /// # Panics
    /// If either row is out of bounds.
    #[track_caller]
    pub fn swap(&mut self, a: usize, b: usize) {
        assert!(a < self.len && b < self.len, "column rows {a}, {b} out of bounds (len {})", self.len);
        if a != b {
            // SAFETY: both rows are distinct initialized rows inside the allocation; swapping their
            // bytes keeps every value initialized and owned once.
            unsafe {
                std::ptr::swap_nonoverlapping(self.row_ptr(a), self.row_ptr(b), self.info.layout.size())
            };
        }
    }

    /// Hints the CPU to fetch row `row`'s value (nothing past the end). O(1).
    #[inline]
    pub(crate) fn prefetch_row(&self, row: usize) {
        if row < self.len {
            // SAFETY: `row < len`, so the offset stays inside the allocation (`row_ptr`'s contract).
            super::prefetch::prefetch_ptr(unsafe { self.row_ptr(row) });
        }
    }

    /// Reorders rows `start..start + order.len()` so that row `start + i` holds what row
    /// `order[i]` held. O(n) byte copies through `scratch` (grown to `n * size` bytes, kept for
    /// the next call); values are moved, never dropped or duplicated.
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
        // SAFETY: `data` holds `len` initialized values of `size` bytes; the range and the rows in
        // `order` lie inside them (caller).
        unsafe { gather_bytes(self.data.as_ptr(), self.info.layout.size(), start, order, scratch) }
    }

    /// Drops every value, keeping the capacity.
    ///
    /// # Panics
    /// If a value's `Drop` panics: the remaining values are still dropped (during the unwind),
    /// none twice.
    ///
    /// # Aborts
    /// If a second value's `Drop` panics during that unwind (a panic while panicking).
    pub fn clear(&mut self) {
        let len = self.len;
        // Set len first: the column no longer owns the values being dropped.
        self.len = 0;
        let Some(drop) = self.info.drop else { return };
        /// Drops rows `next..len` when dropped, so an unwind from one value's `Drop` still drops
        /// the rest.
        struct Rest<'a> {
            column: &'a Column,
            drop: unsafe fn(*mut u8),
            next: usize,
            len: usize,
        }
        impl Rest<'_> {
            fn run(&mut self) {
                while self.next < self.len {
                    let row = self.next;
                    self.next += 1;
                    // SAFETY: row < the old len, so the value is initialized; the column's len is
                    // 0, so it no longer owns it, and `next` moved past it first, so this is its
                    // only drop even if it panics.
                    unsafe { (self.drop)(self.column.row_ptr(row)) };
                }
            }
        }
        impl Drop for Rest<'_> {
            fn drop(&mut self) {
                self.run();
            }
        }
        let mut rest = Rest { column: self, drop, next: 0, len };
        rest.run();
    }
}

#[cfg(feature = "rollback")]
/// Bulk copies for pool images (`storage/image.rs`).
impl Column {
    /// Replaces every value with a copy of `src`, in order: afterwards `len == src.len()` and row
    /// `r` holds `src[r]`. One `memcpy`; allocates only if the capacity is below `src.len()`.
    ///
    /// # Panics
    /// If `T` is not the stored type (checked before anything changes).
    #[track_caller]
    pub fn assign_copies<T: Copy + 'static>(&mut self, src: &[T]) {
        self.check_type::<T>();
        // `T: Copy` has no drop glue: forgetting the old values is dropping them.
        self.len = 0;
        self.reserve(src.len());
        // SAFETY: the type check above makes `T` the stored type, so the allocation is aligned for
        // `T` and, after the reserve, holds at least `src.len()` values (for a zero-sized `T`
        // nothing is written). `src` is a separate borrow (`&self` is exclusive), so the ranges do
        // not overlap. The copied rows are initialized `T`s (bitwise copies of valid `Copy`
        // values), which is what `len = src.len()` then claims.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.data.as_ptr().cast::<T>(), src.len()) };
        self.len = src.len();
    }

    /// Removes and drops the values from row `len` on; does nothing if there are `len` or fewer.
    ///
    /// # Panics
    /// If a value's `Drop` panics (the values before it are already gone; the column is
    /// consistent).
    pub fn truncate(&mut self, len: usize) {
        while self.len > len {
            self.swap_remove_and_drop(self.len - 1);
        }
    }
}

impl Drop for Column {
    fn drop(&mut self) {
        /// Frees the buffer when dropped: also when a value's `Drop` panics in `clear`.
        struct Free<'a>(&'a mut Column);
        impl Drop for Free<'_> {
            fn drop(&mut self) {
                let column = &mut *self.0;
                if column.info.layout.size() != 0 && column.capacity != 0 {
                    let layout = column.array_layout(column.capacity);
                    // SAFETY: the type is sized and capacity > 0, so `data` was allocated with
                    // exactly this layout (invariant); `clear` left no value in it (all were
                    // dropped, even on unwind), and the column is not used after this.
                    unsafe { alloc::dealloc(column.data.as_ptr(), layout) };
                }
            }
        }
        let free = Free(self);
        free.0.clear();
    }
}

impl std::fmt::Debug for Column {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Column")
            .field("type", &self.info.type_name)
            .field("len", &self.len)
            .field("capacity", &self.capacity)
            .finish()
    }
}

/// A non-null pointer aligned to `align`, valid for zero-sized accesses.
pub(super) fn dangling(align: usize) -> NonNull<u8> {
    NonNull::new(std::ptr::without_provenance_mut(align)).expect("alignment is never zero")
}

/// Permutes rows `start..start + order.len()` of the column of `size`-byte values at `base`:
/// row `start + i` receives what row `order[i]` held. Gathers into `scratch`, then copies the
/// block back, both as bytes (provenance and padding kept, no value read as a type).
///
/// # Safety
/// `base` is valid for reads and writes of every row in `start..start + order.len()`, each
/// `size` bytes; `order` is a permutation of that range.
pub(crate) unsafe fn gather_bytes(
    base: *mut u8,
    size: usize,
    start: usize,
    order: &[usize],
    scratch: &mut Vec<std::mem::MaybeUninit<u8>>,
) {
    let bytes = size * order.len();
    if bytes == 0 {
        return;
    }
    scratch.clear();
    scratch.reserve(bytes);
    let out = scratch.as_mut_ptr().cast::<u8>();
    for (i, &row) in order.iter().enumerate() {
        // SAFETY: `row` is inside the range the caller vouches for, so its `size` bytes are
        // readable; `out` has room for `bytes = size * order.len()` bytes, of which this writes
        // `i`'s; the scratch buffer is a separate allocation.
        unsafe { copy_row(base.add(row * size), out.add(i * size), size) };
    }
    // SAFETY: `bytes` bytes of the scratch were written above; the destination is the range,
    // valid for writes (caller) and disjoint from the scratch. Untyped copy: padding and
    // provenance move as they are.
    unsafe { std::ptr::copy_nonoverlapping(out, base.add(start * size), bytes) };
}

/// Copies one row of `size` bytes from `src` to `dst`, inline for the small sizes components
/// usually have (a `memcpy` call for a runtime size costs more than the copy).
///
/// The fixed-size copies move `MaybeUninit` byte arrays, never integers: a value may hold
/// pointers, and a copy through an integer type would drop their provenance (Miri reports the
/// copied `&str` as dangling).
///
/// # Safety
/// `src` and `dst` are valid for `size` bytes (reads and writes respectively) and do not overlap.
#[inline(always)]
unsafe fn copy_row(src: *const u8, dst: *mut u8, size: usize) {
    /// One unaligned copy of exactly `N` bytes, provenance included.
    ///
    /// # Safety
    /// As `copy_row`, with `size == N`.
    #[inline(always)]
    unsafe fn fixed<const N: usize>(src: *const u8, dst: *mut u8) {
        // SAFETY: both pointers are valid for `N` bytes and disjoint (caller); `MaybeUninit`
        // has no validity requirement, and unaligned accesses need no alignment.
        unsafe {
            let bytes = src.cast::<std::mem::MaybeUninit<[u8; N]>>().read_unaligned();
            dst.cast::<std::mem::MaybeUninit<[u8; N]>>().write_unaligned(bytes);
        }
    }
    // SAFETY: both pointers are valid for `size` bytes and disjoint (caller), and each arm copies
    // exactly `size` bytes.
    unsafe {
        match size {
            4 => fixed::<4>(src, dst),
            8 => fixed::<8>(src, dst),
            12 => fixed::<12>(src, dst),
            16 => fixed::<16>(src, dst),
            _ => std::ptr::copy_nonoverlapping(src, dst, size),
        }
    }
}

#[cfg(test)]
mod tests;
