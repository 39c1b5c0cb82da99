//! Despawning: nothing of a despawned entity stays reachable, double despawn, stale handles after
//! slot reuse, generation retirement, and long spawn/despawn churn.

use crate::common;

use std::collections::VecDeque;

use common::{
    Marker, Name, Position, Velocity, assert_pools_consistent, live_entities, panic_message, pool_len,
};
use mosaic::{ComponentError, Entity, EntityError, QueryError, World};

/// Iteration count of the long churn tests: a million natively, far fewer under Miri.
const CYCLES: u32 = if cfg!(miri) { 1_000 } else { 1_000_000 };

#[test]
fn despawn_leaves_nothing_reachable() {
    let mut world = World::new();
    let e = world.spawn((Position::new(1, 1), Velocity(1), Name("e".into())));
    let f = world.spawn((Position::new(2, 2), Velocity(2), Name("f".into())));
    assert_eq!(pool_len::<Position>(&world), 2);

    world.despawn(e);

    assert!(!world.is_alive(e));
    assert_eq!(world.len(), 1);
    assert_eq!(world.get::<Position>(e), Err(ComponentError::Entity(EntityError::NoSuchEntity(e))));
    assert_eq!(world.get_mut::<Velocity>(e), Err(ComponentError::Entity(EntityError::NoSuchEntity(e))));
    assert!(!world.contains::<Position>(e));
    assert!(!world.contains::<Velocity>(e));
    assert!(!world.contains::<Name>(e));
    assert_eq!(world.component_ids(e), Err(EntityError::NoSuchEntity(e)));
    assert!(world.get_entity(e).is_err());
    assert!(world.get_entity_mut(e).is_err());

    // Pools shrank and hold only `f`.
    for pool in world.components().pools() {
        assert_eq!(pool.len(), 1, "pool `{}`", pool.type_name());
        assert_eq!(pool.entities(), &[f]);
    }
    // Queries do not see it.
    assert_eq!(world.query::<Entity>().into_iter().collect::<Vec<_>>(), vec![f]);
    assert_eq!(
        world
            .query::<(Entity, &Position, &Velocity, &Name)>()
            .into_iter()
            .map(|(entity, ..)| entity)
            .collect::<Vec<_>>(),
        vec![f]
    );
    assert!(matches!(
        world.query::<&Position>().get(e),
        Err(QueryError::Entity(EntityError::NoSuchEntity(x))) if x == e
    ));
    assert!(!world.query::<&Position>().contains(e));
    assert_eq!(live_entities(&world), vec![f]);

    // `f` is untouched.
    assert_eq!(world.get::<Position>(f), Ok(&Position::new(2, 2)));
    assert_eq!(world.get::<Velocity>(f), Ok(&Velocity(2)));
    assert_eq!(world.get::<Name>(f), Ok(&Name("f".into())));
    assert_pools_consistent(&world);
}

