//! A column whose type was checked once: what a batch of rows of one type works through.

use std::marker::PhantomData;

use super::Column;

/// A column viewed as values of `T`, the type checked once when the view is made
/// ([`Column::typed_mut`]), so a batch of pushes, replacements and removals pays one type check
/// instead of one per row. Row access is bounds-checked as on [`Column`].
//
// Invariant: `T` is the column's stored type (checked by `Column::typed_mut`, the only
// constructor); the exclusive borrow keeps it so for `'a`.
pub struct TypedColumn<'a, T> {
    column: &'a mut Column,
    _values: PhantomData<fn(T) -> T>,
}

impl Column {
    /// The column viewed as values of `T`, checked once. O(1).
    ///
    /// # Panics
    /// If `T` is not the stored type.
    #[inline]
    #[track_caller]
    pub fn typed_mut<T: 'static>(&mut self) -> TypedColumn<'_, T> {
        self.check_type::<T>();
        TypedColumn { column: self, _values: PhantomData }
    }
}

impl<T> TypedColumn<'_, T> {
    /// Appends `value`. O(1) amortised.
    #[inline(always)]
    pub fn push(&mut self, value: T) {
        let column = &mut *self.column;
        if column.len == column.capacity {
            column.reserve(1);
        }
        // SAFETY: len < capacity after the reserve, so row `len` is inside the allocation and
        // uninitialized (invariant), aligned for `T` (the allocation uses its alignment); `T` is
        // the stored type (the view's invariant), so the row's offset is `len` values of `T`.
        unsafe { column.data.as_ptr().cast::<T>().add(column.len).write(value) };
        column.len += 1;
    }

    /// Overwrites the value at `row`, returning the old one. O(1).
    ///
    /// # Panics
    /// If `row >= len`.
    #[inline(always)]
    #[track_caller]
    pub fn replace(&mut self, row: usize, value: T) -> T {
        let column = &mut *self.column;
        assert!(row < column.len, "column row {row} out of bounds (len {})", column.len);
        // SAFETY: row < len, so the row holds an initialized value of `T` (the view's
        // invariant), aligned, and the exclusive borrow rules out any other reference to it.
        unsafe { std::ptr::replace(column.data.as_ptr().cast::<T>().add(row), value) }
    }

    /// Removes the value at `row` by moving the last value into its place, and returns it. O(1).
    ///
    /// # Panics
    /// If `row >= len`.
    #[inline(always)]
    #[track_caller]
    pub fn swap_remove(&mut self, row: usize) -> T {
        let column = &mut *self.column;
        assert!(row < column.len, "column row {row} out of bounds (len {})", column.len);
        let last = column.len - 1;
        // SAFETY: row and last are < len, so both hold initialized values of `T` (the view's
        // invariant). The value at `row` is read out (now owned by the caller), the last value
        // is moved into `row` (`copy` allows row == last), and `len` shrinks by one so the old
        // last row counts as uninitialized: every value stays owned exactly once.
        unsafe {
            let base = column.data.as_ptr().cast::<T>();
            let value = base.add(row).read();
            std::ptr::copy(base.add(last), base.add(row), 1);
            column.len = last;
            value
        }
    }
}
