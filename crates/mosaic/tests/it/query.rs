//! Queries: fetch kinds, filters, drivers over pools of different sizes, `Query::get`,
//! `for_each`, read-only queries beside `World::get`, and the aliasing refusal.

use crate::common;

use std::any::type_name;
use std::collections::BTreeSet;

use common::{Marker, Name, Position, Velocity, live_entities, panic_message};
use mosaic::{Component, Entity, EntityError, QueryError, With, Without, World};

// Shared with `query_terms`.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct A(pub(crate) u32);
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct B(pub(crate) u32);
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct C(pub(crate) u32);
#[derive(Component, Debug)]
pub(crate) struct NeverUsed;

/// A world whose pools differ in size and whose entity slots have holes: entity `i` has `A` if
/// `i % 2 == 0`, `B` if `i % 3 == 0`, `C` if `i % 5 == 0`, and every seventh one is despawned.
fn mixed_world() -> World {
    let n = if cfg!(miri) { 60 } else { 300 };
    let mut world = World::new();
    let mut doomed = Vec::new();
    for i in 0..n {
        let e = world.spawn_empty();
        if i % 2 == 0 {
            world.insert(e, A(i));
        }
        if i % 3 == 0 {
            world.insert(e, B(i));
        }
        if i % 5 == 0 {
            world.insert(e, C(i));
        }
        if i % 7 == 0 {
            doomed.push(e);
        }
    }
    for e in doomed {
        world.despawn(e);
    }
    // Remove some from the middle of pools too, so row order differs from spawn order.
    let some_a: Vec<Entity> =
        world.query::<(Entity, &A)>().into_iter().filter(|(_, a)| a.0 % 8 == 4).map(|(e, _)| e).collect();
    for e in some_a {
        world.remove::<A>(e);
    }
    world
}

/// The live entities passing `keep`, as a sorted set.
fn naive(world: &World, keep: impl Fn(Entity) -> bool) -> BTreeSet<Entity> {
    live_entities(world).into_iter().filter(|&e| keep(e)).collect()
}

#[test]
fn mutable_and_shared_fetches_update_values() {
    let mut world = World::new();
    let entities = world.spawn_batch((0..20).map(|i| (A(i), B(10 * i))));
    world.spawn(A(100)); // no B: not visited
    for (a, b) in world.query::<(&mut A, &B)>() {
        a.0 += b.0;
    }
    for (i, &e) in entities.iter().enumerate() {
        let i = i as u32;
        assert_eq!(world.get::<A>(e), Ok(&A(i + 10 * i)));
        assert_eq!(world.get::<B>(e), Ok(&B(10 * i)));
    }
    assert_eq!(world.query::<&A>().into_iter().filter(|a| a.0 == 100).count(), 1);
    // Several mutable fetches of different types in one query.
    for (a, b) in world.query::<(&mut A, &mut B)>() {
        std::mem::swap(&mut a.0, &mut b.0);
    }
    assert_eq!(world.get::<A>(entities[3]), Ok(&A(30)));
    assert_eq!(world.get::<B>(entities[3]), Ok(&B(33)));
}

#[test]
fn optional_fetches() {
    let mut world = World::new();
    let with = world.spawn((A(1), B(2)));
    let without = world.spawn(A(3));
    let mut seen: Vec<(Entity, u32, Option<u32>)> = world
        .query::<(Entity, &A, Option<&B>)>()
        .into_iter()
        .map(|(e, a, b)| (e, a.0, b.map(|b| b.0)))
        .collect();
    seen.sort();
    assert_eq!(seen, vec![(with, 1, Some(2)), (without, 3, None)]);

    for (_, b) in world.query::<(&A, Option<&mut B>)>() {
        if let Some(b) = b {
            b.0 *= 10;
        }
    }
    assert_eq!(world.get::<B>(with), Ok(&B(20)));
    assert!(!world.contains::<B>(without));

    // Option of a type nobody has: yields None for every entity.
    let options: Vec<Option<&NeverUsed>> =
        world.query::<(&A, Option<&NeverUsed>)>().into_iter().map(|(_, n)| n).collect();
    assert_eq!(options.len(), 2);
    assert!(options.iter().all(Option::is_none));
}

