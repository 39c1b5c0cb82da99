//! Sorting pools: iteration order on demand.

use super::World;
use super::group::GroupId;
use crate::component::{Component, ComponentId};
use crate::storage::{PermuteScratch, row_keys_into, sorted_rows};

/// Buffers a group sort works in, kept by the world between sorts: the keys (one vector per
/// key type), the row order and the pools' permutation buffers.
#[derive(Default)]
pub(crate) struct SortScratch {
    keys: rustc_hash::FxHashMap<std::any::TypeId, Box<dyn std::any::Any + Send + Sync>>,
    order: Vec<usize>,
    /// The bucket counts of [`World::sort_group_by_bucket`].
    counts: Vec<u32>,
    /// One per pool permuted at once.
    permute: Vec<PermuteScratch>,
}

/// Rows of a group segment from which [`World::sort_group_by_key`] sorts its keys and permutes
/// its pools on the rayon pool (feature `parallel`): below it, waking the pool costs more than it
/// saves.
#[cfg(feature = "parallel")]
const PARALLEL_SORT_ROWS: usize = if cfg!(miri) { 64 } else { 1 << 15 }; // Miri: small worlds take the path too

impl std::fmt::Debug for SortScratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SortScratch").field("key_types", &self.keys.len()).finish_non_exhaustive()
    }
}

/// Why a pool could not be sorted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SortError {
    /// The pool belongs to an owning group, which decides its order.
    #[error(
        "the pool of `{component}` is owned by a group, which keeps its order; sort the group instead \
         (`World::sort_group_by_key`), or a component no group owns"
    )]
    OwnedByGroup {
        /// The component's type name.
        component: &'static str,
    },
    /// The component a group sort reads its key from is not one the group owns.
    #[error("group ({}) does not own `{component}`; sort it by a component it owns", .group.join(", "))]
    NotInGroup {
        /// The component's type name.
        component: &'static str,
        /// The group's component names.
        group: Vec<&'static str>,
    },
    /// A key of [`World::sort_group_by_bucket`] is not below its bucket count.
    #[error("sort key {key} is out of range: with {buckets} buckets, keys must be below {buckets}")]
    KeyOutOfRange {
        /// The first key out of range, in row order.
        key: usize,
        /// The bucket count given.
        buckets: usize,
    },
}

impl World {
    fn check_sortable(&self, id: ComponentId) -> Result<(), SortError> {
        if self.groups.chain(id).is_empty() {
            Ok(())
        } else {
            Err(SortError::OwnedByGroup { component: self.components.pool(id).type_name() })
        }
    }

    /// Sorts the pool of `T` with `compare` on its views (`&T`, or `TRef` for struct-of-arrays):
    /// queries driven by this pool then visit entities in that order. Stable; O(n log n).
    /// Any later insert or remove on the pool may disturb the order (swap-remove).
    ///
    /// EnTT's `storage::sort`.
    ///
    /// # Errors
    /// [`SortError::OwnedByGroup`] if a group owns the pool.
    pub fn sort_by<T: Component>(
        &mut self,
        compare: impl FnMut(T::Ref<'_>, T::Ref<'_>) -> std::cmp::Ordering,
    ) -> Result<(), SortError> {
        let id = self.components.register::<T>();
        self.check_sortable(id)?;
        let order = sorted_rows::<T>(self.components.pool(id), compare);
        self.components.pool_mut(id).permute(&order);
        Ok(())
    }

    /// Orders the pool of `T` like the pool of `U`: the entities that have both come first, in
    /// `U`'s order, then the rest. Afterwards a query over both walks matching rows with no
    /// lookups (the pools line up). O(n) in `U`'s pool.
    ///
    /// EnTT's `storage::sort_as`.
    ///
    /// # Errors
    /// [`SortError::OwnedByGroup`] if a group owns the pool of `T`.
    pub fn sort_as<T: Component, U: Component>(&mut self) -> Result<(), SortError> {
        let id = self.components.register::<T>();
        self.check_sortable(id)?;
        let other = self.components.register::<U>();
        if id == other {
            return Ok(());
        }
        let pools = self.components.pools_mut();
        let (pool, reference) = if id.index() < other.index() {
            let (low, high) = pools.split_at_mut(other.index());
            (&mut low[id.index()], &high[0])
        } else {
            let (low, high) = pools.split_at_mut(id.index());
            (&mut high[0], &low[other.index()])
        };
        let mut next = 0;
        for &entity in reference.entities() {
            if let Some(row) = pool.row_of(entity) {
                pool.swap_rows(row, next);
                next += 1;
            }
        }
        Ok(())
    }

