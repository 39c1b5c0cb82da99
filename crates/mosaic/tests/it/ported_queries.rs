//! bevy_ecs's query tests (`query/mod.rs`, `query/state.rs`, `query/iter.rs`), ported to
//! Mosaic's API where `query.rs`, `query_terms.rs` and `size_hints.rs` do not already cover them.
//! Each test is named after the bevy test it ports.
//!
//! Names: bevy's `QueryState` plus `iter(&world)` is `World::query_ref` (shared) or
//! `World::query` (exclusive) plus `iter`; `world.spawn(X).id()` is `world.spawn(X)`. Mosaic
//! stores every component in a sparse set, so bevy's `SparseSet` storage tests run against the
//! one storage kind (its struct-of-arrays layout is a different axis). Iteration order is
//! arbitrary in both, so results are compared as sets where bevy compares sets.

use std::collections::HashSet;
use std::fmt::Debug;
use std::hash::Hash;

use mosaic::{
    Added, Changed, Component, Entity, Has, Or, Query, QueryData, QueryError, Schedule, With, Without, World,
};

#[derive(Component, Debug, Hash, Eq, PartialEq, Clone, Copy, PartialOrd, Ord)]
#[component(track_changes)]
struct A(usize);
#[derive(Component, Debug, Hash, Eq, PartialEq, Clone, Copy, PartialOrd, Ord)]
#[component(track_changes)]
struct B(usize);
#[derive(Component, Debug, Eq, PartialEq, Clone, Copy)]
struct C(usize);
#[derive(Component, Debug, Eq, PartialEq, Clone, Copy)]
struct D(usize);
// bevy's `#[component(storage = "SparseSet")]` type; every Mosaic component is a sparse set.
#[derive(Component, Debug, Hash, Eq, PartialEq, Clone, Copy, PartialOrd, Ord)]
struct Sparse(usize);

// bevy: query
#[test]
fn query() {
    let mut world = World::new();
    world.spawn((A(1), B(1)));
    world.spawn(A(2));
    let values = world.query_ref::<&A>().iter().copied().collect::<HashSet<A>>();
    assert!(values.contains(&A(1)));
    assert!(values.contains(&A(2)));

    for (_a, b) in world.query::<(&A, &mut B)>() {
        b.0 = 3;
    }
    let values = world.query_ref::<&B>().iter().copied().collect::<Vec<B>>();
    assert_eq!(values, vec![B(3)]);
}

fn choose(n: usize, k: usize) -> usize {
    if n == 0 || k == 0 || n < k {
        return 0;
    }
    let ks = 1..=k;
    let ns = (n - k + 1..=n).rev();
    ks.zip(ns).fold(1, |acc, (k, n)| acc * n / k)
}

/// Skips `skip` items, then checks that the size hint brackets what is left and that counting
/// gives exactly the expected number. bevy's archetype filters give an exact hint; Mosaic's
/// filtered walks give bounds (see `size_hints.rs`: a filter is checked row by row), so the
/// hint is asserted to hold rather than to be exact.
fn assert_sizes(mut iterator: impl Iterator, expected: usize, skip: usize) {
    let expected = expected.saturating_sub(skip);
    for _ in 0..skip {
        iterator.next();
    }
    let (low, high) = iterator.size_hint();
    let count = iterator.count();
    assert!(low <= expected, "lower bound {low} above {expected}");
    assert!(high.is_none_or(|high| high >= expected), "upper bound {high:?} below {expected}");
    assert_eq!(count, expected);
}

fn assert_all_sizes_equal<F: mosaic::query::QueryFilter>(world: &World, expected: usize) {
    for skip in [0, 1, 5] {
        assert_sizes(world.query_ref_filtered::<&A, F>().iter(), expected, skip);
    }
    let query = world.query_ref_filtered::<&A, F>();
    for skip in [0, 1, 5] {
        assert_sizes(query.iter_combinations::<1>(), choose(expected, 1), skip);
        assert_sizes(query.iter_combinations::<2>(), choose(expected, 2), skip);
        assert_sizes(query.iter_combinations::<5>(), choose(expected, 5), skip);
    }
    assert_eq!(query.iter_combinations::<43>().count(), choose(expected, 43));
    assert_eq!(query.iter_combinations::<64>().count(), choose(expected, 64));
}