#[test]
fn entity_in_queries_matches_get() {
    let mut world = mixed_world();
    let pairs: Vec<(Entity, B)> = world.query::<(Entity, &B)>().into_iter().map(|(e, b)| (e, *b)).collect();
    assert!(!pairs.is_empty());
    for (e, b) in pairs {
        assert_eq!(world.get::<B>(e), Ok(&b));
    }
    // Entity may appear anywhere in the tuple, even twice.
    for (b, e, e2) in world.query::<(&B, Entity, Entity)>() {
        assert_eq!(e, e2);
        assert_eq!(b.0 % 3, 0);
        assert_eq!(b.0, e.index(), "mixed_world spawns entity i at index i");
    }
}

#[test]
fn filters_and_tuples_of_filters() {
    let mut world = mixed_world();
    let has =
        |world: &World, e: Entity| (world.contains::<A>(e), world.contains::<B>(e), world.contains::<C>(e));
    macro_rules! check {
        ($q:ty, $f:ty, $keep:expr) => {{
            let got: BTreeSet<Entity> = world.query_filtered::<$q, $f>().into_iter().map(|x| x.0).collect();
            let w = &world;
            let keep: fn((bool, bool, bool)) -> bool = $keep;
            let expected = naive(w, |e| keep(has(w, e)));
            assert_eq!(got, expected, "query {} filtered by {}", type_name::<$q>(), type_name::<$f>());
            assert!(!expected.is_empty(), "vacuous case: {}", type_name::<$f>());
        }};
    }
    check!((Entity,), With<A>, |(a, _, _)| a);
    check!((Entity,), Without<A>, |(a, _, _)| !a);
    check!((Entity, &A), With<B>, |(a, b, _)| a && b);
    check!((Entity, &A), Without<B>, |(a, b, _)| a && !b);
    check!((Entity, &B), (With<A>, Without<C>), |(a, b, c)| a && b && !c);
    check!((Entity, &C), (Without<A>, Without<B>), |(a, b, c)| c && !a && !b);
    check!((Entity,), (With<A>, With<B>, With<C>), |(a, b, c)| a && b && c);
    check!((Entity, Option<&C>), ((With<A>,), Without<B>), |(a, b, _)| a && !b);
    check!((Entity,), (), |_| true);
    // A filter on a type never registered: `With` matches nothing, `Without` everything.
    assert_eq!(world.query_filtered::<Entity, With<NeverUsed>>().into_iter().count(), 0);
    assert_eq!(
        world.query_filtered::<Entity, Without<NeverUsed>>().into_iter().count(),
        world.len() as usize
    );
}

#[test]
fn pools_of_different_sizes_drive_correctly() {
    let mut world = mixed_world();
    let a_len = world.components().pool_of::<A>().unwrap().len();
    let c_len = world.components().pool_of::<C>().unwrap().len();
    assert!(c_len < a_len, "C must be the smaller pool for this test");

    let w = &world;
    let expected_ac = naive(w, |e| w.contains::<A>(e) && w.contains::<C>(e));
    let expected_abc = naive(w, |e| w.contains::<A>(e) && w.contains::<B>(e) && w.contains::<C>(e));
    let expected_ab = naive(w, |e| w.contains::<A>(e) && w.contains::<B>(e));

    // Both orders of the same query give the same set, whichever pool drives.
    let ac: BTreeSet<Entity> = world.query::<(Entity, &A, &C)>().into_iter().map(|x| x.0).collect();
    let ca: BTreeSet<Entity> = world.query::<(Entity, &C, &A)>().into_iter().map(|x| x.0).collect();
    assert_eq!(ac, expected_ac);
    assert_eq!(ca, expected_ac);
    let abc: BTreeSet<Entity> = world.query::<(&B, Entity, &C, &A)>().into_iter().map(|x| x.1).collect();
    assert_eq!(abc, expected_abc);
    let ab: BTreeSet<Entity> = world.query::<(Entity, &mut A, &B)>().into_iter().map(|x| x.0).collect();
    assert_eq!(ab, expected_ab);

    // Every item carries the right entity's values.
    for (e, a, c) in world.query::<(Entity, &A, &C)>() {
        assert_eq!(a.0, c.0, "values of {e}");
    }
    // `With` can drive too: a smaller filter pool than the fetched one.
    let filtered: BTreeSet<Entity> =
        world.query_filtered::<(Entity, &A), With<C>>().into_iter().map(|x| x.0).collect();
    assert_eq!(filtered, expected_ac);
}

