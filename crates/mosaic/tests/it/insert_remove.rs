//! Inserting and removing components: returned values, errors and their messages, bundles,
//! `contains`, `get`/`get_mut`, and the `EntityRef` / `EntityMut` handles.

use crate::common;

use std::any::type_name;

use common::{
    DropCounter, Marker, Name, Position, Tracked, Velocity, assert_pools_consistent, panic_message, pool_len,
};
use mosaic::{Component, ComponentError, Entity, EntityError, World};

#[test]
fn insert_returns_the_replaced_value() {
    let mut world = World::new();
    let e = world.spawn_empty();
    assert_eq!(world.insert(e, Velocity(1)), None);
    assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(1)));
    assert_eq!(world.insert(e, Velocity(2)), Some(Velocity(1)));
    assert_eq!(world.try_insert(e, Velocity(3)), Ok(Some(Velocity(2))));
    assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(3)));
    // Replacing does not list the type twice or grow the pool.
    assert_eq!(world.component_ids(e).unwrap().len(), 1);
    assert_eq!(pool_len::<Velocity>(&world), 1);
}

#[test]
fn insert_keeps_other_entities_and_components() {
    let mut world = World::new();
    let a = world.spawn(Position::new(1, 1));
    let b = world.spawn(Position::new(2, 2));
    world.insert(a, Name("a".into()));
    world.insert(b, Velocity(2));
    assert_eq!(world.get::<Position>(a), Ok(&Position::new(1, 1)));
    assert_eq!(world.get::<Name>(a), Ok(&Name("a".into())));
    assert!(!world.contains::<Velocity>(a));
    assert_eq!(world.get::<Position>(b), Ok(&Position::new(2, 2)));
    assert_eq!(world.get::<Velocity>(b), Ok(&Velocity(2)));
    assert!(!world.contains::<Name>(b));
    assert_pools_consistent(&world);
}

#[test]
fn remove_returns_the_value_then_none() {
    let mut world = World::new();
    let e = world.spawn((Position::new(1, 2), Name("e".into())));
    assert_eq!(world.remove::<Name>(e), Some(Name("e".into())));
    assert_eq!(world.remove::<Name>(e), None);
    assert!(!world.contains::<Name>(e));
    assert_eq!(world.get::<Position>(e), Ok(&Position::new(1, 2)));
    assert_eq!(world.component_ids(e), Ok(&[world.components().id::<Position>().unwrap()][..]));
    // A type never registered is simply absent.
    assert_eq!(world.remove::<Velocity>(e), None);
    assert_eq!(pool_len::<Name>(&world), 0);
    assert!(world.is_alive(e));
}

#[test]
fn remove_from_the_middle_of_a_pool_keeps_the_others() {
    let mut world = World::new();
    let entities = world.spawn_batch((0..10).map(Velocity));
    assert_eq!(world.remove::<Velocity>(entities[3]), Some(Velocity(3)));
    assert_eq!(world.remove::<Velocity>(entities[0]), Some(Velocity(0)));
    assert_eq!(world.remove::<Velocity>(entities[9]), Some(Velocity(9)));
    for (i, &e) in entities.iter().enumerate() {
        let expected = (![0, 3, 9].contains(&i)).then_some(Velocity(i as i32));
        assert_eq!(world.get::<Velocity>(e).ok(), expected.as_ref());
    }
    assert_eq!(pool_len::<Velocity>(&world), 7);
    assert_pools_consistent(&world);
}

#[test]
fn try_remove_errors() {
    let mut world = World::new();
    let e = world.spawn(Position::new(0, 0));
    world.register_component::<Velocity>();

    let missing = world.try_remove::<Velocity>(e).unwrap_err();
    assert_eq!(missing, ComponentError::MissingComponent { entity: e, component: type_name::<Velocity>() });
    let message = missing.to_string();
    assert!(message.contains(type_name::<Velocity>()), "{message}");
    assert!(message.contains(&e.to_string()), "{message}");

    // Never registered: the same error.
    assert_eq!(
        world.try_remove::<Name>(e),
        Err(ComponentError::MissingComponent { entity: e, component: type_name::<Name>() })
    );

    world.despawn(e);
    let dead = world.try_remove::<Position>(e).unwrap_err();
    assert_eq!(dead, ComponentError::Entity(EntityError::NoSuchEntity(e)));
    assert!(dead.to_string().contains(&e.to_string()));
}