// bevy: query_filtered_exactsizeiterator_len
#[test]
fn query_filtered_exactsizeiterator_len() {
    let mut world = World::new();
    world.spawn((A(1), B(1)));
    world.spawn(A(2));
    world.spawn(A(3));
    assert_all_sizes_equal::<With<B>>(&world, 1);
    assert_all_sizes_equal::<Without<B>>(&world, 2);

    let mut world = World::new();
    world.spawn((A(1), B(1), C(1)));
    world.spawn((A(2), B(2)));
    world.spawn((A(3), B(3)));
    world.spawn((A(4), C(4)));
    world.spawn((A(5), C(5)));
    world.spawn((A(6), C(6)));
    for i in 7..=10 {
        world.spawn(A(i));
    }
    assert_all_sizes_equal::<With<B>>(&world, 3);
    assert_all_sizes_equal::<With<C>>(&world, 4);
    assert_all_sizes_equal::<Without<B>>(&world, 7);
    assert_all_sizes_equal::<Without<C>>(&world, 6);
    assert_all_sizes_equal::<(With<B>, With<C>)>(&world, 1);
    assert_all_sizes_equal::<(With<B>, Without<C>)>(&world, 2);
    assert_all_sizes_equal::<(Without<B>, With<C>)>(&world, 3);
    assert_all_sizes_equal::<(Without<B>, Without<C>)>(&world, 4);
    assert_all_sizes_equal::<Or<(With<B>, With<C>)>>(&world, 6);
    assert_all_sizes_equal::<Or<(With<B>, Without<C>)>>(&world, 7);
    assert_all_sizes_equal::<Or<(Without<B>, With<C>)>>(&world, 8);
    assert_all_sizes_equal::<Or<(Without<B>, Without<C>)>>(&world, 9);
    assert_all_sizes_equal::<(Or<(With<B>,)>, Or<(With<C>,)>)>(&world, 1);
    assert_all_sizes_equal::<Or<(Or<(With<B>, With<C>)>, With<D>)>>(&world, 6);

    for i in 11..14 {
        world.spawn((A(i), D(i)));
    }
    assert_all_sizes_equal::<Or<(Or<(With<B>, With<C>)>, With<D>)>>(&world, 9);
    assert_all_sizes_equal::<Or<(Or<(With<B>, With<C>)>, Without<D>)>>(&world, 10);

    for i in 14..20 {
        world.spawn((C(i), D(i)));
    }
    let query = world.query_ref_filtered::<Entity, (With<C>, With<D>)>();
    for skip in [0, 1, 5] {
        assert_sizes(query.iter(), 6, skip);
    }
}

/// Every combination yielded is one of `expected` (in any order within it), and there are as
/// many distinct ones as expected.
fn check_combinations<T: Ord + Hash + Debug + Copy, const K: usize>(
    values: Vec<[T; K]>,
    expected: &[[T; K]],
) {
    let expected: HashSet<[T; K]> = expected.iter().copied().collect();
    let mut seen = HashSet::new();
    for mut combination in values {
        combination.sort();
        assert!(expected.contains(&combination), "unexpected combination {combination:?}");
        assert!(seen.insert(combination), "combination {combination:?} yielded twice");
    }
    assert_eq!(seen.len(), expected.len());
}