#[test]
fn query_over_an_unregistered_type_yields_nothing() {
    let mut world = mixed_world();
    assert_eq!(world.query::<&NeverUsed>().into_iter().count(), 0);
    assert_eq!(world.query::<(&A, &NeverUsed)>().into_iter().count(), 0);
    assert_eq!(world.query::<(Entity, &mut NeverUsed)>().into_iter().count(), 0);
    let mut calls = 0;
    world.query::<(&NeverUsed, &B)>().for_each(|_| calls += 1);
    assert_eq!(calls, 0);
    assert!(world.components().id::<NeverUsed>().is_none(), "queries do not register types");
    let mut empty = World::new();
    assert_eq!(empty.query::<&A>().into_iter().count(), 0);
    assert_eq!(empty.query::<Entity>().into_iter().count(), 0);
}

#[test]
fn query_requiring_nothing_walks_all_live_entities() {
    let mut world = mixed_world();
    let bare = world.spawn_empty();
    let live = live_entities(&world);
    assert!(live.contains(&bare));
    // Entity index order when nothing is required.
    let all: Vec<Entity> = world.query::<Entity>().into_iter().collect();
    assert_eq!(all, live);
    assert_eq!(world.query::<()>().into_iter().count(), live.len());
    let options: Vec<(Entity, Option<&A>)> = world.query_ref::<(Entity, Option<&A>)>().into_iter().collect();
    assert_eq!(options.len(), live.len());
    for (e, a) in options {
        assert_eq!(a, world.get::<A>(e).ok());
    }
    let with_b: BTreeSet<Entity> = naive(&world, |e| world.contains::<B>(e));
    let mut count = 0;
    world.query::<(Entity, Option<&mut B>)>().for_each(|(e, b)| {
        assert_eq!(b.is_some(), with_b.contains(&e), "{e}");
        count += 1;
    });
    assert_eq!(count, live.len());
}

#[test]
fn query_get_success_and_errors() {
    let mut world = World::new();
    let full = world.spawn((A(1), B(2)));
    let partial = world.spawn(A(3));
    let dead = world.spawn((A(4), B(5)));
    world.despawn(dead);

    let mut query = world.query::<(&mut A, &B)>();
    {
        let (a, b) = query.get_mut(full).unwrap();
        a.0 += b.0;
    }
    match query.get_mut(partial) {
        Err(QueryError::NoMatch { entity, query }) => {
            assert_eq!(entity, partial);
            assert_eq!(query, type_name::<(&mut A, &B)>());
        }
        other => panic!("expected NoMatch, got {:?}", other.map(|_| ())),
    }
    assert!(
        matches!(query.get_mut(dead), Err(QueryError::Entity(EntityError::NoSuchEntity(e))) if e == dead)
    );
    assert!(query.contains(full));
    assert!(!query.contains(partial));
    assert!(!query.contains(dead));
    assert_eq!(world.get::<A>(full), Ok(&A(3)));

    // Filters are checked by `get` too, and the message names the query.
    let filtered = world.query_filtered::<&A, Without<B>>();
    assert_eq!(filtered.get(partial).map(|a| a.0), Ok(3));
    let error = filtered.get(full).map(|a| a.0).unwrap_err();
    assert_eq!(error, QueryError::NoMatch { entity: full, query: type_name::<&A>() });
    assert!(error.to_string().contains(&full.to_string()));
    assert!(error.to_string().contains(type_name::<&A>()));
    assert!(QueryError::Entity(EntityError::NoSuchEntity(dead)).to_string().contains(&dead.to_string()));

    // Optional parts never cause NoMatch.
    let optional = world.query::<(Entity, Option<&B>)>();
    assert_eq!(optional.get(partial).map(|(e, b)| (e, b.copied())), Ok((partial, None)));
}

