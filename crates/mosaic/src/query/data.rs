//! What a query item holds: the [`QueryData`] trait and its implementations.

use std::marker::PhantomData;

use super::access::{ComponentAccess, FilterSet};
use crate::component::{Component, ComponentId, Components, MutableComponent};
use crate::entity::Entity;
use crate::storage::{ChangeMarker, RowLookup, SparseSet, Ticks};
use crate::world::{Groups, OwningGroup};

/// A type that can be fetched for each entity a query visits: `&T`, `&mut T`, `Option<&T>`,
/// `Option<&mut T>`, [`Has<T>`], [`Entity`], or a tuple of up to 16 of these; or a struct or
/// enum with `#[derive(QueryData)]` (an enum's item is its first variant whose terms all match,
/// as hecs' enum queries).
///
/// The hidden methods are the query engine's protocol; user code names these types, it does not
/// implement the trait.
///
/// # Examples
/// ```
/// use mosaic::{Component, QueryData, World};
///
/// #[derive(Component)]
/// struct Radius(f32);
/// #[derive(Component)]
/// struct Side(f32);
///
/// #[derive(QueryData)]
/// enum Shape<'w> {
///     Circle(&'w Radius),
///     Square { side: &'w Side },
/// }
///
/// let mut world = World::new();
/// world.spawn(Radius(1.0));
/// world.spawn(Side(2.0));
/// world.spawn(()); // neither: not yielded
/// let area: f32 = world
///     .query::<Shape>()
///     .iter()
///     .map(|shape| match shape {
///         Shape::Circle(r) => 3.0 * r.0 * r.0,
///         Shape::Square { side } => side.0 * side.0,
///     })
///     .sum();
/// assert_eq!(area, 7.0);
/// assert_eq!(world.query::<Shape>().count(), 2);
/// ```
///
/// # Safety
/// An implementation must report through `visit_access` every component it reads or writes, with
/// `write == true` for each one `fetch` hands out mutably, and `fetch` must only hand out
/// references to the row it is given or looks up for `entity` in the pools it reported. The query
/// engine relies on this to rule out aliasing `&mut`.
pub unsafe trait QueryData {
    /// The item yielded per entity, e.g. `(&'w Position, &'w mut Velocity)`.
    type Item<'w>;
    #[doc(hidden)]
    type Fetch<'w>;

    #[doc(hidden)]
    fn visit_access(visit: &mut dyn FnMut(ComponentAccess));

    /// Reports the type of every component the data names in any way (fetched, optional,
    /// [`Has`]): a query that names a disabling component ([`Disabled`](crate::Disabled)) sees
    /// the entities it disables. The default reports the types of `visit_access`; terms that
    /// name a type without accessing it ([`Has`]) and compound terms override it.
    #[doc(hidden)]
    fn visit_mentioned(visit: &mut dyn FnMut(std::any::TypeId)) {
        Self::visit_access(&mut |access| visit(access.type_id));
    }

    /// Adds to `filter` the components every item's entity has (those fetched as `&T` or
    /// `&mut T`), for the scheduler's disjointness test. The default adds nothing, which is
    /// always sound (only less parallel).
    #[doc(hidden)]
    fn visit_filter(_filter: &mut FilterSet) {}

    /// Reports the pool of each component an entity must have (`None` if the type was never
    /// registered, so no entity has it).
    #[doc(hidden)]
    fn visit_required<'w>(components: &'w Components, visit: &mut dyn FnMut(Option<&'w SparseSet>));

    /// Registers the required component types and reports their ids (for watches).
    #[doc(hidden)]
    fn register_required(components: &mut Components, out: &mut dyn FnMut(ComponentId));

    /// Captures the pools. `driver` is the pool (and group) whose rows the iteration walks, if
    /// any; `ticks` the reader's change window (mutable terms stamp rows with `ticks.this_run`).
    #[doc(hidden)]
    fn init_fetch<'w>(
        components: &'w Components,
        driver: Option<Driving<'w>>,
        ticks: Ticks,
    ) -> Self::Fetch<'w>;

