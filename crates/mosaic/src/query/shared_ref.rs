//! [`Ref<T>`]: a read-only query term whose item also tells whether its value was added or changed
//! within the reader's window.

use std::ops::Deref;

use super::access::{ComponentAccess, FilterSet};
use super::data::{Driving, PoolFetch};
use super::{QueryData, ReadOnlyQueryData};
use crate::component::{AosComponent, Component, ComponentId, Components};
use crate::entity::Entity;
use crate::storage::{ChangeTracker, SparseSet, Tick, Ticks};

/// Shared access to one component value together with its change ticks (bevy's `Ref<T>`): both
/// the query term (`Query<Ref<Health>>`) and its item. Where `Changed<T>` keeps only the changed
/// entities, `Ref<T>` visits them all and lets each item say whether it changed.
///
/// The item derefs to `T` for array-of-structs components; for a struct-of-arrays component,
/// [`Ref::into_inner`] gives its generated read view. [`Ref::is_changed`] and [`Ref::is_added`]
/// compare the row's ticks with the reader's window (since the system last ran, or since
/// `World::clear_trackers` for a world-level query); when `T`'s changes are not tracked they
/// return `true`, since no change can be ruled out. The term reads `T` (it conflicts with
/// writers of `T` as `&T` does), and the tick reads cost two loads per call, none when unused.
/// `Option<Ref<T>>` is the optional form.
///
/// # Examples
/// ```
/// use mosaic::{Component, Ref, World};
///
/// #[derive(Component, Debug)]
/// #[component(track_changes)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// let hurt = world.spawn(Health(5));
/// world.spawn(Health(9));
/// world.clear_trackers();
/// world.get_mut::<Health>(hurt).unwrap().0 -= 1;
///
/// let q = world.query::<(mosaic::Entity, Ref<Health>)>();
/// let changed: Vec<_> = q.iter().filter(|(_, h)| h.is_changed()).map(|(e, h)| (e, h.0)).collect();
/// assert_eq!(changed, [(hurt, 4)]);
/// assert_eq!(q.iter().count(), 2); // every entity is visited
/// ```
pub struct Ref<'w, T: Component> {
    value: T::Ref<'w>,
    /// `T`'s change ticks, when they are tracked.
    tracker: Option<&'w ChangeTracker>,
    row: usize,
    ticks: Ticks,
}

impl<'w, T: Component> Ref<'w, T> {
    /// Whether the value changed (or was added) within the reader's window; `true` when `T`'s
    /// changes are not tracked. O(1).
    #[inline]
    pub fn is_changed(&self) -> bool {
        self.tracker.is_none_or(|tracker| self.ticks.is_newer(tracker.changed(self.row)))
    }

    /// Whether the value was added within the reader's window; `true` when `T`'s changes are
    /// not tracked. O(1).
    #[inline]
    pub fn is_added(&self) -> bool {
        self.tracker.is_none_or(|tracker| self.ticks.is_newer(tracker.added(self.row)))
    }

    /// The tick the value last changed at, when `T`'s changes are tracked. O(1).
    #[inline]
    pub fn last_changed(&self) -> Option<Tick> {
        self.tracker.map(|tracker| tracker.changed(self.row))
    }

    /// The value's view for the item's whole lifetime: `&'w T` for an array-of-structs
    /// component, the generated read view for a struct-of-arrays one.
    #[inline]
    pub fn into_inner(self) -> T::Ref<'w> {
        self.value
    }
}

impl<T: AosComponent> Deref for Ref<'_, T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<'w, T: Component> Clone for Ref<'w, T>
where
    T::Ref<'w>: Clone,
{
    fn clone(&self) -> Self {
        Self { value: self.value.clone(), tracker: self.tracker, row: self.row, ticks: self.ticks }
    }
}

impl<'w, T: Component> std::fmt::Debug for Ref<'w, T>
where
    T::Ref<'w>: std::fmt::Debug,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Ref").field(&self.value).finish()
    }
}

/// The fetch of a [`Ref<T>`] term: `T`'s pool, its change ticks and the reader's window.
#[doc(hidden)]
pub struct RefFetch<'w, T: Component> {
    pool: PoolFetch<'w, T>,
    tracker: Option<&'w ChangeTracker>,
    ticks: Ticks,
}

