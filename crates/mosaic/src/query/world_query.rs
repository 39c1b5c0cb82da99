//! The `World` methods that build queries: `query`, `query_mut`, `query_filtered` and the
//! shared-borrow forms `query_ref`, `query_ref_filtered`.

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

    /// [`World::query`] under hecs' name for the exclusive form (`_mut` marks exclusive access
    /// in our names too): `for (p, v) in world.query_mut::<(&mut Pos, &Vel)>()`.
    ///
    /// `query` keeps bevy's meaning (an exclusive borrow of the world, any query data), so code
    /// from either peer compiles; the shared-borrow form is [`World::query_ref`], read-only
    /// because Mosaic checks aliasing when it compiles (hecs' `query(&self)` checks borrows at
    /// run time instead).
    ///
    /// # Panics
    /// As [`World::query`].
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Pos(f32);
    /// #[derive(Component)]
    /// struct Vel(f32);
    ///
    /// let mut world = World::new();
    /// world.spawn((Pos(0.0), Vel(2.0)));
    /// for (p, v) in world.query_mut::<(&mut Pos, &Vel)>() {
    ///     p.0 += v.0;
    /// }
    /// assert_eq!(world.query_ref::<&Pos>().single().0, 2.0);
    /// ```
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
