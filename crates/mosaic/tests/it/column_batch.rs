//! Column-wise batch spawns (`ColumnBatch`, `World::spawn_column_batch`): the same world as
//! spawning each row as a bundle, on the one-copy path and on the observed one.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mosaic::{Added, ColumnBatch, ColumnBatchError, Component, Entity, World};

use crate::common::{
    DropCounter, Marker, Name, Position, Tracked, Velocity, assert_pools_consistent, pool_len,
};

#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "soa")]
struct Point {
    x: f32,
    y: f32,
}

#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(cleanup = "lazy")]
struct Lazy(u32);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(track_changes)]
struct Watched(u32);

fn batch(n: usize) -> ColumnBatch {
    ColumnBatch::new()
        .with((0..n).map(|i| Position::new(i as i32, -(i as i32))).collect())
        .and_then(|b| b.with((0..n).map(|i| Velocity(i as i32 * 10)).collect()))
        .and_then(|b| b.with((0..n).map(|i| Name(format!("e{i}"))).collect()))
        .and_then(|b| b.with(vec![Marker; n]))
        .expect("columns of one length")
}

#[test]
fn each_row_becomes_an_entity_with_its_values() {
    let mut world = World::new();
    let before = world.spawn(Position::new(-1, -1));
    let b = batch(100);
    assert_eq!(b.len(), 100);
    assert_eq!(b.type_names().count(), 4);
    let spawned = world.spawn_column_batch(b).unwrap();
    assert_eq!(spawned.len(), 100);
    for (i, &e) in spawned.iter().enumerate() {
        assert_eq!(world.get::<Position>(e), Ok(&Position::new(i as i32, -(i as i32))));
        assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(i as i32 * 10)));
        assert_eq!(world.get::<Name>(e).map(|n| n.0.as_str()), Ok(format!("e{i}").as_str()));
        assert!(world.contains::<Marker>(e));
    }
    assert_eq!(world.get::<Position>(before), Ok(&Position::new(-1, -1)));
    assert_eq!(world.query::<(&Position, &Velocity, &Name, &Marker)>().iter().count(), 100);
    assert_eq!(pool_len::<Position>(&world), 101);
    assert_pools_consistent(&world);
    // Removing and despawning afterwards works on the appended rows.
    world.despawn(spawned[0]);
    assert_eq!(world.remove::<Velocity>(spawned[50]), Some(Velocity(500)));
    assert_pools_consistent(&world);
}

#[test]
fn recycled_indices_and_empty_batches() {
    let mut world = World::new();
    let old: Vec<Entity> = world.spawn_batch((0..10).map(|i| Position::new(i, i)));
    for &e in &old {
        world.despawn(e);
    }
    let spawned = world.spawn_column_batch(batch(10)).unwrap();
    for &e in &old {
        assert!(!world.is_alive(e) && !world.contains::<Position>(e), "stale handles stay dead");
    }
    assert!(spawned.iter().all(|&e| world.contains::<Name>(e)));
    assert_pools_consistent(&world);
    assert!(world.spawn_column_batch(ColumnBatch::new()).unwrap().is_empty());
    let empty_column = ColumnBatch::new().with(Vec::<Position>::new()).unwrap();
    assert!(empty_column.is_empty());
    assert!(world.spawn_column_batch(empty_column).unwrap().is_empty());
}

#[test]
fn bad_columns_are_errors_naming_the_type() {
    let error = ColumnBatch::new().with(vec![Marker; 3]).unwrap().with(vec![Velocity(0); 2]).unwrap_err();
    assert!(matches!(error, ColumnBatchError::Length { expected: 3, found: 2, .. }));
    assert!(error.to_string().contains("Velocity"), "{error}");
    let mut twice = ColumnBatch::new();
    twice.add(vec![Velocity(1)]).unwrap();
    let error = twice.add(vec![Velocity(2)]).unwrap_err();
    assert!(matches!(error, ColumnBatchError::Duplicate { .. }) && error.to_string().contains("Velocity"));
    assert_eq!(twice.len(), 1, "the refused column changed nothing");
}

