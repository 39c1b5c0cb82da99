//! Parallel query iteration visits every matching entity exactly once.

use std::sync::atomic::{AtomicU64, Ordering};

use mosaic::{Component, Without, World};

#[derive(Component)]
struct Value(u64);
#[derive(Component)]
struct Seen(u32);
#[derive(Component)]
struct Skip;

#[test]
fn par_for_each_visits_each_entity_once() {
    let count = if cfg!(miri) { 3_000 } else { 50_000 };
    let mut world = World::new();
    world.spawn_batch((0..count).map(|i| (Value(i), Seen(0))));
    let skipped = world.spawn_batch((0..100).map(|i| (Value(i), Seen(0), Skip)));
    let sum = AtomicU64::new(0);
    world.query_filtered::<(&Value, &mut Seen), Without<Skip>>().par_for_each(|(value, seen)| {
        seen.0 += 1;
        sum.fetch_add(value.0, Ordering::Relaxed);
    });
    assert_eq!(sum.into_inner(), count * (count - 1) / 2);
    let (mut ones, mut zeros) = (0, 0);
    for seen in world.query::<&Seen>() {
        match seen.0 {
            0 => zeros += 1,
            1 => ones += 1,
            n => panic!("visited {n} times"),
        }
    }
    assert_eq!((ones, zeros), (count, skipped.len() as u64));
}

#[test]
fn par_for_each_with_no_required_component_falls_back() {
    let mut world = World::new();
    world.spawn_batch((0..10).map(Value));
    let visited = AtomicU64::new(0);
    world.query::<Option<&Value>>().par_for_each(|v| {
        assert!(v.is_some());
        visited.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(visited.into_inner(), 10);
}