#[test]
fn remove_and_insert_on_a_dead_entity_panic_naming_it() {
    let mut world = World::new();
    let e = world.spawn(Velocity(0));
    world.despawn(e);
    let message = panic_message(|| world.remove::<Velocity>(e));
    assert!(message.contains("cannot remove"), "{message}");
    assert!(message.contains(type_name::<Velocity>()), "{message}");
    assert!(message.contains(&e.to_string()), "{message}");
    let message = panic_message(|| world.insert(e, Velocity(1)));
    assert!(message.contains("cannot insert"), "{message}");
    assert!(message.contains(&e.to_string()), "{message}");
    assert_eq!(world.try_insert(e, Velocity(1)), Err(ComponentError::Entity(EntityError::NoSuchEntity(e))));
    assert_eq!(pool_len::<Velocity>(&world), 0);
}

#[test]
fn insert_bundle_adds_and_replaces() {
    let mut world = World::new();
    let e = world.spawn(Velocity(1));
    world.insert_bundle(e, (Velocity(2), Name("n".into()), Marker));
    assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(2)));
    assert_eq!(world.get::<Name>(e), Ok(&Name("n".into())));
    assert!(world.contains::<Marker>(e));
    assert_eq!(world.component_ids(e).unwrap().len(), 3);
    assert_eq!(world.try_insert_bundle(e, (Position::new(4, 4),)), Ok(()));
    assert_eq!(world.get::<Position>(e), Ok(&Position::new(4, 4)));
    assert_eq!(world.component_ids(e).unwrap().len(), 4);

    world.despawn(e);
    assert_eq!(
        world.try_insert_bundle(e, (Velocity(3), Marker)),
        Err(ComponentError::Entity(EntityError::NoSuchEntity(e)))
    );
    let message = panic_message(|| world.insert_bundle(e, Marker));
    assert!(message.contains("cannot insert bundle"), "{message}");
    assert_eq!(pool_len::<Marker>(&world), 0);
}

#[test]
fn contains_needs_a_live_entity_with_the_type() {
    let mut world = World::new();
    let e = world.spawn((Velocity(1), Marker));
    let bare = world.spawn_empty();
    assert!(world.contains::<Velocity>(e));
    assert!(world.contains::<Marker>(e));
    assert!(!world.contains::<Name>(e), "never-registered type");
    assert!(!world.contains::<Velocity>(bare));
    world.despawn(e);
    assert!(!world.contains::<Velocity>(e));
    assert!(!world.contains::<Marker>(e));
}

#[test]
fn get_and_get_mut_error_variants() {
    let mut world = World::new();
    let e = world.spawn(Velocity(1));
    *world.get_mut::<Velocity>(e).unwrap() = Velocity(5);
    assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(5)));

    let missing = ComponentError::MissingComponent { entity: e, component: type_name::<Name>() };
    assert_eq!(world.get::<Name>(e), Err(missing));
    assert_eq!(world.get_mut::<Name>(e), Err(missing));
    world.register_component::<Name>();
    assert_eq!(world.get::<Name>(e), Err(missing));
    assert!(missing.to_string().contains(type_name::<Name>()));

    world.despawn(e);
    assert_eq!(world.get::<Velocity>(e), Err(ComponentError::Entity(EntityError::NoSuchEntity(e))));
    assert_eq!(world.get_mut::<Velocity>(e), Err(ComponentError::Entity(EntityError::NoSuchEntity(e))));
    assert_eq!(world.get::<Name>(e), Err(ComponentError::Entity(EntityError::NoSuchEntity(e))));
}

