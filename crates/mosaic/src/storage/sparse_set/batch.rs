//! Batches of inserts and removals of one array-of-structs type: the per-pool checks (layout,
//! type, change tracking, lazy cleanup) made once per batch instead of once per row.

use super::{EMPTY_ROW, Entity, PoolData, SparseSet};

impl SparseSet {
    /// Inserts or replaces the values of `rows`, as [`SparseSet::insert`] row by row: a row
    /// whose entity `keep` refuses is passed over (its value dropped), a replaced value is
    /// dropped, and `added` hears of each entity that was not in the pool. O(rows) amortised.
    ///
    /// The layout, the type and whether changes are tracked are checked once: an untracked
    /// pool then pays per row one page lookup, the row check and the pushes.
    ///
    /// # Panics
    /// If the pool is struct-of-arrays or `T` is not its type (before any row), or it would pass
    /// `u32::MAX - 1` rows; and whatever `keep`, `added` or a replaced value's drop panics with,
    /// the pool consistent with the rows before.
    #[inline(always)]
    #[track_caller]
    pub fn insert_rows<T: 'static>(
        &mut self,
        rows: impl Iterator<Item = (Entity, T)>,
        mut keep: impl FnMut(Entity) -> bool,
        mut added: impl FnMut(Entity),
    ) {
        self.data.column_mut().typed_mut::<T>();
        if self.changes.is_some() {
            for (entity, value) in rows {
                if keep(entity) && self.insert(entity, value).is_none() {
                    added(entity);
                }
            }
            return;
        }
        let Self { sparse, dense, data, version, .. } = self;
        let PoolData::Aos(column) = data else { unreachable!("checked array-of-structs above") };
        let mut column = column.typed_mut::<T>();
        for (entity, value) in rows {
            if !keep(entity) {
                continue;
            }
            let len = dense.len();
            let entry = sparse.entry_mut(entity.index());
            let row = *entry as usize;
            if row < len && dense[row] == entity {
                drop(column.replace(row, value));
                continue;
            }
            assert!(
                len < u32::MAX as usize,
                "sparse set row overflow: more than u32::MAX - 1 values in one pool"
            );
            column.push(value);
            dense.push(entity);
            *entry = len as u32;
            *version += 1;
            added(entity);
        }
    }

    /// Removes the values of `entities`, as [`SparseSet::remove`] each: `check` sees every
    /// entity first (it may panic), and `removed` takes each entity that was in the pool with its
    /// value. Entities not in the pool are passed over. O(entities).
    ///
    /// The layout, the type, change tracking and lazy cleanup are checked once: a pool that is
    /// neither tracked nor lazy then pays per entity one page lookup, the row check, the
    /// swap-removes and the moved row's entry.
    ///
    /// # Panics
    /// If the pool is struct-of-arrays or `T` is not its type (before any entity); and whatever
    /// `check` or `removed` panics with, the pool consistent with the entities before.
    #[inline(always)]
    #[track_caller]
    pub fn remove_rows<T: 'static>(
        &mut self,
        entities: impl Iterator<Item = Entity>,
        mut check: impl FnMut(Entity),
        mut removed: impl FnMut(Entity, T),
    ) {
        self.data.column_mut().typed_mut::<T>();
        if self.changes.is_some() || self.lazy {
            for entity in entities {
                check(entity);
                if let Some(value) = self.remove(entity) {
                    removed(entity, value);
                }
            }
            return;
        }
        let Self { sparse, dense, data, version, .. } = self;
        let PoolData::Aos(column) = data else { unreachable!("checked array-of-structs above") };
        let mut column = column.typed_mut::<T>();
        for entity in entities {
            check(entity);
            let Some(entry) = sparse.get_mut(entity.index()) else { continue };
            let row = *entry as usize;
            if row >= dense.len() || dense[row] != entity {
                continue;
            }
            let value = column.swap_remove(row);
            *entry = EMPTY_ROW;
            *version += 1;
            dense.swap_remove(row);
            if let Some(&moved) = dense.get(row) {
                sparse.set_existing(moved.index(), row as u32);
            }
            removed(entity, value);
        }
    }
}