#[test]
fn values_are_moved_once_and_dropped_once() {
    let drops = DropCounter::new();
    {
        let mut world = World::new();
        let b = ColumnBatch::new().with((0..64).map(|i| drops.track(i)).collect()).unwrap();
        let spawned = world.spawn_column_batch(b).unwrap();
        assert_eq!(drops.drops(), 0, "moved, not copied and dropped");
        assert_eq!(world.get::<Tracked>(spawned[63]).map(|t| t.id), Ok(63));
        world.despawn(spawned[1]);
        assert_eq!(drops.drops(), 1);
        // A refused batch drops its columns.
        let refused = ColumnBatch::new().with(vec![drops.track(100)]).unwrap().with(vec![Velocity(0); 2]);
        assert!(refused.is_err());
        assert_eq!(drops.drops(), 2);
    }
    assert_eq!(drops.drops(), 65);
}

#[test]
fn struct_of_arrays_lazy_and_tracked_pools_take_columns_too() {
    let mut world = World::new();
    world.clear_trackers();
    let b = ColumnBatch::new()
        .with((0..20).map(|i| Point { x: i as f32, y: 1.0 }).collect())
        .unwrap()
        .with((0..20).map(Lazy).collect())
        .unwrap()
        .with((0..20).map(Watched).collect())
        .unwrap();
    let spawned = world.spawn_column_batch(b).unwrap();
    for (i, &e) in spawned.iter().enumerate() {
        assert_eq!(world.get::<Point>(e).map(|p| *p.x), Ok(i as f32));
        assert_eq!(world.get::<Lazy>(e), Ok(&Lazy(i as u32)));
    }
    let added: Vec<Entity> = world.query_filtered::<Entity, Added<Watched>>().iter().collect();
    assert_eq!(added.len(), 20, "the tracked pool logged every new row");
    assert_pools_consistent(&world);
}

#[test]
fn subscribers_see_whole_entities_as_with_a_bundle_spawn() {
    let mut world = World::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    world.on_add::<Position>(move |ctx| {
        let velocity = ctx.world.get::<Velocity>(ctx.entity).ok().copied();
        log.lock().unwrap().push((ctx.entity, velocity));
    });
    let entered = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&entered);
    world.watch::<(&Position, &Velocity), ()>(
        move |_| {
            counter.fetch_add(1, Ordering::Relaxed);
        },
        |_| {},
    );
    world.group::<(Position, Velocity)>();
    let spawned = world.spawn_column_batch(batch(30)).unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 30);
    for (i, &(e, velocity)) in seen.iter().enumerate() {
        assert_eq!(e, spawned[i], "hooks run in row order");
        assert_eq!(velocity, Some(Velocity(i as i32 * 10)), "the hook sees the whole row");
    }
    assert_eq!(entered.load(Ordering::Relaxed), 30);
    assert_eq!(world.query::<(&Position, &Velocity)>().iter().count(), 30);
    assert_pools_consistent(&world);
}

#[test]
fn an_empty_pool_takes_the_column_and_later_rows_grow_it() {
    let mut world = World::new();
    let mut names = Vec::with_capacity(100); // spare capacity travels with the buffer
    names.extend((0..10).map(|i| Name(format!("first{i}"))));
    let first = world.spawn_column_batch(ColumnBatch::new().with(names).unwrap()).unwrap();
    let second = world
        .spawn_column_batch(
            ColumnBatch::new().with((0..10).map(|i| Name(format!("second{i}"))).collect()).unwrap(),
        )
        .unwrap();
    for i in 0..200 {
        world.spawn(Name(format!("single{i}"))); // grows (reallocates) the adopted buffer
    }
    for (i, (&a, &b)) in first.iter().zip(&second).enumerate() {
        assert_eq!(world.get::<Name>(a).unwrap().0, format!("first{i}"));
        assert_eq!(world.get::<Name>(b).unwrap().0, format!("second{i}"));
    }
    assert_eq!(pool_len::<Name>(&world), 220);
    assert_pools_consistent(&world);
}