// bevy: query_iter_combinations
#[test]
fn query_iter_combinations() {
    let mut world = World::new();
    world.spawn((A(1), B(1)));
    world.spawn(A(2));
    world.spawn(A(3));
    world.spawn(A(4));

    let query = world.query_ref::<&A>();
    let values: Vec<[A; 2]> = query.iter_combinations().map(|[a, b]| [*a, *b]).collect();
    check_combinations(
        values,
        &[[A(1), A(2)], [A(1), A(3)], [A(1), A(4)], [A(2), A(3)], [A(2), A(4)], [A(3), A(4)]],
    );
    let values: Vec<[A; 3]> = query.iter_combinations().map(|[a, b, c]| [*a, *b, *c]).collect();
    check_combinations(
        values,
        &[[A(1), A(2), A(3)], [A(1), A(2), A(4)], [A(1), A(3), A(4)], [A(2), A(3), A(4)]],
    );

    let b_query = world.query_ref::<&B>();
    assert_eq!(b_query.iter_combinations::<2>().size_hint(), (0, Some(0)));
    assert_eq!(b_query.iter_combinations::<2>().count(), 0);
}

// bevy: query_filtered_iter_combinations
#[test]
fn query_filtered_iter_combinations() {
    let mut world = World::new();
    world.spawn((A(1), B(1)));
    world.spawn(A(2));
    world.spawn(A(3));
    world.spawn(A(4));

    let values: Vec<[A; 2]> =
        world.query_ref_filtered::<&A, Without<B>>().iter_combinations().map(|[a, b]| [*a, *b]).collect();
    check_combinations(values, &[[A(2), A(3)], [A(2), A(4)], [A(3), A(4)]]);
    let values: Vec<[A; 3]> = world
        .query_ref_filtered::<&A, Without<B>>()
        .iter_combinations()
        .map(|[a, b, c]| [*a, *b, *c])
        .collect();
    check_combinations(values, &[[A(2), A(3), A(4)]]);

    let values: Vec<[A; 2]> = world
        .query_ref_filtered::<&A, Or<(With<A>, With<B>)>>()
        .iter_combinations()
        .map(|[a, b]| [*a, *b])
        .collect();
    check_combinations(
        values,
        &[[A(1), A(2)], [A(1), A(3)], [A(1), A(4)], [A(2), A(3)], [A(2), A(4)], [A(3), A(4)]],
    );

    let mut query = world.query_filtered::<&mut A, Without<B>>();
    let mut combinations = query.iter_combinations_mut::<3>();
    while let Some([a, b, c]) = combinations.fetch_next() {
        a.0 += 10;
        b.0 += 100;
        c.0 += 1000;
    }
    let values: Vec<[A; 3]> = world
        .query_ref_filtered::<&A, Without<B>>()
        .iter_combinations()
        .map(|[a, b, c]| [*a, *b, *c])
        .collect();
    assert_eq!(values.len(), 1);
    let mut sums: Vec<usize> = values[0].iter().map(|a| a.0).collect();
    sums.sort();
    // bevy's order puts A(2) first; Mosaic's order is arbitrary, so each of the three got one of
    // the three increments.
    let mut bases: Vec<usize> = sums.iter().map(|v| v % 10).collect();
    bases.sort();
    assert_eq!(bases, vec![2, 3, 4]);
    let mut added: Vec<usize> = sums.iter().map(|v| v - v % 10).collect();
    added.sort();
    assert_eq!(added, vec![10, 100, 1000]);

    // Added<T> and combinations.
    let mut world = World::new();
    for i in 1..=4 {
        world.spawn((A(i), B(i)));
    }
    world.clear_trackers();
    world.spawn(A(5));
    assert_eq!(world.query_ref_filtered::<&A, Added<A>>().iter_combinations::<2>().count(), 0);
    world.clear_trackers();
    world.spawn(A(6));
    world.spawn(A(7));
    assert_eq!(world.query_ref_filtered::<&A, Added<A>>().iter_combinations::<2>().count(), 1);
    world.clear_trackers();
    world.spawn(A(8));
    world.spawn(A(9));
    world.spawn(A(10));
    assert_eq!(world.query_ref_filtered::<&A, Added<A>>().iter_combinations::<2>().count(), 3);
}

