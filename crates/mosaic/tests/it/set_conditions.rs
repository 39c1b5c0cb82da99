//! Run conditions on sets: evaluated once per frame whatever the number of systems in the set,
//! gating each of them, combined with the systems' own conditions and other sets'.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mosaic::{Commands, Component, ResMut, Schedule, World};

#[derive(Default)]
struct Log(Vec<&'static str>);

struct Paused(bool);
struct Muted(bool);

#[derive(Component)]
struct Spark;

fn physics(mut log: ResMut<Log>) {
    log.0.push("physics");
}
fn spawner(mut commands: Commands, mut log: ResMut<Log>) {
    commands.spawn(Spark);
    log.0.push("spawner");
}
fn collisions(mut log: ResMut<Log>) {
    log.0.push("collisions");
}
fn sound(mut log: ResMut<Log>) {
    log.0.push("sound");
}
fn always(mut log: ResMut<Log>) {
    log.0.push("always");
}

fn world() -> World {
    let mut world = World::new();
    world.insert_resource(Log::default());
    world.insert_resource(Paused(false));
    world.insert_resource(Muted(false));
    world
}

fn frame(schedule: &mut Schedule, world: &mut World) -> Vec<&'static str> {
    schedule.run(world);
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

#[test]
fn a_sets_conditions_gate_all_its_systems_and_run_once_per_frame() {
    let evaluations = Arc::new(AtomicUsize::new(0));
    let counted = evaluations.clone();
    let mut schedule = Schedule::new();
    schedule.add_system(physics).in_set("sim");
    // A command buffer ends the segment: the set's systems span two segments.
    schedule.add_system(spawner).in_set("sim").after(physics);
    schedule.add_system(collisions).in_set("sim").after(spawner);
    schedule.add_system(always).after(collisions);
    schedule.configure_set("sim").run_if(move |world| {
        counted.fetch_add(1, Ordering::Relaxed);
        !world.resource::<Paused>().0
    });
    let mut world = world();
    assert_eq!(frame(&mut schedule, &mut world), ["physics", "spawner", "collisions", "always"]);
    assert_eq!(evaluations.load(Ordering::Relaxed), 1, "once for three systems");
    world.resource_mut::<Paused>().0 = true;
    assert_eq!(frame(&mut schedule, &mut world), ["always"]);
    assert_eq!(evaluations.load(Ordering::Relaxed), 2);
    assert_eq!(world.query::<&Spark>().iter().count(), 1, "the paused spawner spawned nothing");
}

#[test]
fn several_sets_and_own_conditions_all_must_hold() {
    let mut schedule = Schedule::new();
    schedule.add_system(physics).in_set("sim");
    schedule.add_system(sound).in_set("sim").in_set("audio").after(physics);
    schedule
        .add_system(collisions)
        .in_set("sim")
        .after(sound)
        .run_if(|world| world.resource::<Log>().0.len() < 2);
    schedule.configure_set("sim").run_if(|world| !world.resource::<Paused>().0);
    schedule.configure_set("audio").run_if(|world| !world.resource::<Muted>().0);
    let mut world = world();
    // `collisions` sees two entries already: its own condition fails.
    assert_eq!(frame(&mut schedule, &mut world), ["physics", "sound"]);
    world.resource_mut::<Muted>().0 = true;
    assert_eq!(frame(&mut schedule, &mut world), ["physics", "collisions"]);
    world.resource_mut::<Paused>().0 = true;
    assert_eq!(frame(&mut schedule, &mut world), Vec::<&str>::new());
}

#[test]
fn two_conditions_on_one_set_are_both_evaluated_every_frame() {
    let first = Arc::new(AtomicUsize::new(0));
    let second = Arc::new(AtomicUsize::new(0));
    let (f, s) = (first.clone(), second.clone());
    let mut schedule = Schedule::new();
    schedule.add_system(physics).in_set("sim");
    schedule.configure_set("sim").run_if(move |_| {
        f.fetch_add(1, Ordering::Relaxed);
        false
    });
    schedule.configure_set("sim").run_if(move |_| {
        s.fetch_add(1, Ordering::Relaxed);
        true
    });
    let mut world = world();
    for _ in 0..3 {
        assert!(frame(&mut schedule, &mut world).is_empty());
    }
    assert_eq!((first.load(Ordering::Relaxed), second.load(Ordering::Relaxed)), (3, 3), "no short-circuit");
}