    /// The item of `entity`, or `None` if it lacks a required component.
    ///
    /// # Safety
    /// - `fetch` was made from the world's components, which have not been mutated since;
    /// - `entity` is alive; if the fetch has a driver, `row` is `entity`'s row in it;
    /// - no item handed out earlier for the same entity from a fetch with mutable access is still
    ///   in use (each entity is fetched at most once per borrow of the query).
    #[doc(hidden)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Option<Self::Item<'w>>;

    /// Whether [`QueryData::fetch`] would return an item for `entity` at driver row `row` (as
    /// there), found by presence checks alone: nothing is handed out, no change is stamped.
    /// Writing tuples ask it before fetching, so a member that marks rows changed never marks
    /// one whose entity a later member refuses.
    #[doc(hidden)]
    fn matches(fetch: &Self::Fetch<'_>, entity: Entity, row: usize) -> bool;

    /// [`QueryData::fetch`] without a writing tuple's guard (the default is `fetch` itself): for
    /// an entity [`QueryData::matches`] accepted, or when [`QueryData::marks_changes`] is
    /// `false` (then a refused entity is stamped nowhere). Hot loops that checked
    /// `marks_changes` once call it.
    ///
    /// # Safety
    /// As [`QueryData::fetch`]; and `marks_changes(fetch)` is `false` or `matches` accepted
    /// `entity` (else a term may stamp a row the item is not made for: wrong, not unsound).
    #[doc(hidden)]
    #[inline(always)]
    unsafe fn fetch_matched<'w>(
        fetch: &Self::Fetch<'w>,
        entity: Entity,
        row: usize,
    ) -> Option<Self::Item<'w>> {
        // SAFETY: forwarded from the caller.
        unsafe { Self::fetch(fetch, entity, row) }
    }

    /// Whether `fetch` can refuse an entity that has every required component (an enum query:
    /// no variant's components present). `count`, `contains` and size hints then check each
    /// entity with [`QueryData::matches`] instead of trusting the required pools, and watches
    /// refuse the query.
    #[doc(hidden)]
    const SELECTIVE: bool = false;

    /// Driver rows `0..n` that every required pool holds at a fixed offset, so
    /// [`QueryData::fetch_aligned`] applies (`usize::MAX` when nothing constrains it).
    #[doc(hidden)]
    fn aligned_rows(fetch: &Self::Fetch<'_>) -> usize;

    /// The item at driver row `row`, without lookups or a match check.
    ///
    /// # Safety
    /// As [`QueryData::fetch`], and `row < aligned_rows(fetch)` (so the entity has every required
    /// component).
    #[doc(hidden)]
    unsafe fn fetch_aligned<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Self::Item<'w>;

    /// Whether fetching stamps change ticks (a mutable term on a pool whose changes are
    /// tracked). Hot loops test it once and call [`QueryData::fetch_aligned_unmarked`] when it is
    /// `false`, so untracked components keep a branch-free loop.
    #[doc(hidden)]
    #[inline(always)]
    fn marks_changes(_fetch: &Self::Fetch<'_>) -> bool {
        false
    }

    /// [`QueryData::fetch_aligned`] without change stamping.
    ///
    /// # Safety
    /// As [`QueryData::fetch_aligned`], and `marks_changes(fetch)` is `false`.
    #[doc(hidden)]
    #[inline(always)]
    unsafe fn fetch_aligned_unmarked<'w>(
        fetch: &Self::Fetch<'w>,
        entity: Entity,
        row: usize,
    ) -> Self::Item<'w> {
        // SAFETY: forwarded from the caller.
        unsafe { Self::fetch_aligned(fetch, entity, row) }
    }
}

/// A [`QueryData`] that only reads, so it can be fetched through `&World`
/// ([`World::query_ref`](crate::World::query_ref)).
///
/// # Safety
/// `QueryData::visit_access` of the implementor reports no write.
pub unsafe trait ReadOnlyQueryData: QueryData {}

