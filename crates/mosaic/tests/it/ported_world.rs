//! bevy_ecs's world and entity tests (`lib.rs` and `world/mod.rs`), ported to Mosaic's API where
//! `spawn.rs`, `insert_remove.rs`, `despawn.rs` and `resources.rs` do not already cover them.
//! Each test is named after the bevy test it ports.
//!
//! Names: `world.spawn(X).id()` is `world.spawn(X)`; bevy's `world.despawn(e) -> bool` is
//! `try_despawn(e) -> Result`; `EntityWorldMut::take::<B>()` is `World::remove::<B>` (the bundle
//! out whole, or `None`), and bevy's `EntityWorldMut::remove::<B>()` (what is present) is
//! `remove_present`; `get` returns a `Result`, not an `Option`. Every Mosaic component lives in
//! a sparse set, so bevy's table / sparse-set pairs of tests run against the one storage kind.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mosaic::{Component, Entity, Or, Ref, With, Without, World};

#[derive(Component, Debug, Hash, Eq, PartialEq, Clone, Copy)]
struct A(usize);
#[derive(Component, Debug, Hash, Eq, PartialEq, Clone, Copy)]
struct B(usize);
#[derive(Component, Debug, Hash, Eq, PartialEq, Clone, Copy)]
struct C;
#[derive(Component, Debug, Hash, Eq, PartialEq, Clone, Copy)]
struct TableStored(&'static str);
#[derive(Component, Debug, Hash, Eq, PartialEq, Clone, Copy)]
struct SparseStored(u32);
#[derive(Debug, PartialEq, Default)]
struct ResA(usize);

#[derive(Component)]
struct DropCk(Arc<AtomicUsize>);

impl DropCk {
    fn new_pair() -> (Self, Arc<AtomicUsize>) {
        let atomic = Arc::new(AtomicUsize::new(0));
        (DropCk(atomic.clone()), atomic)
    }
}

impl Drop for DropCk {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

// bevy: random_access
#[test]
fn random_access() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), SparseStored(123)));
    let f = world.spawn((TableStored("def"), SparseStored(456), A(1)));
    assert_eq!(world.get::<TableStored>(e).unwrap().0, "abc");
    assert_eq!(world.get::<SparseStored>(e).unwrap().0, 123);
    assert_eq!(world.get::<TableStored>(f).unwrap().0, "def");
    assert_eq!(world.get::<SparseStored>(f).unwrap().0, 456);
    world.get_mut::<TableStored>(e).unwrap().0 = "xyz";
    assert_eq!(world.get::<TableStored>(e).unwrap().0, "xyz");
    world.get_mut::<SparseStored>(f).unwrap().0 = 42;
    assert_eq!(world.get::<SparseStored>(f).unwrap().0, 42);
}

// bevy: despawn_table_storage and despawn_mixed_storage
#[test]
fn despawn_mixed_storage() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), SparseStored(123)));
    let f = world.spawn((TableStored("def"), SparseStored(456)));
    assert_eq!(world.query_ref::<&TableStored>().iter().count(), 2);
    assert!(world.try_despawn(e).is_ok());
    assert_eq!(world.query_ref::<&TableStored>().iter().count(), 1);
    assert!(world.get::<TableStored>(e).is_err());
    assert!(world.get::<SparseStored>(e).is_err());
    assert_eq!(world.get::<TableStored>(f).unwrap().0, "def");
    assert_eq!(world.get::<SparseStored>(f).unwrap().0, 456);
    assert!(world.try_despawn(e).is_err(), "a second despawn fails");
}

// bevy: query_all and query_all_for_each
#[test]
fn query_all() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), A(123)));
    let f = world.spawn((TableStored("def"), A(456)));
    let ents: HashSet<_> =
        world.query_ref::<(Entity, &A, &TableStored)>().iter().map(|(e, &i, &s)| (e, i, s)).collect();
    assert_eq!(ents, HashSet::from([(e, A(123), TableStored("abc")), (f, A(456), TableStored("def"))]));
    let mut each = HashSet::new();
    world.query_ref::<(Entity, &A, &TableStored)>().for_each(|(e, &i, &s)| {
        each.insert((e, i, s));
    });
    assert_eq!(each, ents);
}

