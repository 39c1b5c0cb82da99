//! Sorted query iteration (bevy's `QueryIter::sort` family): the items of a query in the order
//! of a key read through a second, read-only query data.

use std::cmp::Ordering;

use super::iter::QueryIter;
use super::{QueryData, QueryFilter, ReadOnlyQueryData};
use crate::entity::Entity;

impl<'w, Q: QueryData, F: QueryFilter> QueryIter<'w, Q, F> {
    /// The entity and driver row of the next item, without fetching it (the walk of `next`,
    /// with `QueryData::matches` in place of the fetch).
    fn next_match(&mut self) -> Option<(Entity, usize)> {
        if self.row < self.fast {
            let row = self.row;
            self.row += 1;
            return Some((self.entities[row], row));
        }
        if let Some(walk) = self.changed.as_mut() {
            let dense = walk.driving.pool.entities();
            let (live_check, lazy) = (self.live_check, self.lazy);
            while let Some((row, entity)) = walk.next_row() {
                if live_check.is_none_or(|gate| gate.admits(lazy, entity))
                    && (F::PASSED_BY_CHANGE_WALK || F::matches_at(&self.filter, entity, dense, row))
                    && Q::matches(&self.data, entity, row)
                {
                    return Some((entity, row));
                }
            }
            return None;
        }
        while let Some(&entity) = self.entities.get(self.row) {
            let row = self.row;
            self.row += 1;
            let admitted = self.live_check.is_none_or(|gate| gate.admits(self.lazy, entity));
            if F::matches(&self.filter, entity) && admitted && Q::matches(&self.data, entity, row) {
                return Some((entity, row));
            }
        }
        let live_check = self.live_check;
        let all = self.all.as_mut()?;
        for entity in all.by_ref() {
            if F::matches(&self.filter, entity)
                && live_check.is_none_or(|gate| gate.enabled(entity))
                && Q::matches(&self.data, entity, usize::MAX)
            {
                return Some((entity, usize::MAX));
            }
        }
        None
    }

