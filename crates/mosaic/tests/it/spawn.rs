//! Spawning: single and tuple bundles, empty entities, batches (also with lying size hints),
//! duplicate-component bundles, entity-limit exhaustion and `Extend`.

use crate::common;

use std::any::type_name;

use common::{
    DropCounter, Marker, Name, Position, Tracked, Velocity, assert_pools_consistent, panic_message, pool_len,
};
use mosaic::{Entity, EntityError, World};

/// Yields `len` bundles while claiming the size hint `hint`, which may be a lie.
struct LyingIter {
    next: i32,
    len: i32,
    hint: (usize, Option<usize>),
}

impl LyingIter {
    fn new(len: i32, hint: (usize, Option<usize>)) -> Self {
        Self { next: 0, len, hint }
    }
}

impl Iterator for LyingIter {
    type Item = (Position, Velocity);

    fn next(&mut self) -> Option<Self::Item> {
        (self.next < self.len).then(|| {
            let i = self.next;
            self.next += 1;
            (Position::new(i, -i), Velocity(i))
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.hint
    }
}

/// Checks that `handles[i]` holds the `i`-th bundle a `LyingIter` yields.
#[track_caller]
fn assert_lying_batch(world: &World, handles: &[Entity]) {
    for (i, &e) in handles.iter().enumerate() {
        let i = i as i32;
        assert_eq!(world.get::<Position>(e), Ok(&Position::new(i, -i)));
        assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(i)));
    }
}

#[test]
fn spawn_single_component() {
    let mut world = World::new();
    let e = world.spawn(Position::new(1, 2));
    assert!(world.is_alive(e));
    assert_eq!(world.len(), 1);
    assert_eq!(world.get::<Position>(e), Ok(&Position::new(1, 2)));
    assert!(!world.contains::<Velocity>(e));
    let id = world.components().id::<Position>().unwrap();
    assert_eq!(world.component_ids(e), Ok(&[id][..]));
    assert_eq!(pool_len::<Position>(&world), 1);
}

#[test]
fn spawn_tuple_bundle_in_bundle_order() {
    let mut world = World::new();
    let e = world.spawn((Position::new(1, 2), Velocity(3), Name("e".into())));
    assert_eq!(world.get::<Position>(e), Ok(&Position::new(1, 2)));
    assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(3)));
    assert_eq!(world.get::<Name>(e), Ok(&Name("e".into())));
    let ids = [
        world.components().id::<Position>().unwrap(),
        world.components().id::<Velocity>().unwrap(),
        world.components().id::<Name>().unwrap(),
    ];
    assert_eq!(world.component_ids(e), Ok(&ids[..]));

    // Nested tuples and one-element tuples are bundles too.
    let f = world.spawn(((Velocity(4),), (Marker, (Position::new(5, 6),))));
    assert_eq!(world.get::<Velocity>(f), Ok(&Velocity(4)));
    assert_eq!(world.get::<Marker>(f), Ok(&Marker));
    assert_eq!(world.get::<Position>(f), Ok(&Position::new(5, 6)));
    assert!(!world.contains::<Name>(f));
    assert_eq!(world.component_ids(f).unwrap().len(), 3);
    assert_eq!(world.len(), 2);
    assert_pools_consistent(&world);
}

#[test]
fn try_spawn_returns_the_handle() {
    let mut world = World::new();
    let e = world.try_spawn((Velocity(7), Marker)).unwrap();
    assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(7)));
    assert!(world.contains::<Marker>(e));
}

#[test]
fn spawn_empty_has_no_components() {
    let mut world = World::new();
    let a = world.spawn_empty();
    let b = world.spawn(());
    assert_ne!(a, b);
    assert!(world.is_alive(a) && world.is_alive(b));
    assert_eq!(world.len(), 2);
    assert_eq!(world.component_ids(a), Ok(&[][..]));
    assert_eq!(world.component_ids(b), Ok(&[][..]));
    assert!(world.components().is_empty());
    let mut all: Vec<Entity> = world.query::<Entity>().into_iter().collect();
    all.sort();
    assert_eq!(all, vec![a, b]);
    // An empty entity takes components later like any other.
    world.insert(a, Velocity(1));
    assert_eq!(world.get::<Velocity>(a), Ok(&Velocity(1)));
}

