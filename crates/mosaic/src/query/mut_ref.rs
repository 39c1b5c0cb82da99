//! [`Mut<T>`]: a query term whose item marks its row changed only when it is written through.

use std::ops::{Deref, DerefMut};

use super::QueryData;
use super::access::{ComponentAccess, FilterSet};
use super::data::{Driving, PoolFetchMut};
use crate::component::{ComponentId, Components, MutableComponent};
use crate::entity::Entity;
use crate::storage::{RowStamp, SparseSet, Ticks};

/// Mutable access to one component value that records a change only when written through
/// (bevy's `Mut<T>`): both the query term (`Query<Mut<Health>>`) and its item.
///
/// A `&mut T` term counts every row it hands out as changed, whether or not the caller writes.
/// A `Mut<T>` item counts its row as changed the first time it is dereferenced mutably
/// ([`DerefMut`], so `health.0 -= 1` or `*health = ..`), or on [`Mut::set_changed`]; reading it
/// ([`Deref`]) changes nothing. So a system that looks at every value and edits a few marks only
/// those few for `Changed<T>` readers. The first write costs what a `&mut T` hand-out costs
/// (three plain stores when `T`'s changes are tracked, nothing otherwise); later ones test one
/// flag.
///
/// The item is `Mut<'w, T>` for array-of-structs components. For a struct-of-arrays component
/// (`#[component(storage = "soa")]`) it is the generated `TTracked` view: one
/// [`FieldMut`](crate::FieldMut) per field, each recording a write of its own field as well as
/// of the row, so [`FieldChanged`](crate::FieldChanged) readers see which fields were written.
/// The term accesses `T` mutably, so the aliasing rules of `&mut T` apply to it.
/// `Option<Mut<T>>` is the optional form, as `Option<&mut T>` is for `&mut T`.
///
/// # Examples
/// ```
/// use mosaic::{Changed, Component, Mut, World};
///
/// #[derive(Component)]
/// #[component(track_changes)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// let hurt = world.spawn(Health(5));
/// let fine = world.spawn(Health(9));
/// world.clear_trackers();
///
/// for mut health in world.query::<Mut<Health>>() {
///     if health.0 < 6 {
///         health.0 += 1; // written through: marked
///     }
/// }
/// let changed: Vec<_> = world.query_filtered::<mosaic::Entity, Changed<Health>>().into_iter().collect();
/// assert_eq!(changed, [hurt]);
/// # let _ = fine;
/// ```
pub struct Mut<'w, T: MutableComponent> {
    value: &'w mut T,
    /// Where the write is recorded (the row, and `T`'s change marker when `T` is tracked), and
    /// the reader's change window, for [`Mut::is_changed`] / [`Mut::is_added`].
    stamp: RowStamp<'w>,
    /// Whether this item already recorded its write.
    marked: bool,
}

impl<'w, T: MutableComponent> Mut<'w, T> {
    /// The item over `value`, recording its write through `stamp`. Called by the code
    /// `#[derive(Component)]` generates; not for use elsewhere.
    ///
    /// # Safety
    /// `value` is the value of the row `stamp` was made for, and the item's holder holds that
    /// row exclusively for `'w` (see [`RowStamp::new`]).
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn from_stamp(value: &'w mut T, stamp: RowStamp<'w>) -> Self {
        Self { value, stamp, marked: false }
    }

    /// Records the row as changed without writing (bevy's `set_changed`). O(1).
    #[inline]
    pub fn set_changed(&mut self) {
        if !self.marked {
            self.marked = true;
            self.stamp.mark_row();
        }
    }

    /// The value, mutably, without recording a change (bevy's `bypass_change_detection`): for
    /// bookkeeping writes that `Changed<T>` readers must not react to.
    #[inline]
    pub fn bypass_change_detection(&mut self) -> &mut T {
        self.value
    }

