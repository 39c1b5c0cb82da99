//! The command buffer: changes recorded during a query, applied in recorded order; commands on
//! dead entities skipped and counted; the buffer empty and reusable after `apply`.

use crate::common;

use common::{Marker, Name, Position, Velocity, assert_pools_consistent, panic_message, pool_len};
use mosaic::{ApplyReport, CommandBuffer, Entity, World};

#[test]
fn commands_recorded_during_a_query_apply_afterwards() {
    let mut world = World::new();
    let entities = world.spawn_batch((0..10).map(|i| (Velocity(i), Position::new(i, 0))));
    let mut commands = CommandBuffer::new();
    for (e, v) in world.query_ref::<(Entity, &Velocity)>() {
        match v.0 % 3 {
            0 => commands.despawn(e),
            1 => commands.insert(e, Name(format!("n{}", v.0))),
            _ => commands.remove::<Position>(e),
        }
        if v.0 < 2 {
            commands.spawn(&world, (Velocity(100 + v.0), Marker));
        }
    }
    assert_eq!(commands.len(), 12);
    assert!(!commands.is_empty());
    assert_eq!(world.len(), 10, "nothing changes before apply");

    let report = commands.apply(&mut world);
    assert_eq!(
        report,
        ApplyReport { applied: 12, skipped: 0, spawned: 2, despawned: 4, ..ApplyReport::default() }
    );
    assert_eq!(world.len(), 10 - 4 + 2);
    for (i, &e) in entities.iter().enumerate() {
        let i = i as i32;
        match i % 3 {
            0 => assert!(!world.is_alive(e)),
            1 => {
                assert_eq!(world.get::<Name>(e), Ok(&Name(format!("n{i}"))));
                assert!(world.contains::<Position>(e));
            }
            _ => {
                assert!(!world.contains::<Position>(e));
                assert!(!world.contains::<Name>(e));
                assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(i)));
            }
        }
    }
    let mut spawned: Vec<i32> =
        world.query_filtered::<&Velocity, mosaic::With<Marker>>().into_iter().map(|v| v.0).collect();
    spawned.sort();
    assert_eq!(spawned, vec![100, 101]);
    assert_pools_consistent(&world);
}

#[test]
fn commands_apply_in_recorded_order() {
    let mut world = World::new();
    let a = world.spawn_empty();
    let b = world.spawn(Velocity(0));
    let c = world.spawn_empty();
    let mut commands = CommandBuffer::new();
    // Insert then remove: none left.
    commands.insert(a, Velocity(1));
    commands.remove::<Velocity>(a);
    // Remove then insert: one left, the inserted one.
    commands.remove::<Velocity>(b);
    commands.insert(b, Velocity(2));
    // Two inserts: the later wins.
    commands.insert(c, Velocity(3));
    commands.insert(c, (Velocity(4), Marker));
    let report = commands.apply(&mut world);
    assert_eq!((report.applied, report.skipped), (6, 0));
    assert!(!world.contains::<Velocity>(a));
    assert_eq!(world.get::<Velocity>(b), Ok(&Velocity(2)));
    assert_eq!(world.get::<Velocity>(c), Ok(&Velocity(4)));
    assert!(world.contains::<Marker>(c));
    assert_eq!(pool_len::<Velocity>(&world), 2);
}

#[test]
fn bundles_of_one_type_reach_their_own_entities() {
    let mut world = World::new();
    let entities = world.spawn_batch((0..5).map(|_| Marker));
    let mut commands = CommandBuffer::new();
    for round in 0..3 {
        // Interleave two bundle types so each typed queue must keep its own order.
        for (i, &e) in entities.iter().enumerate() {
            let v = (round * 10 + i) as i32;
            if i % 2 == 0 {
                commands.insert(e, Velocity(v));
            } else {
                commands.insert(e, (Velocity(v), Name(v.to_string())));
            }
        }
        let report = commands.apply(&mut world);
        assert_eq!(report.applied, entities.len());
        assert!(commands.is_empty());
        for (i, &e) in entities.iter().enumerate() {
            let v = (round * 10 + i) as i32;
            assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(v)), "round {round}");
            if i % 2 == 1 {
                assert_eq!(world.get::<Name>(e), Ok(&Name(v.to_string())));
            }
        }
    }
}