/// The pool whose rows a query walks, and the group whose rows it walks, if one matched.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Driving<'w> {
    pub(crate) pool: &'w SparseSet,
    /// `(len, owned)`: the walk is limited to rows `0..len`, which every pool of a component in
    /// `owned` holds in the same order (an owning group).
    pub(crate) group: Option<(usize, &'w [ComponentId])>,
    /// The world's groups, when the walk is not limited to one (`group` is `None`): a fetched
    /// pool owned by a group that also owns the driving pool lines up with it over that group's
    /// rows without a scan.
    pub(crate) groups: Option<&'w Groups>,
}

impl<'w> Driving<'w> {
    /// How many leading rows of `T`'s pool (`id`) are known to hold the driving pool's entities
    /// in the same order: the length of the outermost owning group that owns both (0 if none).
    /// O(g * c) for the g groups owning `T` and their c owned types: a few comparisons.
    fn known_aligned(&self, components: &Components, id: ComponentId) -> usize {
        let Some(groups) = self.groups else { return 0 };
        let owns_driver =
            |g: &OwningGroup| g.owned.iter().any(|&o| std::ptr::eq(components.pool(o), self.pool));
        // The chain runs from the outermost group (most rows) inward.
        groups
            .chain(id)
            .iter()
            .map(|&g| &groups.owning[g as usize])
            .find(|g| owns_driver(g))
            .map_or(0, |g| g.len)
    }

    /// The entities walked, in row order.
    #[inline]
    pub(crate) fn rows(&self) -> &'w [Entity] {
        let all = self.pool.entities();
        match self.group {
            Some((len, _)) => &all[..len],
            None => all,
        }
    }
}

/// The pool of one component, captured for a query.
#[doc(hidden)]
pub struct PoolFetch<'w, T: Component> {
    lookup: Option<RowLookup<'w>>,
    columns: Option<T::Columns<'w>>,
    /// Driver rows `r < aligned` hold this pool's row `r + offset`: no lookup needed.
    pub(crate) offset: usize,
    aligned: usize,
    /// The pool is not lazily cleaned, so a live entity's sparse entry is its row (no dense
    /// check; see `RowLookup::row_of_alive`).
    eager: bool,
    _marker: PhantomData<&'w T>,
}

/// The pool of one component captured for a mutable term: the shared fetch, and the stamp of
/// rows handed out when `T`'s changes are tracked. A type of its own so read terms keep the small
/// fetch. `Copy`-like, no `Drop`: a fetch with drop glue has its address taken by the drop, and
/// the compiler then reloads its fields in hot loops (measured: `for_each` over 10,000 untracked
/// rows 5.6 -> 9.6 us).
#[doc(hidden)]
pub struct PoolFetchMut<'w, T: Component> {
    pool: PoolFetch<'w, T>,
    marker: Option<ChangeMarker<'w>>,
}

impl<'w, T: Component> std::ops::Deref for PoolFetchMut<'w, T> {
    type Target = PoolFetch<'w, T>;
    #[inline(always)]
    fn deref(&self) -> &PoolFetch<'w, T> {
        &self.pool
    }
}

impl<'w, T: Component> PoolFetchMut<'w, T> {
    /// The fetch of `T`'s pool, stamping every row it hands out with `ticks.this_run` if `T`'s
    /// changes are tracked.
    #[inline]
    fn new(components: &'w Components, driver: Option<Driving<'w>>, ticks: Ticks) -> Self {
        let marker = components.pool_of::<T>().and_then(|pool| Some(pool.changes()?.marker(ticks.this_run)));
        Self { pool: PoolFetch::new(components, driver), marker }
    }

    /// The stamp of `T`'s pool at the reader's tick, when `T` is tracked.
    #[inline(always)]
    pub(crate) fn marker(&self) -> Option<ChangeMarker<'w>> {
        self.marker
    }

    /// Whether rows handed out are stamped.
    #[inline(always)]
    pub(crate) fn is_marking(&self) -> bool {
        self.marker.is_some()
    }

    /// Records that pool row `row` is handed out mutably.
    ///
    /// # Safety
    /// `row` is a row of `T`'s pool, and the caller hands it out exclusively (no other thread
    /// touches the row while this runs).
    #[inline(always)]
    pub(crate) unsafe fn mark(&self, row: usize) {
        if let Some(marker) = self.marker {
            // SAFETY: forwarded from the caller.
            unsafe { marker.mark(row) };
        }
    }
}

