//! `Single` and `Populated`: query parameters whose system is skipped for a frame where the query
//! matches no entity or several (`Single`), or none (`Populated`); the check sees the run's own
//! change window, so a system earlier in the segment can make a change-filtered one fit.

use mosaic::{
    Changed, Component, Entity, ExecutorKind, Populated, Query, ResMut, Schedule, ScheduleError, Single,
    With, World,
};

#[derive(Component, Debug, PartialEq)]
struct Health(u32);

#[derive(Component)]
struct Player;

#[derive(Default)]
struct Runs(u32);

fn heal_player(mut health: Single<&mut Health, With<Player>>, mut runs: ResMut<Runs>) {
    health.0 += 1;
    runs.0 += 1;
}

fn world_with_runs() -> World {
    let mut world = World::new();
    world.insert_resource(Runs::default());
    world
}

#[test]
fn single_runs_only_when_exactly_one_entity_matches() {
    for executor in [ExecutorKind::SingleThreaded, ExecutorKind::Parallel] {
        let mut world = world_with_runs();
        let mut schedule = Schedule::new();
        schedule.set_executor(executor);
        schedule.add_system(heal_player);
        let bystander = world.spawn(Health(50)); // matches `&mut Health` but not `With<Player>`
        schedule.run(&mut world);
        assert_eq!(world.resource::<Runs>().0, 0, "no player: skipped, no panic");

        let first = world.spawn((Player, Health(1)));
        schedule.run(&mut world);
        schedule.run(&mut world);
        assert_eq!(world.resource::<Runs>().0, 2);
        assert_eq!(world.get::<Health>(first).ok(), Some(&Health(3)));

        let second = world.spawn((Player, Health(10)));
        schedule.run(&mut world);
        assert_eq!(world.resource::<Runs>().0, 2, "two players: skipped");
        assert_eq!(world.get::<Health>(first).ok(), Some(&Health(3)));
        assert_eq!(world.get::<Health>(second).ok(), Some(&Health(10)));

        world.despawn(first);
        schedule.run(&mut world);
        assert_eq!(world.resource::<Runs>().0, 3, "one player again: runs, on the one left");
        assert_eq!(world.get::<Health>(second).ok(), Some(&Health(11)));
        assert_eq!(world.get::<Health>(bystander).ok(), Some(&Health(50)));
    }
}

#[test]
fn single_into_inner_and_read_only_items() {
    fn name_the_player(
        player: Single<(Entity, &Health), With<Player>>,
        mut seen: ResMut<Vec<(Entity, u32)>>,
    ) {
        let (entity, health) = player.into_inner();
        seen.push((entity, health.0));
    }
    let mut world = World::new();
    world.insert_resource(Vec::<(Entity, u32)>::new());
    let player = world.spawn((Player, Health(7)));
    world.run_system(name_the_player);
    assert_eq!(world.resource::<Vec<(Entity, u32)>>(), &vec![(player, 7)]);
    world.spawn((Player, Health(8)));
    world.run_system(name_the_player); // a one-shot run skips as a scheduled one does
    assert_eq!(world.resource::<Vec<(Entity, u32)>>().len(), 1);
}

#[test]
fn populated_runs_only_when_something_matches() {
    fn count_players(players: Populated<&Health, With<Player>>, mut runs: ResMut<Runs>) {
        assert!(!players.is_empty());
        runs.0 += players.iter().count() as u32;
    }
    let mut world = world_with_runs();
    let mut schedule = Schedule::new();
    schedule.add_system(count_players);
    world.spawn(Health(1));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 0);
    let a = world.spawn((Player, Health(1)));
    world.spawn((Player, Health(2)));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 2);
    world.remove::<Player>(a).unwrap();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 3);
}

#[derive(Default)]
struct Damage(Option<u32>);

fn apply_damage(mut health: Query<&mut Health>, mut damage: ResMut<Damage>) {
    if let Some(amount) = damage.0.take() {
        for h in health.iter_mut() {
            h.0 -= amount;
        }
    }
}

fn report_hurt(hurt: Single<&Health, Changed<Health>>, mut seen: ResMut<Vec<u32>>) {
    seen.push(hurt.0);
}

#[test]
fn a_change_filter_is_checked_against_the_runs_own_window() {
    for executor in [ExecutorKind::SingleThreaded, ExecutorKind::Parallel] {
        let mut world = World::new();
        world.track_changes::<Health>();
        world.insert_resource(Damage::default());
        world.insert_resource(Vec::<u32>::new());
        world.spawn(Health(100));
        let mut schedule = Schedule::new();
        schedule.set_executor(executor);
        schedule.add_system(apply_damage);
        // Same segment (no commands, no conditions): its check at the segment's start sees no
        // change yet; the check at its run sees `apply_damage`'s.
        schedule.add_system(report_hurt).after(apply_damage);
        schedule.run(&mut world); // first run: the spawn is a change
        assert_eq!(world.resource::<Vec<u32>>(), &vec![100]);
        schedule.run(&mut world); // nothing changed since
        assert_eq!(world.resource::<Vec<u32>>(), &vec![100]);
        world.resource_mut::<Damage>().0 = Some(30);
        schedule.run(&mut world);
        assert_eq!(world.resource::<Vec<u32>>(), &vec![100, 70], "{executor:?}");
        schedule.run(&mut world);
        assert_eq!(world.resource::<Vec<u32>>(), &vec![100, 70]);
    }
}

#[test]
fn single_declares_the_accesses_of_its_query() {
    fn both(_: Single<&mut Health>, _: Query<&Health>) {}
    let mut schedule = Schedule::new();
    let error = schedule.try_add_system(both).err().expect("aliasing parameters are refused");
    assert!(matches!(error, ScheduleError::ConflictingParams { .. }), "{error:?}");
    assert!(error.to_string().contains("Health"), "{error}");
}
