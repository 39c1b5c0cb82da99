//! Sorting pools: iteration order on demand.

use super::World;
use crate::component::{Component, ComponentId};
use crate::storage::sorted_rows;

/// Why a pool could not be sorted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SortError {
    /// The pool belongs to an owning group, which decides its order.
    #[error(
        "the pool of `{component}` is owned by a group, which keeps its order; sort a component no group owns"
    )]
    OwnedByGroup {
        /// The component's type name.
        component: &'static str,
    },
}

impl World {
    fn check_sortable(&self, id: ComponentId) -> Result<(), SortError> {
        if self.groups.chain(id).is_empty() {
            Ok(())
        } else {
            Err(SortError::OwnedByGroup { component: self.components.pool(id).type_name() })
        }
    }

    /// Sorts the pool of `T` with `compare` on its views (`&T`, or `TRef` for struct-of-arrays):
    /// queries driven by this pool then visit entities in that order. Stable; O(n log n).
    /// Any later insert or remove on the pool may disturb the order (swap-remove).
    ///
    /// EnTT's `storage::sort`.
    ///
    /// # Errors
    /// [`SortError::OwnedByGroup`] if a group owns the pool.
    pub fn sort_by<T: Component>(
        &mut self,
        compare: impl FnMut(T::Ref<'_>, T::Ref<'_>) -> std::cmp::Ordering,
    ) -> Result<(), SortError> {
        let id = self.components.register::<T>();
        self.check_sortable(id)?;
        let order = sorted_rows::<T>(self.components.pool(id), compare);
        self.components.pool_mut(id).permute(&order);
        Ok(())
    }

    /// Orders the pool of `T` like the pool of `U`: the entities that have both come first, in
    /// `U`'s order, then the rest. Afterwards a query over both walks matching rows with no
    /// lookups (the pools line up). O(n) in `U`'s pool.
    ///
    /// EnTT's `storage::sort_as`.
    ///
    /// # Errors
    /// [`SortError::OwnedByGroup`] if a group owns the pool of `T`.
    pub fn sort_as<T: Component, U: Component>(&mut self) -> Result<(), SortError> {
        let id = self.components.register::<T>();
        self.check_sortable(id)?;
        let other = self.components.register::<U>();
        if id == other {
            return Ok(());
        }
        let pools = self.components.pools_mut();
        let (pool, reference) = if id.index() < other.index() {
            let (low, high) = pools.split_at_mut(other.index());
            (&mut low[id.index()], &high[0])
        } else {
            let (low, high) = pools.split_at_mut(id.index());
            (&mut high[0], &low[other.index()])
        };
        let mut next = 0;
        for &entity in reference.entities() {
            if let Some(row) = pool.row_of(entity) {
                pool.swap_rows(row, next);
                next += 1;
            }
        }
        Ok(())
    }
}
