//! Iterator sizes: exact where the count is known without iterating (one-component queries,
//! queries that require nothing, combinations), bounds that hold everywhere else.

use mosaic::{Component, Entity, With, World};

#[derive(Component)]
struct A(#[allow(dead_code)] u32);
#[derive(Component)]
struct B;

/// Walks `iter` to the end, checking every step's size hint against what was actually left.
fn assert_hint_holds<I: Iterator>(mut iter: I) {
    let mut hints = vec![iter.size_hint()];
    while iter.next().is_some() {
        hints.push(iter.size_hint());
    }
    let total = hints.len() - 1;
    for (step, (low, high)) in hints.into_iter().enumerate() {
        let left = total - step;
        assert!(low <= left && high.is_none_or(|h| h >= left), "step {step}: ({low}, {high:?}) for {left}");
    }
}

#[test]
fn one_component_and_all_entity_walks_are_exact() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..10).map(|i| world.spawn(A(i))).collect();
    for &e in &entities[..4] {
        world.insert(e, B);
    }
    world.despawn(entities[7]);
    let q = world.query::<&A>();
    let mut iter = q.iter();
    for left in (0..=9).rev() {
        assert_eq!(iter.size_hint(), (left, Some(left)));
        if left > 0 {
            iter.next().unwrap();
        }
    }
    assert!(iter.next().is_none());
    let q = world.query::<Entity>();
    let mut all = q.iter();
    assert_eq!(all.size_hint(), (9, Some(9)));
    all.next();
    assert_eq!(all.size_hint(), (8, Some(8)));
    assert_eq!(all.count(), 8);
    assert_eq!(world.entities().iter().len(), 9);
}

#[test]
fn filtered_and_joined_walks_give_bounds_that_hold() {
    let mut world = World::new();
    for i in 0..20 {
        let e = world.spawn(A(i));
        if i % 3 == 0 {
            world.insert(e, B);
        }
    }
    let q = world.query_filtered::<&A, With<B>>();
    let (low, high) = q.iter().size_hint();
    let actual = q.iter().count();
    assert!(low <= actual && high.is_none_or(|h| h >= actual), "{low} {high:?} {actual}");
    assert_hint_holds(q.iter());
    let q = world.query::<(&A, &B)>();
    assert_hint_holds(q.iter());
}

#[test]
fn combinations_know_how_many_are_left() {
    let mut world = World::new();
    for i in 0..6 {
        world.spawn(A(i));
    }
    let q = world.query::<&A>();
    let mut pairs = q.iter_combinations::<2>();
    for left in (0..=15).rev() {
        assert_eq!(pairs.len(), left);
        assert_eq!(pairs.size_hint(), (left, Some(left)));
        assert_eq!(pairs.next().is_some(), left > 0);
    }
    let triples = q.iter_combinations::<3>();
    assert_eq!(triples.len(), 20);
    assert_eq!(triples.count(), 20);
    assert_eq!(q.iter_combinations::<0>().len(), 0);
    assert_eq!(q.iter_combinations::<7>().len(), 0);
    let mut q = world.query::<&mut A>();
    let mut walk = q.iter_combinations_mut::<4>();
    let mut n = 0;
    while walk.fetch_next().is_some() {
        n += 1;
        assert_eq!(walk.remaining(), Some(15 - n));
    }
}

#[test]
fn combinations_past_usize_say_so() {
    let mut world = World::new();
    world.spawn_batch((0..70_000).map(A));
    let q = world.query::<&A>();
    let many = q.iter_combinations::<5>();
    assert_eq!(many.remaining(), None);
    assert_eq!(many.size_hint(), (usize::MAX, None));
    let pairs = q.iter_combinations::<2>();
    assert_eq!(pairs.len(), 70_000 * 69_999 / 2);
}