impl<'w, T: Component> PoolFetch<'w, T> {
    #[inline]
    fn new(components: &'w Components, driver: Option<Driving<'w>>) -> Self {
        let pool = components.pool_of::<T>();
        let (offset, aligned) = match (pool, driver) {
            (Some(pool), Some(driver)) if std::ptr::eq(pool, driver.pool) => (0, usize::MAX),
            (Some(_), Some(Driving { group: Some((len, owned)), .. }))
                if components.id::<T>().is_some_and(|id| owned.contains(&id)) =>
            {
                (0, len)
            }
            (Some(pool), Some(driver)) => {
                let known = components.id::<T>().map_or(0, |id| driver.known_aligned(components, id));
                super::alignment::aligned_from(pool, driver.pool, known)
            }
            _ => (0, 0),
        };
        Self {
            lookup: pool.map(SparseSet::lookup),
            columns: pool.map(T::columns),
            offset,
            aligned,
            eager: pool.is_some_and(|pool| !pool.is_lazy()),
            _marker: PhantomData,
        }
    }

    /// The pool row of `entity`, whose driver row is `row`, if it has a `T`.
    ///
    /// `entity` must be alive in the world the fetch was made from (every fetch's contract):
    /// in a pool that is not lazily cleaned its sparse entry is then its row, with no dense check.
    #[inline(always)]
    pub(crate) fn row(&self, entity: Entity, row: usize) -> Option<usize> {
        if row < self.aligned {
            Some(row + self.offset)
        } else if self.eager {
            self.lookup?.row_of_alive(entity)
        } else {
            self.lookup?.row_of(entity)
        }
    }

    /// The captured columns; present whenever a row was found.
    #[inline(always)]
    pub(crate) fn columns(&self) -> T::Columns<'w> {
        self.columns.expect("rows exist only in a registered pool")
    }

    /// The captured columns, for aligned rows.
    ///
    /// # Safety
    /// `aligned > 0`, which `new` only sets when the pool exists (so the columns were captured).
    #[inline(always)]
    pub(crate) unsafe fn aligned_columns(&self) -> T::Columns<'w> {
        debug_assert!(self.columns.is_some() && self.aligned > 0);
        // SAFETY: `aligned > 0` implies a pool, whose columns `new` captured (caller).
        unsafe { self.columns.unwrap_unchecked() }
    }
}

// SAFETY: reports its one read; `fetch` reads only the row of `entity` in `T`'s pool.
unsafe impl<T: Component> QueryData for &T {
    type Item<'w> = T::Ref<'w>;
    type Fetch<'w> = PoolFetch<'w, T>;

    fn visit_access(visit: &mut dyn FnMut(ComponentAccess)) {
        visit(ComponentAccess::of::<T>(false));
    }
    fn visit_filter(filter: &mut FilterSet) {
        // SAFETY: `fetch` and `fetch_aligned` hand out an item only for an entity in `T`'s pool
        // (the lookup fails otherwise; aligned rows are pool rows), and chunks only over rows
        // of that pool.
        unsafe { filter.add_with_unchecked(std::any::TypeId::of::<T>()) };
    }
    fn visit_required<'w>(components: &'w Components, visit: &mut dyn FnMut(Option<&'w SparseSet>)) {
        visit(components.pool_of::<T>());
    }
    fn register_required(components: &mut Components, out: &mut dyn FnMut(ComponentId)) {
        out(components.register::<T>());
    }
    fn init_fetch<'w>(components: &'w Components, driver: Option<Driving<'w>>, _: Ticks) -> Self::Fetch<'w> {
        PoolFetch::new(components, driver)
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Option<T::Ref<'w>> {
        let row = fetch.row(entity, row)?;
        // SAFETY: `row` is a row of the pool (from `row_of`, or an aligned driver row the caller
        // vouches for), which is not mutated for 'w (caller); no `&mut` to it exists since the
        // query's access set has no write of `T` besides this read (aliasing check).
        Some(unsafe { T::row_ref(fetch.columns(), row) })
    }
    #[inline(always)]
    fn matches(fetch: &Self::Fetch<'_>, entity: Entity, row: usize) -> bool {
        fetch.row(entity, row).is_some()
    }
    #[inline(always)]
    fn aligned_rows(fetch: &Self::Fetch<'_>) -> usize {
        fetch.aligned
    }
    #[inline(always)]
    unsafe fn fetch_aligned<'w>(fetch: &Self::Fetch<'w>, _: Entity, row: usize) -> T::Ref<'w> {
        // SAFETY: as in `fetch`; `row < aligned` (caller), so the pool exists and `row + offset`
        // is one of its rows.
        unsafe { T::row_ref(fetch.aligned_columns(), row + fetch.offset) }
    }
}