    /// Overwrites the value with `value` only if they differ, recording the change only then
    /// (bevy's `DetectChangesMut::set_if_neq`); returns whether it wrote. O(1) plus one
    /// comparison.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Changed, Component, Entity, Mut, World};
    ///
    /// #[derive(Component, PartialEq)]
    /// #[component(track_changes)]
    /// struct Level(u32);
    ///
    /// let mut world = World::new();
    /// let same = world.spawn(Level(1));
    /// let raised = world.spawn(Level(2));
    /// world.clear_trackers();
    /// for mut level in world.query::<Mut<Level>>() {
    ///     level.set_if_neq(Level(2)); // writes only where the level is not 2 already
    /// }
    /// let changed: Vec<_> = world.query_filtered::<Entity, Changed<Level>>().into_iter().collect();
    /// assert_eq!(changed, [same]);
    /// # let _ = raised;
    /// ```
    #[inline]
    pub fn set_if_neq(&mut self, value: T) -> bool
    where
        T: PartialEq,
    {
        if *self.value == value {
            return false;
        }
        *self.value = value;
        self.set_changed();
        true
    }

    /// Whether the value changed (or was added) within the reader's window: since the system
    /// last ran, or since `World::clear_trackers` for a world-level query. `true` when `T`'s
    /// changes are not tracked, since then no change can be ruled out. O(1).
    #[inline]
    pub fn is_changed(&self) -> bool {
        self.stamp.is_changed()
    }

    /// Whether the value was added within the reader's window (see [`Mut::is_changed`]); `true`
    /// when `T`'s changes are not tracked. O(1).
    #[inline]
    pub fn is_added(&self) -> bool {
        self.stamp.is_added()
    }

    /// The `&mut T` inside for the item's whole lifetime, recording the change first (as one
    /// write through [`DerefMut`] would).
    #[inline]
    pub fn into_inner(mut self) -> &'w mut T {
        self.set_changed();
        self.value
    }
}

impl<T: MutableComponent> Deref for Mut<'_, T> {
    type Target = T;

    /// Reads the value; records nothing.
    #[inline(always)]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T: MutableComponent> DerefMut for Mut<'_, T> {
    /// Hands out the value for writing, recording the change (once per item).
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut T {
        self.set_changed();
        self.value
    }
}

impl<T: MutableComponent + std::fmt::Debug> std::fmt::Debug for Mut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Mut").field(&self.value).finish()
    }
}

/// The fetch of a [`Mut<T>`] term: `T`'s pool with its marker, and the reader's window.
#[doc(hidden)]
pub struct MutFetch<'w, T: MutableComponent> {
    pool: PoolFetchMut<'w, T>,
    ticks: Ticks,
}

impl<'w, T: MutableComponent> MutFetch<'w, T> {
    /// The item of pool row `row`.
    ///
    /// # Safety
    /// `row` is a row of `T`'s pool that the caller hands out exclusively for 'w.
    #[inline(always)]
    unsafe fn item(&self, row: usize) -> T::Tracked<'w> {
        // SAFETY: forwarded from the caller: the columns belong to `T`'s pool, which exists
        // since a row of it was found, nothing else touches `row` for 'w, and the stamp is made
        // for that row of that pool.
        unsafe {
            let stamp = RowStamp::new(self.pool.marker(), row, self.ticks);
            T::row_tracked(self.pool.columns(), row, stamp)
        }
    }
}

