//! A column's byte-level access, for components defined at run time (`mosaic::dynamic`), which
//! have no Rust type: values moved in and out by address, plain columns read and written as
//! bytes. Every typed method stays in `mod.rs`.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

use super::{Column, dangling};

impl Column {
    /// Every value's bytes, in row order, for a column of plain values (`None` otherwise).
    /// O(1).
    #[cfg(feature = "rollback")]
    pub fn bytes(&self) -> Option<&[u8]> {
        if !self.info.plain {
            return None;
        }
        let size = self.info.layout.size() * self.len;
        // SAFETY: a plain column's values are initialized bytes (the `ColumnInfo::dynamic`
        // contract), rows `0..len` lie in the allocation (or are zero-sized), and the shared
        // borrow of the column keeps them unwritten for the slice's life.
        Some(unsafe { std::slice::from_raw_parts(self.data.as_ptr(), size) })
    }

    /// Replaces every value of a plain column with the values whose bytes are `bytes` (a whole
    /// number of values, as [`Column::bytes`] gives them). O(bytes).
    ///
    /// # Panics
    /// If the column is not plain or `bytes` is not a whole number of values.
    #[cfg(feature = "rollback")]
    #[track_caller]
    pub fn assign_bytes(&mut self, bytes: &[u8]) {
        assert!(self.info.plain, "column of `{}` is not plain bytes", self.info.type_name);
        let size = self.info.layout.size();
        let rows = bytes.len().checked_div(size).unwrap_or(0);
        assert!(rows * size == bytes.len(), "{} bytes are not whole values of {size}", bytes.len());
        // Plain values need no drop: forgetting the old ones is dropping them.
        self.len = 0;
        if size == 0 {
            return;
        }
        self.reserve(rows);
        // SAFETY: after the reserve the allocation holds `rows` values; `bytes` is a separate
        // borrow, so the ranges do not overlap; the bytes are initialized and any bytes are a
        // valid plain value, which is what `len = rows` claims.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.data.as_ptr(), bytes.len()) };
        self.len = rows;
    }

    /// The address of row `row`'s value (for run-time components, which have no Rust type).
    ///
    /// # Panics
    /// If `row >= len`.
    #[inline]
    #[track_caller]
    pub fn value_ptr(&self, row: usize) -> NonNull<u8> {
        assert!(row < self.len, "column row {row} out of bounds (len {})", self.len);
        // SAFETY: row < len <= capacity, so the offset stays inside the allocation.
        unsafe { NonNull::new_unchecked(self.row_ptr(row)) }
    }

    /// The address of row 0 (dangling but aligned when the column is empty or zero-sized):
    /// rows are `layout().size()` bytes apart.
    #[inline]
    pub fn base_ptr(&self) -> NonNull<u8> {
        self.data
    }

    /// Appends the value whose bytes are at `src`, moving it into the column. O(1) amortised.
    ///
    /// # Safety
    /// `src` is valid for reads of one value's size (any alignment) and holds a value of the
    /// stored type, which the caller neither uses nor drops afterwards.
    pub unsafe fn push_raw(&mut self, src: *const u8) {
        if self.len == self.capacity {
            self.reserve(1);
        }
        // SAFETY: len < capacity after the reserve, so row `len` is inside the allocation and
        // uninitialized; `src` holds one value of the stored type (caller), disjoint from the
        // column's buffer (the caller owns it), copied bytewise (no alignment needed).
        unsafe { std::ptr::copy_nonoverlapping(src, self.row_ptr(self.len), self.info.layout.size()) };
        self.len += 1;
    }

    /// Replaces row `row`'s value with the one at `src` (moved in) and drops the old one. The
    /// column is consistent before the old value's drop runs.
    ///
    /// # Safety
    /// As [`Column::push_raw`].
    ///
    /// # Panics
    /// If `row >= len`, or if the old value's drop panics (the new value is in place then).
    pub unsafe fn replace_raw(&mut self, row: usize, src: *const u8) {
        assert!(row < self.len, "column row {row} out of bounds (len {})", self.len);
        let size = self.info.layout.size();
        let Some(drop) = self.info.drop else {
            // SAFETY: row < len, so the row is inside the allocation; its old value needs no
            // drop and is overwritten by the new one's bytes (caller: `src` holds one value).
            unsafe { std::ptr::copy_nonoverlapping(src, self.row_ptr(row), size) };
            return;
        };
        // The old value moves to an aligned scratch allocation first, so it can be dropped after
        // the new one is in place.
        let scratch = Scratch::new(self.info.layout);
        // SAFETY: the row holds an initialized value (row < len); it is moved out into `scratch`
        // (valid for one value, aligned), then the new value's bytes are moved in; `drop` runs
        // once on the old value at its aligned scratch address; `scratch` frees the memory even
        // if the drop panics (and never drops the value itself).
        unsafe {
            std::ptr::copy_nonoverlapping(self.row_ptr(row), scratch.ptr(), size);
            std::ptr::copy_nonoverlapping(src, self.row_ptr(row), size);
            drop(scratch.ptr());
        }
    }

    /// Removes row `row` by moving the last value into its place, moving the removed value's
    /// bytes to `dst` (the caller now owns it). O(1).
    ///
    /// # Safety
    /// `dst` is valid for writes of one value's size (any alignment), disjoint from the column.
    ///
    /// # Panics
    /// If `row >= len`.
    pub unsafe fn swap_remove_raw(&mut self, row: usize, dst: *mut u8) {
        assert!(row < self.len, "column row {row} out of bounds (len {})", self.len);
        let last = self.len - 1;
        let size = self.info.layout.size();
        // SAFETY: row and last are < len, so both hold initialized values inside the allocation.
        // The value at `row` moves to `dst` (disjoint, caller), the last value moves into `row`
        // (`copy` allows row == last), and `len` shrinks, so every value is owned exactly once.
        unsafe {
            std::ptr::copy_nonoverlapping(self.row_ptr(row), dst, size);
            std::ptr::copy(self.row_ptr(last), self.row_ptr(row), size);
        }
        self.len = last;
    }
}

/// An aligned, uninitialized allocation for one value of a layout, freed on drop (never
/// dropping what it holds): where [`Column::replace_raw`] parks the old value while it drops it.
struct Scratch {
    ptr: NonNull<u8>,
    layout: Layout,
}

impl Scratch {
    fn new(layout: Layout) -> Self {
        if layout.size() == 0 {
            return Self { ptr: dangling(layout.align()), layout };
        }
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc::alloc(layout) };
        Self { ptr: NonNull::new(ptr).unwrap_or_else(|| alloc::handle_alloc_error(layout)), layout }
    }

    fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if self.layout.size() != 0 {
            // SAFETY: allocated in `new` with this layout, freed once here.
            unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) };
        }
    }
}
