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

/// How a pool's rows are ordered by entity index, from [`SparseSet::index_order`]: what lets a
/// query find another pool's entities among its rows by index arithmetic instead of a lookup.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexOrder {
    /// The entity indices strictly increase from row to row (an empty pool is sorted).
    pub sorted: bool,
    /// `Some(base)` when row `r` holds the entity of index `base + r` for every row: the pool
    /// holds a run of consecutive indices in index order (entities spawned together, none of
    /// them removed since). `None` for an empty pool.
    pub base: Option<u32>,
}

/// The [`IndexOrder`] of a pool whose entities are `dense`, in row order. O(n), stopping at the
/// first row out of order; 32 rows at a time, which the compiler turns into wide compares.
pub(super) fn index_order(dense: &[Entity]) -> IndexOrder {
    const CHUNK: usize = 33; // 32 pairs of neighbours per step
    let Some(first) = dense.first() else { return IndexOrder { sorted: true, base: None } };
    let (mut sorted, mut contiguous) = (true, true);
    let mut i = 0;
    while sorted && i + CHUNK <= dense.len() {
        let rows = &dense[i..i + CHUNK];
        let (s, c) = rows.windows(2).fold((true, true), |(s, c), pair| {
            let (a, b) = (pair[0].index(), pair[1].index());
            (s & (a < b), c & (a.wrapping_add(1) == b))
        });
        (sorted, contiguous) = (sorted & s, contiguous & c);
        i += CHUNK - 1;
    }
    if !sorted {
        return IndexOrder { sorted: false, base: None };
    }
    for pair in dense[i..].windows(2) {
        let (a, b) = (pair[0].index(), pair[1].index());
        sorted &= a < b;
        contiguous &= a.wrapping_add(1) == b;
    }
    IndexOrder { sorted, base: (sorted && contiguous).then_some(first.index()) }
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