// bevy: query_single_component and stateful_query_handles_new_archetype
#[test]
fn stateful_query_handles_new_archetype() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), A(123)));
    let ents: HashSet<_> = world.query_ref::<(Entity, &A)>().iter().map(|(e, &i)| (e, i)).collect();
    assert_eq!(ents, HashSet::from([(e, A(123))]));
    let f = world.spawn((TableStored("def"), A(456), B(1)));
    let ents: HashSet<_> = world.query_ref::<(Entity, &A)>().iter().map(|(e, &i)| (e, i)).collect();
    assert_eq!(ents, HashSet::from([(e, A(123)), (f, A(456))]));
}

// bevy: query_missing_component
#[test]
fn query_missing_component() {
    let mut world = World::new();
    world.spawn((TableStored("abc"), A(123)));
    world.spawn((TableStored("def"), A(456)));
    assert!(world.query_ref::<(&B, &A)>().iter().next().is_none());
}

// bevy: query_filter_with, query_filter_with_sparse (and their for_each forms)
#[test]
fn query_filter_with() {
    let mut world = World::new();
    world.spawn((A(123), B(1)));
    world.spawn(A(456));
    world.spawn((A(789), SparseStored(2)));
    let result: Vec<A> = world.query_ref_filtered::<&A, With<B>>().iter().copied().collect();
    assert_eq!(result, vec![A(123)]);
    let mut each = Vec::new();
    world.query_ref_filtered::<&A, With<SparseStored>>().for_each(|a| each.push(*a));
    assert_eq!(each, vec![A(789)]);
}

// bevy: query_filter_without
#[test]
fn query_filter_without() {
    let mut world = World::new();
    world.spawn((A(123), B(321)));
    world.spawn(A(456));
    let result: Vec<A> = world.query_ref_filtered::<&A, Without<B>>().iter().copied().collect();
    assert_eq!(result, vec![A(456)]);
}

// bevy: query_optional_component_table, query_optional_component_sparse and
// query_optional_component_sparse_no_match
#[test]
fn query_optional_component_table() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), A(123)));
    let f = world.spawn((TableStored("def"), A(456), B(1)));
    let ents: HashSet<_> =
        world.query_ref::<(Entity, Option<&B>, &A)>().iter().map(|(e, b, &i)| (e, b.copied(), i)).collect();
    assert_eq!(ents, HashSet::from([(e, None, A(123)), (f, Some(B(1)), A(456))]));

    let none: Vec<_> = world
        .query_ref::<(Entity, Option<&SparseStored>, &A)>()
        .iter()
        .map(|(e, s, &i)| (e, s.copied(), i))
        .collect();
    assert_eq!(none.len(), 2);
    assert!(none.iter().all(|(_, s, _)| s.is_none()), "no entity has SparseStored");
}

// bevy: add_remove_components
#[test]
fn add_remove_components() {
    let mut world = World::new();
    let e1 = world.spawn((A(1), B(3), TableStored("abc")));
    let e2 = world.spawn((A(2), B(4), TableStored("xyz")));
    let abs = |world: &World| -> HashSet<(Entity, A, B)> {
        world.query_ref::<(Entity, &A, &B)>().iter().map(|(e, &a, &b)| (e, a, b)).collect()
    };
    assert_eq!(abs(&world), HashSet::from([(e1, A(1), B(3)), (e2, A(2), B(4))]));
    assert_eq!(world.entity_mut(e1).remove::<A>(), Some(A(1)));
    assert_eq!(abs(&world), HashSet::from([(e2, A(2), B(4))]));
    let bs: HashSet<_> = world
        .query_ref::<(Entity, &B, &TableStored)>()
        .iter()
        .map(|(e, &B(b), &TableStored(s))| (e, b, s))
        .collect();
    assert_eq!(bs, HashSet::from([(e2, 4, "xyz"), (e1, 3, "abc")]));
    world.entity_mut(e1).insert(A(43));
    assert_eq!(abs(&world), HashSet::from([(e2, A(2), B(4)), (e1, A(43), B(3))]));
    world.entity_mut(e1).insert(C);
    let with_c: Vec<_> = world.query_ref::<(Entity, &C)>().iter().map(|(e, _)| e).collect();
    assert_eq!(with_c, vec![e1]);
}