// SAFETY: reports its one write of `T`; `fetch` hands out only the row of `entity` in `T`'s
// pool, as `&mut T` does.
unsafe impl<T: MutableComponent> QueryData for Mut<'_, T> {
    type Item<'w> = T::Tracked<'w>;
    type Fetch<'w> = MutFetch<'w, T>;

    fn visit_access(visit: &mut dyn FnMut(ComponentAccess)) {
        <&mut T as QueryData>::visit_access(visit);
    }
    fn visit_filter(filter: &mut FilterSet) {
        <&mut T as QueryData>::visit_filter(filter);
    }
    fn visit_required<'w>(components: &'w Components, visit: &mut dyn FnMut(Option<&'w SparseSet>)) {
        <&mut T as QueryData>::visit_required(components, visit);
    }
    fn register_required(components: &mut Components, out: &mut dyn FnMut(ComponentId)) {
        <&mut T as QueryData>::register_required(components, out);
    }
    fn init_fetch<'w>(
        components: &'w Components,
        driver: Option<Driving<'w>>,
        ticks: Ticks,
    ) -> Self::Fetch<'w> {
        MutFetch { pool: <&mut T as QueryData>::init_fetch(components, driver, ticks), ticks }
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Option<T::Tracked<'w>> {
        let row = fetch.pool.row(entity, row)?;
        // SAFETY: `row` is a pool row, not otherwise touched for 'w: the query holds the world
        // exclusively, its access set has no other access to `T` (aliasing check), and each
        // entity's row is handed out once per borrow (caller).
        Some(unsafe { fetch.item(row) })
    }
    #[inline(always)]
    fn matches(fetch: &Self::Fetch<'_>, entity: Entity, row: usize) -> bool {
        fetch.pool.row(entity, row).is_some()
    }
    #[inline(always)]
    fn aligned_rows(fetch: &Self::Fetch<'_>) -> usize {
        <&mut T as QueryData>::aligned_rows(&fetch.pool)
    }
    #[inline(always)]
    unsafe fn fetch_aligned<'w>(fetch: &Self::Fetch<'w>, _: Entity, row: usize) -> T::Tracked<'w> {
        // SAFETY: as in `fetch`; `row < aligned` (caller), so `row + offset` is a pool row.
        unsafe { fetch.item(row + fetch.pool.offset) }
    }
    // `marks_changes` stays `false`: handing an item out records nothing; its first write does.
}

// SAFETY: reports its one write of `T`, like `Option<&mut T>`; `fetch` hands out only the row of
// `entity` in `T`'s pool, or `None` when it has no `T`.
unsafe impl<T: MutableComponent> QueryData for Option<Mut<'_, T>> {
    type Item<'w> = Option<T::Tracked<'w>>;
    type Fetch<'w> = MutFetch<'w, T>;

    fn visit_access(visit: &mut dyn FnMut(ComponentAccess)) {
        <Option<&mut T> as QueryData>::visit_access(visit);
    }
    fn visit_required<'w>(_: &'w Components, _: &mut dyn FnMut(Option<&'w SparseSet>)) {}
    fn register_required(_: &mut Components, _: &mut dyn FnMut(ComponentId)) {}
    fn init_fetch<'w>(
        components: &'w Components,
        driver: Option<Driving<'w>>,
        ticks: Ticks,
    ) -> Self::Fetch<'w> {
        <Mut<'_, T> as QueryData>::init_fetch(components, driver, ticks)
    }
    #[inline(always)]
    unsafe fn fetch<'w>(
        fetch: &Self::Fetch<'w>,
        entity: Entity,
        row: usize,
    ) -> Option<Option<T::Tracked<'w>>> {
        // SAFETY: forwarded from the caller.
        Some(unsafe { <Mut<'_, T> as QueryData>::fetch(fetch, entity, row) })
    }
    fn matches(_: &Self::Fetch<'_>, _: Entity, _: usize) -> bool {
        true
    }
    fn aligned_rows(_: &Self::Fetch<'_>) -> usize {
        usize::MAX
    }
    #[inline(always)]
    unsafe fn fetch_aligned<'w>(
        fetch: &Self::Fetch<'w>,
        entity: Entity,
        row: usize,
    ) -> Option<T::Tracked<'w>> {
        // SAFETY: forwarded from the caller; an optional term checks presence itself.
        unsafe { <Mut<'_, T> as QueryData>::fetch(fetch, entity, row) }
    }
}