// SAFETY: read-only.
unsafe impl<T: Component> ReadOnlyQueryData for &T {}

// SAFETY: reports its one write; `fetch` hands out only the row of `entity` in `T`'s pool.
unsafe impl<T: MutableComponent> QueryData for &mut T {
    type Item<'w> = T::Mut<'w>;
    type Fetch<'w> = PoolFetchMut<'w, T>;

    fn visit_access(visit: &mut dyn FnMut(ComponentAccess)) {
        visit(ComponentAccess::of::<T>(true));
    }
    fn visit_filter(filter: &mut FilterSet) {
        // SAFETY: `fetch` and `fetch_aligned` hand out an item only for an entity in `T`'s pool
        // (the lookup fails otherwise; aligned rows are pool rows), and chunks only over rows
        // of that pool.
        unsafe { filter.add_with_unchecked(std::any::TypeId::of::<T>()) };
    }
    fn visit_required<'w>(components: &'w Components, visit: &mut dyn FnMut(Option<&'w SparseSet>)) {
        visit(components.pool_of::<T>());
    }
    fn register_required(components: &mut Components, out: &mut dyn FnMut(ComponentId)) {
        out(components.register::<T>());
    }
    fn init_fetch<'w>(
        components: &'w Components,
        driver: Option<Driving<'w>>,
        ticks: Ticks,
    ) -> Self::Fetch<'w> {
        PoolFetchMut::new(components, driver, ticks)
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Option<T::Mut<'w>> {
        let row = fetch.row(entity, row)?;
        // SAFETY: `row` is a pool row, not otherwise touched for 'w: the query holds the world
        // exclusively, its access set has no other access to `T` (aliasing check), and each
        // entity's row is handed out once per borrow (caller). The same holds for its ticks.
        unsafe {
            fetch.mark(row);
            Some(T::row_mut(fetch.columns(), row))
        }
    }
    #[inline(always)]
    fn matches(fetch: &Self::Fetch<'_>, entity: Entity, row: usize) -> bool {
        fetch.row(entity, row).is_some()
    }
    #[inline(always)]
    fn aligned_rows(fetch: &Self::Fetch<'_>) -> usize {
        fetch.aligned
    }
    #[inline(always)]
    unsafe fn fetch_aligned<'w>(fetch: &Self::Fetch<'w>, _: Entity, row: usize) -> T::Mut<'w> {
        // SAFETY: as in `fetch`; `row < aligned` (caller), so the pool exists and `row + offset`
        // is one of its rows, handed out once.
        unsafe {
            fetch.mark(row + fetch.offset);
            T::row_mut(fetch.aligned_columns(), row + fetch.offset)
        }
    }
    #[inline(always)]
    fn marks_changes(fetch: &Self::Fetch<'_>) -> bool {
        fetch.is_marking()
    }
    #[inline(always)]
    unsafe fn fetch_aligned_unmarked<'w>(fetch: &Self::Fetch<'w>, _: Entity, row: usize) -> T::Mut<'w> {
        // SAFETY: as `fetch_aligned`; the pool is not tracked (caller), so there is nothing to
        // stamp.
        unsafe { T::row_mut(fetch.aligned_columns(), row + fetch.offset) }
    }
}