    /// Sorts the members of owning group `group` by `key` of their component `T` (one the group
    /// owns), keeping every group valid: afterwards queries over the group's components visit
    /// its members in key order, with the owned pools still aligned (the query walks slices).
    /// Stable. Groups nested inside `group` (owning more types, so their members come first)
    /// keep their members first: each nested group's rows are sorted among themselves, with
    /// all of that group's pools, and the rest of `group`'s rows after them. Groups `group` is
    /// nested in own a subset of its pools, which move together, so they stay valid too.
    ///
    /// Use it to serve an access pattern the storage order does not give by itself: a
    /// collision pass that looks up neighbours reads memory in order when the bodies are sorted
    /// by grid cell (seed 004: reorder pools for the access pattern). Later inserts and removes
    /// disturb the order (new members join at the end, removals swap-remove), so sort again
    /// when a cheap measure of disorder says so, not every frame.
    ///
    /// Complexity: O(m) calls of `key` and O(m log m) comparisons for the group's m members
    /// (fewer on input that is nearly in order: the sort is adaptive), plus O(m) copies per owned
    /// pool (by O(m) swaps for pools with change tracking on). Allocates O(m) the first time; the
    /// world keeps the buffers. With the `parallel` feature, a segment of at least 32,768 rows is
    /// sorted with rayon's parallel sort and its pools are permuted one task per pool: the same
    /// result (the keys are distinct `(key, row)` pairs), spread over the threads.
    ///
    /// EnTT sorts an owning group by one of its components (`group::sort`); this follows it.
    ///
    /// # Errors
    /// [`SortError::NotInGroup`] if the group does not own `T`'s pool.
    ///
    /// # Panics
    /// If `group` was not made by this world.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component, Clone, Copy)] struct Pos(f32);
    /// #[derive(Component, Clone, Copy)] struct Vel(f32);
    /// let mut world = World::new();
    /// let group = world.group::<(Pos, Vel)>();
    /// for x in [3.0, 1.0, 2.0] {
    ///     world.spawn((Pos(x), Vel(-x)));
    /// }
    /// world.sort_group_by_key::<Pos, _>(group, |p| p.0 as i64).unwrap();
    /// let order: Vec<(f32, f32)> = world.query::<(&Pos, &Vel)>().into_iter().map(|(p, v)| (p.0, v.0)).collect();
    /// assert_eq!(order, [(1.0, -1.0), (2.0, -2.0), (3.0, -3.0)]);
    /// ```
    #[track_caller]
    pub fn sort_group_by_key<T: Component, K: Ord + Send + Sync + 'static>(
        &mut self,
        group: GroupId,
        key: impl FnMut(T::Ref<'_>) -> K,
    ) -> Result<(), SortError> {
        self.sort_group_with::<T, K>(
            group,
            key,
            |_| Ok(()),
            |segment, order, _| {
                // Pairs (key, row) are distinct, so the unstable sort of pairs orders equal keys by
                // row: stable, at the unstable sort's speed, and the same result on any number of
                // threads.
                #[cfg(feature = "parallel")]
                if segment.len() >= PARALLEL_SORT_ROWS {
                    use rayon::prelude::*;
                    segment.par_sort_unstable();
                } else {
                    segment.sort_unstable();
                }
                #[cfg(not(feature = "parallel"))]
                segment.sort_unstable();
                order.clear();
                order.extend(segment.iter().map(|&(_, row)| row));
            },
        )
    }

