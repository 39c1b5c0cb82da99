//! Every `K`-combination of a query's matches: [`Query::iter_combinations`] and
//! [`Query::iter_combinations_mut`] (bevy's names and shapes).

use super::{Query, QueryData, QueryFilter, ReadOnlyQueryData};
use crate::component::Components;
use crate::entity::Entity;
use crate::storage::Ticks;

/// The matches of a query, taken `K` at a time: each set of `K` distinct entities once, as
/// `[item; K]`, in lexicographic order of the matches' positions in the walked pool's rows
/// (entity index order for a query that requires nothing). `C(n, K)` items for `n` matches;
/// none when `K == 0` or `K > n`.
///
/// Made by [`Query::iter_combinations`] (an iterator, read-only terms) or
/// [`Query::iter_combinations_mut`] (a lending walk through [`QueryCombinations::fetch_next`],
/// since the `&mut` items of one combination must be dropped before the next).
///
/// Cost: collecting the matches is one walk of the query; each combination is `K` lookups per
/// component.
pub struct QueryCombinations<'w, Q: QueryData, F: QueryFilter, const K: usize> {
    components: &'w Components,
    ticks: Ticks,
    entities: Vec<Entity>,
    /// The next combination's indices into `entities`, increasing; `None` when done.
    next: Option<[usize; K]>,
    _marker: std::marker::PhantomData<fn() -> (Q, F)>,
}

impl<'w, Q: QueryData, F: QueryFilter, const K: usize> QueryCombinations<'w, Q, F, K> {
    fn new(components: &'w Components, ticks: Ticks, entities: Vec<Entity>) -> Self {
        let next = (K > 0 && K <= entities.len()).then(|| std::array::from_fn(|i| i));
        Self { components, ticks, entities, next, _marker: std::marker::PhantomData }
    }

    /// Steps `self.next` to the following combination (lexicographic order).
    fn advance(&mut self, mut indices: [usize; K]) {
        let n = self.entities.len();
        // The rightmost index that can still move right.
        let Some(i) = (0..K).rev().find(|&i| indices[i] < n - K + i) else {
            self.next = None;
            return;
        };
        indices[i] += 1;
        for j in i + 1..K {
            indices[j] = indices[j - 1] + 1;
        }
        self.next = Some(indices);
    }

    /// Combinations not yet handed out, or `None` if more than `usize::MAX`. O(K * n) for n
    /// matches: `C(n, K)` less the rank of the next one (the combinatorial number system).
    pub fn remaining(&self) -> Option<usize> {
        let Some(indices) = self.next else { return Some(0) };
        let n = self.entities.len();
        let total = binomial(n, K)?;
        // Rank of `indices` among the K-combinations of 0..n in lexicographic order: for each
        // position, the combinations that put a smaller value there (after the same prefix).
        let mut rank = 0usize;
        let mut low = 0;
        for (i, &index) in indices.iter().enumerate() {
            for v in low..index {
                rank = rank.checked_add(binomial(n - 1 - v, K - 1 - i)?)?;
            }
            low = index + 1;
        }
        Some(total - rank)
    }

    /// The items of the next combination, borrowing this walk until they are dropped; `None`
    /// when every combination was handed out. O(K * c).
    pub fn fetch_next(&mut self) -> Option<[Q::Item<'_>; K]> {
        let indices = self.next?;
        self.advance(indices);
        let data = Q::init_fetch(self.components, None, self.ticks);
        let entities = &self.entities;
        Some(indices.map(|i| {
            // SAFETY: the query this walk was made from borrowed the world (exclusively, or
            // shared for read-only `Q`) for 'w, unchanged since, and the walk holds that borrow;
            // `entities[i]` matched the query when collected and no structural change happened
            // since; the fetch has no driver, so `row` is unused; the `K` indices are distinct,
            // so no entity is handed out twice, and the items borrow `self` mutably, so no other
            // combination's items are alive meanwhile.
            unsafe { Q::fetch(&data, entities[i], usize::MAX) }.expect("collected as a match")
        }))
    }
}

