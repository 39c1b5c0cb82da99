//! `ParamSet`: parameters that alias each other inside one system, handed out one at a time;
//! checked against the system's other parameters, and seen whole by the scheduler.

// System signatures with sets of queries are long by nature, as in bevy.
#![allow(clippy::type_complexity)]

use mosaic::schedule::{Conflict, IntoSystem, System};
use mosaic::{
    Commands, Component, Entity, ParamSet, Query, Res, ResMut, Schedule, ScheduleError, With, Without, World,
};

#[derive(Component, Debug, PartialEq)]
struct Health(u32);
#[derive(Component)]
struct Boss;

fn access_of<M>(system: impl IntoSystem<M>) -> mosaic::schedule::Access {
    system.into_system().expect("a valid system").access().clone()
}

#[test]
fn members_that_alias_are_used_one_after_another() {
    fn heal_all_then_cap_bosses(
        mut set: ParamSet<(Query<&mut Health>, Query<&mut Health, With<Boss>>, Query<(Entity, &Health)>)>,
        mut log: ResMut<Vec<(Entity, u32)>>,
    ) {
        for h in set.p0().iter_mut() {
            h.0 += 10;
        }
        for h in set.p1().iter_mut() {
            h.0 = h.0.min(15);
        }
        let mut seen: Vec<(Entity, u32)> = set.p2().iter().map(|(e, h)| (e, h.0)).collect();
        seen.sort();
        log.extend(seen);
    }
    let mut world = World::new();
    world.insert_resource(Vec::<(Entity, u32)>::new());
    let boss = world.spawn((Health(20), Boss));
    let minion = world.spawn(Health(1));
    let mut schedule = Schedule::new();
    schedule.add_system(heal_all_then_cap_bosses);
    schedule.run(&mut world);
    assert_eq!(world.get::<Health>(boss), Ok(&Health(15)));
    assert_eq!(world.get::<Health>(minion), Ok(&Health(11)));
    let mut expected = vec![(boss, 15), (minion, 11)];
    expected.sort();
    assert_eq!(world.resource::<Vec<(Entity, u32)>>(), &expected);
}

#[test]
fn a_set_is_checked_against_the_systems_other_parameters() {
    fn aliasing(_: ParamSet<(Query<&mut Health>, Query<&Health>)>, _: Query<&Health>) {}
    let error = Schedule::new().try_add_system(aliasing).err().expect("a read beside the set's write");
    assert!(matches!(error, ScheduleError::ConflictingParams { .. }), "{error:?}");
    assert!(error.to_string().contains("Health"), "{error}");

    // Disjoint filters still count: the set's `With<Boss>` write beside a `Without<Boss>` one.
    fn disjoint(
        _: ParamSet<(Query<&mut Health, With<Boss>>, Query<&Health, With<Boss>>)>,
        _: Query<&mut Health, Without<Boss>>,
    ) {
    }
    assert!(Schedule::new().try_add_system(disjoint).is_ok());
    // A parameter after the set is checked against every member.
    fn after(_: ParamSet<(Res<u32>, ResMut<u32>)>, _: Res<u32>) {}
    assert!(Schedule::new().try_add_system(after).is_err());
}

#[test]
fn the_scheduler_sees_the_union_of_the_members() {
    fn writes_in_set(_: ParamSet<(Query<&Health>, Query<&mut Health, With<Boss>>)>) {}
    fn reads(_: Query<&Health>) {}
    fn reads_minions(_: Query<&Health, Without<Boss>>) {}
    let set = access_of(writes_in_set);
    assert_eq!(set.conflict_with(&access_of(reads)), Some(Conflict::On(std::any::type_name::<Health>())));
    assert_eq!(set.conflict_with(&access_of(reads_minions)), None, "the write is on bosses only");
}

#[test]
fn commands_in_a_set_apply_at_the_sync_point() {
    fn spawn_and_count(mut set: ParamSet<(Commands, Query<&Health>)>, mut counts: ResMut<Vec<usize>>) {
        set.p0().spawn(Health(1));
        counts.push(set.p1().iter().count());
    }
    let mut world = World::new();
    world.insert_resource(Vec::<usize>::new());
    let mut schedule = Schedule::new();
    schedule.add_system(spawn_and_count);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Vec<usize>>(), &vec![0, 1]);
    assert_eq!(world.query::<&Health>().iter().count(), 2);
}
