//! Entity-to-row lookups of a pool, and comparing two pools' row orders.

use crate::entity::Entity;
use crate::storage::SparseView;

/// Length of the longest common prefix of `a` and `b`: compares 32 entities at a time (which the
/// compiler turns into wide compares), then one by one.
pub(super) fn common_prefix(a: &[Entity], b: &[Entity]) -> usize {
    const CHUNK: usize = 32;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + CHUNK <= n
        && a[i..i + CHUNK]
            .iter()
            .zip(&b[i..i + CHUNK])
            .fold(true, |same, (x, y)| same & (x.to_bits() == y.to_bits()))
    {
        i += CHUNK;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// Entity-to-row lookup of one [`SparseSet`], from [`SparseSet::lookup`].
#[derive(Clone, Copy, Debug)]
pub struct RowLookup<'a> {
    pub(super) sparse: SparseView<'a>,
    pub(super) dense: &'a [Entity],
}

impl RowLookup<'_> {
    /// The entity at row `row`.
    ///
    /// # Panics
    /// If `row` is out of bounds.
    #[inline(always)]
    pub fn entity_at(&self, row: usize) -> Entity {
        self.dense[row]
    }

    /// Whether this is the lookup of the pool whose entities (in row order) are `dense`. O(1).
    #[inline(always)]
    pub fn is_of(&self, dense: &[Entity]) -> bool {
        std::ptr::eq(self.dense.as_ptr(), dense.as_ptr()) && self.dense.len() == dense.len()
    }

    /// The row of `entity`, which is alive in the pool's world, in a pool that is not lazily
    /// cleaned: one sparse read, no dense check. Such a pool holds only live entities, and one
    /// live entity has a given index, so an entry at the index is `entity`'s row. For a dead or
    /// foreign entity the row (always in bounds) may hold another entity: callers that hand out
    /// references from it must know `entity` is alive here. O(1).
    #[inline(always)]
    pub fn row_of_alive(&self, entity: Entity) -> Option<usize> {
        let row = self.sparse.get(entity.index())? as usize;
        debug_assert!(self.dense.get(row) == Some(&entity), "row_of_alive on an entity not in the pool");
        Some(row)
    }

    /// The row of `entity`, if it is in the pool. O(1).
    #[inline(always)]
    pub fn row_of(&self, entity: Entity) -> Option<usize> {
        let row = self.sparse.get(entity.index())? as usize;
        // The sparse entry is per index; the dense entity check rejects stale generations.
        (self.dense.get(row) == Some(&entity)).then_some(row)
    }
}
