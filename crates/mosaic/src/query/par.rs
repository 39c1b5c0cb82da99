//! Parallel query iteration on rayon (feature `parallel`; without it, on the calling thread).

#[cfg(feature = "parallel")]
use rayon::prelude::*;

#[cfg(feature = "parallel")]
use super::plan::{Plan, visit_candidates, visit_entities, visit_rows};
use super::{Query, QueryData, QueryFilter};
#[cfg(feature = "parallel")]
use crate::entity::Entity;
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
    /// Chunks are at least 64 rows, about four per thread. With one thread or fewer than 128
    /// rows it runs as [`Query::for_each`] on the calling thread. The walk is the one
    /// [`Query::for_each`] takes (`query/plan.rs`): with an `Added` / `Changed` filter and few
    /// changes it splits the change log's candidates, O(changed) as the sequential form; with no
    /// required component, the live entities.
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
    /// parameter) at the sync point. The commands then apply in the query's iteration order, the
    /// same on any number of threads and without the `parallel` feature (one chunk then).
    ///
    /// Chunks as [`Query::par_for_each`]; no allocation once `commands` is warm for the chunk
    /// count in use (a change-filtered or all-entities walk collects its candidates first).
    ///
    /// # Examples
    /// See [`ChunkedCommands`].
    pub fn par_for_each_deferred(
        &mut self,
        commands: &mut ChunkedCommands,
        f: impl Fn(Q::Item<'_>, &mut CommandBuffer) + Send + Sync,
    ) {
        #[cfg(feature = "parallel")]
        if rayon::current_num_threads() > 1 {
            let (components, alive, ticks) = (self.components, self.entities, self.ticks);
            match self.plan() {
                Plan::Rows(driving) if driving.rows().len() >= 2 * MIN_CHUNK => {
                    let rows = driving.rows();
                    let chunk = chunk_len(rows.len(), MIN_CHUNK);
                    let buffers = commands.take(rows.len().div_ceil(chunk));
                    rows.par_chunks(chunk).zip(buffers.par_iter_mut()).enumerate().for_each(
                        |(index, (entities, buffer))| {
                            // SAFETY: the driver of this query, over the world it borrows,
                            // unchanged since; the chunks are disjoint.
                            unsafe {
                                visit_rows::<Q, F>(
                                    components,
                                    alive,
                                    ticks,
                                    driving,
                                    index * chunk,
                                    entities,
                                    |item| f(item, buffer),
                                )
                            };
                        },
                    );
                    return;
                }
                Plan::Changed(walk) if walk.remaining() >= 2 * MIN_CHUNK => {
                    let (driving, candidates) = walk.collect_rows();
                    let chunk = chunk_len(candidates.len(), MIN_CHUNK);
                    let buffers = commands.take(candidates.len().div_ceil(chunk));
                    candidates.par_chunks(chunk).zip(buffers.par_iter_mut()).for_each(|(rows, buffer)| {
                        // SAFETY: this query's change walk, over the world it borrows, unchanged
                        // since; it names each row once, and the chunks are disjoint.
                        unsafe {
                            visit_candidates::<Q, F>(
                                components,
                                alive,
                                ticks,
                                driving,
                                rows.iter().copied(),
                                |item| f(item, buffer),
                            )
                        };
                    });
                    return;
                }
                _ => {}
            }
        }
        let buffer = &mut commands.take(1)[0];
        self.for_each(|item| f(item, buffer));
    }

    /// [`Query::par_for_each`] on rayon, chunks of at least `min_chunk` rows (or change-walk
    /// candidates, or live entities).
    #[cfg(feature = "parallel")]
    fn par_chunks(&mut self, min_chunk: usize, f: impl Fn(Q::Item<'_>) + Send + Sync) {
        let threads = rayon::current_num_threads();
        let (components, alive, ticks) = (self.components, self.entities, self.ticks);
        match self.plan() {
            Plan::Rows(driving) if threads > 1 && driving.rows().len() >= 2 * min_chunk => {
                let rows = driving.rows();
                let chunk = chunk_len(rows.len(), min_chunk);
                rows.par_chunks(chunk).enumerate().for_each(|(index, entities)| {
                    // SAFETY: `driving` was picked by this query from the world it borrows,
                    // unchanged since; the chunks of `rows` are disjoint, so each row is visited
                    // by one task.
                    unsafe {
                        visit_rows::<Q, F>(components, alive, ticks, driving, index * chunk, entities, &f)
                    };
                });
            }
            Plan::Changed(walk) if threads > 1 && walk.remaining() >= 2 * min_chunk => {
                let (driving, candidates) = walk.collect_rows();
                let chunk = chunk_len(candidates.len(), min_chunk);
                candidates.par_chunks(chunk).for_each(|rows| {
                    // SAFETY: this query's change walk over the world it borrows, unchanged
                    // since; each row once, the chunks disjoint.
                    unsafe {
                        visit_candidates::<Q, F>(components, alive, ticks, driving, rows.iter().copied(), &f)
                    };
                });
            }
            Plan::All if threads > 1 && alive.len() as usize >= 2 * min_chunk => {
                let entities: Vec<Entity> = alive.iter().collect();
                let chunk = chunk_len(entities.len(), min_chunk);
                entities.par_chunks(chunk).for_each(|entities| {
                    // SAFETY: live entities of the world this query borrows, each in one chunk.
                    unsafe { visit_entities::<Q, F>(components, ticks, entities.iter().copied(), &f) };
                });
            }
            // Nothing to split: the sequential loop, without a thread hand-off.
            _ => self.for_each(f),
        }
    }
}

/// The chunk length for `n` items on rayon's current pool: about four chunks per thread, at
/// least `min_chunk` items each.
#[cfg(feature = "parallel")]
fn chunk_len(n: usize, min_chunk: usize) -> usize {
    (n / (rayon::current_num_threads() * 4)).max(min_chunk)
}
