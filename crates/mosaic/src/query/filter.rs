//! Query filters: [`With`], [`Without`], [`Or`], [`Allow`], and tuples of filters.

use std::marker::PhantomData;

use super::access::FilterSet;
use crate::component::{Component, ComponentId, Components};
use crate::entity::Entity;
use crate::storage::{SparseSet, Ticks};

/// A condition on the components an entity has, beside what the query fetches: [`With`],
/// [`Without`], [`Or`] (any of a tuple), `()` (no condition), or a tuple of up to 16 filters (all
/// must hold).
///
/// The hidden methods are the query engine's protocol; user code names these types.
pub trait QueryFilter {
    #[doc(hidden)]
    type Fetch<'w>;
    /// Whether the filter passes every entity (`()` and tuples of `()`): iteration then skips it.
    #[doc(hidden)]
    const TRIVIAL: bool = false;
    /// Reports the pool of each component an entity must have (`None` if never registered).
    #[doc(hidden)]
    fn visit_required<'w>(components: &'w Components, visit: &mut dyn FnMut(Option<&'w SparseSet>));
    /// Registers the component types the filter names and reports their ids: those an entity
    /// must have to `required`, those it must not have to `excluded` (for watches).
    #[doc(hidden)]
    fn register_ids(
        components: &mut Components,
        required: &mut dyn FnMut(ComponentId),
        excluded: &mut dyn FnMut(ComponentId),
    );
    /// Adds to `filter` the components the filter requires and excludes, for the scheduler's
    /// disjointness test. The default adds nothing, which is always sound (only less parallel).
    #[doc(hidden)]
    fn visit_filter(_filter: &mut FilterSet) {}
    #[doc(hidden)]
    fn init_fetch(components: &Components, ticks: Ticks) -> Self::Fetch<'_>;
    /// Reports the component reads the filter makes (the change ticks [`Added`](crate::Added) and
    /// [`Changed`](crate::Changed) read), for the scheduler; the default reports none.
    #[doc(hidden)]
    fn visit_access(_visit: &mut dyn FnMut(super::access::ComponentAccess)) {}
    /// Reports the type of every component the filter names (`With`, `Without`, change
    /// filters): a query that names a disabling component ([`Disabled`](crate::Disabled)) sees
    /// the entities it disables. The default reports the types of `visit_access`.
    #[doc(hidden)]
    fn visit_mentioned(visit: &mut dyn FnMut(std::any::TypeId)) {
        Self::visit_access(&mut |access| visit(access.type_id));
    }
    /// Checks that the components whose changes the filter reads ([`Added`](crate::Added),
    /// [`Changed`](crate::Changed)) are tracked, panicking with how to track them otherwise; the
    /// default checks nothing.
    #[doc(hidden)]
    #[track_caller]
    fn check_tracked(_components: &Components) {}
    /// A tracked pool whose change log lists every entity that can pass the filter (`Added<T>`
    /// or `Changed<T>`, alone or in a tuple), for queries to walk instead of a whole pool.
    #[doc(hidden)]
    fn change_driver(_components: &Components) -> Option<&SparseSet> {
        None
    }
    /// Whether every entity a walk of [`QueryFilter::change_driver`]'s log confirms (its
    /// latest change is in the reader's window) passes the filter, so the walk need not test it
    /// again: `Changed<T>` alone. `false` is always sound.
    #[doc(hidden)]
    const PASSED_BY_CHANGE_WALK: bool = false;
    /// Whether live `entity` passes the filter.
    #[doc(hidden)]
    fn matches(fetch: &Self::Fetch<'_>, entity: Entity) -> bool;
    /// [`QueryFilter::matches`] for `entity` at row `row` of the pool whose entities are
    /// `driver`: terms on that pool may read the row instead of looking it up.
    #[doc(hidden)]
    #[inline(always)]
    fn matches_at(fetch: &Self::Fetch<'_>, entity: Entity, _driver: &[Entity], _row: usize) -> bool {
        Self::matches(fetch, entity)
    }
    /// A pool that holds every entity the filter passes (`With<T>`'s pool; the smallest such
    /// pool of a tuple), so a walk may visit its entities instead of testing every row of the
    /// driver: `None` when the filter names none (`()`, `Without`, `Or`, change filters).
    #[doc(hidden)]
    #[inline(always)]
    fn walk_pool<'w>(_fetch: &Self::Fetch<'w>) -> Option<&'w SparseSet> {
        None
    }
    /// [`QueryFilter::matches`] for live `entity`, found at row `row` of `walked` (the filter's
    /// [`QueryFilter::walk_pool`]): a `With` of that pool passes without a lookup, and change
    /// filters on it read the row.
    #[doc(hidden)]
    #[inline(always)]
    fn matches_walked(fetch: &Self::Fetch<'_>, entity: Entity, walked: &SparseSet, row: usize) -> bool {
        Self::matches_at(fetch, entity, walked.entities(), row)
    }
}

