//! Query parameters that carry a condition: [`Single`] (exactly one match) and [`Populated`]
//! (at least one). A system with one whose condition fails is skipped for the frame instead of
//! running, as in bevy (`Single`, `Populated`).

use std::fmt;
use std::ops::{Deref, DerefMut};

use super::access::Access;
use super::param::{ParamConflict, ParamError, SystemParam};
use crate::query::{Query, QueryData, QueryFilter};
use crate::storage::Ticks;
use crate::world::World;

/// How many entities `Query<D, F>` matches in window `ticks`, counting no further than `limit`:
/// the check of both parameters. Presence and `F`'s ticks only; nothing fetched.
fn matches_up_to<D: QueryData, F: QueryFilter>(world: &World, ticks: Ticks, limit: usize) -> usize {
    // SAFETY: the aliasing of `D` was checked when the system was added; the walk checks presence
    // and `F`'s ticks only, which the system's declared reads cover (a caller holding `&World`
    // outside a run has no concurrent writer), and fetches no item.
    let query = unsafe { Query::<D, F>::new_unchecked(world, ticks) };
    query.count_up_to(limit)
}

/// The item of the one entity a query matches, as a system parameter: `Single<&mut Player>`
/// instead of `Query<&mut Player>` plus `single_mut()`.
///
/// When the query matches no entity or more than one, the system is skipped for that frame
/// (nothing panics; [`ParamError::Unmet`]). The check walks at most two matches of the query,
/// presence checks only (nothing is fetched, so no change is stamped), and is made again just
/// before the run, so a value change by a system earlier in the same batch (for `Changed<T>`
/// filters) is seen. Declares the same accesses as `Query<D, F>`. Bevy's `Single`.
///
/// # Examples
/// ```
/// use mosaic::{Component, Schedule, Single, World, With};
///
/// #[derive(Component)]
/// struct Player;
/// #[derive(Component)]
/// struct Health(u32);
///
/// fn heal(mut health: Single<&mut Health, With<Player>>) {
///     health.0 += 1;
/// }
///
/// let mut world = World::new();
/// let mut schedule = Schedule::new();
/// schedule.add_system(heal);
/// schedule.run(&mut world); // no player: skipped
/// let player = world.spawn((Player, Health(5)));
/// schedule.run(&mut world);
/// assert_eq!(world.get::<Health>(player).unwrap().0, 6);
/// ```
///
/// `Option<Single<D, F>>` is the form for "at most one" (bevy's): `None` when the query matches
/// no entity, the item when it matches one; the system is still skipped when it matches more.
///
/// ```
/// use mosaic::{Component, Schedule, Single, World};
///
/// #[derive(Component)]
/// struct Boss(u32);
/// #[derive(Default)]
/// struct Seen(Vec<Option<u32>>);
///
/// fn watch(boss: Option<Single<&Boss>>, mut seen: mosaic::ResMut<Seen>) {
///     seen.0.push(boss.map(|boss| boss.0));
/// }
///
/// let mut world = World::new();
/// world.init_resource::<Seen>();
/// let mut schedule = Schedule::new();
/// schedule.add_system(watch);
/// schedule.run(&mut world); // no boss: runs with None
/// world.spawn(Boss(7));
/// schedule.run(&mut world);
/// world.spawn(Boss(8));
/// schedule.run(&mut world); // two bosses: skipped
/// assert_eq!(world.resource::<Seen>().0, [None, Some(7)]);
/// ```
pub struct Single<'w, D: QueryData, F: QueryFilter = ()> {
    item: D::Item<'w>,
    _filter: std::marker::PhantomData<F>,
}

impl<'w, D: QueryData, F: QueryFilter> Single<'w, D, F> {
    /// The item, for the system's whole borrow of the world.
    pub fn into_inner(self) -> D::Item<'w> {
        self.item
    }
}

impl<'w, D: QueryData, F: QueryFilter> Deref for Single<'w, D, F> {
    type Target = D::Item<'w>;
    fn deref(&self) -> &Self::Target {
        &self.item
    }
}

impl<D: QueryData, F: QueryFilter> DerefMut for Single<'_, D, F> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.item
    }
}

impl<'w, D: QueryData, F: QueryFilter> fmt::Debug for Single<'w, D, F>
where
    D::Item<'w>: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Single").field(&self.item).finish()
    }
}

