//! Drops: every component value is dropped exactly once, whichever way it leaves the world.

use crate::common;

use common::{
    DropCounter, Marker, Tracked, Tracked2, Velocity, assert_pools_consistent, panic_message, pool_len,
};
use mosaic::{CommandBuffer, ComponentError, EntityError, World};

#[test]
fn insert_does_not_drop_and_world_drop_drops_once() {
    let drops = DropCounter::new();
    let mut world = World::new();
    let e = world.spawn_empty();
    assert_eq!(world.insert(e, drops.track(1)).map(|t| t.id), None);
    assert_eq!(drops.drops(), 0);
    drop(world);
    assert_eq!(drops.drops(), 1);
}

#[test]
fn replace_hands_back_the_old_value_undropped() {
    let drops = DropCounter::new();
    let mut world = World::new();
    let e = world.spawn(drops.track(1));
    let old = world.insert(e, drops.track(2)).unwrap();
    assert_eq!(old.id, 1);
    assert_eq!(drops.drops(), 0, "the replaced value belongs to the caller now");
    drop(old);
    assert_eq!(drops.drops(), 1);
    assert_eq!(world.get::<Tracked>(e).map(|t| t.id), Ok(2));
    drop(world);
    assert_eq!(drops.drops(), 2);
}

#[test]
fn insert_bundle_drops_the_values_it_replaces() {
    let drops = DropCounter::new();
    let mut world = World::new();
    let e = world.spawn((drops.track(1), drops.track2(2)));
    world.insert_bundle(e, (drops.track(3), drops.track2(4)));
    assert_eq!(drops.drops(), 2);
    assert_eq!(world.get::<Tracked>(e).map(|t| t.id), Ok(3));
    assert_eq!(world.get::<Tracked2>(e).map(|t| t.0.id), Ok(4));
    drop(world);
    assert_eq!(drops.drops(), 4);
}

#[test]
fn remove_returns_the_value_and_the_caller_drops_it() {
    let drops = DropCounter::new();
    let mut world = World::new();
    let entities = world.spawn_batch((0..5).map(|i| drops.track(i)));
    let removed = world.remove::<Tracked>(entities[1]).unwrap();
    assert_eq!(removed.id, 1);
    assert_eq!(drops.drops(), 0);
    drop(removed);
    assert_eq!(drops.drops(), 1);
    // The row moved into the hole was not dropped or duplicated.
    for (i, &e) in entities.iter().enumerate() {
        let expected = if i == 1 { None } else { Some(i as u32) };
        assert_eq!(world.get::<Tracked>(e).ok().map(|t| t.id), expected);
    }
    let taken = world.try_remove::<Tracked>(entities[4]).unwrap();
    assert_eq!(taken.id, 4);
    drop(taken);
    assert_eq!(drops.drops(), 2);
    drop(world);
    assert_eq!(drops.drops(), 5);
}

#[test]
fn despawn_drops_each_component_once() {
    let drops = DropCounter::new();
    let mut world = World::new();
    let a = world.spawn((drops.track(1), drops.track2(2), Velocity(0)));
    let b = world.spawn((drops.track(3), drops.track2(4)));
    world.despawn(a);
    assert_eq!(drops.drops(), 2);
    assert_eq!(world.get::<Tracked>(b).map(|t| t.id), Ok(3));
    assert_eq!(world.get::<Tracked2>(b).map(|t| t.0.id), Ok(4));
    assert_eq!(world.try_despawn(a), Err(EntityError::NoSuchEntity(a)));
    assert_eq!(drops.drops(), 2, "a refused despawn drops nothing");
    world.despawn(b);
    assert_eq!(drops.drops(), 4);
    drop(world);
    assert_eq!(drops.drops(), 4);
}

#[test]
fn world_drop_drops_every_value_and_resource() {
    let drops = DropCounter::new();
    let mut world = World::new();
    let n = 100;
    world.spawn_batch((0..n).map(|i| (drops.track(i), Marker)));
    world.spawn_batch((0..n).map(|i| drops.track2(i)));
    world.insert_resource(drops.track(1000));
    assert_eq!(drops.drops(), 0);
    drop(world);
    assert_eq!(drops.drops(), 2 * n as usize + 1);
}