// bevy: table_add_remove_many and sparse_set_add_remove_many
#[test]
fn table_add_remove_many() {
    let mut world = World::new();
    let mut entities = Vec::with_capacity(10_000);
    for _ in 0..1000 {
        entities.push(world.spawn(B(0)));
    }
    for (i, &entity) in entities.iter().enumerate() {
        world.insert(entity, A(i));
    }
    for (i, &entity) in entities.iter().enumerate() {
        assert_eq!(world.remove::<A>(entity), Some(A(i)));
    }
}

// bevy: remove_missing
#[test]
fn remove_missing() {
    let mut world = World::new();
    let e = world.spawn((TableStored("abc"), A(123)));
    assert!(world.entity_mut(e).remove::<B>().is_none());
}

// bevy: spawn_batch. bevy yields in spawn order; Mosaic's order is arbitrary, so sorted.
#[test]
fn spawn_batch() {
    let mut world = World::new();
    world.spawn_batch((0..100).map(|x| (A(x), TableStored("abc"))));
    let mut values: Vec<usize> = world.query_ref::<&A>().iter().map(|v| v.0).collect();
    values.sort();
    assert_eq!(values, (0..100).collect::<Vec<_>>());
}

// bevy: query_get
#[test]
fn query_get() {
    let mut world = World::new();
    let a = world.spawn((TableStored("abc"), A(123)));
    let b = world.spawn((TableStored("def"), A(456)));
    let c = world.spawn((TableStored("ghi"), A(789), B(1)));
    {
        let query = world.query_ref::<&A>();
        assert_eq!(query.get(a).unwrap().0, 123);
        assert_eq!(query.get(b).unwrap().0, 456);
        let pair = world.query_ref::<(&A, &B)>();
        assert!(pair.get(a).is_err());
        assert_eq!(pair.get(c).unwrap(), (&A(789), &B(1)));
    }
    assert!(world.try_despawn(a).is_ok());
    assert!(world.query_ref::<&A>().get(a).is_err());
}

// bevy: query_get_works_across_sparse_removal
#[test]
fn query_get_works_across_sparse_removal() {
    let mut world = World::new();
    let a = world.spawn((TableStored("abc"), SparseStored(123)));
    let b = world.spawn((TableStored("def"), SparseStored(456)));
    let c = world.spawn((TableStored("ghi"), SparseStored(789), B(1)));
    let check = |world: &World| {
        let query = world.query_ref::<&TableStored>();
        assert_eq!(query.get(a).unwrap(), &TableStored("abc"));
        assert_eq!(query.get(b).unwrap(), &TableStored("def"));
        assert_eq!(query.get(c).unwrap(), &TableStored("ghi"));
    };
    check(&world);
    world.entity_mut(b).remove::<SparseStored>();
    world.entity_mut(c).remove::<SparseStored>();
    check(&world);
}

// bevy: empty_spawn
#[test]
fn empty_spawn() {
    let mut world = World::new();
    let e = world.spawn_empty();
    let mut e_mut = world.entity_mut(e);
    e_mut.insert(A(0));
    assert_eq!(e_mut.get::<A>().unwrap(), &A(0));
}