#[test]
fn entity_ref_reads_one_entity() {
    let mut world = World::new();
    let e = world.spawn((Position::new(1, 2), Velocity(3)));
    let other = world.spawn(Name("other".into()));
    let entity = world.entity(e);
    assert_eq!(entity.id(), e);
    // Both borrows live as long as the world borrow, not the handle.
    let (p, v) = (entity.get::<Position>(), entity.get::<Velocity>());
    assert_eq!(p, Ok(&Position::new(1, 2)));
    assert_eq!(v, Ok(&Velocity(3)));
    assert_eq!(
        entity.get::<Name>(),
        Err(ComponentError::MissingComponent { entity: e, component: type_name::<Name>() })
    );
    assert!(entity.contains::<Velocity>());
    assert!(!entity.contains::<Name>());
    assert_eq!(entity.component_ids(), world.component_ids(e).unwrap());
    assert_eq!(entity.component_ids().len(), 2);
    assert_eq!(world.get_entity(other).map(|r| r.id()), Ok(other));

    world.despawn(e);
    assert_eq!(world.get_entity(e).map(|r| r.id()), Err(EntityError::NoSuchEntity(e)));
}

#[test]
fn entity_mut_changes_one_entity() {
    let mut world = World::new();
    let e = world.spawn(Velocity(1));
    let other = world.spawn(Velocity(100));
    {
        let mut entity = world.entity_mut(e);
        assert_eq!(entity.id(), e);
        assert_eq!(entity.get::<Velocity>(), Ok(&Velocity(1)));
        entity.get_mut::<Velocity>().unwrap().0 += 1;
        assert_eq!(entity.get::<Velocity>(), Ok(&Velocity(2)));
        assert_eq!(entity.insert(Velocity(3)), Some(Velocity(2)));
        assert_eq!(entity.insert(Name("e".into())), None);
        assert!(entity.contains::<Name>());
        entity.insert_bundle((Marker, Position::new(1, 1))).insert_bundle(Position::new(2, 2));
        assert_eq!(entity.get::<Position>(), Ok(&Position::new(2, 2)));
        assert_eq!(entity.remove::<Name>(), Some(Name("e".into())));
        assert_eq!(entity.remove::<Name>(), None);
        assert!(!entity.contains::<Name>());
        assert_eq!(
            entity.get_mut::<Name>().map(|n| n.0.clone()),
            Err(ComponentError::MissingComponent { entity: e, component: type_name::<Name>() })
        );
    }
    assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(3)));
    assert!(world.contains::<Marker>(e));
    assert_eq!(world.get::<Velocity>(other), Ok(&Velocity(100)));

    world.get_entity_mut(e).unwrap().despawn();
    assert!(!world.is_alive(e));
    assert!(world.is_alive(other));
    assert!(world.get_entity_mut(e).is_err());
    let message = panic_message(|| world.entity_mut(e).id());
    assert!(message.contains(&e.to_string()), "{message}");
    assert_pools_consistent(&world);
}

#[test]
fn insert_batch_adds_and_replaces_in_one_call() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..100).map(|i| world.spawn(Position::new(i, i))).collect();
    world.insert(entities[3], Velocity(-1));
    world.insert_batch(entities.iter().map(|&e| (e, Velocity(e.index() as i32))));
    for &e in &entities {
        assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(e.index() as i32)), "{e}");
        assert_eq!(world.get::<Position>(e), Ok(&Position::new(e.index() as i32, e.index() as i32)));
    }
    assert_eq!(world.query::<&Velocity>().iter().count(), 100, "the replaced row is not doubled");
    world.despawn(entities[7]);
    assert_eq!(world.query::<(&Position, &Velocity)>().iter().count(), 99);
}

#[test]
#[should_panic(expected = "Velocity` on 1v1: entity 1v1 does not exist")]
fn insert_batch_panics_on_a_dead_entity_after_the_rows_before_it() {
    let mut world = World::new();
    let a = world.spawn_empty();
    let b = world.spawn_empty();
    world.despawn(b);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.insert_batch([(a, Velocity(1)), (b, Velocity(2))]);
    }));
    assert_eq!(world.get::<Velocity>(a), Ok(&Velocity(1)), "rows before the dead entity are kept");
    std::panic::resume_unwind(result.unwrap_err());
}

