//! Filtered walks that visit a `With` pool's entities instead of testing every driver row (when
//! the driver holds consecutive entity indices and the `With` pool is sorted by index): the
//! items, their order and their change stamps must be those of the row-by-row walk, whatever the
//! pools' orders.

use std::sync::Mutex;

use crate::common::{Marker, Name, Position, Velocity};
use mosaic::{Changed, Component, Entity, Query, With, Without, World};

/// A tag kept in a lazily cleaned pool.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
#[component(cleanup = "lazy")]
struct LazyTag;

/// 300 entities with (Position, Velocity), spawned together (consecutive indices, in order);
/// every entity `i` with `tagged(i)` also gets a `Marker`, in index order.
fn world_of(tagged: impl Fn(usize) -> bool) -> (World, Vec<Entity>) {
    let mut world = World::new();
    let entities = world.spawn_batch((0..300).map(|i| (Position::new(i, 0), Velocity(1))));
    world.insert_batch(entities.iter().enumerate().filter(|&(i, _)| tagged(i)).map(|(_, &e)| (e, Marker)));
    (world, entities)
}

/// What the query `(Entity, &mut Position), F` yields through `for_each`, through its iterator
/// (which tests every row), and through the parallel walk in chunks of 7 rows (sorted: its
/// order is the chunks'); asserts that the first two agree in order and the third as a set.
fn walks<F: mosaic::query::QueryFilter>(world: &mut World) -> Vec<Entity> {
    let mut by_each = Vec::new();
    world.query_filtered::<(Entity, &mut Position), F>().for_each(|(e, _)| by_each.push(e));
    let by_iter: Vec<Entity> =
        world.query_filtered::<(Entity, &mut Position), F>().into_iter().map(|(e, _)| e).collect();
    assert_eq!(by_each, by_iter, "for_each and the iterator disagree");
    let by_chunks = Mutex::new(Vec::new());
    world
        .query_filtered::<(Entity, &mut Position), F>()
        .par_for_each_with_min_chunk(7, |(e, _)| by_chunks.lock().unwrap().push(e));
    let (mut sorted, mut chunked) = (by_each.clone(), by_chunks.into_inner().unwrap());
    sorted.sort();
    chunked.sort();
    assert_eq!(sorted, chunked, "the parallel walk disagrees");
    by_each
}

/// The entities of `world` that have a `T`, in `order`.
fn having<T: Component>(world: &World, order: &[Entity]) -> Vec<Entity> {
    order.iter().copied().filter(|&e| world.contains::<T>(e)).collect()
}

#[test]
fn a_sorted_with_pool_over_consecutive_rows() {
    let (mut world, entities) = world_of(|i| i % 3 == 0);
    assert_eq!(walks::<With<Marker>>(&mut world), having::<Marker>(&world, &entities));
    // Tags past the driver's rows, and entities tagged without a Position.
    let extra: Vec<Entity> = (0..5).map(|_| world.spawn(Marker)).collect();
    assert_eq!(walks::<With<Marker>>(&mut world), having::<Marker>(&world, &entities));
    world.despawn(extra[2]);
    // With another term: the rest of the filter is still tested.
    for &e in entities.iter().step_by(5) {
        world.insert(e, Name(String::new()));
    }
    let expected: Vec<Entity> =
        having::<Marker>(&world, &entities).into_iter().filter(|&e| !world.contains::<Name>(e)).collect();
    assert_eq!(walks::<(With<Marker>, Without<Name>)>(&mut world), expected);
    assert_eq!(walks::<(Without<Name>, With<Marker>)>(&mut world), expected);
}

#[test]
fn disabled_entities_are_skipped() {
    let (mut world, entities) = world_of(|i| i % 2 == 0);
    world.disable(entities[4]);
    world.disable(entities[5]);
    let expected: Vec<Entity> =
        having::<Marker>(&world, &entities).into_iter().filter(|&e| e != entities[4]).collect();
    assert_eq!(walks::<With<Marker>>(&mut world), expected);
}

