//! The items of a list of entities: [`Query::iter_many`] and [`Query::iter_many_mut`] (bevy's
//! names and shapes).

use super::default_filter::Gate;
use super::{Query, QueryData, QueryFilter, ReadOnlyQueryData};
use crate::component::Components;
use crate::entity::Entity;
use crate::storage::Ticks;

/// The items of the entities a list names that the query matches, in the list's order; entities
/// that are dead or do not match are passed over. A list may name an entity more than once.
///
/// Made by [`Query::iter_many`] (an iterator, read-only terms: an entity listed twice yields two
/// shared items) or [`Query::iter_many_mut`] (a lending walk through
/// [`QueryManyIter::fetch_next`], since an entity listed twice must not give two live `&mut`
/// items).
///
/// Cost: O(c) lookups per listed entity.
pub struct QueryManyIter<'w, Q: QueryData, F: QueryFilter, I: Iterator<Item = Entity>> {
    components: &'w Components,
    /// Liveness and the disabling pools the query skips.
    gate: Gate<'w>,
    ticks: Ticks,
    list: I,
    fetch: Q::Fetch<'w>,
    filter: F::Fetch<'w>,
}

impl<'w, Q: QueryData, F: QueryFilter, I: Iterator<Item = Entity>> QueryManyIter<'w, Q, F, I> {
    fn new(components: &'w Components, gate: Gate<'w>, ticks: Ticks, list: I) -> Self {
        let fetch = Q::init_fetch(components, None, ticks);
        let filter = F::init_fetch(components, ticks);
        Self { components, gate, ticks, list, fetch, filter }
    }

    /// The next listed entity that is alive, not disabled for the query, and passes the filter.
    fn next_entity(&mut self) -> Option<Entity> {
        let (gate, filter) = (self.gate, &self.filter);
        // A listed entity may be dead: test liveness as for a lazily cleaned driver (`true`).
        self.list.by_ref().find(|&entity| gate.admits(true, entity) && F::matches(filter, entity))
    }

    /// The item of the next listed entity that matches, borrowing this walk until it is dropped;
    /// `None` when the list is used up. O(c) per entity tried.
    pub fn fetch_next(&mut self) -> Option<Q::Item<'_>> {
        while let Some(entity) = self.next_entity() {
            // A fetch for this borrow of the walk, so the item lives as long as the borrow.
            let fetch = Q::init_fetch(self.components, None, self.ticks);
            // SAFETY: the fetch was made with no driver from the world the query borrowed (for
            // 'w, unchanged since: the walk holds the query's borrow); `entity` is alive, so
            // every lookup answers for it; the item borrows `self` mutably, so no other item of
            // this walk is alive.
            if let Some(item) = unsafe { Q::fetch(&fetch, entity, usize::MAX) } {
                return Some(item);
            }
        }
        None
    }
}

impl<'w, Q: ReadOnlyQueryData, F: QueryFilter, I: Iterator<Item = Entity>> Iterator
    for QueryManyIter<'w, Q, F, I>
{
    type Item = Q::Item<'w>;

    fn next(&mut self) -> Option<Q::Item<'w>> {
        while let Some(entity) = self.next_entity() {
            // SAFETY: the fetch was made with no driver from the world the query borrowed for
            // 'w, unchanged since; `entity` is alive; `Q` is read-only, so its items are shared
            // references, which may alias and outlive this call.
            if let Some(item) = unsafe { Q::fetch(&self.fetch, entity, usize::MAX) } {
                return Some(item);
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, self.list.size_hint().1)
    }
}

impl<'w, Q: QueryData, F: QueryFilter> Query<'w, Q, F> {
    /// The items of the entities `list` names that the query matches, in the list's order;
    /// dead or non-matching entities are passed over, and an entity listed twice yields twice
    /// (bevy's `iter_many`). Read-only queries only; see [`Query::iter_many_mut`]. O(c) per
    /// listed entity.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, Entity, World};
    ///
    /// #[derive(Component)]
    /// struct Hp(u32);
    ///
    /// let mut world = World::new();
    /// let [a, b] = [Hp(3), Hp(5)].map(|hp| world.spawn(hp));
    /// let c = world.spawn_empty(); // no Hp: passed over
    /// let q = world.query::<&Hp>();
    /// let hp: Vec<u32> = q.iter_many([b, c, a, b]).map(|hp| hp.0).collect();
    /// assert_eq!(hp, [5, 3, 5]);
    /// ```
    pub fn iter_many<I: IntoIterator<Item = Entity>>(&self, list: I) -> QueryManyIter<'_, Q, F, I::IntoIter>
    where
        Q: ReadOnlyQueryData,
    {
        QueryManyIter::new(self.components(), self.gate(), self.ticks, list.into_iter())
    }

    /// [`Query::iter_many`] with `&mut` items: a lending walk, each item borrowed from the walk
    /// until dropped ([`QueryManyIter::fetch_next`]), so an entity listed twice is handed out
    /// twice but never held twice (bevy's `iter_many_mut`).
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Hp(u32);
    ///
    /// let mut world = World::new();
    /// let targets: Vec<_> = (0..3).map(|i| world.spawn(Hp(10 * i))).collect();
    /// let mut q = world.query::<&mut Hp>();
    /// let mut hits = q.iter_many_mut([targets[2], targets[0], targets[2]]);
    /// while let Some(hp) = hits.fetch_next() {
    ///     hp.0 += 1;
    /// }
    /// drop(hits);
    /// let hp: Vec<u32> = world.query::<&Hp>().iter().map(|hp| hp.0).collect();
    /// assert_eq!(hp, [1, 10, 22]);
    /// ```
    pub fn iter_many_mut<I: IntoIterator<Item = Entity>>(
        &mut self,
        list: I,
    ) -> QueryManyIter<'_, Q, F, I::IntoIter> {
        QueryManyIter::new(self.components(), self.gate(), self.ticks, list.into_iter())
    }
}