#[test]
fn spawn_batch_returns_handles_in_order() {
    let mut world = World::new();
    let before = world.spawn(Velocity(-1));
    let handles = world.spawn_batch((0..100).map(|i| (Position::new(i, 2 * i), Velocity(i))));
    assert_eq!(handles.len(), 100);
    let mut unique = handles.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 100, "handles must be distinct");
    assert!(!handles.contains(&before));
    for (i, &e) in handles.iter().enumerate() {
        let i = i as i32;
        assert_eq!(world.get::<Position>(e), Ok(&Position::new(i, 2 * i)));
        assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(i)));
        assert_eq!(world.component_ids(e).unwrap().len(), 2);
    }
    assert_eq!(world.len(), 101);
    assert_eq!(pool_len::<Position>(&world), 100);
    assert_eq!(pool_len::<Velocity>(&world), 101);
    assert_pools_consistent(&world);
}

#[test]
fn spawn_batch_reuses_freed_slots_and_keeps_order() {
    let mut world = World::new();
    let first = world.spawn_batch((0..10).map(Velocity));
    for &e in &first[..5] {
        world.despawn(e);
    }
    let second = world.spawn_batch((100..110).map(|i| (Velocity(i), Name(i.to_string()))));
    for (i, &e) in second.iter().enumerate() {
        let v = 100 + i as i32;
        assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(v)));
        assert_eq!(world.get::<Name>(e), Ok(&Name(v.to_string())));
    }
    for &old in &first[..5] {
        assert!(!second.contains(&old), "a stale handle was handed out again");
        assert!(!world.is_alive(old));
    }
    for (i, &e) in first[5..].iter().enumerate() {
        assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(5 + i as i32)));
        assert!(!world.contains::<Name>(e));
    }
    assert_eq!(world.len(), 15);
    assert_pools_consistent(&world);
}

#[test]
fn spawn_batch_of_nothing_spawns_nothing() {
    let mut world = World::new();
    let handles = world.spawn_batch(std::iter::empty::<Velocity>());
    assert!(handles.is_empty());
    assert_eq!(world.len(), 0);
    assert_eq!(pool_len::<Velocity>(&world), 0);
}

#[test]
fn spawn_batch_with_huge_lower_size_hint() {
    let mut world = World::new();
    let handles = world.spawn_batch(LyingIter::new(10, (usize::MAX, None)));
    assert_eq!(handles.len(), 10);
    assert_eq!(world.len(), 10);
    assert_lying_batch(&world, &handles);

    let more = world.spawn_batch(LyingIter::new(10, (usize::MAX / 2, Some(usize::MAX / 2))));
    assert_eq!(more.len(), 10);
    assert_lying_batch(&world, &more);
    assert_eq!(world.len(), 20);
    assert_pools_consistent(&world);
}

#[test]
fn spawn_batch_with_zero_size_hint_but_many_items() {
    let n = if cfg!(miri) { 100 } else { 1000 };
    let mut world = World::new();
    let handles = world.spawn_batch(LyingIter::new(n, (0, Some(0))));
    assert_eq!(handles.len(), n as usize);
    assert_eq!(world.len(), n as u32);
    assert_lying_batch(&world, &handles);
    assert_eq!(pool_len::<Position>(&world), n as usize);
    assert_pools_consistent(&world);
}

#[test]
fn bundle_with_duplicate_component_panics_naming_it() {
    let mut world = World::new();
    let message = panic_message(|| world.spawn((Position::new(0, 0), Velocity(1), Velocity(2))));
    assert!(message.contains(type_name::<Velocity>()), "message should name the duplicated type: {message}");
    assert!(message.contains("twice"), "{message}");

    // Nested duplicates are found too, and through every entry point.
    let message = panic_message(|| world.spawn(((Velocity(1), Marker), (Velocity(2),))));
    assert!(message.contains(type_name::<Velocity>()), "{message}");
    let message = panic_message(|| world.spawn_batch([(Marker, Marker)]));
    assert!(message.contains(type_name::<Marker>()), "{message}");
    let e = world.spawn_empty();
    let message = panic_message(|| world.insert_bundle(e, (Name("a".into()), Name("b".into()))));
    assert!(message.contains(type_name::<Name>()), "{message}");
    assert!(!world.contains::<Name>(e));
}