#[test]
fn remove_batch_takes_the_component_off_each_entity_that_has_it_and_drops_it() {
    let counter = DropCounter::new();
    let mut world = World::new();
    let entities: Vec<Entity> =
        (0..100).map(|i| world.spawn((Position::new(i, i), counter.track(i as u32)))).collect();
    let bare = world.spawn(Position::new(-1, -1));
    // Every other entity, the one without a `Tracked`, and one entity twice.
    let targets = entities.iter().step_by(2).copied().chain([bare, entities[0]]);
    assert_eq!(world.remove_batch::<Tracked>(targets), 50, "only entities that had one count");
    assert_eq!(counter.drops(), 50, "removed values are dropped");
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.contains::<Tracked>(e), i % 2 == 1, "{e}");
        assert_eq!(world.component_ids(e).unwrap().len(), if i % 2 == 1 { 2 } else { 1 });
        assert_eq!(world.get::<Position>(e), Ok(&Position::new(i as i32, i as i32)));
    }
    assert_eq!(world.query::<&Tracked>().iter().count(), 50);
    assert_pools_consistent(&world);
    assert_eq!(world.remove_batch::<Velocity>(entities.iter().copied()), 0, "a type never registered");
}

#[test]
fn remove_batch_runs_remove_hooks_and_keeps_groups_packed() {
    let mut world = World::new();
    let removed = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = removed.clone();
    world.on_remove::<Velocity>(move |ctx| {
        log.lock().unwrap().push(ctx.world.get::<Velocity>(ctx.entity).unwrap().0);
    });
    world.group::<(Position, Velocity)>();
    let entities: Vec<Entity> = (0..10).map(|i| world.spawn((Position::new(i, 0), Velocity(i)))).collect();
    assert_eq!(world.remove_batch::<Velocity>([entities[2], entities[5], entities[9]]), 3);
    assert_eq!(*removed.lock().unwrap(), [2, 5, 9]);
    let mut grouped: Vec<i32> = world.query::<(&Position, &Velocity)>().iter().map(|(_, v)| v.0).collect();
    grouped.sort();
    assert_eq!(grouped, [0, 1, 3, 4, 6, 7, 8]);
    assert_pools_consistent(&world);
}

#[test]
#[should_panic(expected = "cannot remove `it::common::Velocity` from 1v1: entity 1v1 does not exist")]
fn remove_batch_panics_on_a_dead_entity_after_the_entities_before_it() {
    let mut world = World::new();
    let a = world.spawn(Velocity(1));
    let b = world.spawn(Velocity(2));
    world.despawn(b);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.remove_batch::<Velocity>([a, b]);
    }));
    assert!(!world.contains::<Velocity>(a), "entities before the dead one lost their value");
    assert_pools_consistent(&world);
    std::panic::resume_unwind(result.unwrap_err());
}

// --- component ids found by process-wide type slots (issue 13) ---

#[derive(Component, Debug, PartialEq)]
struct Slotted(u8);
#[derive(Component, Debug, PartialEq)]
struct AlsoSlotted(u8);
#[derive(Component, Debug, PartialEq)]
struct Generic<const N: usize>(u8);

#[test]
fn worlds_that_register_types_in_different_orders_each_find_their_own_pools() {
    let mut first = World::new();
    let mut second = World::new();
    // Opposite registration orders, so the two worlds give the types different ids.
    let a = first.spawn((Slotted(1), Generic::<0>(10)));
    first.insert(a, AlsoSlotted(2));
    first.insert(a, Generic::<1>(11));
    let b = second.spawn(Generic::<1>(21));
    second.insert(b, AlsoSlotted(22));
    second.insert(b, Generic::<0>(20));
    second.insert(b, Slotted(23));
    let (f, s) = (first.components(), second.components());
    assert_ne!(f.id::<Slotted>(), s.id::<Slotted>());
    assert_eq!(f.id::<Slotted>(), f.id_by_type(std::any::TypeId::of::<Slotted>()));
    assert_eq!(s.id::<AlsoSlotted>(), s.id_by_type(std::any::TypeId::of::<AlsoSlotted>()));
    assert_eq!(first.get::<Slotted>(a), Ok(&Slotted(1)));
    assert_eq!(first.get::<AlsoSlotted>(a), Ok(&AlsoSlotted(2)));
    assert_eq!(second.get::<Slotted>(b), Ok(&Slotted(23)));
    assert_eq!(second.get::<AlsoSlotted>(b), Ok(&AlsoSlotted(22)));
    // Instantiations of a generic component are distinct types with distinct pools.
    assert_eq!(first.get::<Generic<0>>(a), Ok(&Generic(10)));
    assert_eq!(first.get::<Generic<1>>(a), Ok(&Generic(11)));
    assert_eq!(second.get::<Generic<0>>(b), Ok(&Generic(20)));
    assert_eq!(second.get::<Generic<1>>(b), Ok(&Generic(21)));
    // A world that never registered a type finds no id for it, slot or not.
    let third = World::new();
    assert_eq!(third.components().id::<Slotted>(), None);
    assert_eq!(third.components().id::<Generic<0>>(), None);
}