// bevy: resource
#[test]
fn resource() {
    #[derive(PartialEq, Debug)]
    struct Num(i32);
    #[derive(PartialEq, Debug)]
    struct BigNum(u64);

    let mut world = World::new();
    assert!(world.get_resource::<Num>().is_none());
    assert!(!world.contains_resource::<Num>());
    assert!(!world.is_resource_added::<Num>());
    assert!(!world.is_resource_changed::<Num>());

    world.insert_resource(Num(123));
    assert_eq!(world.resource::<Num>().0, 123);
    assert!(world.contains_resource::<Num>());
    assert!(world.is_resource_added::<Num>());
    assert!(world.is_resource_changed::<Num>());

    world.insert_resource(BigNum(456));
    assert_eq!(world.resource::<BigNum>().0, 456u64);
    world.insert_resource(BigNum(789));
    assert_eq!(world.resource::<BigNum>().0, 789);
    {
        let value = world.resource_mut::<BigNum>();
        assert_eq!(value.0, 789);
        value.0 = 10;
    }
    assert_eq!(world.resource::<BigNum>().0, 10, "resource changes are preserved");
    assert_eq!(world.remove_resource::<BigNum>(), Some(BigNum(10)), "removed resource has the correct value");
    assert_eq!(world.get_resource::<BigNum>(), None, "removed resource no longer exists");
    assert_eq!(world.remove_resource::<BigNum>(), None, "double remove returns nothing");
    world.insert_resource(BigNum(1));
    assert_eq!(world.get_resource::<BigNum>(), Some(&BigNum(1)), "re-inserting resources works");
    assert_eq!(world.get_resource::<Num>(), Some(&Num(123)), "other resources are unaffected");
}

// bevy: remove (bevy's `remove::<(A, B, C)>` removes what is present: `remove_present`)
#[test]
fn remove() {
    let mut world = World::new();
    let e1 = world.spawn((A(1), B(1), TableStored("a")));
    let mut e = world.entity_mut(e1);
    assert_eq!(e.get::<TableStored>(), Ok(&TableStored("a")));
    assert_eq!(e.get::<A>(), Ok(&A(1)));
    assert_eq!(e.get::<B>(), Ok(&B(1)));
    assert!(e.get::<C>().is_err(), "C is not in the entity");
    assert_eq!(e.remove_present::<(A, B, C)>(), 2);
    assert_eq!(e.get::<TableStored>(), Ok(&TableStored("a")), "not in the removed bundle");
    assert!(e.get::<A>().is_err());
    assert!(e.get::<B>().is_err());
    assert!(e.get::<C>().is_err());
}

// bevy: take (bevy's `EntityWorldMut::take` is Mosaic's `remove` of a bundle)
#[test]
fn take() {
    let mut world = World::new();
    world.spawn((A(1), B(1), TableStored("1")));
    let e2 = world.spawn((A(2), B(2), TableStored("2")));
    world.spawn((A(3), B(3), TableStored("3")));
    let results = |world: &World| -> HashSet<(usize, &'static str)> {
        world.query_ref::<(&B, &TableStored)>().iter().map(|(b, s)| (b.0, s.0)).collect()
    };
    assert_eq!(results(&world), HashSet::from([(1, "1"), (2, "2"), (3, "3")]));
    let removed = world.entity_mut(e2).remove::<(B, TableStored)>().unwrap();
    assert_eq!(removed, (B(2), TableStored("2")));
    assert_eq!(results(&world), HashSet::from([(1, "1"), (3, "3")]));
    let a_values: HashSet<usize> = world.query_ref::<&A>().iter().map(|a| a.0).collect();
    assert_eq!(a_values, HashSet::from([1, 3, 2]));
    let entity = world.entity(e2);
    assert_eq!(entity.get::<A>(), Ok(&A(2)), "A is not in the removed bundle");
    assert!(entity.get::<B>().is_err());
    assert!(entity.get::<TableStored>().is_err());
}

// bevy: exact_size_query
#[test]
fn exact_size_query() {
    let mut world = World::new();
    world.spawn((A(0), B(0)));
    world.spawn((A(0), B(0)));
    world.spawn((A(0), B(0), C));
    world.spawn(C);
    // bevy's `iter().len()`; Mosaic's join walk is not an `ExactSizeIterator`, `count` is exact.
    assert_eq!(world.query_ref::<(&A, &B)>().count(), 3);
    assert_eq!(world.query_ref::<(&A, &B)>().iter().count(), 3);
}

// bevy: duplicate_components_panic
#[test]
#[should_panic]
fn duplicate_components_panic() {
    let mut world = World::new();
    world.spawn((A(1), A(2)));
}

// bevy: ref_and_mut_query_panic
#[test]
#[should_panic]
fn ref_and_mut_query_panic() {
    let mut world = World::new();
    world.spawn(A(0));
    for item in world.query::<(&A, &mut A)>() {
        let _ = item;
    }
}

