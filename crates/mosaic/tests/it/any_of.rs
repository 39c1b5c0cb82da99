//! `AnyOf`: entities with at least one of several terms, each term's item where it matches
//! (bevy's `AnyOf`; its `any_query` test is ported first).

use mosaic::{
    AnyOf, Changed, Component, Disabled, Entity, Has, Query, QueryError, ResMut, Schedule, With, Without,
    World,
};

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct A(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct B(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct C(u32);

// bevy: any_query (query/mod.rs)
#[test]
fn any_query() {
    let mut world = World::new();
    world.spawn((A(1), B(2)));
    world.spawn(A(2));
    world.spawn(C(3));
    let values: Vec<(Option<&A>, Option<&B>)> = world.query::<AnyOf<(&A, &B)>>().into_iter().collect();
    assert_eq!(values, vec![(Some(&A(1)), Some(&B(2))), (Some(&A(2)), None)]);
}

#[test]
fn beside_a_required_term_and_filters() {
    let mut world = World::new();
    let both = world.spawn((C(0), A(1), B(1)));
    let only_b = world.spawn((C(1), B(2)));
    world.spawn(C(2));
    world.spawn((A(9), B(9))); // no C: not walked
    let tagged = world.spawn((C(3), A(4)));
    let seen: Vec<(Entity, Option<u32>, Option<u32>)> = world
        .query::<(Entity, &C, AnyOf<(&A, &B)>)>()
        .into_iter()
        .map(|(e, _, (a, b))| (e, a.map(|a| a.0), b.map(|b| b.0)))
        .collect();
    assert_eq!(seen, [(both, Some(1), Some(1)), (only_b, None, Some(2)), (tagged, Some(4), None)]);
    let without_b: Vec<Entity> =
        world.query_filtered::<(Entity, AnyOf<(&A, &C)>), Without<B>>().into_iter().map(|(e, _)| e).collect();
    assert_eq!(without_b.len(), 2, "the lone C and the C with an A");
    assert!(without_b.contains(&tagged));
    assert_eq!(world.query_filtered::<AnyOf<(&A,)>, With<B>>().count(), 2);
}

#[test]
fn counts_and_lookups_refuse_entities_with_none() {
    let mut world = World::new();
    let a = world.spawn(A(1));
    let c = world.spawn(C(1));
    let query = world.query::<AnyOf<(&A, &B)>>();
    assert_eq!(query.count(), 1);
    assert!(!query.is_empty());
    assert_eq!(query.get(a).map(|(a, b)| (a.copied(), b.copied())), Ok((Some(A(1)), None)));
    assert!(matches!(query.get(c), Err(QueryError::NoMatch { .. })));
    assert!(World::new().query::<AnyOf<(&A, &B)>>().is_empty());
}

#[test]
fn members_may_be_tuples_and_has() {
    let mut world = World::new();
    world.spawn((A(1), B(1)));
    world.spawn(A(2));
    world.spawn(C(3));
    // A tuple member matches when all of its members do; `Has` always matches.
    let pairs: Vec<Option<(u32, u32)>> =
        world.query::<AnyOf<((&A, &B),)>>().into_iter().map(|(ab,)| ab.map(|(a, b)| (a.0, b.0))).collect();
    assert_eq!(pairs, [Some((1, 1))]);
    assert_eq!(world.query::<AnyOf<(&A, Has<B>)>>().count(), 3, "`Has` matches every entity");
}

#[test]
fn writing_members_stamp_only_what_they_hand_out() {
    let mut world = World::new();
    world.track_changes::<A>();
    world.track_changes::<B>();
    let ab = world.spawn((A(1), B(1)));
    let a = world.spawn(A(2));
    let b = world.spawn(B(3));
    world.spawn(C(0));
    world.clear_trackers();
    for (a, b) in world.query::<AnyOf<(&mut A, &mut B)>>() {
        if let Some(a) = a {
            a.0 += 10;
        }
        if let Some(b) = b {
            b.0 += 100;
        }
    }
    assert_eq!(world.get::<A>(ab), Ok(&A(11)));
    assert_eq!(world.get::<B>(ab), Ok(&B(101)));
    assert_eq!(world.get::<A>(a), Ok(&A(12)));
    assert_eq!(world.get::<B>(b), Ok(&B(103)));
    let mut changed_a: Vec<Entity> = world.query_filtered::<Entity, Changed<A>>().into_iter().collect();
    changed_a.sort();
    assert_eq!(changed_a, [ab, a]);
    let mut changed_b: Vec<Entity> = world.query_filtered::<Entity, Changed<B>>().into_iter().collect();
    changed_b.sort();
    assert_eq!(changed_b, [ab, b]);
}

#[test]
fn disabled_entities_are_skipped_unless_named() {
    let mut world = World::new();
    world.spawn(A(1));
    let off = world.spawn((A(2), Disabled));
    assert_eq!(world.query::<AnyOf<(&A, &B)>>().count(), 1);
    let with_off: Vec<bool> =
        world.query::<(AnyOf<(&A, &B)>, Has<Disabled>)>().into_iter().map(|(_, d)| d).collect();
    assert_eq!(with_off, [false, true]);
    assert!(world.is_alive(off));
}

#[test]
#[should_panic(expected = "mutably and immutably")]
fn aliasing_members_panic() {
    World::new().query::<AnyOf<(&mut A, &A)>>();
}

#[test]
fn par_for_each_and_systems() {
    #[derive(Default)]
    struct Sum(u32);
    fn add(query: Query<AnyOf<(&A, &B)>>, mut sum: ResMut<Sum>) {
        query.for_each(|(a, b)| sum.0 += a.map_or(0, |a| a.0) + b.map_or(0, |b| b.0));
    }
    let mut world = World::new();
    world.spawn_batch((0..1000).map(|i| A(i % 3)));
    world.spawn_batch((0..500).map(|i| (B(i % 5), C(0))));
    world.spawn_batch((0..200).map(|_| C(1)));
    let expected: u32 = (0..1000).map(|i| i % 3).sum::<u32>() + (0..500).map(|i| i % 5).sum::<u32>();
    let total = std::sync::atomic::AtomicU32::new(0);
    world.query::<AnyOf<(&A, &B)>>().par_for_each(|(a, b)| {
        let value = a.map_or(0, |a| a.0) + b.map_or(0, |b| b.0);
        total.fetch_add(value, std::sync::atomic::Ordering::Relaxed);
    });
    assert_eq!(total.into_inner(), expected);
    world.insert_resource(Sum::default());
    let mut schedule = Schedule::new();
    schedule.add_system(add);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Sum>().0, expected);
}