#[test]
fn despawn_recorded_twice_is_skipped_the_second_time() {
    let mut world = World::new();
    let e = world.spawn(Velocity(1));
    let mut commands = CommandBuffer::new();
    commands.despawn(e);
    commands.despawn(e);
    let report = commands.apply(&mut world);
    assert_eq!(
        report,
        ApplyReport { applied: 1, skipped: 1, spawned: 0, despawned: 1, ..ApplyReport::default() }
    );
    assert!(!world.is_alive(e));
    assert!(world.is_empty());
}

#[test]
fn commands_on_entities_dead_before_apply_are_skipped() {
    let mut world = World::new();
    let e = world.spawn((Velocity(1), Position::new(0, 0)));
    let keep = world.spawn(Velocity(2));
    let mut commands = CommandBuffer::new();
    commands.insert(e, Name("late".into()));
    commands.remove::<Position>(e);
    commands.despawn(e);
    commands.insert(keep, Name("kept".into()));
    world.despawn(e);
    // The slot is reused before apply: the stale commands must not reach the new occupant.
    let reused = world.spawn(Position::new(7, 7));
    assert_eq!(reused.index(), e.index());

    let report = commands.apply(&mut world);
    assert_eq!(
        report,
        ApplyReport { applied: 1, skipped: 3, spawned: 0, despawned: 0, ..ApplyReport::default() }
    );
    assert_eq!(world.get::<Position>(reused), Ok(&Position::new(7, 7)));
    assert!(!world.contains::<Name>(reused));
    assert!(world.is_alive(reused));
    assert_eq!(world.get::<Name>(keep), Ok(&Name("kept".into())));
    assert_eq!(pool_len::<Name>(&world), 1);
}

#[test]
fn commands_after_a_recorded_despawn_are_skipped() {
    let mut world = World::new();
    let e = world.spawn(Velocity(1));
    let mut commands = CommandBuffer::new();
    commands.despawn(e);
    commands.insert(e, Marker);
    commands.remove::<Velocity>(e);
    commands.spawn(&world, Marker);
    let report = commands.apply(&mut world);
    assert_eq!(
        report,
        ApplyReport { applied: 2, skipped: 2, spawned: 1, despawned: 1, ..ApplyReport::default() }
    );
    assert_eq!(world.len(), 1);
    assert_eq!(pool_len::<Marker>(&world), 1);
    assert!(!world.contains::<Marker>(e));
}

#[test]
fn removing_an_absent_component_is_applied_as_a_no_op() {
    let mut world = World::new();
    let e = world.spawn(Velocity(1));
    let mut commands = CommandBuffer::new();
    commands.remove::<Name>(e);
    let report = commands.apply(&mut world);
    assert_eq!((report.applied, report.skipped), (1, 0));
    assert_eq!(world.get::<Velocity>(e), Ok(&Velocity(1)));
}

#[test]
fn the_buffer_is_empty_after_apply_and_reusable() {
    let mut world = World::new();
    let mut commands = CommandBuffer::new();
    assert!(commands.is_empty());
    assert_eq!(commands.apply(&mut world), ApplyReport::default());

    commands.spawn(&world, Velocity(1));
    commands.spawn(&world, Velocity(2));
    assert_eq!(commands.len(), 2);
    assert_eq!(commands.apply(&mut world).spawned, 2);
    assert!(commands.is_empty());
    assert_eq!(commands.len(), 0);
    // Applying again does nothing: the spawns are not repeated.
    assert_eq!(commands.apply(&mut world), ApplyReport::default());
    assert_eq!(world.len(), 2);

    let entities: Vec<Entity> = world.query::<Entity>().into_iter().collect();
    for &e in &entities {
        commands.insert(e, Marker);
    }
    commands.spawn(&world, Velocity(3));
    let report = commands.apply(&mut world);
    assert_eq!((report.applied, report.spawned), (3, 1));
    assert_eq!(world.len(), 3);
    assert_eq!(pool_len::<Marker>(&world), 2);
    let mut values: Vec<i32> = world.query::<&Velocity>().into_iter().map(|v| v.0).collect();
    values.sort();
    assert_eq!(values, vec![1, 2, 3]);
}

