//! Moving and dropping a pool's rows: swaps, permutations, swap-removes and clearing, each
//! keeping the index, the values and the change tracker in step.

use super::{PoolData, SparseSet};
use crate::entity::Entity;

/// Buffers [`SparseSet::permute_range`] works in, kept by callers that permute often.
#[derive(Debug, Default)]
pub(crate) struct PermuteScratch {
    seen: Vec<bool>,
    bytes: Vec<std::mem::MaybeUninit<u8>>,
    entities: Vec<Entity>,
}

impl SparseSet {
    /// Exchanges rows `a` and `b` (entities and values). O(1) (O(fields) for struct-of-arrays).
    ///
    /// Groups use it to keep their members at the front of each owned pool, and sorting uses it
    /// to reorder a pool.
    ///
    /// # Panics
    /// If either row is out of bounds.
    #[track_caller]
    pub fn swap_rows(&mut self, a: usize, b: usize) {
        if a == b {
            assert!(a < self.dense.len(), "row {a} out of bounds (len {})", self.dense.len());
            return;
        }
        match &mut self.data {
            PoolData::Aos(column) => column.swap(a, b),
            PoolData::Soa(columns) => columns.swap(a, b),
        }
        self.settle_changes();
        if let Some(changes) = self.changes.as_deref_mut() {
            changes.swap(a, b);
        }
        // Only entries that point at the swapped rows move (a stale row's index may belong to a
        // live entity's row elsewhere).
        let a_linked = self.sparse.get(self.dense[a].index()) == Some(a as u32);
        let b_linked = self.sparse.get(self.dense[b].index()) == Some(b as u32);
        self.dense.swap(a, b);
        if b_linked {
            self.sparse.insert(self.dense[a].index(), a as u32);
        }
        if a_linked {
            self.sparse.insert(self.dense[b].index(), b as u32);
        }
        self.version += 1;
    }

    /// Reorders the pool so that new row `i` holds what old row `order[i]` held. O(n).
    ///
    /// # Panics
    /// If `order` is not a permutation of `0..len`.
    #[track_caller]
    pub fn permute(&mut self, order: &[usize]) {
        let len = self.dense.len();
        assert_eq!(order.len(), len, "a permutation of the pool's {len} rows is needed");
        self.permute_range(0, order);
    }

    /// Reorders rows `start..start + order.len()` so that row `start + i` holds what row
    /// `order[i]` held; rows outside the range stay. Entities, values and the index move
    /// together, as whole-block copies (O(n), one pass over each column); with change tracking
    /// on or in a lazily cleaned pool, by O(n) swaps instead, which carry the tracker's rows and
    /// stale rows along. Bumps the version (queries re-check alignment).
    ///
    /// # Panics
    /// If `order` is not a permutation of `start..start + order.len()`, or that range is not
    /// inside the pool.
    #[track_caller]
    pub fn permute_range(&mut self, start: usize, order: &[usize]) {
        self.permute_range_with(start, order, &mut PermuteScratch::default());
    }

    /// How many rows ahead [`SparseSet::permute_range_with`] asks for the sparse entry it will
    /// write: about the misses one core keeps in flight.
    const SPARSE_AHEAD: usize = 16;

    /// [`SparseSet::permute_range`] with buffers kept between calls (no allocation once they
    /// are as large as the range).
    #[track_caller]
    pub(crate) fn permute_range_with(&mut self, start: usize, order: &[usize], scratch: &mut PermuteScratch) {
        let len = self.dense.len();
        let end = start.checked_add(order.len()).filter(|&end| end <= len);
        let Some(end) = end else {
            panic!("rows {start}..{start}+{} are not inside the pool's {len} rows", order.len())
        };
        let seen = &mut scratch.seen;
        seen.clear();
        seen.resize(order.len(), false);
        for &row in order {
            assert!(
                (start..end).contains(&row) && !std::mem::replace(&mut seen[row - start], true),
                "`order` is not a permutation of {start}..{end}"
            );
        }
        if self.lazy || self.changes.is_some() {
            self.permute_by_swaps(start, order);
            return;
        }
        match &mut self.data {
            // SAFETY: `order` was just checked to be a permutation of `start..end`, inside
            // `0..len`, and the column holds `len` rows (pool invariant).
            PoolData::Aos(column) => unsafe { column.gather_range(start, order, &mut scratch.bytes) },
            // SAFETY: as above, for the field columns, which hold `len` rows each.
            PoolData::Soa(columns) => unsafe { columns.gather_range(start, order, &mut scratch.bytes) },
        }
        let moved = &mut scratch.entities;
        moved.clear();
        moved.extend(order.iter().map(|&row| self.dense[row]));
        for (i, &entity) in moved.iter().enumerate() {
            // The entries are at random in entity order: asking for one a few rows ahead lets
            // the misses overlap instead of each write waiting for its line.
            if let Some(ahead) = moved.get(i + Self::SPARSE_AHEAD) {
                self.sparse.prefetch(ahead.index());
            }
            let row = start + i;
            self.dense[row] = entity;
            // No stale rows (not lazy): every dense entity's entry points at its row.
            self.sparse.set_existing(entity.index(), row as u32);
        }
        self.version += 1;
    }

