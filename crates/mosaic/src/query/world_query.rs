//! The `World` methods that build queries: `query`, `query_filtered` and the shared-borrow forms
//! `query_ref`, `query_ref_filtered` (and the deprecated `query_mut`).

use super::{Query, QueryData, QueryFilter, ReadOnlyQueryData};
use crate::world::World;

impl World {
    /// A query over the entities with the components `Q` names; see [`Query`].
    ///
    /// # Panics
    /// If `Q` accesses a component mutably twice or mutably and immutably, naming it.
    #[track_caller]
    pub fn query<Q: QueryData>(&mut self) -> Query<'_, Q> {
        Query::new(self)
    }

    /// The old second name of [`World::query`]. One name per operation: `query` takes the world
    /// exclusively and accepts any query data (bevy's meaning; hecs' `query_mut`), and the
    /// shared-borrow form is [`World::query_ref`] (read-only: Mosaic checks aliasing when it
    /// compiles, where hecs' `query(&self)` checks borrows at run time).
    ///
    /// # Panics
    /// As [`World::query`].
    #[deprecated(
        since = "0.2.0",
        note = "use `World::query`, the same query (`query_ref` is the shared form)"
    )]
    #[track_caller]
    pub fn query_mut<Q: QueryData>(&mut self) -> Query<'_, Q> {
        Query::new(self)
    }

    /// A query with a filter, e.g. `world.query_filtered::<&mut Health, Without<Shield>>()`.
    ///
    /// # Panics
    /// As [`World::query`].
    #[track_caller]
    pub fn query_filtered<Q: QueryData, F: QueryFilter>(&mut self) -> Query<'_, Q, F> {
        Query::new(self)
    }

    /// A read-only query through a shared borrow, so several can be used at once and beside
    /// [`World::get`].
    #[track_caller]
    pub fn query_ref<Q: ReadOnlyQueryData>(&self) -> Query<'_, Q> {
        Query::new(self)
    }

    /// A read-only query with a filter, through a shared borrow.
    #[track_caller]
    pub fn query_ref_filtered<Q: ReadOnlyQueryData, F: QueryFilter>(&self) -> Query<'_, Q, F> {
        Query::new(self)
    }
}