#[test]
fn for_each_gives_the_same_items_as_iter() {
    let mut world = mixed_world();
    type Items = Vec<(Entity, u32, Option<u32>)>;
    fn shape(world: &mut World) -> (Items, Items) {
        let query = world.query_filtered::<(Entity, &A, Option<&C>), Without<B>>();
        let iterated: Items = query.iter().map(|(e, a, c)| (e, a.0, c.map(|c| c.0))).collect();
        let mut each = Items::new();
        query.for_each(|(e, a, c)| each.push((e, a.0, c.map(|c| c.0))));
        (iterated, each)
    }
    let (iterated, each) = shape(&mut world);
    assert!(!iterated.is_empty());
    assert_eq!(iterated, each, "same items in the same order");

    // A query requiring nothing takes the other path of `for_each`.
    let query = world.query::<(Entity, Option<&B>)>();
    let iterated: Vec<Entity> = query.iter().map(|(e, _)| e).collect();
    let mut each = Vec::new();
    query.for_each(|(e, _)| each.push(e));
    assert_eq!(iterated, each);

    // `for_each` with a mutable fetch changes exactly what `iter` sees.
    world.query::<&mut A>().for_each(|a| a.0 += 1);
    let a_sum: u32 = world.query::<&A>().into_iter().map(|a| a.0).sum();
    let expected: u32 =
        live_entities(&world).into_iter().filter_map(|e| world.get::<A>(e).ok()).map(|a| a.0).sum();
    assert_eq!(a_sum, expected);

    // Iterating twice through `&mut Query` yields the same items.
    let mut query = world.query::<(Entity, &B)>();
    let first: Vec<Entity> = (&mut query).into_iter().map(|x| x.0).collect();
    let second: Vec<Entity> = query.iter().map(|x| x.0).collect();
    assert_eq!(first, second);
}

#[test]
fn query_ref_is_usable_beside_world_get() {
    let mut world = World::new();
    let entities = world.spawn_batch((0..10).map(|i| (A(i), B(i * 2))));
    let world = &world;
    let a_query = world.query_ref::<(Entity, &A)>();
    let b_query = world.query_ref_filtered::<&B, With<A>>();
    let mut total = 0;
    for (e, a) in a_query.iter() {
        // A second read-only query and `World::get` at the same time.
        let b = b_query.get(e).unwrap();
        assert_eq!(world.get::<B>(e), Ok(b));
        assert_eq!(b.0, a.0 * 2);
        total += 1;
    }
    assert_eq!(total, entities.len());
    assert_eq!(world.query_ref::<&A>().into_iter().count(), 10);
}

/// Runs `f`, which must panic with an aliasing message naming `A`.
#[track_caller]
fn assert_aliasing_refused(f: impl FnOnce(&mut World)) {
    let mut world = World::new();
    world.spawn((A(1), B(1)));
    let message = panic_message(|| f(&mut world));
    assert!(message.contains(&format!("`{}`", type_name::<A>())), "{message}");
    assert!(message.contains("alias"), "{message}");
}

#[test]
fn aliasing_queries_panic_naming_the_component() {
    assert_aliasing_refused(|w| {
        w.query::<(&mut A, &A)>();
    });
    assert_aliasing_refused(|w| {
        w.query::<(&mut A, &mut A)>();
    });
    assert_aliasing_refused(|w| {
        w.query::<(&A, Option<&mut A>)>();
    });
    assert_aliasing_refused(|w| {
        w.query::<(Option<&mut A>, &A)>();
    });
    assert_aliasing_refused(|w| {
        w.query::<(Option<&mut A>, Option<&A>)>();
    });
    assert_aliasing_refused(|w| {
        w.query::<(&B, (Entity, &mut A), ((&A,),))>();
    });
    assert_aliasing_refused(|w| {
        w.query_filtered::<(&mut A, &B, &A), With<B>>();
    });
}

#[test]
#[should_panic(expected = "component `it::query::A` mutably and immutably")]
fn mutable_and_shared_access_panics() {
    World::new().query::<(&mut A, &A)>();
}

#[test]
#[should_panic(expected = "component `it::query::A` mutably twice")]
fn mutable_twice_panics() {
    World::new().query::<(&mut A, &mut A)>();
}

#[test]
#[should_panic(expected = "component `it::query::A` mutably and immutably")]
fn shared_and_optional_mutable_access_panics() {
    World::new().query::<(&A, Option<&mut A>)>();
}

