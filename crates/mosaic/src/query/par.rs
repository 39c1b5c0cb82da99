//! Parallel query iteration on rayon (feature `parallel`; without it, on the calling thread).

#[cfg(feature = "parallel")]
use rayon::prelude::*;

#[cfg(feature = "parallel")]
use super::plan::{Plan, visit_candidates, visit_candidates_in, visit_entities, visit_rows, visit_rows_in};
#[cfg(feature = "parallel")]
use super::work;
use super::{Query, QueryData, QueryFilter};
#[cfg(feature = "parallel")]
use crate::clock::Instant;
#[cfg(feature = "parallel")]
use crate::entity::Entity;
use crate::world::{ChunkedCommands, CommandBuffer};
#[cfg(feature = "parallel")]
use std::panic::Location;
#[cfg(feature = "parallel")]
use std::sync::atomic::{AtomicU64, Ordering};

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
    /// rows it runs as [`Query::for_each`] on the calling thread, and so it does while the loop
    /// holds less than about 50 us of work or the pool has made it slower than its work: each
    /// call site learns its work per row and its wall time per row on the pool from its runs
    /// (its first run is on the calling thread and measures; a site off the pool tries it again
    /// after 2, 4, 8, 16, then every 32 runs), since waking the pool costs more than a small
    /// loop of cheap rows (see `query/work.rs`). The result does not depend on the path taken.
    /// The walk is the one [`Query::for_each`] takes (`query/plan.rs`): with an `Added` /
    /// `Changed` filter and few changes it splits the change log's candidates, O(changed) as the
    /// sequential form; with no required component, the live entities.
    ///
    /// Without the `parallel` feature (no rayon) it always runs as [`Query::for_each`] on the
    /// calling thread, so code written for both builds compiles and gives the same results.
    #[track_caller]
    pub fn par_for_each(&mut self, f: impl Fn(Q::Item<'_>) + Send + Sync) {
        #[cfg(feature = "parallel")]
        self.par_chunks(MIN_CHUNK, Location::caller(), f);
        #[cfg(not(feature = "parallel"))]
        self.for_each(f);
    }

    /// [`Query::par_for_each`] with chunks of at least `min_chunk` rows (instead of 64): the
    /// split sized from the work. Pass a small value when each item is expensive (a few hundred
    /// microseconds: even 8 rows are worth a task) and a large one when items are a few
    /// nanoseconds, so a task's work pays for its hand-off (rayon's `with_min_len`).
    ///
    /// Runs on the calling thread, as [`Query::for_each`], with one thread, fewer than
    /// `2 * min_chunk` rows, no required component, less work than the pool's hand-off costs
    /// (as [`Query::par_for_each`]), or without the `parallel` feature.
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
        self.par_chunks(min_chunk, Location::caller(), f);
        #[cfg(not(feature = "parallel"))]
        self.for_each(f);
    }

    /// [`Query::par_for_each`] that may record structural changes: `f` gets each item and the
    /// [`CommandBuffer`] of its chunk, taken from `commands`. Nothing is applied here; apply
    /// `commands` ([`ChunkedCommands::apply`], or let the schedule do it for a [`ParCommands`](crate::ParCommands)
    /// parameter) at the sync point. The commands then apply in the query's iteration order, the
    /// same on any number of threads and without the `parallel` feature (one chunk then).
    ///
    /// Chunks as [`Query::par_for_each`], and like it on the calling thread while the loop holds
    /// little work: then the same chunks run one after another, each recording into its own
    /// buffer as on the pool, so which buffers fill depends on the rows, never on the timing
    /// that picks the pool or not (fewer than two chunks' worth of rows: one buffer). No
    /// allocation once `commands` is warm for the rows in use (a change-filtered or
    /// all-entities walk collects its candidates first).
    ///
    /// # Examples
    /// See [`ChunkedCommands`].
    #[track_caller]
    pub fn par_for_each_deferred(
        &mut self,
        commands: &mut ChunkedCommands,
        f: impl Fn(Q::Item<'_>, &mut CommandBuffer) + Send + Sync,
    ) {
        #[cfg(feature = "parallel")]
        let site = Location::caller();
        #[cfg(feature = "parallel")]
        if rayon::current_num_threads() > 1 {
            let (components, gate, ticks) = (self.components(), self.gate(), self.ticks);
            let spent = AtomicU64::new(0);
            // With rows enough for two chunks, the rows are cut into the chunks the pool would
            // get and each chunk records into its own buffer, whether the chunks then run on
            // the pool or (little work) one after another here: which buffers fill does not
            // depend on the timing the choice is made from, so warm buffers never grow because
            // the choice flipped (a warm frame allocates nothing on a loaded machine too).
            match self.plan() {
                Plan::Rows(driving) if driving.rows().len() >= 2 * MIN_CHUNK => {
                    let rows = driving.rows();
                    let chunk = chunk_len(rows.len(), MIN_CHUNK);
                    let buffers = commands.take(rows.len().div_ceil(chunk));
                    let visit = |(index, (entities, buffer)): (usize, (&[Entity], &mut CommandBuffer))| {
                        let start = Instant::now();
                        // SAFETY: the driver of this query, over the world it borrows,
                        // unchanged since; the chunks are disjoint.
                        unsafe {
                            visit_rows::<Q, F>(
                                components,
                                gate,
                                ticks,
                                driving,
                                index * chunk,
                                entities,
                                |item| f(item, buffer),
                            )
                        };
                        spent.fetch_add(nanos_since(start), Ordering::Relaxed);
                    };
                    if work::worth_parallel(site, rows.len()) {
                        let start = Instant::now();
                        rows.par_chunks(chunk).zip(buffers.par_iter_mut()).enumerate().for_each(visit);
                        work::record(site, rows.len(), spent.into_inner(), Some(nanos_since(start)));
                        return;
                    }
                    // Too little work for the pool: the chunks one after another here, each into
                    // its own buffer as on the pool, over fetches made once and timed once (a
                    // fetch set-up and a clock read per chunk cost more than a small chunk's
                    // rows: at 700 rows and 8 chunks, 1.6 us against 0.7 on one thread).
                    let start = Instant::now();
                    let data = Q::init_fetch(components, Some(driving), ticks);
                    let filter = F::init_fetch(components, ticks);
                    for (index, (entities, buffer)) in rows.chunks(chunk).zip(buffers.iter_mut()).enumerate()
                    {
                        // SAFETY: the fetches were made for this query's driver over the world it
                        // borrows, unchanged since; the chunks are disjoint and visited in turn.
                        unsafe {
                            visit_rows_in::<Q, F>(
                                &data,
                                &filter,
                                gate,
                                driving,
                                index * chunk,
                                entities,
                                |item| f(item, buffer),
                            )
                        };
                    }
                    work::record(site, rows.len(), nanos_since(start), None);
                    return;
                }
                Plan::Changed(walk) if walk.remaining() >= 2 * MIN_CHUNK => {
                    let parallel = work::worth_parallel(site, walk.remaining());
                    let (driving, candidates) = walk.collect_rows();
                    let chunk = chunk_len(candidates.len(), MIN_CHUNK);
                    let buffers = commands.take(candidates.len().div_ceil(chunk));
                    let visit = |(rows, buffer): (&[(usize, Entity)], &mut CommandBuffer)| {
                        let start = Instant::now();
                        // SAFETY: this query's change walk, over the world it borrows, unchanged
                        // since; it names each row once, and the chunks are disjoint.
                        unsafe {
                            visit_candidates::<Q, F>(
                                components,
                                gate,
                                ticks,
                                driving,
                                rows.iter().copied(),
                                |item| f(item, buffer),
                            )
                        };
                        spent.fetch_add(nanos_since(start), Ordering::Relaxed);
                    };
                    if parallel {
                        let start = Instant::now();
                        candidates.par_chunks(chunk).zip(buffers.par_iter_mut()).for_each(visit);
                        work::record(site, candidates.len(), spent.into_inner(), Some(nanos_since(start)));
                        return;
                    }
                    // As for rows: in turn here, fetches made once, timed once.
                    let start = Instant::now();
                    let data = Q::init_fetch(components, Some(driving), ticks);
                    let filter = F::init_fetch(components, ticks);
                    for (rows, buffer) in candidates.chunks(chunk).zip(buffers.iter_mut()) {
                        // SAFETY: this query's change walk, over the world it borrows, unchanged
                        // since; it names each row once, and the chunks are visited in turn.
                        unsafe {
                            visit_candidates_in::<Q, F>(
                                &data,
                                &filter,
                                gate,
                                driving,
                                rows.iter().copied(),
                                |item| f(item, buffer),
                            )
                        };
                    }
                    work::record(site, candidates.len(), nanos_since(start), None);
                    return;
                }
                _ => {}
            }
        }
        let buffer = &mut commands.take(1)[0];
        #[cfg(feature = "parallel")]
        {
            let (start, mut rows) = (Instant::now(), 0);
            self.for_each(|item| {
                rows += 1;
                f(item, buffer);
            });
            work::record(site, rows, nanos_since(start), None);
        }
        #[cfg(not(feature = "parallel"))]
        self.for_each(|item| f(item, buffer));
    }

    /// [`Query::par_for_each`] on rayon, chunks of at least `min_chunk` rows (or change-walk
    /// candidates, or live entities), when the work `site` has learned pays for the pool
    /// (`query/work.rs`); else on the calling thread. Either way it records what the rows cost.
    #[cfg(feature = "parallel")]
    fn par_chunks(
        &mut self,
        min_chunk: usize,
        site: &'static Location<'static>,
        f: impl Fn(Q::Item<'_>) + Send + Sync,
    ) {
        let threads = rayon::current_num_threads();
        let (components, alive, ticks) = (self.components(), self.entities(), self.ticks);
        let gate = self.gate();
        let worth = |rows: usize| threads > 1 && rows >= 2 * min_chunk && work::worth_parallel(site, rows);
        let spent = AtomicU64::new(0);
        // Runs `visit` on one chunk, adding its time to `spent`.
        let timed = |visit: &dyn Fn()| {
            let start = Instant::now();
            visit();
            spent.fetch_add(nanos_since(start), Ordering::Relaxed);
        };
        // The loop's wall time, on either path: with the chunks' times on the pool, what the
        // site learns.
        let start = Instant::now();
        let (rows, parallel) = match self.plan() {
            Plan::Rows(driving) if worth(driving.rows().len()) => {
                let rows = driving.rows();
                let chunk = chunk_len(rows.len(), min_chunk);
                rows.par_chunks(chunk).enumerate().for_each(|(index, entities)| {
                    // SAFETY: `driving` was picked by this query from the world it borrows,
                    // unchanged since; the chunks of `rows` are disjoint, so each row is visited
                    // by one task.
                    timed(&|| unsafe {
                        visit_rows::<Q, F>(components, gate, ticks, driving, index * chunk, entities, &f)
                    });
                });
                (rows.len(), true)
            }
            Plan::Changed(walk) if worth(walk.remaining()) => {
                let (driving, candidates) = walk.collect_rows();
                let chunk = chunk_len(candidates.len(), min_chunk);
                candidates.par_chunks(chunk).for_each(|rows| {
                    // SAFETY: this query's change walk over the world it borrows, unchanged
                    // since; each row once, the chunks disjoint.
                    timed(&|| unsafe {
                        visit_candidates::<Q, F>(components, gate, ticks, driving, rows.iter().copied(), &f)
                    });
                });
                (candidates.len(), true)
            }
            Plan::All if worth(alive.len() as usize) => {
                let entities: Vec<Entity> = alive.iter().collect();
                let chunk = chunk_len(entities.len(), min_chunk);
                entities.par_chunks(chunk).for_each(|entities| {
                    // SAFETY: live entities of the world this query borrows, each in one chunk.
                    timed(&|| unsafe {
                        visit_entities::<Q, F>(components, gate, ticks, entities.iter().copied(), &f)
                    });
                });
                (entities.len(), true)
            }
            // Nothing to split, too little work to pay for the hand-off, or a pool that has not
            // been faster: the sequential loop.
            _ => {
                let mut rows = 0;
                self.for_each(|item| {
                    rows += 1;
                    f(item);
                });
                (rows, false)
            }
        };
        let wall = nanos_since(start);
        if parallel {
            work::record(site, rows, spent.into_inner(), Some(wall));
        } else {
            work::record(site, rows, wall, None);
        }
    }
}

/// Nanoseconds since `start`, saturating.
#[cfg(feature = "parallel")]
fn nanos_since(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// The chunk length for `n` items on rayon's current pool: about four chunks per thread, at
/// least `min_chunk` items each.
#[cfg(feature = "parallel")]
fn chunk_len(n: usize, min_chunk: usize) -> usize {
    (n / (rayon::current_num_threads() * 4)).max(min_chunk)
}