#[test]
fn despawn_entity_with_many_components_then_reuse_slot_starts_empty() {
    #[derive(mosaic::Component)]
    struct C1;
    #[derive(mosaic::Component)]
    struct C2(#[allow(dead_code)] u8);
    let mut world = World::new();
    let e = world.spawn((Position::new(0, 0), Velocity(0), Name("many".into()), Marker, C1, C2(2)));
    assert_eq!(world.component_ids(e).unwrap().len(), 6);
    world.despawn(e);
    let f = world.spawn_empty();
    assert_eq!(f.index(), e.index());
    assert_eq!(world.component_ids(f), Ok(&[][..]));
    for pool in world.components().pools() {
        assert!(pool.is_empty(), "pool `{}`", pool.type_name());
    }
    assert_pools_consistent(&world);
}

#[test]
fn double_despawn_panics_naming_the_entity() {
    let mut world = World::new();
    let e = world.spawn(Velocity(1));
    world.despawn(e);
    let message = panic_message(|| world.despawn(e));
    assert!(message.contains("cannot despawn"), "{message}");
    assert!(message.contains(&e.to_string()), "{message}");
    assert_eq!(world.try_despawn(e), Err(EntityError::NoSuchEntity(e)));
    assert!(world.is_empty());
}

#[test]
#[should_panic(expected = "cannot despawn: entity 0v1 does not exist")]
fn double_despawn_panics() {
    let mut world = World::new();
    let e = world.spawn_empty();
    world.despawn(e);
    world.despawn(e);
}

#[test]
fn despawn_of_a_handle_never_spawned_here_is_refused() {
    let mut world = World::new();
    let live = world.spawn(Velocity(0));
    // This world's tag, another slot: never handed out here.
    let forged = Entity::from_bits(live.to_bits() + 5).unwrap();
    assert_eq!(world.try_despawn(forged), Err(EntityError::NoSuchEntity(forged)));
    let wrong_generation = Entity::from_bits(live.to_bits() + (1 << 32)).unwrap();
    assert_eq!(world.try_despawn(wrong_generation), Err(EntityError::NoSuchEntity(wrong_generation)));
    assert!(world.is_alive(live));
}

#[test]
fn stale_handle_after_slot_reuse_reaches_nothing() {
    let mut world = World::new();
    let old = world.spawn((Position::new(1, 1), Velocity(1)));
    world.despawn(old);
    let new = world.spawn((Position::new(2, 2), Velocity(2)));
    assert_eq!(new.index(), old.index(), "the freed slot is reused");
    assert_eq!(new.generation(), old.generation() + 1);
    assert_ne!(new, old);

    assert!(!world.is_alive(old));
    assert_eq!(world.get::<Position>(old), Err(ComponentError::Entity(EntityError::NoSuchEntity(old))));
    assert_eq!(world.get_mut::<Position>(old), Err(ComponentError::Entity(EntityError::NoSuchEntity(old))));
    assert!(!world.contains::<Position>(old));
    assert_eq!(
        world.try_insert(old, Position::new(9, 9)),
        Err(ComponentError::Entity(EntityError::NoSuchEntity(old)))
    );
    assert_eq!(
        world.try_insert(old, Name("stale".into())),
        Err(ComponentError::Entity(EntityError::NoSuchEntity(old)))
    );
    assert_eq!(
        world.try_insert_bundle(old, (Marker,)),
        Err(ComponentError::Entity(EntityError::NoSuchEntity(old)))
    );
    assert_eq!(
        world.try_remove::<Position>(old),
        Err(ComponentError::Entity(EntityError::NoSuchEntity(old)))
    );
    assert_eq!(world.try_despawn(old), Err(EntityError::NoSuchEntity(old)));
    assert_eq!(world.component_ids(old), Err(EntityError::NoSuchEntity(old)));
    assert!(world.get_entity(old).is_err());
    assert!(world.get_entity_mut(old).is_err());
    assert!(matches!(
        world.query::<&Position>().get(old),
        Err(QueryError::Entity(EntityError::NoSuchEntity(_)))
    ));

    // The panicking forms refuse too, naming the stale handle.
    for message in [
        panic_message(|| world.insert(old, Velocity(9))),
        panic_message(|| world.remove::<Velocity>(old)),
        panic_message(|| world.despawn(old)),
        panic_message(|| world.entity(old).id()),
        panic_message(|| world.entity_mut(old).id()),
    ] {
        assert!(message.contains(&old.to_string()), "{message}");
    }

    // The new occupant is untouched.
    assert_eq!(world.get::<Position>(new), Ok(&Position::new(2, 2)));
    assert_eq!(world.get::<Velocity>(new), Ok(&Velocity(2)));
    assert!(!world.contains::<Name>(new));
    assert!(!world.contains::<Marker>(new));
    assert_eq!(world.component_ids(new).unwrap().len(), 2);
    assert_eq!(world.len(), 1);
    assert_eq!(pool_len::<Name>(&world), 0);
    assert_pools_consistent(&world);
}

#[test]
fn retired_slots_are_never_reused() {
    const SLOTS: u32 = 4;
    const GENERATIONS: u32 = 3;
    let mut world = World::with_entity_limits(SLOTS, GENERATIONS);
    let mut history = Vec::new();
    for slot in 0..SLOTS {
        for generation in 1..=GENERATIONS {
            let e = world.spawn(Velocity((slot * 10 + generation) as i32));
            assert_eq!((e.index(), e.generation()), (slot, generation));
            for &old in &history {
                assert_ne!(e, old, "a handle was handed out twice");
                assert!(!world.is_alive(old));
            }
            history.push(e);
            world.despawn(e);
        }
        assert_eq!(world.entities().retired_count(), slot + 1);
    }
    assert_eq!(world.try_spawn(Velocity(0)), Err(EntityError::Exhausted { limit: SLOTS }));
    assert_eq!(world.entities().slot_count(), SLOTS);
    // No old handle, nor any later generation of a retired slot, matches anything.
    for &old in &history {
        assert!(!world.is_alive(old));
        assert_eq!(world.get::<Velocity>(old), Err(ComponentError::Entity(EntityError::NoSuchEntity(old))));
        let next = Entity::from_bits(old.to_bits() + (1 << 32)).unwrap();
        assert!(!world.is_alive(next));
    }
    assert_eq!(pool_len::<Velocity>(&world), 0);
}

#[test]
fn retirement_with_live_neighbours() {
    let mut world = World::with_entity_limits(4, 3);
    let keep = world.spawn(Name("keep".into()));
    let mut last = None;
    // Cycle the other slots until all three retire; `keep` holds its slot throughout.
    while let Ok(e) = world.try_spawn(Velocity(1)) {
        assert_ne!(e.index(), keep.index());
        if let Some(previous) = last {
            assert_ne!(e, previous);
        }
        last = Some(e);
        world.despawn(e);
    }
    assert_eq!(world.entities().retired_count(), 3);
    assert_eq!(world.len(), 1);
    assert_eq!(world.get::<Name>(keep), Ok(&Name("keep".into())));
    // Freeing `keep`'s slot (generation 1) lets it be used twice more.
    world.despawn(keep);
    let again = world.spawn(Marker);
    assert_eq!((again.index(), again.generation()), (keep.index(), 2));
    assert!(!world.is_alive(keep));
}

#[test]
fn a_million_spawn_despawn_cycles_reuse_one_slot() {
    let mut world = World::new();
    let mut last = None;
    for i in 0..CYCLES {
        let e = world.spawn(Velocity(i as i32));
        world.despawn(e);
        last = Some(e);
    }
    let last = last.unwrap();
    assert_eq!(world.len(), 0);
    assert_eq!(world.entities().slot_count(), 1);
    assert_eq!((last.index(), last.generation()), (0, CYCLES));
    assert_eq!(pool_len::<Velocity>(&world), 0);
    let e = world.spawn(Velocity(-1));
    assert_eq!(e.generation(), CYCLES + 1);
    assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(-1)));
}