// bevy: query_iter_combinations_sparse
#[test]
fn query_iter_combinations_sparse() {
    let mut world = World::new();
    world.spawn_batch((1..=4).map(Sparse));
    let values: Vec<[Sparse; 3]> =
        world.query_ref::<&Sparse>().iter_combinations().map(|[a, b, c]| [*a, *b, *c]).collect();
    check_combinations(
        values,
        &[
            [Sparse(1), Sparse(2), Sparse(3)],
            [Sparse(1), Sparse(2), Sparse(4)],
            [Sparse(1), Sparse(3), Sparse(4)],
            [Sparse(2), Sparse(3), Sparse(4)],
        ],
    );
}

// bevy: get_many_only_mut_checks_duplicates
#[test]
fn get_many_only_mut_checks_duplicates() {
    let mut world = World::new();
    let id = world.spawn(A(10));
    // bevy reads through a `&mut A` query; Mosaic's `get_many` is on read-only queries.
    let query = world.query_ref::<&A>();
    let result = query.get_many([id, id]).map(|[a, b]| [*a, *b]);
    assert_eq!(result, Ok([A(10), A(10)]));
    let mut query = world.query::<&mut A>();
    let result = query.get_many_mut([id, id]);
    assert!(matches!(result, Err(QueryError::DuplicateEntity { .. })));
}

// bevy: multi_storage_query
#[test]
fn multi_storage_query() {
    let mut world = World::new();
    world.spawn((Sparse(1), B(2)));
    world.spawn(Sparse(2));
    let values = world.query_ref::<&Sparse>().iter().copied().collect::<HashSet<Sparse>>();
    assert!(values.contains(&Sparse(1)));
    assert!(values.contains(&Sparse(2)));
    for (_a, b) in world.query::<(&Sparse, &mut B)>() {
        b.0 = 3;
    }
    let values = world.query_ref::<&B>().iter().copied().collect::<Vec<B>>();
    assert_eq!(values, vec![B(3)]);
}

// bevy: any_query. Mosaic has no `AnyOf`; the same rows come from `Option`s under an `Or` filter.
#[test]
fn any_query() {
    let mut world = World::new();
    world.spawn((A(1), B(2)));
    world.spawn(A(2));
    world.spawn(C(3));
    let values: HashSet<(Option<A>, Option<B>)> = world
        .query_ref_filtered::<(Option<&A>, Option<&B>), Or<(With<A>, With<B>)>>()
        .iter()
        .map(|(a, b)| (a.copied(), b.copied()))
        .collect();
    assert_eq!(values, HashSet::from([(Some(A(1)), Some(B(2))), (Some(A(2)), None)]));
}

// bevy: has_query
#[test]
fn has_query() {
    let mut world = World::new();
    world.spawn((A(1), B(1)));
    world.spawn(A(2));
    world.spawn((A(3), B(1)));
    world.spawn(A(4));
    let values: HashSet<(A, bool)> = world.query_ref::<(&A, Has<B>)>().iter().map(|(a, b)| (*a, b)).collect();
    assert!(values.contains(&(A(1), true)));
    assert!(values.contains(&(A(2), false)));
    assert!(values.contains(&(A(3), true)));
    assert!(values.contains(&(A(4), false)));
}

// bevy: self_conflicting_worldquery
#[test]
#[should_panic]
fn self_conflicting_worldquery() {
    #[derive(QueryData)]
    struct SelfConflicting<'w> {
        a: &'w mut A,
        b: &'w mut A,
    }
    let mut world = World::new();
    world.spawn(A(1));
    for item in world.query::<SelfConflicting<'_>>() {
        item.a.0 += 1;
        item.b.0 += 1;
    }
}

