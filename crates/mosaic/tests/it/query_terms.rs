//! Query terms beyond plain fetches: `Or`, `Has`, `get_many_mut`, `single`, read-only queries
//! through a shared borrow, and `count` on every driver and filter.

use crate::common;

use std::any::type_name;

use crate::query::{A, B, C, NeverUsed};
use common::{Marker, panic_message};
use mosaic::{Entity, QueryError, With, Without, World};

/// A world with A on 0..10, B on the even ones, C on multiples of 3.
fn abc_world() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..10).map(|i| world.spawn(A(i))).collect();
    for (i, &e) in entities.iter().enumerate() {
        if i % 2 == 0 {
            world.insert(e, B(i as u32));
        }
        if i % 3 == 0 {
            world.insert(e, C(i as u32));
        }
    }
    (world, entities)
}

#[test]
fn or_passes_entities_with_any_alternative() {
    use mosaic::Or;
    let (mut world, _) = abc_world();
    let mut ids: Vec<u32> =
        world.query_filtered::<&A, Or<(With<B>, With<C>)>>().into_iter().map(|a| a.0).collect();
    ids.sort();
    assert_eq!(ids, [0, 2, 3, 4, 6, 8, 9]);
    // Nested in a tuple with other filters, and with Without inside.
    let mut ids: Vec<u32> = world
        .query_filtered::<&A, (Without<B>, Or<(With<C>, Without<C>)>)>()
        .into_iter()
        .map(|a| a.0)
        .collect();
    ids.sort();
    assert_eq!(ids, [1, 3, 5, 7, 9]);
    assert_eq!(world.query_filtered::<Entity, Or<()>>().count(), 0, "an empty Or passes nothing");
    // With no required component the query walks every live entity.
    world.spawn(C(100));
    assert_eq!(world.query_filtered::<Entity, Or<(With<B>, With<C>)>>().count(), 8);
    assert_eq!(world.query_filtered::<Entity, Or<(With<B>, With<NeverUsed>)>>().count(), 5);
}

#[test]
#[should_panic(expected = "a watch cannot follow the filter")]
fn watching_an_or_filter_panics() {
    use mosaic::Or;
    let mut world = World::new();
    world.watch::<&A, Or<(With<B>, With<C>)>>(|_| {}, |_| {});
}

#[test]
fn has_yields_presence_without_requiring_or_borrowing() {
    use mosaic::Has;
    let (mut world, entities) = abc_world();
    let mut rows: Vec<(u32, bool)> =
        world.query::<(&A, Has<B>)>().into_iter().map(|(a, b)| (a.0, b)).collect();
    rows.sort();
    assert_eq!(rows, (0..10).map(|i| (i, i % 2 == 0)).collect::<Vec<_>>());
    // Beside `&mut B`: no aliasing, since `Has` reads no value.
    for (b, has_b, has_c) in world.query::<(&mut B, Has<B>, Has<C>)>() {
        assert!(has_b);
        if has_c {
            b.0 += 100;
        }
    }
    assert_eq!(world.get::<B>(entities[6]), Ok(&B(106)));
    assert_eq!(world.get::<B>(entities[4]), Ok(&B(4)));
    // Alone it walks every live entity; for a never-registered type it is always false.
    assert_eq!(world.query::<Has<B>>().into_iter().filter(|&b| b).count(), 5);
    assert!(world.query::<Has<NeverUsed>>().into_iter().all(|b| !b));
    assert_eq!(world.query::<Has<NeverUsed>>().count(), 10);
}

#[test]
fn get_many_mut_hands_out_distinct_items_and_refuses_duplicates() {
    let (mut world, entities) = abc_world();
    let mut q = world.query::<(&mut A, &B)>();
    let [x, y] = q.get_many_mut([entities[2], entities[4]]).unwrap();
    std::mem::swap(&mut x.0.0, &mut y.0.0);
    assert_eq!(
        q.get_many_mut([entities[0], entities[8], entities[0]]).err(),
        Some(QueryError::DuplicateEntity { entity: entities[0] })
    );
    assert!(matches!(
        q.get_many_mut([entities[0], entities[1]]),
        Err(QueryError::NoMatch { entity, .. }) if entity == entities[1]
    ));
    assert_eq!(q.get_many_mut::<0>([]).map(|items| items.len()), Ok(0));
    let dead = entities[8];
    world.despawn(dead);
    let mut q = world.query::<(&mut A, &B)>();
    assert!(q.get_many_mut([entities[0], dead]).is_err(), "a dead entity is an error");
    assert_eq!(world.get::<A>(entities[2]), Ok(&A(4)));
    assert_eq!(world.get::<A>(entities[4]), Ok(&A(2)));
    assert!(QueryError::DuplicateEntity { entity: dead }.to_string().contains("distinct"));
}