// SAFETY: same access and fetch as `&T`, but nothing is required.
unsafe impl<T: Component> QueryData for Option<&T> {
    type Item<'w> = Option<T::Ref<'w>>;
    type Fetch<'w> = PoolFetch<'w, T>;

    fn visit_access(visit: &mut dyn FnMut(ComponentAccess)) {
        visit(ComponentAccess::of::<T>(false));
    }
    fn visit_required<'w>(_: &'w Components, _: &mut dyn FnMut(Option<&'w SparseSet>)) {}
    fn register_required(_: &mut Components, _: &mut dyn FnMut(ComponentId)) {}
    fn init_fetch<'w>(components: &'w Components, driver: Option<Driving<'w>>, _: Ticks) -> Self::Fetch<'w> {
        PoolFetch::new(components, driver)
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Option<Option<T::Ref<'w>>> {
        // SAFETY: forwarded from the caller.
        Some(unsafe { <&T>::fetch(fetch, entity, row) })
    }
    fn matches(_: &Self::Fetch<'_>, _: Entity, _: usize) -> bool {
        true
    }
    fn aligned_rows(_: &Self::Fetch<'_>) -> usize {
        usize::MAX
    }
    #[inline(always)]
    unsafe fn fetch_aligned<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Option<T::Ref<'w>> {
        // SAFETY: forwarded from the caller; an optional term checks presence itself.
        unsafe { <&T>::fetch(fetch, entity, row) }
    }
}

// SAFETY: read-only.
unsafe impl<T: Component> ReadOnlyQueryData for Option<&T> {}

// SAFETY: same access and fetch as `&mut T`, but nothing is required.
unsafe impl<T: MutableComponent> QueryData for Option<&mut T> {
    type Item<'w> = Option<T::Mut<'w>>;
    type Fetch<'w> = PoolFetchMut<'w, T>;

    fn visit_access(visit: &mut dyn FnMut(ComponentAccess)) {
        visit(ComponentAccess::of::<T>(true));
    }
    fn visit_required<'w>(_: &'w Components, _: &mut dyn FnMut(Option<&'w SparseSet>)) {}
    fn register_required(_: &mut Components, _: &mut dyn FnMut(ComponentId)) {}
    fn init_fetch<'w>(
        components: &'w Components,
        driver: Option<Driving<'w>>,
        ticks: Ticks,
    ) -> Self::Fetch<'w> {
        PoolFetchMut::new(components, driver, ticks)
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Option<Option<T::Mut<'w>>> {
        // SAFETY: forwarded from the caller.
        Some(unsafe { <&mut T>::fetch(fetch, entity, row) })
    }
    #[inline(always)]
    fn marks_changes(fetch: &Self::Fetch<'_>) -> bool {
        fetch.is_marking()
    }
    fn matches(_: &Self::Fetch<'_>, _: Entity, _: usize) -> bool {
        true
    }
    fn aligned_rows(_: &Self::Fetch<'_>) -> usize {
        usize::MAX
    }
    #[inline(always)]
    unsafe fn fetch_aligned<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Option<T::Mut<'w>> {
        // SAFETY: forwarded from the caller; an optional term checks presence itself.
        unsafe { <&mut T>::fetch(fetch, entity, row) }
    }
}

// SAFETY: accesses no component.
unsafe impl QueryData for Entity {
    type Item<'w> = Entity;
    type Fetch<'w> = ();

