//! Change-detection filters: [`Added`], [`Changed`], and [`FieldChanged`] for one field of a
//! struct-of-arrays component.

use std::marker::PhantomData;

use super::QueryFilter;
use super::access::{ComponentAccess, FilterSet};
use crate::component::{Component, ComponentId, Components};
use crate::entity::Entity;
use crate::storage::{ChangeTracker, RowLookup, SparseSet, StorageInfo, Tick, TickWindow, Ticks};

/// Filter: the entity's `T` was added since the reader last ran (bevy's `Added`).
///
/// "Since the reader last ran" is, for a system parameter, since the system's previous run (its
/// first run sees every `T` present); for a query made through the world
/// ([`World::query_filtered`](crate::World::query_filtered)), since the last
/// [`World::clear_trackers`](crate::World::clear_trackers). A run condition that skips a system
/// leaves its window open, so it sees what happened while it was skipped.
///
/// Added means inserted into an entity that had no `T`: by spawn, `insert`, commands, hooks, or
/// a snapshot load (which inserts every loaded value). Replacing a value with `insert` is a
/// change, not an addition. Requires `T` (an entity without `T` never passes).
///
/// Whether `T`'s changes are tracked is decided per type, not by readers: from registration with
/// `#[component(track_changes)]`, or from an explicit [`World::track_changes`](crate::World::track_changes)
/// (the values present then count as added then). Making a change reader of an untracked type
/// panics, saying so, in every form: `query_filtered`, `query_ref_filtered` and system
/// parameters alike (bevy tracks every type; Mosaic lets untracked types skip the cost).
/// A tracked type never registered has no values: the query is empty.
///
/// Cost: when the filter is a term of the query's filter (alone or in a tuple, not under `Or`),
/// iteration walks `T`'s change log instead of a pool: O(log n + changes since), plus one lookup
/// per other component. Otherwise O(1) per entity tested.
///
/// # Examples
/// ```
/// use mosaic::{Added, Component, Entity, World};
///
/// #[derive(Component)]
/// struct Ship;
///
/// let mut world = World::new();
/// world.track_changes::<Ship>();
/// let old = world.spawn(Ship);
/// world.clear_trackers();
/// let new = world.spawn(Ship);
/// let added: Vec<Entity> = world.query_filtered::<Entity, Added<Ship>>().into_iter().collect();
/// assert_eq!(added, [new]);
/// # let _ = old;
/// ```
pub struct Added<T>(PhantomData<fn() -> T>);

/// Filter: the entity's `T` was added or changed since the reader last ran (bevy's `Changed`).
///
/// A change is a value handed out mutably: an item of a query term `&mut T` or `Option<&mut T>`
/// (each row the query hands out, once per run, written to or not), a chunk of `&mut [T]`,
/// [`World::get_mut`](crate::World::get_mut), [`EntityMut::get_mut`](crate::EntityMut::get_mut),
/// or a value replaced by `insert` (commands and hooks included); an addition is a change too.
/// A [`Mut<T>`](crate::Mut) item counts only when written through (reading it is no change).
/// Entities a query skips (filtered out, or never reached) are not marked. Windows, tracking
/// start and registration as for [`Added`].
///
/// # Examples
/// ```
/// use mosaic::{Changed, Component, Entity, World};
///
/// #[derive(Component)]
/// struct Hull(u32);
///
/// let mut world = World::new();
/// world.track_changes::<Hull>();
/// let a = world.spawn(Hull(10));
/// let b = world.spawn(Hull(10));
/// world.clear_trackers();
/// world.get_mut::<Hull>(b).unwrap().0 -= 3;
/// let changed: Vec<Entity> = world.query_filtered::<Entity, Changed<Hull>>().into_iter().collect();
/// assert_eq!(changed, [b]);
/// # let _ = a;
/// ```
pub struct Changed<T>(PhantomData<fn() -> T>);

/// What [`Added`], [`Changed`] and [`FieldChanged`] capture: `T`'s pool and tracker, and the reader's window.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct ChangeFetch<'w> {
    tracked: Option<(RowLookup<'w>, &'w ChangeTracker)>,
    window: TickWindow,
}

impl<'w> ChangeFetch<'w> {
    #[track_caller]
    fn new<T: Component>(components: &'w Components, ticks: Ticks, filter: &str) -> Self {
        components.check_tracked::<T>(filter);
        let tracked = components
            .pool_of::<T>()
            .map(|pool| (pool.lookup(), pool.changes().expect("checked to be tracked above")));
        Self { tracked, window: ticks.window() }
    }