/// Filter: the entity has a `T` (not fetched).
pub struct With<T>(PhantomData<fn() -> T>);

/// Filter: the entity has no `T`.
pub struct Without<T>(PhantomData<fn() -> T>);

impl<T: Component> QueryFilter for With<T> {
    type Fetch<'w> = Option<&'w SparseSet>;
    fn visit_mentioned(visit: &mut dyn FnMut(std::any::TypeId)) {
        visit(std::any::TypeId::of::<T>());
    }
    fn visit_filter(filter: &mut FilterSet) {
        // SAFETY: `matches` rejects every entity not in `T`'s pool, and every query path (iteration, `get`, chunks, parallel
        // chunks) checks `matches` before it hands out an item.
        unsafe { filter.add_with_unchecked(std::any::TypeId::of::<T>()) };
    }
    fn register_ids(
        components: &mut Components,
        required: &mut dyn FnMut(ComponentId),
        _: &mut dyn FnMut(ComponentId),
    ) {
        required(components.register::<T>());
    }
    fn visit_required<'w>(components: &'w Components, visit: &mut dyn FnMut(Option<&'w SparseSet>)) {
        visit(components.pool_of::<T>());
    }
    fn init_fetch(components: &Components, _: Ticks) -> Self::Fetch<'_> {
        components.pool_of::<T>()
    }
    #[inline(always)]
    fn matches(fetch: &Self::Fetch<'_>, entity: Entity) -> bool {
        fetch.is_some_and(|pool| pool.contains_alive(entity))
    }
    #[inline(always)]
    fn walk_pool<'w>(fetch: &Self::Fetch<'w>) -> Option<&'w SparseSet> {
        *fetch
    }
    #[inline(always)]
    fn matches_walked(fetch: &Self::Fetch<'_>, entity: Entity, walked: &SparseSet, _row: usize) -> bool {
        // An entity found in `T`'s own pool has a `T`: a pointer compare, no lookup.
        fetch.is_some_and(|pool| std::ptr::eq(pool, walked) || pool.contains_alive(entity))
    }
}

impl<T: Component> QueryFilter for Without<T> {
    type Fetch<'w> = Option<&'w SparseSet>;
    fn visit_mentioned(visit: &mut dyn FnMut(std::any::TypeId)) {
        visit(std::any::TypeId::of::<T>());
    }
    fn visit_filter(filter: &mut FilterSet) {
        // SAFETY: `matches` rejects every entity in `T`'s pool, and every query path (iteration, `get`, chunks, parallel
        // chunks) checks `matches` before it hands out an item.
        unsafe { filter.add_without_unchecked(std::any::TypeId::of::<T>()) };
    }
    fn register_ids(
        components: &mut Components,
        _: &mut dyn FnMut(ComponentId),
        excluded: &mut dyn FnMut(ComponentId),
    ) {
        excluded(components.register::<T>());
    }
    fn visit_required<'w>(_: &'w Components, _: &mut dyn FnMut(Option<&'w SparseSet>)) {}
    fn init_fetch(components: &Components, _: Ticks) -> Self::Fetch<'_> {
        components.pool_of::<T>()
    }
    #[inline(always)]
    fn matches(fetch: &Self::Fetch<'_>, entity: Entity) -> bool {
        !fetch.is_some_and(|pool| pool.contains_alive(entity))
    }
}