    fn visit_access(_: &mut dyn FnMut(ComponentAccess)) {}
    fn visit_required<'w>(_: &'w Components, _: &mut dyn FnMut(Option<&'w SparseSet>)) {}
    fn register_required(_: &mut Components, _: &mut dyn FnMut(ComponentId)) {}
    fn init_fetch<'w>(_: &'w Components, _: Option<Driving<'w>>, _: Ticks) -> Self::Fetch<'w> {}
    #[inline(always)]
    unsafe fn fetch<'w>(_: &Self::Fetch<'w>, entity: Entity, _: usize) -> Option<Self::Item<'w>> {
        Some(entity)
    }
    fn matches(_: &Self::Fetch<'_>, _: Entity, _: usize) -> bool {
        true
    }
    fn aligned_rows(_: &Self::Fetch<'_>) -> usize {
        usize::MAX
    }
    #[inline(always)]
    unsafe fn fetch_aligned<'w>(_: &Self::Fetch<'w>, entity: Entity, _: usize) -> Self::Item<'w> {
        entity
    }
}

// SAFETY: read-only.
unsafe impl ReadOnlyQueryData for Entity {}

/// Query term: whether the entity has a `T`, as a `bool`, without fetching it or requiring it
/// (bevy's `Has`). Declares no access to `T`'s values, so it can sit beside `&mut T` in one query
/// or in systems that write `T`. O(1) per entity.
///
/// # Examples
/// ```
/// use mosaic::{Component, Has, World};
///
/// #[derive(Component)] struct Hull(u32);
/// #[derive(Component)] struct Shield;
///
/// let mut world = World::new();
/// world.spawn((Hull(10), Shield));
/// world.spawn(Hull(10));
/// for (hull, shielded) in world.query::<(&mut Hull, Has<Shield>)>() {
///     hull.0 -= if shielded { 1 } else { 5 };
/// }
/// let mut hulls: Vec<u32> = world.query::<&Hull>().into_iter().map(|h| h.0).collect();
/// hulls.sort();
/// assert_eq!(hulls, [5, 9]);
/// ```
pub struct Has<T>(PhantomData<fn() -> T>);

// SAFETY: reads no component value (only the pool's index, which no query or system mutates
// while the world is borrowed), so it reports no access; `fetch` hands out a `bool`.
unsafe impl<T: Component> QueryData for Has<T> {
    type Item<'w> = bool;
    type Fetch<'w> = Option<RowLookup<'w>>;

    fn visit_access(_: &mut dyn FnMut(ComponentAccess)) {}
    fn visit_mentioned(visit: &mut dyn FnMut(std::any::TypeId)) {
        visit(std::any::TypeId::of::<T>());
    }
    fn visit_required<'w>(_: &'w Components, _: &mut dyn FnMut(Option<&'w SparseSet>)) {}
    fn register_required(_: &mut Components, _: &mut dyn FnMut(ComponentId)) {}
    fn init_fetch<'w>(components: &'w Components, _: Option<Driving<'w>>, _: Ticks) -> Self::Fetch<'w> {
        components.pool_of::<T>().map(SparseSet::lookup)
    }
    #[inline(always)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, entity: Entity, _: usize) -> Option<Self::Item<'w>> {
        Some(fetch.is_some_and(|lookup| lookup.row_of(entity).is_some()))
    }
    fn matches(_: &Self::Fetch<'_>, _: Entity, _: usize) -> bool {
        true
    }
    fn aligned_rows(_: &Self::Fetch<'_>) -> usize {
        usize::MAX
    }
    #[inline(always)]
    unsafe fn fetch_aligned<'w>(fetch: &Self::Fetch<'w>, entity: Entity, _: usize) -> Self::Item<'w> {
        fetch.is_some_and(|lookup| lookup.row_of(entity).is_some())
    }
}

// SAFETY: read-only.
unsafe impl<T: Component> ReadOnlyQueryData for Has<T> {}