#[test]
fn a_panicking_apply_still_empties_the_buffer() {
    let mut world = World::new();
    let a = world.spawn_empty();
    let b = world.spawn_empty();
    let mut commands = CommandBuffer::new();
    commands.insert(a, Velocity(1));
    commands.spawn(&world, (Marker, Marker));
    commands.insert(b, Velocity(2));
    let message = panic_message(|| commands.apply(&mut world));
    assert!(message.contains("twice"), "{message}");
    assert!(commands.is_empty());
    assert_eq!(world.get::<Velocity>(a), Ok(&Velocity(1)), "applied before the panic");
    assert!(!world.contains::<Velocity>(b), "dropped after the panic");
    // Still usable.
    commands.insert(b, Velocity(3));
    assert_eq!(commands.apply(&mut world).applied, 1);
    assert_eq!(world.get::<Velocity>(b), Ok(&Velocity(3)));
    assert_pools_consistent(&world);
}

// --- spawn returns the entity at once ---

#[test]
fn a_spawned_handle_is_usable_by_later_commands_and_in_components() {
    /// Holds a handle.
    #[derive(mosaic::Component)]
    struct Target(Entity);

    let mut world = World::new();
    let mut commands = CommandBuffer::new();
    let ship = commands.spawn(&world, Velocity(1));
    let escort = commands.spawn(&world, Target(ship));
    commands.insert(ship, Marker);
    commands.set_parent(escort, ship);
    assert!(!world.is_alive(ship), "reserved, not alive before apply");
    assert_eq!(world.len(), 0);
    let report = commands.apply(&mut world);
    assert_eq!((report.applied, report.spawned, report.skipped, report.refused), (4, 2, 0, 0));
    assert_eq!(world.get::<Velocity>(ship), Ok(&Velocity(1)));
    assert!(world.contains::<Marker>(ship));
    assert_eq!(world.get::<Target>(escort).map(|t| t.0), Ok(ship));
    assert_eq!(world.parent(escort), Some(ship));
    world.assert_hierarchy_invariants();
    assert_pools_consistent(&world);
}

#[test]
fn spawned_handles_reuse_freed_slots_with_new_generations_and_the_world_tag() {
    let mut world = World::new();
    let old = world.spawn(Velocity(0));
    world.despawn(old);
    let mut commands = CommandBuffer::new();
    let reused = commands.spawn(&world, Velocity(1));
    let fresh = commands.spawn(&world, Velocity(2));
    assert_eq!((reused.index(), reused.generation()), (old.index(), old.generation() + 1));
    assert_eq!((fresh.index(), fresh.generation()), (1, 1));
    assert_eq!(reused.world_tag(), world.entities().world_tag());
    assert_eq!(fresh.world_tag(), world.entities().world_tag());
    commands.apply(&mut world);
    assert!(!world.is_alive(old), "the stale handle is not revived");
    assert_eq!(world.get::<Velocity>(reused), Ok(&Velocity(1)));
    assert_eq!(world.get::<Velocity>(fresh), Ok(&Velocity(2)));
    assert_eq!(world.spawn_empty().index(), 2, "the allocator moved past the reserved slots");
}

#[test]
fn a_spawn_applied_to_another_world_is_skipped() {
    let mut world = World::new();
    let mut other = World::new();
    let mut commands = CommandBuffer::new();
    let e = commands.spawn(&world, Velocity(1));
    let report = commands.apply(&mut other);
    assert_eq!((report.spawned, report.skipped), (0, 1));
    assert_eq!(other.len(), 0);
    // The reservation stays with the world that made it: an empty entity once it flushes.
    world.flush();
    assert!(world.is_alive(e));
    assert_eq!(world.component_ids(e).map(<[_]>::len), Ok(0));
}

#[test]
fn an_unapplied_spawn_leaves_an_empty_entity_and_a_despawned_one_is_skipped() {
    let mut world = World::new();
    let mut commands = CommandBuffer::new();
    let dropped = commands.spawn(&world, Velocity(1));
    commands.clear();
    assert!(commands.is_empty());
    let keep = world.spawn(Marker); // a structural change flushes the reservation
    assert!(world.is_alive(dropped));
    assert!(!world.contains::<Velocity>(dropped));
    assert_eq!(pool_len::<Velocity>(&world), 0, "the bundle was dropped with the command");

    let e = commands.spawn(&world, Velocity(2));
    world.flush();
    world.despawn(e);
    let report = commands.apply(&mut world);
    assert_eq!((report.spawned, report.skipped), (0, 1));
    assert!(world.is_alive(keep));
    assert_eq!(world.len(), 2);
}