impl<'w, T: Component> RefFetch<'w, T> {
    /// The item of pool row `row`.
    ///
    /// # Safety
    /// `row` is a row of `T`'s pool that is not written for 'w (the query's access is a read).
    #[inline(always)]
    unsafe fn item(&self, columns: T::Columns<'w>, row: usize) -> Ref<'w, T> {
        // SAFETY: forwarded from the caller.
        let value = unsafe { T::row_ref(columns, row) };
        Ref { value, tracker: self.tracker, row, ticks: self.ticks }
    }
}

// SAFETY: reports its one read of `T`; `fetch` reads only the row of `entity` in `T`'s pool and
// that row's ticks, which writers of `T` (excluded by the read) are the only ones to stamp.
unsafe impl<T: Component> QueryData for Ref<'_, T> {
    type Item<'w> = Ref<'w, T>;
    type Fetch<'w> = RefFetch<'w, T>;

    fn visit_access(visit: &mut dyn FnMut(ComponentAccess)) {
        <&T as QueryData>::visit_access(visit);
    }
    fn visit_filter(filter: &mut FilterSet) {
        <&T as QueryData>::visit_filter(filter);
    }
    fn visit_required<'w>(components: &'w Components, visit: &mut dyn FnMut(Option<&'w SparseSet>)) {
        <&T as QueryData>::visit_required(components, visit);
    }
    fn register_required(components: &mut Components, out: &mut dyn FnMut(ComponentId)) {
        <&T as QueryData>::register_required(components, out);
    }
    fn init_fetch<'w>(
        components: &'w Components,
        driver: Option<Driving<'w>>,
        ticks: Ticks,
    ) -> Self::Fetch<'w> {
        let tracker = components.pool_of::<T>().and_then(SparseSet::changes);
        RefFetch { pool: <&T as QueryData>::init_fetch(components, driver, ticks), tracker, ticks }
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Option<Ref<'w, T>> {
        let row = fetch.pool.row(entity, row)?;
        // SAFETY: `row` is a row of the pool, not written for 'w: the query's access set reads
        // `T` and has no write of it (aliasing check), and the caller excludes other writers.
        Some(unsafe { fetch.item(fetch.pool.columns(), row) })
    }
    #[inline(always)]
    fn matches(fetch: &Self::Fetch<'_>, entity: Entity, row: usize) -> bool {
        fetch.pool.row(entity, row).is_some()
    }
    #[inline(always)]
    fn aligned_rows(fetch: &Self::Fetch<'_>) -> usize {
        <&T as QueryData>::aligned_rows(&fetch.pool)
    }
    #[inline(always)]
    unsafe fn fetch_aligned<'w>(fetch: &Self::Fetch<'w>, _: Entity, row: usize) -> Ref<'w, T> {
        // SAFETY: as in `fetch`; `row < aligned` (caller), so the pool exists (its columns were
        // captured) and `row + offset` is one of its rows.
        unsafe { fetch.item(fetch.pool.aligned_columns(), row + fetch.pool.offset) }
    }
}

// SAFETY: read-only: items are shared views and tick reads.
unsafe impl<T: Component> ReadOnlyQueryData for Ref<'_, T> {}

// SAFETY: the access and fetch of `Ref<T>`, but nothing is required.
unsafe impl<T: Component> QueryData for Option<Ref<'_, T>> {
    type Item<'w> = Option<Ref<'w, T>>;
    type Fetch<'w> = RefFetch<'w, T>;

    fn visit_access(visit: &mut dyn FnMut(ComponentAccess)) {
        <&T as QueryData>::visit_access(visit);
    }
    fn visit_required<'w>(_: &'w Components, _: &mut dyn FnMut(Option<&'w SparseSet>)) {}
    fn register_required(_: &mut Components, _: &mut dyn FnMut(ComponentId)) {}
    fn init_fetch<'w>(
        components: &'w Components,
        driver: Option<Driving<'w>>,
        ticks: Ticks,
    ) -> Self::Fetch<'w> {
        <Ref<'_, T> as QueryData>::init_fetch(components, driver, ticks)
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Option<Option<Ref<'w, T>>> {
        // SAFETY: forwarded from the caller.
        Some(unsafe { <Ref<'_, T> as QueryData>::fetch(fetch, entity, row) })
    }
    fn matches(_: &Self::Fetch<'_>, _: Entity, _: usize) -> bool {
        true
    }
    fn aligned_rows(_: &Self::Fetch<'_>) -> usize {
        usize::MAX
    }
    #[inline(always)]
    unsafe fn fetch_aligned<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Option<Ref<'w, T>> {
        // SAFETY: forwarded from the caller; an optional term checks presence itself.
        unsafe { <Ref<'_, T> as QueryData>::fetch(fetch, entity, row) }
    }
}

// SAFETY: read-only, as `Ref<T>`.
unsafe impl<T: Component> ReadOnlyQueryData for Option<Ref<'_, T>> {}