#[test]
fn refused_values_are_dropped_once() {
    let drops = DropCounter::new();
    let mut world = World::with_entity_limits(1, u32::MAX);
    let e = world.spawn(Velocity(0));
    assert!(world.try_spawn(drops.track(1)).is_err(), "exhausted");
    assert_eq!(drops.drops(), 1);
    world.despawn(e);
    assert_eq!(
        world.try_insert(e, drops.track(2)).map(|_| ()),
        Err(ComponentError::Entity(EntityError::NoSuchEntity(e)))
    );
    assert_eq!(drops.drops(), 2);
    assert_eq!(
        world.try_insert_bundle(e, (drops.track(3), drops.track2(4))),
        Err(ComponentError::Entity(EntityError::NoSuchEntity(e)))
    );
    assert_eq!(drops.drops(), 4);
    drop(world);
    assert_eq!(drops.drops(), 4);
}

#[test]
fn resources_drop_once() {
    let drops = DropCounter::new();
    let mut world = World::new();
    assert!(world.insert_resource(drops.track(1)).is_none());
    let old = world.insert_resource(drops.track(2)).unwrap();
    assert_eq!((old.id, drops.drops()), (1, 0));
    drop(old);
    assert_eq!(drops.drops(), 1);
    let removed = world.remove_resource::<Tracked>().unwrap();
    assert_eq!((removed.id, drops.drops()), (2, 1));
    drop(removed);
    assert_eq!(drops.drops(), 2);
    drop(world);
    assert_eq!(drops.drops(), 2);
}

#[test]
fn command_buffer_drops_skipped_bundles_once() {
    let drops = DropCounter::new();
    let mut world = World::new();
    let e = world.spawn(Velocity(0));
    let mut commands = CommandBuffer::new();
    commands.insert(e, drops.track(1));
    commands.insert(e, (drops.track(2), drops.track2(3)));
    world.despawn(e);
    assert_eq!(drops.drops(), 0, "recorded bundles wait in the buffer");
    let report = commands.apply(&mut world);
    assert_eq!((report.applied, report.skipped), (0, 2));
    assert_eq!(drops.drops(), 3);
    assert_eq!(pool_len::<Tracked>(&world), 0);
    drop(commands);
    drop(world);
    assert_eq!(drops.drops(), 3);
}

#[test]
fn command_buffer_apply_moves_values_without_dropping() {
    let drops = DropCounter::new();
    let mut world = World::new();
    let e = world.spawn(drops.track(0));
    let mut commands = CommandBuffer::new();
    commands.spawn(&world, drops.track(1));
    commands.spawn(&world, (drops.track(2), drops.track2(3)));
    commands.insert(e, drops.track2(4));
    commands.insert(e, drops.track(5)); // replaces track(0), which is dropped
    commands.remove::<Tracked2>(e); // drops track2(4)
    let report = commands.apply(&mut world);
    assert_eq!(report.applied, 5);
    assert_eq!(drops.drops(), 2);
    assert_eq!(world.get::<Tracked>(e).map(|t| t.id), Ok(5));
    assert_eq!(pool_len::<Tracked>(&world), 3);
    assert_eq!(pool_len::<Tracked2>(&world), 1);
    commands.despawn(e);
    commands.apply(&mut world);
    assert_eq!(drops.drops(), 3);
    drop(world);
    assert_eq!(drops.drops(), 6);
}

#[test]
fn command_buffer_dropped_unapplied_drops_its_bundles() {
    let drops = DropCounter::new();
    let mut world = World::new();
    let e = world.spawn_empty();
    let mut commands = CommandBuffer::new();
    commands.spawn(&world, drops.track(1));
    commands.insert(e, (drops.track(2), drops.track2(3)));
    drop(commands);
    assert_eq!(drops.drops(), 3);
    assert!(!world.contains::<Tracked>(e));
    world.despawn(e);
}

/// A component whose drop panics.
#[derive(mosaic::Component)]
struct PanicOnDrop;

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        panic!("PanicOnDrop dropped");
    }
}

#[test]
fn despawn_with_a_panicking_drop_still_despawns_fully() {
    let drops = DropCounter::new();
    let mut world = World::new();
    let e = world.spawn((drops.track(1), PanicOnDrop, drops.track2(2)));
    let f = world.spawn((drops.track(3), drops.track2(4)));
    let message = panic_message(|| world.despawn(e));
    assert!(message.contains("PanicOnDrop dropped"), "{message}");
    assert!(!world.is_alive(e));
    assert_eq!(drops.drops(), 2, "the other components were dropped during the unwind");
    assert_eq!(pool_len::<PanicOnDrop>(&world), 0);
    assert_eq!(pool_len::<Tracked>(&world), 1);
    assert_eq!(world.get::<Tracked>(f).map(|t| t.id), Ok(3));
    assert_pools_consistent(&world);
    drop(world);
    assert_eq!(drops.drops(), 4);
}
