//! Chunked iteration: whole slices of each component for runs of consecutive rows.

use super::data::{PoolFetch, PoolFetchMut};
use super::plan::ChangedWalk;
use super::plan::Plan;
use super::{Query, QueryData, QueryFilter};
use crate::component::{Component, Components, MutableComponent};
use crate::entity::Entity;

/// A [`QueryData`] that can be fetched as slices over a run of rows: `&T`, `&mut T`, [`Entity`]
/// and tuples of these (not `Option`, whose rows need not line up).
///
/// # Safety
/// As [`QueryData`]; the chunk methods build slices only over the rows they are given.
pub unsafe trait ChunkQueryData: QueryData {
    /// The slices of one chunk: `&[T]` / `&mut [T]` (or a struct-of-arrays component's
    /// `TSlices` / `TSlicesMut`), `&[Entity]`, or a tuple of these.
    type Chunk<'w>;

    /// The chunk of driver rows `start..start + len`, all below the fetch's aligned rows.
    ///
    /// # Safety
    /// As [`QueryData::fetch_aligned`] for every row of the range; `entities` is the driver
    /// pool's entity array.
    #[doc(hidden)]
    unsafe fn chunk_aligned<'w>(
        fetch: &Self::Fetch<'w>,
        entities: &'w [Entity],
        start: usize,
        len: usize,
    ) -> Self::Chunk<'w>;

    /// A one-row chunk for `entities[row]` (the driver's), found by lookup; `None` if it does
    /// not match.
    ///
    /// # Safety
    /// As [`QueryData::fetch`].
    #[doc(hidden)]
    unsafe fn chunk_one<'w>(
        fetch: &Self::Fetch<'w>,
        entities: &'w [Entity],
        row: usize,
    ) -> Option<Self::Chunk<'w>>;
}

// SAFETY: the slices cover the given rows of `T`'s pool only.
unsafe impl<T: Component> ChunkQueryData for &T {
    type Chunk<'w> = T::Slice<'w>;

    #[inline]
    unsafe fn chunk_aligned<'w>(
        fetch: &PoolFetch<'w, T>,
        _: &'w [Entity],
        start: usize,
        len: usize,
    ) -> T::Slice<'w> {
        // SAFETY: forwarded: aligned rows map to pool rows `start + offset ..`, read-shared.
        unsafe { T::slice(fetch.columns(), start + fetch.offset, len) }
    }
    #[inline]
    unsafe fn chunk_one<'w>(
        fetch: &PoolFetch<'w, T>,
        entities: &'w [Entity],
        row: usize,
    ) -> Option<T::Slice<'w>> {
        let row = fetch.row(entities[row], row)?;
        // SAFETY: `row` is a pool row found by lookup; shared as in `fetch`.
        Some(unsafe { T::slice(fetch.columns(), row, 1) })
    }
}

// SAFETY: the slices cover the given rows of `T`'s pool only, each handed out once.
unsafe impl<T: MutableComponent> ChunkQueryData for &mut T {
    type Chunk<'w> = T::SliceMut<'w>;

    #[inline]
    unsafe fn chunk_aligned<'w>(
        fetch: &PoolFetchMut<'w, T>,
        _: &'w [Entity],
        start: usize,
        len: usize,
    ) -> T::SliceMut<'w> {
        // SAFETY: forwarded: aligned rows map to pool rows `start + offset ..` (driver row
        // `start + i` holds the entity of pool row `start + offset + i`), exclusive.
        unsafe {
            for row in start + fetch.offset..start + fetch.offset + len {
                fetch.mark(row);
            }
            T::slice_mut(fetch.columns(), start + fetch.offset, len)
        }
    }
    #[inline]
    unsafe fn chunk_one<'w>(
        fetch: &PoolFetchMut<'w, T>,
        entities: &'w [Entity],
        row: usize,
    ) -> Option<T::SliceMut<'w>> {
        let entity = entities[row];
        let row = fetch.row(entity, row)?;
        // SAFETY: `row` is `entity`'s pool row, found by lookup; exclusive as in `fetch`.
        unsafe {
            fetch.mark(row);
            Some(T::slice_mut(fetch.columns(), row, 1))
        }
    }
}