// bevy: mut_and_ref_query_panic
#[test]
#[should_panic]
fn mut_and_ref_query_panic() {
    let mut world = World::new();
    world.spawn(A(0));
    for item in world.query::<(&mut A, &A)>() {
        let _ = item;
    }
}

// bevy: mut_and_mut_query_panic
#[test]
#[should_panic]
fn mut_and_mut_query_panic() {
    let mut world = World::new();
    world.spawn(A(0));
    for item in world.query::<(&mut A, &mut A)>() {
        let _ = item;
    }
}

// bevy: query_filters_dont_collide_with_fetches
#[test]
fn query_filters_dont_collide_with_fetches() {
    let mut world = World::new();
    world.spawn((A(0), B(0)));
    assert_eq!(world.query_filtered::<&mut A, Or<(With<A>, Without<A>)>>().iter_mut().count(), 1);
    assert_eq!(world.query_filtered::<&mut A, (With<A>, Without<B>)>().iter_mut().count(), 0);
}

// bevy: multiple_worlds_same_query_iter / _get / _for_each: a query from one world never
// reaches another's rows.
#[test]
fn multiple_worlds_same_query_get() {
    let mut world_a = World::new();
    let mut world_b = World::new();
    let a = world_a.spawn(A(1));
    world_b.spawn(A(2));
    assert!(world_a.query_ref::<&A>().get(a).is_ok());
    assert!(world_b.query_ref::<&A>().get(a).is_err(), "another world's handle reaches nothing");
    assert_eq!(world_b.query_ref::<&A>().iter().map(|a| a.0).collect::<Vec<_>>(), vec![2]);
}

// bevy: resource_scope
#[test]
fn resource_scope() {
    let mut world = World::new();
    assert!(world.try_resource_scope::<ResA, _>(|_, _| {}).is_err());
    world.insert_resource(ResA(0));
    world.resource_scope(|world: &mut World, value: &mut ResA| {
        value.0 += 1;
        assert!(!world.contains_resource::<ResA>());
    });
    assert_eq!(world.resource::<ResA>().0, 1);
}

// bevy: resource_scope_unwind
#[test]
fn resource_scope_unwind() {
    #[derive(Debug, PartialEq)]
    struct Panic;
    let mut world = World::new();
    world.insert_resource(ResA(0));
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.resource_scope(|world: &mut World, _value: &mut ResA| {
            assert!(!world.contains_resource::<ResA>());
            std::panic::panic_any(Panic);
        });
    }));
    assert_eq!(panic.unwrap_err().downcast_ref::<Panic>(), Some(&Panic));
    assert!(world.contains_resource::<ResA>(), "the resource is put back during the unwind");
}

// bevy: insert_overwrite_drop and insert_overwrite_drop_sparse
#[test]
fn insert_overwrite_drop() {
    let (dropck1, dropped1) = DropCk::new_pair();
    let (dropck2, dropped2) = DropCk::new_pair();
    let mut world = World::new();
    let e = world.spawn(dropck1);
    // `World::insert` hands the old value back; dropping it is the overwrite's drop.
    drop(world.insert(e, dropck2));
    assert_eq!(dropped1.load(Ordering::Relaxed), 1);
    assert_eq!(dropped2.load(Ordering::Relaxed), 0);
    drop(world);
    assert_eq!(dropped1.load(Ordering::Relaxed), 1);
    assert_eq!(dropped2.load(Ordering::Relaxed), 1);
}

// bevy: clear_entities. bevy 0.17 stores resources as entities, so its `clear_entities`
// removes them too; Mosaic's resources are not entities and `World::clear` keeps them.
#[test]
fn clear_entities() {
    let mut world = World::new();
    world.insert_resource(ResA(0));
    world.spawn(A(1));
    world.spawn(SparseStored(1));
    assert_eq!(world.query_ref::<&A>().iter().count(), 1);
    assert_eq!(world.query_ref::<&SparseStored>().iter().count(), 1);
    world.clear();
    assert_eq!(world.query_ref::<&A>().iter().count(), 0);
    assert_eq!(world.query_ref::<&SparseStored>().iter().count(), 0);
    assert_eq!(world.get_resource::<ResA>(), Some(&ResA(0)), "Mosaic keeps resources");
}