// bevy: derived_worldqueries (the `QueryData` parts: Mosaic's derive takes the struct with a
// `'w` lifetime, not `&'static` fields, and there is no `#[derive(QueryFilter)]`)
#[test]
fn derived_worldqueries() {
    let mut world = World::new();
    world.spawn((A(10), B(18), C(3), Sparse(4)));
    world.spawn((A(101), B(148), C(13)));
    world.spawn((A(51), B(46), Sparse(72)));
    world.spawn((A(398), C(6), Sparse(9)));
    world.spawn((B(11), C(28), Sparse(92)));
    world.spawn((C(18348), Sparse(101)));
    world.spawn((B(839), Sparse(5)));
    world.spawn((B(6721), C(122)));
    world.spawn((A(220), Sparse(63)));
    world.spawn((A(1092), C(382)));
    world.spawn((A(2058), B(3019)));
    world.spawn((B(38), C(8), Sparse(100)));
    world.spawn((A(111), C(52), Sparse(1)));
    world.spawn((A(599), B(39), Sparse(13)));
    world.spawn((A(55), B(66), C(77)));
    world.spawn_empty();

    #[derive(QueryData)]
    struct CustomAB<'w> {
        a: &'w A,
        b: &'w B,
    }
    let custom: Vec<(A, B)> =
        world.query_ref::<CustomAB<'_>>().iter().map(|item| (*item.a, *item.b)).collect();
    let normal: Vec<(A, B)> = world.query_ref::<(&A, &B)>().iter().map(|(a, b)| (*a, *b)).collect();
    assert_eq!(custom, normal);

    #[derive(QueryData)]
    struct FancyParam<'w> {
        e: Entity,
        b: &'w B,
        opt: Option<&'w Sparse>,
    }
    let custom: Vec<_> = world
        .query_ref::<FancyParam<'_>>()
        .iter()
        .map(|fancy| (fancy.e, *fancy.b, fancy.opt.copied()))
        .collect();
    let normal: Vec<_> = world
        .query_ref::<(Entity, &B, Option<&Sparse>)>()
        .iter()
        .map(|(e, b, opt)| (e, *b, opt.copied()))
        .collect();
    assert_eq!(custom, normal);

    let custom: Vec<[(A, B); 2]> = world
        .query_ref::<CustomAB>()
        .iter_combinations::<2>()
        .map(|[x, y]| [(*x.a, *x.b), (*y.a, *y.b)])
        .collect();
    let normal: Vec<[(A, B); 2]> = world
        .query_ref::<(&A, &B)>()
        .iter_combinations::<2>()
        .map(|[(a0, b0), (a1, b1)]| [(*a0, *b0), (*a1, *b1)])
        .collect();
    assert_eq!(custom, normal);
}

// bevy: many_entities
#[test]
fn many_entities() {
    let mut world = World::new();
    world.spawn((A(0), B(0)));
    world.spawn((A(0), B(0)));
    world.spawn(A(0));
    world.spawn(B(0));

    fn count_system(has_a: Query<Entity, With<A>>, has_a_and_b: Query<(&A, &B)>) {
        // bevy's `iter_many` yields a `Result` per listed entity and `.matched()` keeps the
        // matches; Mosaic's `iter_many` passes over what does not match, so it yields 2.
        assert_eq!(has_a_and_b.iter_many(&has_a).count(), 2);
        assert_eq!(has_a.iter().count(), 3);
    }
    world.run_system(count_system);

    fn write_system(has_a: Query<Entity, With<A>>, mut b_query: Query<&mut B>) {
        let mut iter = b_query.iter_many_mut(&has_a);
        while let Some(b) = iter.fetch_next() {
            b.0 = 1;
        }
    }
    world.run_system(write_system);

    fn check_system(query: Query<(Option<&A>, &B)>) {
        for (maybe_a, b) in &query {
            match maybe_a {
                Some(_) => assert_eq!(b.0, 1),
                None => assert_eq!(b.0, 0),
            }
        }
    }
    world.run_system(check_system);
}

