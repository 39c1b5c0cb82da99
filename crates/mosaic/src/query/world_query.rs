//! The `World` methods that build queries: `query`, `query_filtered` and the shared-borrow forms
//! `query_ref`, `query_ref_filtered` (and the deprecated `query_mut`).

use super::{Query, QueryData, QueryError, QueryFilter, ReadOnlyQueryData};
use crate::world::{EntityRef, World};

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

impl<'w> EntityRef<'w> {
    /// The item of read-only query data `Q` for this entity, borrowing the world for `'w`, as
    /// the entity's query would yield it (bevy's `EntityRef::get_components`): `(&A, &B)`,
    /// `Option<&C>`, `Has<D>`, `AnyOf<..>`, derived query structs. The entity's handle is
    /// explicit, so a disabling component ([`Disabled`](crate::Disabled)) does not hide it. O(c)
    /// lookups for the c terms.
    ///
    /// # Errors
    /// [`QueryError::NoMatch`] if the entity lacks a component `Q` requires (or an enum or
    /// [`AnyOf`](crate::AnyOf) term finds nothing).
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Hp(u32);
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Armor(u32);
    ///
    /// let mut world = World::new();
    /// let knight = world.spawn((Hp(10), Armor(3)));
    /// let peasant = world.spawn(Hp(4));
    /// assert_eq!(world.entity(knight).get_components::<(&Hp, &Armor)>(), Ok((&Hp(10), &Armor(3))));
    /// assert!(world.entity(peasant).get_components::<(&Hp, &Armor)>().is_err());
    /// assert_eq!(world.entity(peasant).get_components::<Option<&Armor>>(), Ok(None));
    /// ```
    pub fn get_components<Q: ReadOnlyQueryData>(&self) -> Result<Q::Item<'w>, QueryError> {
        let (world, entity) = (self.world(), self.id());
        let data = Q::init_fetch(world.components(), None, world.change_ticks());
        // SAFETY: the fetch was made from `world`, which the handle borrows shared for `'w`, so
        // it is not mutated while the item lives; `entity` is alive (a handle's invariant: the
        // world cannot change while it is borrowed); `Q` is read-only, so no item aliases a
        // `&mut`; with no driver, `row` is unused.
        unsafe { Q::fetch(&data, entity, usize::MAX) }
            .ok_or(QueryError::NoMatch { entity, query: std::any::type_name::<Q>() })
    }
}