    /// Whether `entity` is in the pool and `tick(changes, row)` of its row is in the window.
    #[inline(always)]
    fn matches(&self, entity: Entity, tick: impl Fn(&ChangeTracker, usize) -> Tick) -> bool {
        self.tracked.is_some_and(|(lookup, changes)| {
            lookup.row_of(entity).is_some_and(|row| self.window.is_newer(tick(changes, row)))
        })
    }

    /// [`ChangeFetch::matches`] for `entity` at row `row` of the walked pool `driver`: when
    /// that is this pool, the row is the entity's and needs no lookup.
    #[inline(always)]
    fn matches_at(
        &self,
        entity: Entity,
        driver: &[Entity],
        row: usize,
        tick: impl Fn(&ChangeTracker, usize) -> Tick,
    ) -> bool {
        match self.tracked {
            Some((lookup, changes)) if lookup.is_of(driver) => self.window.is_newer(tick(changes, row)),
            _ => self.matches(entity, tick),
        }
    }
}

/// The answer of every change filter to a watch: watches follow which components entities have.
#[track_caller]
fn refuse_watch<F>() -> ! {
    panic!(
        "a watch cannot follow the filter `{}`: watches track which components entities have, \
         not when they changed",
        std::any::type_name::<F>()
    );
}

fn tracked_pool<T: Component>(components: &Components) -> Option<&SparseSet> {
    components.pool_of::<T>().filter(|pool| pool.changes().is_some())
}

macro_rules! change_filter {
    ($name:ident, $label:literal, $tick:ident, $passed_by_walk:literal) => {
        impl<T: Component> QueryFilter for $name<T> {
            type Fetch<'w> = ChangeFetch<'w>;
            const PASSED_BY_CHANGE_WALK: bool = $passed_by_walk;

            fn visit_required<'w>(components: &'w Components, visit: &mut dyn FnMut(Option<&'w SparseSet>)) {
                visit(components.pool_of::<T>());
            }
            #[track_caller]
            fn register_ids(
                _: &mut Components,
                _: &mut dyn FnMut(ComponentId),
                _: &mut dyn FnMut(ComponentId),
            ) {
                refuse_watch::<Self>()
            }
            fn visit_filter(filter: &mut FilterSet) {
                // SAFETY: `matches` rejects every entity not in `T`'s pool (no row, no tick).
                unsafe { filter.add_with_unchecked(std::any::TypeId::of::<T>()) };
            }
            fn visit_access(visit: &mut dyn FnMut(ComponentAccess)) {
                // The ticks are written by writers of `T`: reading them is a read of `T`.
                visit(ComponentAccess::of::<T>(false));
            }
            #[track_caller]
            fn init_fetch(components: &Components, ticks: Ticks) -> Self::Fetch<'_> {
                ChangeFetch::new::<T>(components, ticks, $label)
            }
            #[track_caller]
            fn check_tracked(components: &Components) {
                components.check_tracked::<T>($label);
            }
            fn change_driver(components: &Components) -> Option<&SparseSet> {
                tracked_pool::<T>(components)
            }
            #[inline(always)]
            fn matches(fetch: &Self::Fetch<'_>, entity: Entity) -> bool {
                fetch.matches(entity, |changes, row| changes.$tick(row))
            }
            #[inline(always)]
            fn matches_at(fetch: &Self::Fetch<'_>, entity: Entity, driver: &[Entity], row: usize) -> bool {
                fetch.matches_at(entity, driver, row, |changes, row| changes.$tick(row))
            }
        }
    };
}

// A walk confirms a candidate's changed tick, which is `Changed`'s test; `Added` still checks
// the added tick.
change_filter!(Added, "Added", added, false);
change_filter!(Changed, "Changed", changed, true);