    /// [`SparseSet::permute_range`] by swaps, for pools whose rows carry more than values and
    /// index entries (a change tracker, stale rows): each swap moves all of it. `order` is a
    /// checked permutation of `start..start + order.len()`.
    fn permute_by_swaps(&mut self, start: usize, order: &[usize]) {
        let n = order.len();
        // Fill rows in order, swapping each one's value in from wherever it is now (offsets from
        // `start`).
        let mut position: Vec<usize> = (0..n).collect(); // position[old row] = current row
        let mut slot: Vec<usize> = (0..n).collect(); // slot[current row] = old row held there
        for (target, &wanted) in order.iter().enumerate() {
            let wanted = wanted - start;
            let current = position[wanted];
            if current != target {
                self.swap_rows(start + target, start + current);
                let displaced = slot[target];
                slot.swap(target, current);
                position[displaced] = current;
                position[wanted] = target;
            }
        }
    }

    /// The rest of [`SparseSet::unlink`] in a pool with no stale rows, once the changes are
    /// settled and `entity`'s sparse entry is cleared: the dense row goes (the last moves into
    /// it, and its entry follows), and the tracker's row with it.
    #[inline(always)]
    pub(super) fn unlink_cleared(&mut self, entity: Entity, row: usize) {
        debug_assert!(!self.lazy && self.sparse.get(entity.index()).is_none());
        self.version += 1;
        if let Some(changes) = self.changes.as_deref_mut() {
            changes.swap_remove(row, entity);
        }
        self.dense.swap_remove(row);
        if let Some(&moved) = self.dense.get(row) {
            self.sparse.set_existing(moved.index(), row as u32);
        }
    }

    /// Updates `dense` and `sparse` after the value at `row` was swap-removed from the column.
    #[inline]
    pub(super) fn unlink(&mut self, entity: Entity, row: usize) {
        self.settle_changes();
        if !self.lazy {
            // No stale rows: every dense entity's sparse entry points at its row.
            self.sparse.remove(entity.index());
            self.unlink_cleared(entity, row);
            return;
        }
        self.version += 1;
        if let Some(changes) = self.changes.as_deref_mut() {
            changes.swap_remove(row, entity);
        }
        let last = self.dense.len() - 1;
        let last_linked = self.sparse.get(self.dense[last].index()) == Some(last as u32);
        if self.sparse.get(entity.index()) == Some(row as u32) {
            self.sparse.remove(entity.index());
        }
        self.dense.swap_remove(row);
        if let Some(&moved) = self.dense.get(row)
            && last_linked
        {
            self.sparse.insert(moved.index(), row as u32);
        }
    }

    /// Removes row `row` (live or stale) and drops its value; returns the entity it held. O(1).
    ///
    /// # Panics
    /// If `row` is out of bounds, or if the value's `Drop` panics (the pool is consistent first).
    #[track_caller]
    pub fn remove_row_and_drop(&mut self, row: usize) -> Entity {
        let entity = self.dense[row];
        self.unlink(entity, row);
        match &mut self.data {
            PoolData::Aos(column) => column.swap_remove_and_drop(row),
            PoolData::Soa(columns) => columns.swap_remove_and_drop(row),
        }
        entity
    }

    /// Removes and drops every value, keeping capacity and pages.
    ///
    /// # Panics
    /// If a value's `Drop` panics: the pool is already empty, and the column drops the remaining
    /// values during the unwind (each once; a second panicking drop aborts).
    pub fn clear(&mut self) {
        // Empty the index first, so a panicking drop leaves an empty, consistent pool.
        self.version += 1;
        self.settle_changes();
        if let Some(changes) = self.changes.as_deref_mut() {
            changes.clear(&self.dense);
        }
        self.sparse.clear();
        self.dense.clear();
        match &mut self.data {
            PoolData::Aos(column) => column.clear(),
            PoolData::Soa(columns) => columns.clear(),
        }
    }
}