#[test]
#[should_panic(expected = "contains component `it::common::Position` twice")]
fn spawn_with_duplicate_component_panics() {
    let mut world = World::new();
    world.spawn((Position::new(0, 0), Position::new(1, 1)));
}

#[test]
fn duplicate_bundle_panic_spawns_nothing() {
    let mut world = World::new();
    let kept = world.spawn(Velocity(0));
    let message = panic_message(|| world.spawn((Velocity(1), Velocity(2))));
    assert!(message.contains("twice"), "{message}");
    let message = panic_message(|| world.spawn_batch([(Velocity(3), Velocity(4))]));
    assert!(message.contains("twice"), "{message}");
    assert_eq!(world.len(), 1, "a panicking spawn must not leave an entity behind");
    assert_eq!(world.entities().slot_count(), 1, "no index was taken");
    assert_eq!(world.query::<Entity>().into_iter().collect::<Vec<_>>(), [kept]);
    assert_eq!(pool_len::<Velocity>(&world), 1);
    // The world still spawns normally, into the next index.
    let next = world.spawn(Velocity(5));
    assert_eq!(next.index(), kept.index() + 1);
}

#[test]
fn exhaustion_is_an_error_from_try_spawn() {
    let mut world = World::with_entity_limits(3, u32::MAX);
    let spawned: Vec<Entity> = (0..3).map(|i| world.spawn(Velocity(i))).collect();
    let drops = DropCounter::new();
    assert_eq!(world.try_spawn((Velocity(9), drops.track(9))), Err(EntityError::Exhausted { limit: 3 }));
    assert_eq!(drops.drops(), 1, "the refused bundle is dropped");
    assert_eq!(world.len(), 3);
    assert_eq!(world.entities().slot_count(), 3);
    assert_eq!(pool_len::<Velocity>(&world), 3);
    assert_eq!(pool_len::<Tracked>(&world), 0);
    for (i, &e) in spawned.iter().enumerate() {
        assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(i as i32)));
    }

    // Freeing a slot makes room again.
    world.despawn(spawned[1]);
    let e = world.try_spawn(Velocity(10)).unwrap();
    assert_eq!(e.index(), spawned[1].index());
    assert_eq!(world.try_spawn(()), Err(EntityError::Exhausted { limit: 3 }));
}

#[test]
fn exhaustion_makes_spawn_panic_clearly() {
    let mut world = World::with_entity_limits(2, u32::MAX);
    world.spawn(Velocity(0));
    world.spawn_empty();
    let message = panic_message(|| world.spawn(Velocity(2)));
    assert!(message.contains("cannot spawn"), "{message}");
    assert!(message.contains("exhausted"), "{message}");
    assert!(message.contains("2 slots"), "{message}");
    let message = panic_message(|| world.spawn_empty());
    assert!(message.contains("exhausted"), "{message}");
    assert_eq!(world.len(), 2);
    assert_pools_consistent(&world);
}

#[test]
fn exhaustion_counts_retired_slots() {
    // Every slot may be used once: after two spawn/despawn cycles nothing is left.
    let mut world = World::with_entity_limits(2, 1);
    for _ in 0..2 {
        let e = world.spawn(Velocity(0));
        world.despawn(e);
    }
    assert_eq!(world.entities().retired_count(), 2);
    assert_eq!(world.try_spawn(Velocity(1)), Err(EntityError::Exhausted { limit: 2 }));
    assert!(world.is_empty());
}

#[test]
fn spawn_batch_panics_part_way_when_exhausted_and_keeps_what_it_spawned() {
    let mut world = World::with_entity_limits(5, u32::MAX);
    let message = panic_message(|| world.spawn_batch((0..8).map(Velocity)));
    assert!(message.contains("exhausted"), "{message}");
    assert_eq!(world.len(), 5);
    let mut values: Vec<i32> = world.query::<&Velocity>().into_iter().map(|v| v.0).collect();
    values.sort();
    assert_eq!(values, vec![0, 1, 2, 3, 4]);
    assert_pools_consistent(&world);
}