/// Filter: passes every entity, and names `T`, so the query also sees the entities a disabling
/// component `T` ([`Disabled`](crate::Disabled), or one registered with
/// [`World::register_disabling_component`](crate::World::register_disabling_component)) disables,
/// whether or not they have a `T`. bevy's `Allow`. [`Has<T>`](crate::Has) does the same as query
/// data, and also says which entities have a `T`.
///
/// # Examples
/// ```
/// use mosaic::query::Allow;
/// use mosaic::{Component, Disabled, World};
///
/// #[derive(Component)]
/// struct Crate;
///
/// let mut world = World::new();
/// world.spawn(Crate);
/// world.spawn((Crate, Disabled));
/// assert_eq!(world.query::<&Crate>().count(), 1);
/// assert_eq!(world.query_filtered::<&Crate, Allow<Disabled>>().count(), 2);
/// ```
pub struct Allow<T>(PhantomData<fn() -> T>);

impl<T: Component> QueryFilter for Allow<T> {
    type Fetch<'w> = ();
    const TRIVIAL: bool = true;
    fn visit_mentioned(visit: &mut dyn FnMut(std::any::TypeId)) {
        visit(std::any::TypeId::of::<T>());
    }
    fn register_ids(
        components: &mut Components,
        _: &mut dyn FnMut(ComponentId),
        _: &mut dyn FnMut(ComponentId),
    ) {
        components.register::<T>();
    }
    fn visit_required<'w>(_: &'w Components, _: &mut dyn FnMut(Option<&'w SparseSet>)) {}
    fn init_fetch(_: &Components, _: Ticks) -> Self::Fetch<'_> {}
    #[inline(always)]
    fn matches(_: &Self::Fetch<'_>, _: Entity) -> bool {
        true
    }
}

macro_rules! tuple_filter {
    ($($name:ident),*) => {
        impl<$($name: QueryFilter),*> QueryFilter for ($($name,)*) {
            type Fetch<'w> = ($($name::Fetch<'w>,)*);
            const TRIVIAL: bool = true $(&& $name::TRIVIAL)*;
            #[allow(unused_variables)]
            fn visit_required<'w>(components: &'w Components, visit: &mut dyn FnMut(Option<&'w SparseSet>)) {
                $($name::visit_required(components, visit);)*
            }
            #[allow(unused_variables)]
            fn register_ids(
                components: &mut Components,
                required: &mut dyn FnMut(ComponentId),
                excluded: &mut dyn FnMut(ComponentId),
            ) {
                $($name::register_ids(components, required, excluded);)*
            }
            #[allow(unused_variables)]
            fn visit_filter(filter: &mut FilterSet) {
                $($name::visit_filter(filter);)*
            }
            #[allow(unused_variables, clippy::unused_unit)]
            fn init_fetch(components: &Components, ticks: Ticks) -> Self::Fetch<'_> {
                ($($name::init_fetch(components, ticks),)*)
            }
            #[allow(unused_variables)]
            #[track_caller]
            fn check_tracked(components: &Components) {
                $($name::check_tracked(components);)*
            }
            #[allow(unused_variables)]
            fn visit_access(visit: &mut dyn FnMut(super::access::ComponentAccess)) {
                $($name::visit_access(visit);)*
            }
            #[allow(unused_variables)]
            fn visit_mentioned(visit: &mut dyn FnMut(std::any::TypeId)) {
                $($name::visit_mentioned(visit);)*
            }
            #[allow(unused_variables)]
            fn change_driver(components: &Components) -> Option<&SparseSet> {
                None $(.or_else(|| $name::change_driver(components)))*
            }
            #[inline(always)]
            #[allow(unused_variables, non_snake_case)]
            fn matches(fetch: &Self::Fetch<'_>, entity: Entity) -> bool {
                let ($($name,)*) = fetch;
                true $(&& $name::matches($name, entity))*
            }
            #[inline(always)]
            #[allow(unused_variables, non_snake_case)]
            fn matches_at(fetch: &Self::Fetch<'_>, entity: Entity, driver: &[Entity], row: usize) -> bool {
                let ($($name,)*) = fetch;
                true $(&& $name::matches_at($name, entity, driver, row))*
            }
            #[inline(always)]
            #[allow(unused_variables, non_snake_case)]
            fn walk_pool<'w>(fetch: &Self::Fetch<'w>) -> Option<&'w SparseSet> {
                let ($($name,)*) = fetch;
                let smallest: Option<&'w SparseSet> = None;
                $(let smallest = match (smallest, $name::walk_pool($name)) {
                    (Some(a), Some(b)) => Some(if b.len() < a.len() { b } else { a }),
                    (a, b) => a.or(b),
                };)*
                smallest
            }
            #[inline(always)]
            #[allow(unused_variables, non_snake_case)]
            fn matches_walked(fetch: &Self::Fetch<'_>, entity: Entity, walked: &SparseSet, row: usize) -> bool {
                let ($($name,)*) = fetch;
                true $(&& $name::matches_walked($name, entity, walked, row))*
            }
        }
    };
}