#[test]
fn pools_out_of_order_walk_row_by_row_in_the_same_order() {
    // Tags inserted out of index order: the walk pool is not sorted.
    let (mut world, entities) = world_of(|_| false);
    for &e in entities.iter().rev().step_by(4) {
        world.insert(e, Marker);
    }
    let driver_order: Vec<Entity> =
        world.query::<(Entity, &Position)>().into_iter().map(|(e, _)| e).collect();
    assert_eq!(walks::<With<Marker>>(&mut world), having::<Marker>(&world, &driver_order));
    // A removal from the driver breaks its run of consecutive indices.
    let (mut world, entities) = world_of(|i| i % 2 == 1);
    world.remove::<(Position,)>(entities[10]);
    let driver_order: Vec<Entity> =
        world.query::<(Entity, &Position)>().into_iter().map(|(e, _)| e).collect();
    assert_eq!(walks::<With<Marker>>(&mut world), having::<Marker>(&world, &driver_order));
    // ... and so does a despawn, which also leaves the tag pool sorted but with a gap.
    let (mut world, entities) = world_of(|i| i % 2 == 1);
    world.despawn(entities[11]);
    let driver_order: Vec<Entity> =
        world.query::<(Entity, &Position)>().into_iter().map(|(e, _)| e).collect();
    assert_eq!(walks::<With<Marker>>(&mut world), having::<Marker>(&world, &driver_order));
}

#[test]
fn a_lazy_with_pool_keeps_the_row_by_row_walk() {
    let (mut world, entities) = world_of(|_| false);
    for &e in entities.iter().step_by(3) {
        world.insert(e, LazyTag);
    }
    // A dead entity's row stays in the lazy pool; its index is reused by a new entity that has
    // a Position but no tag.
    world.despawn(entities[3]);
    let reused = world.spawn((Position::new(-1, 0), Velocity(1)));
    assert_eq!(reused.index(), entities[3].index(), "the test needs the index reused");
    let driver_order: Vec<Entity> =
        world.query::<(Entity, &Position)>().into_iter().map(|(e, _)| e).collect();
    let expected = having::<LazyTag>(&world, &driver_order);
    assert!(!expected.contains(&reused));
    assert_eq!(walks::<With<LazyTag>>(&mut world), expected);
}

#[test]
fn change_filters_and_stamps_match_the_row_walk() {
    let (mut world, entities) = world_of(|i| i % 2 == 0);
    world.track_changes::<Position>();
    world.track_changes::<Marker>();
    world.clear_trackers();
    // Writing through the filtered walk stamps exactly the tagged rows.
    world.query_filtered::<&mut Position, With<Marker>>().for_each(|p| p.y += 1);
    let changed: Vec<Entity> =
        world.query_filtered::<Entity, Changed<Position>>().into_iter().collect::<Vec<_>>();
    let mut changed_sorted = changed.clone();
    changed_sorted.sort();
    let mut tagged = having::<Marker>(&world, &entities);
    tagged.sort();
    assert_eq!(changed_sorted, tagged);
    // A change filter beside the `With` walk.
    world.clear_trackers();
    for &e in entities.iter().step_by(5) {
        world.get_mut::<Position>(e).unwrap().x += 1;
    }
    let expected: Vec<Entity> =
        having::<Marker>(&world, &entities).into_iter().filter(|e| e.index() % 5 == 0).collect();
    let mut got = Vec::new();
    world
        .query_filtered::<(Entity, &Velocity), (With<Marker>, Changed<Position>)>()
        .for_each(|(e, _)| got.push(e));
    got.sort();
    assert_eq!(got, expected);
}

#[test]
fn systems_see_the_same_items() {
    let (mut world, entities) = world_of(|i| i % 4 == 1);
    fn bump(mut q: Query<&mut Position, With<Marker>>) {
        q.for_each(|p| p.y += 10);
    }
    let mut schedule = mosaic::Schedule::new();
    schedule.add_system(bump);
    schedule.run(&mut world);
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.get::<Position>(e).unwrap().y, if i % 4 == 1 { 10 } else { 0 });
    }
}