#[test]
fn extend_spawns_every_bundle() {
    let mut world = World::new();
    world.extend((0..10).map(|i| (Velocity(i), Marker)));
    assert_eq!(world.len(), 10);
    let mut values: Vec<i32> = world.query::<&Velocity>().into_iter().map(|v| v.0).collect();
    values.sort();
    assert_eq!(values, (0..10).collect::<Vec<_>>());
    assert_eq!(pool_len::<Marker>(&world), 10);

    // Lying size hints are harmless here too.
    world.extend(LyingIter::new(5, (usize::MAX, None)));
    world.extend(LyingIter::new(50, (0, Some(0))));
    assert_eq!(world.len(), 65);
    assert_eq!(pool_len::<Position>(&world), 55);
    assert_pools_consistent(&world);
}

mod templates {
    use mosaic::{Bundle, Component, Template, World};

    #[derive(Component, Clone, Debug, PartialEq)]
    struct Hull(u32);
    #[derive(Component, Clone, Debug, PartialEq)]
    struct Tag(&'static str);
    #[derive(Component, Debug)]
    struct NotCloned;

    #[test]
    fn a_template_spawns_independent_copies() {
        let mut world = World::new();
        let added = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = std::sync::Arc::clone(&added);
        world.on_add::<Hull>(move |_| {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        let template = Template::new().with(Hull(5)).with(Tag("a")).with(Tag("b"));
        assert_eq!(template.len(), 2, "one value per type: the later Tag replaced the first");
        let copies = world.spawn_template_batch(&template, 4);
        assert_eq!(copies.len(), 4);
        assert_eq!(added.load(std::sync::atomic::Ordering::Relaxed), 4, "hooks run per copy");
        world.get_mut::<Hull>(copies[0]).unwrap().0 = 1;
        for &e in &copies[1..] {
            assert_eq!(world.get::<Hull>(e), Ok(&Hull(5)));
            assert_eq!(world.get::<Tag>(e), Ok(&Tag("b")), "a type added twice keeps the later value");
            assert_eq!(world.component_ids(e).unwrap().len(), 2);
        }
        let empty = world.spawn_template(&Template::new());
        assert!(world.component_ids(empty).unwrap().is_empty());
    }

    #[test]
    fn clone_entity_copies_registered_components_only() {
        let mut world = World::new();
        world.register_clone::<Hull>();
        let parent = world.spawn(Hull(1));
        let original = world.spawn((Hull(7), Tag("x"), NotCloned));
        world.set_parent(original, parent).unwrap();
        let copy = world.clone_entity(original).unwrap();
        assert_eq!(world.get::<Hull>(copy), Ok(&Hull(7)));
        assert!(!world.contains::<Tag>(copy), "Tag was not registered");
        assert!(!world.contains::<NotCloned>(copy));
        assert_eq!(world.parent(copy), None, "hierarchy links are not cloned");
        world.register_clone::<Tag>();
        let second = world.clone_entity(original).unwrap();
        assert_eq!(world.get::<Tag>(second), Ok(&Tag("x")));
        world.despawn(original);
        assert!(world.clone_entity(original).is_err(), "a dead entity is an error");
        let from = Template::from_entity(&world, second).unwrap();
        assert_eq!(from.len(), 2);
        assert_eq!(from.get::<Tag>(), Some(&Tag("x")));
    }

    #[derive(Component, Clone, Debug, PartialEq)]
    struct Engine(f32);

    #[derive(Bundle, Clone)]
    struct Drive {
        engine: Engine,
        tag: Tag,
    }

    #[derive(Bundle, Clone)]
    struct Ship {
        hull: Hull,
        drive: Drive,
    }

    /// A bundle with a field that is not `Clone`: still a bundle, just not a template bundle.
    #[derive(Bundle)]
    struct Marked {
        hull: Hull,
        marker: NotCloned,
    }

    #[derive(Bundle, Clone)]
    struct Wrapper<T: Component + Clone> {
        inner: T,
    }

    #[test]
    fn a_template_from_a_nested_bundle_has_each_component() {
        let ship = Ship { hull: Hull(10), drive: Drive { engine: Engine(1.5), tag: Tag("s") } };
        let template = Template::from_bundle(ship);
        assert_eq!(template.type_names().count(), 3);
        assert!(template.has::<Engine>() && template.has::<Hull>() && template.has::<Tag>());
        assert!(!template.has::<NotCloned>());
        assert_eq!(template.get::<Engine>(), Some(&Engine(1.5)));
        assert_eq!(template.get::<NotCloned>().map(|_| ()), None);
        let order: Vec<_> = template.type_names().collect();
        assert!(
            order[0].ends_with("Hull") && order[1].ends_with("Engine") && order[2].ends_with("Tag"),
            "{order:?}"
        );

        let mut world = World::new();
        let e = world.spawn_template(&template);
        assert_eq!(world.get::<Engine>(e), Ok(&Engine(1.5)));
        assert_eq!(world.get::<Tag>(e), Ok(&Tag("s")));

        let tuple = Template::from_bundle((Hull(1), (Engine(2.0), Wrapper { inner: Tag("w") })));
        assert_eq!(tuple.len(), 3);
        assert_eq!(tuple.get::<Tag>(), Some(&Tag("w")));
        // A bundle with a non-Clone field still spawns as a bundle.
        let marked = world.spawn(Marked { hull: Hull(2), marker: NotCloned });
        assert!(world.contains::<NotCloned>(marked));
    }

    #[test]
    fn get_mut_copies_on_write_and_insert_replaces_in_place() {
        let mut base = Template::new().with(Hull(1)).with(Tag("base"));
        let copy = base.clone();
        base.get_mut::<Hull>().unwrap().0 = 9;
        assert_eq!(base.get::<Hull>(), Some(&Hull(9)));
        assert_eq!(copy.get::<Hull>(), Some(&Hull(1)), "the clone keeps the old value");
        assert!(base.get_mut::<Engine>().is_none());

        assert_eq!(base.insert(Hull(3)), Some(Hull(9)));
        assert_eq!(base.insert(Engine(0.5)), None);
        let order: Vec<_> = base.type_names().collect();
        assert!(order[0].ends_with("Hull") && order[2].ends_with("Engine"), "replaced in place: {order:?}");
        assert_eq!(base.remove::<Tag>(), Some(Tag("base")));
        assert_eq!(base.remove::<Tag>(), None);
        assert_eq!(base.len(), 2);
        assert_eq!(copy.len(), 2, "the clone is untouched by removal");
        base.insert_bundle((Tag("again"), Hull(4)));
        assert_eq!(base.get::<Hull>(), Some(&Hull(4)));
        assert_eq!(base.len(), 3);
    }

    #[test]
    fn merge_lays_the_other_template_over() {
        let base = Template::new().with(Hull(100)).with(Tag("base"));
        let over = Template::from_bundle((Engine(3.0), Hull(300)));
        let merged = base.clone().merged(&over);
        assert_eq!(merged.len(), 3);
        assert_eq!(merged.get::<Hull>(), Some(&Hull(300)), "the other's value wins");
        assert_eq!(merged.get::<Tag>(), Some(&Tag("base")));
        let order: Vec<_> = merged.type_names().collect();
        assert!(
            order[0].ends_with("Hull") && order[1].ends_with("Tag") && order[2].ends_with("Engine"),
            "{order:?}"
        );
        assert_eq!(base.get::<Hull>(), Some(&Hull(100)), "merging does not touch its sources");
        let mut world = World::new();
        let e = world.spawn_template(&merged);
        assert_eq!(world.get::<Hull>(e), Ok(&Hull(300)));
        assert_eq!(world.get::<Engine>(e), Ok(&Engine(3.0)));
        let mut empty = Template::new();
        empty.merge(&Template::new());
        assert!(empty.is_empty());
        assert_eq!(format!("{merged:?}").matches("Hull").count(), 1);
    }
}
