//! Parallel query iteration on rayon (feature `parallel`; without it, on the calling thread).

#[cfg(feature = "parallel")]
use rayon::prelude::*;

#[cfg(feature = "parallel")]
use super::core::Driver;
use super::data::Driving;
use super::{Query, QueryData, QueryFilter};
use crate::component::Components;
use crate::entity::{Entities, Entity};
use crate::storage::Ticks;
use crate::world::{ChunkedCommands, CommandBuffer};

/// Rows per parallel task, at least, for [`Query::par_for_each`]. Small enough that a thousand
/// expensive rows (heavy_compute) still spread over every thread; about four chunks per thread
/// bound the scheduling cost for cheap rows.
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
        self.par_chunks(MIN_CHUNK, f);
        #[cfg(not(feature = "parallel"))]
        self.for_each(f);
    }

    /// [`Query::par_for_each`] with chunks of at least `min_chunk` rows (instead of 64): the
    /// split sized from the work. Pass a small value when each item is expensive (a few hundred
    /// microseconds: even 8 rows are worth a task) and a large one when items are a few
    /// nanoseconds, so a task's work pays for its hand-off (rayon's `with_min_len`).
    ///
    /// Runs on the calling thread, as [`Query::for_each`], with one thread, fewer than
    /// `2 * min_chunk` rows, no required component, or without the `parallel` feature.
    ///
    /// # Panics
    /// If `min_chunk` is 0.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)] struct Cost(u64);
    /// let mut world = World::new();
    /// world.spawn_batch((0..100).map(Cost));
    /// // Expensive items: let rayon split down to 4 rows a task.
    /// world.query::<&mut Cost>().par_for_each_with_min_chunk(4, |cost| {
    ///     cost.0 = (0..cost.0).map(|i| i * i).sum();
    /// });
    /// assert_eq!(world.query::<&Cost>().into_iter().map(|c| c.0).max(), Some(318_549));
    /// ```
    #[track_caller]
    pub fn par_for_each_with_min_chunk(&mut self, min_chunk: usize, f: impl Fn(Q::Item<'_>) + Send + Sync) {
        assert!(min_chunk > 0, "par_for_each_with_min_chunk needs chunks of at least one row");
        #[cfg(feature = "parallel")]
        self.par_chunks(min_chunk, f);
        #[cfg(not(feature = "parallel"))]
        self.for_each(f);
    }

    /// [`Query::par_for_each`] that may record structural changes: `f` gets each item and the
    /// [`CommandBuffer`] of its chunk, taken from `commands`. Nothing is applied here; apply
    /// `commands` ([`ChunkedCommands::apply`], or let the schedule do it for a [`ParCommands`](crate::ParCommands)
    /// parameter) at the sync point. The commands then apply in the query's row order, the same
    /// on any number of threads and without the `parallel` feature (one chunk then).
    ///
    /// Chunks as [`Query::par_for_each`]; no allocation once `commands` is warm for the chunk
    /// count in use.
    ///
    /// # Examples
    /// See [`ChunkedCommands`].
    pub fn par_for_each_deferred(
        &mut self,
        commands: &mut ChunkedCommands,
        f: impl Fn(Q::Item<'_>, &mut CommandBuffer) + Send + Sync,
    ) {
        #[cfg(feature = "parallel")]
        if let Driver::Pool(driving) = self.driver {
            let rows = driving.rows();
            let threads = rayon::current_num_threads();
            if threads > 1 && rows.len() >= 2 * MIN_CHUNK {
                let (components, alive, ticks) = (self.components, self.entities, self.ticks);
                let chunk = (rows.len() / (threads * 4)).max(MIN_CHUNK);
                let buffers = commands.take(rows.len().div_ceil(chunk));
                rows.par_chunks(chunk).zip(buffers.par_iter_mut()).enumerate().for_each(
                    |(index, (entities, buffer))| {
                        // SAFETY: as in `par_chunks`: the driver of this query, unchanged world,
                        // disjoint chunks.
                        unsafe {
                            visit_rows::<Q, F>(
                                components,
                                alive,
                                ticks,
                                driving,
                                index * chunk,
                                entities,
                                &mut |item| f(item, buffer),
                            )
                        };
                    },
                );
                return;
            }
        }
        let buffer = &mut commands.take(1)[0];
        self.for_each(|item| f(item, buffer));
    }

    /// [`Query::par_for_each`] on rayon, chunks of at least `min_chunk` rows.
    #[cfg(feature = "parallel")]
    fn par_chunks(&mut self, min_chunk: usize, f: impl Fn(Q::Item<'_>) + Send + Sync) {
        let Driver::Pool(driving) = self.driver else {
            return self.for_each(f);
        };
        let rows = driving.rows();
        let threads = rayon::current_num_threads();
        if threads <= 1 || rows.len() < 2 * min_chunk {
            // Nothing to split: run the sequential loop, without a thread hand-off.
            return self.for_each(f);
        }
        let (components, alive, ticks) = (self.components, self.entities, self.ticks);
        let chunk = (rows.len() / (threads * 4)).max(min_chunk);
        rows.par_chunks(chunk).enumerate().for_each(|(index, entities)| {
            // SAFETY: `driving` was picked by this query from the world it borrows, unchanged
            // since; the chunks of `rows` are disjoint, so each row is visited by one task.
            unsafe {
                visit_rows::<Q, F>(components, alive, ticks, driving, index * chunk, entities, &mut |item| {
                    f(item)
                })
            };
        });
    }
}

/// Calls `f` with the item of each matching entity among driver rows `first..first +
/// entities.len()` (`entities` being those rows of `driving.rows()`), in row order.
///
/// # Safety
/// - `driving` is the driver a query over `components` and `alive` picked, and the world has not
///   changed since; the caller holds that query's access;
/// - no other call, running or with items still in use, visits any of these rows (chunks are
///   disjoint).
pub(crate) unsafe fn visit_rows<'w, Q: QueryData, F: QueryFilter>(
    components: &'w Components,
    alive: &'w Entities,
    ticks: Ticks,
    driving: Driving<'w>,
    first: usize,
    entities: &'w [Entity],
    f: &mut dyn FnMut(Q::Item<'w>),
) {
    let data = Q::init_fetch(components, Some(driving), ticks);
    let filter = F::init_fetch(components, ticks);
    let lazy = driving.pool.is_lazy();
    let end = first + entities.len();
    let aligned_end = Q::aligned_rows(&data).clamp(first, end);
    // The fetch was made from the world the query borrows, unchanged since; each `entity` is
    // `entities[row - first]`, live unless the driver is lazy (checked), and `row` is its row in
    // the driver pool; rows are disjoint across calls (caller), so each row is fetched once, and
    // components are `Send + Sync`, so references to distinct values may be used on different
    // threads.
    if F::TRIVIAL && !lazy && !Q::marks_changes(&data) {
        for (row, &entity) in (first..aligned_end).zip(entities) {
            // SAFETY: as above, and `row` is below the fetch's aligned rows; nothing is tracked.
            f(unsafe { Q::fetch_aligned_unmarked(&data, entity, row) });
        }
    } else if F::TRIVIAL && !lazy {
        for (row, &entity) in (first..aligned_end).zip(entities) {
            // SAFETY: as above, and `row` is below the fetch's aligned rows.
            f(unsafe { Q::fetch_aligned(&data, entity, row) });
        }
    } else if !Q::marks_changes(&data) {
        for (row, &entity) in (first..aligned_end).zip(entities) {
            if (F::TRIVIAL || F::matches(&filter, entity)) && (!lazy || alive.is_alive(entity)) {
                // SAFETY: as above, and `row` is below the fetch's aligned rows; nothing is
                // tracked.
                f(unsafe { Q::fetch_aligned_unmarked(&data, entity, row) });
            }
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
}