    /// Sorts the members of owning group `group` by a small whole-number `key` of their
    /// component `T`, from 0 to `buckets - 1` (a grid cell, a layer, a team): what
    /// [`World::sort_group_by_key`] does, with the same result for the same keys, by a stable
    /// counting sort. O(m + buckets) for the group's m members instead of O(m log m)
    /// comparisons: about 4x faster at 4 x 10^5 members (the arena's fighters by grid cell),
    /// where the comparison sort is the larger part of a re-sort. When `buckets` is over four
    /// times a segment's rows, that segment takes the comparison sort instead (the counts
    /// would cost more than they save), so memory stays O(m).
    ///
    /// # Errors
    /// [`SortError::NotInGroup`] if the group does not own `T`'s pool;
    /// [`SortError::KeyOutOfRange`] if a key is `buckets` or more (nothing is moved then).
    ///
    /// # Panics
    /// If `group` was not made by this world.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component, Clone, Copy)] struct Cell(u16);
    /// #[derive(Component, Clone, Copy)] struct Id(u8);
    /// let mut world = World::new();
    /// let group = world.group::<(Cell, Id)>();
    /// for (id, cell) in [2, 0, 1, 0].into_iter().enumerate() {
    ///     world.spawn((Cell(cell), Id(id as u8)));
    /// }
    /// world.sort_group_by_bucket::<Cell>(group, 3, |c| usize::from(c.0)).unwrap();
    /// let order: Vec<(u16, u8)> = world.query::<(&Cell, &Id)>().into_iter().map(|(c, i)| (c.0, i.0)).collect();
    /// assert_eq!(order, [(0, 1), (0, 3), (1, 2), (2, 0)], "stable: equal cells keep their order");
    /// assert!(world.sort_group_by_bucket::<Cell>(group, 2, |c| usize::from(c.0)).is_err(), "cell 2 of 2");
    /// ```
    #[track_caller]
    pub fn sort_group_by_bucket<T: Component>(
        &mut self,
        group: GroupId,
        buckets: usize,
        key: impl FnMut(T::Ref<'_>) -> usize,
    ) -> Result<(), SortError> {
        let check = |keys: &[(usize, usize)]| match keys.iter().find(|&&(key, _)| key >= buckets) {
            Some(&(key, _)) => Err(SortError::KeyOutOfRange { key, buckets }),
            None => Ok(()),
        };
        self.sort_group_with::<T, usize>(group, key, check, |segment, order, counts| {
            if buckets > segment.len().saturating_mul(4) || u32::try_from(segment.len()).is_err() {
                segment.sort_unstable();
                order.clear();
                order.extend(segment.iter().map(|&(_, row)| row));
                return;
            }
            // Counts, then each bucket's start, then each row placed at its bucket's cursor: the
            // rows of a bucket keep their order (stable).
            counts.clear();
            counts.resize(buckets + 1, 0);
            for &(key, _) in segment.iter() {
                counts[key + 1] += 1;
            }
            for b in 1..counts.len() {
                counts[b] += counts[b - 1];
            }
            order.clear();
            order.resize(segment.len(), 0);
            for &(key, row) in segment.iter() {
                let at = &mut counts[key];
                order[*at as usize] = row;
                *at += 1;
            }
        })
    }

    /// The body of the group sorts: computes `(key, row)` for every member, `check`s them (an
    /// error moves nothing), then per segment of the nested groups' chain that is not already in
    /// key order, lets `order_segment` put the segment's rows in their new order into its second
    /// argument (the third is a buffer it may use, kept by the world) and permutes every pool the segment's group owns by it (one task per pool on
    /// the rayon pool for a segment of at least [`PARALLEL_SORT_ROWS`] rows).
    #[track_caller]
    fn sort_group_with<T: Component, K: Ord + Send + Sync + 'static>(
        &mut self,
        group: GroupId,
        key: impl FnMut(T::Ref<'_>) -> K,
        check: impl FnOnce(&[(K, usize)]) -> Result<(), SortError>,
        mut order_segment: impl FnMut(&mut [(K, usize)], &mut Vec<usize>, &mut Vec<u32>),
    ) -> Result<(), SortError> {
        let id = self.components.register::<T>();
        let sorted = &self.groups.owning[group.index()];
        if !sorted.owned.contains(&id) {
            return Err(SortError::NotInGroup {
                component: self.components.pool(id).type_name(),
                group: sorted.names().to_vec(),
            });
        }
        let members = sorted.len;
        // The group and every group nested inside it, longest range first: their ranges are
        // prefixes of one another, so rows `[len of the next, len)` belong to exactly the
        // groups up to this one, and move with this one's pools.
        let mut chain: smallvec::SmallVec<[(usize, usize); 4]> = self
            .groups
            .owning
            .iter()
            .enumerate()
            .filter(|(_, inner)| sorted.owned.iter().all(|id| inner.owned.contains(id)))
            .map(|(index, inner)| (inner.len, index))
            .collect();
        chain.sort_by(|a, b| {
            b.0.cmp(&a.0).then(self.groups.owning[a.1].owned.len().cmp(&self.groups.owning[b.1].owned.len()))
        });
        let scratch = &mut self.groups.sort_scratch;
        let keys = scratch
            .keys
            .entry(std::any::TypeId::of::<K>())
            .or_insert_with(|| Box::new(Vec::<(K, usize)>::new()))
            .downcast_mut::<Vec<(K, usize)>>()
            .expect("the entry of a key type holds that type's vector");
        row_keys_into::<T, K>(self.components.pool(id), 0..members, key, keys);
        if let Err(error) = check(keys) {
            keys.clear();
            return Err(error);
        }
        for (k, &(end, index)) in chain.iter().enumerate() {
            let begin = chain.get(k + 1).map_or(0, |next| next.0);
            if begin == end {
                continue;
            }
            let segment = &mut keys[begin..end];
            if segment.is_sorted_by(|a, b| a.0 <= b.0) {
                continue;
            }
            let owned = &self.groups.owning[index].owned;
            scratch.permute.resize_with(owned.len().max(1), PermuteScratch::default);
            order_segment(segment, &mut scratch.order, &mut scratch.counts);
            #[cfg(feature = "parallel")]
            if segment.len() >= PARALLEL_SORT_ROWS {
                use rayon::prelude::*;
                // The pools are independent: one task each.
                let mut pools: smallvec::SmallVec<[&mut crate::storage::SparseSet; 8]> =
                    (self.components.pools_mut())
                        .iter_mut()
                        .enumerate()
                        .filter(|(i, _)| owned.iter().any(|id| id.index() == *i))
                        .map(|(_, pool)| pool)
                        .collect();
                let order = &scratch.order;
                pools.par_iter_mut().zip(scratch.permute.par_iter_mut()).for_each(|(pool, buffers)| {
                    pool.permute_range_with(begin, order, buffers);
                });
                continue;
            }
            for &pool in owned {
                self.components.pool_mut(pool).permute_range_with(
                    begin,
                    &scratch.order,
                    &mut scratch.permute[0],
                );
            }
        }
        keys.clear();
        Ok(())
    }
}