// SAFETY: hands out the driver's entity array only.
unsafe impl ChunkQueryData for Entity {
    type Chunk<'w> = &'w [Entity];

    #[inline]
    unsafe fn chunk_aligned<'w>(_: &(), entities: &'w [Entity], start: usize, len: usize) -> &'w [Entity] {
        &entities[start..start + len]
    }
    #[inline]
    unsafe fn chunk_one<'w>(_: &(), entities: &'w [Entity], row: usize) -> Option<&'w [Entity]> {
        Some(&entities[row..row + 1])
    }
}

macro_rules! tuple_chunk {
    ($($name:ident),*) => {
        // SAFETY: forwards to its members.
        unsafe impl<$($name: ChunkQueryData),*> ChunkQueryData for ($($name,)*) {
            type Chunk<'w> = ($($name::Chunk<'w>,)*);

            #[inline]
            #[allow(non_snake_case, clippy::unused_unit, unused_variables)]
            unsafe fn chunk_aligned<'w>(fetch: &Self::Fetch<'w>, entities: &'w [Entity], start: usize, len: usize) -> Self::Chunk<'w> {
                let ($($name,)*) = fetch;
                // SAFETY: forwarded to each member.
                ($(unsafe { $name::chunk_aligned($name, entities, start, len) },)*)
            }
            #[inline]
            #[allow(non_snake_case, clippy::unused_unit, unused_variables)]
            unsafe fn chunk_one<'w>(fetch: &Self::Fetch<'w>, entities: &'w [Entity], row: usize) -> Option<Self::Chunk<'w>> {
                let ($($name,)*) = fetch;
                // SAFETY: forwarded to each member.
                Some(($(unsafe { $name::chunk_one($name, entities, row) }?,)*))
            }
        }
    };
}

tuple_chunk!(A);
tuple_chunk!(A, B);
tuple_chunk!(A, B, C);
tuple_chunk!(A, B, C, D);
tuple_chunk!(A, B, C, D, E);
tuple_chunk!(A, B, C, D, E, F);
tuple_chunk!(A, B, C, D, E, F, G);
tuple_chunk!(A, B, C, D, E, F, G, H);