#[test]
fn shared_access_twice_is_allowed() {
    let mut world = World::new();
    let e = world.spawn(A(7));
    let items: Vec<(&A, &A)> = world.query::<(&A, &A)>().into_iter().collect();
    assert_eq!(items.len(), 1);
    assert!(std::ptr::eq(items[0].0, items[0].1));
    assert_eq!(items[0].0, &A(7));
    let q = world.query_ref::<(&A, Option<&A>, Entity)>();
    assert_eq!(q.get(e).map(|(a, o, _)| (*a, o.copied())), Ok((A(7), Some(A(7)))));
    // Mutable access to one type beside a filter on the same type is not aliasing.
    for a in world.query_filtered::<&mut A, With<A>>() {
        a.0 += 1;
    }
    assert_eq!(world.get::<A>(e), Ok(&A(8)));
}

#[test]
fn queries_see_spawns_inserts_and_removals_between_them() {
    let mut world = World::new();
    let e = world.spawn((Position::new(0, 0), Velocity(1)));
    let f = world.spawn((Position::new(5, 5), Name("f".into())));
    assert_eq!(world.query::<(&Position, &Velocity)>().into_iter().count(), 1);
    world.insert(f, Velocity(2));
    assert_eq!(world.query::<(&Position, &Velocity)>().into_iter().count(), 2);
    world.remove::<Velocity>(e);
    world.insert(e, Marker);
    let entities: Vec<Entity> =
        world.query_filtered::<Entity, (With<Velocity>, Without<Marker>)>().into_iter().collect();
    assert_eq!(entities, vec![f]);
}

/// Every entity `for_each_chunk` hands out, in order, flattened.
fn chunked<F: mosaic::query::QueryFilter>(world: &mut World) -> Vec<Entity> {
    let mut seen = Vec::new();
    world.query_filtered::<Entity, F>().for_each_chunk(|chunk| seen.extend_from_slice(chunk));
    seen
}

#[test]
fn for_each_chunk_without_required_components_agrees_with_iter() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..20)
        .map(|i| match i % 3 {
            0 => world.spawn(A(i)),
            1 => world.spawn((A(i), B(i))),
            _ => world.spawn_empty(),
        })
        .collect();
    world.despawn(es[4]);
    world.despawn(es[9]);

    let all: Vec<Entity> = world.query::<Entity>().into_iter().collect();
    assert_eq!(all.len(), 18, "every live entity, the empty ones too");
    assert_eq!(chunked::<()>(&mut world), all);

    let without_b: Vec<Entity> = world.query_filtered::<Entity, Without<B>>().into_iter().collect();
    assert_eq!(without_b.len(), 12);
    assert_eq!(chunked::<Without<B>>(&mut world), without_b);

    // A filter that requires a component drives by its pool, as before.
    let with_b: Vec<Entity> = world.query_filtered::<Entity, With<B>>().into_iter().collect();
    assert_eq!(chunked::<With<B>>(&mut world), with_b);

    let mut tuples = Vec::new();
    world.query::<(Entity,)>().for_each_chunk(|(chunk,)| tuples.extend_from_slice(chunk));
    assert_eq!(tuples, all);
}

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
#[component(cleanup = "lazy")]
struct Lazy(u32);

/// The entities an external iterator yields, three ways (`next` by hand, a `for` loop, and
/// `Iterator::for_each`, which goes through `fold`), each checked against `Query::for_each`.
fn assert_iter_matches_for_each<F: mosaic::query::QueryFilter>(world: &mut World, what: &str) -> usize {
    let mut query = world.query_filtered::<(Entity, &A, Option<&C>), F>();
    let mut each = Vec::new();
    query.for_each(|(e, a, c)| each.push((e, a.0, c.map(|c| c.0))));
    let mut by_next = Vec::new();
    {
        let mut iter = query.iter();
        #[expect(clippy::while_let_on_iterator, reason = "tests `next` called by hand")]
        while let Some((e, a, c)) = iter.next() {
            by_next.push((e, a.0, c.map(|c| c.0)));
        }
    }
    assert_eq!(by_next, each, "{what}: `next` against `for_each`");
    let mut by_for = Vec::new();
    for (e, a, c) in &mut query {
        by_for.push((e, a.0, c.map(|c| c.0)));
    }
    assert_eq!(by_for, each, "{what}: `for` against `for_each`");
    let mut by_fold = Vec::new();
    query.iter().for_each(|(e, a, c)| by_fold.push((e, a.0, c.map(|c| c.0))));
    assert_eq!(by_fold, each, "{what}: `Iterator::for_each` against `Query::for_each`");
    // Part by `next`, the rest by `fold`: nothing is yielded twice or skipped.
    let mut iter = query.iter();
    let mut mixed: Vec<_> = iter.by_ref().take(3).map(|(e, a, c)| (e, a.0, c.map(|c| c.0))).collect();
    iter.for_each(|(e, a, c)| mixed.push((e, a.0, c.map(|c| c.0))));
    assert_eq!(mixed, each, "{what}: `next` then `fold`");
    each.len()
}