// bevy: test_is_archetypal_size_hints. bevy's archetype filters give exact lower bounds;
// Mosaic's walks check filters per row, so only the bounds' validity and the counts are checked.
#[test]
fn test_is_archetypal_size_hints() {
    let mut world = World::new();
    world.spawn((A(1), B(1), C));
    world.spawn((A(1), C));
    world.spawn((A(1), B(1)));
    world.spawn((B(1), C));
    world.spawn(A(1));
    world.spawn(C);
    fn check(iter: impl Iterator, expected: usize) {
        let (low, high) = iter.size_hint();
        let count = iter.count();
        assert_eq!(count, expected);
        assert!(low <= count && high.is_none_or(|high| high >= count), "({low}, {high:?}) for {count}");
    }
    check(world.query_ref_filtered::<(), (With<A>, Without<B>)>().iter(), 2);
    check(world.query_ref_filtered::<&B, Or<(With<A>, With<C>)>>().iter(), 3);
    check(world.query_ref_filtered::<&B, (With<A>, With<C>)>().iter(), 1);
    check(world.query_ref_filtered::<(&A, &B), With<C>>().iter(), 1);
    check(world.query_ref::<&A>().iter(), 4);
    assert_eq!(world.query_ref::<&A>().iter().size_hint(), (4, Some(4)), "one component: exact");
}

// bevy: insert_batch
#[test]
fn insert_batch() {
    let mut world = World::new();
    let e0 = world.spawn(A(0));
    let e1 = world.spawn(B(0));
    world.insert_batch(vec![(e0, (A(1), B(0))), (e1, (A(0), B(1)))]);
    assert_eq!(world.get::<A>(e0), Ok(&A(1)), "first entity's A replaced");
    assert_eq!(world.get::<B>(e0), Ok(&B(0)), "first entity received B");
    assert_eq!(world.get::<A>(e1), Ok(&A(0)), "second entity received A");
    assert_eq!(world.get::<B>(e1), Ok(&B(1)), "second entity's B replaced");
}

// bevy: insert_batch_same_archetype
#[test]
fn insert_batch_same_archetype() {
    let mut world = World::new();
    let e0 = world.spawn((A(0), B(0)));
    let e1 = world.spawn((A(0), B(0)));
    let e2 = world.spawn(B(0));
    world.insert_batch(vec![(e0, (B(1), C)), (e1, (B(2), C)), (e2, (B(3), C))]);
    let query = world.query_ref::<(Option<&A>, &B, &C)>();
    let values = query.get_many([e0, e1, e2]).unwrap();
    assert_eq!(values, [(Some(&A(0)), &B(1), &C), (Some(&A(0)), &B(2), &C), (None, &B(3), &C)]);
}

// bevy: insert_batch_if_new
#[test]
fn insert_batch_if_new() {
    let mut world = World::new();
    let e0 = world.spawn(A(0));
    let e1 = world.spawn(B(0));
    world.insert_batch_if_new(vec![(e0, (A(1), B(0))), (e1, (A(0), B(1)))]);
    assert_eq!(world.get::<A>(e0), Ok(&A(0)), "first entity's A not replaced");
    assert_eq!(world.get::<B>(e0), Ok(&B(0)), "first entity received B");
    assert_eq!(world.get::<A>(e1), Ok(&A(0)), "second entity received A");
    assert_eq!(world.get::<B>(e1), Ok(&B(0)), "second entity's B not replaced");
}

// bevy: init_resource_does_not_overwrite (world/mod.rs)
#[test]
fn init_resource_does_not_overwrite() {
    let mut world = World::new();
    world.insert_resource(ResA(0));
    world.init_resource::<ResA>();
    world.insert_resource(ResA(1));
    world.init_resource::<ResA>();
    assert_eq!(world.resource::<ResA>(), &ResA(1));
}

// bevy: spawn_empty_bundle (world/mod.rs)
#[test]
fn spawn_empty_bundle() {
    let mut world = World::new();
    let e = world.spawn(());
    assert!(world.is_alive(e));
    assert!(world.component_ids(e).unwrap().is_empty());
}