impl<Q: ChunkQueryData, F: QueryFilter> Query<'_, Q, F> {
    /// Calls `f` with slices of every component for runs of matching entities, so per-field
    /// loops (`x[i] += vx[i]`) compile to vector code.
    ///
    /// Shape: the rows that every required pool holds in the same order as the driving pool
    /// come as maximal runs (one chunk when no filter splits them); every other matching entity
    /// comes as a chunk of length 1. Each matching entity is in exactly one chunk; chunk order
    /// follows the driving pool's rows. A query that requires no component (`Query<Entity>`,
    /// with or without filters) walks every live entity as [`Query::iter`] does: each match is a
    /// chunk of length 1, in index order, and the matches are gathered into one buffer per call.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// #[component(storage = "soa")]
    /// struct Position { x: f32, y: f32 }
    /// #[derive(Component)]
    /// #[component(storage = "soa")]
    /// struct Velocity { x: f32, y: f32 }
    ///
    /// let mut world = World::new();
    /// world.spawn_batch((0..1000).map(|i| (Position { x: i as f32, y: 0.0 }, Velocity { x: 1.0, y: 2.0 })));
    /// world.query::<(&mut Position, &Velocity)>().for_each_chunk(|(p, v)| {
    ///     for i in 0..p.x.len() {
    ///         p.x[i] += v.x[i];
    ///         p.y[i] += v.y[i];
    ///     }
    /// });
    /// assert!(world.query::<&Position>().into_iter().all(|p| *p.y == 2.0));
    /// ```
    pub fn for_each_chunk(&mut self, mut f: impl FnMut(Q::Chunk<'_>)) {
        let driving = match self.plan() {
            Plan::Rows(driving) => driving,
            Plan::Empty => return,
            Plan::All => return self.for_each_chunk_of_every_entity(f),
            Plan::Changed(walk) => return self.for_each_chunk_of_candidates(walk, f),
        };
        let data = Q::init_fetch(self.components(), Some(driving), self.ticks);
        let filter = F::init_fetch(self.components(), self.ticks);
        let entities = driving.rows();
        let aligned = Q::aligned_rows(&data).min(entities.len());
        let lazy = driving.pool.is_lazy();
        let (gate, gated) = (self.gate(), self.gate().is_needed(lazy));
        let matches =
            |entity| (F::TRIVIAL || F::matches(&filter, entity)) && (!gated || gate.admits(lazy, entity));
        let mut row = 0;
        while row < aligned {
            if !matches(entities[row]) {
                row += 1;
                continue;
            }
            let start = row;
            while row < aligned && matches(entities[row]) {
                row += 1;
            }
            // SAFETY: the fetch was made from the world this query borrows, unchanged since;
            // rows `start..row` are below the aligned rows, match, and are handed out once.
            f(unsafe { Q::chunk_aligned(&data, entities, start, row - start) });
        }
        for row in aligned..entities.len() {
            if matches(entities[row]) {
                // SAFETY: as above, one row through the checked lookup path.
                if let Some(chunk) = unsafe { Q::chunk_one(&data, entities, row) } {
                    f(chunk);
                }
            }
        }
    }

    /// [`Query::for_each_chunk`] over a change walk's candidates (the plan of a change-filtered
    /// query when few rows changed): one chunk per matching candidate, through the checked
    /// lookup path. O(changed).
    fn for_each_chunk_of_candidates(&mut self, walk: ChangedWalk<'_>, mut f: impl FnMut(Q::Chunk<'_>)) {
        let (driving, candidates) = walk.collect_rows();
        let filter = F::init_fetch(self.components(), self.ticks);
        let data = Q::init_fetch(self.components(), Some(driving), self.ticks);
        let entities = driving.rows();
        let (lazy, gate) = (driving.pool.is_lazy(), self.gate());
        for (row, entity) in candidates {
            if gate.admits(lazy, entity)
                && (F::PASSED_BY_CHANGE_WALK || F::matches_at(&filter, entity, driving.pool.entities(), row))
            {
                // SAFETY: the fetch was made with this driver from the world this query borrows,
                // unchanged since; `row` is the row in the driver of `entity`, live and not
                // disabled for this query (the gate), and a change walk yields each row once, so
                // each row is handed out once.
                if let Some(chunk) = unsafe { Q::chunk_one(&data, entities, row) } {
                    f(chunk);
                }
            }
        }
    }

    /// [`Query::for_each_chunk`] when no component is required: every live entity that passes
    /// the filter, one chunk each, through the checked lookup path.
    fn for_each_chunk_of_every_entity(&mut self, mut f: impl FnMut(Q::Chunk<'_>)) {
        let filter = F::init_fetch(self.components(), self.ticks);
        let matching: Vec<Entity> = self
            .entities()
            .iter()
            .filter(|&entity| F::matches(&filter, entity) && self.gate().enabled(entity))
            .collect();
        let components: &Components = self.components();
        let data = Q::init_fetch(components, None, self.ticks);
        for row in 0..matching.len() {
            // SAFETY: the fetch was made from the world this query borrows, unchanged since; it
            // has no driver, so every required row (none here) would be found by lookup; each
            // entity is handed out once.
            if let Some(chunk) = unsafe { Q::chunk_one(&data, &matching, row) } {
                f(chunk);
            }
        }
    }
}