/// `C(n, k)`, or `None` if it exceeds `usize::MAX`. O(k).
fn binomial(n: usize, k: usize) -> Option<usize> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut result: u128 = 1;
    for i in 0..k {
        // Exact at every step: result * (n - i) is divisible by (i + 1).
        result = result * (n - i) as u128 / (i + 1) as u128;
        if result > usize::MAX as u128 {
            return None;
        }
    }
    usize::try_from(result).ok()
}

impl<'w, Q: ReadOnlyQueryData, F: QueryFilter, const K: usize> Iterator for QueryCombinations<'w, Q, F, K> {
    type Item = [Q::Item<'w>; K];

    /// Exact (see [`QueryCombinations::remaining`]); `(usize::MAX, None)` past `usize::MAX`.
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self.remaining() {
            Some(n) => (n, Some(n)),
            None => (usize::MAX, None),
        }
    }

    fn next(&mut self) -> Option<[Q::Item<'w>; K]> {
        let indices = self.next?;
        self.advance(indices);
        let data = Q::init_fetch(self.components, None, self.ticks);
        Some(indices.map(|i| {
            // SAFETY: as in `fetch_next`, and `Q` only reads, so items of several combinations
            // may be alive at once for 'w (shared references to unchanged values).
            unsafe { Q::fetch(&data, self.entities[i], usize::MAX) }.expect("collected as a match")
        }))
    }
}

/// # Panics
/// `len()` panics when more than `usize::MAX` combinations are left (`C(n, K)` past 2^64, e.g.
/// 70,000 matches taken 5 at a time), which no walk could reach anyway.
impl<Q: ReadOnlyQueryData, F: QueryFilter, const K: usize> ExactSizeIterator
    for QueryCombinations<'_, Q, F, K>
{
}

impl<'w, Q: QueryData, F: QueryFilter> Query<'w, Q, F> {
    /// Every `K`-combination of the matches, as `[item; K]` arrays of distinct entities (bevy's
    /// `iter_combinations`): for pairwise work such as collisions or gravity. See
    /// [`QueryCombinations`] for order and cost.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Mass(f32);
    ///
    /// let mut world = World::new();
    /// for m in [1.0, 2.0, 3.0] {
    ///     world.spawn(Mass(m));
    /// }
    /// let q = world.query::<&Mass>();
    /// let pairs: Vec<f32> = q.iter_combinations::<2>().map(|[a, b]| a.0 * b.0).collect();
    /// assert_eq!(pairs.len(), 3);
    /// assert_eq!(pairs.iter().sum::<f32>(), 2.0 + 3.0 + 6.0);
    /// ```
    pub fn iter_combinations<const K: usize>(&self) -> QueryCombinations<'_, Q, F, K>
    where
        Q: ReadOnlyQueryData,
    {
        self.combinations()
    }

    /// Every `K`-combination of the matches with mutable items, walked one at a time through
    /// [`QueryCombinations::fetch_next`] (bevy's `iter_combinations_mut`).
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Charge(i32);
    ///
    /// let mut world = World::new();
    /// for c in [1, 2, 3] {
    ///     world.spawn(Charge(c));
    /// }
    /// let mut q = world.query::<&mut Charge>();
    /// let mut pairs = q.iter_combinations_mut::<2>();
    /// while let Some([a, b]) = pairs.fetch_next() {
    ///     let moved = a.0.min(b.0);
    ///     a.0 -= moved;
    ///     b.0 += moved;
    /// }
    /// ```
    pub fn iter_combinations_mut<const K: usize>(&mut self) -> QueryCombinations<'_, Q, F, K> {
        self.combinations()
    }

    fn combinations<const K: usize>(&self) -> QueryCombinations<'_, Q, F, K> {
        let entities: Vec<Entity> = super::matching::matching_entities(self);
        QueryCombinations::new(self.components(), self.ticks, entities)
    }
}