// SAFETY: declares exactly what `Query<D, F>` declares, and fetches through such a query.
unsafe impl<D: QueryData, F: QueryFilter> SystemParam for Single<'_, D, F> {
    type State = ();
    type Item<'w, 's> = Single<'w, D, F>;
    const CHECKED_AT_RUN: bool = true;

    fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
        <Query<'static, D, F> as SystemParam>::add_access(access)
    }
    fn init_state(world: &mut World) {
        <Query<'static, D, F> as SystemParam>::init_state(world);
    }
    fn validate(_: &(), world: &World, ticks: Ticks) -> Result<(), ParamError> {
        match matches_up_to::<D, F>(world, ticks, 2) {
            1 => Ok(()),
            _ => Err(ParamError::Unmet(std::any::type_name::<Self>())),
        }
    }
    unsafe fn get_param<'w>(_: &mut (), world: &'w World, ticks: Ticks) -> Single<'w, D, F> {
        // SAFETY: forwarded from the caller, as for a `Query` parameter.
        let query = unsafe { Query::<D, F>::new_unchecked(world, ticks) };
        let item =
            query.into_iter().next().expect("`Single` validated against this window just before the run");
        Single { item, _filter: std::marker::PhantomData }
    }
}

// SAFETY: declares exactly what `Query<D, F>` declares, and fetches through such a query.
unsafe impl<D: QueryData, F: QueryFilter> SystemParam for Option<Single<'_, D, F>> {
    type State = ();
    type Item<'w, 's> = Option<Single<'w, D, F>>;
    const CHECKED_AT_RUN: bool = true;

    fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
        <Query<'static, D, F> as SystemParam>::add_access(access)
    }
    fn init_state(world: &mut World) {
        <Query<'static, D, F> as SystemParam>::init_state(world);
    }
    fn validate(_: &(), world: &World, ticks: Ticks) -> Result<(), ParamError> {
        match matches_up_to::<D, F>(world, ticks, 2) {
            0 | 1 => Ok(()),
            _ => Err(ParamError::Unmet(std::any::type_name::<Self>())),
        }
    }
    unsafe fn get_param<'w>(_: &mut (), world: &'w World, ticks: Ticks) -> Option<Single<'w, D, F>> {
        // SAFETY: forwarded from the caller, as for a `Query` parameter.
        let query = unsafe { Query::<D, F>::new_unchecked(world, ticks) };
        query.into_iter().next().map(|item| Single { item, _filter: std::marker::PhantomData })
    }
}

/// A [`Query`] that matches at least one entity, as a system parameter: the system is skipped
/// for frames where it matches none ([`ParamError::Unmet`]). Derefs to the query. The check
/// stops at the first match (presence checks; nothing fetched) and is made again just before
/// the run. Declares the same accesses as `Query<D, F>`. Bevy's `Populated`.
///
/// # Examples
/// ```
/// use mosaic::{Component, Populated, ResMut, Schedule, World};
///
/// #[derive(Component)]
/// struct Enemy;
/// #[derive(Default)]
/// struct Runs(u32);
///
/// fn fight(enemies: Populated<&Enemy>, mut runs: ResMut<Runs>) {
///     runs.0 += enemies.iter().count() as u32;
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Runs::default());
/// let mut schedule = Schedule::new();
/// schedule.add_system(fight);
/// schedule.run(&mut world); // no enemy: skipped
/// world.spawn(Enemy);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Runs>().0, 1);
/// ```
pub struct Populated<'w, D: QueryData, F: QueryFilter = ()>(Query<'w, D, F>);

impl<'w, D: QueryData, F: QueryFilter> Populated<'w, D, F> {
    /// The query, for the system's whole borrow of the world.
    pub fn into_inner(self) -> Query<'w, D, F> {
        self.0
    }
}

impl<'w, D: QueryData, F: QueryFilter> Deref for Populated<'w, D, F> {
    type Target = Query<'w, D, F>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl<D: QueryData, F: QueryFilter> DerefMut for Populated<'_, D, F> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

// SAFETY: declares exactly what `Query<D, F>` declares, and hands out such a query.
unsafe impl<D: QueryData, F: QueryFilter> SystemParam for Populated<'_, D, F> {
    type State = ();
    type Item<'w, 's> = Populated<'w, D, F>;
    const CHECKED_AT_RUN: bool = true;

    fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
        <Query<'static, D, F> as SystemParam>::add_access(access)
    }
    fn init_state(world: &mut World) {
        <Query<'static, D, F> as SystemParam>::init_state(world);
    }
    fn validate(_: &(), world: &World, ticks: Ticks) -> Result<(), ParamError> {
        match matches_up_to::<D, F>(world, ticks, 1) {
            1 => Ok(()),
            _ => Err(ParamError::Unmet(std::any::type_name::<Self>())),
        }
    }
    unsafe fn get_param<'w>(_: &mut (), world: &'w World, ticks: Ticks) -> Populated<'w, D, F> {
        // SAFETY: forwarded from the caller, as for a `Query` parameter.
        Populated(unsafe { Query::<D, F>::new_unchecked(world, ticks) })
    }
}