    /// Walks the rest of the iterator, reads each entity's key through `L`, orders the keyed
    /// entities with `order`, and returns the items in that order; entities `L` refuses (they
    /// lack a component it requires) come after, in walk order.
    fn sorted_with<L: ReadOnlyQueryData>(
        mut self,
        order: impl FnOnce(&mut Vec<(L::Item<'w>, Entity, usize)>),
    ) -> QuerySortedIter<'w, Q> {
        let keys = L::init_fetch(self.components, None, self.ticks);
        let mut keyed = Vec::with_capacity(self.size_hint().0);
        let mut refused = Vec::new();
        while let Some((entity, row)) = self.next_match() {
            // SAFETY: the fetch was made from the world this iterator borrows, unchanged for 'w;
            // `entity` is alive (the walk yields live entities only); `L` is read-only, so its
            // items alias nothing, and with no driver `row` is unused.
            match unsafe { L::fetch(&keys, entity, usize::MAX) } {
                Some(key) => keyed.push((key, entity, row)),
                None => refused.push((entity, row)),
            }
        }
        order(&mut keyed);
        let rows: Vec<(Entity, usize)> =
            keyed.into_iter().map(|(_, entity, row)| (entity, row)).chain(refused).collect();
        QuerySortedIter { data: self.data, rows: rows.into_iter() }
    }

    /// The remaining items sorted by `L`'s item of each entity, stably (bevy's
    /// `QueryIter::sort`): `query.iter_mut().sort::<&Depth>()`, `sort::<Entity>()`,
    /// `sort::<(&Layer, &Depth)>()`. `L` is read-only query data read from the same world; an
    /// entity it refuses (lacking a component it requires) comes after the others, in walk
    /// order. O(n log n) for the n items left, with one allocation of n keys; nothing is fetched
    /// from `Q` until the sorted iterator is advanced.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Name(&'static str);
    /// #[derive(Component, PartialEq, Eq, PartialOrd, Ord)]
    /// struct Depth(u32);
    ///
    /// let mut world = World::new();
    /// world.spawn((Name("sky"), Depth(9)));
    /// world.spawn((Name("hills"), Depth(5)));
    /// world.spawn((Name("hero"), Depth(1)));
    /// let query = world.query_ref::<&Name>();
    /// let front_to_back: Vec<&str> = query.iter().sort::<&Depth>().map(|name| name.0).collect();
    /// assert_eq!(front_to_back, ["hero", "hills", "sky"]);
    /// ```
    pub fn sort<L: ReadOnlyQueryData>(self) -> QuerySortedIter<'w, Q>
    where
        L::Item<'w>: Ord,
    {
        self.sorted_with::<L>(|keyed| keyed.sort_by(|a, b| a.0.cmp(&b.0)))
    }

    /// [`QueryIter::sort`], unstably: equal keys in any order (bevy's `sort_unstable`).
    /// O(n log n).
    pub fn sort_unstable<L: ReadOnlyQueryData>(self) -> QuerySortedIter<'w, Q>
    where
        L::Item<'w>: Ord,
    {
        self.sorted_with::<L>(|keyed| keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0)))
    }

    /// The remaining items in the order `compare` gives `L`'s items, stably (bevy's `sort_by`).
    /// O(n log n) calls of `compare`.
    pub fn sort_by<L: ReadOnlyQueryData>(
        self,
        mut compare: impl FnMut(&L::Item<'w>, &L::Item<'w>) -> Ordering,
    ) -> QuerySortedIter<'w, Q> {
        self.sorted_with::<L>(|keyed| keyed.sort_by(|a, b| compare(&a.0, &b.0)))
    }

    /// [`QueryIter::sort_by`], unstably (bevy's `sort_unstable_by`).
    pub fn sort_unstable_by<L: ReadOnlyQueryData>(
        self,
        mut compare: impl FnMut(&L::Item<'w>, &L::Item<'w>) -> Ordering,
    ) -> QuerySortedIter<'w, Q> {
        self.sorted_with::<L>(|keyed| keyed.sort_unstable_by(|a, b| compare(&a.0, &b.0)))
    }

    /// The remaining items in the order of the key `key` computes from `L`'s items, stably
    /// (bevy's `sort_by_key`). O(n log n) calls of `key`.
    pub fn sort_by_key<L: ReadOnlyQueryData, K: Ord>(
        self,
        mut key: impl FnMut(&L::Item<'w>) -> K,
    ) -> QuerySortedIter<'w, Q> {
        self.sorted_with::<L>(|keyed| keyed.sort_by_key(|a| key(&a.0)))
    }

    /// [`QueryIter::sort_by_key`], unstably (bevy's `sort_unstable_by_key`).
    pub fn sort_unstable_by_key<L: ReadOnlyQueryData, K: Ord>(
        self,
        mut key: impl FnMut(&L::Item<'w>) -> K,
    ) -> QuerySortedIter<'w, Q> {
        self.sorted_with::<L>(|keyed| keyed.sort_unstable_by_key(|a| key(&a.0)))
    }

    /// [`QueryIter::sort_by_key`] computing each key once (bevy's `sort_by_cached_key`): for
    /// keys that are costly to compute. O(n log n), n calls of `key`.
    pub fn sort_by_cached_key<L: ReadOnlyQueryData, K: Ord>(
        self,
        mut key: impl FnMut(&L::Item<'w>) -> K,
    ) -> QuerySortedIter<'w, Q> {
        self.sorted_with::<L>(|keyed| keyed.sort_by_cached_key(|a| key(&a.0)))
    }
}

/// The items of a query in a sorted order, from [`QueryIter::sort`] and its family: each
/// matching entity's item once, in the order the sort chose. The world cannot change while it
/// lives. O(c) lookups per item for c terms.
pub struct QuerySortedIter<'w, Q: QueryData> {
    data: Q::Fetch<'w>,
    /// Entities and their driver rows (`usize::MAX` without a driver), in order, each once.
    rows: std::vec::IntoIter<(Entity, usize)>,
}

impl<'w, Q: QueryData> Iterator for QuerySortedIter<'w, Q> {
    type Item = Q::Item<'w>;

    fn next(&mut self) -> Option<Q::Item<'w>> {
        for (entity, row) in self.rows.by_ref() {
            // SAFETY: the fetch was made from the world this iterator borrows, unchanged for
            // 'w; `entity` is alive and `row` is its row in the fetch's driver (or unused
            // without one), as the walk found them; the walk yields each entity once and
            // `rows` is consumed, so each item is fetched once.
            if let Some(item) = unsafe { Q::fetch(&self.data, entity, row) } {
                return Some(item);
            }
        }
        None
    }

    /// Exact: every entity left matched `Q` when it was walked, and the world cannot change.
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.rows.len(), Some(self.rows.len()))
    }
}

impl<Q: QueryData> ExactSizeIterator for QuerySortedIter<'_, Q> {}