#[test]
fn external_iterator_matches_for_each_on_every_path() {
    // Aligned: A and B filled by the same spawns, so every row of the driver is aligned.
    let mut world = World::new();
    let entities = world.spawn_batch((0..200).map(|i| (A(i), B(i))));
    for &e in entities.iter().step_by(4) {
        world.insert(e, C(7));
    }
    assert_eq!(assert_iter_matches_for_each::<()>(&mut world, "aligned"), 200);
    assert_eq!(assert_iter_matches_for_each::<With<B>>(&mut world, "aligned, With"), 200);
    assert_eq!(assert_iter_matches_for_each::<With<C>>(&mut world, "aligned, small With drives"), 50);
    assert_eq!(assert_iter_matches_for_each::<Without<C>>(&mut world, "aligned, Without"), 150);
    let mut for_loop = 0;
    for (a, b) in world.query::<(&mut A, &B)>() {
        a.0 += b.0;
        for_loop += 1;
    }
    assert_eq!(for_loop, 200);
    assert!(
        world.query::<&A>().into_iter().zip(0..).all(|(a, i)| a.0 == 2 * i),
        "the for loop wrote each once"
    );

    // Unaligned: removals swap rows, so only a prefix stays aligned and the rest is looked up.
    for &e in entities.iter().skip(30).step_by(7) {
        world.remove::<A>(e);
    }
    for &e in entities.iter().skip(50).step_by(5) {
        world.remove::<B>(e);
    }
    assert_iter_matches_for_each::<()>(&mut world, "unaligned");
    assert_iter_matches_for_each::<With<B>>(&mut world, "unaligned, With");
    assert_iter_matches_for_each::<(With<B>, Without<C>)>(&mut world, "unaligned, two filters");

    // The mixed world: holes, despawns and pools of different sizes.
    let mut world = mixed_world();
    assert_iter_matches_for_each::<()>(&mut world, "mixed");
    assert_iter_matches_for_each::<With<B>>(&mut world, "mixed, With");
    assert_iter_matches_for_each::<Without<B>>(&mut world, "mixed, Without");

    // A lazily cleaned pool drives: its dead rows are skipped on every path.
    let mut world = World::new();
    let entities: Vec<Entity> = (0..120).map(|i| world.spawn((Lazy(i), A(i)))).collect();
    for &e in entities.iter().step_by(3) {
        world.despawn(e);
    }
    let query = world.query::<(Entity, &Lazy)>();
    let mut each = Vec::new();
    query.for_each(|(e, l)| each.push((e, l.0)));
    let by_for: Vec<_> = query.iter().map(|(e, l)| (e, l.0)).collect();
    let mut by_fold = Vec::new();
    query.iter().for_each(|(e, l)| by_fold.push((e, l.0)));
    assert_eq!(each.len(), 80);
    assert_eq!(by_for, each, "lazy driver: `next`");
    assert_eq!(by_fold, each, "lazy driver: `fold`");
    assert!(each.iter().all(|&(e, _)| world.is_alive(e)));
    let with: Vec<Entity> = world.query_filtered::<Entity, With<Lazy>>().into_iter().collect();
    assert_eq!(with.len(), 80, "a lazy With pool checks the generation");
}

#[test]
fn size_hint_bounds_the_items() {
    let mut world = mixed_world();
    let query = world.query::<(&A, &B)>();
    let (low, high) = query.iter().size_hint();
    let n = query.iter().count();
    assert!(low <= n && high.is_none_or(|h| n <= h), "{low} <= {n} <= {high:?}");
    let mut world = World::new();
    world.spawn_batch((0..10).map(|i| (A(i), B(i))));
    let query = world.query::<(&A, &B)>();
    assert_eq!(query.iter().size_hint(), (10, Some(10)), "an aligned run is exact");
}

