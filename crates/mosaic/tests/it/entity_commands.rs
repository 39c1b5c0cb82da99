//! `CommandBuffer::entity` / `Commands::entity`: commands about one entity, chained (bevy's
//! `EntityCommands`), recorded in call order and applied as the buffer's own.

use mosaic::{ApplyReport, CommandBuffer, Commands, Component, Entity, Query, Schedule, With, World};

#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
struct Health(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Moving;
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Stunned(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[require(Health)]
struct Soldier;

#[test]
fn a_chain_records_in_call_order() {
    let mut world = World::new();
    let e = world.spawn((Moving, Health(5)));
    let mut commands = CommandBuffer::new();
    let id = commands
        .entity(e)
        .remove::<Moving>()
        .insert(Stunned(1))
        .insert(Stunned(2))
        .insert_if_new(Health(99))
        .id();
    assert_eq!(id, e);
    assert_eq!(commands.len(), 4);
    let report = commands.apply(&mut world);
    assert_eq!(report.applied, 4);
    assert!(!world.contains::<Moving>(e));
    assert_eq!(world.get::<Stunned>(e), Ok(&Stunned(2)), "the later insert wins");
    assert_eq!(world.get::<Health>(e), Ok(&Health(5)), "insert_if_new keeps what is there");
    commands.entity(e).insert_if_neq(Health(5)).insert_if_neq(Health(6));
    commands.apply(&mut world);
    assert_eq!(world.get::<Health>(e), Ok(&Health(6)));
}

#[test]
fn requires_retain_and_despawn() {
    let mut world = World::new();
    let e = world.spawn((Soldier, Moving, Stunned(1)));
    assert!(world.contains::<Health>(e), "required");
    let mut commands = CommandBuffer::new();
    commands.entity(e).retain::<Soldier>();
    commands.apply(&mut world);
    assert!(world.contains::<Soldier>(e) && world.contains::<Health>(e));
    assert!(!world.contains::<Moving>(e) && !world.contains::<Stunned>(e));
    commands.entity(e).remove_with_requires::<Soldier>();
    commands.apply(&mut world);
    assert!(!world.contains::<Soldier>(e) && !world.contains::<Health>(e));
    let other = world.spawn(Moving);
    commands.entity(other).despawn();
    commands.entity(other).insert(Stunned(3));
    let report = commands.apply(&mut world);
    assert_eq!(report, ApplyReport { applied: 1, skipped: 1, refused: 0, spawned: 0, despawned: 1 });
    assert!(!world.is_alive(other));
}

#[test]
fn in_a_system_and_in_runs() {
    fn stun(mut commands: Commands, moving: Query<Entity, With<Moving>>) {
        for e in &moving {
            commands.entity(e).remove::<Moving>();
        }
        for e in &moving {
            commands.entity(e).insert(Stunned(e.index()));
        }
    }
    let mut world = World::new();
    let movers: Vec<Entity> = world.spawn_batch((0..50).map(|_| Moving));
    let still = world.spawn(Health(1));
    let mut schedule = Schedule::new();
    schedule.add_system(stun);
    schedule.run(&mut world);
    for &e in &movers {
        assert!(!world.contains::<Moving>(e));
        assert_eq!(world.get::<Stunned>(e), Ok(&Stunned(e.index())));
    }
    assert!(!world.contains::<Stunned>(still));
    let order: Vec<u32> = world.query::<&Stunned>().into_iter().map(|s| s.0).collect();
    assert_eq!(order, movers.iter().map(|e| e.index()).collect::<Vec<_>>(), "inserted in command order");
}