#[test]
fn churn_with_a_thousand_live_entities_stays_bounded() {
    // Fewer live entities under Miri, where each spawn costs milliseconds.
    const LIVE: u32 = if cfg!(miri) { 100 } else { 1000 };
    let mut world = World::new();
    let mut alive: VecDeque<(Entity, i32)> =
        (0..LIVE as i32).map(|i| (world.spawn((Velocity(i), Position::new(i, i))), i)).collect();
    for i in 0..CYCLES {
        let (oldest, _) = alive.pop_front().unwrap();
        world.despawn(oldest);
        let value = (LIVE + i) as i32;
        let e = world.spawn((Velocity(value), Position::new(value, value)));
        assert_ne!(e, oldest);
        alive.push_back((e, value));
    }
    assert_eq!(world.len(), LIVE);
    assert!(
        world.entities().slot_count() <= LIVE,
        "slot count {} grew past the live count",
        world.entities().slot_count()
    );
    assert_eq!(pool_len::<Velocity>(&world), LIVE as usize);
    assert_eq!(pool_len::<Position>(&world), LIVE as usize);
    for &(e, value) in &alive {
        assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(value)));
        assert_eq!(world.get::<Position>(e), Ok(&Position::new(value, value)));
    }
    assert_pools_consistent(&world);
}

// --- World::clear ---

#[test]
fn clear_despawns_everything_and_keeps_registrations() {
    let drops = common::DropCounter::new();
    let mut world = World::new();
    let old = world.spawn_batch((0..50).map(|i| (Velocity(i), drops.track(i as u32))));
    world.spawn_batch((0..10).map(|i| (Position::new(i, i), Marker)));
    let velocity = world.components().id::<Velocity>().unwrap();
    world.clear();
    assert!(world.is_empty());
    assert_eq!(drops.drops(), 50, "every value dropped once");
    assert!(old.iter().all(|&e| !world.is_alive(e)));
    assert!(world.get::<Velocity>(old[0]).is_err());
    assert_eq!(world.components().id::<Velocity>(), Some(velocity), "registration kept");
    assert_eq!(pool_len::<Velocity>(&world) + pool_len::<Marker>(&world), 0);
    let again = world.spawn(Velocity(7));
    assert_eq!((again.index(), again.generation()), (0, 2), "lowest index first, new generation");
    assert_eq!(world.query::<&Velocity>().into_iter().count(), 1);
    assert_pools_consistent(&world);
    world.clear();
    world.clear(); // clearing an empty world is fine
    assert!(world.is_empty());
}

#[test]
fn clear_fires_hooks_as_despawn_does_and_keeps_groups_and_hierarchies_consistent() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    let removed = Arc::new(AtomicUsize::new(0));
    let mut world = World::new();
    let counter = removed.clone();
    world.on_remove::<Velocity>(move |_| {
        counter.fetch_add(1, Ordering::Relaxed);
    });
    world.group::<(Velocity, Marker)>();
    let parent = world.spawn((Velocity(0), Marker));
    let children = world.spawn_batch((1..4).map(|i| (Velocity(i), Name(format!("c{i}")))));
    for &child in &children {
        world.set_parent(child, parent).unwrap();
    }
    let reserved = world.reserve_entity();
    world.clear();
    assert_eq!(removed.load(Ordering::Relaxed), 4);
    assert!(world.is_empty());
    assert!(!world.is_alive(reserved), "reserved ids are flushed, then cleared too");
    world.assert_hierarchy_invariants();
    assert_pools_consistent(&world);
    // Still usable, hooks and group included.
    let e = world.spawn((Velocity(1), Marker));
    world.despawn(e);
    assert_eq!(removed.load(Ordering::Relaxed), 5);
}