#[test]
fn single_and_try_single_want_exactly_one_match() {
    let (mut world, entities) = abc_world();
    assert!(matches!(world.query::<&NeverUsed>().try_single(), Err(QueryError::NoEntities { .. })));
    assert!(matches!(world.query::<&B>().try_single(), Err(QueryError::MultipleEntities { .. })));
    world.insert(entities[5], Marker);
    world.query_filtered::<&mut A, With<Marker>>().single_mut().0 = 55;
    assert_eq!(world.get::<A>(entities[5]), Ok(&A(55)));
    let message = panic_message(|| world.query::<&A>().single().0);
    assert!(message.contains("more than one"), "{message}");
}

#[test]
fn read_only_queries_hand_out_items_through_a_shared_borrow() {
    let (mut world, entities) = abc_world();
    // No `mut`: `get`, `get_many`, `iter`, `for_each`, `single` and `&query` all take `&self`,
    // and their items may be held side by side.
    let q = world.query::<(Entity, &A)>();
    let first = q.get(entities[0]).unwrap();
    let second = q.get(entities[2]).unwrap();
    let walked: Vec<Entity> = q.iter().map(|(e, _)| e).collect();
    assert_eq!((first.1, second.1), (&A(0), &A(2)));
    assert_eq!(walked.len(), q.count());
    assert_eq!(walked, (&q).into_iter().map(|(e, _)| e).collect::<Vec<_>>());
    let mut visited = 0;
    q.for_each(|(e, a)| {
        // Reading another item of the same query inside the walk is fine for a read-only query.
        assert_eq!(q.get(e).unwrap().1, a);
        visited += 1;
    });
    assert_eq!(visited, walked.len());
    let [x, y, again] = q.get_many([entities[4], entities[6], entities[4]]).unwrap();
    assert_eq!((x.1, y.1, again.1), (&A(4), &A(6), &A(4)));
    assert!(matches!(q.try_single(), Err(QueryError::MultipleEntities { .. })));
    let with_b = world.query_ref::<&B>();
    assert!(
        matches!(with_b.get_many([entities[0], entities[1]]), Err(QueryError::NoMatch { entity, .. }) if entity == entities[1])
    );

    fn sum(q: &mosaic::Query<&A>) -> u32 {
        q.iter().map(|a| a.0).sum()
    }
    let expected: u32 = world.query::<&A>().into_iter().map(|a| a.0).sum();
    assert_eq!(sum(&world.query::<&A>()), expected);

    // A query that writes still reaches `get`/`iter`/`single` through `&mut`, with `&mut` items.
    let mut q = world.query::<&mut A>();
    q.get_mut(entities[0]).unwrap().0 = 100;
    for a in q.iter_mut() {
        a.0 += 1;
    }
    q.for_each(|a| a.0 += 1);
    assert_eq!(world.get::<A>(entities[0]), Ok(&A(102)));
    world.insert(entities[4], Marker);
    let mut q = world.query_filtered::<&mut B, With<Marker>>();
    q.single_mut().0 = 7;
    assert_eq!(q.try_single_mut().map(|b| b.0), Ok(7));
}

#[test]
fn read_only_system_parameters_need_no_mut() {
    use mosaic::{Query, ResMut, Schedule};
    #[derive(Default)]
    struct Seen(Vec<u32>);
    fn read(q: Query<&A, With<B>>, mut seen: ResMut<Seen>) {
        seen.0 = q.iter().map(|a| a.0).collect();
        let total: u32 = (&q).into_iter().map(|a| a.0).sum();
        assert_eq!(total, seen.0.iter().sum::<u32>());
    }
    let (mut world, _) = abc_world();
    world.insert_resource(Seen::default());
    let mut schedule = Schedule::new();
    schedule.add_system(read);
    schedule.run(&mut world);
    let mut expected: Vec<u32> = world.query_filtered::<&A, With<B>>().into_iter().map(|a| a.0).collect();
    let mut seen = world.resource::<Seen>().0.clone();
    expected.sort_unstable();
    seen.sort_unstable();
    assert!(!seen.is_empty());
    assert_eq!(seen, expected);
}

#[test]
fn count_matches_iteration_for_every_driver_and_filter() {
    use mosaic::{Has, Or};
    let (mut world, entities) = abc_world();
    world.despawn(entities[9]);
    fn check<Q: mosaic::query::QueryData, F: mosaic::query::QueryFilter>(world: &mut World) {
        let counted = world.query_filtered::<Q, F>().count();
        let walked = world.query_filtered::<Q, F>().into_iter().count();
        assert_eq!(counted, walked, "{}", type_name::<(Q, F)>());
    }
    check::<&A, ()>(&mut world);
    check::<(Entity, &B, Option<&C>), ()>(&mut world);
    check::<(&A, &B), ()>(&mut world);
    check::<(&A, &C), Without<B>>(&mut world);
    check::<Entity, ()>(&mut world);
    check::<Has<A>, Or<(With<B>, With<C>)>>(&mut world);
    check::<&NeverUsed, ()>(&mut world);
    world.group::<(A, B)>();
    check::<(&A, &B), ()>(&mut world);
    check::<(&mut A, &B, &C), ()>(&mut world);
    assert_eq!(world.query::<&A>().count(), 9);
    assert_eq!(world.query::<(&A, &B)>().count(), 5);
}
