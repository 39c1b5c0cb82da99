//! Parallel reductions over a query whose result does not depend on the thread count.
//!
//! The driving pool's rows are cut into chunks of a fixed number of rows (never derived from the
//! thread count); each chunk is folded on its own, on whichever thread rayon picks, and the chunk
//! results are combined on the calling thread from the first chunk to the last. Same world, same
//! chunk size: same result, on 1 thread or 16, with or without the `parallel` feature, even for
//! operations that are not associative (floating-point sums).

#[cfg(feature = "parallel")]
use rayon::prelude::*;

use super::plan::{Plan, visit_candidates, visit_entities, visit_rows};
use super::{Query, QueryData, QueryFilter};

/// Rows per chunk of [`Query::par_fold`]: large enough that a chunk of cheap rows pays for its
/// task, small enough that 10^5 rows make about a hundred chunks to balance.
pub const FOLD_CHUNK: usize = 1024;

impl<Q: QueryData, F: QueryFilter> Query<'_, Q, F> {
    /// Folds the matching items in parallel: each chunk of [`FOLD_CHUNK`] driver rows starts
    /// from `identity()` and folds its items with `fold` in row order; the chunk results are
    /// then combined with `reduce`, left to right in chunk order, starting from `identity()`.
    ///
    /// Deterministic: the result depends on the world and the chunk size only, never on the
    /// number of threads or on the `parallel` feature (without it the chunks run one after the
    /// other on the calling thread, combined the same way). The chunks are cut from the walk
    /// [`Query::for_each`] takes (`query/plan.rs`): the driver's rows; a change log's candidates,
    /// in walk order, when an `Added` / `Changed` filter lets the query walk the log (O(changed));
    /// or the live entities in index order when the query requires no component.
    ///
    /// O(n / t) time on t threads for n driver rows, plus O(n / `FOLD_CHUNK`) to combine; one
    /// allocation of n / `FOLD_CHUNK` results when it runs in parallel.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)] struct Mass(f32);
    /// let mut world = World::new();
    /// world.spawn_batch((0..10_000).map(|i| Mass(0.1 * i as f32)));
    /// let total = world.query::<&Mass>().par_fold(|| 0.0f32, |sum, m| sum + m.0, |a, b| a + b);
    /// assert!((total - 4_999_500.0).abs() < 100.0);
    /// assert_eq!(world.query::<&Mass>().par_count(), 10_000);
    /// assert_eq!(world.query::<&Mass>().par_max(|m| m.0), Some(999.9));
    /// ```
    pub fn par_fold<T: Send>(
        &mut self,
        identity: impl Fn() -> T + Send + Sync,
        fold: impl Fn(T, Q::Item<'_>) -> T + Send + Sync,
        reduce: impl FnMut(T, T) -> T,
    ) -> T {
        self.par_fold_chunked(FOLD_CHUNK, identity, fold, reduce)
    }

    /// [`Query::par_fold`] with chunks of `chunk_rows` driver rows: a smaller chunk spreads
    /// expensive items over more threads, a larger one combines fewer results. The result
    /// depends on `chunk_rows` (for non-associative operations), never on the thread count.
    ///
    /// # Panics
    /// If `chunk_rows` is 0.
    #[track_caller]
    pub fn par_fold_chunked<T: Send>(
        &mut self,
        chunk_rows: usize,
        identity: impl Fn() -> T + Send + Sync,
        fold: impl Fn(T, Q::Item<'_>) -> T + Send + Sync,
        mut reduce: impl FnMut(T, T) -> T,
    ) -> T {
        assert!(chunk_rows > 0, "par_fold_chunked needs chunks of at least one row");
        let (components, alive, ticks) = (self.components(), self.entities(), self.ticks);
        let gate = self.gate();
        // Folds one chunk from `identity()` through `visit`, which feeds it the chunk's items.
        let fold_chunk = |visit: &mut Visit<'_, Q::Item<'_>>| {
            let mut acc = Some(identity());
            visit(&mut |item| acc = Some(fold(acc.take().expect("put back after every item"), item)));
            acc.expect("put back after every item")
        };
        match self.plan() {
            Plan::Empty => identity(),
            Plan::Rows(driving) => {
                let rows = driving.rows();
                let chunk = |index: usize, entities: &[crate::Entity]| {
                    // SAFETY: `driving` was picked by this query from the world it borrows,
                    // unchanged since; the chunks of `rows` are disjoint, so each row is visited
                    // by one call, and the accumulator's type cannot hold an item (it is fixed
                    // outside the item lifetime).
                    fold_chunk(&mut |g| unsafe {
                        visit_rows::<Q, F>(components, gate, ticks, driving, index * chunk_rows, entities, g)
                    })
                };
                in_chunks(rows, chunk_rows, chunk, identity(), &mut reduce)
            }
            Plan::Changed(walk) => {
                let (driving, candidates) = walk.collect_rows();
                let chunk = |_: usize, rows: &[(usize, crate::Entity)]| {
                    // SAFETY: this query's change walk over the world it borrows, unchanged
                    // since; each row once, the chunks disjoint; as above for the accumulator.
                    fold_chunk(&mut |g| unsafe {
                        visit_candidates::<Q, F>(components, gate, ticks, driving, rows.iter().copied(), g)
                    })
                };
                in_chunks(&candidates, chunk_rows, chunk, identity(), &mut reduce)
            }
            Plan::All => {
                let entities: Vec<crate::Entity> = alive.iter().collect();
                let chunk = |_: usize, entities: &[crate::Entity]| {
                    // SAFETY: live entities of the world this query borrows, each in one chunk;
                    // as above for the accumulator.
                    fold_chunk(&mut |g| unsafe {
                        visit_entities::<Q, F>(components, gate, ticks, entities.iter().copied(), g)
                    })
                };
                in_chunks(&entities, chunk_rows, chunk, identity(), &mut reduce)
            }
        }
    }

    /// The number of matching entities, counted in parallel. O(n / t) for n driver rows on t
    /// threads.
    pub fn par_count(&mut self) -> usize {
        self.par_fold(|| 0, |n, _| n + 1, |a, b| a + b)
    }

    /// The sum of `f` over the matching items, as [`Query::par_fold`]: the same value for every
    /// thread count (floating-point sums included: fixed chunks, combined in order).
    pub fn par_sum<T>(&mut self, f: impl Fn(Q::Item<'_>) -> T + Send + Sync) -> T
    where
        T: Default + std::ops::Add<Output = T> + Send,
    {
        self.par_fold(T::default, |sum, item| sum + f(item), |a, b| a + b)
    }

    /// The smallest `f` over the matching items, `None` when nothing matches. Of equal (or
    /// unordered, like NaN) values the one from the earliest driver row wins, so the result is
    /// the same for every thread count.
    pub fn par_min<T: PartialOrd + Send>(&mut self, f: impl Fn(Q::Item<'_>) -> T + Send + Sync) -> Option<T> {
        let pick = |a: Option<T>, b: Option<T>| match (a, b) {
            (Some(a), Some(b)) => Some(if b < a { b } else { a }),
            (a, b) => a.or(b),
        };
        self.par_fold(|| None, |min, item| pick(min, Some(f(item))), pick)
    }

    /// The largest `f` over the matching items, `None` when nothing matches; ties go to the
    /// earliest driver row, as [`Query::par_min`].
    pub fn par_max<T: PartialOrd + Send>(&mut self, f: impl Fn(Q::Item<'_>) -> T + Send + Sync) -> Option<T> {
        let pick = |a: Option<T>, b: Option<T>| match (a, b) {
            (Some(a), Some(b)) => Some(if b > a { b } else { a }),
            (a, b) => a.or(b),
        };
        self.par_fold(|| None, |max, item| pick(max, Some(f(item))), pick)
    }
}

/// A chunk's walk: calls the sink it is given with each item of the chunk.
type Visit<'a, I> = dyn FnMut(&mut dyn FnMut(I)) + 'a;

/// Folds `items` chunk by chunk (`chunk_rows` each; `fold_chunk(index, chunk)` folds one), on
/// rayon's threads when there are several and more than one chunk, and combines the chunk
/// results with `reduce` left to right from `init`: the same result on any thread count.
fn in_chunks<I: Sync, T: Send>(
    items: &[I],
    chunk_rows: usize,
    fold_chunk: impl Fn(usize, &[I]) -> T + Send + Sync,
    init: T,
    reduce: &mut impl FnMut(T, T) -> T,
) -> T {
    #[cfg(feature = "parallel")]
    if rayon::current_num_threads() > 1 && items.len() > chunk_rows {
        let results: Vec<T> =
            items.par_chunks(chunk_rows).enumerate().map(|(index, chunk)| fold_chunk(index, chunk)).collect();
        return results.into_iter().fold(init, reduce);
    }
    items
        .chunks(chunk_rows)
        .enumerate()
        .fold(init, |acc, (index, chunk)| reduce(acc, fold_chunk(index, chunk)))
}