/// Filter: field `FIELD` (declaration order) of the entity's struct-of-arrays `T` was written
/// since the reader last ran. No peer ECS has it: bevy and flecs track whole components, EnTT
/// reports `patch` calls.
///
/// Name the field with the index constant the derive generates for each field of a
/// `#[component(storage = "soa")]` struct: `FieldChanged<Position, { Position::FIELD_X }>`
/// (the field's name in upper case after `FIELD_`).
///
/// A field is written by the [`FieldMut`](crate::FieldMut) of a [`Mut<T>`](crate::Mut) item
/// when written through, and by every whole-row change, which counts for every field: a
/// `&mut T` item (the generated `TMut` view), a chunk of `T`, `World::get_mut`, an insert or a
/// replacing `insert`, a snapshot load. Windows and the start of tracking as for
/// [`Changed`](crate::Changed). Requires `T`.
///
/// Cost: as `Changed<T>` (a walk of `T`'s row change log when the filter is a term of the
/// query's filter), plus one tick read per candidate row to confirm the field. Each row of a
/// tracked struct-of-arrays pool keeps 4 bytes per field for these ticks.
///
/// # Panics
/// When the query is made (through `&mut World` or as a system parameter) or first walked, if
/// `T` is stored array-of-structs, or if `FIELD` is not below its field count; and as [`Changed`](crate::Changed) when `T`'s tracking is off under `&World`.
///
/// # Examples
/// ```
/// use mosaic::{Component, Entity, FieldChanged, World};
///
/// #[derive(Component)]
/// #[component(storage = "soa", track_changes)]
/// struct Body { mass: f32, heat: f32 }
///
/// let mut world = World::new();
/// let cold = world.spawn(Body { mass: 1.0, heat: 0.0 });
/// let hot = world.spawn(Body { mass: 1.0, heat: 0.0 });
/// world.clear_trackers();
/// world.query::<mosaic::Mut<Body>>().for_each(|mut body| {
///     let _ = *body.mass; // a read marks nothing
/// });
/// *world.query::<mosaic::Mut<Body>>().get_mut(hot).unwrap().heat += 2.0;
/// let heated: Vec<Entity> =
///     world.query_filtered::<Entity, FieldChanged<Body, { Body::FIELD_HEAT }>>().into_iter().collect();
/// assert_eq!(heated, [hot]);
/// # let _ = cold;
/// ```
pub struct FieldChanged<T, const FIELD: usize>(PhantomData<fn() -> T>);

/// Panics unless `T` is stored struct-of-arrays with more than `FIELD` fields. Reads the
/// layout from `T`'s pool when it is registered (no allocation: this runs at every query
/// made), else from `T::storage_info()`.
#[track_caller]
fn check_field<T: Component, const FIELD: usize>(components: &Components) {
    let soa_fields = match components.pool_of::<T>() {
        Some(pool) => pool.is_soa().then(|| pool.soa().info().field_count()),
        None => match T::storage_info() {
            StorageInfo::Soa(info) => Some(info.field_count()),
            StorageInfo::Aos(_) => None,
        },
    };
    let fields = match soa_fields {
        Some(fields) => fields,
        None => panic!(
            "`FieldChanged<{}, {FIELD}>` needs a struct-of-arrays component \
             (`#[component(storage = \"soa\")]`); use `Changed` for this one",
            std::any::type_name::<T>()
        ),
    };
    assert!(
        FIELD < fields,
        "`FieldChanged<{}, {FIELD}>`: the component has {fields} field(s); name the field with \
         its generated constant (`FIELD_<NAME>`)",
        std::any::type_name::<T>()
    );
}

impl<T: Component, const FIELD: usize> QueryFilter for FieldChanged<T, FIELD> {
    type Fetch<'w> = ChangeFetch<'w>;

    fn visit_required<'w>(components: &'w Components, visit: &mut dyn FnMut(Option<&'w SparseSet>)) {
        visit(components.pool_of::<T>());
    }
    #[track_caller]
    fn register_ids(_: &mut Components, _: &mut dyn FnMut(ComponentId), _: &mut dyn FnMut(ComponentId)) {
        refuse_watch::<Self>()
    }
    fn visit_filter(filter: &mut FilterSet) {
        // SAFETY: `matches` rejects every entity not in `T`'s pool (no row, no tick).
        unsafe { filter.add_with_unchecked(std::any::TypeId::of::<T>()) };
    }
    fn visit_access(visit: &mut dyn FnMut(ComponentAccess)) {
        // The ticks are written by writers of `T`: reading them is a read of `T`.
        visit(ComponentAccess::of::<T>(false));
    }
    #[track_caller]
    fn init_fetch(components: &Components, ticks: Ticks) -> Self::Fetch<'_> {
        check_field::<T, FIELD>(components);
        ChangeFetch::new::<T>(components, ticks, "FieldChanged")
    }
    #[track_caller]
    fn check_tracked(components: &Components) {
        check_field::<T, FIELD>(components);
        components.check_tracked::<T>("FieldChanged");
    }
    fn change_driver(components: &Components) -> Option<&SparseSet> {
        tracked_pool::<T>(components)
    }
    #[inline(always)]
    fn matches(fetch: &Self::Fetch<'_>, entity: Entity) -> bool {
        fetch.matches(entity, |changes, row| changes.field_changed(row, FIELD))
    }
    #[inline(always)]
    fn matches_at(fetch: &Self::Fetch<'_>, entity: Entity, driver: &[Entity], row: usize) -> bool {
        fetch.matches_at(entity, driver, row, |changes, row| changes.field_changed(row, FIELD))
    }
}