// bevy: get_entity and get_entity_mut (world/mod.rs)
#[test]
fn get_entity() {
    let mut world = World::new();
    let e1 = world.spawn_empty();
    let e2 = world.spawn_empty();
    assert!(world.get_entity(e1).is_ok());
    assert!(world.get_entity_mut(e2).is_ok());
    world.despawn(e1);
    assert!(world.get_entity(e1).is_err());
    assert!(world.get_entity_mut(e1).is_err());
    assert!(world.get_entity(e2).is_ok());
}

// bevy: iterate_entities (world/mod.rs): a query of `Entity` walks every live entity, and of
// `Ref<A>` the entities with A.
#[test]
fn iterate_entities() {
    let mut world = World::new();
    let mut entity_counters = std::collections::HashMap::new();
    let iterate_and_count = |world: &World, counters: &mut std::collections::HashMap<Entity, usize>| {
        counters.clear();
        for entity in world.query_ref::<Entity>().iter() {
            *counters.entry(entity).or_insert(0) += 1;
        }
    };
    iterate_and_count(&world, &mut entity_counters);
    assert_eq!(entity_counters.len(), 0);

    let a1 = world.spawn(A(1));
    iterate_and_count(&world, &mut entity_counters);
    assert_eq!(entity_counters.len(), 1);
    assert_eq!(entity_counters[&a1], 1);

    let b1 = world.spawn(B(1));
    let ab = world.spawn((A(2), B(2)));
    iterate_and_count(&world, &mut entity_counters);
    assert_eq!(entity_counters.len(), 3);
    assert!([a1, b1, ab].iter().all(|e| entity_counters[e] == 1));
    let with_a: HashSet<Entity> = world.query_ref::<(Entity, Ref<A>)>().iter().map(|(e, _)| e).collect();
    assert_eq!(with_a, HashSet::from([a1, ab]));

    world.despawn(a1);
    iterate_and_count(&world, &mut entity_counters);
    assert_eq!(entity_counters.len(), 2);
    world.clear();
    iterate_and_count(&world, &mut entity_counters);
    assert_eq!(entity_counters.len(), 0);
}

// bevy: inspect_entity_components (world/mod.rs)
#[test]
fn inspect_entity_components() {
    let mut world = World::new();
    let ent0 = world.spawn((A(0), B(0), C));
    let ent1 = world.spawn((A(0), B(0)));
    let ent2 = world.spawn((B(0), C));
    let ent3 = world.spawn((A(0), C));
    let a = world.register_component::<A>();
    let b = world.register_component::<B>();
    let c = world.register_component::<C>();
    let ids = |world: &World, e: Entity| -> HashSet<mosaic::ComponentId> {
        world.component_ids(e).unwrap().iter().copied().collect()
    };
    assert_eq!(ids(&world, ent0), HashSet::from([a, b, c]));
    assert_eq!(ids(&world, ent1), HashSet::from([a, b]));
    assert_eq!(ids(&world, ent2), HashSet::from([b, c]));
    assert_eq!(ids(&world, ent3), HashSet::from([a, c]));
}

// bevy: removing_sparse_updates_archetype_row and removing_dense_updates_table_row
// (world/entity_access/mod.rs): removing a component from one entity leaves another's intact.
#[test]
fn removing_dense_updates_table_row() {
    #[derive(Component, PartialEq, Debug)]
    struct Dense(u8);
    #[derive(Component)]
    struct Sparse;
    let mut world = World::new();
    let e1 = world.spawn((Dense(0), Sparse));
    let e2 = world.spawn((Dense(1), Sparse));
    world.entity_mut(e1).remove::<Dense>();
    assert_eq!(world.entity(e2).get::<Dense>().unwrap(), &Dense(1));
    world.entity_mut(e1).remove::<Sparse>();
    assert_eq!(world.entity(e2).get::<Dense>().unwrap(), &Dense(1));
    assert!(world.entity(e2).contains::<Sparse>());
}