macro_rules! tuple_data {
    ($($name:ident),*) => {
        // SAFETY: reports the union of its members' accesses and fetches only through them.
        unsafe impl<$($name: QueryData),*> QueryData for ($($name,)*) {
            type Item<'w> = ($($name::Item<'w>,)*);
            type Fetch<'w> = ($($name::Fetch<'w>,)*);

            #[allow(unused_variables)]
            fn visit_access(visit: &mut dyn FnMut(ComponentAccess)) {
                $($name::visit_access(visit);)*
            }
            #[allow(unused_variables)]
            fn visit_mentioned(visit: &mut dyn FnMut(std::any::TypeId)) {
                $($name::visit_mentioned(visit);)*
            }
            #[allow(unused_variables)]
            fn visit_filter(filter: &mut FilterSet) {
                $($name::visit_filter(filter);)*
            }
            #[allow(unused_variables)]
            fn visit_required<'w>(components: &'w Components, visit: &mut dyn FnMut(Option<&'w SparseSet>)) {
                $($name::visit_required(components, visit);)*
            }
            #[allow(unused_variables)]
            fn register_required(components: &mut Components, out: &mut dyn FnMut(ComponentId)) {
                $($name::register_required(components, out);)*
            }
            #[allow(unused_variables, clippy::unused_unit)]
            fn init_fetch<'w>(components: &'w Components, driver: Option<Driving<'w>>, ticks: Ticks) -> Self::Fetch<'w> {
                ($($name::init_fetch(components, driver, ticks),)*)
            }
            #[inline(always)]
            #[allow(unused_variables, non_snake_case, clippy::unused_unit)]
            unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Option<Self::Item<'w>> {
                // A member that stamps changes must not stamp an entity a later member refuses.
                // Loops that know nothing stamps call `fetch_matched` and skip this test.
                if Self::marks_changes(fetch) && !Self::matches(fetch, entity, row) {
                    return None;
                }
                let ($($name,)*) = fetch;
                // SAFETY: forwarded from the caller to each member; no member stamps, or every
                // one matches. (Written out rather than calling `fetch_matched`: the call, though
                // inlined, cost simple_iter_for's `for` loop 12% more instructions.)
                Some(($(unsafe { $name::fetch($name, entity, row) }?,)*))
            }
            #[inline(always)]
            #[allow(unused_variables, non_snake_case, clippy::unused_unit)]
            unsafe fn fetch_matched<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Option<Self::Item<'w>> {
                let ($($name,)*) = fetch;
                // SAFETY: forwarded from the caller to each member.
                Some(($(unsafe { $name::fetch($name, entity, row) }?,)*))
            }
            #[inline(always)]
            #[allow(unused_variables, non_snake_case)]
            fn matches(fetch: &Self::Fetch<'_>, entity: Entity, row: usize) -> bool {
                let ($($name,)*) = fetch;
                true $(&& $name::matches($name, entity, row))*
            }
            const SELECTIVE: bool = false $(|| $name::SELECTIVE)*;
            #[inline(always)]
            #[allow(unused_variables, non_snake_case)]
            fn aligned_rows(fetch: &Self::Fetch<'_>) -> usize {
                let ($($name,)*) = fetch;
                usize::MAX $(.min($name::aligned_rows($name)))*
            }
            #[inline(always)]
            #[allow(unused_variables, non_snake_case, clippy::unused_unit)]
            unsafe fn fetch_aligned<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Self::Item<'w> {
                let ($($name,)*) = fetch;
                // SAFETY: forwarded from the caller to each member.
                ($(unsafe { $name::fetch_aligned($name, entity, row) },)*)
            }
            #[inline(always)]
            #[allow(unused_variables, non_snake_case)]
            fn marks_changes(fetch: &Self::Fetch<'_>) -> bool {
                let ($($name,)*) = fetch;
                false $(|| $name::marks_changes($name))*
            }
            #[inline(always)]
            #[allow(unused_variables, non_snake_case, clippy::unused_unit)]
            unsafe fn fetch_aligned_unmarked<'w>(fetch: &Self::Fetch<'w>, entity: Entity, row: usize) -> Self::Item<'w> {
                let ($($name,)*) = fetch;
                // SAFETY: forwarded from the caller to each member (none marks: caller).
                ($(unsafe { $name::fetch_aligned_unmarked($name, entity, row) },)*)
            }
        }

        // SAFETY: every member is read-only.
        unsafe impl<$($name: ReadOnlyQueryData),*> ReadOnlyQueryData for ($($name,)*) {}
    };
}

crate::macros::all_tuples!(tuple_data);