#[test]
fn bevy_names_work_as_expected() {
    #[derive(mosaic::Component)]
    struct Hp(u32);
    #[derive(mosaic::Component)]
    struct Boss;
    let mut world = mosaic::World::new();
    assert!(world.query::<&Hp>().is_empty());
    let a = world.spawn(Hp(1));
    let boss = world.spawn((Hp(10), Boss));
    for hp in world.query::<&mut Hp>().iter_mut() {
        hp.0 += 1;
    }
    world.query::<&mut Hp>().get_mut(a).unwrap().0 += 10;
    world.query_filtered::<&mut Hp, mosaic::With<Boss>>().single_mut().0 *= 2;
    assert!(world.query_filtered::<&mut Hp, mosaic::With<Boss>>().try_single_mut().is_ok());
    assert_eq!(world.get::<Hp>(a).unwrap().0, 12);
    assert_eq!(world.get::<Hp>(boss).unwrap().0, 22);
    assert!(!world.query::<&Hp>().is_empty());
    assert!(world.query_filtered::<&Hp, (mosaic::With<Boss>, mosaic::Without<Hp>)>().is_empty());
}

#[test]
fn combinations_visit_every_set_once() {
    #[derive(mosaic::Component)]
    struct N(u32);
    #[derive(mosaic::Component)]
    struct Skip;
    let mut world = mosaic::World::new();
    for i in 0..6 {
        let e = world.spawn(N(i));
        if i == 4 {
            world.insert(e, Skip);
        }
    }
    {
        let q = world.query_filtered::<&N, mosaic::Without<Skip>>();
        let mut seen: Vec<[u32; 3]> = q.iter_combinations::<3>().map(|[a, b, c]| [a.0, b.0, c.0]).collect();
        assert_eq!(seen.len(), 10, "C(5, 3)");
        for set in &mut seen {
            set.sort();
            assert!(set[0] < set[1] && set[1] < set[2], "distinct: {set:?}");
            assert!(!set.contains(&4), "the filter holds");
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 10, "each set once");
        assert_eq!(q.iter_combinations::<0>().count(), 0);
        assert_eq!(q.iter_combinations::<6>().count(), 0, "more than the matches");
    }

    // The mutable walk: pairwise transfers conserve the total.
    let mut q = world.query::<&mut N>();
    let mut pairs = q.iter_combinations_mut::<2>();
    let mut count = 0;
    while let Some([a, b]) = pairs.fetch_next() {
        let moved = a.0.min(1);
        a.0 -= moved;
        b.0 += moved;
        count += 1;
    }
    assert_eq!(count, 15, "C(6, 2)");
    let total: u32 = world.query::<&N>().into_iter().map(|n| n.0).sum();
    assert_eq!(total, 15);
}

#[test]
fn iter_many_follows_the_list_and_passes_over_what_does_not_match() {
    #[derive(Component, Debug, PartialEq)]
    struct Hp(u32);
    #[derive(Component)]
    struct Shielded;
    let mut world = World::new();
    let es: Vec<Entity> = (0..5).map(|i| world.spawn(Hp(i))).collect();
    world.insert(es[1], Shielded);
    let dead = world.spawn(Hp(99));
    world.despawn(dead);
    let q = world.query_filtered::<&Hp, Without<Shielded>>();
    let seen: Vec<u32> = q.iter_many([es[4], es[1], dead, es[0], es[4]]).map(|hp| hp.0).collect();
    assert_eq!(seen, [4, 0, 4], "shielded and dead passed over, repeats kept, list order");
    let mut q = world.query::<&mut Hp>();
    let mut walk = q.iter_many_mut([es[2], es[2], dead]);
    while let Some(hp) = walk.fetch_next() {
        hp.0 += 10;
    }
    assert_eq!(world.get::<Hp>(es[2]), Ok(&Hp(22)));
}

#[test]
#[allow(deprecated)]
fn the_old_single_names_still_answer_as_the_new_ones() {
    let mut world = World::new();
    world.spawn(A(3));
    assert_eq!(world.query::<&A>().get_single().map(|a| a.0), Ok(3));
    world.query::<&mut A>().get_single_mut().unwrap().0 = 4;
    assert_eq!(world.query::<&mut A>().try_single_mut().map(|a| a.0), Ok(4));
    world.spawn(A(5));
    assert!(matches!(world.query::<&A>().get_single(), Err(QueryError::MultipleEntities { .. })));
    let sum: u32 = world.query::<&mut A>().into_iter().map(|a| a.0).sum();
    assert_eq!(sum, 9);
}
