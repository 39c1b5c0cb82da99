//! Parallel reductions over a query whose result does not depend on the thread count.
//!
//! The driving pool's rows are cut into chunks of a fixed number of rows (never derived from the
//! thread count); each chunk is folded on its own, on whichever thread rayon picks, and the chunk
//! results are combined on the calling thread from the first chunk to the last. Same world, same
//! chunk size: same result, on 1 thread or 16, with or without the `parallel` feature, even for
//! operations that are not associative (floating-point sums).

#[cfg(feature = "parallel")]
use rayon::prelude::*;

use super::core::Driver;
use super::par::visit_rows;
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
    /// other on the calling thread, combined the same way). A query with no required component
    /// walks every live entity as one chunk on the calling thread.
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
        let driving = match self.driver {
            Driver::Empty => return identity(),
            Driver::All => {
                let chunk = self.iter().fold(identity(), &fold);
                return reduce(identity(), chunk);
            }
            Driver::Pool(driving) => driving,
        };
        let (components, alive, ticks) = (self.components, self.entities, self.ticks);
        let rows = driving.rows();
        let fold_chunk = |index: usize, entities| {
            let mut acc = Some(identity());
            // SAFETY: `driving` was picked by this query from the world it borrows, unchanged
            // since; the chunks of `rows` are disjoint, so each row is visited by one call, and
            // the accumulator's type cannot hold an item (it is fixed outside the item lifetime).
            unsafe {
                visit_rows::<Q, F>(
                    components,
                    alive,
                    ticks,
                    driving,
                    index * chunk_rows,
                    entities,
                    &mut |item| {
                        acc = Some(fold(acc.take().expect("put back after every item"), item));
                    },
                );
            }
            acc.expect("put back after every item")
        };
        #[cfg(feature = "parallel")]
        if rayon::current_num_threads() > 1 && rows.len() > chunk_rows {
            let results: Vec<T> = rows
                .par_chunks(chunk_rows)
                .enumerate()
                .map(|(index, entities)| fold_chunk(index, entities))
                .collect();
            return results.into_iter().fold(identity(), reduce);
        }
        rows.chunks(chunk_rows)
            .enumerate()
            .fold(identity(), |acc, (index, entities)| reduce(acc, fold_chunk(index, entities)))
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
