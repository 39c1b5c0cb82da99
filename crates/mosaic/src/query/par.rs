//! Parallel query iteration on rayon (feature `parallel`; without it, on the calling thread).

#[cfg(feature = "parallel")]
use rayon::prelude::*;

#[cfg(feature = "parallel")]
use super::core::Driver;
use super::{Query, QueryData, QueryFilter};

/// Rows per parallel task, at least. Small enough that a thousand expensive rows (heavy_compute)
/// still spread over every thread; about four chunks per thread bound the scheduling cost for
/// cheap rows.
#[cfg(feature = "parallel")]
const MIN_CHUNK: usize = 64;

impl<Q: QueryData, F: QueryFilter> Query<'_, Q, F> {
    /// Calls `f` with each matching entity's item, splitting the driving pool's rows into chunks
    /// that rayon runs on its thread pool (the current pool: wrap the call in
    /// `ThreadPool::install` to choose one). Each entity is visited exactly once; the order across
    /// chunks is unspecified, so `f` should not depend on it.
    ///
    /// Chunks are at least 64 rows, about four per thread. With one thread, fewer than 128 rows,
    /// or no required component (walking all live entities), it runs as [`Query::for_each`] on
    /// the calling thread.
    ///
    /// Without the `parallel` feature (no rayon) it always runs as [`Query::for_each`] on the
    /// calling thread, so code written for both builds compiles and gives the same results.
    pub fn par_for_each(&mut self, f: impl Fn(Q::Item<'_>) + Send + Sync) {
        #[cfg(feature = "parallel")]
        self.par_chunks(f);
        #[cfg(not(feature = "parallel"))]
        self.for_each(f);
    }

    /// [`Query::par_for_each`] on rayon.
    #[cfg(feature = "parallel")]
    fn par_chunks(&mut self, f: impl Fn(Q::Item<'_>) + Send + Sync) {
        let Driver::Pool(driving) = self.driver else {
            return self.for_each(f);
        };
        let rows = driving.rows();
        let threads = rayon::current_num_threads();
        if threads <= 1 || rows.len() < 2 * MIN_CHUNK {
            // Nothing to split: run the sequential loop, without a thread hand-off.
            return self.for_each(f);
        }
        let components = self.components;
        let lazy = driving.pool.is_lazy();
        let alive = self.entities;
        let chunk = (rows.len() / (threads * 4)).max(MIN_CHUNK);
        rows.par_chunks(chunk).enumerate().for_each(|(index, entities)| {
            let data = Q::init_fetch(components, Some(driving));
            let filter = F::init_fetch(components);
            let first = index * chunk;
            let end = first + entities.len();
            let aligned_end = Q::aligned_rows(&data).clamp(first, end);
            // The fetch was made from the world this query borrows, unchanged since; each
            // `entity` is `entities[row - first]`, live unless the driver is lazy (checked), and
            // `row` is its row in the driver pool; chunks are disjoint, so each row is fetched
            // once across all threads, and components are `Send + Sync`, so references to
            // distinct values may be used on different threads.
            if F::TRIVIAL && !lazy {
                for (row, &entity) in (first..aligned_end).zip(entities) {
                    // SAFETY: as above, and `row` is below the fetch's aligned rows.
                    f(unsafe { Q::fetch_aligned(&data, entity, row) });
                }
            } else {
                for (row, &entity) in (first..aligned_end).zip(entities) {
                    if (F::TRIVIAL || F::matches(&filter, entity)) && (!lazy || alive.is_alive(entity)) {
                        // SAFETY: as above, and `row` is below the fetch's aligned rows.
                        f(unsafe { Q::fetch_aligned(&data, entity, row) });
                    }
                }
            }
            for (row, &entity) in (aligned_end..end).zip(&entities[aligned_end - first..]) {
                if F::matches(&filter, entity) && (!lazy || alive.is_alive(entity)) {
                    // SAFETY: as above, through the checked lookup path.
                    if let Some(item) = unsafe { Q::fetch(&data, entity, row) } {
                        f(item);
                    }
                }
            }
        });
    }
}