// bevy: inserting_dense_updates_table_row and inserting_sparse_updates_archetype_row
// (world/entity_access/mod.rs)
#[test]
fn inserting_dense_updates_table_row() {
    #[derive(Component, PartialEq, Debug)]
    struct Dense(u8);
    #[derive(Component)]
    struct Dense2;
    #[derive(Component)]
    struct Sparse;
    let mut world = World::new();
    let e1 = world.spawn(Dense(0));
    let e2 = world.spawn(Dense(1));
    world.entity_mut(e1).insert(Sparse);
    world.entity_mut(e1).remove::<Sparse>();
    world.entity_mut(e1).insert(Dense2);
    assert_eq!(world.entity(e2).get::<Dense>().unwrap(), &Dense(1));
    assert_eq!(world.entity(e1).get::<Dense>().unwrap(), &Dense(0));
}

// bevy: despawning_entity_updates_table_row and despawning_entity_updates_archetype_row
// (world/entity_access/mod.rs)
#[test]
fn despawning_entity_updates_table_row() {
    #[derive(Component, PartialEq, Debug)]
    struct Dense(u8);
    #[derive(Component)]
    struct Sparse;
    let mut world = World::new();
    let e1 = world.spawn(Dense(0));
    let e2 = world.spawn(Dense(1));
    world.entity_mut(e1).insert(Sparse);
    world.entity_mut(e1).remove::<Sparse>();
    world.entity_mut(e1).despawn();
    assert_eq!(world.entity(e2).get::<Dense>().unwrap(), &Dense(1));
}

// bevy: bundle_remove_only_triggers_for_present_components (world/entity_access/mod.rs).
// bevy's `remove::<(A, B)>` is `remove_present` here.
#[test]
fn bundle_remove_only_triggers_for_present_components() {
    #[derive(Component)]
    struct A;
    #[derive(Component)]
    struct B;
    #[derive(PartialEq, Eq, Debug)]
    struct Tracker {
        a: bool,
        b: bool,
    }
    let mut world = World::new();
    world.insert_resource(Tracker { a: false, b: false });
    let entity = world.spawn(A);
    world.add_observer(|_: mosaic::On<mosaic::Remove, A>, mut tracker: mosaic::ResMut<Tracker>| {
        tracker.a = true;
    });
    world.add_observer(|_: mosaic::On<mosaic::Remove, B>, mut tracker: mosaic::ResMut<Tracker>| {
        tracker.b = true;
    });
    world.entity_mut(entity).remove_present::<(A, B)>();
    assert_eq!(world.resource::<Tracker>(), &Tracker { a: true, b: false }, "B was absent: no Remove<B>");
}

// bevy: get_components (world/entity_access/mod.rs)
#[test]
fn get_components() {
    #[derive(Component, PartialEq, Eq, Debug)]
    struct X(usize);
    #[derive(Component, PartialEq, Eq, Debug)]
    struct Y(usize);
    let mut world = World::new();
    let e1 = world.spawn((X(7), Y(10)));
    let e2 = world.spawn(X(8));
    let e3 = world.spawn_empty();
    assert_eq!(Ok((&X(7), &Y(10))), world.entity(e1).get_components::<(&X, &Y)>());
    assert!(matches!(
        world.entity(e2).get_components::<(&X, &Y)>(),
        Err(mosaic::QueryError::NoMatch { entity, .. }) if entity == e2
    ));
    assert!(matches!(
        world.entity(e3).get_components::<(&X, &Y)>(),
        Err(mosaic::QueryError::NoMatch { entity, .. }) if entity == e3
    ));
}

// bevy: resource_scope_ticks (world/mod.rs). bevy puts the resource back as a fresh insert, so
// its added tick moves to the present too; Mosaic keeps the added tick (the scope does not add
// the resource again, so `is_resource_added` readers do not see it twice) and marks it changed now.
#[test]
fn resource_scope_ticks() {
    struct R;
    let mut world = World::new();
    world.insert_resource(R);
    let (added, changed) = world.resource_change_ticks::<R>().unwrap();
    assert_eq!(added, changed);
    world.resource_scope(|world: &mut World, _: &mut R| {
        world.increment_change_tick();
    });
    let (added_after, changed_after) = world.resource_change_ticks::<R>().unwrap();
    assert_eq!(added_after, added, "Mosaic keeps the added tick");
    assert_eq!(changed_after, world.change_tick(), "the scope counts as a change, now");
}