crate::macros::all_tuples!(tuple_filter);

/// Filter: at least one filter of the tuple `T` holds, e.g. `Or<(With<Ship>, With<Station>)>`.
/// `Or<()>` passes nothing. bevy's `Or`.
///
/// An `Or` requires no component, so it does not narrow the pool a query walks: the query walks
/// the smallest pool its other terms require, or every live entity if there is none, and checks
/// each alternative per entity (O(alternatives) lookups).
///
/// Watches ([`World::watch`](crate::World::watch)) cannot follow an `Or`: they panic; watch each
/// alternative separately.
///
/// # Examples
/// ```
/// use mosaic::{Component, Entity, Or, With, World};
///
/// #[derive(Component)] struct Ship;
/// #[derive(Component)] struct Station;
/// #[derive(Component)] struct Rock;
///
/// let mut world = World::new();
/// world.spawn(Ship);
/// world.spawn(Station);
/// world.spawn(Rock);
/// let q = world.query_filtered::<Entity, Or<(With<Ship>, With<Station>)>>();
/// assert_eq!(q.count(), 2);
/// ```
pub struct Or<T>(PhantomData<fn() -> T>);

macro_rules! or_filter {
    ($($name:ident),*) => {
        impl<$($name: QueryFilter),*> QueryFilter for Or<($($name,)*)> {
            type Fetch<'w> = ($($name::Fetch<'w>,)*);
            fn visit_required<'w>(_: &'w Components, _: &mut dyn FnMut(Option<&'w SparseSet>)) {}
            #[track_caller]
            fn register_ids(
                _: &mut Components,
                _: &mut dyn FnMut(ComponentId),
                _: &mut dyn FnMut(ComponentId),
            ) {
                panic!(
                    "a watch cannot follow the filter `{}`: watches track sets of required and \
                     excluded components only; add one watch per alternative",
                    std::any::type_name::<Self>()
                );
            }
            #[allow(unused_variables, clippy::unused_unit)]
            fn init_fetch(components: &Components, ticks: Ticks) -> Self::Fetch<'_> {
                ($($name::init_fetch(components, ticks),)*)
            }
            #[allow(unused_variables)]
            #[track_caller]
            fn check_tracked(components: &Components) {
                $($name::check_tracked(components);)*
            }
            #[allow(unused_variables)]
            fn visit_access(visit: &mut dyn FnMut(super::access::ComponentAccess)) {
                $($name::visit_access(visit);)*
            }
            #[allow(unused_variables)]
            fn visit_mentioned(visit: &mut dyn FnMut(std::any::TypeId)) {
                $($name::visit_mentioned(visit);)*
            }
            fn visit_filter(filter: &mut FilterSet) {
                let alternatives = [$({
                    let mut alternative = FilterSet::default();
                    $name::visit_filter(&mut alternative);
                    alternative
                }),*];
                // SAFETY: `matches` admits an entity only when some alternative's `matches` does,
                // and each alternative's set holds for what its own `matches` admits (their
                // contracts); every query path checks `matches` before it hands out an item.
                unsafe { filter.add_any_of_unchecked(&alternatives) };
            }
            #[inline(always)]
            #[allow(unused_variables, non_snake_case)]
            fn matches(fetch: &Self::Fetch<'_>, entity: Entity) -> bool {
                let ($($name,)*) = fetch;
                false $(|| $name::matches($name, entity))*
            }
        }
    };
}

crate::macros::all_tuples!(or_filter);