// bevy: par_iter_mut_change_detection
#[test]
fn par_iter_mut_change_detection() {
    let mut world = World::new();
    world.spawn((A(1), B(1)));

    fn propagate_system(mut query: Query<(&A, &mut B), Changed<A>>) {
        query.par_for_each(|(a, b)| b.0 = a.0);
    }
    fn modify_system(mut query: Query<&mut A>) {
        for a in &mut query {
            a.0 = 2;
        }
    }
    let mut schedule = Schedule::new();
    schedule.add_system(propagate_system);
    schedule.add_system(modify_system).after(propagate_system);
    schedule.run(&mut world);
    world.clear_trackers();
    schedule.run(&mut world);
    world.clear_trackers();
    let values = world.query_ref::<&B>().iter().copied().collect::<Vec<B>>();
    assert_eq!(values, vec![B(2)]);
}

// bevy: get_many_is_ordered (system/mod.rs)
#[test]
fn get_many_is_ordered() {
    const ENTITIES_COUNT: usize = 1000;
    struct EntitiesArray(Vec<Entity>);
    #[derive(Default)]
    struct Ran(usize);

    fn query_system(entities: mosaic::Res<EntitiesArray>, q: Query<&A>, mut ran: mosaic::ResMut<Ran>) {
        let entities: [Entity; ENTITIES_COUNT] = entities.0.clone().try_into().unwrap();
        for (i, a) in (0..ENTITIES_COUNT).zip(q.get_many(entities).unwrap()) {
            assert_eq!(i, a.0);
        }
        ran.0 += 1;
    }
    fn query_system_mut(
        entities: mosaic::Res<EntitiesArray>,
        mut q: Query<&mut A>,
        mut ran: mosaic::ResMut<Ran>,
    ) {
        let entities: [Entity; ENTITIES_COUNT] = entities.0.clone().try_into().unwrap();
        for (i, a) in (0..ENTITIES_COUNT).zip(q.get_many_mut(entities).unwrap()) {
            assert_eq!(i, a.0);
        }
        ran.0 += 1;
    }
    let mut world = World::new();
    world.init_resource::<Ran>();
    let ids = (0..ENTITIES_COUNT).map(|i| world.spawn(A(i))).collect();
    world.insert_resource(EntitiesArray(ids));
    world.run_system(query_system);
    world.run_system(query_system_mut);
    assert_eq!(world.resource::<Ran>().0, 2);
}

// bevy: query_is_empty (system/mod.rs)
#[test]
fn query_is_empty() {
    fn without_filter(not_empty: Query<&A>, empty: Query<&B>) {
        assert!(!not_empty.is_empty());
        assert!(empty.is_empty());
    }
    fn with_filter(not_empty: Query<&A, With<C>>, empty: Query<&A, With<D>>) {
        assert!(!not_empty.is_empty());
        assert!(empty.is_empty());
    }
    let mut world = World::new();
    let e = world.spawn(A(0));
    world.insert(e, C(0));
    world.run_system(without_filter);
    world.run_system(with_filter);
}

// bevy: into_iter_impl (system/mod.rs)
#[test]
fn into_iter_impl() {
    let mut world = World::new();
    world.spawn(A(42));
    world.run_system(|mut q: Query<&mut A>| {
        for a in &mut q {
            assert_eq!(a.0, 42);
            a.0 = 0;
        }
        for a in &mut q {
            assert_eq!(a.0, 0);
        }
    });
}

// bevy: conflicting_query_mut_system (system/mod.rs)
#[test]
#[should_panic]
fn conflicting_query_mut_system() {
    fn sys(_q1: Query<&mut A>, _q2: Query<&mut A>) {}
    let mut world = World::new();
    world.run_system(sys);
}

// bevy: disjoint_query_mut_system (system/mod.rs)
#[test]
fn disjoint_query_mut_system() {
    fn sys(_q1: Query<&mut A, With<B>>, _q2: Query<&mut A, Without<B>>) {}
    let mut world = World::new();
    world.run_system(sys);
}

// bevy: conflicting_query_immut_system (system/mod.rs)
#[test]
#[should_panic]
fn conflicting_query_immut_system() {
    fn sys(_q1: Query<&A>, _q2: Query<&mut A>) {}
    let mut world = World::new();
    world.run_system(sys);
}