// --- insert_if_new / insert_if_neq ---

#[derive(Component, Debug, PartialEq, Clone)]
#[component(track_changes)]
struct Mode(u8);

#[derive(Component, Debug, PartialEq)]
struct Armor(u32);

#[test]
fn insert_if_new_adds_only_what_is_missing_and_fires_only_add_hooks() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};
    let mut world = World::new();
    let (added, replaced) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
    let (a, r) = (added.clone(), replaced.clone());
    world.on_add::<Mode>(move |_| {
        a.fetch_add(1, Ordering::Relaxed);
    });
    world.on_replace::<Mode>(move |_| {
        r.fetch_add(1, Ordering::Relaxed);
    });
    let e = world.spawn(Mode(1));
    world.clear_trackers();
    assert_eq!(world.insert_if_new(e, (Mode(9), Armor(2))), Ok(1));
    assert_eq!(world.get::<Mode>(e), Ok(&Mode(1)), "the present value stays");
    assert_eq!(world.get::<Armor>(e), Ok(&Armor(2)));
    assert_eq!((added.load(Ordering::Relaxed), replaced.load(Ordering::Relaxed)), (1, 0));
    assert_eq!(world.query_filtered::<Entity, mosaic::Changed<Mode>>().count(), 0, "not marked changed");
    assert_eq!(world.insert_if_new(e, Armor(3)), Ok(0));
    assert_eq!(world.get::<Armor>(e), Ok(&Armor(2)));
    world.despawn(e);
    assert!(matches!(world.insert_if_new(e, Armor(1)), Err(ComponentError::Entity(_))));
}

#[test]
fn insert_if_neq_writes_only_a_different_value() {
    let mut world = World::new();
    let e = world.spawn(Mode(1));
    let replaced = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let r = replaced.clone();
    world.on_replace::<Mode>(move |_| {
        r.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    world.clear_trackers();
    assert_eq!(world.insert_if_neq(e, Mode(1)), Ok(false));
    assert_eq!(world.query_filtered::<Entity, mosaic::Changed<Mode>>().count(), 0);
    assert_eq!(replaced.load(std::sync::atomic::Ordering::Relaxed), 0, "no replace hook for a no-op");
    assert_eq!(world.insert_if_neq(e, Mode(2)), Ok(true));
    assert_eq!(world.get::<Mode>(e), Ok(&Mode(2)));
    assert_eq!(world.query_filtered::<Entity, mosaic::Changed<Mode>>().count(), 1);
    let bare = world.spawn_empty();
    assert_eq!(world.insert_if_neq(bare, Mode(7)), Ok(true), "absent counts as different");
}

#[test]
fn conditional_inserts_through_commands() {
    let mut world = World::new();
    let e = world.spawn(Mode(1));
    let gone = world.spawn_empty();
    world.despawn(gone);
    let mut commands = mosaic::CommandBuffer::new();
    commands.insert_if_new(e, (Mode(5), Armor(1)));
    commands.insert_if_neq(e, Mode(1));
    commands.insert_if_new(gone, Armor(9));
    commands.insert_if_neq(gone, Mode(3));
    let report = commands.apply(&mut world);
    assert_eq!((report.applied, report.skipped), (2, 2));
    assert_eq!(world.get::<Mode>(e), Ok(&Mode(1)));
    assert_eq!(world.get::<Armor>(e), Ok(&Armor(1)));
}
