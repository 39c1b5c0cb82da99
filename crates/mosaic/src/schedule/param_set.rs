//! [`ParamSet`]: parameters that alias each other in one system, handed out one at a time.

use super::access::Access;
use super::param::{ParamConflict, ParamError, SystemParam, SystemParamItem};
use crate::storage::Ticks;
use crate::world::{ApplyReport, World};

/// Up to 8 system parameters that may conflict with each other (two queries writing the same
/// component, a query beside one that reads what it writes), used one at a time: `p0()`,
/// `p1()`, ... each borrow the set mutably, so two members' items never live at once. Bevy's
/// `ParamSet`.
///
/// The members' accesses are checked against the system's other parameters, not against each
/// other; the scheduler sees the union. Each `pN()` call fetches the member afresh (for a query,
/// O(c) to pick its driving pool), with the system's change window.
///
/// # Panics
/// `pN()` of a [`Single`](super::Single) member panics if an earlier member's writes changed
/// what it matches since the run's check (with a `Changed<T>` filter): the set is checked once,
/// just before the run.
///
/// # Examples
/// ```
/// use mosaic::{Component, ParamSet, Query, Schedule, With, World};
///
/// #[derive(Component)]
/// struct Health(u32);
/// #[derive(Component)]
/// struct Boss;
///
/// // Both queries write `Health`: refused as two parameters, fine in a set.
/// fn balance(mut set: ParamSet<(Query<&mut Health, With<Boss>>, Query<&mut Health>)>) {
///     let boss_total: u32 = set.p0().iter_mut().map(|h| h.0).sum();
///     for health in set.p1().iter_mut() {
///         health.0 = health.0.min(boss_total);
///     }
/// }
///
/// let mut world = World::new();
/// world.spawn((Health(50), Boss));
/// let minion = world.spawn(Health(80));
/// let mut schedule = Schedule::new();
/// schedule.add_system(balance);
/// schedule.run(&mut world);
/// assert_eq!(world.get::<Health>(minion).unwrap().0, 50);
/// ```
pub struct ParamSet<'w, 's, T: SystemParam> {
    world: &'w World,
    state: &'s mut T::State,
    ticks: Ticks,
}

macro_rules! param_set {
    ($(($name:ident, $method:ident, $index:tt)),+) => {
        impl<'w, 's, $($name: SystemParam),+> ParamSet<'w, 's, ($($name,)+)> {
            $(
                #[doc = concat!("Member ", stringify!($index), " of the set, for as long as the set is borrowed.")]
                pub fn $method(&mut self) -> SystemParamItem<'_, '_, $name> {
                    // SAFETY: the set declared this member's accesses (`add_access` below) and the
                    // scheduler holds them for 'w; `&mut self` ends any other member's item first,
                    // so no two members' items (which may alias) live at once. The state was made
                    // by `init_state` and validated with the set.
                    unsafe { $name::get_param(&mut self.state.$index, self.world, self.ticks) }
                }
            )+
        }

        // SAFETY: declares the union of its members' accesses (`Access::add_set`) and fetches each
        // member through its own `get_param`, one at a time (see `pN`).
        unsafe impl<$($name: SystemParam),+> SystemParam for ParamSet<'_, '_, ($($name,)+)> {
            type State = ($($name::State,)+);
            type Item<'w, 's> = ParamSet<'w, 's, ($($name,)+)>;
            const CHECKED_AT_RUN: bool = false $(|| $name::CHECKED_AT_RUN)+;

            fn add_access(access: &mut Access) -> Result<(), ParamConflict> {
                let members = [$({
                    let mut member = Access::default();
                    $name::add_access(&mut member)?;
                    member
                }),+];
                access.add_set(&members)
            }
            fn init_state(world: &mut World) -> Self::State {
                ($($name::init_state(world),)+)
            }
            fn validate(state: &Self::State, world: &World, ticks: Ticks) -> Result<(), ParamError> {
                $($name::validate(&state.$index, world, ticks)?;)+
                Ok(())
            }
            unsafe fn get_param<'w, 's>(
                state: &'s mut Self::State,
                world: &'w World,
                ticks: Ticks,
            ) -> Self::Item<'w, 's> {
                ParamSet { world, state, ticks }
            }
            fn apply(state: &mut Self::State, world: &mut World) -> ApplyReport {
                let mut report = ApplyReport::default();
                $(report += $name::apply(&mut state.$index, world);)+
                report
            }
            fn defer(state: &mut Self::State, commands: &mut crate::world::CommandBuffer) {
                $($name::defer(&mut state.$index, commands);)+
            }
        }
    };
}

param_set!((P0, p0, 0));
param_set!((P0, p0, 0), (P1, p1, 1));
param_set!((P0, p0, 0), (P1, p1, 1), (P2, p2, 2));
param_set!((P0, p0, 0), (P1, p1, 1), (P2, p2, 2), (P3, p3, 3));
param_set!((P0, p0, 0), (P1, p1, 1), (P2, p2, 2), (P3, p3, 3), (P4, p4, 4));
param_set!((P0, p0, 0), (P1, p1, 1), (P2, p2, 2), (P3, p3, 3), (P4, p4, 4), (P5, p5, 5));
param_set!((P0, p0, 0), (P1, p1, 1), (P2, p2, 2), (P3, p3, 3), (P4, p4, 4), (P5, p5, 5), (P6, p6, 6));
param_set!(
    (P0, p0, 0),
    (P1, p1, 1),
    (P2, p2, 2),
    (P3, p3, 3),
    (P4, p4, 4),
    (P5, p5, 5),
    (P6, p6, 6),
    (P7, p7, 7)
);