// bevy: or_has_no_filter_with (system/mod.rs): `Or<(With<A>, With<B>)>` does not make a query
// disjoint from one `Without<A>`.
#[test]
#[should_panic]
fn or_has_no_filter_with() {
    type WithAOrB = Or<(With<A>, With<B>)>;
    fn sys(_: Query<&mut C, WithAOrB>, _: Query<&mut C, Without<A>>) {}
    let mut world = World::new();
    world.run_system(sys);
}

// bevy: or_has_filter_with_when_both_have_it (system/mod.rs)
#[test]
fn or_has_filter_with_when_both_have_it() {
    type WithAOrA = Or<(With<A>, With<A>)>;
    fn sys(_: Query<&mut C, WithAOrA>, _: Query<&mut C, Without<A>>) {}
    let mut world = World::new();
    world.run_system(sys);
}

// bevy: option_has_no_filter_with (system/mod.rs)
#[test]
#[should_panic]
fn option_has_no_filter_with() {
    fn sys(_: Query<(Option<&A>, &mut B)>, _: Query<&mut B, Without<A>>) {}
    let mut world = World::new();
    world.run_system(sys);
}

// bevy: option_doesnt_remove_unrelated_filter_with (system/mod.rs)
#[test]
fn option_doesnt_remove_unrelated_filter_with() {
    fn sys(_: Query<(Option<&A>, &mut B, &C)>, _: Query<&mut B, Without<C>>) {}
    let mut world = World::new();
    world.run_system(sys);
}

// bevy: query_iter_sorts (query/iter.rs)
#[test]
fn query_iter_sorts() {
    let mut world = World::new();
    for i in 0..100 {
        world.spawn(A(i));
        world.spawn((A(i), Sparse(i)));
        world.spawn(Sparse(i));
    }
    let query = world.query_ref::<Entity>();
    let sort = query.iter().sort::<Entity>().collect::<Vec<_>>();
    let sort_unstable = query.iter().sort_unstable::<Entity>().collect::<Vec<_>>();
    let sort_by = query.iter().sort_by::<Entity>(Ord::cmp).collect::<Vec<_>>();
    let sort_unstable_by = query.iter().sort_unstable_by::<Entity>(Ord::cmp).collect::<Vec<_>>();
    let sort_by_key = query.iter().sort_by_key::<Entity, _>(|&e| e).collect::<Vec<_>>();
    let sort_unstable_by_key = query.iter().sort_unstable_by_key::<Entity, _>(|&e| e).collect::<Vec<_>>();
    let sort_by_cached_key = query.iter().sort_by_cached_key::<Entity, _>(|&e| e).collect::<Vec<_>>();
    let mut sort_v2 = query.iter().collect::<Vec<_>>();
    sort_v2.sort();
    let mut sort_unstable_v2 = query.iter().collect::<Vec<_>>();
    sort_unstable_v2.sort_unstable();
    let mut sort_by_v2 = query.iter().collect::<Vec<_>>();
    sort_by_v2.sort_by(Ord::cmp);
    let mut sort_by_key_v2 = query.iter().collect::<Vec<_>>();
    sort_by_key_v2.sort_by_key(|&e| e);
    let mut sort_by_cached_key_v2 = query.iter().collect::<Vec<_>>();
    sort_by_cached_key_v2.sort_by_cached_key(|&e| e);
    assert_eq!(sort, sort_v2);
    assert_eq!(sort_unstable, sort_unstable_v2);
    assert_eq!(sort_by, sort_by_v2);
    assert_eq!(sort_unstable_by, sort_unstable_v2);
    assert_eq!(sort_by_key, sort_by_key_v2);
    assert_eq!(sort_unstable_by_key, sort_unstable_v2);
    assert_eq!(sort_by_cached_key, sort_by_cached_key_v2);
    assert_eq!(sort.len(), 300);
}