#[test]
fn hierarchy_commands_apply_in_order_and_count_what_they_did() {
    let mut world = World::new();
    let root = world.spawn(Marker);
    let mut commands = CommandBuffer::new();
    let a = commands.spawn(&world, Velocity(1));
    let b = commands.spawn(&world, Velocity(2));
    commands.set_parent(a, root);
    commands.set_parent(b, a);
    commands.set_parent(root, b); // a cycle: refused
    let report = commands.apply(&mut world);
    assert_eq!((report.applied, report.refused, report.skipped), (4, 1, 0));
    assert_eq!(world.descendants(root).collect::<Vec<_>>(), [a, b]);

    commands.remove_parent(b);
    commands.despawn_recursive(root);
    commands.set_parent(b, root); // root is gone by now: skipped
    let report = commands.apply(&mut world);
    assert_eq!((report.applied, report.despawned, report.skipped), (2, 2, 1));
    assert!(!world.is_alive(root) && !world.is_alive(a));
    assert_eq!(world.parent(b), None);
    assert_eq!(world.len(), 1);
    world.assert_hierarchy_invariants();
}

/// Long runs of despawns and spawns (the buffer fetches memory for the commands ahead of the one
/// it applies) give exactly what the same changes made one by one give, in a world with nested
/// groups: despawns of entities spawned in the same buffer, twice-despawned entities and
/// entities already dead included.
#[test]
fn long_runs_of_spawns_and_despawns_match_applying_them_one_by_one() {
    let build = || {
        let mut world = World::new();
        world.group::<(Position, Velocity)>();
        world.group::<(Position, Velocity, Marker)>();
        let entities = world.spawn_batch((0..300).map(|i| (Position::new(i, 0), Velocity(i))));
        for &e in entities.iter().step_by(3) {
            world.insert(e, Marker);
        }
        (world, entities)
    };
    let (mut buffered, entities) = build();
    let (mut direct, direct_entities) = build();
    let mut commands = CommandBuffer::new();
    let mut spawned = Vec::new();
    for (k, &e) in entities.iter().enumerate().filter(|(k, _)| k % 7 != 0) {
        commands.despawn(e);
        if k % 5 == 0 {
            commands.despawn(e); // twice: skipped the second time
        }
        if k % 4 == 0 {
            spawned.push(
                commands.spawn(&buffered, (Position::new(1000 + k as i32, 1), Velocity(k as i32), Marker)),
            );
        }
    }
    for &e in spawned.iter().step_by(2) {
        commands.despawn(e);
    }
    let report = commands.apply(&mut buffered);
    // The same changes, one at a time.
    let mut direct_spawned = Vec::new();
    for (k, &e) in direct_entities.iter().enumerate().filter(|(k, _)| k % 7 != 0) {
        direct.despawn(e);
        if k % 4 == 0 {
            direct_spawned.push(direct.spawn((
                Position::new(1000 + k as i32, 1),
                Velocity(k as i32),
                Marker,
            )));
        }
    }
    for &e in direct_spawned.iter().step_by(2) {
        direct.despawn(e);
    }
    assert_eq!(report.despawned, entities.len() - entities.len().div_ceil(7) + spawned.len().div_ceil(2));
    assert_eq!(buffered.len(), direct.len());
    buffered.assert_group_invariants();
    assert_pools_consistent(&buffered);
    // Spawns reserved at recording take other slots than spawns made after the despawns: the
    // contents are compared without entity ids.
    let contents = |world: &World| {
        let mut rows: Vec<(i32, i32, i32, bool)> = world
            .query_ref::<(&Position, &Velocity, Option<&Marker>)>()
            .into_iter()
            .map(|(p, v, m)| (p.x, p.y, v.0, m.is_some()))
            .collect();
        rows.sort_unstable();
        rows
    };
    assert_eq!(contents(&buffered), contents(&direct));
}
